// The hand-written float32 GEMM ladder, rung by rung as the classic optimization sequence
// goes, so that each technique's gain can be measured: C = alpha * A @ B + beta * C, row-major,
// A m x k, B k x n, C m x n (leading dims k, n, n), any m, n, k >= 0 (edges masked), no
// transposes. Each rung lives in its own <name>.cu (v0.cu ... v8.cu, best.cu) and registers itself;
// beta = 0 ignores C's contents. Framework-free: launches return cudaError_t.
#ifndef ONEFLOW_LITE_EP_CUDA_SGEMM_SGEMM_H_
#define ONEFLOW_LITE_EP_CUDA_SGEMM_SGEMM_H_

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace oflite {
namespace ep {
namespace sgemm {

using SgemmLaunch = cudaError_t (*)(cudaStream_t stream, int m, int n, int k, float alpha,
                                    const float* a, const float* b, float beta, float* c);

struct SgemmRung {
  int order = 0;          // place on the ladder: 0 for v0 ... 8 for v8, 9 for best
  std::string name;       // "sgemm_v0" ... "sgemm_v8", "sgemm_best"
  std::string technique;  // one line: what this rung adds
  SgemmLaunch launch = nullptr;
};

// Every rung, in ladder order.
std::vector<SgemmRung> Rungs();
// The rung of that name, or nullptr.
const SgemmRung* FindRung(const std::string& name);

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite

#define OFLITE_SGEMM_CONCAT_INNER(a, b) a##b
#define OFLITE_SGEMM_CONCAT(a, b) OFLITE_SGEMM_CONCAT_INNER(a, b)
// OFLITE_REGISTER_SGEMM_RUNG(3, "sgemm_v3", "several outputs per thread", LaunchV3), in namespace
// oflite::ep::sgemm, defines kRung3, which registry.cpp lists: a named object that Rungs()
// refers to, so that linking the ladder as a static library keeps every rung's file.
#define OFLITE_REGISTER_SGEMM_RUNG(order, name, technique, launch) \
  extern const SgemmRung OFLITE_SGEMM_CONCAT(kRung, order) { order, name, technique, launch }

#endif  // ONEFLOW_LITE_EP_CUDA_SGEMM_SGEMM_H_
