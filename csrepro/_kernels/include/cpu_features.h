/* cpu_features.h -- whether the CPU running a kernel has AVX / AVX2, for the SIMD headers' run-time choice of the
   functions they compile for those targets whatever the flags: asked once per process with GCC / Clang on x86 (a
   benign race: every thread stores the same value), 0 elsewhere. */
#ifndef CSREPRO_CPU_FEATURES_H
#define CSREPRO_CPU_FEATURES_H

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CSREPRO_CPU_FEATURE(NAME, FEATURE)                  \
static inline int NAME(void) {                             \
    static int has = -1;                                   \
    if (has < 0) {                                         \
        __builtin_cpu_init();                              \
        has = __builtin_cpu_supports(FEATURE) ? 1 : 0;     \
    }                                                      \
    return has;                                            \
}
#else
#define CSREPRO_CPU_FEATURE(NAME, FEATURE) static inline int NAME(void) { return 0; }
#endif

CSREPRO_CPU_FEATURE(csrepro_cpu_has_avx, "avx")
CSREPRO_CPU_FEATURE(csrepro_cpu_has_avx2, "avx2")

#endif  /* CSREPRO_CPU_FEATURES_H */
