#include "oneflow_lite/framework/sbp.h"

namespace oflite {

std::string SbpToString(const Sbp& sbp) {
  switch (sbp.kind()) {
    case Sbp::Kind::kSplit:
      return "S(" + std::to_string(sbp.axis()) + ")";
    case Sbp::Kind::kBroadcast:
      return "B";
    case Sbp::Kind::kPartialSum:
      return "P";
  }
  return "?";
}

std::string SbpSignatureToString(const SbpSignature& signature,
                                 const std::vector<std::string>& arg_order) {
  std::string text;
  for (const std::string& arg : arg_order) {
    auto it = signature.find(arg);
    text += (text.empty() ? "" : " ") + arg + ":" +
            (it == signature.end() ? "?" : SbpToString(it->second));
  }
  return text;
}

}  // namespace oflite
