// How many threads CPU calls use. Our loops, oneDNN and OpenBLAS share one persistent OpenMP pool,
// and this count governs all of them. It starts at OFLITE_NUM_THREADS when that holds a positive
// integer, else at OpenMP's default (OMP_NUM_THREADS, or one per core). Results do not depend on
// it: every CPU primitive splits work so that each output is computed the same way.
#ifndef ONEFLOW_LITE_EP_NUM_THREADS_H_
#define ONEFLOW_LITE_EP_NUM_THREADS_H_

#include <cstdint>

#include "oneflow_lite/common/maybe.h"

namespace oflite {

// n >= 1, else ValueError. Takes effect for calls that start after it returns, on every thread.
Maybe<void> SetNumThreads(int64_t n);
int GetNumThreads();

}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_NUM_THREADS_H_
