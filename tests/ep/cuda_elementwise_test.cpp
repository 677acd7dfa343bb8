// CUDA elementwise primitives (BroadcastElementwiseBinary, ElementwiseUnary, Cast) against the
// double-precision references of ops/elementwise_reference.h: every op and dtype the
// functor table supports (and nullptr for the rest), lengths that leave a tail after the last
// pack, unaligned tensors (narrow paths), broadcast shapes of every path, empty tensors, all 81
// casts on special values, and the path each launch reports. Outputs are written into poisoned
// buffers with guard bytes on both sides that must survive. Skips itself where no GPU is
// visible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "oneflow_lite/primitive/broadcast_elementwise_binary.h"
#include "oneflow_lite/primitive/cast.h"
#include "oneflow_lite/primitive/elementwise_unary.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "ops/elementwise_reference.h"
#include "primitive/broadcast_dims.h"
#include "primitive/elementwise_functors.h"
#include "tests/support/test_util.h"

namespace oflite {
namespace test {
namespace {

using primitive::BinaryOp;
using primitive::UnaryOp;

constexpr size_t kGuardBytes = 64;
constexpr uint8_t kPoison = 0xA5;

#define OFLITE_TEST_OP_ENUMERATOR(enumerator, name) BinaryOp::enumerator,
const std::vector<BinaryOp> kBinaryOps = {OFLITE_BINARY_OP_LIST(OFLITE_TEST_OP_ENUMERATOR)};
#undef OFLITE_TEST_OP_ENUMERATOR
#define OFLITE_TEST_OP_ENUMERATOR(enumerator, name) UnaryOp::enumerator,
const std::vector<UnaryOp> kUnaryOps = {OFLITE_UNARY_OP_LIST(OFLITE_TEST_OP_ENUMERATOR)};
#undef OFLITE_TEST_OP_ENUMERATOR

template <typename T>
using TestComputeType =
    std::conditional_t<std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>, float, T>;

// What the functor table says the op supports for the dtype's compute type.
bool BinarySupported(BinaryOp op, DataType dtype) {
  return VisitDataType(dtype, [&](auto tag) {
    using C = TestComputeType<typename decltype(tag)::type>;
    switch (op) {
#define OFLITE_TEST_CASE(enumerator, name) \
  case BinaryOp::enumerator:               \
    return primitive::elementwise::kBinarySupports<BinaryOp::enumerator, C>;
      OFLITE_BINARY_OP_LIST(OFLITE_TEST_CASE)
#undef OFLITE_TEST_CASE
    }
    return false;
  });
}

bool UnarySupported(UnaryOp op, DataType dtype) {
  return VisitDataType(dtype, [&](auto tag) {
    using C = TestComputeType<typename decltype(tag)::type>;
    switch (op) {
#define OFLITE_TEST_CASE(enumerator, name) \
  case UnaryOp::enumerator:                \
    return primitive::elementwise::kUnarySupports<UnaryOp::enumerator, C>;
      OFLITE_UNARY_OP_LIST(OFLITE_TEST_CASE)
#undef OFLITE_TEST_CASE
    }
    return false;
  });
}

// Relative tolerance of a floating result: the kernels compute 16-bit types in float and round
// once at the end (so at most one unit in the last place from the rounded reference), float
// with float's library functions (a few ulps), double in double. Integers and bool are exact.
double Tolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64:
      return 1e-12;
    case DataType::kFloat32:
      return 1e-5;
    case DataType::kFloat16:
      return 1.01 * std::ldexp(1.0, -10);
    case DataType::kBFloat16:
      return 1.01 * std::ldexp(1.0, -7);
    default:
      return 0;
  }
}

double Floor(DataType dtype) { return IsFloatingDataType(dtype) ? SmallestNormal(dtype) : 0; }

// Integer-valued uniform values in [lo, hi].
std::vector<double> RandomIntegers(size_t count, uint64_t seed, int64_t lo, int64_t hi) {
  std::mt19937_64 engine(seed);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  std::vector<double> values(count);
  for (double& v : values) {
    v = static_cast<double>(dist(engine));
  }
  return values;
}

// Operand values for a binary op: in the dtype's range, small enough that the exact result is
// exact in double (so wrapping can be computed from it), exponents of integer pow non-negative.
std::vector<double> BinaryInputs(BinaryOp op, DataType dtype, size_t count, uint64_t seed,
                                 bool exponent) {
  const bool pow = op == BinaryOp::kPow;
  switch (dtype) {
    case DataType::kBool:
      return RandomIntegers(count, seed, 0, 1);
    case DataType::kInt8:
      return pow ? RandomIntegers(count, seed, exponent ? 0 : -5, exponent ? 6 : 5)
                 : RandomIntegers(count, seed, -128, 127);
    case DataType::kUInt8:
      return pow ? RandomIntegers(count, seed, 0, exponent ? 6 : 5)
                 : RandomIntegers(count, seed, 0, 255);
    case DataType::kInt32:
      return pow ? RandomIntegers(count, seed, exponent ? 0 : -5, exponent ? 12 : 5)
                 : RandomIntegers(count, seed, -(int64_t{1} << 26), int64_t{1} << 26);
    case DataType::kInt64:
      return pow ? RandomIntegers(count, seed, exponent ? 0 : -5, exponent ? 20 : 5)
                 : RandomIntegers(count, seed, -(int64_t{1} << 26), int64_t{1} << 26);
    default:
      return RoundTo(RandomValues(count, seed), dtype);
  }
}

// The scale of the terms whose difference the gradients (and gelu) compute: cancellation
// leaves an absolute error of a few ulps of these, however small the result.
double BinaryScale(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::kSigmoidGrad:
    case BinaryOp::kTanhGrad:
    case BinaryOp::kGeluGrad:
    case BinaryOp::kGeluTanhGrad:
    case BinaryOp::kSiluGrad:
      return std::abs(a) * (1 + b * b);
    default:
      return 0;
  }
}

