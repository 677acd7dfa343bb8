#include "tests/dist/worker/collective_checks.h"

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/tensor.h"

namespace oflite {
namespace dist_test {

namespace {

using Counts = std::vector<int64_t>;

// The reference value of element i of stream `salt`: small integers (plus a half for floating
// dtypes, nonnegative for uint8), so that sums of a few ranks are exact in every dtype.
double ValueOf(int64_t salt, int64_t i, DataType dtype) {
  const int64_t k = (salt * 7 + i * 3 + 1) % 11;
  if (dtype == DataType::kBool) {
    return k % 3 == 0 ? 1 : 0;
  }
  if (dtype == DataType::kUInt8) {
    return static_cast<double>(k);
  }
  return static_cast<double>(k - 5) + (IsFloatingDataType(dtype) ? 0.5 : 0.0);
}

// The dtype's sum of two reference values: a logical or for bool.
double AddValues(double a, double b, DataType dtype) {
  return dtype == DataType::kBool ? (a != 0 || b != 0 ? 1 : 0) : a + b;
}

constexpr double kPoison = 99;

std::vector<char> Encode(const std::vector<double>& values, DataType dtype) {
  std::vector<char> bytes(values.size() * DataTypeSize(dtype));
  VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < values.size(); ++i) {
      T v;
      if constexpr (std::is_same_v<T, bool>) {
        v = values[i] != 0;
      } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        v = T(static_cast<float>(values[i]));
      } else {
        v = static_cast<T>(values[i]);
      }
      std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
    }
  });
  return bytes;
}

std::vector<double> Decode(const std::vector<char>& bytes, DataType dtype) {
  std::vector<double> values(bytes.size() / DataTypeSize(dtype));
  VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        values[i] = bytes[i] != 0 ? 1 : 0;  // read as a byte: any other value shows as true
      } else {
        T v;
        std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
        values[i] = static_cast<double>(v);
      }
    }
  });
  return values;
}

std::vector<double> Stream(int64_t salt, int64_t n, DataType dtype) {
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) {
    values[i] = ValueOf(salt, i, dtype);
  }
  return values;
}

std::string Join(const Counts& counts) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < counts.size(); ++i) {
    out << (i > 0 ? "," : "") << counts[i];
  }
  return out.str() + "]";
}

int64_t Total(const Counts& counts) {
  int64_t total = 0;
  for (int64_t c : counts) {
    total += c;
  }
  return total;
}

class Checker {
 public:
  Checker(dist::Communicator* comm, const Device& device)
      : comm_(comm), device_(device), rank_(comm->rank()), size_(comm->size()) {}

  Maybe<int64_t> Run() {
    OFLITE_ASSIGN_OR_RETURN(ep::Device * device, ep::GetDevice(device_));
    stream_ = device->stream();
    const std::vector<Counts> patterns = CountPatterns();
    for (DataType dtype : AllDataTypes()) {
      for (const Counts& counts : patterns) {
        OFLITE_JUST(AllGather(dtype, counts, /*in_place=*/false));
        OFLITE_JUST(ReduceScatter(dtype, counts));
      }
      OFLITE_JUST(AllGather(dtype, patterns[1], /*in_place=*/true));
      for (int64_t count : {int64_t{0}, int64_t{1}, int64_t{37}}) {
        OFLITE_JUST(AllReduce(dtype, count, /*in_place=*/false));
        OFLITE_JUST(Broadcast(dtype, count, size_ - 1));
      }
      OFLITE_JUST(AllReduce(dtype, 20, /*in_place=*/true));
      OFLITE_JUST(Broadcast(dtype, 9, 0));
      OFLITE_JUST(AllToAll(dtype, 0));
      OFLITE_JUST(AllToAll(dtype, 1));
    }
    OFLITE_JUST(comm_->Barrier());
    return checked_;
  }

