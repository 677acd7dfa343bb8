#include "primitive/broadcast_dims.h"

#include <algorithm>
#include <sstream>

namespace oflite {
namespace primitive {
namespace {

std::string ShapeText(const DimVector& dims) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    os << (i ? ", " : "") << dims[i];
  }
  os << (dims.size() == 1 ? ",)" : ")");
  return os.str();
}

int64_t Count(const DimVector& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    n *= d;
  }
  return n;
}

}  // namespace

int64_t BroadcastDims::dst_count() const { return Count(dst); }
bool BroadcastDims::src0_single() const { return Count(src0) == 1; }
bool BroadcastDims::src1_single() const { return Count(src1) == 1; }

Maybe<DimVector> BroadcastShape(const DimVector& a, const DimVector& b) {
  const size_t rank = std::max(a.size(), b.size());
  DimVector out(rank);
  for (size_t i = 0; i < rank; ++i) {  // i counts from the right
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    OFLITE_CHECK_OR_RETURN(da == db || da == 1 || db == 1, ValueError)
        << "shapes " << ShapeText(a) << " and " << ShapeText(b) << " do not broadcast: dim " << da
        << " against " << db << " (expected equal, or 1)";
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

Maybe<BroadcastDims> SimplifyBroadcastDims(size_t num_src0_dims, const int64_t* src0_dims,
                                           size_t num_src1_dims, const int64_t* src1_dims) {
  // Equal shapes, the common call, merge into one dim of their count (1 for rank 0).
  if (num_src0_dims == num_src1_dims &&
      std::equal(src0_dims, src0_dims + num_src0_dims, src1_dims)) {
    int64_t count = 1;
    for (size_t i = 0; i < num_src0_dims; ++i) {
      count *= src0_dims[i];
    }
    BroadcastDims out;
    out.dst = out.src0 = out.src1 = {count};
    return out;
  }
  const DimVector a(src0_dims, src0_dims + num_src0_dims);
  const DimVector b(src1_dims, src1_dims + num_src1_dims);
  DimVector dst;
  OFLITE_ASSIGN_OR_RETURN(dst, BroadcastShape(a, b));
  BroadcastDims out;
  // Whether each operand broadcasts along the previous kept dim; a merge needs both to match.
  bool prev_a_broadcast = false, prev_b_broadcast = false;
  for (size_t i = 0; i < dst.size(); ++i) {
    if (dst[i] == 1) {
      continue;  // size-1 result dims carry no index
    }
    const size_t off_a = dst.size() - a.size(), off_b = dst.size() - b.size();
    const int64_t da = i >= off_a ? a[i - off_a] : 1;
    const int64_t db = i >= off_b ? b[i - off_b] : 1;
    const bool a_broadcast = da != dst[i], b_broadcast = db != dst[i];
    if (!out.dst.empty() && a_broadcast == prev_a_broadcast && b_broadcast == prev_b_broadcast) {
      out.dst.back() *= dst[i];
      out.src0.back() *= da;
      out.src1.back() *= db;
    } else {
      out.dst.push_back(dst[i]);
      out.src0.push_back(da);
      out.src1.push_back(db);
    }
    prev_a_broadcast = a_broadcast;
    prev_b_broadcast = b_broadcast;
  }
  if (out.dst.empty()) {  // every dim 1 (or rank 0): one element
    out.dst = out.src0 = out.src1 = {1};
  }
  return out;
}

}  // namespace primitive
}  // namespace oflite
