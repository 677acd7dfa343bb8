// Permute: y = x with its axes reordered, y.shape[i] = x.shape[perm[i]]; contiguous in and out.
#ifndef ONEFLOW_LITE_PRIMITIVE_PERMUTE_H_
#define ONEFLOW_LITE_PRIMITIVE_PERMUTE_H_

#include <cstdint>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

class Permute : public Primitive {
 public:
  // src_dims and perm have num_dims entries; perm must be a permutation (checked by callers).
  virtual Maybe<void> Launch(ep::Stream* stream, size_t num_dims, const int64_t* src_dims,
                             const void* src, const int64_t* perm, void* dst) = 0;
};

// New(dtype, max_num_dims): nullptr when the device cannot permute that dtype or rank.
class PermuteFactory : public Factory<Permute, DataType, size_t> {
 public:
  static constexpr const char* kName = "permute";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_PERMUTE_H_
