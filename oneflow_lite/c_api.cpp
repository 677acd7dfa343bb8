// The C interface over the C++ one: handles wrap a Tensor and an AttrMap, statuses an Error's
// kind and text. Nothing thrown crosses into C: each entry point turns exceptions into a status.
#include "oneflow_lite/c_api.h"

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "oneflow_lite/common/logging.h"
#include "oneflow_lite/ep/allocator.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_library.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/scoped_stream.h"
#include "oneflow_lite/framework/tensor.h"
#include "oneflow_lite/functional/functional.h"

struct oflite_status {
  oflite_error_kind kind;
  std::string message;
};

struct oflite_tensor {
  oflite::Tensor tensor;
};

struct oflite_attrs {
  oflite::AttrMap map;
};

struct oflite_op {
  std::string name;                // Dispatch takes the name as a std::string: made once, here
  const oflite::OpSchema* schema;  // the registry keeps it for the process
  std::string signature;
};

struct oflite_stream_scope {
  oflite::ScopedStream scope;
};

namespace {

using oflite::DataType;
using oflite::ErrorKind;

// oflite_dtype mirrors DataType value for value: the C API casts one to the other.
constexpr bool SameValue(oflite_dtype c, DataType cpp) {
  return static_cast<int>(c) == static_cast<int>(cpp);
}
static_assert(SameValue(OFLITE_FLOAT32, DataType::kFloat32) &&
                  SameValue(OFLITE_FLOAT64, DataType::kFloat64) &&
                  SameValue(OFLITE_FLOAT16, DataType::kFloat16) &&
                  SameValue(OFLITE_BFLOAT16, DataType::kBFloat16) &&
                  SameValue(OFLITE_INT8, DataType::kInt8) &&
                  SameValue(OFLITE_UINT8, DataType::kUInt8) &&
                  SameValue(OFLITE_INT32, DataType::kInt32) &&
                  SameValue(OFLITE_INT64, DataType::kInt64) &&
                  SameValue(OFLITE_BOOL, DataType::kBool),
              "oflite_dtype and oflite::DataType differ");
static_assert(
    static_cast<int>(OFLITE_ATTR_BOOL) == static_cast<int>(oflite::AttrType::kBool) &&
        static_cast<int>(OFLITE_ATTR_INT64) == static_cast<int>(oflite::AttrType::kInt64) &&
        static_cast<int>(OFLITE_ATTR_FLOAT) == static_cast<int>(oflite::AttrType::kFloat) &&
        static_cast<int>(OFLITE_ATTR_DOUBLE) == static_cast<int>(oflite::AttrType::kDouble) &&
        static_cast<int>(OFLITE_ATTR_STRING) == static_cast<int>(oflite::AttrType::kString) &&
        static_cast<int>(OFLITE_ATTR_SHAPE) == static_cast<int>(oflite::AttrType::kShape) &&
        static_cast<int>(OFLITE_ATTR_DTYPE) == static_cast<int>(oflite::AttrType::kDataType) &&
        static_cast<int>(OFLITE_ATTR_INTS) == static_cast<int>(oflite::AttrType::kListInt64) &&
        static_cast<int>(OFLITE_ATTR_FLOATS) == static_cast<int>(oflite::AttrType::kListFloat),
    "oflite_attr_type and oflite::AttrType differ");
static_assert(static_cast<int>(OFLITE_DEVICE_CPU) == static_cast<int>(oflite::DeviceType::kCPU) &&
                  static_cast<int>(OFLITE_DEVICE_CUDA) ==
                      static_cast<int>(oflite::DeviceType::kCUDA),
              "oflite_device_type and oflite::DeviceType differ");
static_assert(OFLITE_LOG_INFO == static_cast<int>(oflite::LogSeverity::kInfo) &&
                  OFLITE_LOG_WARNING == static_cast<int>(oflite::LogSeverity::kWarning) &&
                  OFLITE_LOG_ERROR == static_cast<int>(oflite::LogSeverity::kError) &&
                  OFLITE_LOG_FATAL == static_cast<int>(oflite::LogSeverity::kFatal),
              "oflite_log_severity and oflite::LogSeverity differ");

oflite_error_kind ToCKind(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kValueError:
      return OFLITE_VALUE_ERROR;
    case ErrorKind::kTypeError:
      return OFLITE_TYPE_ERROR;
    case ErrorKind::kIndexError:
      return OFLITE_INDEX_ERROR;
    case ErrorKind::kNotImplemented:
      return OFLITE_NOT_IMPLEMENTED;
    case ErrorKind::kDeviceError:
      return OFLITE_DEVICE_ERROR;
    case ErrorKind::kOutOfMemory:
      return OFLITE_OUT_OF_MEMORY;
    case ErrorKind::kRuntimeError:
      break;
  }
  return OFLITE_RUNTIME_ERROR;
}

