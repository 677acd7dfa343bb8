// The typed call: what a C++ user of the library writes instead of calling the op by name.
#include "swiglu.h"

namespace example {

oflite::Maybe<oflite::Tensor> Swiglu(const oflite::Tensor& x, const oflite::Tensor& gate) {
  // The op's inference checks shapes and dtypes, the interpreter the devices; a typed call
  // would canonicalize arguments here (wrap dims, broadcast) before dispatching.
  return oflite::DispatchOne(kSwigluOp, {x, gate});
}

}  // namespace example
