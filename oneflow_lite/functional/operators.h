// C++ operators on tensors: x + y, x * 2.5, 2.5 - x, y / x, -x. They are the functional calls
// (functional.h) under another name and return Maybe<Tensor>: a bad operand (shapes that do
// not broadcast, an unsupported dtype) is an Error in the result, never an exception. There
// are no comparison operators: a Maybe tests true when the call succeeds, so `if (x == y)`
// would read as true for any two tensors; use functional::Eq, Lt, ... instead.
//
//   Maybe<Tensor> z = x * 2 + y;   // does not compile: x * 2 is a Maybe<Tensor>
//   Tensor z;
//   OFLITE_ASSIGN_OR_RETURN(z, x * 2);
//   OFLITE_ASSIGN_OR_RETURN(z, z + y);
#ifndef ONEFLOW_LITE_FUNCTIONAL_OPERATORS_H_
#define ONEFLOW_LITE_FUNCTIONAL_OPERATORS_H_

#include "oneflow_lite/functional/functional.h"

namespace oflite {

#define OFLITE_DEFINE_TENSOR_OPERATOR(symbol, Function)                    \
  inline Maybe<Tensor> operator symbol(const Tensor& x, const Tensor& y) { \
    return functional::Function(x, y);                                     \
  }                                                                        \
  inline Maybe<Tensor> operator symbol(const Tensor& x, const Scalar& y) { \
    return functional::Function(x, y);                                     \
  }                                                                        \
  inline Maybe<Tensor> operator symbol(const Scalar& x, const Tensor& y) { \
    return functional::Function(x, y);                                     \
  }
OFLITE_DEFINE_TENSOR_OPERATOR(+, Add)
OFLITE_DEFINE_TENSOR_OPERATOR(-, Sub)
OFLITE_DEFINE_TENSOR_OPERATOR(*, Mul)
OFLITE_DEFINE_TENSOR_OPERATOR(/, Div)
#undef OFLITE_DEFINE_TENSOR_OPERATOR

inline Maybe<Tensor> operator-(const Tensor& x) { return functional::Neg(x); }

}  // namespace oflite

#endif  // ONEFLOW_LITE_FUNCTIONAL_OPERATORS_H_
