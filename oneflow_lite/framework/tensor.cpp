#include "oneflow_lite/framework/tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/ep/event.h"
#include "oneflow_lite/primitive/fill.h"
#include "oneflow_lite/primitive/memcpy.h"

namespace oflite {

// Out of line: the uses' events are complete types only here.
Storage::Storage(ep::Allocator* allocator, void* ptr, size_t bytes, Device device,
                 ep::Stream* stream)
    : allocator_(allocator), ptr_(ptr), bytes_(bytes), device_(device), stream_(stream) {}

Storage::Storage(void* ptr, size_t bytes, Device device, std::function<void()> deleter)
    : allocator_(nullptr),
      ptr_(ptr),
      bytes_(bytes),
      device_(device),
      deleter_(std::move(deleter)) {}

Storage::~Storage() {
  if (allocator_ == nullptr) {
    for (Use& use : uses_) {  // our work on the caller's memory ends before the caller gets it
      static_cast<void>(use.event->Synchronize());
    }
    if (deleter_) {
      deleter_();
    }
    return;
  }
  // The events stay valid when their streams are gone. Without an allocation stream to order
  // the free on, or when the wait cannot be queued, the host waits; an event that fails both
  // belongs to a lost context, and the memory with it.
  for (Use& use : uses_) {
    if (stream_ == nullptr || !stream_->WaitEvent(use.event.get()).ok()) {
      static_cast<void>(use.event->Synchronize());
    }
  }
  allocator_->Deallocate(ptr_, bytes_, stream_);
}

void Storage::RecordOtherStream(ep::Stream* stream) {
  std::lock_guard<std::mutex> lock(uses_mutex_);
  auto use = std::find_if(uses_.begin(), uses_.end(),
                          [stream](const Use& u) { return u.stream == stream; });
  if (use != uses_.end() && use->event->Record(stream).ok()) {
    return;  // the later point replaces the earlier
  }
  Maybe<std::unique_ptr<ep::Event>> event = stream->RecordEvent();
  if (!event.ok()) {
    static_cast<void>(stream->Sync());  // no point to wait for: wait now
  } else if (event.value() != nullptr) {
    if (use != uses_.end()) {
      use->event = std::move(event).value();
    } else {
      uses_.push_back({stream, std::move(event).value()});
    }
  }
}

namespace {
// Bytes of a contiguous tensor: ValueError for a bad shape or dtype, OutOfMemory when even
// size_t cannot count them.
Maybe<size_t> ContiguousBytes(const char* call, const Shape& shape, DataType data_type) {
  OFLITE_JUST(shape.Validate());
  OFLITE_CHECK_OR_RETURN(IsValidDataType(static_cast<int>(data_type)), ValueError)
      << call << ": invalid dtype value " << static_cast<int>(data_type);
  const size_t size = DataTypeSize(data_type);
  OFLITE_CHECK_OR_RETURN(static_cast<uint64_t>(shape.elem_cnt()) <= SIZE_MAX / size, OutOfMemory)
      << call << ": shape " << shape << " of " << data_type
      << " needs more bytes than size_t can count";
  return static_cast<size_t>(shape.elem_cnt()) * size;
}
}  // namespace

Maybe<Tensor> Tensor::Empty(const Shape& shape, DataType data_type, const Device& device) {
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  return Empty(shape, data_type, ep_device);
}

Maybe<Tensor> Tensor::Empty(const Shape& shape, DataType data_type, ep::Device* device) {
  size_t bytes = 0;
  OFLITE_ASSIGN_OR_RETURN(bytes, ContiguousBytes("Tensor::Empty", shape, data_type));
  ep::Allocator* allocator = device->allocator();
  ep::Stream* stream = device->stream();
  void* ptr = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ptr, allocator->Allocate(bytes, stream));
  Tensor tensor;
  tensor.device_ = device->device();
  tensor.storage_ = std::make_shared<Storage>(allocator, ptr, bytes, tensor.device_, stream);
  tensor.shape_ = shape;
  tensor.strides_ = ContiguousStrides(shape);
  tensor.dtype_ = data_type;
  return tensor;
}