double UnaryScale(UnaryOp op, double x) {
  return (op == UnaryOp::kGelu || op == UnaryOp::kGeluTanh) ? std::abs(x) : 0;
}

// For each element of the broadcast shape dst, the linear index of the element of src (right-
// aligned, size-1 dims broadcast) that it reads.
std::vector<int64_t> SourceIndices(const Shape& dst, const Shape& src) {
  const int64_t rank = dst.rank(), offset = dst.rank() - src.rank();
  std::vector<int64_t> indices(static_cast<size_t>(dst.elem_cnt()));
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (size_t i = 0; i < indices.size(); ++i) {
    int64_t index = 0;
    for (int64_t d = 0; d < src.rank(); ++d) {
      index = index * src[d] + (src[d] == 1 ? 0 : coord[static_cast<size_t>(d + offset)]);
    }
    indices[i] = index;
    for (int64_t d = rank - 1; d >= 0; --d) {  // next coordinate, row-major
      if (++coord[static_cast<size_t>(d)] < dst[d]) {
        break;
      }
      coord[static_cast<size_t>(d)] = 0;
    }
  }
  return indices;
}

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

// A device tensor `offset` elements past the start of a poisoned allocation (allocations are
// aligned far beyond 16 bytes), followed by kGuardBytes of poison: offset 1 gives a tensor
// whose data is not 16-byte aligned. Download checks that the poison around the tensor
// survived.
class DeviceBuffer {
 public:
  DeviceBuffer(const Shape& shape, DataType dtype, size_t offset)
      : dtype_(dtype),
        offset_bytes_(offset * DataTypeSize(dtype)),
        bytes_(static_cast<size_t>(shape.elem_cnt()) * DataTypeSize(dtype)) {
    const size_t total = offset_bytes_ + bytes_ + kGuardBytes;
    block_ = Unwrap(
        Tensor::Empty(Shape{static_cast<int64_t>(total)}, DataType::kUInt8, Device::Cuda(0)));
    const std::vector<uint8_t> poison(total, kPoison);
    CopyBytes(primitive::MemcpyKind::kHostToDevice, block_.mut_data(), poison.data(), total);
    view_ = Unwrap(Tensor::FromStorage(
        std::make_shared<Storage>(nullptr, static_cast<char*>(block_.mut_data()) + offset_bytes_,
                                  bytes_, Device::Cuda(0)),
        shape, dtype));
  }

  void* data() const { return static_cast<char*>(block_.mut_data()) + offset_bytes_; }

  // values must be representable in the dtype (they are converted with static_cast).
  void Upload(const std::vector<double>& values) {
    const Tensor host = MakeTensor(values, view_.shape(), dtype_);
    std::vector<uint8_t> bytes(bytes_);
    ASSERT_TRUE(host.CopyToHost(bytes.data(), bytes.size()).ok());
    CopyBytes(primitive::MemcpyKind::kHostToDevice, data(), bytes.data(), bytes_);
  }

  // The elements as doubles (a bool byte other than 0 or 1, e.g. poison, reads as NaN), after
  // checking the guards.
  std::vector<double> Download(const std::string& context) const {
    const size_t total = offset_bytes_ + bytes_ + kGuardBytes;
    std::vector<uint8_t> bytes(total);
    CopyBytes(primitive::MemcpyKind::kDeviceToHost, bytes.data(), block_.data(), total);
    const auto poisoned = [&](size_t begin, size_t end) {
      return std::all_of(bytes.begin() + begin, bytes.begin() + end,
                         [](uint8_t b) { return b == kPoison; });
    };
    EXPECT_TRUE(poisoned(0, offset_bytes_)) << context << ": wrote before the tensor";
    EXPECT_TRUE(poisoned(offset_bytes_ + bytes_, total)) << context << ": wrote past the tensor";
    const size_t esize = DataTypeSize(dtype_);
    std::vector<double> values(bytes_ / esize);
    VisitDataType(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (size_t i = 0; i < values.size(); ++i) {
        const uint8_t* p = bytes.data() + offset_bytes_ + i * esize;
        if constexpr (std::is_same_v<T, bool>) {
          values[i] = *p == 0 ? 0.0 : *p == 1 ? 1.0 : std::nan("");
        } else {
          T v;
          std::memcpy(&v, p, sizeof(T));
          values[i] = static_cast<double>(v);
        }
      }
    });
    return values;
  }

 private:
  DataType dtype_;
  size_t offset_bytes_, bytes_;
  Tensor block_, view_;
};

class CudaElementwiseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ep::DeviceCount(DeviceType::kCUDA) == 0) {
      GTEST_SKIP() << "no CUDA device visible";
    }
  }
};

