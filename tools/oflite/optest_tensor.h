// HostTensors (the optest currency: double values of a dtype) on devices and side by side:
// moving them to a device and back, running an op on them, and comparing two of them within
// an error budget.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_TENSOR_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_TENSOR_H_

#include <string>
#include <vector>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace optest {

// A tensor of t.dtype on `device` holding t's values (cast as C++ casts them).
Maybe<Tensor> ToDeviceTensor(const HostTensor& t, const Device& device);
Maybe<HostTensor> ToHostTensor(const Tensor& t);

// Fills a fresh output with NaN (integers: 201 for uint8, -101 otherwise; bool: true) on its
// device's stream, so an element a kernel leaves unwritten fails the checks.
Maybe<void> PoisonOutput(const Tensor& output);

// Dispatch(op_type) on `device`, inputs and outputs as HostTensors, outputs poisoned before the
// kernel runs.
Maybe<std::vector<HostTensor>> DispatchHost(const std::string& op_type,
                                            const std::vector<HostTensor>& inputs,
                                            const AttrMap& attrs, const Device& device);

// How far each element of a computed `t` may be from the truth: atol + rtol * |t[i]|
// (infinities and NaN get atol: they must match exactly anyway).
std::vector<double> ErrorBudget(const HostTensor& t, const Tolerance& tolerance);
// Element-wise a += b (same sizes).
void AddBudget(std::vector<double>* a, const std::vector<double>& b);

// Ok when actual has expected's shape and dtype and every element is within budget of it
// (NaN matches only NaN, an infinity only the same infinity); otherwise a RuntimeError
// "<what>: ..." naming the first element that differs and how many do.
Maybe<void> ExpectClose(const HostTensor& actual, const HostTensor& expected,
                        const std::vector<double>& budget, const std::string& what);

}  // namespace optest
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_OPTEST_TENSOR_H_