// What a call returns when even its status cannot be allocated; oflite_status_free leaves it.
oflite_status no_memory_status{OFLITE_OUT_OF_MEMORY, "out of host memory"};

oflite_status* NewStatus(oflite_error_kind kind, const char* message) noexcept {
  try {
    return new oflite_status{kind, message};
  } catch (...) {
    return &no_memory_status;
  }
}

oflite_status* FromMaybe(const oflite::Maybe<void>& result) {
  return result.ok() ? nullptr
                     : NewStatus(ToCKind(result.error().kind()), result.error().message().c_str());
}

// Runs body (returning Maybe<void>) with exceptions turned into statuses.
template <typename F>
oflite_status* Guarded(F body) {
  try {
    return FromMaybe(body());
  } catch (const std::bad_alloc&) {
    return &no_memory_status;
  } catch (const std::exception& e) {
    return NewStatus(OFLITE_RUNTIME_ERROR, e.what());
  } catch (...) {
    return NewStatus(OFLITE_RUNTIME_ERROR, "unknown exception");
  }
}

#define OFLITE_C_CHECK_ARG(cond, call, what) \
  OFLITE_CHECK_OR_RETURN(cond, ValueError) << call << ": " << what << " is NULL"

// oflite_call's body, for a name or a handle's.
oflite::Maybe<void> CallOp(const char* call, const std::string& op,
                           const oflite_tensor* const* inputs, size_t num_inputs,
                           const oflite_attrs* attrs, oflite_tensor** outputs, size_t capacity,
                           size_t* num_outputs) {
  OFLITE_C_CHECK_ARG(inputs != nullptr || num_inputs == 0, call, "inputs");
  OFLITE_C_CHECK_ARG(outputs != nullptr || capacity == 0, call, "outputs");
  OFLITE_C_CHECK_ARG(num_outputs != nullptr, call, "num_outputs");
  std::vector<oflite::Tensor> args;
  args.reserve(num_inputs);
  for (size_t i = 0; i < num_inputs; ++i) {
    OFLITE_CHECK_OR_RETURN(inputs[i] != nullptr, ValueError)
        << call << ": input " << i << " of " << op << " is NULL";
    args.push_back(inputs[i]->tensor);
  }
  std::vector<oflite::Tensor> results;
  static const oflite::AttrMap kNoAttrs;
  OFLITE_ASSIGN_OR_RETURN(results, oflite::Dispatch(op, args, attrs ? attrs->map : kNoAttrs));
  *num_outputs = results.size();
  OFLITE_CHECK_OR_RETURN(results.size() <= capacity, ValueError)
      << call << ": " << op << " has " << results.size() << " outputs, room was given for "
      << capacity;
  for (size_t i = 0; i < results.size(); ++i) {
    outputs[i] = new oflite_tensor{std::move(results[i])};
  }
  return oflite::Ok();
}

oflite::Maybe<void> SetAttr(oflite_attrs* attrs, const char* name, oflite::AttrValue value) {
  OFLITE_C_CHECK_ARG(attrs != nullptr, "oflite_attrs_set", "attrs");
  OFLITE_C_CHECK_ARG(name != nullptr, "oflite_attrs_set", "name");
  attrs->map.Set(name, std::move(value));
  return oflite::Ok();
}

// Softmax-like functional calls: x checked, the result in a new handle.
template <typename F>
oflite_status* FunctionalCall(const char* call, const oflite_tensor* x, oflite_tensor** out, F fn) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(x != nullptr, call, "x");
    OFLITE_C_CHECK_ARG(out != nullptr, call, "out");
    oflite::Tensor y;
    OFLITE_ASSIGN_OR_RETURN(y, fn(x->tensor));
    *out = new oflite_tensor{std::move(y)};
    return oflite::Ok();
  });
}

