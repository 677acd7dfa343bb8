// Shape: int64 dims of a tensor (rank 0 allowed) and the contiguous strides that go with them.
#ifndef ONEFLOW_LITE_COMMON_SHAPE_H_
#define ONEFLOW_LITE_COMMON_SHAPE_H_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "oneflow_lite/common/check.h"
#include "oneflow_lite/common/maybe.h"

namespace oflite {

// The most dims a tensor may have, for every op on every device (NumPy allows 64, PyTorch 64;
// the providers keep per-dim arrays of this size).
constexpr int64_t kMaxRank = 16;

// A list of dims (or strides). Up to kMaxRank entries live inline, so copying a tensor's shape
// costs no heap allocation; longer lists (only ever invalid shapes, which Shape::Validate
// refuses with their full text) spill to the heap.
class DimVector {
 public:
  DimVector() {}  // user-provided: entries past size_ stay uninitialized, const objects allowed
  explicit DimVector(size_t size, int64_t value = 0) { assign_fill(size, value); }
  DimVector(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  DimVector(const std::vector<int64_t>& dims) {
    assign(dims.data(), dims.data() + dims.size());
  }  // NOLINT
  DimVector(const int64_t* begin, const int64_t* end) { assign(begin, end); }
  DimVector(const DimVector& other) { assign(other.begin(), other.end()); }
  DimVector& operator=(const DimVector& other) {
    if (this != &other) {
      assign(other.begin(), other.end());
    }
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* data() const { return size_ <= kInline ? inline_ : spill_.data(); }
  int64_t* data() { return size_ <= kInline ? inline_ : spill_.data(); }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + size_; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t& operator[](size_t i) { return data()[i]; }
  int64_t back() const { return data()[size_ - 1]; }
  int64_t& back() { return data()[size_ - 1]; }
  void push_back(int64_t value);
  operator std::vector<int64_t>() const { return {begin(), end()}; }  // NOLINT

  bool operator==(const DimVector& other) const {
    return size_ == other.size_ && std::equal(begin(), end(), other.begin());
  }
  bool operator!=(const DimVector& other) const { return !(*this == other); }

 private:
  static constexpr size_t kInline = static_cast<size_t>(kMaxRank);
  void assign(const int64_t* begin, const int64_t* end);
  void assign_fill(size_t size, int64_t value);

  size_t size_ = 0;
  int64_t inline_[kInline];     // entries past size_ are never read
  std::vector<int64_t> spill_;  // used only above kInline entries
};

inline bool operator==(const DimVector& a, const std::vector<int64_t>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}
inline bool operator==(const std::vector<int64_t>& a, const DimVector& b) { return b == a; }
std::ostream& operator<<(std::ostream& os, const DimVector& dims);  // "[2, 3]"

using Strides = DimVector;

class Shape {
 public:
  Shape() = default;  // rank 0: a scalar with one element
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
  explicit Shape(const DimVector& dims) : dims_(dims) {}

  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  // Accessors with a precondition (0 <= i < rank), like std::vector::at: callers check dims
  // from users (functional::WrapDim) before indexing.
  int64_t At(int64_t i) const {
    OFLITE_CHECK(i >= 0 && i < rank()) << "Shape::At(" << i << ") of a rank-" << rank() << " shape";
    return dims_[static_cast<size_t>(i)];
  }
  int64_t operator[](int64_t i) const { return At(i); }
  const DimVector& dims() const { return dims_; }
  void Set(int64_t i, int64_t value) {
    OFLITE_CHECK(i >= 0 && i < rank())
        << "Shape::Set(" << i << ") of a rank-" << rank() << " shape";
    dims_[static_cast<size_t>(i)] = value;
  }

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
  DimVector dims_;
};

Strides ContiguousStrides(const Shape& shape);

inline std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  return os << shape.ToString();
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_SHAPE_H_