struct Offsets {
  size_t src0 = 0, src1 = 0, dst = 0;
};

// Runs op on inputs of shapes a and b (with the given element offsets) and checks the result
// against the reference; returns the launch description.
std::string CheckBinary(BinaryOp op, DataType dtype, const Shape& a, const Shape& b, uint64_t seed,
                        Offsets offsets = {}, double attr = 0.25) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  const DataType out_dtype = primitive::IsComparison(op) ? DataType::kBool : dtype;
  const Shape dst(Unwrap(primitive::BroadcastShape(a.dims(), b.dims())));
  const std::string context = std::string(primitive::BinaryOpName(op)) + " " + DataTypeName(dtype) +
                              " " + a.ToString() + " x " + b.ToString() + " offsets " +
                              std::to_string(offsets.src0) + "," + std::to_string(offsets.src1) +
                              "," + std::to_string(offsets.dst);
  auto binary = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCUDA, op, dtype, out_dtype, static_cast<size_t>(std::max(a.rank(), b.rank())),
      attr);
  if (binary == nullptr) {
    ADD_FAILURE() << context << ": no primitive";
    return "";
  }
  std::vector<double> x = BinaryInputs(op, dtype, static_cast<size_t>(a.elem_cnt()), seed, false);
  std::vector<double> y =
      BinaryInputs(op, dtype, static_cast<size_t>(b.elem_cnt()), seed + 1, true);
  if (a == b && op != BinaryOp::kPow) {
    for (size_t i = 0; i < x.size(); i += 5) {
      y[i] = x[i];  // ties, for the comparisons, maximum and minimum
    }
  }
  DeviceBuffer x_buffer(a, dtype, offsets.src0), y_buffer(b, dtype, offsets.src1),
      out_buffer(dst, out_dtype, offsets.dst);
  x_buffer.Upload(x);
  y_buffer.Upload(y);
  const Maybe<void> launched =
      binary->Launch(CudaStream(), a.rank(), a.dims().data(), x_buffer.data(), b.rank(),
                     b.dims().data(), y_buffer.data(), out_buffer.data());
  EXPECT_TRUE(launched.ok()) << context << ": "
                             << (launched.ok() ? "" : launched.error().ToString());
  EXPECT_TRUE(CudaStream()->Sync().ok());
  const std::vector<int64_t> ia = SourceIndices(dst, a), ib = SourceIndices(dst, b);
  std::vector<double> expected(ia.size()), scale(ia.size());
  for (size_t i = 0; i < ia.size(); ++i) {
    const double va = x[static_cast<size_t>(ia[i])], vb = y[static_cast<size_t>(ib[i])];
    expected[i] = ReferenceStore(ReferenceBinary(op, va, vb, attr), out_dtype);
    scale[i] = BinaryScale(op, va, vb);
  }
  const std::string launch = notes.Describe(*binary);
  ExpectAllClose(out_buffer.Download(context), expected, Tolerance(out_dtype),
                 context + " " + launch, Floor(out_dtype), scale);
  return launch;
}

std::string Name(BinaryOp op, DataType dtype) {
  return std::string("cuda.broadcast_elementwise_binary<") + primitive::BinaryOpName(op) + "," +
         DataTypeName(dtype) + ">";
}

// Elements per 16-byte access of a binary op's kernels.
int BinaryPack(BinaryOp op, DataType dtype) {
  const size_t out = primitive::IsComparison(op) ? 1 : DataTypeSize(dtype);
  return static_cast<int>(16 / std::max(out, DataTypeSize(dtype)));
}

TEST_F(CudaElementwiseTest, EveryBinaryOpAndDtypeOnSameShapes) {
  for (BinaryOp op : kBinaryOps) {
    for (DataType dtype : AllDataTypes()) {
      const DataType out_dtype = primitive::IsComparison(op) ? DataType::kBool : dtype;
      auto binary = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
          DeviceType::kCUDA, op, dtype, out_dtype, 1, 0.0);
      const std::string what = std::string(primitive::BinaryOpName(op)) + " " + DataTypeName(dtype);
      if (!BinarySupported(op, dtype)) {
        EXPECT_EQ(binary, nullptr) << what;
        continue;
      }
      ASSERT_NE(binary, nullptr) << what;
      EXPECT_EQ(binary->name(), Name(op, dtype));
      // A wrong dst dtype is refused.
      EXPECT_EQ(primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
                    DeviceType::kCUDA, op, dtype,
                    out_dtype == DataType::kInt32 ? DataType::kInt64 : DataType::kInt32, 1, 0.0),
                nullptr)
          << what;
      for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{1031}, (int64_t{1} << 20) + 3}) {
        const std::string launch =
            CheckBinary(op, dtype, Shape{n}, Shape{n}, static_cast<uint64_t>(n) + 17);
        EXPECT_EQ(launch,
                  Name(op, dtype) + "[packed pack=" + std::to_string(BinaryPack(op, dtype)) + "]");
      }
    }
  }
}

