// CUDA Softmax / LogSoftmax and their backward passes: the one place where the launchers'
// cudaError_t becomes a Maybe, and where the chosen implementation is recorded.
#include "oneflow_lite/primitive/softmax.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>

#include "ep/cuda/cuda_data_type.h"
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/primitive/softmax_launch.h"
#include "ep/cuda/primitive/softmax_plan.h"
#include "oneflow_lite/primitive/softmax_backward.h"
#include "primitive/floating_factory.h"

namespace oflite {
namespace ep {
namespace {

using primitive::SoftmaxAlgorithm;

template <typename T, SoftmaxAlgorithm kAlgorithm, bool kBackward>
std::string PrimitiveName() {
  return std::string("cuda.") +
         (kAlgorithm == SoftmaxAlgorithm::kSoftmax ? "softmax" : "log_softmax") +
         (kBackward ? "_backward<" : "<") + DataTypeName(kDataTypeOf<T>) + ">";
}

// Forward (dy == nullptr) or backward launch, checked.
template <typename T, SoftmaxAlgorithm kAlgorithm>
Maybe<void> LaunchChecked(Stream* stream, size_t rows, size_t cols, const void* a, const void* dy,
                          void* out, softmax::LaunchInfo* info) {
  using D = CudaType<T>;
  CudaStream* cuda_stream = nullptr;  // its device current: launches and occupancy queries
  OFLITE_ASSIGN_OR_RETURN(cuda_stream, ActiveCudaStream(stream, "cuda softmax"));
  const SoftmaxImpl forced = GetSoftmaxImplOverride();
  const auto r = static_cast<int64_t>(rows), c = static_cast<int64_t>(cols);
  void* workspace = nullptr;
  if (softmax::UsesWorkspace(cuda_stream->properties(), r, c, sizeof(T), forced)) {
    OFLITE_ASSIGN_OR_RETURN(workspace, cuda_stream->workspace());
  }
  return CudaCheck(softmax::Launch<D, kAlgorithm>(
                       cuda_stream->properties(), cuda_stream->cuda_stream(), r, c,
                       static_cast<const D*>(a), static_cast<const D*>(dy), static_cast<D*>(out),
                       forced, workspace, CudaStream::kWorkspaceBytes, info),
                   "softmax kernel launch");
}

template <SoftmaxAlgorithm kAlgorithm>
struct Forward {
  template <typename T>
  class Impl final : public primitive::SoftmaxBase<kAlgorithm> {
   public:
    std::string name() const override { return PrimitiveName<T, kAlgorithm, false>(); }
    Maybe<void> Launch(Stream* stream, size_t rows, size_t cols, const void* x, void* y) override {
      softmax::LaunchInfo info;
      OFLITE_JUST((LaunchChecked<T, kAlgorithm>(stream, rows, cols, x, nullptr, y, &info)));
      this->NoteLaunch([&] { return softmax::DescribeLaunch(info); });
      return Ok();
    }
  };
};

template <SoftmaxAlgorithm kAlgorithm>
struct Backward {
  template <typename T>
  class Impl final : public primitive::SoftmaxBackwardBase<kAlgorithm> {
   public:
    std::string name() const override { return PrimitiveName<T, kAlgorithm, true>(); }
    Maybe<void> Launch(Stream* stream, size_t rows, size_t cols, const void* y, const void* dy,
                       void* dx) override {
      softmax::LaunchInfo info;
      OFLITE_JUST((LaunchChecked<T, kAlgorithm>(stream, rows, cols, y, dy, dx, &info)));
      this->NoteLaunch([&] { return softmax::DescribeLaunch(info); });
      return Ok();
    }
  };
};

template <SoftmaxAlgorithm kAlgorithm>
class CudaSoftmaxFactory final : public primitive::SoftmaxBaseFactory<kAlgorithm> {
 public:
  std::unique_ptr<primitive::SoftmaxBase<kAlgorithm>> New(DataType data_type) override {
    return primitive::NewForFloating<primitive::SoftmaxBase<kAlgorithm>,
                                     Forward<kAlgorithm>::template Impl>(data_type);
  }
};

template <SoftmaxAlgorithm kAlgorithm>
class CudaSoftmaxBackwardFactory final : public primitive::SoftmaxBackwardBaseFactory<kAlgorithm> {
 public:
  std::unique_ptr<primitive::SoftmaxBackwardBase<kAlgorithm>> New(DataType data_type) override {
    return primitive::NewForFloating<primitive::SoftmaxBackwardBase<kAlgorithm>,
                                     Backward<kAlgorithm>::template Impl>(data_type);
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::SoftmaxFactory,
                                  CudaSoftmaxFactory<SoftmaxAlgorithm::kSoftmax>);
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::LogSoftmaxFactory,
                                  CudaSoftmaxFactory<SoftmaxAlgorithm::kLogSoftmax>);
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::SoftmaxBackwardFactory,
                                  CudaSoftmaxBackwardFactory<SoftmaxAlgorithm::kSoftmax>);
OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCUDA, primitive::LogSoftmaxBackwardFactory,
                                  CudaSoftmaxBackwardFactory<SoftmaxAlgorithm::kLogSoftmax>);

}  // namespace

