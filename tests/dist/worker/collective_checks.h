// Every collective of a dist::Communicator against a reference computed here: each rank can
// compute every other rank's inputs (small integers and halves, exact in every dtype), so each
// checks its own outputs element by element. Shared by the multi-process worker and the world
// of 1 tests (CPU and CUDA).
#ifndef ONEFLOW_LITE_TESTS_DIST_WORKER_COLLECTIVE_CHECKS_H_
#define ONEFLOW_LITE_TESTS_DIST_WORKER_COLLECTIVE_CHECKS_H_

#include <cstdint>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/dist/communicator.h"

namespace oflite {
namespace dist_test {

// Runs each collective for every dtype with even, uneven and empty per-rank counts (and
// in-place forms) on buffers of `device`; returns how many outputs matched, or a RuntimeError
// naming the first mismatch (collective, dtype, counts, element, expected, got).
Maybe<int64_t> CheckCollectives(dist::Communicator* comm, const Device& device);

}  // namespace dist_test
}  // namespace oflite

#endif  // ONEFLOW_LITE_TESTS_DIST_WORKER_COLLECTIVE_CHECKS_H_
