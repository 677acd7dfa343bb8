// `oflite bench --global --nproc N [--shape R,C] [--dtype D] [--device cuda]`: on N ranks,
// the boxing of a global tensor of that shape (S(0)->B all-gather, P->B all-reduce, P->S(0)
// reduce-scatter, S(0)->S(1) all-to-all, each with NCCL's bus bandwidth), then a data-parallel
// (x S(0), w B) and a tensor-parallel (x B, w S(1), then the output to B) matmul of R x R.
#ifndef ONEFLOW_LITE_TOOLS_OFLITE_BENCH_GLOBAL_H_
#define ONEFLOW_LITE_TOOLS_OFLITE_BENCH_GLOBAL_H_

#include "oneflow_lite/common/maybe.h"
#include "tools/oflite/commands.h"

namespace oflite {
namespace cli {

// On a rank (the caller launched the ranks); rank 0 prints a line per case.
Maybe<void> BenchGlobal(const BenchOptions& options);

}  // namespace cli
}  // namespace oflite

#endif  // ONEFLOW_LITE_TOOLS_OFLITE_BENCH_GLOBAL_H_
