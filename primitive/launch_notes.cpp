#include "oneflow_lite/primitive/launch_notes.h"

#include "oneflow_lite/primitive/primitive.h"

namespace oflite {
namespace primitive {

namespace {
thread_local LaunchNotes* current_notes = nullptr;
}  // namespace

LaunchNotes::LaunchNotes() : outer_(current_notes) { current_notes = this; }

LaunchNotes::~LaunchNotes() { current_notes = outer_; }

LaunchNotes* LaunchNotes::Current() { return current_notes; }

std::string* LaunchNotes::Find(const Primitive* primitive) {
  for (auto& [owner, note] : notes_) {
    if (owner == primitive) {
      return &note;
    }
  }
  return nullptr;
}

void LaunchNotes::Set(const Primitive* primitive, std::string note) {
  if (std::string* existing = Find(primitive)) {
    *existing = std::move(note);
  } else {
    notes_.emplace_back(primitive, std::move(note));
  }
}

void LaunchNotes::Append(const Primitive* primitive, const std::string& more) {
  if (std::string* existing = Find(primitive)) {
    *existing += more;
  } else {
    notes_.emplace_back(primitive, more);
  }
}

std::string LaunchNotes::Take(const Primitive* primitive) {
  std::string note;
  if (std::string* existing = Find(primitive)) {
    note = std::move(*existing);
    existing->clear();
  }
  return note;
}

std::string LaunchNotes::Describe(const Primitive& primitive) {
  const std::string note = Take(&primitive);
  return note.empty() ? primitive.name() : primitive.name() + "[" + note + "]";
}

}  // namespace primitive
}  // namespace oflite
