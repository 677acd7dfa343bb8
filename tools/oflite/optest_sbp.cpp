#include "tools/oflite/optest_sbp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "tools/oflite/optest_tensor.h"

namespace oflite {
namespace optest {

namespace {

// Piece by piece: the inputs (or outputs) of each of the k runs.
using PieceTensors = std::vector<std::vector<HostTensor>>;

// Weights ±2^e that sum to exactly 1: start from {1} and split a random weight w into
// (w/2, w/2), (2w, -w) or (-w, 2w) until there are k. Random signs and sizes make parts that
// are not proportional to the whole, so an op that is merely positively homogeneous (relu)
// cannot pass a P it does not honour.
std::vector<double> UnitSplit(int64_t k, CaseRng& rng) {
  std::vector<double> weights = {1.0};
  while (static_cast<int64_t>(weights.size()) < k) {
    const size_t j = static_cast<size_t>(rng.Int(0, static_cast<int64_t>(weights.size()) - 1));
    const double w = weights[j];
    switch (rng.Int(0, 2)) {
      case 0:
        weights[j] = w / 2;
        weights.push_back(w / 2);
        break;
      case 1:
        weights[j] = 2 * w;
        weights.push_back(-w);
        break;
      default:
        weights[j] = -w;
        weights.push_back(2 * w);
        break;
    }
  }
  std::shuffle(weights.begin(), weights.end(), rng.engine());
  return weights;
}

// v * w for weights from UnitSplit, or, where one of those leaves the dtype's range (a
// subnormal half of a tiny float16, an overflowing double of a huge one), all of v on one
// random piece.
std::vector<double> ExactShares(double v, int64_t k, DataType dtype, CaseRng& rng) {
  std::vector<double> shares = UnitSplit(k, rng);
  bool exact = true;
  for (double& s : shares) {
    s *= v;
    exact = exact && RoundToDtype(s, dtype) == s;
  }
  if (!exact) {
    std::fill(shares.begin(), shares.end(), 0.0);
    shares[static_cast<size_t>(rng.Int(0, k - 1))] = v;
  }
  return shares;
}

// Whole numbers in [lo, hi] summing to v (itself in range): each part near an equal share of
// what is left, within what keeps the rest splittable.
std::vector<double> WholeParts(double v, int64_t k, double lo, double hi, CaseRng& rng) {
  constexpr double kSpread = 4;
  constexpr double kLimit = 4.0e18;  // inside int64, for CaseRng::Int
  std::vector<double> parts;
  double remaining = v;
  for (int64_t i = 0; i + 1 < k; ++i) {
    const double after = static_cast<double>(k - i - 1);
    const double feasible_lo = std::max({lo, remaining - after * hi, -kLimit});
    const double feasible_hi = std::min({hi, remaining - after * lo, kLimit});
    const double share = std::floor(remaining / static_cast<double>(k - i));
    double a = std::max(feasible_lo, share - kSpread), b = std::min(feasible_hi, share + kSpread);
    if (a > b) {
      a = feasible_lo;
      b = feasible_hi;
    }
    const double part =
        static_cast<double>(rng.Int(static_cast<int64_t>(a), static_cast<int64_t>(b)));
    parts.push_back(part);
    remaining -= part;
  }
  parts.push_back(remaining);
  std::shuffle(parts.begin(), parts.end(), rng.engine());
  return parts;
}

// The range of an integer or bool dtype, as doubles.
std::pair<double, double> WholeRange(DataType dtype) {
  return VisitDataType(dtype, [](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return std::make_pair(static_cast<double>(std::numeric_limits<T>::lowest()),
                            static_cast<double>(std::numeric_limits<T>::max()));
    } else {
      return std::make_pair(0.0, 0.0);  // floating dtypes never come here
    }
  });
}

// A sum of whole numbers as the dtype's own arithmetic leaves it: modulo 2^bits for integers,
// nonzero for bool.
double WrapToDtype(double sum, DataType dtype) {
  return VisitDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      return static_cast<double>(static_cast<T>(static_cast<int64_t>(sum)));
    } else {
      return sum;
    }
  });
}

