#include "oneflow_lite/common/shape.h"

#include <limits>

namespace oflite {

Maybe<void> Shape::Validate() const {
  int64_t count = 1;
  bool has_zero = false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    OFLITE_CHECK_OR_RETURN(dims_[i] >= 0, ValueError)
        << "shape " << ToString() << " has negative dim " << dims_[i] << " at index " << i;
    if (dims_[i] == 0) {
      has_zero = true;
    }
  }
  if (has_zero) {
    return Ok();
  }  // zero elements, however large the other dims
  for (int64_t d : dims_) {
    OFLITE_CHECK_OR_RETURN(count <= std::numeric_limits<int64_t>::max() / d, ValueError)
        << "shape " << ToString() << " has more elements than int64 can count";
    count *= d;
  }
  return Ok();
}

int64_t Shape::elem_cnt() const { return Count(0, rank()); }

int64_t Shape::Count(int64_t begin, int64_t end) const {
  int64_t count = 1;
  for (int64_t i = begin; i < end; ++i) {
    count *= dims_[static_cast<size_t>(i)];
  }
  return count;
}

std::string Shape::ToString() const {
  std::string text = "(";
  for (size_t i = 0; i < dims_.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(dims_[i]);
  }
  if (dims_.size() == 1) {
    text += ",";
  }
  return text + ")";
}

Strides ContiguousStrides(const Shape& shape) {
  Strides strides(static_cast<size_t>(shape.rank()));
  int64_t stride = 1;
  for (int64_t i = shape.rank() - 1; i >= 0; --i) {
    strides[static_cast<size_t>(i)] = stride;
    stride *= shape[i];
  }
  return strides;
}

}  // namespace oflite