TEST_F(CudaElementwiseTest, IntegerPowWithNegativeExponents) {
  // 1 / a^-b truncated: 1 for a = 1, +-1 for a = -1, 0 otherwise, 0 to a negative power too.
  auto pow = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCUDA, BinaryOp::kPow, DataType::kInt32, DataType::kInt32, 1, 0.0);
  ASSERT_NE(pow, nullptr);
  const std::vector<double> a = {1, -1, -1, 2, 0, -3, 5, 2};
  const std::vector<double> b = {-5, -3, -4, -1, -1, -2, 0, 30};
  const std::vector<double> expected = {1, -1, 1, 0, 0, 0, 1, 1073741824};
  const Shape shape{static_cast<int64_t>(a.size())};
  DeviceBuffer x(shape, DataType::kInt32, 0), y(shape, DataType::kInt32, 0),
      out(shape, DataType::kInt32, 0);
  x.Upload(a);
  y.Upload(b);
  ASSERT_TRUE(pow->Launch(CudaStream(), 1, shape.dims().data(), x.data(), 1, shape.dims().data(),
                          y.data(), out.data())
                  .ok());
  EXPECT_EQ(out.Download("int32 pow"), expected);
}

TEST_F(CudaElementwiseTest, UnalignedTensorsTakeTheIndexPathAndAreRight) {
  for (DataType dtype : {DataType::kFloat32, DataType::kFloat16, DataType::kInt8,
                         DataType::kFloat64, DataType::kBool}) {
    for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul, BinaryOp::kGt}) {
      for (const Offsets& offsets : {Offsets{1, 0, 0}, Offsets{0, 1, 0}, Offsets{0, 0, 1}}) {
        for (int64_t n : {int64_t{7}, int64_t{1031}, int64_t{100003}}) {
          const std::string launch = CheckBinary(op, dtype, Shape{n}, Shape{n}, 5, offsets);
          EXPECT_EQ(launch, Name(op, dtype) + "[index32]");
        }
      }
      // All pointers equally unaligned still cannot use 16-byte packs.
      CheckBinary(op, dtype, Shape{513}, Shape{513}, 6, Offsets{1, 1, 1});
      // A scalar operand, misaligned itself, does not stop packs; a misaligned tensor does.
      EXPECT_EQ(CheckBinary(op, dtype, Shape{1031}, Shape{}, 7, Offsets{0, 1, 0}),
                Name(op, dtype) + "[scalar pack=" + std::to_string(BinaryPack(op, dtype)) + "]");
      EXPECT_EQ(CheckBinary(op, dtype, Shape{1031}, Shape{}, 7, Offsets{1, 0, 0}),
                Name(op, dtype) + "[index32]");
    }
  }
}

struct BroadcastCase {
  Shape a, b;
  std::string float32_path;  // the path float32 add takes ("" where not checked)
};

const BroadcastCase kBroadcastCases[] = {
    {Shape{3, 1}, Shape{1, 4}, "rank2 pack=4"},
    {Shape{3, 1}, Shape{1, 5}, "index32"},  // 5 % 4 != 0
    {Shape{2, 1, 5}, Shape{3, 1}, "index32"},
    {Shape{}, Shape{5, 7}, "scalar pack=4"},
    {Shape{5, 7}, Shape{}, "scalar pack=4"},
    {Shape{1, 1}, Shape{3, 4}, "scalar pack=4"},
    {Shape{}, Shape{}, "packed pack=4"},
    {Shape{37, 64}, Shape{37, 1}, "rank2 pack=4"},  // (8192, 8192) + (8192, 1), smaller
    {Shape{37, 1}, Shape{37, 64}, "rank2 pack=4"},
    {Shape{37, 64}, Shape{64}, "rank2 pack=4"},  // (8192, 8192) + (8192,)
    {Shape{64}, Shape{37, 64}, "rank2 pack=4"},
    {Shape{37, 61}, Shape{37, 1}, "index32"},  // rows of 61 cannot start aligned
    {Shape{37, 61}, Shape{61}, "index32"},
    {Shape{4, 1, 3, 64}, Shape{4, 1, 64}, "index32"},  // four dims, broadcast alternating
    {Shape{6, 5, 64}, Shape{5, 64}, "rank2 pack=4"},   // -> (6, 320) + (1, 320)
    {Shape{2, 3, 4, 5, 6, 7}, Shape{3, 1, 5, 1, 7}, "index32"},
    {Shape{2, 1, 2, 1, 2, 1, 2, 1}, Shape{1, 3, 1, 3, 1, 3, 1, 3}, "index32"},  // 8 dims
};

TEST_F(CudaElementwiseTest, BroadcastShapesTakeTheirPathsAndAreRight) {
  for (const BroadcastCase& c : kBroadcastCases) {
    for (DataType dtype : AllDataTypes()) {
      const std::string launch = CheckBinary(BinaryOp::kAdd, dtype, c.a, c.b, 11);
      if (dtype == DataType::kFloat32 && !c.float32_path.empty()) {
        EXPECT_EQ(launch, Name(BinaryOp::kAdd, dtype) + "[" + c.float32_path + "]")
            << c.a << " x " << c.b;
      }
    }
    // Operand order matters for these.
    for (BinaryOp op : {BinaryOp::kSub, BinaryOp::kLt, BinaryOp::kDiv, BinaryOp::kPow,
                        BinaryOp::kGeluGrad, BinaryOp::kLeakyReluGrad}) {
      for (DataType dtype :
           {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64}) {
        CheckBinary(op, dtype, c.a, c.b, 12);
      }
    }
    CheckBinary(BinaryOp::kSub, DataType::kInt32, c.a, c.b, 13);
    CheckBinary(BinaryOp::kGe, DataType::kUInt8, c.a, c.b, 14);
  }
}

