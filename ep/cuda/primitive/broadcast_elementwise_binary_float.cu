// CUDA BroadcastElementwiseBinary kernels for float: one .cu per dtype so dtypes compile in
// parallel.
#include "ep/cuda/primitive/broadcast_elementwise_binary.cuh"

namespace oflite {
namespace ep {

OFLITE_INSTANTIATE_CUDA_BINARY(float)

}  // namespace ep
}  // namespace oflite
