// Launch notes, for traces: while a LaunchNotes is live on this thread (the interpreter opens
// one around a kernel when a DispatchTrace is live), a primitive that chooses among
// implementations per call notes its choice (e.g. "warp pack=4"), and the kernel's
// NotePrimitive shows it beside the primitive's name. The notes live here, not in the
// primitive, so a primitive keeps no per-launch state; untraced launches pay one thread-local
// read.
#ifndef ONEFLOW_LITE_PRIMITIVE_LAUNCH_NOTES_H_
#define ONEFLOW_LITE_PRIMITIVE_LAUNCH_NOTES_H_

#include <string>
#include <utility>
#include <vector>

namespace oflite {
namespace primitive {

class Primitive;

class LaunchNotes {
 public:
  LaunchNotes();  // current on this thread until destroyed (then the one before it is again)
  LaunchNotes(const LaunchNotes&) = delete;
  LaunchNotes& operator=(const LaunchNotes&) = delete;
  ~LaunchNotes();

  static LaunchNotes* Current();  // nullptr when none is live

  // Each primitive has its own note, so a primitive launched inside another's launch (an
  // epilogue) does not overwrite it.
  void Set(const Primitive* primitive, std::string note);
  void Append(const Primitive* primitive, const std::string& more);
  std::string Take(const Primitive* primitive);  // and forget it; empty when none
  // What a trace shows: the primitive's name, then "[note]" when its launch noted one; takes
  // the note.
  std::string Describe(const Primitive& primitive);

 private:
  std::string* Find(const Primitive* primitive);

  std::vector<std::pair<const Primitive*, std::string>> notes_;
  LaunchNotes* outer_;
};

}  // namespace primitive
}  // namespace oflite

#endif  // ONEFLOW_LITE_PRIMITIVE_LAUNCH_NOTES_H_
