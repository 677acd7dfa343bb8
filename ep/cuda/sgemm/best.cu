// sgemm ladder rung "sgemm_best" (order 9): beyond v8, the warp-tiled multi-stage kernel of
// warp_tile.cuh on a larger block tile.
//  - 128 x 256 block tiles of 64 x 64 warp tiles (8 warps): a thread owns 8 x 16 outputs
//    (128 accumulators; the SIMT kernel cuBLAS runs on the H200 uses 256 x 128 tiles of 64 x 64
//    warp tiles). Per k step a thread reads 6 float4 from shared memory for 128 FMAs, where v8
//    reads 4 for 64. Lanes as 4 rows x 8 columns of 4 x 4 fragments.
//  - A 4-stage ring of 128 x 16 / 16 x 256 k tiles (97 KB: one block per SM, which the
//    threads' ~210 registers impose anyway): cp.async for B, register-staged transposed A.
//  - Register fragments double-buffered, grouped block swizzle.
// A 128 x 256 tile leaves SMs idle on small products (512^3 is 8 blocks for 132 SMs), so below
// 128 such blocks (about one per SM on H100/H200) the same kernel runs on 128 x 128 tiles of
// 64 x 32 warp tiles (8 x 8 per thread, 2 blocks per SM). The shapes were chosen by measuring
// the alternatives (docs/BENCHMARKS.md: the ladder's section and what was tried and lost).
#include <cstdint>

#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/tiles.cuh"
#include "ep/cuda/sgemm/warp_tile.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

//                                  BM   BN  BK  WM  WN lane rows stages blocks/SM
using BigTiles = warp_tile::Config<128, 256, 16, 64, 64, 4, 4, 1>;
using SmallTiles = warp_tile::Config<128, 128, 8, 64, 32, 8, 3, 2>;
constexpr int64_t kBigTileMinBlocks = 128;

cudaError_t LaunchBest(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                       const float* b, float beta, float* c) {
  if (m <= 0 || n <= 0) {
    return cudaSuccess;
  }
  const bool vec = tiles::CanVectorize(n, k, a, b, c);
  if (warp_tile::NumBlocks<BigTiles>(m, n) >= kBigTileMinBlocks) {
    return warp_tile::Launch<BigTiles>(vec, stream, m, n, k, alpha, a, b, beta, c);
  }
  return warp_tile::Launch<SmallTiles>(vec, stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(9, "sgemm_best",
                           "128x256 block tiles of 64x64 warp tiles (128x128 below 128 blocks), "
                           "4-stage ring (cp.async B, register-staged transposed A), register "
                           "fragments double-buffered, grouped block swizzle",
                           LaunchBest);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
