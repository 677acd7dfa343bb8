// `oflite bench --overhead`: host microseconds per functional call on tiny tensors.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_BENCH_OVERHEAD_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_BENCH_OVERHEAD_H_

#include <cstdint>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {
namespace cli {

// Prints one line (or JSON object) per timed call; ValueError for calls < 1.
Maybe<void> BenchOverhead(const Device& device, int64_t calls, bool json);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_BENCH_OVERHEAD_H_
