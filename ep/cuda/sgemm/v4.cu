// sgemm rung v4: v3's tiling (64 x 64 block tile, BK = 8, 8 outputs per thread) with the A and
// B tiles fetched as float4: 128 threads load the 64 x 8 A tile and 128 more the 8 x 64 B tile,
// one 16-byte load and one 16-byte shared store each, a quarter of v3's load instructions.
// Taken when k % 4 == 0, n % 4 == 0 and A and B are 16-byte aligned: then every row of A and B
// starts aligned and a float4 never straddles the edge of the matrix (k0 and the tile columns
// are multiples of 4), so masking is per float4. Any other shape or pointer runs the same
// kernel with v3's scalar, element-masked loads (thread_tile::ThreadTileKernel, shared with v3).
#include "ep/cuda/sgemm/sgemm.h"
#include "ep/cuda/sgemm/thread_tile.cuh"

namespace oflite {
namespace ep {
namespace sgemm {
namespace {

cudaError_t LaunchV4(cudaStream_t stream, int m, int n, int k, float alpha, const float* a,
                     const float* b, float beta, float* c) {
  const bool vec = k % 4 == 0 && n % 4 == 0 && IsAligned16(a) && IsAligned16(b);
  return thread_tile::Launch(vec, stream, m, n, k, alpha, a, b, beta, c);
}

}  // namespace

OFLITE_REGISTER_SGEMM_RUNG(
    4, "sgemm_v4",
    "float4 loads of the A and B tiles (k%4 == 0, n%4 == 0, 16-byte aligned; "
    "else v3's scalar loads) on v3's 8-outputs-per-thread tiling",
    LaunchV4);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
