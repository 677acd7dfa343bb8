// The hand-written float32 GEMM ladder (ep/cuda/sgemm): every registered rung,
// found through sgemm::Rungs() so that new rungs are covered without editing this file, against a
// double-precision host reference: C = alpha * A @ B + beta * C, row-major, no transposes. Shapes
// of 1, odd sizes that are multiples of no tile, long thin and K = 1 matrices, m or n = 0
// (nothing written), k = 0 (C = beta * C), unaligned A and B (rungs with vector loads take their
// scalar path), beta = 0 over C poisoned with NaN (which must be ignored) and beta = 0.5. Guard
// elements after C must survive. Error by norm: ||c - ref|| / ||ref|| <= 1e-5 for every case
// (inputs in [-1, 1], K <= 1024: float summation stays far below that, so no sqrt(K) scaling is
// needed). Skips itself where no GPU is visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "oneflow_lite/primitive/memcpy.h"
#include "tests/support/test_util.h"

#if defined(OFLITE_WITH_CUDA) && __has_include(<cuda_runtime.h>)
#define OFLITE_SGEMM_TEST_HAS_CUDA 1
#include "ep/cuda/cuda_stream.h"
#include "ep/cuda/sgemm/sgemm.h"
#endif

namespace oflite {
namespace test {
namespace {

#ifdef OFLITE_SGEMM_TEST_HAS_CUDA

using ep::sgemm::SgemmRung;

TEST(CudaSgemmRegistry, EveryRungOfTheLadderIsRegistered) {
  std::vector<std::string> expected;
  for (int i = 0; i <= 8; ++i) {
    expected.push_back("sgemm_v" + std::to_string(i));
  }
  expected.push_back("sgemm_best");
  for (size_t i = 0; i < expected.size(); ++i) {
    const SgemmRung* rung = ep::sgemm::FindRung(expected[i]);
    if (rung == nullptr) {
      ADD_FAILURE() << expected[i] << " is not registered";
      continue;
    }
    EXPECT_EQ(rung->order, static_cast<int>(i)) << expected[i];
    EXPECT_FALSE(rung->technique.empty()) << expected[i];
    EXPECT_NE(rung->launch, nullptr) << expected[i];
  }
  EXPECT_EQ(ep::sgemm::FindRung("sgemm_v9"), nullptr);
}

TEST(CudaSgemmRegistry, RungsComeInLadderOrderWithUniqueNames) {
  const std::vector<SgemmRung> rungs = ep::sgemm::Rungs();
  std::set<std::string> names;
  for (size_t i = 0; i < rungs.size(); ++i) {
    EXPECT_TRUE(names.insert(rungs[i].name).second) << "duplicate rung " << rungs[i].name;
    if (i > 0) {
      EXPECT_LE(rungs[i - 1].order, rungs[i].order);
    }
  }
}

constexpr size_t kGuard = 64;  // floats after C that no rung may touch
constexpr float kGuardValue = 1234.5f;
constexpr size_t kMisalign = 1;  // floats by which unaligned cases shift A and B

// The test executable is not linked with the CUDA runtime: device memory, copies and the stream
// come from the provider (Tensor::Empty on cuda:0, the Memcpy primitive, the device's default
// stream); only the rungs' launch functions are called directly.
ep::Stream* DeviceStream() { return Unwrap(ep::GetDevice(Device::Cuda(0)))->default_stream(); }

void CopyBytes(primitive::MemcpyKind kind, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) {
    return;
  }
  auto memcpy = primitive::NewPrimitive<primitive::MemcpyFactory>(DeviceType::kCUDA, kind);
  ASSERT_NE(memcpy, nullptr);
  ASSERT_TRUE(memcpy->Launch(DeviceStream(), dst, src, bytes).ok());
  ASSERT_TRUE(DeviceStream()->Sync().ok());
}

// `count` floats on cuda:0 starting `offset` floats into their allocation (1 misaligns them).
class DeviceBuffer {
 public:
  DeviceBuffer(size_t count, size_t offset) : count_(count), offset_(offset) {
    const size_t bytes = std::max<size_t>((count + offset) * sizeof(float), 1);
    block_ = Unwrap(
        Tensor::Empty(Shape{static_cast<int64_t>(bytes)}, DataType::kUInt8, Device::Cuda(0)));
  }
  float* get() const { return static_cast<float*>(block_.mut_data()) + offset_; }
  void Upload(const std::vector<float>& values) {
    ASSERT_EQ(values.size(), count_);
    CopyBytes(primitive::MemcpyKind::kHostToDevice, get(), values.data(),
              values.size() * sizeof(float));
  }
  std::vector<float> Download() const {
    std::vector<float> values(count_);
    CopyBytes(primitive::MemcpyKind::kDeviceToHost, values.data(), get(),
              values.size() * sizeof(float));
    return values;
  }

