#include "oneflow_lite/framework/boxing.h"

#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "oneflow_lite/dist/communicator.h"
#include "oneflow_lite/ep/device.h"
#include "oneflow_lite/framework/placement.h"
#include "oneflow_lite/primitive/memcpy.h"
#include "oneflow_lite/primitive/permute.h"

namespace oflite {

int64_t ScaledBoxingCost(const Sbp& from, const Sbp& to, int64_t bytes, int64_t world) {
  if (from == to || to.is_partial_sum() || from.is_broadcast()) {
    return 0;  // nothing, or local work only (B -> S, B -> P, S -> P)
  }
  // In 128 bits, clamped: bytes * n^2 passes int64 for huge tensors on huge worlds, and the
  // clamp keeps the comparison the same on every rank.
  const __int128 n = world;
  __int128 cost = 0;
  if (from.is_split() && to.is_split()) {
    cost = bytes * (n - 1);  // all-to-all
  } else if (from.is_split()) {
    cost = bytes * (n - 1) * n;  // all-gather
  } else {
    cost = bytes * (n - 1) * n * (to.is_broadcast() ? 2 : 1);  // all-reduce, reduce-scatter
  }
  const __int128 most = std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(cost < most ? cost : most);
}

int64_t BoxingBytes(const Sbp& from, const Sbp& to, int64_t bytes, int64_t world) {
  return ScaledBoxingCost(from, to, bytes, world) / (world * world);
}

const char* BoxingMethod(const Sbp& from, const Sbp& to) {
  if (from == to) {
    return "none";
  }
  if (from.is_broadcast()) {
    return to.is_split() ? "local slice" : "local zeros";
  }
  if (from.is_split()) {
    return to.is_split() ? "all-to-all" : to.is_broadcast() ? "all-gather" : "local scatter";
  }
  return to.is_broadcast() ? "all-reduce" : "reduce-scatter";
}

std::string BoxingRecordToString(const BoxingRecord& record) {
  return record.arg + ": " + SbpToString(record.from) + " -> " + SbpToString(record.to) + " " +
         record.method + " " + std::to_string(record.bytes) + " B";
}

namespace {

// B -> S and S -> P take a strided copy for at most this many rows, the permute primitive
// above (chosen when a strided copy was one memcpy a row; not measured since).
constexpr int64_t kMaxRowCopies = 64;

struct Boxing {
  const Shape& global;
  DataType dtype;
  dist::Communicator* communicator;
  ep::Device* device;
  ep::Stream* stream;
  int64_t rank;
  int64_t world;

  size_t elem_size() const { return DataTypeSize(dtype); }
  Maybe<Tensor> Empty(const Shape& shape) const { return Tensor::Empty(shape, dtype, device); }
  Maybe<Tensor> Zeros(const Shape& shape) const {
    return Tensor::Full(shape, 0.0, dtype, device->device());
  }
};

// (axis, 0, .., axis-1, axis+1, ..): the permutation that moves `axis` to the outside.
std::vector<int64_t> ToFront(int64_t rank, int64_t axis) {
  std::vector<int64_t> perm{axis};
  for (int64_t i = 0; i < rank; ++i) {
    if (i != axis) {
      perm.push_back(i);
    }
  }
  return perm;
}

// Its inverse: from the front layout back to the original order.
std::vector<int64_t> FromFront(int64_t rank, int64_t axis) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) {
    perm.push_back(i < axis ? i + 1 : i == axis ? 0 : i);
  }
  return perm;
}

Shape Permuted(const Shape& shape, const std::vector<int64_t>& perm) {
  std::vector<int64_t> dims;
  for (int64_t p : perm) {
    dims.push_back(shape[p]);
  }
  return Shape(dims);
}

// Whether permuting moves only dims of size 1, i.e. leaves the elements where they are.
bool KeepsOrder(const Shape& shape, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] != 1) {
      if (p < last) {
        return false;
      }
      last = p;
    }
  }
  return true;
}

