#include "tools/oflite/npy.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "tools/oflite/npy_header.h"
#include "tools/oflite/output_file.h"

namespace oflite {
namespace npy {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// NumPy refuses longer headers by default (max_header_size); so do we.
constexpr size_t kMaxHeaderBytes = 10000;
// Data from a pipe arrives in pieces of this size, so a header that promises more than the
// stream holds costs no more memory than the stream.
constexpr size_t kStreamChunk = size_t{1} << 20;
// How long a FIFO's writer has to appear.
constexpr int kFifoWaitMs = 5000;

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

// A byte order ('<' little, '>' big, '|' not applicable, '=' native: little here) and a type
// code. NumPy accepts more spellings ('float32', 'f'); those are NotImplemented here.
Maybe<DataType> DescrToDataType(const std::string& path, const std::string& descr) {
  const std::string order = "<>|=";
  OFLITE_CHECK_OR_RETURN(descr.size() >= 2 && order.find(descr[0]) != std::string::npos, ValueError)
      << path << ": descr '" << descr
      << "' is not a dtype descriptor oflite reads (a byte order '<', '>', '|' or '=', then a "
      << "type code such as f4)";
  for (const Descr& d : kDescrs) {
    if (descr.substr(1) == d.text) {
      OFLITE_CHECK_OR_RETURN(descr[0] != '>' || DataTypeSize(d.dtype) == 1, NotImplemented)
          << path << ": big-endian data ('" << descr << "') is not supported";
      return d.dtype;
    }
  }
  return OFLITE_ERROR(NotImplemented)
         << path << ": unsupported NumPy dtype '" << descr
         << "' (supported: float32, float64, float16, int8, uint8, int32, int64, bool)";
}

// The input file: a regular file, or a pipe, FIFO or device read as a stream.
class InputFile {
 public:
  InputFile() = default;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() {
    if (fd_ >= 0) {
      close(fd_);
    }
  }

  Maybe<void> Open(const std::string& path) {
    path_ = path;
    fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    OFLITE_CHECK_OR_RETURN(fd_ >= 0, ValueError) << path << ": cannot open file: " << Reason();
    struct stat info;
    OFLITE_CHECK_OR_RETURN(fstat(fd_, &info) == 0, ValueError)
        << path << ": cannot read: " << Reason();
    OFLITE_CHECK_OR_RETURN(!S_ISDIR(info.st_mode), ValueError)
        << path << ": is a directory, not a .npy file";
    regular_ = S_ISREG(info.st_mode);
    size_ = regular_ ? static_cast<uint64_t>(info.st_size) : 0;
    if (S_ISFIFO(info.st_mode)) {
      OFLITE_JUST(AwaitWriter());
    }
    const int flags = fcntl(fd_, F_GETFL);
    OFLITE_CHECK_OR_RETURN(flags >= 0 && fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) == 0, ValueError)
        << path << ": cannot read: " << Reason();
    return Ok();
  }

  // Reads up to n bytes, fewer only at the end of the file.
  Maybe<size_t> Read(char* buffer, size_t n) {
    size_t done = 0;
    if (has_pending_ && n > 0) {
      buffer[done++] = pending_;
      has_pending_ = false;
    }
    while (done < n) {
      const ssize_t got = read(fd_, buffer + done, n - done);
      if (got < 0 && errno == EINTR) {
        continue;
      }
      OFLITE_CHECK_OR_RETURN(got >= 0, ValueError) << path_ << ": cannot read: " << Reason();
      if (got == 0) {
        break;
      }
      done += static_cast<size_t>(got);
    }
    return done;
  }

  bool regular() const { return regular_; }
  uint64_t size() const { return size_; }

 private:
  static std::string Reason() { return std::strerror(errno); }

  // Opened without blocking, a FIFO nobody writes to yet reads as end-of-file at once: give a
  // writer that is starting up a few seconds to come, instead of failing at once or (as a
  // blocking open would) waiting forever. A pipe with a writer is read at the writer's pace.
  Maybe<void> AwaitWriter() {
    ssize_t got = -1;
    do {
      got = read(fd_, &pending_, 1);
    } while (got < 0 && errno == EINTR);
    has_pending_ = got == 1;
    if (got != 0) {
      OFLITE_CHECK_OR_RETURN(got == 1 || errno == EAGAIN, ValueError)
          << path_ << ": cannot read: " << Reason();
      return Ok();  // data, or a writer that has not written yet
    }
    pollfd writer{fd_, POLLIN, 0};
    int ready = -1;
    do {
      ready = poll(&writer, 1, kFifoWaitMs);
    } while (ready < 0 && errno == EINTR);
    OFLITE_CHECK_OR_RETURN(ready > 0, ValueError)
        << path_ << ": no writer opened the FIFO within " << kFifoWaitMs << " ms";
    return Ok();
  }