 private:
  size_t count_;
  size_t offset_;
  Tensor block_;
};

struct SgemmCase {
  int m, n, k;
  float alpha, beta;
  bool misaligned = false;  // A and B start one float past a 16-byte boundary
  std::string Describe() const {
    std::ostringstream os;
    os << m << "x" << n << "x" << k << " alpha=" << alpha << " beta=" << beta
       << (misaligned ? " misaligned" : "");
    return os.str();
  }
};

std::vector<SgemmCase> Cases() {
  const int shapes[][3] = {{1, 1, 1},    {7, 9, 5},      {64, 64, 64},  {129, 257, 65},
                           {1000, 3, 7}, {3, 1000, 2},   {256, 128, 1}, {0, 5, 3},
                           {5, 0, 3},    {0, 0, 0},      {17, 33, 0},   {1, 300, 64},
                           {300, 1, 64}, {65, 67, 1024}, {96, 128, 32}, {70, 36, 12}};
  const float coefficients[][2] = {{1.0f, 0.0f}, {1.5f, 0.0f}, {1.5f, 0.5f}, {-0.75f, 1.0f}};
  std::vector<SgemmCase> cases;
  for (const auto& s : shapes) {
    for (const auto& ab : coefficients) {
      cases.push_back({s[0], s[1], s[2], ab[0], ab[1]});
    }
  }
  // Unaligned A and B: vector rungs must fall back (shapes that would otherwise vectorize).
  cases.push_back({64, 64, 64, 1.5f, 0.5f, true});
  cases.push_back({96, 128, 32, 1.0f, 0.0f, true});
  cases.push_back({129, 257, 65, 1.0f, 0.5f, true});
  return cases;
}

// Products large enough for sgemm_best's 128 x 256 tiles (it takes them from 128 blocks on;
// the other rungs have no size-dependent path): the vector path (n, k % 4 == 0; 7 k tiles
// wrap its 4-stage ring), the scalar path, and misaligned operands; none a multiple of a tile.
std::vector<SgemmCase> LargeTileCases() {
  return {{1537, 2820, 100, 1.5f, 0.0f},
          {1537, 2820, 100, -0.75f, 1.0f},
          {1537, 2817, 21, 1.0f, 0.5f},
          {1537, 2820, 100, 1.0f, 0.5f, true}};
}

class CudaSgemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

// Runs one rung on one case and checks it against the reference (computed by the caller).
void CheckRung(const SgemmRung& rung, const SgemmCase& cs, const std::vector<float>& a,
               const std::vector<float>& b, const std::vector<float>& c0,
               const std::vector<double>& ref) {
  SCOPED_TRACE(rung.name + " " + cs.Describe());
  const size_t shift = cs.misaligned ? kMisalign : 0;
  const size_t c_count = static_cast<size_t>(cs.m) * cs.n;
  DeviceBuffer a_dev(a.size(), shift);
  DeviceBuffer b_dev(b.size(), shift);
  DeviceBuffer c_dev(c_count + kGuard, 0);
  std::vector<float> c_host(c0);
  c_host.resize(c_count + kGuard, kGuardValue);
  a_dev.Upload(a);
  b_dev.Upload(b);
  c_dev.Upload(c_host);

  ep::Stream* stream = DeviceStream();
  const cudaStream_t cuda_stream =
      Unwrap(ep::ActiveCudaStream(stream, "sgemm test"))->cuda_stream();
  const cudaError_t launched = rung.launch(cuda_stream, cs.m, cs.n, cs.k, cs.alpha, a_dev.get(),
                                           b_dev.get(), cs.beta, c_dev.get());
  ASSERT_EQ(launched, cudaSuccess) << "cudaError_t " << static_cast<int>(launched);
  ASSERT_TRUE(stream->Sync().ok()) << "the launch failed on the device";
  const std::vector<float> out = c_dev.Download();

  double err2 = 0.0;
  double ref2 = 0.0;
  size_t non_finite = 0;
  for (size_t i = 0; i < c_count; ++i) {
    if (!std::isfinite(out[i])) {
      ++non_finite;
    }
    const double d = static_cast<double>(out[i]) - ref[i];
    err2 += d * d;
    ref2 += ref[i] * ref[i];
  }
  EXPECT_EQ(non_finite, 0u) << "NaN/Inf in C (beta = 0 must not read C)";
  if (ref2 == 0.0) {
    EXPECT_EQ(err2, 0.0);
  } else {
    EXPECT_LE(std::sqrt(err2 / ref2), 1e-5);
  }
  size_t guard_hits = 0;
  for (size_t i = c_count; i < out.size(); ++i) {
    guard_hits += out[i] != kGuardValue;
  }
  EXPECT_EQ(guard_hits, 0u) << "wrote past the end of C";
}

// Runs every case on every rung given, against a double reference of the same random data.
void CheckCases(const std::vector<SgemmRung>& rungs, const std::vector<SgemmCase>& cases) {
  std::mt19937 rng(20240611);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (const SgemmCase& cs : cases) {
    const size_t m = cs.m, n = cs.n, k = cs.k;
    std::vector<float> a(m * k), b(k * n), c0(m * n);
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng);
    if (cs.beta == 0.0f) {
      std::fill(c0.begin(), c0.end(), std::numeric_limits<float>::quiet_NaN());
    } else {
      for (float& v : c0) v = dist(rng);
    }
    std::vector<double> ref(m * n);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (size_t p = 0; p < k; ++p) {
          sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
        }
        ref[i * n + j] =
            cs.alpha * sum + (cs.beta == 0.0f ? 0.0 : static_cast<double>(cs.beta) * c0[i * n + j]);
      }
    }
    for (const SgemmRung& rung : rungs) {
      CheckRung(rung, cs, a, b, c0, ref);
    }
  }
}

TEST_F(CudaSgemmTest, EveryRungMatchesTheDoubleReference) {
  const std::vector<SgemmRung> rungs = ep::sgemm::Rungs();
  ASSERT_FALSE(rungs.empty());
  CheckCases(rungs, Cases());
}

TEST_F(CudaSgemmTest, TheFinalRungsLargeTilesMatchTheDoubleReference) {
  const SgemmRung* best = ep::sgemm::FindRung("sgemm_best");
  ASSERT_NE(best, nullptr);
  CheckCases({*best}, LargeTileCases());
}

#else  // no CUDA headers in this test executable

TEST(CudaSgemm, NeedsTheCudaRuntimeInTheTestExecutable) {
#ifdef OFLITE_WITH_CUDA
  GTEST_SKIP() << "oflite_ep_test is not linked with CUDA::cudart: the sgemm ladder is untested";
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

#endif  // OFLITE_SGEMM_TEST_HAS_CUDA

}  // namespace
}  // namespace test
}  // namespace oflite