// t permuted: a view where the elements stay in place, else a copy by the permute primitive.
Maybe<Tensor> Permute(const Boxing& b, const Tensor& t, const std::vector<int64_t>& perm) {
  const Shape shape = Permuted(t.shape(), perm);
  if (KeepsOrder(t.shape(), perm) || t.elem_cnt() == 0) {
    if (t.elem_cnt() == 0) {
      return b.Empty(shape);
    }
    return t.View(shape);
  }
  Tensor out;
  OFLITE_ASSIGN_OR_RETURN(out, b.Empty(shape));
  auto permute = primitive::NewPrimitive<primitive::PermuteFactory>(
      b.device->device().type(), b.dtype, static_cast<size_t>(t.rank()));
  OFLITE_CHECK_OR_RETURN(permute != nullptr, NotImplemented)
      << "boxing: no permute primitive for " << b.dtype << " of rank " << t.rank() << " on "
      << b.device->device();
  OFLITE_JUST(permute->Launch(b.stream, static_cast<size_t>(t.rank()), t.shape().dims().data(),
                              t.data(), perm.data(), out.mut_data()));
  t.storage()->RecordStream(b.stream);
  return out;
}

// `shape` elements of t from element `offset` on, sharing its memory (kept alive by the view).
Maybe<Tensor> Alias(const Tensor& t, int64_t offset, const Shape& shape) {
  const size_t elem_size = DataTypeSize(t.dtype());
  auto storage = std::make_shared<Storage>(
      static_cast<char*>(t.mut_data()) + offset * static_cast<int64_t>(elem_size),
      static_cast<size_t>(shape.elem_cnt()) * elem_size, t.device(), [keep = t] {});
  return Tensor::FromStorage(std::move(storage), shape, t.dtype());
}

// rows x row_bytes from src to dst, rows apart by the strides: one strided (2-D) memcpy.
Maybe<void> CopyRows(const Boxing& b, const void* src, int64_t src_stride, void* dst,
                     int64_t dst_stride, int64_t row_bytes, int64_t rows) {
  if (rows == 0 || row_bytes == 0) {
    return Ok();
  }
  auto memcpy = primitive::NewPrimitive<primitive::MemcpyFactory>(
      b.device->device().type(), primitive::MemcpyKind::kDeviceToDevice);
  OFLITE_CHECK_OR_RETURN(memcpy != nullptr, NotImplemented)
      << "boxing: no memcpy primitive on " << b.device->device();
  if (rows == 1 || (src_stride == row_bytes && dst_stride == row_bytes)) {
    return memcpy->Launch(b.stream, dst, src, static_cast<size_t>(row_bytes * rows));
  }
  return memcpy->Launch2D(b.stream, dst, static_cast<size_t>(dst_stride), src,
                          static_cast<size_t>(src_stride), static_cast<size_t>(row_bytes),
                          static_cast<size_t>(rows));
}

// Element counts per rank of a tensor of `shape` split along `axis`.
std::vector<int64_t> SplitCounts(const Boxing& b, const Shape& shape, int64_t axis) {
  const int64_t rest = shape.Count(0, axis) * shape.Count(axis + 1, shape.rank());
  std::vector<int64_t> counts;
  for (int64_t p = 0; p < b.world; ++p) {
    counts.push_back(BalancedSplit(shape[axis], b.world, p).size * rest);
  }
  return counts;
}

// B -> S(axis): this rank's slice of the whole tensor.
Maybe<Tensor> Slice(const Boxing& b, const Tensor& whole, int64_t axis) {
  const Shape& g = b.global;
  const SplitRange range = BalancedSplit(g[axis], b.world, b.rank);
  const Shape shard_shape = ShardShape(g, SplitSbp(axis), b.world, b.rank);
  const int64_t outer = g.Count(0, axis);
  const int64_t inner = g.Count(axis + 1, g.rank());
  if (outer == 1) {
    return Alias(whole, range.begin * inner, shard_shape);
  }
  if (outer <= kMaxRowCopies) {
    Tensor shard;
    OFLITE_ASSIGN_OR_RETURN(shard, b.Empty(shard_shape));
    const int64_t row = inner * static_cast<int64_t>(b.elem_size());
    OFLITE_JUST(CopyRows(b, static_cast<const char*>(whole.data()) + range.begin * row,
                         g[axis] * row, shard.mut_data(), range.size * row, range.size * row,
                         outer));
    whole.storage()->RecordStream(b.stream);
    return shard;
  }
  Tensor front, sliced;
  OFLITE_ASSIGN_OR_RETURN(front, Permute(b, whole, ToFront(g.rank(), axis)));
  OFLITE_ASSIGN_OR_RETURN(sliced, Alias(front, range.begin * outer * inner,
                                        Permuted(shard_shape, ToFront(g.rank(), axis))));
  return Permute(b, sliced, FromFront(g.rank(), axis));
}