Maybe<const Sbp*> SbpOf(const SbpSignature& signature, const std::string& arg) {
  auto it = signature.find(arg);
  OFLITE_CHECK_OR_RETURN(it != signature.end(), RuntimeError)
      << "it gives no SBP for '" << arg << "'";
  return &it->second;
}

Maybe<int64_t> SplitAxis(const Sbp& sbp, const HostTensor& t, const std::string& arg) {
  const int64_t axis = sbp.axis();
  OFLITE_CHECK_OR_RETURN(axis >= 0 && axis < t.shape.rank(), RuntimeError)
      << "it splits '" << arg << "' on axis " << axis << ", but '" << arg << "' has shape "
      << t.shape;
  return axis;
}

// Each piece's inputs: S(axis) a balanced slice, B the whole, P an exact share.
Maybe<PieceTensors> PieceInputs(const SbpCase& c, const SbpSignature& signature, int64_t k,
                                CaseRng& rng) {
  PieceTensors pieces(static_cast<size_t>(k));
  for (size_t j = 0; j < c.inputs.size(); ++j) {
    const std::string& arg = c.schema.inputs()[j];
    const HostTensor& t = c.inputs[j];
    const Sbp* sbp = nullptr;
    OFLITE_ASSIGN_OR_RETURN(sbp, SbpOf(signature, arg));
    std::vector<HostTensor> parts;
    if (sbp->is_partial_sum()) {
      parts = PartialSumParts(t, k, rng);
    } else if (sbp->is_split()) {
      int64_t axis = 0;
      OFLITE_ASSIGN_OR_RETURN(axis, SplitAxis(*sbp, t, arg));
      for (int64_t i = 0; i < k; ++i) {
        parts.push_back(SliceAxis(t, axis, BalancedRange(t.shape[axis], k, i)));
      }
    } else {
      parts.assign(static_cast<size_t>(k), t);
    }
    for (int64_t i = 0; i < k; ++i) {
      pieces[static_cast<size_t>(i)].push_back(std::move(parts[static_cast<size_t>(i)]));
    }
  }
  return pieces;
}

// The element-wise sum of the pieces, compensated (Neumaier): float64 parts such as 2v and
// -v/2 leave intermediate sums (1.5v) that double cannot hold, and an exact op (transpose)
// must still rebuild v exactly. With a few terms the compensated sum is exact whenever the
// true sum is representable.
Maybe<HostTensor> SumPieces(const std::vector<HostTensor>& pieces, const HostTensor& whole,
                            const std::string& arg) {
  HostTensor sum{whole.shape, whole.dtype, std::vector<double>(whole.values.size(), 0.0)};
  std::vector<double> compensation(sum.values.size(), 0.0);
  for (size_t i = 0; i < pieces.size(); ++i) {
    OFLITE_CHECK_OR_RETURN(pieces[i].shape == whole.shape && pieces[i].dtype == whole.dtype,
                           RuntimeError)
        << "partial-sum output '" << arg << "' of piece " << i << " has shape " << pieces[i].shape
        << " " << pieces[i].dtype << ", the whole result " << whole.shape << " " << whole.dtype;
    for (size_t e = 0; e < sum.values.size(); ++e) {
      const double a = sum.values[e], b = pieces[i].values[e], t = a + b;
      compensation[e] += std::abs(a) >= std::abs(b) ? (a - t) + b : (b - t) + a;
      sum.values[e] = t;
    }
  }
  for (size_t e = 0; e < sum.values.size(); ++e) {
    if (std::isfinite(sum.values[e])) {
      sum.values[e] += compensation[e];
    }
    if (!IsFloatingDataType(whole.dtype)) {
      sum.values[e] = WrapToDtype(sum.values[e], whole.dtype);
    }
  }
  return sum;
}

