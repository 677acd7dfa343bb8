// CachingAllocator: memory of one device, kept for reuse instead of given back. The policy lives
// here; subclasses (ep/cuda/caching_allocator.h, the CPU provider) supply the device hooks.
// - A request is rounded up to its size class: up to 1 MiB, a multiple of 512 bytes; above,
//   one of eight classes per power of two (a multiple of 2^(floor(log2(bytes)) - 3)), which
//   wastes at most 12.5%. Each class is a bin of free blocks; a block is one DeviceMalloc of
//   exactly its class size and is never split or merged.
// - A request takes a free block of its class when there is one (no device call), else
//   DeviceMalloc's a new one. Freeing puts the block back in its bin; DeviceFree happens only in
//   EmptyCache, in the out-of-memory retry and at exit.
// - Blocks are reused in stream order without events: a freed block goes back to the bin of
//   the stream it was allocated for, and only requests for that stream take it, so its next
//   owner's work runs after the previous owner's last use (the runtime makes that stream wait
//   for any other stream the memory was used on before freeing it).
// - A DeviceMalloc that does not fit empties the cache and tries once more; then the request is
//   OutOfMemory naming the bytes asked and the device's free and total memory.
#ifndef ONEFLOW_LITE_EP_CACHING_ALLOCATOR_H_
#define ONEFLOW_LITE_EP_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "oneflow_lite/ep/allocator.h"

namespace oflite {
namespace ep {

class CachingAllocator : public Allocator {
 public:
  static constexpr size_t kSmallLimit = size_t{1} << 20;
  static constexpr size_t kSmallGranularity = 512;

  Maybe<void*> Allocate(size_t bytes, Stream* stream) override;
  void Deallocate(void* ptr, size_t bytes, Stream* stream) override;
  AllocatorStats GetStats() const override;
  Maybe<void> EmptyCache() override;

  // The class size a request of `bytes` is served with; 0 when no class can hold it.
  static size_t RoundSize(size_t bytes);

 protected:
  // Device hooks, called with the allocator's lock held.
  // A new block of `bytes`; nullptr when the device is out of memory, DeviceError otherwise.
  virtual Maybe<void*> DeviceMalloc(size_t bytes) = 0;
  virtual Maybe<void> DeviceFree(void* ptr) = 0;
  // Waits for queued work that may still use cached blocks, before they are freed.
  virtual Maybe<void> WaitForDevice() { return Ok(); }
  // The device's free and total memory for the OutOfMemory message ("N bytes free of M").
  virtual std::string DescribeFreeMemory() = 0;
  // The device as messages name it: "cuda:0", "cpu".
  virtual std::string DeviceName() const = 0;

  // For subclass destructors (the base destructor cannot reach the hooks): frees every cached
  // block, ignoring errors. Blocks still in use stay.
  void ReleaseCachedBlocks();

 private:
  Maybe<void*> MallocBlock(size_t bytes, size_t rounded);
  Maybe<void> EmptyCacheLocked();

  // A size class of one stream's blocks.
  struct Bin {
    size_t size;
    Stream* stream;
    bool operator==(const Bin& other) const { return size == other.size && stream == other.stream; }
  };
  struct BinHash {
    size_t operator()(const Bin& bin) const;
  };

  mutable std::mutex mutex_;
  std::unordered_map<Bin, std::vector<void*>, BinHash> free_blocks_;
  using LiveBlocks = std::unordered_map<void*, Bin>;
  LiveBlocks live_blocks_;                          // handed out -> its bin
  std::vector<LiveBlocks::node_type> spare_nodes_;  // nodes of freed blocks, for the next ones
  AllocatorStats stats_;
};

}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CACHING_ALLOCATOR_H_
