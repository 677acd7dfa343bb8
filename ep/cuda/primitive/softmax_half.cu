// The softmax launchers for __half: one .cu per dtype so dtypes compile in parallel.
#include "ep/cuda/primitive/softmax_launch.cuh"

namespace oflite {
namespace ep {
namespace softmax {

OFLITE_INSTANTIATE_SOFTMAX_LAUNCH(__half)

}  // namespace softmax
}  // namespace ep
}  // namespace oflite
