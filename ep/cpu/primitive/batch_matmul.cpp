// CPU BatchMatmul: oneDNN's sgemm for float32, OpenBLAS's cblas_dgemm for float64, one call per
// problem of the batch (row-major, transposes passed through). float16 and
// bfloat16 go through float: a and b are widened to float buffers, sgemm runs, and c is rounded
// back once (c is widened too when beta != 0). Integer and bool dtypes have no GEMM: nullptr.
//
// LaunchBiasAct: the GEMM into the compute type (c itself for float32 and float64, a float
// buffer for 16-bit types), then one loop adding the bias and applying the activation with the
// elementwise functors, rounding 16-bit results once.
#include "oneflow_lite/primitive/batch_matmul.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <array>
#include <climits>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "ep/cpu/parallel_for.h"
#include "ep/cpu/primitive/compute_type.h"
#include "oneflow_lite/ep/num_threads.h"
#include "primitive/elementwise_functors.h"

namespace oflite {
namespace ep {
namespace {

// One GEMM in the compute type C (float or double): c = alpha * op(a) @ op(b) + beta * c,
// row-major. float runs on oneDNN's sgemm (several times faster than Debian's OpenBLAS 0.3.21,
// which serves AVX-512 hosts with older kernels; docs/BENCHMARKS.md); oneDNN has no double
// GEMM, so double runs on OpenBLAS.
// Products of at most this many multiply-adds run on the calling thread: below it, waking the
// pool costs oneDNN more than the threads save.
constexpr int64_t kSingleThreadedGemm = int64_t{1} << 18;
// Products with fewer outputs than this also run on one thread: oneDNN splits the k sum over
// threads for them, and results must not depend on the thread count.
constexpr int64_t kFewOutputs = int64_t{1} << 14;

Maybe<void> Gemm(bool transpose_a, bool transpose_b, int m, int n, int k, float alpha,
                 const float* a, const float* b, float beta, float* c) {
  const int64_t outputs = int64_t{m} * n;
  const bool one_thread = outputs * k <= kSingleThreadedGemm || outputs < kFewOutputs;
  OmpThreadsScope threads(one_thread ? 1 : GetNumThreads());
  const dnnl_status_t status =
      dnnl_sgemm(transpose_a ? 'T' : 'N', transpose_b ? 'T' : 'N', m, n, k, alpha, a,
                 transpose_a ? m : k, b, transpose_b ? k : n, beta, c, n);
  OFLITE_CHECK_OR_RETURN(status == dnnl_success, RuntimeError)
      << "cpu.batch_matmul: oneDNN's sgemm failed with status " << static_cast<int>(status)
      << " for m = " << m << ", n = " << n << ", k = " << k;
  return Ok();
}

Maybe<void> Gemm(bool transpose_a, bool transpose_b, int m, int n, int k, double alpha,
                 const double* a, const double* b, double beta, double* c) {
  OmpThreadsScope threads(GetNumThreads());
  cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, transpose_a ? m : k, b,
              transpose_b ? k : n, beta, c, n);
  return Ok();
}

template <typename T>
class BatchMatmulImpl final : public primitive::BatchMatmul {
 public:
  BatchMatmulImpl(bool transpose_a, bool transpose_b)
      : transpose_a_(transpose_a), transpose_b_(transpose_b) {}

  std::string name() const override {
    return std::string("cpu.batch_matmul<") + DataTypeName(kDataTypeOf<T>) + ">";
  }