// A C allocator (oflite_allocator) behind the C++ interface.
class CAllocator final : public oflite::ep::Allocator {
 public:
  CAllocator(const oflite_allocator& c, const oflite::Device& device) : c_(c), device_(device) {}
  oflite::Maybe<void*> Allocate(size_t bytes, oflite::ep::Stream* stream) override {
    // A zero-byte tensor still gets a real block, as from the built-in CPU allocator: code
    // that hands its pointer to memcpy with a size of 0 needs it non-null.
    bytes = bytes == 0 ? 1 : bytes;
    void* native = nullptr;
    OFLITE_ASSIGN_OR_RETURN(native, Native(stream));
    void* ptr = c_.allocate(bytes, native, c_.user_data);
    OFLITE_CHECK_OR_RETURN(ptr != nullptr, OutOfMemory)
        << device_ << ": the caller's allocator could not allocate " << bytes << " bytes";
    return ptr;
  }
  void Deallocate(void* ptr, size_t bytes, oflite::ep::Stream* stream) override {
    if (ptr == nullptr) {
      return;
    }
    oflite::Maybe<void*> native = Native(stream);
    c_.deallocate(ptr, bytes == 0 ? 1 : bytes, native.ok() ? native.value() : nullptr,
                  c_.user_data);
  }

 private:
  oflite::Maybe<void*> Native(oflite::ep::Stream* stream) {
    if (stream == nullptr) {
      oflite::ep::Device* d = nullptr;
      OFLITE_ASSIGN_OR_RETURN(d, oflite::ep::GetDevice(device_));
      stream = d->default_stream();
    }
    return stream->NativeHandle();
  }
  const oflite_allocator c_;
  const oflite::Device device_;
};

oflite::Maybe<oflite::ep::Device*> FindDevice(const char* call, const char* device) {
  OFLITE_C_CHECK_ARG(device != nullptr, call, "device");
  oflite::Device where;
  OFLITE_ASSIGN_OR_RETURN(where, oflite::Device::Parse(device));
  return oflite::ep::GetDevice(where);
}

}  // namespace

extern "C" {

oflite_error_kind oflite_status_kind(const oflite_status* status) {
  return status == nullptr ? OFLITE_OK : status->kind;
}
const char* oflite_status_message(const oflite_status* status) {
  return status == nullptr ? "" : status->message.c_str();
}
void oflite_status_free(oflite_status* status) {
  if (status != &no_memory_status) {
    delete status;
  }
}

oflite_status* oflite_tensor_from_host(const void* data, size_t bytes, const int64_t* shape,
                                       int ndim, int dtype, const char* device,
                                       oflite_tensor** out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    const char* call = "oflite_tensor_from_host";
    OFLITE_C_CHECK_ARG(out != nullptr, call, "out");
    OFLITE_C_CHECK_ARG(shape != nullptr || ndim == 0, call, "shape");
    OFLITE_CHECK_OR_RETURN(ndim >= 0, ValueError) << call << ": ndim " << ndim << " is negative";
    oflite::Device where = oflite::Device::Cpu();
    if (device != nullptr) {
      OFLITE_ASSIGN_OR_RETURN(where, oflite::Device::Parse(device));
    }
    oflite::Tensor t;
    OFLITE_ASSIGN_OR_RETURN(
        t,
        oflite::Tensor::FromHost(data, bytes, oflite::Shape(oflite::DimVector(shape, shape + ndim)),
                                 static_cast<DataType>(dtype), where));
    *out = new oflite_tensor{std::move(t)};
    return oflite::Ok();
  });
}

oflite_status* oflite_tensor_from_dlpack(DLManagedTensor* managed, oflite_tensor** out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(out != nullptr, "oflite_tensor_from_dlpack", "out");
    oflite::Tensor t;
    OFLITE_ASSIGN_OR_RETURN(t, oflite::Tensor::FromDLPack(managed));
    *out = new oflite_tensor{std::move(t)};
    return oflite::Ok();
  });
}

oflite_status* oflite_tensor_to_dlpack(const oflite_tensor* tensor, DLManagedTensor** out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(tensor != nullptr, "oflite_tensor_to_dlpack", "tensor");
    OFLITE_C_CHECK_ARG(out != nullptr, "oflite_tensor_to_dlpack", "out");
    OFLITE_ASSIGN_OR_RETURN(*out, tensor->tensor.ToDLPack());
    return oflite::Ok();
  });
}

oflite_status* oflite_tensor_copy_to_host(const oflite_tensor* tensor, void* dst, size_t bytes) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(tensor != nullptr, "oflite_tensor_copy_to_host", "tensor");
    return tensor->tensor.CopyToHost(dst, bytes);
  });
}

