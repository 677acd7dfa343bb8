// CUDA BatchMatmul (cuBLASLt for float32/float16/bfloat16, cuBLAS for float64) against a plain
// double-precision reference: odd and degenerate shapes, every transpose combination, strided
// and broadcast (stride 0) batches, padded strides and misaligned pointers, alpha/beta, k = 0,
// TF32, the plan cache, and the error paths. Outputs are written into buffers poisoned with NaN
// (gaps between strided results and a guard after the last one must stay NaN). Errors are
// measured by norm: ||c - ref|| / ||ref|| over all results. Skips itself where no GPU is
// visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "oneflow_lite/ep/matmul_settings.h"
#include "oneflow_lite/primitive/batch_matmul.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "tests/support/test_util.h"
#ifdef OFLITE_WITH_CUDA
#include "ep/cuda/primitive/batch_matmul_plan_cache.h"
#endif

namespace oflite {
namespace test {
namespace {

constexpr size_t kGuardElements = 16;

ep::Stream* CudaStream() { return Unwrap(ep::GetDevice(Device::Cuda(0)))->default_stream(); }

void CopyBytes(primitive::MemcpyKind kind, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) {
    return;
  }
  auto memcpy = primitive::NewPrimitive<primitive::MemcpyFactory>(DeviceType::kCUDA, kind);
  ASSERT_NE(memcpy, nullptr);
  ASSERT_TRUE(memcpy->Launch(CudaStream(), dst, src, bytes).ok());
  ASSERT_TRUE(CudaStream()->Sync().ok());
}

// `count` elements of dtype on the GPU starting `offset` elements into an allocation (offset 1
// misaligns them).
class DeviceArray {
 public:
  DeviceArray(size_t count, DataType dtype, size_t offset = 0)
      : count_(count), dtype_(dtype), offset_(offset) {
    const size_t bytes = (count + offset) * DataTypeSize(dtype);
    block_ = Unwrap(Tensor::Empty(Shape{static_cast<int64_t>(std::max<size_t>(bytes, 1))},
                                  DataType::kUInt8, Device::Cuda(0)));
  }

  void* data() const {
    return static_cast<char*>(block_.mut_data()) + offset_ * DataTypeSize(dtype_);
  }

  void Upload(const std::vector<double>& values) {
    ASSERT_EQ(values.size(), count_);
    std::vector<char> bytes(count_ * DataTypeSize(dtype_));
    VisitDataType(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      auto* p = reinterpret_cast<T*>(bytes.data());
      for (size_t i = 0; i < count_; ++i) {
        p[i] = static_cast<T>(values[i]);
      }
    });
    CopyBytes(primitive::MemcpyKind::kHostToDevice, data(), bytes.data(), bytes.size());
  }

  std::vector<double> Download() const {
    std::vector<char> bytes(count_ * DataTypeSize(dtype_));
    CopyBytes(primitive::MemcpyKind::kDeviceToHost, bytes.data(), data(), bytes.size());
    std::vector<double> values(count_);
    VisitDataType(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto* p = reinterpret_cast<const T*>(bytes.data());
      for (size_t i = 0; i < count_; ++i) {
        values[i] = static_cast<double>(p[i]);
      }
    });
    return values;
  }

 private:
  size_t count_;
  DataType dtype_;
  size_t offset_;
  Tensor block_;
};

struct Case {
  Case(size_t m_, size_t n_, size_t k_) : m(m_), n(n_), k(k_) {}
  size_t m, n, k;
  bool transpose_a = false, transpose_b = false;
  size_t batch = 1;
  int64_t stride_a = -1, stride_b = -1, stride_c = -1;  // -1: the matrix size (contiguous)
  double alpha = 1, beta = 0;
  size_t offset = 0;  // elements by which a, b and c are moved off their allocation's start

  std::string ToString() const {
    std::ostringstream out;
    out << "m=" << m << " n=" << n << " k=" << k << " ta=" << transpose_a << " tb=" << transpose_b
        << " batch=" << batch << " strides=" << stride_a << "," << stride_b << "," << stride_c
        << " alpha=" << alpha << " beta=" << beta << " offset=" << offset;
    return out.str();
  }
};

// Elements a buffer of `batch` matrices of `size` needs at `stride`.
size_t Extent(size_t batch, size_t size, int64_t stride) {
  return batch == 0 ? 0 : (batch - 1) * static_cast<size_t>(stride) + size;
}

double Tolerance(DataType dtype, bool tf32) {
  switch (dtype) {
    case DataType::kFloat64:
      return 1e-12;
    case DataType::kFloat32:
      return tf32 ? 5e-3 : 1e-5;
    default:
      return 5e-3;
  }
}