TEST_F(CudaElementwiseTest, BiasShapesPackInEveryDtype) {
  // The shapes, smaller: a column or a row broadcast over a matrix whose rows hold
  // whole packs take the rank2 path in every dtype.
  for (DataType dtype : AllDataTypes()) {
    for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul, BinaryOp::kEq}) {
      const std::string pack = std::to_string(BinaryPack(op, dtype));
      EXPECT_EQ(CheckBinary(op, dtype, Shape{129, 256}, Shape{129, 1}, 21),
                Name(op, dtype) + "[rank2 pack=" + pack + "]");
      EXPECT_EQ(CheckBinary(op, dtype, Shape{129, 256}, Shape{256}, 22),
                Name(op, dtype) + "[rank2 pack=" + pack + "]");
      EXPECT_EQ(CheckBinary(op, dtype, Shape{129, 1}, Shape{1, 256}, 23),
                Name(op, dtype) + "[rank2 pack=" + pack + "]");
      // Misaligned matrix: the index path.
      EXPECT_EQ(CheckBinary(op, dtype, Shape{129, 256}, Shape{256}, 24, Offsets{1, 0, 0}),
                Name(op, dtype) + "[index32]");
      // A misaligned column is read one element a row: still packed.
      EXPECT_EQ(CheckBinary(op, dtype, Shape{129, 256}, Shape{129, 1}, 25, Offsets{0, 1, 0}),
                Name(op, dtype) + "[rank2 pack=" + pack + "]");
    }
  }
}

TEST_F(CudaElementwiseTest, EmptyTensorsLaunchNothing) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{{Shape{0}, Shape{0}},
                                                                 {Shape{0, 5}, Shape{1, 5}},
                                                                 {Shape{0}, Shape{}},
                                                                 {Shape{3, 0}, Shape{3, 1}}}) {
    for (DataType dtype : {DataType::kFloat32, DataType::kInt8}) {
      auto add = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
          DeviceType::kCUDA, BinaryOp::kAdd, dtype, dtype, 2, 0.0);
      ASSERT_NE(add, nullptr);
      const Shape dst(Unwrap(primitive::BroadcastShape(a.dims(), b.dims())));
      DeviceBuffer x(a, dtype, 0), y(b, dtype, 0), out(dst, dtype, 0);
      ASSERT_TRUE(add->Launch(CudaStream(), a.rank(), a.dims().data(), x.data(), b.rank(),
                              b.dims().data(), y.data(), out.data())
                      .ok());
      EXPECT_EQ(notes.Describe(*add), add->name());
      EXPECT_TRUE(out.Download("empty").empty());
    }
  }
  auto relu = primitive::NewPrimitive<primitive::ElementwiseUnaryFactory>(
      DeviceType::kCUDA, UnaryOp::kRelu, DataType::kFloat32, 0.0);
  auto cast = primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCUDA, DataType::kFloat32,
                                                              DataType::kFloat16);
  ASSERT_NE(relu, nullptr);
  ASSERT_NE(cast, nullptr);
  DeviceBuffer buffer(Shape{1}, DataType::kFloat32, 0);
  EXPECT_TRUE(relu->Launch(CudaStream(), buffer.data(), buffer.data(), 0).ok());
  EXPECT_TRUE(cast->Launch(CudaStream(), buffer.data(), buffer.data(), 0).ok());
  EXPECT_EQ(notes.Describe(*relu), relu->name());
  EXPECT_EQ(notes.Describe(*cast), cast->name());
  float poison = 0;
  const uint8_t poison_bytes[4] = {kPoison, kPoison, kPoison, kPoison};
  std::memcpy(&poison, poison_bytes, sizeof(poison));
  EXPECT_EQ(buffer.Download("empty unary and cast"), std::vector<double>{poison});
}

TEST_F(CudaElementwiseTest, BadLaunchesAreErrors) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  auto add = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCUDA, BinaryOp::kAdd, DataType::kFloat32, DataType::kFloat32, 10, 0.0);
  ASSERT_NE(add, nullptr);
  float x = 0;
  const int64_t one = 1;
  ExpectError(add->Launch(Unwrap(ep::GetDevice(Device::Cpu()))->default_stream(), 1, &one, &x, 1,
                          &one, &x, &x),
              ErrorKind::kValueError,
              {"cuda.broadcast_elementwise_binary<add,float32>", "needs a cuda stream"});
  // Operands alternating their broadcast axis ten times simplify to ten dims: the index path
  // takes up to 16, the most rank any factory accepts (as on the CPU).
  const std::vector<int64_t> a = {2, 1, 2, 1, 2, 1, 2, 1, 2, 1};
  const std::vector<int64_t> b = {1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
  DeviceBuffer xa(Shape(a), DataType::kFloat32, 0), xb(Shape(b), DataType::kFloat32, 0),
      out(Shape(std::vector<int64_t>(10, 2)), DataType::kFloat32, 0);
  EXPECT_TRUE(add->Launch(CudaStream(), a.size(), a.data(), xa.data(), b.size(), b.data(),
                          xb.data(), out.data())
                  .ok());
  const std::string launch = notes.Describe(*add);  // takes the note: read it once
  EXPECT_NE(launch.find("[index32]"), std::string::npos) << launch;
  EXPECT_EQ(primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
                DeviceType::kCUDA, BinaryOp::kAdd, DataType::kFloat32, DataType::kFloat32, 17, 0.0),
            nullptr);
  // Above the factory's max rank.
  const std::vector<int64_t> big(11, 1);
  ExpectError(
      add->Launch(CudaStream(), big.size(), big.data(), xa.data(), 1, &one, xb.data(), out.data()),
      ErrorKind::kValueError, {"rank"});
  // Shapes that do not broadcast.
  const int64_t three = 3, four = 4;
  ExpectError(add->Launch(CudaStream(), 1, &three, xa.data(), 1, &four, xb.data(), out.data()),
              ErrorKind::kValueError, {"do not broadcast"});
}