int oflite_tensor_ndim(const oflite_tensor* tensor) {
  return tensor == nullptr ? -1 : static_cast<int>(tensor->tensor.rank());
}
int64_t oflite_tensor_dim(const oflite_tensor* tensor, int i) {
  if (tensor == nullptr || i < 0 || i >= tensor->tensor.rank()) {
    return -1;
  }
  return tensor->tensor.shape()[i];
}
oflite_dtype oflite_tensor_dtype(const oflite_tensor* tensor) {
  return tensor == nullptr ? static_cast<oflite_dtype>(0)
                           : static_cast<oflite_dtype>(tensor->tensor.dtype());
}
void oflite_tensor_free(oflite_tensor* tensor) { delete tensor; }

oflite_attrs* oflite_attrs_new(void) { return new (std::nothrow) oflite_attrs; }
void oflite_attrs_free(oflite_attrs* attrs) { delete attrs; }
oflite_status* oflite_attrs_set_int(oflite_attrs* attrs, const char* name, int64_t value) {
  return Guarded([&] { return SetAttr(attrs, name, value); });
}
oflite_status* oflite_attrs_set_double(oflite_attrs* attrs, const char* name, double value) {
  return Guarded([&] { return SetAttr(attrs, name, value); });
}
oflite_status* oflite_attrs_set_bool(oflite_attrs* attrs, const char* name, int value) {
  return Guarded([&] { return SetAttr(attrs, name, value != 0); });
}
oflite_status* oflite_attrs_set_string(oflite_attrs* attrs, const char* name, const char* value) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(value != nullptr, "oflite_attrs_set_string", "value");
    return SetAttr(attrs, name, std::string(value));
  });
}
oflite_status* oflite_attrs_set_ints(oflite_attrs* attrs, const char* name, const int64_t* values,
                                     size_t count) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(values != nullptr || count == 0, "oflite_attrs_set_ints", "values");
    return SetAttr(attrs, name, std::vector<int64_t>(values, values + count));
  });
}

oflite_status* oflite_call(const char* op, const oflite_tensor* const* inputs, size_t num_inputs,
                           const oflite_attrs* attrs, oflite_tensor** outputs, size_t capacity,
                           size_t* num_outputs) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(op != nullptr, "oflite_call", "op");
    return CallOp("oflite_call", op, inputs, num_inputs, attrs, outputs, capacity, num_outputs);
  });
}

oflite_status* oflite_load_op_library(const char* path) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(path != nullptr, "oflite_load_op_library", "path");
    return oflite::LoadOpLibrary(path);
  });
}

oflite_status* oflite_set_log_sink(oflite_log_sink sink, void* user_data) {
  return Guarded([&]() -> oflite::Maybe<void> {
    oflite::LogSink wrapped;  // empty: the default
    if (sink != nullptr) {
      wrapped = [sink, user_data](oflite::LogSeverity severity, const char* file, int line,
                                  const std::string& message) {
        sink(static_cast<int>(severity), file, line, message.c_str(), user_data);
      };
    }
    oflite::SetLogSink(std::move(wrapped));
    return oflite::Ok();
  });
}

oflite_status* oflite_op_find(const char* name, oflite_op** out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(name != nullptr, "oflite_op_find", "name");
    OFLITE_C_CHECK_ARG(out != nullptr, "oflite_op_find", "out");
    const oflite::OpSchema* schema = nullptr;
    OFLITE_ASSIGN_OR_RETURN(schema, oflite::OpRegistry::Global().Find(name));
    *out = new oflite_op{schema->name(), schema, schema->Signature()};
    return oflite::Ok();
  });
}
void oflite_op_free(oflite_op* op) { delete op; }
const char* oflite_op_name(const oflite_op* op) { return op == nullptr ? "" : op->name.c_str(); }
const char* oflite_op_signature(const oflite_op* op) {
  return op == nullptr ? "" : op->signature.c_str();
}
size_t oflite_op_num_inputs(const oflite_op* op) {
  return op == nullptr ? 0 : op->schema->inputs().size();
}
size_t oflite_op_num_outputs(const oflite_op* op) {
  return op == nullptr ? 0 : op->schema->outputs().size();
}
size_t oflite_op_num_attrs(const oflite_op* op) {
  return op == nullptr ? 0 : op->schema->attrs().size();
}
const char* oflite_op_input_name(const oflite_op* op, size_t i) {
  return i < oflite_op_num_inputs(op) ? op->schema->inputs()[i].c_str() : nullptr;
}
const char* oflite_op_attr_name(const oflite_op* op, size_t i) {
  return i < oflite_op_num_attrs(op) ? op->schema->attrs()[i].name.c_str() : nullptr;
}
oflite_attr_type oflite_op_attr_type(const oflite_op* op, size_t i) {
  return static_cast<oflite_attr_type>(
      i < oflite_op_num_attrs(op) ? static_cast<int>(op->schema->attrs()[i].type) : 0);
}
int oflite_op_attr_has_default(const oflite_op* op, size_t i) {
  return i < oflite_op_num_attrs(op) && op->schema->attrs()[i].default_value.has_value();
}
oflite_status* oflite_op_call(const oflite_op* op, const oflite_tensor* const* inputs,
                              size_t num_inputs, const oflite_attrs* attrs, oflite_tensor** outputs,
                              size_t capacity, size_t* num_outputs) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(op != nullptr, "oflite_op_call", "op");
    return CallOp("oflite_op_call", op->name, inputs, num_inputs, attrs, outputs, capacity,
                  num_outputs);
  });
}

