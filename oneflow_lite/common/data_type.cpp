#include "oneflow_lite/common/data_type.h"

#include <map>

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/proto/data_type.pb.h"

namespace oflite {

#define OFLITE_ASSERT_PROTO_VALUE(enumerator, cpp_type, name)                                  \
  static_assert(static_cast<int>(DataType::enumerator) == static_cast<int>(proto::enumerator), \
                "DataType and proto::DataType disagree on " name);
OFLITE_DATA_TYPE_LIST(OFLITE_ASSERT_PROTO_VALUE)
#undef OFLITE_ASSERT_PROTO_VALUE

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType> all = {
#define OFLITE_LIST_ENTRY(enumerator, cpp_type, name) DataType::enumerator,
      OFLITE_DATA_TYPE_LIST(OFLITE_LIST_ENTRY)
#undef OFLITE_LIST_ENTRY
  };
  return all;
}

const std::vector<DataType>& FloatingDataTypes() {
  static const std::vector<DataType> floating = {DataType::kFloat32, DataType::kFloat64,
                                                 DataType::kFloat16, DataType::kBFloat16};
  return floating;
}

const char* DataTypeName(DataType data_type) {
  switch (data_type) {
#define OFLITE_NAME_CASE(enumerator, cpp_type, name) \
  case DataType::enumerator:                         \
    return name;
    OFLITE_DATA_TYPE_LIST(OFLITE_NAME_CASE)
#undef OFLITE_NAME_CASE
  }
  return "invalid";
}

size_t DataTypeSize(DataType data_type) {
  return VisitDataType(data_type, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

bool IsFloatingDataType(DataType data_type) {
  for (DataType d : FloatingDataTypes()) {
    if (d == data_type) {
      return true;
    }
  }
  return false;
}

bool IsValidDataType(int value) { return proto::DataType_IsValid(value) && value != 0; }

Maybe<DataType> ParseDataType(const std::string& name) {
  // Canonical names plus the aliases PyTorch users type.
  static const std::map<std::string, DataType> names = [] {
    std::map<std::string, DataType> m;
    for (DataType d : AllDataTypes()) {
      m[DataTypeName(d)] = d;
    }
    m["float"] = DataType::kFloat32;
    m["double"] = DataType::kFloat64;
    m["half"] = DataType::kFloat16;
    m["bf16"] = DataType::kBFloat16;
    m["int"] = DataType::kInt32;
    m["long"] = DataType::kInt64;
    return m;
  }();
  auto it = names.find(name);
  OFLITE_CHECK_OR_RETURN(it != names.end(), ValueError)
      << "unknown dtype '" << name << "' (expected one of " << Join(AllDataTypes()) << ")";
  return it->second;
}

}  // namespace oflite
