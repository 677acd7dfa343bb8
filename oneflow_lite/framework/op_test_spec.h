// OpTestSpec: how `oflite optest` proves an op. Each op registers one next to its schema:
// a generator of valid random cases per dtype, a reference written plainly in double
// precision (independent of the primitives), tolerances, and generated invalid cases with the
// error kind each must give.
//
//   OpTestSpec SoftmaxTestSpec() {
//     OpTestSpec spec;
//     spec.dtypes = {DataType::kFloat32, ...};
//     spec.generate = [](DataType dtype, CaseRng& rng) { ... return OpCase{...}; };
//     spec.reference = [](const OpCase& c) -> Maybe<std::vector<HostTensor>> { ... };
//     spec.invalid = [](DataType dtype, CaseRng& rng) { ... };
//     return spec;
//   }
//   OFLITE_REGISTER_OP_TEST(kSoftmaxOp, SoftmaxTestSpec());
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_TEST_SPEC_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_TEST_SPEC_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/error.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/common/snapshot_cell.h"
#include "oneflow_lite/framework/attr_map.h"

namespace oflite {

// The random source a case is drawn from; one per case, seeded, so a seed reproduces it.
class CaseRng {
 public:
  explicit CaseRng(uint64_t seed) : engine_(seed) {}

  int64_t Int(int64_t lo, int64_t hi);   // uniform in [lo, hi]
  double Uniform(double lo, double hi);  // uniform in [lo, hi)
  bool Chance(double p);                 // true with probability p
  Shape RandomShape(int64_t min_rank, int64_t max_rank, int64_t min_dim, int64_t max_dim);
  template <typename T>
  const T& Pick(const std::vector<T>& choices) {
    return choices[static_cast<size_t>(Int(0, static_cast<int64_t>(choices.size()) - 1))];
  }
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

// A tensor on the host in double, the harness's currency: inputs are generated as HostTensors
// (already representable in their dtype), references return them, device results are read back
// into them.
struct HostTensor {
  Shape shape;
  DataType dtype = DataType::kFloat64;
  std::vector<double> values;  // row-major, shape.elem_cnt() of them
};

// Values uniform in [lo, hi), rounded to what `dtype` holds, so the reference sees exactly the
// inputs the kernel sees: integers are whole numbers in [lo, hi] clipped to the dtype's range,
// bool is 0 or 1.
HostTensor RandomHostTensor(CaseRng& rng, const Shape& shape, DataType dtype, double lo = -4.0,
                            double hi = 4.0);
// `value` as `dtype` holds it, as a C++ cast gives it (float16/bfloat16 to nearest even,
// integers truncated toward zero, bool value != 0). Integers: `value` must be in range.
double RoundToDtype(double value, DataType dtype);

// One valid call: inputs in the schema's input order, and attrs (defaults may be left out).
struct OpCase {
  std::vector<HostTensor> inputs;
  AttrMap attrs;
};

// One call that must fail, and how.
struct InvalidCase {
  std::string what;  // e.g. "x of rank 0", printed when the check fails
  std::vector<HostTensor> inputs;
  AttrMap attrs;
  ErrorKind expected;
  // Optional: fragments the error message must contain (the argument it names, the expected
  // and the actual value).
  std::vector<std::string> message_contains = {};
};

// |actual - expected| <= atol + rtol * |expected| for every element; NaN matches only NaN and
// an infinity only the same infinity.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
// The default per dtype: exact for integers and bool, float64 1e-10, float32 1e-5,
// float16 2e-3, bfloat16 1.6e-2 (relative and absolute).
Tolerance DefaultTolerance(DataType dtype);

struct OpTestSpec {
  std::string op_type;           // set by the registry
  std::vector<DataType> dtypes;  // tested where a device's kernels serve them
  // A valid random case in `dtype`. Called once per case with a freshly seeded rng.
  std::function<OpCase(DataType dtype, CaseRng& rng)> generate;
  // The outputs, in the schema's output order, with the dtypes they must have.
  std::function<Maybe<std::vector<HostTensor>>(const OpCase& c)> reference;
  // Optional: defaults to DefaultTolerance(output dtype). Gets the case, so that a bound can
  // follow its sizes (a K-term product's error grows with K).
  std::function<Tolerance(const OpCase& c, DataType dtype)> tolerance;
  // Calls that must fail (wrong rank, bad attr, mismatched shapes...), a few per dtype.
  std::function<std::vector<InvalidCase>(DataType dtype, CaseRng& rng)> invalid;
};

// Every registered spec, by op type, with its owner (oneflow_lite/common/registration_owner.h).
// A second spec for an op type is reported as a second schema is.
class OpTestRegistry {
 public:
  static OpTestRegistry& Global();

  void Register(const std::string& op_type, OpTestSpec spec);
  const OpTestSpec* Find(const std::string& op_type) const;  // nullptr when none
  std::vector<std::string> OpTypes() const;                  // sorted
  // Takes out every spec `owner` registered (an op library that failed to load).
  void RemoveOwnedBy(const std::string& owner);

 private:
  struct Entry {
    OpTestSpec spec;
    std::string owner;
  };
  using Table = std::map<std::string, std::shared_ptr<const Entry>>;
  SnapshotCell<Table> table_;  // read without a lock, as OpRegistry is
};

struct OpTestRegistrar {
  OpTestRegistrar(const std::string& op_type, OpTestSpec spec) {
    OpTestRegistry::Global().Register(op_type, std::move(spec));
  }
};

}  // namespace oflite

// Usage: OFLITE_REGISTER_OP_TEST(kSoftmaxOp, SoftmaxTestSpec());
#define OFLITE_REGISTER_OP_TEST(op_type, spec)                                               \
  static const ::oflite::OpTestRegistrar OFLITE_CONCAT(oflite_op_test_registrar_, __LINE__)( \
      op_type, spec)

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_TEST_SPEC_H_