// S(axis) -> P: the shard in its place in zeros of the global shape.
Maybe<Tensor> Scatter(const Boxing& b, const Tensor& shard, int64_t axis) {
  const Shape& g = b.global;
  const SplitRange range = BalancedSplit(g[axis], b.world, b.rank);
  const int64_t outer = g.Count(0, axis);
  const int64_t inner = g.Count(axis + 1, g.rank());
  const int64_t row = inner * static_cast<int64_t>(b.elem_size());
  Tensor out;
  if (outer <= kMaxRowCopies) {
    OFLITE_ASSIGN_OR_RETURN(out, b.Zeros(g));
    OFLITE_JUST(CopyRows(b, shard.data(), range.size * row,
                         static_cast<char*>(out.mut_data()) + range.begin * row, g[axis] * row,
                         range.size * row, outer));
    shard.storage()->RecordStream(b.stream);
    return out;
  }
  Tensor front;
  OFLITE_ASSIGN_OR_RETURN(front, Permute(b, shard, ToFront(g.rank(), axis)));
  OFLITE_ASSIGN_OR_RETURN(out, b.Zeros(Permuted(g, ToFront(g.rank(), axis))));
  OFLITE_JUST(CopyRows(b, front.data(), 0,
                       static_cast<char*>(out.mut_data()) + range.begin * outer * row, 0,
                       range.size * outer * row, 1));
  return Permute(b, out, FromFront(g.rank(), axis));
}

// t viewed as (a, c, run) and permuted to (c, a, run): two outer blocks of dims swap while runs
// of `run` elements move whole (a view where a or c is 1).
Maybe<Tensor> SwapOuter(const Boxing& b, const Tensor& t, int64_t a, int64_t c) {
  Tensor blocks;
  OFLITE_ASSIGN_OR_RETURN(blocks, t.View(Shape{a, c, a * c == 0 ? 0 : t.elem_cnt() / (a * c)}));
  return Permute(b, blocks, {1, 0, 2});
}

// t with `axis` (even over the ranks) split into (n, t.shape[axis] / n) and the part index
// moved to the front: each rank's part becomes one contiguous block, in t's axis order.
Maybe<Tensor> PartsToFront(const Boxing& b, const Tensor& t, int64_t axis) {
  return SwapOuter(b, t, t.shape().Count(0, axis), b.world);
}

// The inverse: n blocks, each of `shape` but for `axis` (shape[axis] / n there), with the part
// index moved to just before `axis`, which joins them along it into a tensor of `shape`.
Maybe<Tensor> PartsToAxis(const Boxing& b, const Tensor& blocks, const Shape& shape, int64_t axis) {
  Tensor joined;
  OFLITE_ASSIGN_OR_RETURN(joined, SwapOuter(b, blocks, b.world, shape.Count(0, axis)));
  return joined.View(shape);
}

// The same for uneven parts: n blocks (the balanced parts of `axis`, in rank order) copied into
// a new tensor of `shape`, a row of the dims before `axis` at a time.
Maybe<Tensor> JoinBlocks(const Boxing& b, const Tensor& blocks, const Shape& shape, int64_t axis) {
  Tensor out;
  OFLITE_ASSIGN_OR_RETURN(out, b.Empty(shape));
  const int64_t outer = shape.Count(0, axis);
  const int64_t inner = shape.Count(axis + 1, shape.rank()) * static_cast<int64_t>(b.elem_size());
  const char* src = static_cast<const char*>(blocks.data());
  for (int64_t p = 0; p < b.world; ++p) {
    const SplitRange part = BalancedSplit(shape[axis], b.world, p);
    OFLITE_JUST(CopyRows(b, src, part.size * inner,
                         static_cast<char*>(out.mut_data()) + part.begin * inner,
                         shape[axis] * inner, part.size * inner, outer));
    src += outer * part.size * inner;
  }
  blocks.storage()->RecordStream(b.stream);
  return out;
}