  Maybe<void> Launch(Stream* /*stream*/, size_t batch, size_t m, size_t n, size_t k, double alpha,
                     const void* a, int64_t stride_a, const void* b, int64_t stride_b, double beta,
                     void* c, int64_t stride_c) override {
    NoteLaunch([&] { return Describe(""); });
    if (batch == 0 || m == 0 || n == 0) {
      return Ok();
    }
    OFLITE_JUST(primitive::CheckBatchStrides(name(), batch, stride_a, stride_b, stride_c));
    T* c_typed = static_cast<T*>(c);
    // An empty sum, or alpha = 0 (BLAS reads neither operand then; some OpenBLAS kernels do,
    // so NaN * 0 would leak in): c = beta * c, and beta = 0 ignores c's contents.
    if (k == 0 || alpha == 0) {
      for (size_t i = 0; i < batch; ++i) {
        T* ci = c_typed + static_cast<int64_t>(i) * stride_c;
        for (size_t e = 0; e < m * n; ++e) {
          ci[e] = beta == 0 ? T(0.0f) : T(static_cast<C>(beta) * static_cast<C>(ci[e]));
        }
      }
      return Ok();
    }
    std::array<int, 3> dims{};
    OFLITE_ASSIGN_OR_RETURN(dims, BlasDims(m, n, k));
    const auto [mi, ni, ki] = dims;
    const T* a_typed = static_cast<const T*>(a);
    const T* b_typed = static_cast<const T*>(b);
    if constexpr (std::is_same_v<T, C>) {
      for (size_t i = 0; i < batch; ++i) {
        const int64_t idx = static_cast<int64_t>(i);
        OFLITE_JUST(Gemm(transpose_a_, transpose_b_, mi, ni, ki, static_cast<C>(alpha),
                         a_typed + idx * stride_a, b_typed + idx * stride_b, static_cast<C>(beta),
                         c_typed + idx * stride_c));
      }
    } else {
      // 16-bit types: widen, multiply in float, round once. A stride of 0 widens its matrix once.
      std::vector<C> a_buf(m * k), b_buf(k * n), c_buf(m * n);
      for (size_t i = 0; i < batch; ++i) {
        const int64_t idx = static_cast<int64_t>(i);
        if (i == 0 || stride_a != 0) {
          Widen(a_typed + idx * stride_a, m * k, a_buf.data());
        }
        if (i == 0 || stride_b != 0) {
          Widen(b_typed + idx * stride_b, k * n, b_buf.data());
        }
        T* ci = c_typed + idx * stride_c;
        if (beta != 0) {
          Widen(ci, m * n, c_buf.data());
        }
        OFLITE_JUST(Gemm(transpose_a_, transpose_b_, mi, ni, ki, static_cast<C>(alpha),
                         a_buf.data(), b_buf.data(), static_cast<C>(beta), c_buf.data()));
        for (size_t e = 0; e < m * n; ++e) {
          ci[e] = T(c_buf[e]);
        }
      }
    }
    return Ok();
  }

  Maybe<void> LaunchBiasAct(Stream* /*stream*/, size_t m, size_t n, size_t k, const void* a,
                            const void* b, const void* bias, primitive::BiasActivation activation,
                            double leaky_alpha, void* c) override {
    using primitive::BiasActivation;
    using primitive::UnaryOp;
    NoteLaunch([&] { return Describe(EpilogueName(activation)); });
    switch (activation) {
      case BiasActivation::kNone:
        return GemmBiasAct(m, n, k, a, b, bias, c, [](C v) { return v; });
      case BiasActivation::kRelu:
        return GemmBiasAct(m, n, k, a, b, bias, c, Functor<UnaryOp::kRelu>(leaky_alpha));
      case BiasActivation::kGelu:
        return GemmBiasAct(m, n, k, a, b, bias, c, Functor<UnaryOp::kGelu>(leaky_alpha));
      case BiasActivation::kGeluTanh:
        return GemmBiasAct(m, n, k, a, b, bias, c, Functor<UnaryOp::kGeluTanh>(leaky_alpha));
      case BiasActivation::kLeakyRelu:
        return GemmBiasAct(m, n, k, a, b, bias, c, Functor<UnaryOp::kLeakyRelu>(leaky_alpha));
    }
    return OFLITE_ERROR(ValueError)
           << name() << ": unknown bias activation " << static_cast<int>(activation);
  }

 private:
  // What LaunchBiasAct fuses after the GEMM, in BiasActivation's order.
  static const char* EpilogueName(primitive::BiasActivation activation) {
    constexpr const char* kNames[] = {" + bias", " + bias, relu", " + bias, gelu",
                                      " + bias, gelu_tanh", " + bias, leaky_relu"};
    const auto i = static_cast<size_t>(activation);
    return i < std::size(kNames) ? kNames[i] : "";
  }
  // The GEMM that runs ("onednn sgemm nt") and what is fused after it, for a trace.
  std::string Describe(const char* epilogue) const {
    return std::string(std::is_same_v<T, double> ? "openblas dgemm" : "onednn sgemm") + " " +
           (transpose_a_ ? "t" : "n") + (transpose_b_ ? "t" : "n") + epilogue;
  }