  std::string path_;
  int fd_ = -1;
  char pending_ = 0;  // a byte AwaitWriter read ahead
  bool has_pending_ = false;
  bool regular_ = false;
  uint64_t size_ = 0;
};

Maybe<void> ReadExactly(InputFile* file, const std::string& path, char* buffer, size_t n,
                        const char* what) {
  size_t got = 0;
  OFLITE_ASSIGN_OR_RETURN(got, file->Read(buffer, n));
  OFLITE_CHECK_OR_RETURN(got == n, ValueError)
      << path << ": truncated " << what << " (" << got << " of " << n << " bytes)";
  return Ok();
}

// The header text after the magic, version and length.
Maybe<std::string> ReadHeaderText(InputFile* file, const std::string& path, size_t* offset) {
  char preamble[12] = {};
  size_t got = 0;
  OFLITE_ASSIGN_OR_RETURN(got, file->Read(preamble, 8));
  OFLITE_CHECK_OR_RETURN(got == 8 && std::memcmp(preamble, kMagic, kMagicSize) == 0, ValueError)
      << path << ": not a .npy file (bad magic)";
  const int major = static_cast<unsigned char>(preamble[6]);
  const int minor = static_cast<unsigned char>(preamble[7]);
  OFLITE_CHECK_OR_RETURN(major >= 1 && major <= 3 && minor == 0, ValueError)
      << path << ": unsupported .npy format version " << major << "." << minor
      << " (NumPy writes 1.0, 2.0 and 3.0)";
  // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4 (little-endian).
  const size_t length_bytes = major == 1 ? 2 : 4;
  OFLITE_JUST(ReadExactly(file, path, preamble + 8, length_bytes, "header"));
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes; ++i) {
    header_length |= static_cast<size_t>(static_cast<unsigned char>(preamble[8 + i])) << (8 * i);
  }
  OFLITE_CHECK_OR_RETURN(header_length <= kMaxHeaderBytes, ValueError)
      << path << ": header of " << header_length << " bytes exceeds the " << kMaxHeaderBytes
      << " NumPy itself reads";
  std::string header(header_length, '\0');
  OFLITE_JUST(ReadExactly(file, path, header.data(), header_length, "header"));
  *offset = 8 + length_bytes + header_length;
  return header;
}

// The data of a regular file: its size is checked before anything is allocated.
Maybe<std::vector<char>> ReadFileData(InputFile* file, const std::string& path, size_t offset,
                                      size_t expected) {
  const uint64_t available = file->size() >= offset ? file->size() - offset : 0;
  OFLITE_CHECK_OR_RETURN(available == expected, ValueError)
      << path << ": holds " << available << " data bytes, the header's shape needs " << expected;
  std::vector<char> data(expected);
  OFLITE_JUST(ReadExactly(file, path, data.data(), expected, "data"));
  return data;
}

// The data of a pipe or device: read as it comes, then nothing may follow.
Maybe<std::vector<char>> ReadStreamData(InputFile* file, const std::string& path, size_t expected) {
  std::vector<char> data;
  while (data.size() < expected) {
    const size_t old_size = data.size();
    data.resize(old_size + std::min(kStreamChunk, expected - old_size));
    size_t got = 0;
    OFLITE_ASSIGN_OR_RETURN(got, file->Read(data.data() + old_size, data.size() - old_size));
    OFLITE_CHECK_OR_RETURN(old_size + got == data.size(), ValueError)
        << path << ": holds " << old_size + got << " data bytes, the header's shape needs "
        << expected;
  }
  char extra = 0;
  size_t more = 0;
  OFLITE_ASSIGN_OR_RETURN(more, file->Read(&extra, 1));
  OFLITE_CHECK_OR_RETURN(more == 0, ValueError)
      << path << ": holds more data than the header's shape needs (" << expected << " bytes)";
  return data;
}
}  // namespace

Maybe<Tensor> Load(const std::string& path, const Device& device) {
  InputFile file;
  OFLITE_JUST(file.Open(path));
  size_t data_offset = 0;
  std::string header_text;
  OFLITE_ASSIGN_OR_RETURN(header_text, ReadHeaderText(&file, path, &data_offset));
  Maybe<Header> parsed = ParseHeader(header_text);
  OFLITE_CHECK_OR_RETURN(parsed.ok(), ValueError)
      << path << ": " << (parsed.ok() ? "" : parsed.error().message());
  const Header& header = parsed.value();
  OFLITE_CHECK_OR_RETURN(!header.fortran_order, NotImplemented)
      << path << ": Fortran-order arrays are not supported (save with C order)";
  DataType dtype;
  OFLITE_ASSIGN_OR_RETURN(dtype, DescrToDataType(path, header.descr));
  const Shape shape(header.shape);
  const Maybe<void> valid = shape.Validate();
  OFLITE_CHECK_OR_RETURN(valid.ok(), ValueError)
      << path << ": " << (valid.ok() ? "" : valid.error().message());
  OFLITE_CHECK_OR_RETURN(static_cast<uint64_t>(shape.elem_cnt()) <= SIZE_MAX / DataTypeSize(dtype),
                         ValueError)
      << path << ": shape " << shape << " of " << dtype << " is too large";
  const size_t expected = static_cast<size_t>(shape.elem_cnt()) * DataTypeSize(dtype);
  std::vector<char> data;
  if (file.regular()) {
    OFLITE_ASSIGN_OR_RETURN(data, ReadFileData(&file, path, data_offset, expected));
  } else {
    OFLITE_ASSIGN_OR_RETURN(data, ReadStreamData(&file, path, expected));
  }
  // Tensor::FromHost reads bool bytes as NumPy does: any nonzero byte is true.
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
  const uint16_t length = static_cast<uint16_t>(header.size());
  const char preamble[4] = {1, 0, static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  return cli::WriteOutputFile(
      path, {std::string_view(kMagic, kMagicSize), std::string_view(preamble, 4), header,
             std::string_view(data.data(), data.size())});
}

}  // namespace npy
}  // namespace oflite