// S(axis) -> B. Even parts: the shards gathered as they are, (n, shard), then one permute moving
// n to just before axis (runs of a whole part's inner dims). Uneven: axis to the front and back.
Maybe<Tensor> AllGather(const Boxing& b, const Tensor& shard, int64_t axis) {
  const int64_t rank = b.global.rank();
  const bool even = b.global[axis] % b.world == 0;
  Tensor send, gathered;
  OFLITE_ASSIGN_OR_RETURN(send,
                          even ? Maybe<Tensor>(shard) : Permute(b, shard, ToFront(rank, axis)));
  OFLITE_ASSIGN_OR_RETURN(gathered,
                          b.Empty(even ? b.global : Permuted(b.global, ToFront(rank, axis))));
  OFLITE_JUST(b.communicator->AllGather(send.data(), gathered.mut_data(),
                                        SplitCounts(b, b.global, axis), b.dtype, b.stream));
  send.storage()->RecordStream(b.stream);
  return even ? PartsToAxis(b, gathered, b.global, axis)
              : Permute(b, gathered, FromFront(rank, axis));
}

// P -> B.
Maybe<Tensor> AllReduce(const Boxing& b, const Tensor& partial) {
  Tensor out;
  OFLITE_ASSIGN_OR_RETURN(out, b.Empty(b.global));
  OFLITE_JUST(b.communicator->AllReduceSum(partial.data(), out.mut_data(), partial.elem_cnt(),
                                           b.dtype, b.stream));
  partial.storage()->RecordStream(b.stream);
  return out;
}

// P -> S(axis). Even parts: one pack permute (the part index to the front), and the
// reduce-scatter writes the shard itself. Uneven: axis to the front and back.
Maybe<Tensor> ReduceScatter(const Boxing& b, const Tensor& partial, int64_t axis) {
  const int64_t rank = b.global.rank();
  const bool even = b.global[axis] % b.world == 0;
  const Shape shard_shape = ShardShape(b.global, SplitSbp(axis), b.world, b.rank);
  Tensor send, out;
  OFLITE_ASSIGN_OR_RETURN(
      send, even ? PartsToFront(b, partial, axis) : Permute(b, partial, ToFront(rank, axis)));
  OFLITE_ASSIGN_OR_RETURN(out,
                          b.Empty(even ? shard_shape : Permuted(shard_shape, ToFront(rank, axis))));
  OFLITE_JUST(b.communicator->ReduceScatterSum(send.data(), out.mut_data(),
                                               SplitCounts(b, b.global, axis), b.dtype, b.stream));
  send.storage()->RecordStream(b.stream);
  return even ? Maybe<Tensor>(out) : Permute(b, out, FromFront(rank, axis));
}

// S(i) -> S(j), i != j, through the front layout of j (the route for uneven parts of j). Each
// rank sends rank p the rows p holds along j, in the order (j, other axes), and receives from
// each p a block (its rows along j, p's part of i, ...); the blocks joined along i are the new
// shard.
Maybe<Tensor> AllToAllThroughFront(const Boxing& b, const Tensor& shard, int64_t i, int64_t j) {
  const Shape& g = b.global;
  const int64_t rank = g.rank();
  const int64_t n = b.world;
  Tensor send, recv;
  OFLITE_ASSIGN_OR_RETURN(send, Permute(b, shard, ToFront(rank, j)));
  const int64_t send_rest = shard.shape().Count(0, j) * shard.shape().Count(j + 1, rank);
  const int64_t rows_j = BalancedSplit(g[j], n, b.rank).size;
  const int64_t recv_rest = g.Count(0, std::min(i, j)) *
                            g.Count(std::min(i, j) + 1, std::max(i, j)) *
                            g.Count(std::max(i, j) + 1, rank);  // g without i and j
  std::vector<int64_t> send_counts, recv_counts;
  int64_t recv_total = 0;
  for (int64_t p = 0; p < n; ++p) {
    send_counts.push_back(BalancedSplit(g[j], n, p).size * send_rest);
    recv_counts.push_back(rows_j * BalancedSplit(g[i], n, p).size * recv_rest);
    recv_total += recv_counts.back();
  }
  OFLITE_ASSIGN_OR_RETURN(recv, b.Empty(Shape{recv_total}));
  OFLITE_JUST(b.communicator->AllToAll(send.data(), send_counts, recv.mut_data(), recv_counts,
                                       b.dtype, b.stream));
  send.storage()->RecordStream(b.stream);
  const Shape out_shape = ShardShape(g, SplitSbp(j), n, b.rank);
  // The received blocks in the front layout of j: (rows_j, other axes), i at position k.
  const int64_t k = 1 + (i < j ? i : i - 1);
  if (g[i] % n == 0) {
    // Even parts along i: recv is (n, rows_j, other axes with i = g[i] / n); one permute puts
    // the n parts in front of i's and the axes back in their order.
    std::vector<int64_t> dims{n, rows_j}, labels{-1, j};  // label -1: the part index
    for (int64_t a = 0; a < rank; ++a) {
      if (a != j) {
        dims.push_back(a == i ? g[i] / n : g[a]);
        labels.push_back(a);
      }
    }
    std::vector<int64_t> perm;
    for (int64_t a = 0; a < rank; ++a) {
      if (a == i) {
        perm.push_back(0);
      }
      for (size_t d = 1; d < labels.size(); ++d) {
        if (labels[d] == a) {
          perm.push_back(static_cast<int64_t>(d));
        }
      }
    }
    Tensor blocks, ordered;
    OFLITE_ASSIGN_OR_RETURN(blocks, recv.View(Shape(dims)));
    OFLITE_ASSIGN_OR_RETURN(ordered, Permute(b, blocks, perm));
    return ordered.View(out_shape);
  }
  Tensor front;
  OFLITE_ASSIGN_OR_RETURN(front, JoinBlocks(b, recv, Permuted(out_shape, ToFront(rank, j)), k));
  return Permute(b, front, FromFront(rank, j));
}