namespace softmax {
std::string DescribeLaunch(const LaunchInfo& info) {
  std::string text = std::string(info.path) + " pack=" + std::to_string(info.pack) +
                     " block=" + std::to_string(info.block_size);
  if (std::string(info.path) == "warp") {
    text += " lanes=" + std::to_string(info.lanes) +
            " cols/thread=" + std::to_string(info.cols_per_thread) +
            " rows/group=" + std::to_string(info.rows_per_access);
  } else if (std::string(info.path) == "register") {
    text += " cols/thread=" + std::to_string(info.cols_per_thread);
    if (info.whole_sm) {
      text += " whole-sm";
    }
    if (info.floats_kept) {
      text += " floats-kept";
    }
    if (info.one_warp) {
      text += " one-warp";
    }
    if (info.two_blocks) {
      text += " two-blocks";
    }
  } else if (std::string(info.path) == "split") {
    text += " splits=" + std::to_string(info.splits);
    if (info.cols_per_thread > 0) {
      text += " held";
    }
    if (info.flat) {
      text += " flat";
    }
  } else if (std::string(info.path) == "cluster-smem") {
    text += " ctas=" + std::to_string(info.splits);
    if (info.looped) {
      text += " looped";
    }
  } else if (std::string(info.path) == "cluster") {
    text += " ctas=" + std::to_string(info.splits) +
            " cols/thread=" + std::to_string(info.cols_per_thread);
  }
  return text;
}

bool TakesClusterSmemOn(const CudaDeviceProperties& props, int64_t rows, int64_t cols,
                        int elem_size, ClusterSmemPass pass) {
  return props.compute_capability_major >= 9 &&
         TakesClusterSmem(
             props.sm_count, rows, cols, elem_size, pass,
             static_cast<int64_t>(props.shared_memory_per_block_optin) - kClusterSmemStaticBytes);
}

bool UsesWorkspace(const CudaDeviceProperties& props, int64_t rows, int64_t cols, int elem_size,
                   SoftmaxImpl forced) {
  // A forced cluster or cluster-smem launch that declines falls back to the automatic choice,
  // split included.
  const bool automatic = forced == SoftmaxImpl::kAuto || forced == SoftmaxImpl::kCluster ||
                         forced == SoftmaxImpl::kClusterSmem;
  return elem_size != 8 && (forced == SoftmaxImpl::kSplitRows ||
                            (automatic && TakesSplitRows(props.sm_count, rows, cols, elem_size)));
}
}  // namespace softmax

}  // namespace ep
}  // namespace oflite