// The launch's description, for the caller's checks.
std::string RunCase(DataType dtype, Case cs, bool tf32 = false, uint64_t seed = 1) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  const std::string context = std::string(DataTypeName(dtype)) + " " + cs.ToString() +
                              " tf32=" + (tf32 ? "1" : "0") + " seed=" + std::to_string(seed);
  const size_t m = cs.m, n = cs.n, k = cs.k;
  const int64_t sa = cs.stride_a < 0 ? static_cast<int64_t>(m * k) : cs.stride_a;
  const int64_t sb = cs.stride_b < 0 ? static_cast<int64_t>(k * n) : cs.stride_b;
  const int64_t sc = cs.stride_c < 0 ? static_cast<int64_t>(m * n) : cs.stride_c;
  const size_t a_count = Extent(cs.batch, m * k, sa), b_count = Extent(cs.batch, k * n, sb);
  const size_t c_count = Extent(cs.batch, m * n, sc) + kGuardElements;

  const std::vector<double> a = RoundTo(RandomValues(a_count, seed, -1, 1), dtype);
  const std::vector<double> b = RoundTo(RandomValues(b_count, seed + 1, -1, 1), dtype);
  // c: NaN everywhere (beta = 0 must ignore it; gaps and guard must survive), random values in
  // the result blocks when beta reads them.
  std::vector<double> c0(c_count, std::numeric_limits<double>::quiet_NaN());
  std::vector<bool> is_result(c_count, false);
  const std::vector<double> c_random = RoundTo(RandomValues(c_count, seed + 2, -1, 1), dtype);
  for (size_t i = 0; i < cs.batch; ++i) {
    for (size_t e = 0; e < m * n; ++e) {
      const size_t at = i * static_cast<size_t>(sc) + e;
      is_result[at] = true;
      if (cs.beta != 0) {
        c0[at] = c_random[at];
      }
    }
  }

  // Reference, in double: c = alpha * op(a) op(b) + beta * c (beta = 0 ignores c).
  std::vector<double> expected = c0;
  for (size_t i = 0; i < cs.batch; ++i) {
    const double* ai = a.data() + i * static_cast<size_t>(sa);
    const double* bi = b.data() + i * static_cast<size_t>(sb);
    for (size_t r = 0; r < m; ++r) {
      for (size_t col = 0; col < n; ++col) {
        double sum = 0;
        for (size_t p = 0; p < k; ++p) {
          const double av = cs.transpose_a ? ai[p * m + r] : ai[r * k + p];
          const double bv = cs.transpose_b ? bi[col * k + p] : bi[p * n + col];
          sum += av * bv;
        }
        double& out = expected[i * static_cast<size_t>(sc) + r * n + col];
        out = cs.alpha * sum + (cs.beta == 0 ? 0.0 : cs.beta * out);
      }
    }
  }

  DeviceArray da(a_count, dtype, cs.offset), db(b_count, dtype, cs.offset),
      dc(c_count, dtype, cs.offset);
  da.Upload(a);
  db.Upload(b);
  dc.Upload(c0);
  auto matmul = primitive::NewPrimitive<primitive::BatchMatmulFactory>(
      DeviceType::kCUDA, dtype, cs.transpose_a, cs.transpose_b);
  EXPECT_NE(matmul, nullptr) << context;
  if (matmul == nullptr) {
    return "";
  }
  const ep::ScopedAllowTf32 allow(tf32);
  const Maybe<void> launched = matmul->Launch(CudaStream(), cs.batch, m, n, k, cs.alpha, da.data(),
                                              sa, db.data(), sb, cs.beta, dc.data(), sc);
  EXPECT_TRUE(launched.ok()) << context << ": "
                             << (launched.ok() ? "" : launched.error().ToString());
  EXPECT_TRUE(CudaStream()->Sync().ok()) << context;
  const std::vector<double> actual = dc.Download();

  double diff = 0, norm = 0;
  size_t bad_untouched = 0, non_finite = 0;
  for (size_t i = 0; i < c_count; ++i) {
    if (!is_result[i]) {
      bad_untouched += std::isnan(actual[i]) ? 0 : 1;
      continue;
    }
    if (!std::isfinite(actual[i])) {
      ++non_finite;
      continue;
    }
    diff += (actual[i] - expected[i]) * (actual[i] - expected[i]);
    norm += expected[i] * expected[i];
  }
  EXPECT_EQ(bad_untouched, 0u) << context << ": wrote outside the results";
  EXPECT_EQ(non_finite, 0u) << context << ": unwritten or non-finite results";
  const double error = norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
  EXPECT_LE(error, Tolerance(dtype, tf32)) << context;
  return notes.Describe(*matmul);
}

const DataType kFloatingTypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16,
                                   DataType::kFloat64};

class CudaMatmulTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

TEST_F(CudaMatmulTest, ShapesAndTransposes) {
  const size_t shapes[][3] = {{129, 257, 65}, {1, 1, 1},   {1000, 3, 7},
                              {64, 64, 64},   {33, 17, 1}, {3, 1000, 5}};
  for (DataType dtype : kFloatingTypes) {
    for (const auto& s : shapes) {
      for (int t = 0; t < 4; ++t) {
        Case cs{s[0], s[1], s[2]};
        cs.transpose_a = (t & 1) != 0;
        cs.transpose_b = (t & 2) != 0;
        const std::string description = RunCase(dtype, cs);
        const std::string expected_path = dtype == DataType::kFloat64 ? "[cublas]" : "[cublasLt]";
        EXPECT_EQ(description,
                  std::string("cuda.batch_matmul<") + DataTypeName(dtype) + ">" + expected_path)
            << cs.ToString();
      }
    }
  }
}

TEST_F(CudaMatmulTest, StridedAndBroadcastBatches) {
  for (DataType dtype : kFloatingTypes) {
    for (int t = 0; t < 4; ++t) {
      Case base{37, 29, 23};
      base.transpose_a = (t & 1) != 0;
      base.transpose_b = (t & 2) != 0;
      base.batch = 3;
      RunCase(dtype, base);  // contiguous
      Case padded = base;    // gaps between the matrices (odd strides: misaligned batches)
      padded.stride_a = 37 * 23 + 5;
      padded.stride_b = 29 * 23 + 3;
      padded.stride_c = 37 * 29 + 7;
      RunCase(dtype, padded);
      Case broadcast_a = base;
      broadcast_a.stride_a = 0;
      RunCase(dtype, broadcast_a);
      Case broadcast_b = base;
      broadcast_b.stride_b = 0;
      broadcast_b.stride_c = 37 * 29 + 1;
      RunCase(dtype, broadcast_b);
    }
  }
}

TEST_F(CudaMatmulTest, AlphaBeta) {
  for (DataType dtype : kFloatingTypes) {
    for (double beta : {0.0, 1.0, -1.5}) {
      Case cs{65, 33, 129};
      cs.alpha = 0.5;
      cs.beta = beta;
      cs.batch = 2;
      RunCase(dtype, cs);
      cs.transpose_a = cs.transpose_b = true;
      cs.alpha = -2;
      RunCase(dtype, cs);
    }
  }
}

TEST_F(CudaMatmulTest, MisalignedPointers) {
  for (DataType dtype : kFloatingTypes) {
    for (int t = 0; t < 4; ++t) {
      Case cs{31, 45, 17};
      cs.transpose_a = (t & 1) != 0;
      cs.transpose_b = (t & 2) != 0;
      cs.offset = 1;
      cs.beta = 0.25;
      RunCase(dtype, cs);
    }
  }
}

TEST_F(CudaMatmulTest, EmptySumScalesC) {
  for (DataType dtype : kFloatingTypes) {
    Case cs{17, 9, 0};
    cs.batch = 2;
    cs.beta = 0;  // NaN poison becomes zeros
    EXPECT_NE(RunCase(dtype, cs).find("[k=0 zero c]"), std::string::npos);
    cs.beta = 2.5;
    EXPECT_NE(RunCase(dtype, cs).find("[k=0 scale c]"), std::string::npos);
    cs.beta = 1;
    EXPECT_NE(RunCase(dtype, cs).find("[k=0 keep c]"), std::string::npos);
    cs.stride_c = 17 * 9 + 4;  // not contiguous: one block at a time
    cs.beta = 0;
    RunCase(dtype, cs);
    cs.beta = -0.5;
    RunCase(dtype, cs);
    Case zero_alpha{8, 8, 8};  // alpha = 0 does not read a or b either
    zero_alpha.alpha = 0;
    zero_alpha.beta = 3;
    RunCase(dtype, zero_alpha);
  }
}

TEST_F(CudaMatmulTest, EmptyOutputsDoNothing) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  for (DataType dtype : kFloatingTypes) {
    auto matmul = primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCUDA, dtype,
                                                                         false, false);
    ASSERT_NE(matmul, nullptr);
    // Null pointers: nothing may be touched.
    EXPECT_TRUE(
        matmul->Launch(CudaStream(), 3, 0, 5, 7, 1, nullptr, 0, nullptr, 35, 0, nullptr, 0).ok());
    EXPECT_TRUE(
        matmul->Launch(CudaStream(), 3, 5, 0, 7, 1, nullptr, 35, nullptr, 0, 0, nullptr, 0).ok());
    EXPECT_TRUE(
        matmul->Launch(CudaStream(), 0, 5, 5, 7, 1, nullptr, 35, nullptr, 35, 0, nullptr, 25).ok());
    EXPECT_NE(notes.Describe(*matmul).find("[empty]"), std::string::npos);
    EXPECT_TRUE(CudaStream()->Sync().ok());
  }
}

