#include "tools/oflite/optest_tensor.h"

#include <cmath>
#include <sstream>
#include <type_traits>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/primitive/fill.h"

namespace oflite {
namespace optest {

namespace {

// Bool tensors hold one byte per element; std::vector<bool> packs bits, so bytes stand in.
template <typename T>
using StoredType = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

// "[1, 0, 3]": the multi-index of flat element `flat` in `shape`.
std::string IndexOf(const Shape& shape, int64_t flat) {
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    index[static_cast<size_t>(d)] = flat % shape[d];
    flat /= shape[d];
  }
  std::string text = "[";
  for (size_t i = 0; i < index.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(index[i]);
  }
  return text + "]";
}

bool Matches(double actual, double expected, double budget) {
  if (std::isnan(actual) || std::isnan(expected)) {
    return std::isnan(actual) && std::isnan(expected);
  }
  if (std::isinf(actual) || std::isinf(expected)) {
    return actual == expected;
  }
  return std::abs(actual - expected) <= budget;
}

}  // namespace

Maybe<Tensor> ToDeviceTensor(const HostTensor& t, const Device& device) {
  OFLITE_JUST(t.shape.Validate());
  OFLITE_CHECK_OR_RETURN(static_cast<int64_t>(t.values.size()) == t.shape.elem_cnt(), ValueError)
      << "optest: a host tensor of shape " << t.shape << " holds " << t.values.size()
      << " values, expected " << t.shape.elem_cnt();
  return VisitDataType(t.dtype, [&](auto tag) -> Maybe<Tensor> {
    using T = typename decltype(tag)::type;
    std::vector<StoredType<T>> typed;
    typed.reserve(t.values.size());
    for (double v : t.values) {
      typed.push_back(static_cast<StoredType<T>>(static_cast<T>(v)));
    }
    return Tensor::FromHost(typed.data(), typed.size() * sizeof(StoredType<T>), t.shape, t.dtype,
                            device);
  });
}

Maybe<HostTensor> ToHostTensor(const Tensor& t) {
  return VisitDataType(t.dtype(), [&](auto tag) -> Maybe<HostTensor> {
    using T = typename decltype(tag)::type;
    std::vector<StoredType<T>> typed(static_cast<size_t>(t.elem_cnt()));
    OFLITE_JUST(t.CopyToHost(typed.data(), typed.size() * sizeof(StoredType<T>)));
    HostTensor host{t.shape(), t.dtype(), {}};
    host.values.reserve(typed.size());
    for (const StoredType<T>& v : typed) {
      host.values.push_back(static_cast<double>(static_cast<T>(v)));
    }
    return host;
  });
}

Maybe<void> PoisonOutput(const Tensor& output) {
  if (output.elem_cnt() == 0) {
    return Ok();
  }
  const DataType dtype = output.dtype();
  auto fill = primitive::NewPrimitive<primitive::FillFactory>(output.device().type(), dtype);
  OFLITE_CHECK_OR_RETURN(fill != nullptr, NotImplemented)
      << "optest: no fill primitive to poison a " << dtype << " output on " << output.device();
  ep::Device* device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(device, ep::GetDevice(output.device()));
  // NaN where the dtype has it; else a value small-valued test results rarely take (a bool
  // can only be poisoned with true).
  const double poison = IsFloatingDataType(dtype)   ? std::nan("")
                        : dtype == DataType::kUInt8 ? 201.0
                                                    : -101.0;
  return fill->Launch(device->default_stream(), output.mut_data(), poison,
                      static_cast<size_t>(output.elem_cnt()));
}

// The outputs a valid call makes, on `device`, poisoned so that an element the kernel leaves
// unwritten fails the comparison; none when the call is invalid (or the op has no outputs).
Maybe<std::vector<Tensor>> PoisonedOutputs(const std::string& op_type,
                                           const std::vector<HostTensor>& inputs,
                                           const AttrMap& attrs, const Device& device) {
  const Maybe<const OpSchema*> schema = OpRegistry::Global().Find(op_type);
  if (!schema.ok() || schema.value()->inputs().size() != inputs.size()) {
    return std::vector<Tensor>{};
  }
  const Maybe<AttrMap> complete = schema.value()->CompleteAttrs(attrs);
  std::vector<TensorDesc> descs;
  for (const HostTensor& t : inputs) {
    descs.push_back({t.shape, t.dtype});
  }
  const Maybe<std::vector<TensorDesc>> made =
      complete.ok() ? schema.value()->InferOutputs(descs, complete.value())
                    : Maybe<std::vector<TensorDesc>>(complete.error());
  if (!made.ok()) {
    return std::vector<Tensor>{};
  }
  std::vector<Tensor> outputs;
  for (const TensorDesc& d : made.value()) {
    Tensor t;
    OFLITE_ASSIGN_OR_RETURN(t, Tensor::Empty(d.shape, d.dtype, device));
    OFLITE_JUST(PoisonOutput(t));
    outputs.push_back(std::move(t));
  }
  return outputs;
}

Maybe<std::vector<HostTensor>> DispatchHost(const std::string& op_type,
                                            const std::vector<HostTensor>& inputs,
                                            const AttrMap& attrs, const Device& device) {
  std::vector<Tensor> tensors;
  for (const HostTensor& t : inputs) {
    Tensor tensor;
    OFLITE_ASSIGN_OR_RETURN(tensor, ToDeviceTensor(t, device));
    tensors.push_back(std::move(tensor));
  }
  std::vector<Tensor> outputs;
  OFLITE_ASSIGN_OR_RETURN(outputs, PoisonedOutputs(op_type, inputs, attrs, device));
  if (outputs.empty()) {  // the call is invalid: the interpreter says why
    OFLITE_ASSIGN_OR_RETURN(outputs, Dispatch(op_type, tensors, attrs));
  } else {
    OFLITE_JUST(DispatchInto(op_type, tensors, outputs, attrs));
  }
  std::vector<HostTensor> host;
  for (const Tensor& t : outputs) {
    HostTensor h;
    OFLITE_ASSIGN_OR_RETURN(h, ToHostTensor(t));
    host.push_back(std::move(h));
  }
  return host;
}

std::vector<double> ErrorBudget(const HostTensor& t, const Tolerance& tolerance) {
  std::vector<double> budget(t.values.size(), tolerance.atol);
  for (size_t i = 0; i < budget.size(); ++i) {
    if (std::isfinite(t.values[i])) {
      budget[i] += tolerance.rtol * std::abs(t.values[i]);
    }
  }
  return budget;
}

void AddBudget(std::vector<double>* a, const std::vector<double>& b) {
  for (size_t i = 0; i < a->size() && i < b.size(); ++i) {
    (*a)[i] += b[i];
  }
}

Maybe<void> ExpectClose(const HostTensor& actual, const HostTensor& expected,
                        const std::vector<double>& budget, const std::string& what) {
  OFLITE_CHECK_OR_RETURN(actual.shape == expected.shape && actual.dtype == expected.dtype,
                         RuntimeError)
      << what << ": got shape " << actual.shape << " " << actual.dtype << ", expected "
      << expected.shape << " " << expected.dtype;
  int64_t first = -1, count = 0;
  for (size_t i = 0; i < actual.values.size(); ++i) {
    if (!Matches(actual.values[i], expected.values[i], budget[i])) {
      first = first < 0 ? static_cast<int64_t>(i) : first;
      ++count;
    }
  }
  if (count == 0) {
    return Ok();
  }
  const size_t i = static_cast<size_t>(first);
  std::ostringstream message;
  message.precision(9);
  message << what << ": " << count << " of " << actual.values.size()
          << " elements differ; first at " << IndexOf(actual.shape, first) << ": got "
          << actual.values[i] << ", expected " << expected.values[i] << " (allowed error "
          << budget[i] << ")";
  return OFLITE_ERROR(RuntimeError) << message.str();
}

}  // namespace optest
}  // namespace oflite
