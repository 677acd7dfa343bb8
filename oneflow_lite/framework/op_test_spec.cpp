#include "oneflow_lite/framework/op_test_spec.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "oneflow_lite/common/registration_owner.h"

namespace oflite {

int64_t CaseRng::Int(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(engine_);
}

double CaseRng::Uniform(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(engine_);
}

bool CaseRng::Chance(double p) { return Uniform(0.0, 1.0) < p; }

Shape CaseRng::RandomShape(int64_t min_rank, int64_t max_rank, int64_t min_dim, int64_t max_dim) {
  std::vector<int64_t> dims(static_cast<size_t>(Int(min_rank, max_rank)));
  for (int64_t& d : dims) {
    d = Int(min_dim, max_dim);
  }
  return Shape(dims);
}

double RoundToDtype(double value, DataType dtype) {
  return VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<T>(value));
  });
}

namespace {

// The whole numbers an integer dtype holds, as doubles (exactly representable: |v| < 2^53 is
// all int64 values a generator needs; the ends are only bounds).
std::pair<double, double> WholeRange(DataType dtype) {
  switch (dtype) {
    case DataType::kInt8:
      return {-128.0, 127.0};
    case DataType::kUInt8:
      return {0.0, 255.0};
    case DataType::kInt32:
      return {-2147483648.0, 2147483647.0};
    default:  // int64 (and unused for bool and floating dtypes)
      return {-9007199254740992.0, 9007199254740992.0};
  }
}

}  // namespace

HostTensor RandomHostTensor(CaseRng& rng, const Shape& shape, DataType dtype, double lo,
                            double hi) {
  HostTensor t{shape, dtype, std::vector<double>(static_cast<size_t>(shape.elem_cnt()))};
  const bool whole = !IsFloatingDataType(dtype);
  // Integers: [lo, hi] clipped to what the dtype holds (a negative value is no uint8); a range
  // that holds none of them gives its clipped lower end.
  const auto [min, max] = WholeRange(dtype);
  const double whole_lo = std::min(std::max(std::ceil(lo), min), max);
  const double whole_hi = std::max(std::min(std::floor(hi), max), whole_lo);
  const auto int_lo = static_cast<int64_t>(whole_lo), int_hi = static_cast<int64_t>(whole_hi);
  for (double& v : t.values) {
    if (dtype == DataType::kBool) {
      v = rng.Chance(0.5) ? 1.0 : 0.0;
    } else if (whole) {
      v = static_cast<double>(rng.Int(int_lo, int_hi));
    } else {
      v = RoundToDtype(rng.Uniform(lo, hi), dtype);
    }
  }
  return t;
}

Tolerance DefaultTolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64:
      return {1e-10, 1e-10};
    case DataType::kFloat32:
      return {1e-5, 1e-5};
    case DataType::kFloat16:
      return {2e-3, 2e-3};
    case DataType::kBFloat16:
      return {1.6e-2, 1.6e-2};
    default:
      return {0, 0};
  }
}

OpTestRegistry& OpTestRegistry::Global() {
  static OpTestRegistry registry;
  return registry;
}

void OpTestRegistry::Register(const std::string& op_type, OpTestSpec spec) {
  table_.Update([&](Table& table) {
    auto it = table.find(op_type);
    if (it != table.end()) {
      ReportDuplicateRegistration("op test spec '" + op_type + "'", it->second->owner);
      return;
    }
    spec.op_type = op_type;
    table.emplace(
        op_type, std::make_shared<const Entry>(Entry{std::move(spec), CurrentRegistrationOwner()}));
  });
}

void OpTestRegistry::RemoveOwnedBy(const std::string& owner) {
  table_.Update([&](Table& table) {
    for (auto it = table.begin(); it != table.end();) {
      it = it->second->owner == owner ? table.erase(it) : std::next(it);
    }
  });
}

const OpTestSpec* OpTestRegistry::Find(const std::string& op_type) const {
  const Table& table = table_.Read();
  auto it = table.find(op_type);
  return it == table.end() ? nullptr : &it->second->spec;
}

std::vector<std::string> OpTestRegistry::OpTypes() const {
  std::vector<std::string> names;
  for (const auto& entry : table_.Read()) {
    names.push_back(entry.first);
  }
  return names;
}

}  // namespace oflite
