// Cast: dst[i] = src[i] converted from one dtype to another (elementwise::CastValue's rules;
// 16-bit destinations round to nearest even, once).
#ifndef ONEFLOW_LITE_PRIMITIVE_CAST_H_
#define ONEFLOW_LITE_PRIMITIVE_CAST_H_

#include <cstddef>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

class Cast : public Primitive {
 public:
  virtual Maybe<void> Launch(ep::Stream* stream, const void* src, void* dst, size_t count) = 0;
};

// New(from, to): every pair of dtypes.
class CastFactory : public Factory<Cast, DataType, DataType> {
 public:
  static constexpr const char* kName = "cast";
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_CAST_H_