// ---- unary --------------------------------------------------------------------------------

std::vector<double> UnaryInputs(DataType dtype, size_t count, uint64_t seed) {
  std::vector<double> values;
  switch (dtype) {
    case DataType::kBool:
      return RandomIntegers(count, seed, 0, 1);
    case DataType::kInt8:
      values = RandomIntegers(count, seed, -128, 127);
      values[0] = -128;  // negates to itself
      break;
    case DataType::kUInt8:
      return RandomIntegers(count, seed, 0, 255);
    case DataType::kInt32:
      values = RandomIntegers(count, seed, INT32_MIN, INT32_MAX);
      values[0] = INT32_MIN;
      break;
    case DataType::kInt64:
      values = RandomIntegers(count, seed, -(int64_t{1} << 52), int64_t{1} << 52);
      values[0] = std::ldexp(-1.0, 63);
      break;
    default: {
      values = RoundTo(RandomValues(count, seed), dtype);
      const double inf = std::numeric_limits<double>::infinity();
      const double specials[] = {std::nan(""), inf, -inf, 0.0, -0.0, 1e-3, 3000.0, -3000.0};
      for (size_t i = 0; i < std::size(specials) && i < count; ++i) {
        values[i] = ReferenceCast(specials[i], dtype);
      }
      break;
    }
  }
  return values;
}

std::string CheckUnary(UnaryOp op, DataType dtype, int64_t n, size_t offset, uint64_t seed,
                       double attr = 0.125) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  const std::string context = std::string(primitive::UnaryOpName(op)) + " " + DataTypeName(dtype) +
                              " n " + std::to_string(n) + " offset " + std::to_string(offset);
  auto unary = primitive::NewPrimitive<primitive::ElementwiseUnaryFactory>(DeviceType::kCUDA, op,
                                                                           dtype, attr);
  if (unary == nullptr) {
    ADD_FAILURE() << context << ": no primitive";
    return "";
  }
  const std::vector<double> x = UnaryInputs(dtype, static_cast<size_t>(n), seed);
  DeviceBuffer in(Shape{n}, dtype, offset), out(Shape{n}, dtype, offset);
  in.Upload(x);
  const Maybe<void> launched =
      unary->Launch(CudaStream(), in.data(), out.data(), static_cast<size_t>(n));
  EXPECT_TRUE(launched.ok()) << context << ": "
                             << (launched.ok() ? "" : launched.error().ToString());
  EXPECT_TRUE(CudaStream()->Sync().ok());
  std::vector<double> expected(x.size()), scale(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    expected[i] = ReferenceStore(ReferenceUnary(op, x[i], attr), dtype);
    scale[i] = UnaryScale(op, x[i]);
  }
  const std::string launch = notes.Describe(*unary);
  ExpectAllClose(out.Download(context), expected, Tolerance(dtype), context + " " + launch,
                 Floor(dtype), scale);
  return launch;
}

TEST_F(CudaElementwiseTest, EveryUnaryOpAndDtype) {
  for (UnaryOp op : kUnaryOps) {
    for (DataType dtype : AllDataTypes()) {
      auto unary = primitive::NewPrimitive<primitive::ElementwiseUnaryFactory>(DeviceType::kCUDA,
                                                                               op, dtype, 0.0);
      const std::string what = std::string(primitive::UnaryOpName(op)) + " " + DataTypeName(dtype);
      if (!UnarySupported(op, dtype)) {
        EXPECT_EQ(unary, nullptr) << what;
        continue;
      }
      ASSERT_NE(unary, nullptr) << what;
      const std::string name = std::string("cuda.elementwise_unary<") + primitive::UnaryOpName(op) +
                               "," + DataTypeName(dtype) + ">";
      EXPECT_EQ(unary->name(), name);
      const std::string pack = std::to_string(16 / DataTypeSize(dtype));
      for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{1031}, (int64_t{1} << 20) + 3}) {
        EXPECT_EQ(CheckUnary(op, dtype, n, 0, static_cast<uint64_t>(n) + 3),
                  name + "[pack=" + pack + "]");
      }
      EXPECT_EQ(CheckUnary(op, dtype, 1031, 1, 4), name + "[pack=1]");
    }
  }
}

// ---- cast ---------------------------------------------------------------------------------

