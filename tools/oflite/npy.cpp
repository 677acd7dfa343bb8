#include "tools/oflite/npy.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

namespace oflite {
namespace npy {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy refuses longer headers by default (max_header_size); so do we, which also bounds the
// regex work on a hostile header.
constexpr size_t kMaxHeaderBytes = 10000;
// Far beyond any real array (NumPy allows 64 dims).
constexpr size_t kMaxRank = 64;

struct Descr {
  const char* text;  // without the byte-order character
  DataType dtype;
};
// descr (after '<' or '|') <-> dtype; bfloat16 is absent on purpose (NumPy has none).
const Descr kDescrs[] = {
    {"f4", DataType::kFloat32}, {"f8", DataType::kFloat64}, {"f2", DataType::kFloat16},
    {"i1", DataType::kInt8},    {"u1", DataType::kUInt8},   {"i4", DataType::kInt32},
    {"i8", DataType::kInt64},   {"b1", DataType::kBool},
};

Maybe<DataType> DescrToDataType(const std::string& path, const std::string& descr) {
  OFLITE_CHECK_OR_RETURN(descr.size() >= 2, ValueError)
      << path << ": invalid descr '" << descr << "'";
  OFLITE_CHECK_OR_RETURN(descr[0] != '>', NotImplemented)
      << path << ": big-endian data ('" << descr << "') is not supported";
  for (const Descr& d : kDescrs) {
    if (descr.substr(1) == d.text) {
      return d.dtype;
    }
  }
  return OFLITE_ERROR(NotImplemented)
         << path << ": unsupported NumPy dtype '" << descr
         << "' (supported: float32, float64, float16, int8, uint8, int32, int64, bool)";
}

// Pulls one value out of the header dict, e.g. 'descr': '<f4'.
Maybe<std::string> HeaderField(const std::string& path, const std::string& header,
                               const std::string& key, const std::string& value_pattern) {
  std::smatch match;
  const std::regex pattern("['\"]" + key + "['\"]\\s*:\\s*(" + value_pattern + ")");
  OFLITE_CHECK_OR_RETURN(std::regex_search(header, match, pattern), ValueError)
      << path << ": the .npy header has no valid '" << key << "' (header: " << header << ")";
  return match[1].str();
}

Maybe<Shape> ParseShape(const std::string& path, const std::string& tuple) {
  // A Python tuple of non-negative integers: (), (3,), (2, 3), with optional trailing comma.
  static const std::regex kTuple(R"(\(\s*(\d+\s*,\s*)*(\d+\s*,?\s*)?\))");
  OFLITE_CHECK_OR_RETURN(std::regex_match(tuple, kTuple), ValueError)
      << path << ": shape " << tuple << " is not a tuple of non-negative integers";
  std::vector<int64_t> dims;
  const std::regex number("\\d+");
  for (auto it = std::sregex_iterator(tuple.begin(), tuple.end(), number);
       it != std::sregex_iterator(); ++it) {
    const std::string digits = it->str();
    OFLITE_CHECK_OR_RETURN(digits.size() <= 18, ValueError)
        << path << ": dim " << digits << " in shape " << tuple << " is too large";
    dims.push_back(std::stoll(digits));
  }
  OFLITE_CHECK_OR_RETURN(dims.size() <= kMaxRank, ValueError)
      << path << ": rank " << dims.size() << " exceeds " << kMaxRank;
  Shape shape(dims);
  OFLITE_JUST(shape.Validate());
  return shape;
}
}  // namespace

Maybe<Tensor> Load(const std::string& path, const Device& device) {
  std::error_code ignored;
  OFLITE_CHECK_OR_RETURN(!std::filesystem::is_directory(path, ignored), ValueError)
      << path << ": is a directory, not a .npy file";
  std::ifstream file(path, std::ios::binary);
  OFLITE_CHECK_OR_RETURN(file.good(), ValueError) << path << ": cannot open file";
  // Read only what the preamble promises, so a huge or endless file (/dev/zero) costs nothing.
  char preamble[12] = {};
  file.read(preamble, 8);
  OFLITE_CHECK_OR_RETURN(file.gcount() == 8 && std::memcmp(preamble, kMagic, kMagicSize) == 0,
                         ValueError)
      << path << ": not a .npy file (bad magic)";
  const int major = static_cast<unsigned char>(preamble[6]);
  OFLITE_CHECK_OR_RETURN(major >= 1 && major <= 3, ValueError)
      << path << ": unsupported .npy format version " << major;
  // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4 (little-endian).
  const std::streamsize length_bytes = major == 1 ? 2 : 4;
  file.read(preamble + 8, length_bytes);
  OFLITE_CHECK_OR_RETURN(file.gcount() == length_bytes, ValueError) << path << ": truncated header";
  size_t header_length = 0;
  for (std::streamsize i = 0; i < length_bytes; ++i) {
    header_length |= static_cast<size_t>(static_cast<unsigned char>(preamble[8 + i])) << (8 * i);
  }
  OFLITE_CHECK_OR_RETURN(header_length <= kMaxHeaderBytes, ValueError)
      << path << ": header of " << header_length << " bytes exceeds the " << kMaxHeaderBytes
      << " NumPy itself reads";
  std::string header(header_length, '\0');
  file.read(header.data(), static_cast<std::streamsize>(header_length));
  OFLITE_CHECK_OR_RETURN(static_cast<size_t>(file.gcount()) == header_length, ValueError)
      << path << ": truncated header";

  std::string descr, fortran, shape_text;
  OFLITE_ASSIGN_OR_RETURN(descr, HeaderField(path, header, "descr", "'[^']*'|\"[^\"]*\""));
  OFLITE_ASSIGN_OR_RETURN(fortran, HeaderField(path, header, "fortran_order", "True|False"));
  OFLITE_ASSIGN_OR_RETURN(shape_text, HeaderField(path, header, "shape", "\\([^)]*\\)"));
  OFLITE_CHECK_OR_RETURN(fortran == "False", NotImplemented)
      << path << ": Fortran-order arrays are not supported (save with C order)";
  DataType dtype;
  OFLITE_ASSIGN_OR_RETURN(dtype, DescrToDataType(path, descr.substr(1, descr.size() - 2)));
  Shape shape;
  OFLITE_ASSIGN_OR_RETURN(shape, ParseShape(path, shape_text));
  OFLITE_CHECK_OR_RETURN(static_cast<uint64_t>(shape.elem_cnt()) <= SIZE_MAX / DataTypeSize(dtype),
                         ValueError)
      << path << ": shape " << shape << " of " << dtype << " is too large";
  const size_t expected = static_cast<size_t>(shape.elem_cnt()) * DataTypeSize(dtype);
  // Compare sizes before allocating anything for the data.
  const size_t data_offset = 8 + static_cast<size_t>(length_bytes) + header_length;
  const uintmax_t file_size = std::filesystem::file_size(path, ignored);
  const uintmax_t available = file_size >= data_offset ? file_size - data_offset : 0;
  OFLITE_CHECK_OR_RETURN(available == expected, ValueError)
      << path << ": holds " << available << " data bytes, shape " << shape << " of " << dtype
      << " needs " << expected;
  std::vector<char> data(expected);
  file.read(data.data(), static_cast<std::streamsize>(expected));
  OFLITE_CHECK_OR_RETURN(static_cast<size_t>(file.gcount()) == expected, ValueError)
      << path << ": truncated data";
  return Tensor::FromHost(data.data(), expected, shape, dtype, device);
}

Maybe<void> Save(const std::string& path, const Tensor& tensor, bool bfloat16_bits) {
  std::vector<char> data(tensor.nbytes());
  OFLITE_JUST(tensor.CopyToHost(data.data(), data.size()));
  std::string descr;
  if (tensor.dtype() == DataType::kBFloat16) {
    if (bfloat16_bits) {
      descr = "<u2";
    } else {  // widen to float32, which holds every bfloat16 exactly
      std::vector<char> widened(data.size() * 2);
      for (size_t i = 0; i < data.size() / 2; ++i) {
        bfloat16 b;
        std::memcpy(&b, data.data() + 2 * i, 2);
        const float f = b;
        std::memcpy(widened.data() + 4 * i, &f, 4);
      }
      data.swap(widened);
      descr = "<f4";
    }
  }
  for (const Descr& d : kDescrs) {
    if (descr.empty() && d.dtype == tensor.dtype()) {
      descr = (DataTypeSize(d.dtype) == 1 ? "|" : "<") + std::string(d.text);
    }
  }
  // As NumPy writes it: (), (3,), (2, 3)
  std::string shape = "(";
  for (int64_t i = 0; i < tensor.rank(); ++i) {
    shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  }
  shape += tensor.rank() == 1 ? ",)" : ")";
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary, ending the header with '\n'.
  const size_t unpadded = kMagicSize + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  OFLITE_CHECK_OR_RETURN(header.size() <= kMaxHeaderBytes, ValueError)
      << path << ": a rank-" << tensor.rank() << " header does not fit a .npy file";
  std::ofstream file(path, std::ios::binary);
  OFLITE_CHECK_OR_RETURN(file.good(), ValueError) << path << ": cannot open for writing";
  const uint16_t length = static_cast<uint16_t>(header.size());
  const char version[2] = {1, 0};
  const char length_bytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  file.write(kMagic, kMagicSize).write(version, 2).write(length_bytes, 2);
  file.write(header.data(), static_cast<std::streamsize>(header.size()));
  file.write(data.data(), static_cast<std::streamsize>(data.size()));
  OFLITE_CHECK_OR_RETURN(file.good(), ValueError) << path << ": write failed";
  return Ok();
}

}  // namespace npy
}  // namespace oflite