oflite_status* oflite_list_ops(char* buffer, size_t capacity, size_t* length) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(buffer != nullptr || capacity == 0, "oflite_list_ops", "buffer");
    OFLITE_C_CHECK_ARG(length != nullptr, "oflite_list_ops", "length");
    std::string names;
    for (const std::string& name : oflite::OpRegistry::Global().OpTypes()) {
      names += name;
      names += '\n';
    }
    *length = names.size();
    if (capacity > 0) {
      const size_t n = std::min(names.size(), capacity - 1);
      names.copy(buffer, n);
      buffer[n] = '\0';
    }
    return oflite::Ok();
  });
}

oflite_status* oflite_softmax(const oflite_tensor* x, int64_t dim, oflite_tensor** out) {
  return FunctionalCall("oflite_softmax", x, out, [dim](const oflite::Tensor& t) {
    return oflite::functional::Softmax(t, dim);
  });
}
oflite_status* oflite_log_softmax(const oflite_tensor* x, int64_t dim, oflite_tensor** out) {
  return FunctionalCall("oflite_log_softmax", x, out, [dim](const oflite::Tensor& t) {
    return oflite::functional::LogSoftmax(t, dim);
  });
}

oflite_status* oflite_attrs_set_dtype(oflite_attrs* attrs, const char* name, int dtype) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_CHECK_OR_RETURN(oflite::IsValidDataType(dtype), ValueError)
        << "oflite_attrs_set_dtype: " << dtype << " is not an oflite_dtype value";
    return SetAttr(attrs, name, static_cast<DataType>(dtype));
  });
}
oflite_status* oflite_attrs_set_shape(oflite_attrs* attrs, const char* name, const int64_t* dims,
                                      size_t count) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(dims != nullptr || count == 0, "oflite_attrs_set_shape", "dims");
    OFLITE_CHECK_OR_RETURN(count <= static_cast<size_t>(oflite::kMaxRank), ValueError)
        << "oflite_attrs_set_shape: " << count << " dims, at most " << oflite::kMaxRank;
    return SetAttr(attrs, name, oflite::Shape(oflite::DimVector(dims, dims + count)));
  });
}
oflite_status* oflite_attrs_set_floats(oflite_attrs* attrs, const char* name, const float* values,
                                       size_t count) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(values != nullptr || count == 0, "oflite_attrs_set_floats", "values");
    return SetAttr(attrs, name, std::vector<float>(values, values + count));
  });
}

int oflite_tensor_device_type(const oflite_tensor* tensor) {
  return tensor == nullptr ? -1 : static_cast<int>(tensor->tensor.device().type());
}
int oflite_tensor_device_index(const oflite_tensor* tensor) {
  return tensor == nullptr ? -1 : tensor->tensor.device().index();
}
void* oflite_tensor_data(const oflite_tensor* tensor) {
  return tensor == nullptr || !tensor->tensor.defined() ? nullptr : tensor->tensor.mut_data();
}
oflite_status* oflite_tensor_to(const oflite_tensor* tensor, const char* device,
                                oflite_tensor** out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    const char* call = "oflite_tensor_to";
    OFLITE_C_CHECK_ARG(tensor != nullptr, call, "tensor");
    OFLITE_C_CHECK_ARG(device != nullptr, call, "device");
    OFLITE_C_CHECK_ARG(out != nullptr, call, "out");
    oflite::Device where;
    OFLITE_ASSIGN_OR_RETURN(where, oflite::Device::Parse(device));
    oflite::Tensor t = tensor->tensor;
    if (!(t.device() == where)) {
      OFLITE_ASSIGN_OR_RETURN(t, t.To(where));
    }
    *out = new oflite_tensor{std::move(t)};
    return oflite::Ok();
  });
}

