// NumPy .npy files (format 1.0-3.0, little-endian, C order) to and from tensors.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_NPY_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_NPY_H_

#include <string>

#include "oneflow_lite/common/maybe.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace npy {

// float32/64/16, int8/32/64, uint8 and bool. ValueError for a bad file, NotImplemented for a
// dtype or layout (big-endian, Fortran order) that is not supported.
Maybe<Tensor> Load(const std::string& path, const Device& device = Device::Cpu());
// bfloat16 has no NumPy dtype: it is written as float32, or with bfloat16_bits as its raw
// bits in a uint16 array.
Maybe<void> Save(const std::string& path, const Tensor& tensor, bool bfloat16_bits = false);

}  // namespace npy
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_NPY_H_
