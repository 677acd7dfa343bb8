// Unit tests of oflite::npy::Load and Save: round trips per dtype and rank, the exact header
// NumPy writes, bfloat16 handling, and every error a bad file can raise.
#include "tools/oflite/npy.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/test_util.h"

namespace oflite {
namespace {

using test::ExpectError;
using test::MakeTensor;
using test::ToDoubles;
using test::Unwrap;

// A fresh directory under GoogleTest's temp dir, removed with everything in it at the end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = ::testing::TempDir() + "oflite_npy_test_XXXXXX";
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp failed for " << pattern;
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string ReadBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  return std::string((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(file.good()) << "cannot write " << path;
}

// A .npy file written the way NumPy does: magic, version, little-endian header length (2 bytes
// for version 1, 4 for versions 2 and 3), the dict padded with spaces and ended by '\n' so the
// data starts on a 64-byte boundary, then the raw data.
std::string NpyFile(const std::string& dict, const std::string& data, int major = 1) {
  const size_t length_bytes = major == 1 ? 2 : 4;
  std::string header = dict;
  const size_t prefix = 6 + 2 + length_bytes;
  while ((prefix + header.size() + 1) % 64 != 0) {
    header += ' ';
  }
  header += '\n';
  std::string bytes("\x93NUMPY", 6);
  bytes += static_cast<char>(major);
  bytes += static_cast<char>(0);
  for (size_t i = 0; i < length_bytes; ++i) {
    bytes += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return bytes + header + data;
}

template <typename T>
std::string RawBytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

std::string HostBytes(const Tensor& tensor) {
  std::string bytes(tensor.nbytes(), '\0');
  EXPECT_TRUE(tensor.CopyToHost(bytes.data(), bytes.size()).ok());
  return bytes;
}

// The parts of a saved file, checked for the framing NumPy requires.
struct ParsedNpy {
  std::string header;  // the dict text and its padding, with the closing '\n'
  size_t data_offset = 0;
  std::string data;
};

ParsedNpy ParseVersion1(const std::string& bytes) {
  ParsedNpy parsed;
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) {
    return parsed;
  }
  EXPECT_EQ(bytes.substr(0, 6), std::string("\x93NUMPY", 6));
  EXPECT_EQ(bytes[6], 1) << "major version";
  EXPECT_EQ(bytes[7], 0) << "minor version";
  const size_t length = static_cast<unsigned char>(bytes[8]) |
                        (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  parsed.data_offset = 10 + length;
  EXPECT_LE(parsed.data_offset, bytes.size());
  if (parsed.data_offset > bytes.size()) {
    return parsed;
  }
  parsed.header = bytes.substr(10, length);
  parsed.data = bytes.substr(parsed.data_offset);
  return parsed;
}

// The header holds exactly `dict`, then only spaces, then '\n', and the data is 64-aligned.
void ExpectNumpyHeader(const ParsedNpy& parsed, const std::string& dict) {
  EXPECT_EQ(parsed.data_offset % 64, 0u) << "data offset " << parsed.data_offset;
  ASSERT_GE(parsed.header.size(), dict.size() + 1) << parsed.header;
  EXPECT_EQ(parsed.header.substr(0, dict.size()), dict);
  EXPECT_EQ(parsed.header.back(), '\n');
  const std::string padding =
      parsed.header.substr(dict.size(), parsed.header.size() - dict.size() - 1);
  EXPECT_EQ(padding.find_first_not_of(' '), std::string::npos)
      << "padding must be spaces only: '" << padding << "'";
}

// Saves `values` as a tensor of T, checks the file's header and data bytes, loads it back and
// checks shape, dtype and every byte of the data.
template <typename T>
void ExpectRoundTrip(const std::vector<T>& values, const Shape& shape, const std::string& dict) {
  SCOPED_TRACE(dict);
  ScratchDir dir;
  const std::string path = dir.File("t.npy");
  const Tensor tensor = Unwrap(Tensor::FromVector<T>(values, shape));
  ASSERT_TRUE(npy::Save(path, tensor).ok());

  const ParsedNpy parsed = ParseVersion1(ReadBytes(path));
  ExpectNumpyHeader(parsed, dict);
  EXPECT_EQ(parsed.data, RawBytes(values)) << "data section";

  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.shape(), shape);
  EXPECT_EQ(loaded.dtype(), kDataTypeOf<T>);
  EXPECT_EQ(loaded.device(), Device::Cpu());
  EXPECT_EQ(HostBytes(loaded), RawBytes(values)) << "loaded data";
}

TEST(NpyTest, Float32RoundTrip) {
  ExpectRoundTrip<float>({1.5f, -2.25f, 0.0f, -0.0f, 3.0e38f, 1.0e-45f}, {2, 3},
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
}

TEST(NpyTest, Float32RoundTripKeepsInfinity) {
  const float inf = std::numeric_limits<float>::infinity();
  ExpectRoundTrip<float>({inf, -inf, 0.1f, 7.0f}, {4},
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }");
}

TEST(NpyTest, Float64RoundTrip) {
  ExpectRoundTrip<double>({0.1, -1e300, 4.9e-324, 2.0, 1.0 / 3.0, -7.5}, {3, 2},
                          "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }");
}

TEST(NpyTest, Float16RoundTrip) {
  std::vector<float16> values;
  for (uint16_t bits : {0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x3555}) {
    values.push_back(float16::FromBits(bits));  // 1, -2, 65504, smallest subnormal, -0, ~1/3
  }
  ExpectRoundTrip<float16>(values, {1, 2, 3},
                           "{'descr': '<f2', 'fortran_order': False, 'shape': (1, 2, 3), }");
}

TEST(NpyTest, Int8RoundTrip) {
  ExpectRoundTrip<int8_t>({-128, -1, 0, 1, 127}, {5},
                          "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }");
}

TEST(NpyTest, UInt8RoundTrip) {
  ExpectRoundTrip<uint8_t>({0, 1, 128, 255}, {2, 2},
                           "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }");
}

TEST(NpyTest, Int32RoundTrip) {
  ExpectRoundTrip<int32_t>({std::numeric_limits<int32_t>::min(), -7, 0, 42, 2147483647, 65536},
                           {2, 3}, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }");
}

TEST(NpyTest, Int64RoundTrip) {
  // 2^62 + 1 has no exact double: compared byte by byte it must survive unchanged.
  ExpectRoundTrip<int64_t>({(int64_t{1} << 62) + 1, -1, std::numeric_limits<int64_t>::min(), 0},
                           {2, 1, 2},
                           "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 1, 2), }");
}

TEST(NpyTest, BoolRoundTrip) {
  ScratchDir dir;
  const std::string path = dir.File("b.npy");
  const std::vector<bool> values = {true, false, false, true, true, false};
  ASSERT_TRUE(npy::Save(path, Unwrap(Tensor::FromVector<bool>(values, {3, 2}))).ok());
  const ParsedNpy parsed = ParseVersion1(ReadBytes(path));
  ExpectNumpyHeader(parsed, "{'descr': '|b1', 'fortran_order': False, 'shape': (3, 2), }");
  EXPECT_EQ(parsed.data, std::string("\x01\x00\x00\x01\x01\x00", 6));
  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.dtype(), DataType::kBool);
  EXPECT_EQ(loaded.shape(), Shape({3, 2}));
  EXPECT_EQ(Unwrap(loaded.ToVector<bool>()), values);
}

TEST(NpyTest, RankZeroRoundTrip) {
  ExpectRoundTrip<double>({-3.25}, Shape(),
                          "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
}

TEST(NpyTest, RankOneRoundTrip) {
  ExpectRoundTrip<int32_t>({9}, {1}, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }");
}

TEST(NpyTest, ZeroSizeRoundTrip) {
  ExpectRoundTrip<float>({}, {0, 3}, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }");
}

TEST(NpyTest, ZeroSizeRankOneRoundTrip) {
  ExpectRoundTrip<int64_t>({}, {0}, "{'descr': '<i8', 'fortran_order': False, 'shape': (0,), }");
}

TEST(NpyTest, SavedFileLengthIsHeaderPlusData) {
  ScratchDir dir;
  const std::string path = dir.File("len.npy");
  const Tensor t = MakeTensor(test::RandomValues(35, 7), {5, 7}, DataType::kFloat32);
  ASSERT_TRUE(npy::Save(path, t).ok());
  const std::string bytes = ReadBytes(path);
  const ParsedNpy parsed = ParseVersion1(bytes);
  EXPECT_EQ(bytes.size(), parsed.data_offset + 35 * sizeof(float));
  ExpectNumpyHeader(parsed, "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 7), }");
}

// A file as NumPy 1.24+ writes it: the spare growth spaces after the dict, data at 128.
TEST(NpyTest, LoadsNumpyWrittenFileWithGrowthPadding) {
  ScratchDir dir;
  const std::string path = dir.File("np.npy");
  const std::vector<float> values = {1, 2, 3, 4, 5, 6};
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(20, ' ');
  const std::string file = NpyFile(dict, RawBytes(values));
  ASSERT_EQ(file.size(), 128 + values.size() * sizeof(float));
  WriteBytes(path, file);
  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.shape(), Shape({2, 3}));
  EXPECT_EQ(loaded.dtype(), DataType::kFloat32);
  EXPECT_EQ(Unwrap(loaded.ToVector<float>()), values);
}

TEST(NpyTest, LoadsKeysInAnyOrder) {
  ScratchDir dir;
  const std::string path = dir.File("order.npy");
  const std::vector<int32_t> values = {10, 20, 30};
  WriteBytes(path,
             NpyFile("{'shape': (3,), 'fortran_order': False, 'descr': '<i4'}", RawBytes(values)));
  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.shape(), Shape({3}));
  EXPECT_EQ(Unwrap(loaded.ToVector<int32_t>()), values);
}

TEST(NpyTest, LoadsVersion2Header) {
  ScratchDir dir;
  const std::string path = dir.File("v2.npy");
  const std::vector<double> values = {0.5, -1.5, 2.5, 1e10};
  const std::string file =
      NpyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", RawBytes(values), 2);
  ASSERT_EQ(file[6], 2);
  ASSERT_EQ((file.size() - values.size() * sizeof(double)) % 64, 0u);
  WriteBytes(path, file);
  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.shape(), Shape({2, 2}));
  EXPECT_EQ(loaded.dtype(), DataType::kFloat64);
  EXPECT_EQ(Unwrap(loaded.ToVector<double>()), values);
}

TEST(NpyTest, LoadsOntoRequestedCpuDevice) {
  ScratchDir dir;
  const std::string path = dir.File("dev.npy");
  const std::vector<uint8_t> values = {3, 1, 4};
  WriteBytes(
      path, NpyFile("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", RawBytes(values)));
  const Tensor loaded = Unwrap(npy::Load(path, Device::Cpu()));
  EXPECT_EQ(loaded.device(), Device::Cpu());
  EXPECT_EQ(Unwrap(loaded.ToVector<uint8_t>()), values);
}

TEST(NpyTest, Bfloat16IsSavedAsExactFloat32) {
  ScratchDir dir;
  const std::string path = dir.File("bf16.npy");
  // bfloat16 keeps 8 mantissa bits: these are exact bfloat16 values, so float32 holds them too.
  const std::vector<double> exact = {1.0, -2.5, 3.140625, 0.0078125, -1024.0, 65280.0};
  const Tensor t = MakeTensor(exact, {2, 3}, DataType::kBFloat16);
  ASSERT_EQ(t.dtype(), DataType::kBFloat16);
  ASSERT_TRUE(npy::Save(path, t).ok());
  const ParsedNpy parsed = ParseVersion1(ReadBytes(path));
  ExpectNumpyHeader(parsed, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  const std::vector<float> as_float(exact.begin(), exact.end());
  EXPECT_EQ(parsed.data, RawBytes(as_float));
  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.dtype(), DataType::kFloat32);
  EXPECT_EQ(loaded.shape(), Shape({2, 3}));
  EXPECT_EQ(ToDoubles(loaded), exact);
}

TEST(NpyTest, Bfloat16NonExactValuesWidenToTheirBfloat16Value) {
  ScratchDir dir;
  const std::string path = dir.File("bf16r.npy");
  // bfloat16 steps by 2^-7 near 1. 1.00390625 (1 + 2^-8) is a tie between 1 and 1 + 2^-7 and
  // rounds to the even mantissa, 1.0; 1.01171875 (1 + 3 * 2^-8) is a tie between 1 + 2^-7 and
  // 1 + 2^-6 and rounds to 1.015625.
  const Tensor t = MakeTensor({1.00390625, 1.01171875}, {2}, DataType::kBFloat16);
  ASSERT_TRUE(npy::Save(path, t).ok());
  const Tensor loaded = Unwrap(npy::Load(path));
  EXPECT_EQ(loaded.dtype(), DataType::kFloat32);
  EXPECT_EQ(ToDoubles(loaded), (std::vector<double>{1.0, 1.015625}));
}

TEST(NpyTest, Bfloat16BitsAreSavedAsUint16) {
  ScratchDir dir;
  const std::string path = dir.File("bits.npy");
  std::vector<bfloat16> values;
  for (uint16_t bits : {0x3f80, 0xc020, 0x4049, 0x7f80}) {
    values.push_back(bfloat16::FromBits(bits));  // 1, -2.5, 3.140625, inf
  }
  const Tensor t = Unwrap(Tensor::FromVector<bfloat16>(values, {4}));
  ASSERT_TRUE(npy::Save(path, t, /*bfloat16_bits=*/true).ok());
  const ParsedNpy parsed = ParseVersion1(ReadBytes(path));
  ExpectNumpyHeader(parsed, "{'descr': '<u2', 'fortran_order': False, 'shape': (4,), }");
  EXPECT_EQ(parsed.data, std::string("\x80\x3f\x20\xc0\x49\x40\x80\x7f", 8));
  // uint16 is not a tensor dtype, so the file cannot be read back.
  ExpectError(npy::Load(path), ErrorKind::kNotImplemented, {path, "'<u2'"});
}

TEST(NpyTest, Bfloat16BitsFlagLeavesOtherDtypesAlone) {
  ScratchDir dir;
  const std::string path = dir.File("f32.npy");
  const std::vector<float> values = {0.25f, -8.0f};
  ASSERT_TRUE(npy::Save(path, Unwrap(Tensor::FromVector<float>(values, {2})), true).ok());
  const ParsedNpy parsed = ParseVersion1(ReadBytes(path));
  ExpectNumpyHeader(parsed, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }");
  EXPECT_EQ(parsed.data, RawBytes(values));
}

TEST(NpyTest, Uint16IsNotImplemented) {
  ScratchDir dir;
  const std::string path = dir.File("u2.npy");
  WriteBytes(path, NpyFile("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }",
                           std::string(4, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kNotImplemented, {path, "unsupported NumPy dtype '<u2'"});
}

TEST(NpyTest, ComplexIsNotImplemented) {
  ScratchDir dir;
  const std::string path = dir.File("c8.npy");
  WriteBytes(path, NpyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                           std::string(8, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kNotImplemented, {"'<c8'"});
}

TEST(NpyTest, FortranOrderIsNotImplemented) {
  ScratchDir dir;
  const std::string path = dir.File("fortran.npy");
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
                           std::string(24, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kNotImplemented, {path, "Fortran"});
}

TEST(NpyTest, BigEndianIsNotImplemented) {
  ScratchDir dir;
  const std::string path = dir.File("be.npy");
  WriteBytes(path, NpyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                           std::string("\x3f\x80\x00\x00\x40\x00\x00\x00", 8)));
  ExpectError(npy::Load(path), ErrorKind::kNotImplemented, {path, "big-endian", "'>f4'"});
}

TEST(NpyTest, BadMagicIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("magic.npy");
  std::string file =
      NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  file[1] = 'X';  // "\x93XUMPY"
  WriteBytes(path, file);
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "bad magic"});
}

TEST(NpyTest, TextFileIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("text.npy");
  WriteBytes(path, "1.0, 2.0, 3.0\n");
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "not a .npy file"});
}

