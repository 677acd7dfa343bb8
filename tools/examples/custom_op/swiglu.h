// swiglu(x, gate) = x * silu(gate) = x * gate / (1 + exp(-gate)), elementwise, for x and gate
// of one shape and one floating dtype: the gated unit of LLaMA-style MLPs, as an op from
// outside oneflow_lite, in the namespace "example" as every op library's ops are. The names of
// the op and its arguments (declared by the signature in swiglu_op.cpp) live here, once: the
// kernels, the test spec and the typed call use them.
#ifndef EXAMPLE_CUSTOM_OP_SWIGLU_H_
#define EXAMPLE_CUSTOM_OP_SWIGLU_H_

#include <oneflow_lite/oneflow_lite.h>

namespace example {

constexpr const char* kSwigluOp = "example.swiglu";
constexpr const char* kSwigluX = "x";
constexpr const char* kSwigluGate = "gate";
constexpr const char* kSwigluY = "y";

// The typed call. By name it is oflite::functional::Call("example.swiglu", {x, gate}).
oflite::Maybe<oflite::Tensor> Swiglu(const oflite::Tensor& x, const oflite::Tensor& gate);

}  // namespace example

#endif  // EXAMPLE_CUSTOM_OP_SWIGLU_H_
