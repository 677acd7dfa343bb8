#include "oneflow_lite/common/registration_owner.h"

#include "oneflow_lite/common/check.h"

namespace oflite {

namespace {
// Registrars run on the thread that loads the library, and LoadOpLibrary serializes loads, so
// one process-wide pointer is enough.
RegistrationScope* live_scope = nullptr;
}  // namespace

RegistrationScope::RegistrationScope(std::string owner) : owner_(std::move(owner)) {
  OFLITE_CHECK(live_scope == nullptr) << "registration scopes do not nest";
  live_scope = this;
}

RegistrationScope::~RegistrationScope() { live_scope = nullptr; }

const std::string& CurrentRegistrationOwner() {
  static const std::string builtin = kBuiltinOwner;
  return live_scope == nullptr ? builtin : live_scope->owner();
}

void ReportDuplicateRegistration(const std::string& what, const std::string& existing_owner) {
  OFLITE_CHECK(live_scope != nullptr) << what << " is registered twice (both " << existing_owner
                                      << "): two registrations linked into one process";
  live_scope->AddRefusal(what + ", which is already registered by " + existing_owner);
}

void ReportRefusedRegistration(const std::string& refusal) {
  OFLITE_CHECK(live_scope != nullptr) << "refused registration: " << refusal;
  live_scope->AddRefusal(refusal);
}

}  // namespace oflite
