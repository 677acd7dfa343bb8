// Primitives: small device-specific compute units behind abstract interfaces.
//
// Each interface comes with a factory interface. An execution provider registers one factory
// implementation per device type; NewPrimitive<Factory>(device_type, args...) asks it for a
// primitive and returns nullptr when the device cannot do it (no provider, unsupported dtype).
#ifndef ONEFLOW_LITE_PRIMITIVE_PRIMITIVE_H_
#define ONEFLOW_LITE_PRIMITIVE_PRIMITIVE_H_

#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "oneflow_lite/common/device.h"
#include "oneflow_lite/primitive/launch_notes.h"

namespace oflite {
namespace primitive {

class Primitive {
 public:
  Primitive() = default;
  Primitive(const Primitive&) = delete;
  Primitive& operator=(const Primitive&) = delete;
  virtual ~Primitive() = default;

  // Which implementation this is, e.g. "cpu.softmax<float16>"; shown in traces and the demo.
  virtual std::string name() const = 0;

 protected:
  // For primitives that choose among implementations per call: notes the choice for a live
  // trace (launch_notes.h). `describe` runs only when a trace is live.
  template <typename Describe>
  void NoteLaunch(Describe&& describe) const {
    if (LaunchNotes* notes = LaunchNotes::Current()) {
      notes->Set(this, describe());
    }
  }
  template <typename Describe>
  void AppendLaunchNote(Describe&& describe) const {
    if (LaunchNotes* notes = LaunchNotes::Current()) {
      notes->Append(this, describe());
    }
  }
};

class FactoryBase {
 public:
  FactoryBase() = default;
  FactoryBase(const FactoryBase&) = delete;
  FactoryBase& operator=(const FactoryBase&) = delete;
  virtual ~FactoryBase() = default;
};

// A factory interface: `New(args...)` returns the primitive or nullptr.
// Derived interfaces set kName, the name listings show ("softmax", "permute", ...).
template <typename PrimitiveT, typename... Args>
class Factory : public FactoryBase {
 public:
  using PrimitiveType = PrimitiveT;
  virtual std::unique_ptr<PrimitiveT> New(Args... args) = 0;
};

// A second implementation for the same (factory, device type) is reported
// (oneflow_lite/common/registration_owner.h) and dropped.
void RegisterFactory(std::type_index factory, const char* name, DeviceType device_type,
                     std::unique_ptr<FactoryBase> impl);
// Takes out every factory implementation `owner` registered (an op library that failed to load).
void RemoveFactoriesOwnedBy(const std::string& owner);
FactoryBase* FindFactory(std::type_index factory, DeviceType device_type);

struct FactoryEntry {
  std::string name;
  DeviceType device_type;
};
// Every registered (primitive, device type), sorted; for listings and the registry test.
std::vector<FactoryEntry> RegisteredFactories();

template <typename FactoryT, typename... Args>
std::unique_ptr<typename FactoryT::PrimitiveType> NewPrimitive(DeviceType device_type,
                                                               Args&&... args) {
  auto* factory = static_cast<FactoryT*>(FindFactory(typeid(FactoryT), device_type));
  if (factory == nullptr) {
    return nullptr;
  }
  return factory->New(std::forward<Args>(args)...);
}

}  // namespace primitive
}  // namespace oflite

// Registers FactoryImpl as the device_type implementation of factory interface FactoryT.
#define OFLITE_REGISTER_PRIMITIVE_FACTORY(device_type, FactoryT, FactoryImpl)            \
  static const bool OFLITE_CONCAT(oflite_primitive_factory_registered_, __LINE__) = [] { \
    ::oflite::primitive::RegisterFactory(typeid(FactoryT), FactoryT::kName, device_type, \
                                         std::make_unique<FactoryImpl>());               \
    return true;                                                                         \
  }()

#endif  // ONEFLOW_LITE_PRIMITIVE_PRIMITIVE_H_
