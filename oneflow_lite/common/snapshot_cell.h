// SnapshotCell<T>: a value that many threads read without a lock while a few change it.
//
// Writers edit a draft under a mutex. A reader takes the latest published copy with two atomic
// loads; the first reader after a change publishes a copy of the draft. Published copies are
// kept for the life of the cell, so a reference or pointer a reader took into one stays valid
// however the value changes later. The registries use it: they change only while code loads
// (start-up, LoadOpLibrary), and hold their entries through shared_ptr so a copy is small.
#ifndef ONEFLOW_LITE_COMMON_SNAPSHOT_CELL_H_
#define ONEFLOW_LITE_COMMON_SNAPSHOT_CELL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace oflite {

// Counts every SnapshotCell change in the process, so caches built from registry contents (the
// interpreter's call cache) see with one atomic load that they may be stale.
uint64_t SnapshotGeneration();
void BumpSnapshotGeneration();

template <typename T>
class SnapshotCell {
 public:
  SnapshotCell() = default;
  SnapshotCell(const SnapshotCell&) = delete;
  SnapshotCell& operator=(const SnapshotCell&) = delete;

  // The value as of the last Update that happened before this call.
  const T& Read() const {
    if (changed_.load(std::memory_order_acquire)) {
      return Publish();
    }
    return *current_.load(std::memory_order_acquire);
  }

  // Runs edit(T&) on the draft, one writer at a time; returns what edit returns.
  template <typename Edit>
  decltype(auto) Update(Edit&& edit) {
    std::lock_guard<std::mutex> lock(mutex_);
    struct MarkChanged {  // also when edit throws: it may have changed the draft
      std::atomic<bool>* changed;
      ~MarkChanged() {
        changed->store(true, std::memory_order_release);
        BumpSnapshotGeneration();
      }
    } mark{&changed_};
    return std::forward<Edit>(edit)(draft_);
  }

 private:
  const T& Publish() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (changed_.load(std::memory_order_relaxed)) {
      published_.push_back(std::make_unique<const T>(draft_));
      current_.store(published_.back().get(), std::memory_order_release);
      changed_.store(false, std::memory_order_release);
    }
    return *current_.load(std::memory_order_relaxed);
  }

  mutable std::mutex mutex_;
  T draft_;
  // True until the first publication, so the first Read publishes even an empty value.
  mutable std::atomic<bool> changed_{true};
  mutable std::atomic<const T*> current_{nullptr};
  mutable std::vector<std::unique_ptr<const T>> published_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_SNAPSHOT_CELL_H_
