// OFLITE_ISA_CLONES: compile a hot loop once per x86-64 level (AVX-512, AVX2 + FMA, baseline)
// and pick the clone for the running CPU once, when the library loads (GCC's target_clones).
// The library itself stays built for the baseline, so it runs on any x86-64.
#ifndef ONEFLOW_LITE_EP_CPU_PRIMITIVE_ISA_CLONES_H_
#define ONEFLOW_LITE_EP_CPU_PRIMITIVE_ISA_CLONES_H_

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define OFLITE_ISA_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OFLITE_ISA_CLONES
#endif

// For the helpers a clone calls: GCC does not inline a baseline function into a clone on its
// own, and a call out of the clone runs baseline code.
#if defined(__GNUC__)
#define OFLITE_ISA_INLINE inline __attribute__((always_inline))
#else
#define OFLITE_ISA_INLINE inline
#endif

// For the lambdas a clone passes packs to, after their parameter list: one GCC leaves out of
// line is baseline code, which takes 64-byte vectors by another ABI than the AVX-512 clone.
#if defined(__GNUC__)
#define OFLITE_ISA_LAMBDA __attribute__((always_inline))
#else
#define OFLITE_ISA_LAMBDA
#endif

#endif  // ONEFLOW_LITE_EP_CPU_PRIMITIVE_ISA_CLONES_H_
