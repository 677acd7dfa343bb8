#include "oneflow_lite/framework/op_registry.h"

#include "oneflow_lite/common/join.h"
#include "oneflow_lite/common/registration_owner.h"
#include "oneflow_lite/framework/op_signature.h"

namespace oflite {

OpRegistry& OpRegistry::Global() {
  static OpRegistry registry;
  return registry;
}

namespace {

// Why `name` may not be registered by the current owner; empty when it may.
std::string RefusalOf(const std::string& name) {
  const Maybe<void> valid = CheckOpName(name);
  if (!valid.ok()) {
    return "an op with an invalid name: " + valid.error().message();
  }
  if (CurrentRegistrationOwner() == kBuiltinOwner) {
    return "";
  }
  const std::string ns = OpNamespace(name);
  if (ns.empty()) {
    return "op '" + name + "' without a namespace (an op library names its ops 'namespace.op', " +
           "e.g. 'myns." + name + "', so that they cannot collide with built-in ops)";
  }
  if (ns == "oflite") {
    return "op '" + name + "' in the namespace 'oflite', which is reserved for oneflow_lite";
  }
  return "";
}

// The registered ops whose name is `short_name` in some namespace.
std::vector<std::string> NamespacedOps(const std::vector<std::string>& ops,
                                       const std::string& short_name) {
  std::vector<std::string> found;
  for (const std::string& op : ops) {
    const std::string ns = OpNamespace(op);
    if (!ns.empty() && op.compare(ns.size() + 1, std::string::npos, short_name) == 0) {
      found.push_back(op);
    }
  }
  return found;
}

}  // namespace

void OpRegistry::Register(const OpSchemaBuilder& builder) {
  if (!builder.error().empty()) {
    ReportRefusedRegistration("an op whose signature does not parse: " + builder.error());
    return;
  }
  Register(builder.schema());
}

void OpRegistry::Register(OpSchema schema) {
  const std::string refusal = RefusalOf(schema.name());
  if (!refusal.empty()) {
    ReportRefusedRegistration(refusal);
    return;
  }
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
  if (it == table.end()) {
    const std::vector<std::string> ops = OpTypes();
    const std::vector<std::string> namespaced = NamespacedOps(ops, op_type);
    return OFLITE_ERROR(ValueError)
           << "unknown op '" << op_type << "'"
           << (namespaced.empty() ? ""
                                  : " (ops of that name in a namespace: " + Join(namespaced) + ")")
           << " (registered ops: " << Join(ops) << ")";
  }
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
