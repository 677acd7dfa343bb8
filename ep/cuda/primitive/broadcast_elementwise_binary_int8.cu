// CUDA BroadcastElementwiseBinary kernels for int8_t: one .cu per dtype so dtypes compile in
// parallel.
#include "ep/cuda/primitive/broadcast_elementwise_binary.cuh"

namespace oflite {
namespace ep {

OFLITE_INSTANTIATE_CUDA_BINARY(int8_t)

}  // namespace ep
}  // namespace oflite
