// The one public umbrella header: tensors, errors, the registries and the functional API.
#ifndef ONEFLOW_LITE_ONEFLOW_LITE_H_
#define ONEFLOW_LITE_ONEFLOW_LITE_H_

#include "functional/functional.h"
#include "oneflow_lite/common/data_type.h"
#include "oneflow_lite/common/device.h"
#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/common/shape.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/attr_map.h"
#include "oneflow_lite/framework/interpreter.h"
#include "oneflow_lite/framework/op_kernel.h"
#include "oneflow_lite/framework/op_registry.h"
#include "oneflow_lite/framework/tensor.h"

#endif  // ONEFLOW_LITE_ONEFLOW_LITE_H_
