// Shapes of a broadcast binary operation, simplified for kernels: ranks aligned from the right,
// dims of size 1 in the result dropped, and adjacent dims merged where both operands broadcast
// the same way across them. (8192, 8192) + (8192, 1) stays 2-D; (2, 3, 4) + (2, 3, 4) becomes
// 1-D; (2, 3, 4) + () becomes 1-D with src1 a single element. Host code, shared by providers.
#ifndef ONEFLOW_LITE_PRIMITIVE_BROADCAST_DIMS_H_
#define ONEFLOW_LITE_PRIMITIVE_BROADCAST_DIMS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"

namespace oflite {
namespace primitive {

struct BroadcastDims {
  // Equal lengths (at least 1); src0[i] and src1[i] are dst[i] or 1.
  DimVector dst, src0, src1;

  size_t rank() const { return dst.size(); }
  int64_t dst_count() const;
  bool same_shape() const { return src0 == dst && src1 == dst; }  // no broadcast at all
  bool src0_single() const;                                       // src0 is one element
  bool src1_single() const;
};

// ValueError naming both shapes when they do not broadcast.
Maybe<BroadcastDims> SimplifyBroadcastDims(size_t num_src0_dims, const int64_t* src0_dims,
                                           size_t num_src1_dims, const int64_t* src1_dims);

// The broadcast shape of two shapes (unsimplified), or ValueError naming both.
Maybe<DimVector> BroadcastShape(const DimVector& a, const DimVector& b);

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_BROADCAST_DIMS_H_
