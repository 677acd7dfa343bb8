// The one public umbrella header: tensors, errors, the functional API (and operators), the
// version, and the extension API user ops are written with (docs/ADDING_AN_OP.md): op schemas
// and registry, kernels, op test specs, op libraries and the primitive factories. Everything it
// includes is installed, as is everything under oneflow_lite/ but proto/ (the library's
// protobuf side); the rest of the source tree is internal.
#ifndef ONEFLOW_LITE_ONEFLOW_LITE_H_
#define ONEFLOW_LITE_ONEFLOW_LITE_H_

#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/error.h"
#include "oneflow_lite/common/float16.h"
#include "oneflow_lite/common/logging.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/registration_owner.h"
#include "oneflow_lite/common/scalar.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/ep/allocator.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/ep/event.h"
#include "oneflow_lite/ep/matmul_settings.h"
#include "oneflow_lite/ep/num_threads.h"
#include "oneflow_lite/ep/stream.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_library.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/op_schema.h"
#include "oneflow_lite/framework/op_signature.h"
#include "oneflow_lite/framework/op_test_spec.h"
#include "oneflow_lite/framework/sbp.h"
#include "oneflow_lite/framework/sbp_builder.h"
#include "oneflow_lite/framework/scoped_stream.h"
#include "oneflow_lite/framework/tensor.h"
#include "oneflow_lite/functional/functional.h"
#include "oneflow_lite/functional/operators.h"
#include "oneflow_lite/primitive/batch_matmul.h"
#include "oneflow_lite/primitive/broadcast_elementwise_binary.h"
#include "oneflow_lite/primitive/cast.h"
#include "oneflow_lite/primitive/elementwise_unary.h"
#include "oneflow_lite/primitive/fill.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "oneflow_lite/primitive/permute.h"
#include "oneflow_lite/primitive/primitive.h"
#include "oneflow_lite/primitive/softmax.h"
#include "oneflow_lite/primitive/softmax_backward.h"
#include "oneflow_lite/version.h"

#endif  // ONEFLOW_LITE_ONEFLOW_LITE_H_