TEST_F(CudaMatmulTest, Tf32) {
  const size_t shapes[][3] = {{129, 257, 65}, {64, 64, 64}, {1000, 3, 7}};
  for (const auto& s : shapes) {
    for (int t = 0; t < 4; ++t) {
      Case cs{s[0], s[1], s[2]};
      cs.transpose_a = (t & 1) != 0;
      cs.transpose_b = (t & 2) != 0;
      EXPECT_EQ(RunCase(DataType::kFloat32, cs, true), "cuda.batch_matmul<float32>[cublasLt tf32]");
    }
  }
  Case batched{40, 50, 60};
  batched.batch = 3;
  batched.stride_b = 0;
  batched.beta = 0.5;
  RunCase(DataType::kFloat32, batched, true);
  EXPECT_FALSE(ep::AllowTf32());  // the scope restored the default
}

// A repeated problem reuses its cached plan, and gives the same bits.
TEST_F(CudaMatmulTest, PlanCacheIsReused) {
  const size_t m = 77, n = 78, k = 79;
  const DataType dtype = DataType::kFloat32;
  DeviceArray a(m * k, dtype), b(k * n, dtype), c(m * n, dtype);
  a.Upload(RandomValues(m * k, 5, -1, 1));
  b.Upload(RandomValues(k * n, 6, -1, 1));
  auto matmul =
      primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCUDA, dtype, true, false);
  ASSERT_NE(matmul, nullptr);
  // transpose_a with a stored k x m: the shapes are only reinterpreted.
  const auto launch = [&] {
    return matmul->Launch(CudaStream(), 1, m, n, k, 1.0, a.data(), 0, b.data(), 0, 0.0, c.data(),
                          0);
  };
#ifdef OFLITE_WITH_CUDA
  const size_t before = ep::CudaBatchMatmulPlanCacheSize();
#endif
  ASSERT_TRUE(launch().ok());
  const std::vector<double> first = c.Download();
#ifdef OFLITE_WITH_CUDA
  const size_t after_first = ep::CudaBatchMatmulPlanCacheSize();
  EXPECT_EQ(after_first, before + 1);
#endif
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(launch().ok());
    EXPECT_EQ(c.Download(), first);
  }
  // Another primitive object for the same problem shares the plan too.
  auto again =
      primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCUDA, dtype, true, false);
  ASSERT_TRUE(
      again->Launch(CudaStream(), 1, m, n, k, 1.0, a.data(), 0, b.data(), 0, 0.0, c.data(), 0)
          .ok());
  EXPECT_EQ(c.Download(), first);
#ifdef OFLITE_WITH_CUDA
  EXPECT_EQ(ep::CudaBatchMatmulPlanCacheSize(), after_first);
#endif
}

TEST_F(CudaMatmulTest, FactoryAndErrors) {
  for (DataType dtype :
       {DataType::kInt8, DataType::kUInt8, DataType::kInt32, DataType::kInt64, DataType::kBool}) {
    EXPECT_EQ(primitive::NewPrimitive<primitive::BatchMatmulFactory>(DeviceType::kCUDA, dtype,
                                                                     false, false),
              nullptr)
        << dtype;
  }
  auto matmul = primitive::NewPrimitive<primitive::BatchMatmulFactory>(
      DeviceType::kCUDA, DataType::kFloat16, false, false);
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->name(), "cuda.batch_matmul<float16>");
  DeviceArray a(4, DataType::kFloat16), b(4, DataType::kFloat16), c(8, DataType::kFloat16);
  ep::Stream* cpu_stream = Unwrap(ep::GetDevice(Device::Cpu()))->default_stream();
  ExpectError(matmul->Launch(cpu_stream, 1, 2, 2, 2, 1, a.data(), 4, b.data(), 4, 0, c.data(), 4),
              ErrorKind::kValueError, {"cuda.batch_matmul<float16>", "needs a cuda stream"});
  ExpectError(matmul->Launch(CudaStream(), 2, 2, 2, 2, 1, a.data(), 0, b.data(), 0, 0, c.data(), 0),
              ErrorKind::kValueError, {"stride_c 0 with batch 2"});
  ExpectError(
      matmul->Launch(CudaStream(), 2, 2, 2, 2, 1, a.data(), -4, b.data(), 0, 0, c.data(), 4),
      ErrorKind::kValueError, {"negative batch stride"});
}

}  // namespace
}  // namespace test
}  // namespace oflite
