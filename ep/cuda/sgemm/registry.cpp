#include "ep/cuda/sgemm/sgemm.h"

namespace oflite {
namespace ep {
namespace sgemm {

// Each defined by its rung's file (OFLITE_REGISTER_SGEMM_RUNG).
extern const SgemmRung kRung0, kRung1, kRung2, kRung3, kRung4, kRung5, kRung6, kRung7, kRung8,
    kRung9;

std::vector<SgemmRung> Rungs() {
  return {kRung0, kRung1, kRung2, kRung3, kRung4, kRung5, kRung6, kRung7, kRung8, kRung9};
}

const SgemmRung* FindRung(const std::string& name) {
  static const std::vector<SgemmRung>* const rungs = new std::vector<SgemmRung>(Rungs());
  for (const SgemmRung& rung : *rungs) {
    if (rung.name == name) {
      return &rung;
    }
  }
  return nullptr;
}

}  // namespace sgemm
}  // namespace ep
}  // namespace oflite
