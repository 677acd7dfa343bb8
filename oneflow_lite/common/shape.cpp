#include "oneflow_lite/common/shape.h"

#include <limits>

namespace oflite {

void DimVector::assign(const int64_t* begin, const int64_t* end) {
  size_ = static_cast<size_t>(end - begin);
  if (size_ <= kInline) {
    spill_.clear();
    // Element by element: shapes are short, and a library copy costs more than the copy here.
    for (size_t i = 0; i < size_; ++i) {
      inline_[i] = begin[i];
    }
  } else {
    spill_.assign(begin, end);
  }
}

void DimVector::assign_fill(size_t size, int64_t value) {
  size_ = size;
  if (size_ <= kInline) {
    std::fill(inline_, inline_ + size_, value);
  } else {
    spill_.assign(size_, value);
  }
}

void DimVector::push_back(int64_t value) {
  if (size_ < kInline) {
    inline_[size_++] = value;
    return;
  }
  if (size_ == kInline) {  // the first entry past the inline ones: move them to the heap
    spill_.assign(inline_, inline_ + kInline);
  }
  spill_.push_back(value);
  ++size_;
}

std::ostream& operator<<(std::ostream& os, const DimVector& dims) {
  os << "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    os << (i ? ", " : "") << dims[i];
  }
  return os << "]";
}

Maybe<void> Shape::Validate() const {
  // The product of the non-zero dims must fit too: strides and row counts are such products,
  // even when a zero dim makes the element count 0.
  OFLITE_CHECK_OR_RETURN(rank() <= kMaxRank, ValueError)
      << "shape " << ToString() << " has " << rank() << " dims; oneflow_lite tensors have at most "
      << kMaxRank;
  int64_t product = 1;
  for (size_t i = 0; i < dims_.size(); ++i) {
    const int64_t d = dims_[i];
    OFLITE_CHECK_OR_RETURN(d >= 0, ValueError)
        << "shape " << ToString() << " has negative dim " << d << " at index " << i;
    if (d == 0) {
      continue;
    }
    OFLITE_CHECK_OR_RETURN(product <= std::numeric_limits<int64_t>::max() / d, ValueError)
        << "shape " << ToString() << " has more elements than int64 can count";
    product *= d;
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
