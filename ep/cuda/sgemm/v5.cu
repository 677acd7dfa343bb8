// sgemm ladder rung v5: the register outer product. 128 x 128 x 8 block tiles in shared
// memory, 256 threads, each computing an 8 x 8 tile of C: per k step it loads 8 values of a
// column of the A tile and 8 of a row of the B tile into registers and adds their outer
// product (64 FMAs for 16 shared-memory reads). Global loads are masked scalars, so any shape
// and any pointer alignment works. The kernel is tiles::OuterProductKernel (tiles.cuh),
// which v6 reuses with float4 loads.
#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/tiles.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

cudaError_t LaunchV5(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  tiles::OuterProductKernel<false><<<tiles::BlockTileGrid(m, n), tiles::kThreads, 0, stream>>>(
      m, n, k, tiles::EffectiveAlpha(k, alpha), a, b, beta, c);
  return cudaGetLastError();
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(5, "sgemm_v5",
                           "register outer product: 8x8 outputs per thread from a column of A "
                           "and a row of B held in registers",
                           LaunchV5);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
