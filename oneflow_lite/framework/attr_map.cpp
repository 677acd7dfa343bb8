#include "oneflow_lite/framework/attr_map.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

#include "oneflow_lite/common/hash_combine.h"

namespace oflite {

const char* AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kNone:
      return "none";
    case AttrType::kBool:
      return "bool";
    case AttrType::kInt64:
      return "int64";
    case AttrType::kFloat:
      return "float";
    case AttrType::kDouble:
      return "double";
    case AttrType::kString:
      return "string";
    case AttrType::kShape:
      return "shape";
    case AttrType::kDataType:
      return "dtype";
    case AttrType::kListInt64:
      return "list_int64";
    case AttrType::kListFloat:
      return "list_float";
  }
  return "invalid";
}

namespace {
template <typename T>
bool SameBits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
size_t HashBits(const T& x) {
  uint64_t bits = 0;
  std::memcpy(&bits, &x, sizeof(T));
  return std::hash<uint64_t>()(bits);
}
}  // namespace

bool AttrValue::operator==(const AttrValue& other) const {
  if (value_.index() != other.value_.index()) {
    return false;
  }
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(other.value_);
        if constexpr (std::is_floating_point_v<T>) {
          return SameBits(x, y);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), SameBits<float>);
        } else if constexpr (std::is_same_v<T, std::monostate>) {
          return true;
        } else {
          return x == y;
        }
      },
      value_);
}

size_t AttrValue::Hash() const {
  return std::visit(
      [&](const auto& x) -> size_t {
        using T = std::decay_t<decltype(x)>;
        size_t h = value_.index();
        if constexpr (std::is_same_v<T, std::monostate>) {
          return h;
        } else if constexpr (std::is_same_v<T, std::string>) {
          return HashCombine(h, std::hash<std::string>()(x));
        } else if constexpr (std::is_same_v<T, Shape>) {
          for (int64_t d : x.dims()) {
            h = HashCombine(h, static_cast<size_t>(d));
          }
          return h;
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<float>>) {
          for (const auto& v : x) {
            h = HashCombine(h, HashBits(v));
          }
          return h;
        } else {
          return HashCombine(h, HashBits(x));
        }
      },
      value_);
}

namespace {
template <typename List>
std::string JoinList(const List& list) {
  std::string text = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    text += i ? ", " : "";
    if constexpr (std::is_same_v<typename List::value_type, float>) {
      text += ShortestDecimal(list[i], true);  // reads back as the same float
    } else {
      text += std::to_string(list[i]);
    }
  }
  return text + "]";
}
}  // namespace

std::string AttrValueToString(const AttrValue& value) {
  const AttrValue::Variant& v = value.variant();
  switch (value.type()) {
    case AttrType::kNone:
      return "<unset>";
    case AttrType::kBool:
      return std::get<bool>(v) ? "true" : "false";
    case AttrType::kInt64:
      return std::to_string(std::get<int64_t>(v));
    case AttrType::kFloat:
      return ShortestDecimal(std::get<float>(v), true);
    case AttrType::kDouble:
      return ShortestDecimal(std::get<double>(v), false);
    case AttrType::kString:
      return "'" + std::get<std::string>(v) + "'";
    case AttrType::kShape:
      return std::get<Shape>(v).ToString();
    case AttrType::kDataType:
      return DataTypeName(std::get<DataType>(v));
    case AttrType::kListInt64:
      return JoinList(std::get<std::vector<int64_t>>(v));
    case AttrType::kListFloat:
      return JoinList(std::get<std::vector<float>>(v));
  }
  return "<invalid>";
}

AttrMap::AttrMap(std::initializer_list<Entry> values) {
  for (const auto& [name, value] : values) {
    Set(name, value);
  }
}

void AttrMap::Set(const std::string& name, AttrValue value) {
  auto it = std::lower_bound(values_.begin(), values_.end(), name,
                             [](const Entry& e, const std::string& n) { return e.first < n; });
  if (it != values_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    values_.insert(it, Entry(name, std::move(value)));
  }
}

const AttrValue* AttrMap::Lookup(const std::string& name) const {
  for (const Entry& e : values_) {  // a handful of entries: a scan beats a search
    if (e.first == name) {
      return &e.second;
    }
  }
  return nullptr;
}

size_t AttrMap::Hash() const {
  size_t h = values_.size();
  for (const Entry& e : values_) {
    h = HashCombine(HashCombine(h, std::hash<std::string>()(e.first)), e.second.Hash());
  }
  return h;
}

Maybe<const AttrValue*> AttrMap::Find(const std::string& name, AttrType expected) const {
  const AttrValue* value = Lookup(name);
  OFLITE_CHECK_OR_RETURN(value != nullptr, ValueError)
      << "attribute '" << name << "' is missing (attributes present: " << ToString() << ")";
  OFLITE_CHECK_OR_RETURN(value->type() == expected, TypeError)
      << "attribute '" << name << "' is " << AttrTypeName(value->type()) << ", read as "
      << AttrTypeName(expected);
  return value;
}

std::string AttrMap::ToString() const {
  std::string text = "{";
  for (const auto& [name, value] : values_) {
    text += (text.size() > 1 ? ", " : "") + name + "=" + AttrValueToString(value);
  }
  return text + "}";
}

}  // namespace oflite