Maybe<HostTensor> ConcatPieces(const std::vector<HostTensor>& pieces, const HostTensor& whole,
                               int64_t axis, const std::string& arg) {
  for (size_t i = 0; i < pieces.size(); ++i) {
    bool fits = pieces[i].shape.rank() == whole.shape.rank() && pieces[i].dtype == whole.dtype;
    for (int64_t d = 0; fits && d < whole.shape.rank(); ++d) {
      fits = d == axis || pieces[i].shape[d] == whole.shape[d];
    }
    OFLITE_CHECK_OR_RETURN(fits, RuntimeError)
        << "split output '" << arg << "' of piece " << i << " has shape " << pieces[i].shape << " "
        << pieces[i].dtype << ", which cannot be a slice of the whole result " << whole.shape << " "
        << whole.dtype << " along axis " << axis;
  }
  return ConcatAxis(pieces, axis);
}

// Rebuilds output `arg` from its pieces as `sbp` says and compares it with the whole result.
Maybe<void> CheckRebuilt(const SbpCase& c, const std::string& arg, const Sbp& sbp,
                         const std::vector<HostTensor>& pieces, const HostTensor& whole) {
  const Tolerance tolerance = c.tolerance(whole.dtype);
  std::vector<double> budget = ErrorBudget(whole, tolerance);
  if (sbp.is_broadcast()) {
    for (size_t i = 0; i < pieces.size(); ++i) {
      std::vector<double> piece_budget = budget;
      if (pieces[i].values.size() == budget.size()) {
        AddBudget(&piece_budget, ErrorBudget(pieces[i], tolerance));
      }
      OFLITE_JUST(ExpectClose(pieces[i], whole, piece_budget,
                              "broadcast output '" + arg + "' of piece " + std::to_string(i)));
    }
    return Ok();
  }
  HostTensor rebuilt;
  if (sbp.is_split()) {
    int64_t axis = 0;
    OFLITE_ASSIGN_OR_RETURN(axis, SplitAxis(sbp, whole, arg));
    OFLITE_ASSIGN_OR_RETURN(rebuilt, ConcatPieces(pieces, whole, axis, arg));
    if (rebuilt.values.size() == budget.size()) {
      AddBudget(&budget, ErrorBudget(rebuilt, tolerance));
    }
  } else {
    OFLITE_ASSIGN_OR_RETURN(rebuilt, SumPieces(pieces, whole, arg));
    for (const HostTensor& piece : pieces) {
      AddBudget(&budget, ErrorBudget(piece, tolerance));
    }
  }
  return ExpectClose(rebuilt, whole, budget,
                     (sbp.is_split() ? "concatenated output '" : "summed output '") + arg + "'");
}

Maybe<void> CheckPieces(const SbpCase& c, const SbpSignature& signature, int64_t k, uint64_t seed) {
  CaseRng rng(seed);
  PieceTensors inputs;
  OFLITE_ASSIGN_OR_RETURN(inputs, PieceInputs(c, signature, k, rng));
  PieceTensors outputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto piece = DispatchHost(c.schema.name(), inputs[i], c.attrs, c.device);
    OFLITE_CHECK_OR_RETURN(piece.ok(), RuntimeError)
        << "piece " << i << " failed: " << ErrorKindName(piece.error().kind()) << ": "
        << piece.error().message();
    outputs.push_back(std::move(piece).value());
  }
  for (size_t o = 0; o < c.outputs.size(); ++o) {
    const std::string& arg = c.schema.outputs()[o];
    const Sbp* sbp = nullptr;
    OFLITE_ASSIGN_OR_RETURN(sbp, SbpOf(signature, arg));
    std::vector<HostTensor> pieces;
    for (const std::vector<HostTensor>& piece_outputs : outputs) {
      pieces.push_back(piece_outputs[o]);
    }
    OFLITE_JUST(CheckRebuilt(c, arg, *sbp, pieces, c.outputs[o]));
  }
  return Ok();
}

