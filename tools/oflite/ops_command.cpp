// `oflite ops`: the op catalog as text or JSON.
#include <google/protobuf/util/json_util.h>

#include <iostream>

#include "oneflow_lite/dist/process_group.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/proto/attr_value_proto.h"
#include "oneflow_lite/proto/op_catalog.h"
#include "tools/oflite/commands.h"

namespace oflite {
namespace cli {

namespace {
template <typename Args>
std::string JoinNames(const Args& args) {
  std::string text;
  for (const auto& arg : args) {
    text += (text.empty() ? "" : ", ") + arg.name();
  }
  return text.empty() ? "-" : text;
}

void PrintOp(const proto::OpDef& op) {
  std::cout << op.name() << "\n  inputs:  " << JoinNames(op.input())
            << "\n  outputs: " << JoinNames(op.output()) << "\n  attrs:  ";
  if (op.attr().empty()) {
    std::cout << " -";
  }
  for (const proto::AttrDef& attr : op.attr()) {
    std::cout << " " << attr.name() << ":" << attr.type() << "="
              << (attr.required() ? "<required>"
                                  : AttrValueToString(AttrValueFromProto(attr.default_value())));
  }
  std::cout << "\n  kernels:";
  for (const proto::KernelDef& kernel : op.kernel()) {
    std::cout << "\n    " << kernel.name() << " on " << kernel.device() << ": ";
    for (int i = 0; i < kernel.data_type_size(); ++i) {
      std::cout << (i ? ", " : "") << DataTypeName(static_cast<DataType>(kernel.data_type(i)));
    }
  }
  std::cout << "\n";
}
}  // namespace

int OpsCommand(bool json) {
  const proto::OpDefList catalog = OpCatalog();
  if (json) {
    std::string text;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    options.preserve_proto_field_names = true;
    const auto status = google::protobuf::util::MessageToJsonString(catalog, &text, options);
    if (!status.ok()) {
      return ReportError(Error(ErrorKind::kRuntimeError, status.ToString()));
    }
    std::cout << text;
    return 0;
  }
  for (const proto::OpDef& op : catalog.op()) {
    PrintOp(op);
  }
  return 0;
}

int ReportError(const Error& error) {
  // One write a line: thread ranks report at the same time, each with its rank as launch adds.
  const std::string rank =
      dist::IsThreadRank() ? "[" + std::to_string(dist::Rank()) + "] " : std::string();
  std::cerr << rank + "oflite: " + ErrorKindName(error.kind()) + ": " + error.message() + "\n";
  return 1;
}

}  // namespace cli
}  // namespace oflite