Maybe<Tensor> Tensor::FromStorage(std::shared_ptr<Storage> storage, const Shape& shape,
                                  DataType data_type) {
  OFLITE_CHECK_OR_RETURN(storage != nullptr, ValueError) << "Tensor::FromStorage: null storage";
  size_t needed = 0;
  OFLITE_ASSIGN_OR_RETURN(needed, ContiguousBytes("Tensor::FromStorage", shape, data_type));
  OFLITE_CHECK_OR_RETURN(needed <= storage->bytes(), ValueError)
      << "Tensor::FromStorage: shape " << shape << " of " << data_type << " needs " << needed
      << " bytes, the storage has " << storage->bytes();
  Tensor tensor;
  tensor.device_ = storage->device();
  tensor.storage_ = std::move(storage);
  tensor.shape_ = shape;
  tensor.strides_ = ContiguousStrides(shape);
  tensor.dtype_ = data_type;
  return tensor;
}

Maybe<Tensor> Tensor::View(const Shape& shape) const {
  OFLITE_CHECK_OR_RETURN(defined(), ValueError) << "Tensor::View: the tensor is undefined";
  OFLITE_JUST(shape.Validate());
  OFLITE_CHECK_OR_RETURN(shape.elem_cnt() == elem_cnt(), ValueError)
      << "Tensor::View: shape " << shape << " has " << shape.elem_cnt()
      << " elements, the tensor of shape " << shape_ << " has " << elem_cnt();
  OFLITE_CHECK_OR_RETURN(is_contiguous(), ValueError)
      << "Tensor::View: the tensor of shape " << shape_ << " is not contiguous";
  Tensor view = *this;
  view.shape_ = shape;
  view.strides_ = ContiguousStrides(shape);
  return view;
}

namespace {
// Runs one copy on the tensor's device stream and waits for it.
Maybe<void> CopyBytes(const Device& device, primitive::MemcpyKind kind, void* dst, const void* src,
                      size_t bytes) {
  if (bytes == 0) {
    return Ok();
  }
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  auto memcpy = primitive::NewPrimitive<primitive::MemcpyFactory>(device.type(), kind);
  OFLITE_CHECK_OR_RETURN(memcpy != nullptr, NotImplemented)
      << "no memcpy primitive for device " << device;
  ep::Stream* stream = ep_device->stream();
  OFLITE_JUST(memcpy->Launch(stream, dst, src, bytes));
  return stream->Sync();
}
}  // namespace

namespace {
// A bool other than 0 or 1 is undefined behaviour in C++ and CUDA; like NumPy, a nonzero byte
// means true. Empty when every byte is 0 or 1 already (the common case: no copy).
std::vector<uint8_t> NormalizedBools(const void* data, size_t bytes) {
  const auto* begin = static_cast<const uint8_t*>(data);
  const uint8_t* end = begin + bytes;
  if (std::all_of(begin, end, [](uint8_t b) { return b <= 1; })) {
    return {};
  }
  std::vector<uint8_t> normalized(bytes);
  std::transform(begin, end, normalized.begin(), [](uint8_t b) { return b != 0; });
  return normalized;
}
}  // namespace

Maybe<Tensor> Tensor::FromHost(const void* data, size_t bytes, const Shape& shape,
                               DataType data_type, const Device& device) {
  // The caller's byte count is checked before anything is allocated for the shape.
  size_t expected = 0;
  OFLITE_ASSIGN_OR_RETURN(expected, ContiguousBytes("Tensor::FromHost", shape, data_type));
  OFLITE_CHECK_OR_RETURN(bytes == expected, ValueError)
      << "Tensor::FromHost: got " << bytes << " bytes for shape " << shape << " of " << data_type
      << ", expected " << expected;
  OFLITE_CHECK_OR_RETURN(data != nullptr || bytes == 0, ValueError)
      << "Tensor::FromHost: data is null for " << bytes << " bytes";
  Tensor tensor;
  OFLITE_ASSIGN_OR_RETURN(tensor, Empty(shape, data_type, device));
  std::vector<uint8_t> normalized;
  if (data_type == DataType::kBool) {
    normalized = NormalizedBools(data, bytes);
    data = normalized.empty() ? data : normalized.data();
  }
  OFLITE_JUST(
      CopyBytes(device, primitive::MemcpyKind::kHostToDevice, tensor.mut_data(), data, bytes));
  return tensor;
}