TEST(NpyTest, EmptyFileIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("empty.npy");
  WriteBytes(path, "");
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path});
}

TEST(NpyTest, TruncatedDataIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("short.npy");
  // (2, 3) float32 needs 24 data bytes; the file holds 20.
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                           std::string(20, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "20", "24"});
}

TEST(NpyTest, ExtraDataIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("long.npy");
  WriteBytes(path, NpyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                           std::string(12, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "12", "8"});
}

TEST(NpyTest, TruncatedHeaderIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("header.npy");
  const std::string file =
      NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0'));
  WriteBytes(path, file.substr(0, 40));  // the header says 118 bytes follow, 30 do
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "truncated header"});
}

TEST(NpyTest, MissingShapeKeyIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("noshape.npy");
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': False, }", std::string(4, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "'shape'"});
}

// NumPy rejects these shapes; reading the digits out of them would give another shape whose
// data size happens to match.
TEST(NpyTest, NegativeDimInShapeIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("negative.npy");
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
                           std::string(8, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "shape"});
}

TEST(NpyTest, NonIntegerDimInShapeIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("fraction.npy");
  // Read digit by digit, (2.5,) would become (2, 5): 10 floats, which the 40 bytes would fill.
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,), }",
                           std::string(40, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "shape"});
}

TEST(NpyTest, DirectoryIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("");
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path});
}

