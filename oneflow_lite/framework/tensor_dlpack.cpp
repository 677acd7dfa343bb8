// DLPack in and out: Tensor::FromDLPack takes a producer's memory as storage, Tensor::ToDLPack
// lends a tensor's storage to a consumer; neither copies.
#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace {

// DLPack's bool type code: DLPack 0.8 names it kDLBool; the header Debian ships (0.6) predates it.
constexpr uint8_t kDLBoolCode = 6;

struct DLTypeMapping {
  DataType data_type;
  uint8_t code;
  uint8_t bits;
};
constexpr DLTypeMapping kDLTypes[] = {
    {DataType::kFloat32, kDLFloat, 32}, {DataType::kFloat64, kDLFloat, 64},
    {DataType::kFloat16, kDLFloat, 16}, {DataType::kBFloat16, kDLBfloat, 16},
    {DataType::kInt8, kDLInt, 8},       {DataType::kUInt8, kDLUInt, 8},
    {DataType::kInt32, kDLInt, 32},     {DataType::kInt64, kDLInt, 64},
    {DataType::kBool, kDLBoolCode, 8},
};

Maybe<DataType> FromDLDataType(DLDataType type) {
  OFLITE_CHECK_OR_RETURN(type.lanes == 1, ValueError)
      << "Tensor::FromDLPack: vector types are not supported, got " << type.lanes << " lanes";
  for (const DLTypeMapping& m : kDLTypes) {
    if (m.code == type.code && m.bits == type.bits) {
      return m.data_type;
    }
  }
  return OFLITE_ERROR(TypeError) << "Tensor::FromDLPack: unsupported DLPack dtype (code "
                                 << static_cast<int>(type.code) << ", "
                                 << static_cast<int>(type.bits)
                                 << " bits); oflite has float32/64/16, bfloat16, int8/32/64, "
                                    "uint8 and bool";
}

DLDataType ToDLDataType(DataType data_type) {
  for (const DLTypeMapping& m : kDLTypes) {
    if (m.data_type == data_type) {
      return DLDataType{m.code, m.bits, 1};
    }
  }
  return DLDataType{kDLOpaqueHandle, 0, 1};  // unreachable: every DataType is in the table
}

// The device a DLPack tensor lives on, checked to exist here.
Maybe<Device> FromDLDevice(DLDevice device) {
  switch (device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:  // pinned host memory: the CPU reads it as its own
      return Device::Cpu();
    case kDLCUDA: {
      const Device cuda = Device::Cuda(device.device_id);
      OFLITE_JUST(ep::GetDevice(cuda));  // DeviceError where this build or machine has none
      return cuda;
    }
    default:
      return OFLITE_ERROR(DeviceError)
             << "Tensor::FromDLPack: DLPack device type " << static_cast<int>(device.device_type)
             << " is not one oflite has (kDLCPU, kDLCUDAHost, kDLCUDA)";
  }
}

// Whether the strides are those of a compact row-major tensor (dims of size 1 may have any, and
// a tensor of no elements any at all: NumPy gives those zero strides).
bool IsCompactRowMajor(const DLTensor& t) {
  if (t.strides == nullptr ||
      std::any_of(t.shape, t.shape + t.ndim, [](int64_t d) { return d == 0; })) {
    return true;
  }
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) {
      return false;
    }
    expected *= t.shape[i];
  }
  return true;
}

// What a DLPack tensor from ToDLPack owns: the storage it keeps alive and its shape and strides.
struct ExportedTensor {
  std::shared_ptr<Storage> storage;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed{};
};

}  // namespace

Maybe<Tensor> Tensor::FromDLPack(DLManagedTensor* managed) {
  OFLITE_CHECK_OR_RETURN(managed != nullptr, ValueError) << "Tensor::FromDLPack: null tensor";
  const DLTensor& t = managed->dl_tensor;
  OFLITE_CHECK_OR_RETURN(t.ndim >= 0 && (t.ndim == 0 || t.shape != nullptr), ValueError)
      << "Tensor::FromDLPack: " << t.ndim << " dims and " << (t.shape ? "a" : "no") << " shape";
  DataType data_type;
  OFLITE_ASSIGN_OR_RETURN(data_type, FromDLDataType(t.dtype));
  Device device;
  OFLITE_ASSIGN_OR_RETURN(device, FromDLDevice(t.device));
  const Shape shape(DimVector(t.shape, t.shape + t.ndim));
  OFLITE_JUST(shape.Validate());
  OFLITE_CHECK_OR_RETURN(IsCompactRowMajor(t), ValueError)
      << "Tensor::FromDLPack: only compact row-major tensors are taken without a copy, and "
         "oflite copies none; the tensor of shape "
      << shape << " has other strides (make it contiguous first)";
  const size_t bytes = static_cast<size_t>(shape.elem_cnt()) * DataTypeSize(data_type);
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  // The deleter is the storage's once the tensor exists: a FromStorage error leaves it the
  // caller's.
  auto taken = std::make_shared<bool>(false);
  auto storage = std::make_shared<Storage>(data, bytes, device, [managed, taken] {
    if (*taken && managed->deleter != nullptr) {
      managed->deleter(managed);
    }
  });
  Tensor tensor;
  OFLITE_ASSIGN_OR_RETURN(tensor, FromStorage(std::move(storage), shape, data_type));
  *taken = true;
  return tensor;
}

Maybe<DLManagedTensor*> Tensor::ToDLPack() const {
  OFLITE_CHECK_OR_RETURN(defined(), ValueError) << "Tensor::ToDLPack: the tensor is undefined";
  OFLITE_CHECK_OR_RETURN(is_contiguous(), ValueError)
      << "Tensor::ToDLPack: the tensor of shape " << shape_ << " is not contiguous";
  auto exported = std::make_unique<ExportedTensor>();
  exported->storage = storage_;
  exported->shape.assign(shape_.dims().begin(), shape_.dims().end());
  exported->strides.assign(strides_.begin(), strides_.end());
  DLTensor& t = exported->managed.dl_tensor;
  t.data = storage_->ptr();
  t.byte_offset = static_cast<uint64_t>(offset_) * DataTypeSize(dtype_);
  t.ndim = static_cast<int>(shape_.rank());
  t.shape = exported->shape.data();
  t.strides = exported->strides.data();
  t.dtype = ToDLDataType(dtype_);
  t.device = device_.type() == DeviceType::kCUDA ? DLDevice{kDLCUDA, device_.index()}
                                                 : DLDevice{kDLCPU, 0};
  exported->managed.manager_ctx = exported.get();
  exported->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportedTensor*>(self->manager_ctx);
  };
  return &exported.release()->managed;
}

}  // namespace oflite
