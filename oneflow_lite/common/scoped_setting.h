// ScopedSetting<T, kGet, kSet>: sets a process-wide setting for a scope and restores the value it
// had before, as the settings' Scoped* aliases do (e.g. ep::ScopedAllowTf32).
#ifndef ONEFLOW_LITE_COMMON_SCOPED_SETTING_H_
#define ONEFLOW_LITE_COMMON_SCOPED_SETTING_H_

namespace oflite {

template <typename T, T (*kGet)(), void (*kSet)(T)>
class ScopedSetting {
 public:
  explicit ScopedSetting(T value) : previous_(kGet()) { kSet(value); }
  ScopedSetting(const ScopedSetting&) = delete;
  ScopedSetting& operator=(const ScopedSetting&) = delete;
  ~ScopedSetting() { kSet(previous_); }

 private:
  T previous_;
};

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_SCOPED_SETTING_H_