TEST(NpyTest, UnsupportedVersionIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("v9.npy");
  std::string file =
      NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  file[6] = 9;
  WriteBytes(path, file);
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "version 9"});
}

TEST(NpyTest, MissingFileIsValueErrorNamingThePath) {
  ScratchDir dir;
  const std::string path = dir.File("does_not_exist.npy");
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "cannot open"});
}

TEST(NpyTest, SaveIntoMissingDirectoryIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("no_such_dir/out.npy");
  const Tensor t = MakeTensor({1.0}, {1}, DataType::kFloat32);
  ExpectError(npy::Save(path, t), ErrorKind::kValueError, {path});
}

TEST(NpyTest, OversizedHeaderIsValueErrorNotACrash) {
  // A 200 KB descr once overflowed the regex parser's stack; the length cap rejects it first.
  ScratchDir dir;
  const std::string path = dir.File("huge_header.npy");
  WriteBytes(path, NpyFile("{'descr': '" + std::string(200000, 'f') +
                               "', 'fortran_order': False, 'shape': (1,), }",
                           std::string(4, '\0'), /*major=*/2));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "exceeds the 10000"});
}

TEST(NpyTest, RankAboveTheTensorLimitIsValueError) {
  ScratchDir dir;
  const std::string path = dir.File("rank17.npy");
  std::string dims;
  for (int i = 0; i < 17; ++i) {
    dims += "1, ";
  }
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }",
                           std::string(4, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "17 dims", "at most 16"});
}

