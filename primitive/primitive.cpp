#include "primitive/primitive.h"

#include <algorithm>
#include <map>
#include <utility>

#include "oneflow_lite/common/registration_owner.h"

namespace oflite {
namespace primitive {

namespace {
struct Registration {
  std::string name;
  std::unique_ptr<FactoryBase> impl;
  std::string owner;  // oneflow_lite/common/registration_owner.h
};
using Key = std::pair<std::type_index, DeviceType>;

std::map<Key, Registration>& Registry() {
  static std::map<Key, Registration> registry;
  return registry;
}
}  // namespace

void RegisterFactory(std::type_index factory, const char* name, DeviceType device_type,
                     std::unique_ptr<FactoryBase> impl) {
  const Key key(factory, device_type);
  auto it = Registry().find(key);
  if (it != Registry().end()) {
    ReportDuplicateRegistration(
        std::string("primitive factory '") + name + "' for " + DeviceTypeName(device_type),
        it->second.owner);
    return;
  }
  Registry().emplace(key, Registration{name, std::move(impl), CurrentRegistrationOwner()});
}

void RemoveFactoriesOwnedBy(const std::string& owner) {
  for (auto it = Registry().begin(); it != Registry().end();) {
    it = it->second.owner == owner ? Registry().erase(it) : std::next(it);
  }
}

FactoryBase* FindFactory(std::type_index factory, DeviceType device_type) {
  auto it = Registry().find(Key(factory, device_type));
  return it == Registry().end() ? nullptr : it->second.impl.get();
}

std::vector<FactoryEntry> RegisteredFactories() {
  std::vector<FactoryEntry> entries;
  for (const auto& [key, registration] : Registry()) {
    entries.push_back({registration.name, key.second});
  }
  std::sort(entries.begin(), entries.end(), [](const FactoryEntry& a, const FactoryEntry& b) {
    return std::make_pair(a.name, a.device_type) < std::make_pair(b.name, b.device_type);
  });
  return entries;
}

}  // namespace primitive
}  // namespace oflite
