// OpRegistry: every op schema, by type name. Ops register at load time with OFLITE_REGISTER_OP;
// each records its owner (oneflow_lite/common/registration_owner.h): built-in, or the op
// library that registered it. Reads take no lock and are safe while a library loads
// (oneflow_lite/common/snapshot_cell.h); a schema pointer Find returned stays valid.
#ifndef ONEFLOW_LITE_FRAMEWORK_OP_REGISTRY_H_
#define ONEFLOW_LITE_FRAMEWORK_OP_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/snapshot_cell.h"
#include "oneflow_lite/framework/op_schema.h"

namespace oflite {

class OpRegistry {
 public:
  static OpRegistry& Global();

  // A duplicate name is reported (ReportDuplicateRegistration) and not registered, and so is
  // a name that is not an op name, an op library's op without a namespace or in the reserved
  // namespace "oflite" (ReportRefusedRegistration).
  void Register(OpSchema schema);
  // The builder's schema, or its signature's parse error reported as a refusal.
  void Register(const OpSchemaBuilder& builder);
  // ValueError naming the registered ops when op_type is unknown (and the namespaced ops of
  // that short name, when there are some).
  Maybe<const OpSchema*> Find(const std::string& op_type) const;
  std::vector<std::string> OpTypes() const;  // sorted
  // Who registered op_type; empty when nobody did.
  std::string OwnerOf(const std::string& op_type) const;
  // Takes out every op `owner` registered (an op library that failed to load).
  void RemoveOwnedBy(const std::string& owner);

 private:
  struct Entry {
    OpSchema schema;
    std::string owner;
  };
  using Table = std::map<std::string, std::shared_ptr<const Entry>>;
  SnapshotCell<Table> table_;
};

struct OpRegistrar {
  OpRegistrar(const OpSchemaBuilder& builder) {  // NOLINT: lets the macro end in a builder chain
    OpRegistry::Global().Register(builder);
  }
};

}  // namespace oflite

#define OFLITE_REGISTER_OP(op_type)                                                  \
  static const ::oflite::OpRegistrar OFLITE_CONCAT(oflite_op_registrar_, __LINE__) = \
      ::oflite::OpSchemaBuilder(op_type)

#endif  // ONEFLOW_LITE_FRAMEWORK_OP_REGISTRY_H_