TEST(NpyTest, DataSizeIsCheckedBeforeReadingIt) {
  // Claims 2^40 float32 elements but holds 4 bytes: a size error, no giant allocation.
  ScratchDir dir;
  const std::string path = dir.File("liar.npy");
  WriteBytes(path, NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }",
                           std::string(4, '\0')));
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "holds 4 data bytes"});
}

// ---------------------------------------------------------------------------------------------
// Hostile and unusual inputs.

TEST(NpyTest, BoolBytesOtherThanZeroAndOneLoadAsTrueAsInNumpy) {
  ScratchDir dir;
  const std::string path = dir.File("bools.npy");
  WriteBytes(path, NpyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (6,), }",
                           std::string("\x00\x01\x02\x03\xff\x00", 6)));
  const Tensor t = Unwrap(npy::Load(path));
  // NumPy: np.load(path).astype(np.int32) is [0 1 1 1 1 0]
  EXPECT_EQ(ToDoubles(Unwrap(functional::Cast(t, DataType::kInt32))),
            (std::vector<double>{0, 1, 1, 1, 1, 0}));
}

TEST(NpyTest, ARepeatedKeyKeepsItsLastValue) {
  ScratchDir dir;
  const std::string path = dir.File("twice.npy");
  WriteBytes(path, NpyFile("{'descr': '<f4', 'shape': (9,), 'fortran_order': False, "
                           "'shape': (2,), }",
                           RawBytes(std::vector<float>{1, 2})));
  EXPECT_EQ(Unwrap(npy::Load(path)).shape(), Shape{2});
}

