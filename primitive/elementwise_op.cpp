#include "oneflow_lite/primitive/elementwise_op.h"

namespace oflite {
namespace primitive {

#define OFLITE_ELEMENTWISE_NAME_CASE(enumerator, name) \
  case Op::enumerator:                                 \
    return name;

const char* BinaryOpName(BinaryOp op) {
  using Op = BinaryOp;
  switch (op) { OFLITE_BINARY_OP_LIST(OFLITE_ELEMENTWISE_NAME_CASE) }
  return "invalid";
}

const char* UnaryOpName(UnaryOp op) {
  using Op = UnaryOp;
  switch (op) { OFLITE_UNARY_OP_LIST(OFLITE_ELEMENTWISE_NAME_CASE) }
  return "invalid";
}

#undef OFLITE_ELEMENTWISE_NAME_CASE

}  // namespace primitive
}  // namespace oflite
