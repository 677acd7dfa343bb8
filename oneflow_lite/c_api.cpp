// The C interface over the C++ one: handles wrap a Tensor and an AttrMap, statuses an Error's
// kind and text. Nothing thrown crosses into C: each entry point turns exceptions into a status.
#include "oneflow_lite/c_api.h"

#include <new>
#include <string>
#include <utility>
#include <vector>

#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_library.h"
#include "oneflow_lite/framework/tensor.h"

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

oflite::Maybe<void> SetAttr(oflite_attrs* attrs, const char* name, oflite::AttrValue value) {
  OFLITE_C_CHECK_ARG(attrs != nullptr, "oflite_attrs_set", "attrs");
  OFLITE_C_CHECK_ARG(name != nullptr, "oflite_attrs_set", "name");
  attrs->map.Set(name, std::move(value));
  return oflite::Ok();
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
    const char* call = "oflite_call";
    OFLITE_C_CHECK_ARG(op != nullptr, call, "op");
    OFLITE_C_CHECK_ARG(inputs != nullptr || num_inputs == 0, call, "inputs");
    OFLITE_C_CHECK_ARG(outputs != nullptr || capacity == 0, call, "outputs");
    OFLITE_C_CHECK_ARG(num_outputs != nullptr, call, "num_outputs");
    std::vector<oflite::Tensor> args;
    for (size_t i = 0; i < num_inputs; ++i) {
      OFLITE_CHECK_OR_RETURN(inputs[i] != nullptr, ValueError)
          << call << ": input " << i << " of " << op << " is NULL";
      args.push_back(inputs[i]->tensor);
    }
    std::vector<oflite::Tensor> results;
    OFLITE_ASSIGN_OR_RETURN(results,
                            oflite::Dispatch(op, args, attrs ? attrs->map : oflite::AttrMap()));
    *num_outputs = results.size();
    OFLITE_CHECK_OR_RETURN(results.size() <= capacity, ValueError)
        << call << ": " << op << " has " << results.size() << " outputs, room was given for "
        << capacity;
    for (size_t i = 0; i < results.size(); ++i) {
      outputs[i] = new oflite_tensor{std::move(results[i])};
    }
    return oflite::Ok();
  });
}

oflite_status* oflite_load_op_library(const char* path) {
  return Guarded([&]() -> oflite::Maybe<void> {
    OFLITE_C_CHECK_ARG(path != nullptr, "oflite_load_op_library", "path");
    return oflite::LoadOpLibrary(path);
  });
}

}  // extern "C"
