#include "oneflow_lite/framework/op_registry.h"

#include "oneflow_lite/common/join.h"

namespace oflite {

OpRegistry& OpRegistry::Global() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::Register(OpSchema schema) {
  const std::string name = schema.name();
  CHECK(schemas_.emplace(name, std::move(schema)).second) << "op '" << name << "' registered twice";
}

Maybe<const OpSchema*> OpRegistry::Find(const std::string& op_type) const {
  auto it = schemas_.find(op_type);
  OFLITE_CHECK_OR_RETURN(it != schemas_.end(), ValueError)
      << "unknown op '" << op_type << "' (registered ops: " << Join(OpTypes()) << ")";
  return &it->second;
}

std::vector<std::string> OpRegistry::OpTypes() const {
  std::vector<std::string> names;
  for (const auto& entry : schemas_) {
    names.push_back(entry.first);
  }
  return names;
}

}  // namespace oflite