// Source values each dtype can hold exactly (as doubles), with the cases that matter for
// conversions: ties of 16-bit rounding, values just off ties, saturation, NaN and infinities.
std::vector<double> CastInputs(DataType from) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (from) {
    case DataType::kBool:
      return {0, 1, 1, 0};
    case DataType::kInt8:
      return {-128, -127, -1, 0, 1, 7, 100, 127};
    case DataType::kUInt8:
      return {0, 1, 7, 127, 128, 200, 255};
    case DataType::kInt32:
      return {-2147483648.0, -65520, -65504, -4097, -1,    0,     1,        255,      256,
              300,           2049,   2051,   65504, 65519, 65520, 16777217, 16777219, 2147483647.0};
    case DataType::kInt64:
      return {std::ldexp(-1.0, 63),
              -std::ldexp(1.0, 53) - 2,
              -3000000000.0,
              -129,
              0,
              257,
              16777217,
              std::ldexp(1.0, 53) + 2,
              std::ldexp(1.0, 62) + std::ldexp(1.0, 20)};
    default: {
      const std::vector<double> values = {
          0.0, -0.0, 0.1, -0.5, 0.5, 1.5, 2.5, -2.5, 1.0 / 3.0, 100.7, -100.7, 127.0, 127.5, 128.0,
          -128.0, -128.5, -129.0, 255.0, 255.5, 256.0, 300.0, -300.0,
          // float16: a tie above 1 (1 + 2^-11) and just above it; the largest finite value,
          // the last value that rounds to it and the first that overflows.
          1.0 + std::ldexp(1.0, -11), 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 65504.0,
          65519.99, 65520.0,
          // bfloat16: a tie above 1 (1 + 2^-8) and just above it.
          1.0 + std::ldexp(1.0, -8), 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30),
          // float16 subnormals, and below the smallest.
          6e-8, 3e-5, 1e-9, -1e-9, 1e5, -1e5, 3e9, -3e9, 2147483648.0, -2147483648.0, -2147483904.0,
          1e19, -1e19, std::ldexp(1.0, 63), 1e39, -1e39, 1e300, inf, -inf, std::nan("")};
      return RoundTo(values, from);
    }
  }
}

TEST_F(CudaElementwiseTest, EveryCastOnSpecialValues) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  for (DataType from : AllDataTypes()) {
    for (DataType to : AllDataTypes()) {
      const std::string context = std::string(DataTypeName(from)) + " -> " + DataTypeName(to);
      auto cast = primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCUDA, from, to);
      ASSERT_NE(cast, nullptr) << context;
      const std::string name =
          std::string("cuda.cast<") + DataTypeName(from) + "," + DataTypeName(to) + ">";
      EXPECT_EQ(cast->name(), name);
      const std::vector<double> base = CastInputs(from);
      for (size_t offset : {size_t{0}, size_t{1}}) {
        // The values repeated past one pack and a tail, so that every path sees each value.
        std::vector<double> x;
        for (int r = 0; r < 9; ++r) {
          x.insert(x.end(), base.begin(), base.end());
        }
        x.resize(x.size() - 1);
        const int64_t n = static_cast<int64_t>(x.size());
        DeviceBuffer in(Shape{n}, from, offset), out(Shape{n}, to, offset);
        in.Upload(x);
        ASSERT_TRUE(cast->Launch(CudaStream(), in.data(), out.data(), x.size()).ok()) << context;
        ASSERT_TRUE(CudaStream()->Sync().ok());
        std::vector<double> expected(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
          expected[i] = ReferenceCast(x[i], from, to);
        }
        const std::string launch = notes.Describe(*cast);  // takes the note: read it once
        ExpectAllClose(out.Download(context), expected, 0,
                       context + " offset " + std::to_string(offset) + " " + launch);
        const std::string pack =
            from == to
                ? "copy"
                : "pack=" + std::to_string(offset == 0
                                               ? 16 / std::max(DataTypeSize(from), DataTypeSize(to))
                                               : 1);
        EXPECT_EQ(launch, name + "[" + pack + "]");
      }
    }
  }
}

// int64 past 2^53 rounds once, from the integer, into float16, bfloat16 and float32 (the
// reference rounds in integer arithmetic).
TEST_F(CudaElementwiseTest, Int64CastsRoundOnce) {
  const std::vector<int64_t> values = Int64RoundingCases(20261201);
  const int64_t n = static_cast<int64_t>(values.size());
  const Tensor x = Unwrap(Unwrap(Tensor::FromVector(values, Shape({n}))).To(Device::Cuda(0)));
  for (DataType to : {DataType::kBFloat16, DataType::kFloat16, DataType::kFloat32}) {
    auto cast =
        primitive::NewPrimitive<primitive::CastFactory>(DeviceType::kCUDA, DataType::kInt64, to);
    ASSERT_NE(cast, nullptr);
    const Tensor y = Unwrap(Tensor::Empty(Shape({n}), to, Device::Cuda(0)));
    ASSERT_TRUE(cast->Launch(CudaStream(), x.data(), y.mut_data(), values.size()).ok());
    const std::vector<double> got = ToDoubles(Unwrap(y.To(Device::Cpu())));
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(got[i], ReferenceCastInt64(values[i], to)) << values[i] << " -> " << to;
    }
  }
}

// ---- sizes --------------------------------------------------------------------------------