// Every rank's int64 values, in rank order (each rank gives `mine`, all of one length).
Maybe<std::vector<int64_t>> GatherInts(dist::Communicator* comm, const std::vector<int64_t>& mine) {
  std::vector<int64_t> all(mine.size() * static_cast<size_t>(comm->size()));
  const std::vector<int64_t> counts(static_cast<size_t>(comm->size()),
                                    static_cast<int64_t>(mine.size()));
  OFLITE_JUST(comm->AllGather(mine.data(), all.data(), counts, DataType::kInt64, nullptr));
  return all;
}

// Every rank's piece of one output (host values as float64, shapes exchanged first).
Maybe<std::vector<HostTensor>> GatherPieces(dist::Communicator* comm, const HostTensor& mine) {
  std::vector<int64_t> header(1 + kMaxRank, 0);  // rank, then the dims
  header[0] = mine.shape.rank();
  for (int64_t d = 0; d < mine.shape.rank(); ++d) {
    header[static_cast<size_t>(1 + d)] = mine.shape[d];
  }
  std::vector<int64_t> headers;
  OFLITE_ASSIGN_OR_RETURN(headers, GatherInts(comm, header));
  std::vector<HostTensor> pieces(static_cast<size_t>(comm->size()));
  std::vector<int64_t> counts;
  for (size_t r = 0; r < pieces.size(); ++r) {
    const int64_t* h = headers.data() + r * header.size();
    DimVector dims(h + 1, h + 1 + h[0]);
    pieces[r].shape = Shape(dims);
    pieces[r].dtype = mine.dtype;
    counts.push_back(pieces[r].shape.elem_cnt());
  }
  std::vector<double> values(
      static_cast<size_t>(std::accumulate(counts.begin(), counts.end(), int64_t{0})));
  OFLITE_JUST(
      comm->AllGather(mine.values.data(), values.data(), counts, DataType::kFloat64, nullptr));
  auto next = values.begin();
  for (size_t r = 0; r < pieces.size(); ++r) {
    pieces[r].values.assign(next, next + counts[r]);
    next += counts[r];
  }
  return pieces;
}

Maybe<void> CheckRanks(const SbpCase& c, const SbpSignature& signature, dist::Communicator* comm,
                       uint64_t seed) {
  CaseRng rng(seed);
  PieceTensors inputs;
  OFLITE_ASSIGN_OR_RETURN(inputs, PieceInputs(c, signature, comm->size(), rng));
  auto mine =
      DispatchHost(c.schema.name(), inputs[static_cast<size_t>(comm->rank())], c.attrs, c.device);
  // Whether each rank's piece ran: a failure anywhere stops every rank here, alike.
  std::vector<int64_t> ran;
  OFLITE_ASSIGN_OR_RETURN(ran, GatherInts(comm, {mine.ok() ? 1 : 0}));
  for (size_t r = 0; r < ran.size(); ++r) {
    OFLITE_CHECK_OR_RETURN(ran[r] == 1, RuntimeError)
        << "the piece of rank " << r << " failed"
        << (r == static_cast<size_t>(comm->rank()) ? ": " + mine.error().message()
                                                   : std::string(" on its device"));
  }
  // Every output's pieces first, then the checks: a check failing on one rank only must not
  // leave the others waiting in a later gather.
  std::vector<std::vector<HostTensor>> pieces(mine.value().size());
  for (size_t o = 0; o < pieces.size(); ++o) {
    OFLITE_ASSIGN_OR_RETURN(pieces[o], GatherPieces(comm, mine.value()[o]));
  }
  OFLITE_CHECK_OR_RETURN(pieces.size() == c.outputs.size(), RuntimeError)
      << "the pieces have " << pieces.size() << " outputs, the whole call " << c.outputs.size();
  for (size_t o = 0; o < c.outputs.size(); ++o) {
    const std::string& arg = c.schema.outputs()[o];
    const Sbp* sbp = nullptr;
    OFLITE_ASSIGN_OR_RETURN(sbp, SbpOf(signature, arg));
    OFLITE_JUST(CheckRebuilt(c, arg, *sbp, pieces[o], c.outputs[o]));
  }
  return Ok();
}

