#include "oneflow_lite/primitive/primitive.h"

#include <algorithm>
#include <map>
#include <utility>

#include "oneflow_lite/common/registration_owner.h"
#include "oneflow_lite/common/snapshot_cell.h"

namespace oflite {
namespace primitive {

namespace {
struct Registration {
  std::string name;
  std::unique_ptr<FactoryBase> impl;
  std::string owner;  // oneflow_lite/common/registration_owner.h
};
using Key = std::pair<std::type_index, DeviceType>;
// Read without a lock on every primitive lookup, written while code loads.
using Table = std::map<Key, std::shared_ptr<const Registration>>;

SnapshotCell<Table>& Registry() {
  static SnapshotCell<Table> registry;
  return registry;
}
}  // namespace

void RegisterFactory(std::type_index factory, const char* name, DeviceType device_type,
                     std::unique_ptr<FactoryBase> impl) {
  Registry().Update([&](Table& table) {
    const Key key(factory, device_type);
    auto it = table.find(key);
    if (it != table.end()) {
      ReportDuplicateRegistration(
          std::string("primitive factory '") + name + "' for " + DeviceTypeName(device_type),
          it->second->owner);
      return;
    }
    table.emplace(key, std::make_shared<const Registration>(
                           Registration{name, std::move(impl), CurrentRegistrationOwner()}));
  });
}

void RemoveFactoriesOwnedBy(const std::string& owner) {
  Registry().Update([&](Table& table) {
    for (auto it = table.begin(); it != table.end();) {
      it = it->second->owner == owner ? table.erase(it) : std::next(it);
    }
  });
}

FactoryBase* FindFactory(std::type_index factory, DeviceType device_type) {
  const Table& table = Registry().Read();
  auto it = table.find(Key(factory, device_type));
  return it == table.end() ? nullptr : it->second->impl.get();
}

std::vector<FactoryEntry> RegisteredFactories() {
  std::vector<FactoryEntry> entries;
  for (const auto& [key, registration] : Registry().Read()) {
    entries.push_back({registration->name, key.second});
  }
  std::sort(entries.begin(), entries.end(), [](const FactoryEntry& a, const FactoryEntry& b) {
    return std::make_pair(a.name, a.device_type) < std::make_pair(b.name, b.device_type);
  });
  return entries;
}

}  // namespace primitive
}  // namespace oflite
