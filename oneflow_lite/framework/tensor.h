// Tensor: a typed view (shape, strides, offset) of shared device storage.
// Tensors are contiguous for now; strides and offset exist so views can come later.
#ifndef ONEFLOW_LITE_FRAMEWORK_TENSOR_H_
#define ONEFLOW_LITE_FRAMEWORK_TENSOR_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"

// DLPack's managed tensor (dlpack/dlpack.h); the header stays out of ours.
struct DLManagedTensor;

namespace oflite {

class GlobalTensor;
class Placement;
class Sbp;

namespace ep {
class Allocator;
class Device;
class Event;
class Stream;
}  // namespace ep

// Memory of one allocation on one device, freed through its allocator when the last tensor
// lets go. A null allocator means the memory belongs to the caller (see Tensor::FromStorage),
// who may hand a deleter that runs once, when the last tensor lets go.
class Storage {
 public:
  // Memory from `allocator` for work on `stream` (null: the device's default stream).
  Storage(ep::Allocator* allocator, void* ptr, size_t bytes, Device device,
          ep::Stream* stream = nullptr);
  Storage(void* ptr, size_t bytes, Device device, std::function<void()> deleter);
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  void* ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  const Device& device() const { return device_; }

  // Notes that the work queued on `stream` so far uses the memory: an event marks that point
  // now (unlike PyTorch's record_stream, which records when the memory is freed, so call this
  // after queuing the work), and before the memory goes back to the allocator its allocation
  // stream waits for the event (the host waits where no event can be made). Memory the caller
  // lent has no stream of ours to order its return on: the host waits for the recorded work
  // before its deleter runs (a DLPack producer knows nothing of our streams). The runtime
  // records each call's stream after queuing the call; a no-op for the allocation stream and
  // for CPU memory (CPU work is done when launched).
  void RecordStream(ep::Stream* stream) {
    if (stream != stream_ && device_.type() != DeviceType::kCPU) {
      RecordOtherStream(stream);
    }
  }

 private:
  void RecordOtherStream(ep::Stream* stream);
  // The last recorded point of each other stream that used the memory.
  struct Use {
    ep::Stream* stream;
    std::unique_ptr<ep::Event> event;
  };

  ep::Allocator* allocator_;
  void* ptr_;
  size_t bytes_;
  Device device_;
  std::function<void()> deleter_;
  ep::Stream* stream_ = nullptr;
  std::mutex uses_mutex_;
  std::vector<Use> uses_;
};

class Tensor {
 public:
  Tensor() = default;  // undefined: no storage

  static Maybe<Tensor> Empty(const Shape& shape, DataType data_type,
                             const Device& device = Device::Cpu());
  // The same on a device already looked up (ep::GetDevice), as the interpreter allocates.
  static Maybe<Tensor> Empty(const Shape& shape, DataType data_type, ep::Device* device);
  // Copies bytes (elem_cnt * element size of data_type) from host memory; data may be null only
  // when bytes is 0. bool bytes are read as NumPy reads them: any nonzero byte is true (stored 1).
  static Maybe<Tensor> FromHost(const void* data, size_t bytes, const Shape& shape,
                                DataType data_type, const Device& device = Device::Cpu());
  template <typename T>
  static Maybe<Tensor> FromVector(const std::vector<T>& values, const Shape& shape,
                                  const Device& device = Device::Cpu());
  static Maybe<Tensor> Full(const Shape& shape, double value, DataType data_type,
                            const Device& device = Device::Cpu());
  // A contiguous tensor over existing storage (e.g. memory the embedding program owns);
  // ValueError when the storage is too small for shape and dtype. A bool tensor's storage must
  // hold only bytes 0 and 1, as PyTorch's must: nothing copies it to check.
  static Maybe<Tensor> FromStorage(std::shared_ptr<Storage> storage, const Shape& shape,
                                   DataType data_type);
  // Takes a DLPack tensor without copying: CPU memory (kDLCPU, or kDLCUDAHost, pinned) or a
  // CUDA device's, compact row-major (strides null or those of a contiguous tensor), of a dtype
  // oflite has. Its deleter runs once, when the last tensor over it lets go. On an error
  // (ValueError for a null tensor, other strides or lanes, a negative dim; TypeError for a dtype;
  // DeviceError for a device type oflite lacks or a CUDA device it cannot use) nothing is taken:
  // the caller still owns `managed`.
  static Maybe<Tensor> FromDLPack(DLManagedTensor* managed);
  // The tensor as a DLPack tensor over the same memory (no copy), which keeps the storage alive
  // until its deleter runs; the consumer calls the deleter once. bool goes out as DLPack's
  // kDLBool (code 6) of 8 bits.
  Maybe<DLManagedTensor*> ToDLPack() const;

