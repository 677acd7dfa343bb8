// Declarations of the softmax launchers (defined in softmax_launch.cuh and instantiated once per
// dtype in softmax_<dtype>.cu), so the primitive wrapper compiles no kernels itself.
#ifndef ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_LAUNCH_H_
#define ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "ep/cuda/cuda_device_properties.h"
#include "ep/cuda/primitive/softmax_plan.h"
#include "ep/softmax_impl.h"
#include "oneflow_lite/primitive/softmax.h"

namespace oflite {
namespace ep {
namespace softmax {

using primitive::SoftmaxAlgorithm;

// What a launch did, for traces and benchmarks.
struct LaunchInfo {
  const char* path = "none";  // "warp", "register", "smem", "uncached", "split",
                              // "cluster", "cluster-smem"
  int pack = 0;               // elements per vector access
  int block_size = 0;         // threads per block
  int lanes = 0;              // warp path: lanes per row
  int cols_per_thread = 0;    // warp and register paths
  int rows_per_access = 0;    // warp path
  bool whole_sm = false;      // register path: the block is its SM's only one (WholePacks)
  bool floats_kept = false;   // register path: bfloat16 held as floats (KeepsFloats; not one-warp)
  bool one_warp = false;      // register path: a 16-bit one-warp block (kOneWarp)
  int splits = 0;             // split path: blocks a row (flat: in all); cluster paths: CTAs a row
  bool looped = false;        // cluster-smem: fewer clusters than rows, each looping over rows
  bool two_blocks = false;    // register path: 16-bit blocks bounded to 32 registers (kTwoBlocks)
  bool flat = false;          // split path: the blocks take the tensor as one range (FlatSplitPlan)
};

// "warp pack=4 lanes=32 cols/thread=32 rows/group=1", "smem pack=4 block=1024", ...
std::string DescribeLaunch(const LaunchInfo& info);

// Forward when dy is null (a = x, out = y); backward otherwise (a = y, out = dx).
// T is float, double, __half or __nv_bfloat16. `workspace` (the stream's, of workspace_bytes) is
// needed only where UsesWorkspace holds, and may be null elsewhere.
template <typename T, SoftmaxAlgorithm kAlgorithm>
cudaError_t Launch(const CudaDeviceProperties& props, cudaStream_t stream, int64_t rows,
                   int64_t cols, const T* a, const T* dy, T* out, SoftmaxImpl forced,
                   void* workspace, size_t workspace_bytes, LaunchInfo* info);

// Whether Launch may take the split path (softmax_split_rows.cuh), which keeps partials in the
// stream's workspace: where the cluster-smem path takes few rows, the split path is still its
// fallback when that launch declines (clusters that do not fit the GPU).
bool UsesWorkspace(const CudaDeviceProperties& props, int64_t rows, int64_t cols, int elem_size,
                   SoftmaxImpl forced);

// Whether the cluster-smem path takes these rows by default on this device (TakesClusterSmem in
// softmax_plan.h, on a GPU with clusters; of few rows, only those whose slices fit its shared
// memory; for other rows the launch declines where they do not).
bool TakesClusterSmemOn(const CudaDeviceProperties& props, int64_t rows, int64_t cols,
                        int elem_size, ClusterSmemPass pass);

constexpr ClusterSmemPass ClusterSmemPassOf(SoftmaxAlgorithm algorithm, bool backward) {
  if (!backward) {
    return ClusterSmemPass::kForward;
  }
  return algorithm == SoftmaxAlgorithm::kSoftmax ? ClusterSmemPass::kSoftmaxBackward
                                                 : ClusterSmemPass::kLogSoftmaxBackward;
}

inline bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace softmax
}  // namespace ep
}  // namespace oflite

#endif  // ONEFLOW_LITE_EP_CUDA_PRIMITIVE_SOFTMAX_LAUNCH_H_