// S(i) -> S(j), i != j. Even parts of j: one pack permute (a view for j = 0) sends each rank
// its part of j as one block in the shard's axis order; the blocks received (p's part of i)
// joined along i are the new shard: as they lie for i = 0, else by one permute (even parts of
// i) or a strided copy a part (uneven parts of i). Uneven parts of j: through the front layout
// of j.
Maybe<Tensor> AllToAll(const Boxing& b, const Tensor& shard, int64_t i, int64_t j) {
  const Shape& g = b.global;
  const int64_t n = b.world;
  const Shape out_shape = ShardShape(g, SplitSbp(j), n, b.rank);
  const bool even_i = g[i] % n == 0;
  if (g[j] % n != 0) {
    return AllToAllThroughFront(b, shard, i, j);
  }
  Tensor send, recv;
  OFLITE_ASSIGN_OR_RETURN(send, PartsToFront(b, shard, j));
  OFLITE_ASSIGN_OR_RETURN(recv, b.Empty(out_shape));
  const std::vector<int64_t> send_counts(static_cast<size_t>(n), shard.elem_cnt() / n);
  OFLITE_JUST(b.communicator->AllToAll(send.data(), send_counts, recv.mut_data(),
                                       SplitCounts(b, out_shape, i), b.dtype, b.stream));
  send.storage()->RecordStream(b.stream);
  if (i == 0) {
    return recv;
  }
  return even_i ? PartsToAxis(b, recv, out_shape, i) : JoinBlocks(b, recv, out_shape, i);
}

}  // namespace

Maybe<Tensor> BoxShard(const Tensor& shard, const Shape& global_shape, const Sbp& from,
                       const Sbp& to, dist::Communicator* communicator) {
  if (from == to || communicator->size() == 1) {
    return shard;  // one rank holds the whole tensor under any SBP
  }
  ep::Device* device = nullptr;
  OFLITE_ASSIGN_OR_RETURN(device, ep::GetDevice(shard.device()));
  const Boxing b{global_shape,     shard.dtype(),        communicator,        device,
                 device->stream(), communicator->rank(), communicator->size()};
  if (from.is_broadcast()) {
    if (to.is_split()) {
      return Slice(b, shard, to.axis());
    }
    return b.rank == 0 ? Maybe<Tensor>(shard) : b.Zeros(global_shape);  // B -> P
  }
  if (from.is_split()) {
    if (to.is_broadcast()) {
      return AllGather(b, shard, from.axis());
    }
    if (to.is_split()) {
      return AllToAll(b, shard, from.axis(), to.axis());
    }
    return Scatter(b, shard, from.axis());
  }
  if (to.is_broadcast()) {
    return AllReduce(b, shard);
  }
  return ReduceScatter(b, shard, to.axis());
}

}  // namespace oflite
