#include "oneflow_lite/framework/op_registry.h"

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/common/registration_owner.h"

namespace oflite {

OpRegistry& OpRegistry::Global() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::Register(OpSchema schema) {
  const std::string name = schema.name();
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    ReportDuplicateRegistration("op '" + name + "'", it->second.owner);
    return;
  }
  entries_.emplace(name, Entry{std::move(schema), CurrentRegistrationOwner()});
}

Maybe<const OpSchema*> OpRegistry::Find(const std::string& op_type) const {
  auto it = entries_.find(op_type);
  OFLITE_CHECK_OR_RETURN(it != entries_.end(), ValueError)
      << "unknown op '" << op_type << "' (registered ops: " << Join(OpTypes()) << ")";
  return &it->second.schema;
}

std::vector<std::string> OpRegistry::OpTypes() const {
  std::vector<std::string> names;
  for (const auto& entry : entries_) {
    names.push_back(entry.first);
  }
  return names;
}

std::string OpRegistry::OwnerOf(const std::string& op_type) const {
  auto it = entries_.find(op_type);
  return it == entries_.end() ? std::string() : it->second.owner;
}

void OpRegistry::RemoveOwnedBy(const std::string& owner) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.owner == owner ? entries_.erase(it) : std::next(it);
  }
}

}  // namespace oflite