  // The work queued so far on the caller's stream `native_stream` (a cudaStream_t; nullptr the
  // legacy default stream) uses this tensor: its memory is not reused before that work is done
  // (Storage::RecordStream). Call it after queuing the work: the point is recorded now.
  // ValueError when it is not a stream of the tensor's device.
  Maybe<void> RecordStream(void* native_stream) const;

  // This rank's shard of a global tensor laid out as `sbp` (one Sbp per placement dim) on
  // `placement`: GlobalTensor::FromShard (oneflow_lite/framework/global_tensor.h).
  Maybe<GlobalTensor> ToGlobal(const Placement& placement, const std::vector<Sbp>& sbp) const;

  // Copies the elements to host memory of exactly nbytes() bytes.
  Maybe<void> CopyToHost(void* dst, size_t bytes) const;
  template <typename T>
  Maybe<std::vector<T>> ToVector() const;
  // A copy on another device (through host memory for now).
  Maybe<Tensor> To(const Device& device) const;
  // The same elements viewed with another shape of the same element count: shares the storage,
  // copies nothing. ValueError when the counts differ or the tensor is not contiguous.
  Maybe<Tensor> View(const Shape& shape) const;

  bool defined() const { return storage_ != nullptr; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  DataType dtype() const { return dtype_; }
  const Device& device() const { return device_; }
  int64_t offset() const { return offset_; }
  int64_t rank() const { return shape_.rank(); }
  int64_t elem_cnt() const { return shape_.elem_cnt(); }
  size_t nbytes() const { return static_cast<size_t>(elem_cnt()) * DataTypeSize(dtype_); }
  bool is_contiguous() const { return strides_ == ContiguousStrides(shape_); }

  // Precondition: defined(). The interpreter checks inputs before kernels touch their data.
  const void* data() const;
  void* mut_data() const;
  Storage* storage() const { return storage_.get(); }

 private:
  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  DataType dtype_ = DataType::kFloat32;
  Device device_;
  int64_t offset_ = 0;  // in elements
};

template <typename T>
Maybe<Tensor> Tensor::FromVector(const std::vector<T>& values, const Shape& shape,
                                 const Device& device) {
  OFLITE_JUST(shape.Validate());
  OFLITE_CHECK_OR_RETURN(static_cast<int64_t>(values.size()) == shape.elem_cnt(), ValueError)
      << "Tensor::FromVector: " << values.size() << " values cannot fill shape " << shape << " of "
      << shape.elem_cnt() << " elements";
  if constexpr (std::is_same_v<T, bool>) {  // vector<bool> is packed: unpack it first
    std::vector<uint8_t> bytes(values.begin(), values.end());
    return FromHost(bytes.data(), bytes.size(), shape, DataType::kBool, device);
  } else {
    return FromHost(values.data(), values.size() * sizeof(T), shape, kDataTypeOf<T>, device);
  }
}

template <typename T>
Maybe<std::vector<T>> Tensor::ToVector() const {
  OFLITE_CHECK_OR_RETURN(kDataTypeOf<T> == dtype_, TypeError)
      << "Tensor::ToVector: the tensor holds " << dtype_ << ", not " << kDataTypeOf<T>;
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(static_cast<size_t>(elem_cnt()));
    OFLITE_JUST(CopyToHost(bytes.data(), bytes.size()));
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> values(static_cast<size_t>(elem_cnt()));
    OFLITE_JUST(CopyToHost(values.data(), values.size() * sizeof(T)));
    return values;
  }
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_FRAMEWORK_TENSOR_H_