namespace {
// The largest finite value of a floating type, as a double.
template <typename T>
double LargestFinite() {
  if constexpr (std::is_same_v<T, float16>) {
    return float16::FromBits(0x7bff);
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16::FromBits(0x7f7f);
  } else {
    return static_cast<double>(std::numeric_limits<T>::max());
  }
}

// Integer tensors cannot hold NaN, infinities or values outside their range; a finite value
// beyond a floating dtype's range would silently become inf (torch.full refuses both). Bool
// takes any value, nonzero meaning true.
Maybe<void> CheckRepresentable(double value, DataType data_type) {
  return VisitDataType(data_type, [&](auto tag) -> Maybe<void> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return Ok();
    } else if constexpr (!std::is_integral_v<T>) {
      OFLITE_CHECK_OR_RETURN(!std::isfinite(value) || std::fabs(value) <= LargestFinite<T>(),
                             ValueError)
          << "Tensor::Full: value " << value << " overflows " << data_type;
    } else {
      const bool fits = std::isfinite(value) &&
                        value >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
                        value < std::ldexp(1.0, std::numeric_limits<T>::digits);  // max + 1
      OFLITE_CHECK_OR_RETURN(fits, ValueError)
          << "Tensor::Full: value " << value << " cannot be stored as " << data_type;
    }
    return Ok();
  });
}
}  // namespace

Maybe<Tensor> Tensor::Full(const Shape& shape, double value, DataType data_type,
                           const Device& device) {
  Tensor tensor;
  OFLITE_ASSIGN_OR_RETURN(tensor, Empty(shape, data_type, device));
  OFLITE_JUST(CheckRepresentable(value, data_type));
  if (tensor.elem_cnt() == 0) {
    return tensor;
  }
  auto fill = primitive::NewPrimitive<primitive::FillFactory>(device.type(), data_type);
  OFLITE_CHECK_OR_RETURN(fill != nullptr, NotImplemented)
      << "Tensor::Full: no fill primitive for " << data_type << " on " << device;
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device));
  ep::Stream* stream = ep_device->stream();
  OFLITE_JUST(
      fill->Launch(stream, tensor.mut_data(), value, static_cast<size_t>(tensor.elem_cnt())));
  OFLITE_JUST(stream->Sync());
  return tensor;
}

Maybe<void> Tensor::CopyToHost(void* dst, size_t bytes) const {
  OFLITE_CHECK_OR_RETURN(defined(), ValueError) << "Tensor::CopyToHost: the tensor is undefined";
  OFLITE_CHECK_OR_RETURN(bytes == nbytes(), ValueError)
      << "Tensor::CopyToHost: destination has " << bytes << " bytes, the tensor " << nbytes();
  return CopyBytes(device_, primitive::MemcpyKind::kDeviceToHost, dst, data(), bytes);
}

Maybe<Tensor> Tensor::To(const Device& device) const {
  if (device == device_) {
    return *this;
  }
  std::vector<char> host(nbytes());
  OFLITE_JUST(CopyToHost(host.data(), host.size()));
  return FromHost(host.data(), host.size(), shape_, dtype_, device);
}

Maybe<void> Tensor::RecordStream(void* native_stream) const {
  OFLITE_CHECK_OR_RETURN(defined(), ValueError) << "Tensor::RecordStream: the tensor is undefined";
  ep::Device* ep_device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(ep_device, ep::GetDevice(device_));
  ep::Stream* stream = nullptr;
  OFLITE_ASSIGN_OR_RETURN(stream, ep_device->ExternalStream(native_stream));
  storage_->RecordStream(stream);
  return Ok();
}

const void* Tensor::data() const { return mut_data(); }

void* Tensor::mut_data() const {
  OFLITE_CHECK(defined()) << "data of an undefined tensor";
  return static_cast<char*>(storage_->ptr()) + offset_ * static_cast<int64_t>(DataTypeSize(dtype_));
}

}  // namespace oflite
