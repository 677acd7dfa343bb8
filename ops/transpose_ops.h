// transpose: y = x with axes reordered by perm (y.shape[i] = x.shape[perm[i]]).
#ifndef ONEFLOW_LITE_OPS_TRANSPOSE_OPS_H_
#define ONEFLOW_LITE_OPS_TRANSPOSE_OPS_H_

namespace oflite {
namespace ops {

constexpr const char* kTransposeOp = "transpose";
constexpr const char* kTransposeX = "x";
constexpr const char* kTransposeY = "y";
constexpr const char* kTransposePerm = "perm";  // list_int64, a permutation of 0..rank-1

}  // namespace ops
}  // namespace oflite

#endif  // ONEFLOW_LITE_OPS_TRANSPOSE_OPS_H_
