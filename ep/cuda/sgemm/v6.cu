// sgemm ladder rung v6: v5's register outer product with float4 global loads of the A and B
// tiles and float4 stores of C. The vector path needs k % 4 == 0, n % 4 == 0 and a, b, c
// 16-byte aligned (tiles::CanVectorize); any other call falls back to the same kernel with
// masked scalar loads and stores (exactly v5), so the rung is correct for every shape.
#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

cudaError_t LaunchV6(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  return tiles::LaunchBlockTile(tiles::CanVectorize(n, k, a, b, c), tiles::OuterProductKernel<true>,
                                tiles::OuterProductKernel<false>, tiles::BlockTileGrid(m, n),
                                stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(6, "sgemm_v6",
                           "float4 global loads and C stores (scalar fallback when k or n is "
                           "not a multiple of 4 or a pointer is not 16-byte aligned)",
                           LaunchV6);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
