// sgemm rung v3: several outputs per thread (1-D thread tiling). A block of 512 threads owns a
// 64 x 64 tile of C and slides 64 x 8 tiles of A and 8 x 64 tiles of B along K (one element of
// each per thread). Each thread computes a column of 8 outputs: per step of the inner K loop it
// reads one B value from shared memory into a register and reuses it for its 8 rows, so a
// multiply-add costs 1 + 1/8 shared loads instead of v2's 2, with the 8 partial sums in
// registers. The kernel is thread_tile::ThreadTileKernel<false> (thread_tile.cuh), which
// v4 also instantiates with float4 tile loads.
#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/thread_tile.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

cudaError_t LaunchV3(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  return thread_tile::Launch(/*vec=*/false, stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(3, "sgemm_v3",
                           "1-D thread tile: 8 outputs (rows) per thread, 64x64 block tile, BK=8, "
                           "one B register reused 8 times",
                           LaunchV3);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