 private:
  // Even, uneven, one empty rank (rank 0), all empty, and a larger uneven one.
  std::vector<Counts> CountPatterns() const {
    std::vector<Counts> patterns(5, Counts(size_));
    for (int r = 0; r < size_; ++r) {
      patterns[0][r] = 4;
      patterns[1][r] = 2 * r + 1;
      patterns[2][r] = r == 0 ? 0 : 3 + r;
      patterns[3][r] = 0;
      patterns[4][r] = 1000 + 17 * r;
    }
    return patterns;
  }

  // AllToAll's counts: what rank `from` sends rank `to` (some zero).
  static int64_t SendCount(int variant, int from, int to) {
    return variant == 0 ? (from + 2 * to) % 3 : 5 + from * 3 + to;
  }

  Maybe<Tensor> Upload(const std::vector<double>& values, DataType dtype) {
    const std::vector<char> bytes = Encode(values, dtype);
    return Tensor::FromHost(bytes.data(), bytes.size(), Shape{static_cast<int64_t>(values.size())},
                            dtype, device_);
  }

  Maybe<void> Compare(const char* what, DataType dtype, const std::string& args, const Tensor& out,
                      const std::vector<double>& expected) {
    std::vector<char> bytes(out.nbytes());
    OFLITE_JUST(out.CopyToHost(bytes.data(), bytes.size()));
    const std::vector<double> got = Decode(bytes, dtype);
    OFLITE_CHECK_OR_RETURN(got.size() == expected.size(), RuntimeError)
        << what << " " << DataTypeName(dtype) << " " << args << " on rank " << rank_ << ": "
        << got.size() << " elements, expected " << expected.size();
    for (size_t i = 0; i < got.size(); ++i) {
      OFLITE_CHECK_OR_RETURN(got[i] == expected[i], RuntimeError)
          << what << " " << DataTypeName(dtype) << " " << args << " on rank " << rank_ << " of "
          << size_ << " (" << DeviceTypeName(device_.type()) << "): element " << i << " is "
          << got[i] << ", expected " << expected[i];
    }
    ++checked_;
    return Ok();
  }

  Maybe<void> AllGather(DataType dtype, const Counts& counts, bool in_place) {
    std::vector<double> expected;
    int64_t offset = 0;
    for (int p = 0; p < size_; ++p) {
      const std::vector<double> block = Stream(p + 10, counts[p], dtype);
      expected.insert(expected.end(), block.begin(), block.end());
      offset += p < rank_ ? counts[p] : 0;
    }
    const std::vector<double> mine = Stream(rank_ + 10, counts[rank_], dtype);
    Tensor out;
    if (in_place) {  // this rank's block already in place, the rest poisoned
      std::vector<double> initial(Total(counts), kPoison);
      std::copy(mine.begin(), mine.end(), initial.begin() + offset);
      OFLITE_ASSIGN_OR_RETURN(out, Upload(initial, dtype));
      const char* in = static_cast<const char*>(out.data()) + offset * DataTypeSize(dtype);
      OFLITE_JUST(comm_->AllGather(in, out.mut_data(), counts, dtype, stream_));
    } else {
      Tensor in;
      OFLITE_ASSIGN_OR_RETURN(in, Upload(mine, dtype));
      OFLITE_ASSIGN_OR_RETURN(out, Upload(std::vector<double>(Total(counts), kPoison), dtype));
      OFLITE_JUST(comm_->AllGather(in.data(), out.mut_data(), counts, dtype, stream_));
    }
    return Compare(in_place ? "AllGather(in place)" : "AllGather", dtype, Join(counts), out,
                   expected);
  }

