// Shape: int64 dims of a tensor (rank 0 allowed) and the contiguous strides that go with them.
#ifndef ONEFLOW_LITE_COMMON_SHAPE_H_
#define ONEFLOW_LITE_COMMON_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"

namespace oflite {

using Strides = std::vector<int64_t>;

// The most dims a tensor may have, for every op on every device (NumPy allows 64, PyTorch 64;
// the providers keep per-dim arrays of this size).
constexpr int64_t kMaxRank = 16;

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar with one element
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  // Accessors with a precondition (0 <= i < rank), like std::vector::at: callers check dims
  // from users (functional::WrapDim) before indexing.
  int64_t At(int64_t i) const { return dims_.at(static_cast<size_t>(i)); }
  int64_t operator[](int64_t i) const { return At(i); }
  const std::vector<int64_t>& dims() const { return dims_; }
  void Set(int64_t i, int64_t value) { dims_.at(static_cast<size_t>(i)) = value; }

  // At most kMaxRank dims, every dim non-negative, the element count representable in int64.
  Maybe<void> Validate() const;
  // Element count; call on a validated shape (the count of an unvalidated one may overflow).
  int64_t elem_cnt() const;
  // Product of dims [begin, end).
  int64_t Count(int64_t begin, int64_t end) const;

  std::string ToString() const;  // "(2, 3)"
  bool operator==(const Shape& other) const { return dims_ == other.dims_; }
  bool operator!=(const Shape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

Strides ContiguousStrides(const Shape& shape);

inline std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  return os << shape.ToString();
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_SHAPE_H_
