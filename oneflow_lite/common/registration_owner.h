// Who registered what: every registration (op schema, kernel, op test spec, primitive factory)
// records its owner, so that an op library that fails to load can be taken out again and a
// clash names both sides.
//
// The owner is kBuiltinOwner for everything registered outside LoadOpLibrary: liboneflow_lite
// itself and any program or library linked to it that registers its ops at start-up. There a
// duplicate is a programming error and fails a CHECK (nothing could return the error: static
// initializers run before main). While LoadOpLibrary loads a library, a RegistrationScope names
// the library as the owner, and a refused registration (a duplicate, or a name the library may
// not use) is recorded (and dropped) for LoadOpLibrary to return as an error.
#ifndef ONEFLOW_LITE_COMMON_REGISTRATION_OWNER_H_
#define ONEFLOW_LITE_COMMON_REGISTRATION_OWNER_H_

#include <string>
#include <vector>

namespace oflite {

constexpr const char* kBuiltinOwner = "built-in";

// Makes `owner` the owner of the registrations made while it lives. One at a time: scopes do
// not nest (LoadOpLibrary holds a lock around each).
class RegistrationScope {
 public:
  explicit RegistrationScope(std::string owner);
  RegistrationScope(const RegistrationScope&) = delete;
  RegistrationScope& operator=(const RegistrationScope&) = delete;
  ~RegistrationScope();

  const std::string& owner() const { return owner_; }
  // The registrations refused while this scope was live, each as "op 'softmax', which is
  // already registered by built-in".
  const std::vector<std::string>& refusals() const { return refusals_; }
  void AddRefusal(std::string refusal) { refusals_.push_back(std::move(refusal)); }

 private:
  std::string owner_;
  std::vector<std::string> refusals_;
};

// The owner of a registration made now: the live scope's, else kBuiltinOwner.
const std::string& CurrentRegistrationOwner();

// For registries that already hold `what` (e.g. "op 'softmax'"), registered by
// `existing_owner`: records the conflict in the live scope, or CHECK-fails naming both owners
// when there is none. The caller then drops the new registration.
void ReportDuplicateRegistration(const std::string& what, const std::string& existing_owner);
// For registrations refused for another reason (`refusal`: "op 'x y', which is not ..."):
// records it in the live scope, or CHECK-fails with it when there is none.
void ReportRefusedRegistration(const std::string& refusal);

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_REGISTRATION_OWNER_H_