  Maybe<void> AllReduce(DataType dtype, int64_t count, bool in_place) {
    std::vector<double> expected = Stream(20, count, dtype);
    for (int p = 1; p < size_; ++p) {
      const std::vector<double> theirs = Stream(20 + p, count, dtype);
      for (int64_t i = 0; i < count; ++i) {
        expected[i] = AddValues(expected[i], theirs[i], dtype);
      }
    }
    Tensor in;
    OFLITE_ASSIGN_OR_RETURN(in, Upload(Stream(20 + rank_, count, dtype), dtype));
    Tensor out = in;
    if (!in_place) {
      OFLITE_ASSIGN_OR_RETURN(out, Upload(std::vector<double>(count, kPoison), dtype));
    }
    OFLITE_JUST(comm_->AllReduceSum(in.data(), out.mut_data(), count, dtype, stream_));
    return Compare(in_place ? "AllReduceSum(in place)" : "AllReduceSum", dtype,
                   "count=" + std::to_string(count), out, expected);
  }

  Maybe<void> ReduceScatter(DataType dtype, const Counts& counts) {
    const int64_t total = Total(counts);
    int64_t offset = 0;
    for (int p = 0; p < rank_; ++p) {
      offset += counts[p];
    }
    std::vector<double> expected(counts[rank_]);
    for (int64_t i = 0; i < counts[rank_]; ++i) {
      double sum = ValueOf(30, offset + i, dtype);
      for (int p = 1; p < size_; ++p) {
        sum = AddValues(sum, ValueOf(30 + p, offset + i, dtype), dtype);
      }
      expected[i] = sum;
    }
    Tensor in;
    Tensor out;
    OFLITE_ASSIGN_OR_RETURN(in, Upload(Stream(30 + rank_, total, dtype), dtype));
    OFLITE_ASSIGN_OR_RETURN(out, Upload(std::vector<double>(counts[rank_], kPoison), dtype));
    OFLITE_JUST(comm_->ReduceScatterSum(in.data(), out.mut_data(), counts, dtype, stream_));
    return Compare("ReduceScatterSum", dtype, Join(counts), out, expected);
  }

  Maybe<void> AllToAll(DataType dtype, int variant) {
    Counts send(size_);
    Counts recv(size_);
    std::vector<double> in_values;
    std::vector<double> expected;
    for (int p = 0; p < size_; ++p) {
      send[p] = SendCount(variant, rank_, p);
      recv[p] = SendCount(variant, p, rank_);
      const std::vector<double> to_p = Stream(100 * rank_ + p, send[p], dtype);
      in_values.insert(in_values.end(), to_p.begin(), to_p.end());
      const std::vector<double> from_p = Stream(100 * p + rank_, recv[p], dtype);
      expected.insert(expected.end(), from_p.begin(), from_p.end());
    }
    Tensor in;
    Tensor out;
    OFLITE_ASSIGN_OR_RETURN(in, Upload(in_values, dtype));
    OFLITE_ASSIGN_OR_RETURN(out, Upload(std::vector<double>(Total(recv), kPoison), dtype));
    OFLITE_JUST(comm_->AllToAll(in.data(), send, out.mut_data(), recv, dtype, stream_));
    return Compare("AllToAll", dtype, "send=" + Join(send) + " recv=" + Join(recv), out, expected);
  }

  Maybe<void> Broadcast(DataType dtype, int64_t count, int root) {
    const std::vector<double> expected = Stream(40 + root, count, dtype);
    Tensor buffer;
    OFLITE_ASSIGN_OR_RETURN(
        buffer, Upload(rank_ == root ? expected : std::vector<double>(count, kPoison), dtype));
    OFLITE_JUST(comm_->Broadcast(buffer.mut_data(), count, dtype, root, stream_));
    return Compare("Broadcast", dtype,
                   "count=" + std::to_string(count) + " root=" + std::to_string(root), buffer,
                   expected);
  }

  dist::Communicator* comm_;
  Device device_;
  int rank_;
  int size_;
  ep::Stream* stream_ = nullptr;
  int64_t checked_ = 0;
};

}  // namespace

Maybe<int64_t> CheckCollectives(dist::Communicator* comm, const Device& device) {
  return Checker(comm, device).Run();
}

}  // namespace dist_test
}  // namespace oflite
