#include "oneflow_lite/framework/op_registry.h"

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/common/registration_owner.h"

namespace oflite {

OpRegistry& OpRegistry::Global() {
  static OpRegistry registry;
  return registry;
}

void OpRegistry::Register(OpSchema schema) {
  table_.Update([&](Table& table) {
    const std::string name = schema.name();
    auto it = table.find(name);
    if (it != table.end()) {
      ReportDuplicateRegistration("op '" + name + "'", it->second->owner);
      return;
    }
    table.emplace(
        name, std::make_shared<const Entry>(Entry{std::move(schema), CurrentRegistrationOwner()}));
  });
}

Maybe<const OpSchema*> OpRegistry::Find(const std::string& op_type) const {
  const Table& table = table_.Read();
  auto it = table.find(op_type);
  OFLITE_CHECK_OR_RETURN(it != table.end(), ValueError)
      << "unknown op '" << op_type << "' (registered ops: " << Join(OpTypes()) << ")";
  return &it->second->schema;
}

std::vector<std::string> OpRegistry::OpTypes() const {
  std::vector<std::string> names;
  for (const auto& entry : table_.Read()) {
    names.push_back(entry.first);
  }
  return names;
}

std::string OpRegistry::OwnerOf(const std::string& op_type) const {
  const Table& table = table_.Read();
  auto it = table.find(op_type);
  return it == table.end() ? std::string() : it->second->owner;
}

void OpRegistry::RemoveOwnedBy(const std::string& owner) {
  table_.Update([&](Table& table) {
    for (auto it = table.begin(); it != table.end();) {
      it = it->second->owner == owner ? table.erase(it) : std::next(it);
    }
  });
}

}  // namespace oflite