TEST(NpyTest, HeadersNumpyRefusesAreRefused) {
  ScratchDir dir;
  const std::string path = dir.File("bad.npy");
  const std::pair<std::string, std::string> cases[] = {
      {"{'descr': 'xf4', 'fortran_order': False, 'shape': (1,), }", "'xf4'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unexpected key"},
      {"{'descr': '<f4\", 'fortran_order': False, 'shape': (1,), }", "expected ',' or '}'"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }", "expected ',' or '}'"},
      {"{'descr': '<f4}", "unsupported character"},  // the string runs into the padding's '\n'
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\xff", "unexpected text"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }" + std::string(1, '\0'),
       "unexpected text"},
  };
  for (const auto& [dict, fragment] : cases) {
    WriteBytes(path, NpyFile(dict, std::string(4, '\0')));
    ExpectError(npy::Load(path), ErrorKind::kValueError, {path, fragment});
  }
}

TEST(NpyTest, LoadsVersion3Header) {
  ScratchDir dir;
  const std::string path = dir.File("v3.npy");
  WriteBytes(path, NpyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                           RawBytes(std::vector<int32_t>{7, -8}), 3));
  EXPECT_EQ(ToDoubles(Unwrap(npy::Load(path))), (std::vector<double>{7, -8}));
}