int oflite_device_count(int device_type) {
  if (device_type != OFLITE_DEVICE_CPU && device_type != OFLITE_DEVICE_CUDA) {
    return 0;
  }
  try {
    return oflite::ep::DeviceCount(static_cast<oflite::DeviceType>(device_type));
  } catch (...) {
    return 0;
  }
}
oflite_status* oflite_device_synchronize(const char* device) {
  return Guarded([&]() -> oflite::Maybe<void> {
    oflite::ep::Device* d = nullptr;
    OFLITE_ASSIGN_OR_RETURN(d, FindDevice("oflite_device_synchronize", device));
    return d->stream()->Sync();
  });
}
oflite_status* oflite_device_stream(const char* device, void** native) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(native != nullptr, "oflite_device_stream", "native");
    oflite::ep::Device* d = nullptr;
    OFLITE_ASSIGN_OR_RETURN(d, FindDevice("oflite_device_stream", device));
    OFLITE_ASSIGN_OR_RETURN(*native, d->stream()->NativeHandle());
    return oflite::Ok();
  });
}

oflite_status* oflite_stream_scope_begin(const char* device, void* stream,
                                         oflite_stream_scope** out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(out != nullptr, "oflite_stream_scope_begin", "out");
    OFLITE_C_CHECK_ARG(device != nullptr, "oflite_stream_scope_begin", "device");
    oflite::Device where;
    OFLITE_ASSIGN_OR_RETURN(where, oflite::Device::Parse(device));
    oflite::Maybe<oflite::ScopedStream> scope = oflite::ScopedStream::Make(where, stream);
    if (!scope.ok()) {
      return scope.error();
    }
    *out = new oflite_stream_scope{std::move(scope).value()};
    return oflite::Ok();
  });
}
void oflite_stream_scope_end(oflite_stream_scope* scope) { delete scope; }

oflite_status* oflite_tensor_record_stream(const oflite_tensor* tensor, void* stream) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(tensor != nullptr, "oflite_tensor_record_stream", "tensor");
    return tensor->tensor.RecordStream(stream);
  });
}

oflite_status* oflite_allocator_stats_get(const char* device, oflite_allocator_stats* out) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(out != nullptr, "oflite_allocator_stats_get", "out");
    oflite::ep::Device* d = nullptr;
    OFLITE_ASSIGN_OR_RETURN(d, FindDevice("oflite_allocator_stats_get", device));
    const oflite::ep::AllocatorStats s = d->allocator()->GetStats();
    *out = {s.allocated_bytes, s.peak_allocated_bytes, s.reserved_bytes,   s.allocation_count,
            s.cache_hit_count, s.device_malloc_count,  s.device_free_count};
    return oflite::Ok();
  });
}

oflite_status* oflite_empty_cache(const char* device) {
  return Guarded([&]() -> oflite::Maybe<void> {
    oflite::ep::Device* d = nullptr;
    OFLITE_ASSIGN_OR_RETURN(d, FindDevice("oflite_empty_cache", device));
    return d->EmptyCache();
  });
}

oflite_status* oflite_set_allocator(const char* device, const oflite_allocator* allocator) {
  return Guarded([&]() -> oflite::Maybe<void> {
    oflite::ep::Device* d = nullptr;
    OFLITE_ASSIGN_OR_RETURN(d, FindDevice("oflite_set_allocator", device));
    if (allocator == nullptr) {
      d->SetAllocator(nullptr);
      return oflite::Ok();
    }
    OFLITE_C_CHECK_ARG(allocator->allocate != nullptr, "oflite_set_allocator",
                       "allocator->allocate");
    OFLITE_C_CHECK_ARG(allocator->deallocate != nullptr, "oflite_set_allocator",
                       "allocator->deallocate");
    d->SetAllocator(std::make_shared<CAllocator>(*allocator, d->device()));
    return oflite::Ok();
  });
}

oflite_status* oflite_use_cuda_pool_allocator(const char* device, void* pool) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(device != nullptr, "oflite_use_cuda_pool_allocator", "device");
    oflite::Device where;
    OFLITE_ASSIGN_OR_RETURN(where, oflite::Device::Parse(device));
    std::shared_ptr<oflite::ep::Allocator> allocator;
    OFLITE_ASSIGN_OR_RETURN(allocator, oflite::ep::NewCudaPoolAllocator(where, pool));
    return oflite::ep::SetAllocator(where, std::move(allocator));
  });
}

}  // extern "C"
