// CUDA BroadcastElementwiseBinary kernels for int64_t: one .cu per dtype so dtypes compile in
// parallel.
#include "ep/cuda/primitive/broadcast_elementwise_binary.cuh"

namespace oflite {
namespace ep {

OFLITE_INSTANTIATE_CUDA_BINARY(int64_t)

}  // namespace ep
}  // namespace oflite
