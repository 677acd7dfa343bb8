#include "oneflow_lite/common/snapshot_cell.h"

namespace oflite {

namespace {
std::atomic<uint64_t> generation{0};
}  // namespace

uint64_t SnapshotGeneration() { return generation.load(std::memory_order_acquire); }
void BumpSnapshotGeneration() { generation.fetch_add(1, std::memory_order_acq_rel); }

}  // namespace oflite
