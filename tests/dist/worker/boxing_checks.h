// Global tensors across real ranks (run under `oflite launch`): every boxing pair of S(0), S(1),
// B and P on a tensor whose dims split unevenly, and global matmuls, against whole tensors.
#ifndef ONEFLOW_LITE_TESTS_DIST_WORKER_BOXING_CHECKS_H_
#define ONEFLOW_LITE_TESTS_DIST_WORKER_BOXING_CHECKS_H_

#include <cstdint>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace dist_test {

// The number of checks that held; a RuntimeError naming the first that did not. Every rank of
// the world (dist::Init done) calls it alike.
Maybe<int64_t> CheckBoxing(const Device& device);

}  // namespace dist_test
}  // namespace oflite

#endif  // ONEFLOW_LITE_TESTS_DIST_WORKER_BOXING_CHECKS_H_
