// The softmax launchers for __nv_bfloat16: one .cu per dtype so dtypes compile in parallel.
#include "ep/cuda/primitive/softmax_launch.cuh"

namespace oflite {
namespace ep {
namespace softmax {

OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(__nv_bfloat16)

}  // namespace softmax
}  // namespace ep
}  // namespace oflite