namespace oflite {

namespace {
// Whole-string numeric parses; false when anything is left over, out of range, or the text
// starts with blanks (which strtoll/strtod would silently skip).
bool ParseInt64(const std::string& text, int64_t* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') {
    return false;
  }
  *out = value;
  return true;
}

bool ParseDouble(const std::string& text, double* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) {
    return false;
  }
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (errno == ERANGE || *end != '\0') {
    return false;
  }
  *out = value;
  return true;
}

// Finite text must stay finite as a float ("inf" and "nan" stay allowed).
bool ParseFloat(const std::string& text, float* out) {
  double d = 0;
  if (!ParseDouble(text, &d) ||
      (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max())) {
    return false;
  }
  *out = static_cast<float>(d);
  return true;
}

std::vector<std::string> SplitList(const std::string& text, const std::string& separators) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = text.find_first_of(separators, begin);
    items.push_back(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) {
      break;
    }
    begin = end + 1;
  }
  if (text.empty()) {
    items.clear();
  }  // "" is the empty list
  return items;
}

// The number as a double, which holds every float and the int64s that can convert exactly.
std::optional<double> NumberOf(const AttrValue& value) {
  if (const auto* i = value.TryGet<int64_t>()) {
    const auto d = static_cast<double>(*i);
    // 2^63 itself is out of int64's range: compare before casting back.
    if (d >= 0x1p63 || static_cast<int64_t>(d) != *i) {
      return std::nullopt;
    }
    return d;
  }
  if (const auto* f = value.TryGet<float>()) {
    return static_cast<double>(*f);
  }
  if (const auto* d = value.TryGet<double>()) {
    return *d;
  }
  return std::nullopt;
}

}  // namespace

std::string ShortestDecimal(double value, bool as_float) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  if (!std::isfinite(value)) {
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    const double back = std::strtod(text, nullptr);
    if (as_float ? static_cast<float>(back) == static_cast<float>(value) : back == value) {
      break;
    }
  }
  return text;
}

namespace {
// Whether `d` as a float means the same number: the float holds it exactly, or `d` is a double
// (not an integer) and the double of the float's own shortest decimal (1e-6, 0.1), as a literal
// written for it would be.
bool FloatKeeps(double d, bool from_double) {
  const auto f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) {
    return true;
  }
  return from_double && std::isfinite(f) &&
         std::strtod(ShortestDecimal(f, true).c_str(), nullptr) == d;
}
}  // namespace

std::optional<AttrValue> ConvertNumberExactly(const AttrValue& value, AttrType to) {
  const std::optional<double> number = NumberOf(value);
  if (!number.has_value()) {
    return std::nullopt;
  }
  const double d = *number;
  switch (to) {
    case AttrType::kDouble:
      return AttrValue(d);
    case AttrType::kFloat:
      return FloatKeeps(d, value.type() == AttrType::kDouble)
                 ? std::optional<AttrValue>(AttrValue(static_cast<float>(d)))
                 : std::nullopt;
    case AttrType::kInt64: {
      const bool exact = std::isfinite(d) && std::trunc(d) == d && d >= -0x1p63 && d < 0x1p63;
      return exact ? std::optional<AttrValue>(AttrValue(static_cast<int64_t>(d))) : std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

Maybe<AttrValue> ParseAttrValue(AttrType type, const std::string& text) {
  AttrValue value;
  bool ok = true;
  int64_t i = 0;
  double d = 0;
  float f = 0;
  switch (type) {
    case AttrType::kBool:
      ok = text == "true" || text == "false" || text == "1" || text == "0";
      value = AttrValue(text == "true" || text == "1");
      break;
    case AttrType::kInt64:
      ok = ParseInt64(text, &i);
      value = AttrValue(i);
      break;
    case AttrType::kFloat:
      ok = ParseFloat(text, &f);
      value = AttrValue(f);
      break;
    case AttrType::kDouble:
      ok = ParseDouble(text, &d);
      value = AttrValue(d);
      break;
    case AttrType::kString:
      value = AttrValue(text);
      break;
    case AttrType::kDataType: {
      DataType data_type;
      OFLITE_ASSIGN_OR_RETURN(data_type, ParseDataType(text));
      value = AttrValue(data_type);
      break;
    }
    case AttrType::kShape:
    case AttrType::kListInt64: {
      std::vector<int64_t> list;
      for (const std::string& item : SplitList(text, type == AttrType::kShape ? ",x" : ",")) {
        ok = ok && ParseInt64(item, &i);
        list.push_back(i);
      }
      value = type == AttrType::kShape ? AttrValue(Shape(list)) : AttrValue(std::move(list));
      break;
    }
    case AttrType::kListFloat: {
      std::vector<float> list;
      for (const std::string& item : SplitList(text, ",")) {
        ok = ok && ParseFloat(item, &f);
        list.push_back(f);
      }
      value = AttrValue(std::move(list));
      break;
    }
    case AttrType::kNone:
      ok = false;
      break;
  }
  OFLITE_CHECK_OR_RETURN(ok, ValueError)
      << "cannot read '" << text << "' as " << AttrTypeName(type);
  return value;
}

}  // namespace oflite