TEST(NpyTest, AMinorVersionNumpyNeverWroteIsRefused) {
  ScratchDir dir;
  const std::string path = dir.File("v1_5.npy");
  std::string file =
      NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
  file[7] = 5;
  WriteBytes(path, file);
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "version 1.5"});
}

// open() of a FIFO blocks until a writer comes; the reader opens without blocking and gives a
// writer a few seconds, so a FIFO nobody writes is an error, not a hang.
TEST(NpyTest, AFifoWithoutAWriterIsAValueErrorNotAHang) {
  ScratchDir dir;
  const std::string path = dir.File("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "no writer opened the FIFO"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// `producer > fifo & oflite run --in fifo`: the writer may come a moment after the reader.
TEST(NpyTest, AFifoWhoseWriterComesLateIsRead) {
  ScratchDir dir;
  const std::string path = dir.File("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const std::string file = NpyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                                   RawBytes(std::vector<int32_t>{5, 6}));
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    WriteBytes(path, file);  // opens the FIFO for writing: blocks until the reader is there
  });
  const Maybe<Tensor> loaded = npy::Load(path);
  writer.join();
  EXPECT_EQ(ToDoubles(Unwrap(loaded)), (std::vector<double>{5, 6}));
}

// A pipe has no size: the data is read as it comes, and must end where the shape says.
TEST(NpyTest, LoadsFromAPipe) {
  const std::string file = NpyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                                   RawBytes(std::vector<double>{1.5, -2, 4}));
  for (const std::string& extra : {std::string(), std::string("x")}) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::thread writer([&] {
      const std::string bytes = file + extra;
      EXPECT_EQ(write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
      close(fds[1]);
    });
    const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
    const Maybe<Tensor> loaded = npy::Load(path);
    writer.join();
    close(fds[0]);
    if (extra.empty()) {
      EXPECT_EQ(ToDoubles(Unwrap(loaded)), (std::vector<double>{1.5, -2, 4}));
    } else {
      ExpectError(loaded, ErrorKind::kValueError, {path, "more data than the header's shape"});
    }
  }
}

TEST(NpyTest, AShortPipeIsAValueErrorNamingWhatCame) {
  const std::string file = NpyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                                   RawBytes(std::vector<double>{1.5}));
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], file.data(), file.size()), static_cast<ssize_t>(file.size()));
  close(fds[1]);
  const std::string path = "/proc/self/fd/" + std::to_string(fds[0]);
  ExpectError(npy::Load(path), ErrorKind::kValueError, {path, "holds 8 data bytes", "needs 24"});
  close(fds[0]);
}

}  // namespace
}  // namespace oflite