std::vector<std::string> ArgOrder(const OpSchema& schema) {
  std::vector<std::string> args = schema.inputs();
  args.insert(args.end(), schema.outputs().begin(), schema.outputs().end());
  return args;
}

}  // namespace

PieceRange BalancedRange(int64_t dim, int64_t k, int64_t i) {
  const int64_t base = dim / k, extra = dim % k;
  const int64_t begin = i * base + std::min(i, extra);
  return {begin, begin + base + (i < extra ? 1 : 0)};
}

HostTensor SliceAxis(const HostTensor& t, int64_t axis, PieceRange range) {
  const int64_t outer = t.shape.Count(0, axis), inner = t.shape.Count(axis + 1, t.shape.rank());
  HostTensor piece{t.shape, t.dtype, {}};
  piece.shape.Set(axis, range.end - range.begin);
  for (int64_t o = 0; o < outer; ++o) {
    const auto begin = t.values.begin() + (o * t.shape[axis] + range.begin) * inner;
    piece.values.insert(piece.values.end(), begin, begin + (range.end - range.begin) * inner);
  }
  return piece;
}

HostTensor ConcatAxis(const std::vector<HostTensor>& pieces, int64_t axis) {
  HostTensor whole{pieces.at(0).shape, pieces[0].dtype, {}};
  int64_t total = 0;
  for (const HostTensor& p : pieces) {
    total += p.shape[axis];
  }
  whole.shape.Set(axis, total);
  const int64_t outer = whole.shape.Count(0, axis);
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor& p : pieces) {
      const int64_t block = p.shape.Count(axis, p.shape.rank());
      const auto begin = p.values.begin() + o * block;
      whole.values.insert(whole.values.end(), begin, begin + block);
    }
  }
  return whole;
}

std::vector<HostTensor> PartialSumParts(const HostTensor& t, int64_t k, CaseRng& rng) {
  std::vector<HostTensor> parts(static_cast<size_t>(k), HostTensor{t.shape, t.dtype, {}});
  const bool floating = IsFloatingDataType(t.dtype);
  const auto [lo, hi] = floating ? std::make_pair(0.0, 0.0) : WholeRange(t.dtype);
  for (double v : t.values) {
    std::vector<double> shares;
    if (floating) {
      shares = ExactShares(v, k, t.dtype, rng);
    } else {
      shares = WholeParts(v, k, lo, hi, rng);
    }
    for (int64_t i = 0; i < k; ++i) {
      parts[static_cast<size_t>(i)].values.push_back(shares[static_cast<size_t>(i)]);
    }
  }
  return parts;
}

Maybe<void> CheckSbpSignature(const SbpCase& c, const SbpSignature& signature, int64_t k,
                              uint64_t seed) {
  const Maybe<void> held = CheckPieces(c, signature, k, seed);
  if (held.ok()) {
    return Ok();
  }
  return OFLITE_ERROR(RuntimeError)
         << c.schema.name() << ": signature " << SbpSignatureToString(signature, ArgOrder(c.schema))
         << " does not hold with k=" << k << " pieces: " << held.error().message();
}

Maybe<void> CheckSbpSignatureOnRanks(const SbpCase& c, const SbpSignature& signature,
                                     dist::Communicator* comm, uint64_t seed) {
  const Maybe<void> held = CheckRanks(c, signature, comm, seed);
  if (held.ok()) {
    return Ok();
  }
  return OFLITE_ERROR(RuntimeError)
         << c.schema.name() << ": signature " << SbpSignatureToString(signature, ArgOrder(c.schema))
         << " does not hold on " << comm->size() << " ranks: " << held.error().message();
}

}  // namespace optest
}  // namespace oflite
