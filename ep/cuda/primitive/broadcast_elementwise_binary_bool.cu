// CUDA BroadcastElementwiseBinary kernels for bool: one .cu per dtype so dtypes compile in
// parallel.
#include "ep/cuda/primitive/broadcast_elementwise_binary.cuh"

namespace oflite {
namespace ep {

OFLITE_INSTANTIATE_CUDA_BINARY(bool)

}  // namespace ep
}  // namespace oflite