TEST_F(CudaElementwiseTest, GridStrideCoversMoreThanOneWave) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  // 2^28 + 5 int8 elements: 2^24 packs of 16, more than a grid of 32 waves has threads.
  const int64_t n = (int64_t{1} << 28) + 5;
  auto add = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCUDA, BinaryOp::kAdd, DataType::kInt8, DataType::kInt8, 1, 0.0);
  ASSERT_NE(add, nullptr);
  std::vector<int8_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int8_t>(i % 251);
    b[i] = static_cast<int8_t>((i * 7) % 13);
  }
  const Tensor x = Unwrap(Tensor::FromVector(a, Shape{n}, Device::Cuda(0)));
  const Tensor y = Unwrap(Tensor::FromVector(b, Shape{n}, Device::Cuda(0)));
  const Tensor out = Unwrap(Tensor::Empty(Shape{n}, DataType::kInt8, Device::Cuda(0)));
  ASSERT_TRUE(add->Launch(CudaStream(), 1, &n, x.data(), 1, &n, y.data(), out.mut_data()).ok());
  EXPECT_EQ(notes.Describe(*add), Name(BinaryOp::kAdd, DataType::kInt8) + "[packed pack=16]");
  const std::vector<int8_t> back = Unwrap(out.ToVector<int8_t>());
  size_t wrong = 0;
  for (size_t i = 0; i < back.size(); ++i) {
    wrong +=
        back[i] != static_cast<int8_t>(static_cast<uint8_t>(a[i]) + static_cast<uint8_t>(b[i]));
  }
  EXPECT_EQ(wrong, 0u);
}

// More than 2^31 elements: the packed path in chunks, the rank2 path in row chunks and the
// 64-bit index path. Large (several GB): runs only with OFLITE_LARGE_TESTS=1.
TEST_F(CudaElementwiseTest, LargeTensorsBeyondTwoToThe31Elements) {
  primitive::LaunchNotes notes;  // what each launch chose, as a trace sees it
  if (std::getenv("OFLITE_LARGE_TESTS") == nullptr) {
    GTEST_SKIP() << "set OFLITE_LARGE_TESTS=1";
  }
  const int64_t rows = (int64_t{1} << 30) + 32, cols = 2;  // 2^31 + 64 elements
  const int64_t n = rows * cols;
  std::vector<int8_t> a(static_cast<size_t>(n));
  std::vector<int8_t> column(static_cast<size_t>(rows));
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int8_t>(i % 251);
  }
  for (size_t r = 0; r < column.size(); ++r) {
    column[r] = static_cast<int8_t>((r * 7) % 13);
  }
  auto add = primitive::NewPrimitive<primitive::BroadcastElementwiseBinaryFactory>(
      DeviceType::kCUDA, BinaryOp::kAdd, DataType::kInt8, DataType::kInt8, 2, 0.0);
  ASSERT_NE(add, nullptr);
  const Tensor x = Unwrap(Tensor::FromVector(a, Shape{n}, Device::Cuda(0)));
  const Tensor c = Unwrap(Tensor::FromVector(column, Shape{rows}, Device::Cuda(0)));
  const Tensor out = Unwrap(Tensor::Empty(Shape{n}, DataType::kInt8, Device::Cuda(0)));
  const auto check = [&](const std::string& what, auto expected_at) {
    const std::vector<int8_t> back = Unwrap(out.ToVector<int8_t>());
    size_t wrong = 0;
    for (size_t i = 0; i < back.size(); ++i) {
      wrong += back[i] != expected_at(i);
    }
    EXPECT_EQ(wrong, 0u) << what;
  };
  // Same shape: packed, in chunks of 2^30 elements.
  ASSERT_TRUE(add->Launch(CudaStream(), 1, &n, x.data(), 1, &n, x.data(), out.mut_data()).ok());
  EXPECT_EQ(notes.Describe(*add), Name(BinaryOp::kAdd, DataType::kInt8) + "[packed pack=16]");
  check("packed", [&](size_t i) { return static_cast<int8_t>(2 * static_cast<uint8_t>(a[i])); });
  // (rows, 2) + (rows, 1): rows of 2 hold no pack of 16, so the 64-bit index path.
  const int64_t matrix[] = {rows, cols}, col_dims[] = {rows, 1};
  ASSERT_TRUE(
      add->Launch(CudaStream(), 2, matrix, x.data(), 2, col_dims, c.data(), out.mut_data()).ok());
  EXPECT_EQ(notes.Describe(*add), Name(BinaryOp::kAdd, DataType::kInt8) + "[index64]");
  const auto with_column = [&](size_t i) {
    return static_cast<int8_t>(static_cast<uint8_t>(a[i]) +
                               static_cast<uint8_t>(column[i / static_cast<size_t>(cols)]));
  };
  check("index64", with_column);
  // (n / 64, 64) + (n / 64, 1): rank2 in row chunks.
  const int64_t wide[] = {n / 64, 64}, wide_col[] = {n / 64, 1};
  ASSERT_EQ(n % 64, 0);
  ASSERT_TRUE(
      add->Launch(CudaStream(), 2, wide, x.data(), 2, wide_col, c.data(), out.mut_data()).ok());
  EXPECT_EQ(notes.Describe(*add), Name(BinaryOp::kAdd, DataType::kInt8) + "[rank2 pack=16]");
  check("rank2", [&](size_t i) {
    return static_cast<int8_t>(static_cast<uint8_t>(a[i]) + static_cast<uint8_t>(column[i / 64]));
  });
}

}  // namespace
}  // namespace test
}  // namespace oflite
