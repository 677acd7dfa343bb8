// HashCombine: folds one hash into a running seed (boost's mixing constant and shifts), for the
// keys the framework hashes field by field (attribute maps, call signatures).
#ifndef ONEFLOW_LITE_COMMON_HASH_COMBINE_H_
#define ONEFLOW_LITE_COMMON_HASH_COMBINE_H_

#include <cstddef>

namespace oflite {

inline size_t HashCombine(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace oflite

#endif  // ONEFLOW_LITE_COMMON_HASH_COMBINE_H_
