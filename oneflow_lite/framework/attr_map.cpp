#include "oneflow_lite/framework/attr_map.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

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

AttrType AttrTypeOf(const proto::AttrValue& value) {
  switch (value.value_case()) {
    case proto::AttrValue::kAtBool:
      return AttrType::kBool;
    case proto::AttrValue::kAtInt64:
      return AttrType::kInt64;
    case proto::AttrValue::kAtFloat:
      return AttrType::kFloat;
    case proto::AttrValue::kAtDouble:
      return AttrType::kDouble;
    case proto::AttrValue::kAtString:
      return AttrType::kString;
    case proto::AttrValue::kAtShape:
      return AttrType::kShape;
    case proto::AttrValue::kAtDataType:
      return AttrType::kDataType;
    case proto::AttrValue::kAtListInt64:
      return AttrType::kListInt64;
    case proto::AttrValue::kAtListFloat:
      return AttrType::kListFloat;
    case proto::AttrValue::VALUE_NOT_SET:
      return AttrType::kNone;
  }
  return AttrType::kNone;
}

namespace {
template <typename List>
std::string JoinList(const List& list) {
  std::ostringstream out;
  out << "[";
  for (int i = 0; i < list.size(); ++i) {
    out << (i ? ", " : "") << list.Get(i);
  }
  out << "]";
  return out.str();
}
}  // namespace

std::string AttrValueToString(const proto::AttrValue& value) {
  std::ostringstream out;
  switch (AttrTypeOf(value)) {
    case AttrType::kNone:
      return "<unset>";
    case AttrType::kBool:
      return value.at_bool() ? "true" : "false";
    case AttrType::kInt64:
      return std::to_string(value.at_int64());
    case AttrType::kFloat:
      out << value.at_float();
      return out.str();
    case AttrType::kDouble:
      out << value.at_double();
      return out.str();
    case AttrType::kString:
      return "'" + value.at_string() + "'";
    case AttrType::kShape:
      return AttrTraits<Shape>::Get(value).ToString();
    case AttrType::kDataType:
      return DataTypeName(AttrTraits<DataType>::Get(value));
    case AttrType::kListInt64:
      return JoinList(value.at_list_int64().value());
    case AttrType::kListFloat:
      return JoinList(value.at_list_float().value());
  }
  return "<invalid>";
}

AttrMap::AttrMap(std::initializer_list<std::pair<const std::string, AttrValue>> values) {
  for (const auto& [name, value] : values) {
    Set(name, value);
  }
}

Maybe<const proto::AttrValue*> AttrMap::Find(const std::string& name, AttrType expected) const {
  auto it = values_.find(name);
  OFLITE_CHECK_OR_RETURN(it != values_.end(), ValueError)
      << "attribute '" << name << "' is missing (attributes present: " << ToString() << ")";
  const AttrType actual = AttrTypeOf(it->second);
  OFLITE_CHECK_OR_RETURN(actual == expected, TypeError)
      << "attribute '" << name << "' is " << AttrTypeName(actual) << ", read as "
      << AttrTypeName(expected);
  return &it->second;
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
}  // namespace

Maybe<proto::AttrValue> ParseAttrValue(AttrType type, const std::string& text) {
  proto::AttrValue value;
  bool ok = true;
  int64_t i = 0;
  double d = 0;
  float f = 0;
  switch (type) {
    case AttrType::kBool:
      ok = text == "true" || text == "false" || text == "1" || text == "0";
      value.set_at_bool(text == "true" || text == "1");
      break;
    case AttrType::kInt64:
      ok = ParseInt64(text, &i);
      value.set_at_int64(i);
      break;
    case AttrType::kFloat:
      ok = ParseFloat(text, &f);
      value.set_at_float(f);
      break;
    case AttrType::kDouble:
      ok = ParseDouble(text, &d);
      value.set_at_double(d);
      break;
    case AttrType::kString:
      value.set_at_string(text);
      break;
    case AttrType::kDataType: {
      DataType data_type;
      OFLITE_ASSIGN_OR_RETURN(data_type, ParseDataType(text));
      value.set_at_data_type(static_cast<proto::DataType>(data_type));
      break;
    }
    case AttrType::kShape:
    case AttrType::kListInt64: {
      auto* list = type == AttrType::kShape ? value.mutable_at_shape()->mutable_dim()
                                            : value.mutable_at_list_int64()->mutable_value();
      for (const std::string& item : SplitList(text, type == AttrType::kShape ? ",x" : ",")) {
        ok = ok && ParseInt64(item, &i);
        list->Add(i);
      }
      break;
    }
    case AttrType::kListFloat:
      value.mutable_at_list_float();
      for (const std::string& item : SplitList(text, ",")) {
        ok = ok && ParseFloat(item, &f);
        value.mutable_at_list_float()->add_value(f);
      }
      break;
    case AttrType::kNone:
      ok = false;
      break;
  }
  OFLITE_CHECK_OR_RETURN(ok, ValueError)
      << "cannot read '" << text << "' as " << AttrTypeName(type);
  return value;
}

}  // namespace oflite