  // m, n, k as BLAS's int, or NotImplemented beyond its range.
  Maybe<std::array<int, 3>> BlasDims(size_t m, size_t n, size_t k) const {
    OFLITE_CHECK_OR_RETURN(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, NotImplemented)
        << name() << ": m = " << m << ", n = " << n << ", k = " << k
        << " exceed the BLAS integer range (" << INT_MAX << ")";
    return std::array<int, 3>{static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)};
  }

  using C = ComputeType<T>;

  template <primitive::UnaryOp op>
  static primitive::elementwise::UnaryFunctor<op, sizeof(T) == 2> Functor(double attr) {
    return primitive::elementwise::UnaryFunctor<op, sizeof(T) == 2>{attr};
  }

  // c = act(op(a) @ op(b) + bias) for one problem, act applied to each sum in C.
  template <typename Act>
  Maybe<void> GemmBiasAct(size_t m, size_t n, size_t k, const void* a, const void* b,
                          const void* bias, void* c, Act act) {
    if (m == 0 || n == 0) {
      return Ok();
    }
    std::array<int, 3> dims{};
    OFLITE_ASSIGN_OR_RETURN(dims, BlasDims(m, n, k));
    const auto [mi, ni, ki] = dims;
    const T* a_typed = static_cast<const T*>(a);
    const T* b_typed = static_cast<const T*>(b);
    const T* bias_typed = static_cast<const T*>(bias);
    T* c_typed = static_cast<T*>(c);
    std::vector<C> bias_buf(n);
    Widen(bias_typed, n, bias_buf.data());
    // The product in C: c itself when T is C, a float buffer for 16-bit types.
    std::vector<C> c_buf;
    C* product = nullptr;
    if constexpr (std::is_same_v<T, C>) {
      product = c_typed;
    } else {
      c_buf.resize(m * n);
      product = c_buf.data();
    }
    if (k == 0) {  // an empty sum
      std::fill(product, product + m * n, C(0));
    } else if constexpr (std::is_same_v<T, C>) {
      OFLITE_JUST(
          Gemm(transpose_a_, transpose_b_, mi, ni, ki, C(1), a_typed, b_typed, C(0), product));
    } else {
      std::vector<C> a_buf(m * k), b_buf(k * n);
      Widen(a_typed, m * k, a_buf.data());
      Widen(b_typed, k * n, b_buf.data());
      OFLITE_JUST(Gemm(transpose_a_, transpose_b_, mi, ni, ki, C(1), a_buf.data(), b_buf.data(),
                       C(0), product));
    }
    for (size_t i = 0; i < m; ++i) {
      const C* row = product + i * n;
      T* out = c_typed + i * n;
      for (size_t j = 0; j < n; ++j) {
        out[j] = T(act(row[j] + bias_buf[j]));
      }
    }
    return Ok();
  }

  static void Widen(const T* src, size_t count, C* dst) {
    for (size_t e = 0; e < count; ++e) {
      dst[e] = static_cast<C>(src[e]);
    }
  }

  bool transpose_a_;
  bool transpose_b_;
};

class CpuBatchMatmulFactory final : public primitive::BatchMatmulFactory {
 public:
  std::unique_ptr<primitive::BatchMatmul> New(DataType dtype, bool transpose_a,
                                              bool transpose_b) override {
    return VisitDataType(dtype, [&](auto tag) -> std::unique_ptr<primitive::BatchMatmul> {
      using T = typename decltype(tag)::type;
      if constexpr (kIsFloatingType<T>) {
        return std::make_unique<BatchMatmulImpl<T>>(transpose_a, transpose_b);
      } else {
        return nullptr;
      }
    });
  }
};

OFLITE_REGISTER_PRIMITIVE_FACTORY(DeviceType::kCPU, primitive::BatchMatmulFactory,
                                  CpuBatchMatmulFactory);

}  // namespace
}  // namespace ep
}  // namespace oflite
