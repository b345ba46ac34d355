/* linear_scan_simd.h -- the C of the kernel csrepro/_kernels/linear_scan.pyx (declared for Cython in
   _simd_linear_scan.pxd): wls_scan's per-feature weighted sums.  The features are taken a block at a time, the
   block's sums kept in registers over all samples (in SSE2 two features per register where the compiler targets
   it, in AVX2 four where the CPU has it, checked at run time); each sum still adds its samples' products in sample
   order, with the scalar loop's IEEE operations: the same bits. */
#ifndef CSREPRO_LINEAR_SCAN_SIMD_H
#define CSREPRO_LINEAR_SCAN_SIMD_H

#include <Python.h>  /* Py_ssize_t */
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__SSE2__)
/* NAME(X, n, d, w, j0, np, odd, ux, uxx, wx): ux[j] = sum_i u_i x_ij, uxx[j] = sum_i (u_i x_ij) x_ij,
   wx[j] = sum_i w_i x_ij for the features j0 <= j < j0 + W np + odd of the row-major X (n x d), u_i = |w_i|, with
   W features per register of type VEC (the operations SET1 ... STORE on it; ATTR: more function attributes);
   np <= 4 and odd (0 or 1) are constants where it is called, so the sums stay in registers (the odd feature's in
   scalar ones).  No FMA: each lane the scalar loop's IEEE operations in the same order, at any W. */
#define CSREPRO_WLS_BLOCK(NAME, ATTR, VEC, W, SET1, ZERO, LOAD, MUL, ADD, STORE)                                   \
static inline __attribute__((always_inline ATTR)) void NAME(                                                      \
        const double* X, Py_ssize_t n, Py_ssize_t d, const double* w, Py_ssize_t j0, const int np, const int odd, \
        double* ux, double* uxx, double* wx) {                                                                     \
    VEC su[4], suu[4], sw[4], x, ex;                                                                              \
    double a = 0.0, b = 0.0, c = 0.0, e;                                                                          \
    Py_ssize_t i;                                                                                                 \
    int p;                                                                                                        \
    for (p = 0; p < np; p++) su[p] = suu[p] = sw[p] = ZERO();                                                     \
    for (i = 0; i < n; i++) {                                                                                     \
        const double* row = X + i * d + j0;                                                                       \
        const double ui = fabs(w[i]);                                                                             \
        const VEC u = SET1(ui), wi = SET1(w[i]);                                                                  \
        for (p = 0; p < np; p++) {                                                                                \
            x = LOAD(row + W * p);                                                                                \
            ex = MUL(u, x);                                                                                       \
            su[p] = ADD(su[p], ex);                                                                               \
            suu[p] = ADD(suu[p], MUL(ex, x));                                                                     \
            sw[p] = ADD(sw[p], MUL(wi, x));                                                                       \
        }                                                                                                         \
        if (odd) {                                                                                                \
            e = ui * row[W * np];                                                                                 \
            a += e;                                                                                               \
            b += e * row[W * np];                                                                                 \
            c += w[i] * row[W * np];                                                                              \
        }                                                                                                         \
    }                                                                                                             \
    for (p = 0; p < np; p++) {                                                                                    \
        STORE(ux + j0 + W * p, su[p]);                                                                            \
        STORE(uxx + j0 + W * p, suu[p]);                                                                          \
        STORE(wx + j0 + W * p, sw[p]);                                                                            \
    }                                                                                                             \
    if (odd) {                                                                                                    \
        ux[j0 + W * np] = a;                                                                                      \
        uxx[j0 + W * np] = b;                                                                                     \
        wx[j0 + W * np] = c;                                                                                      \
    }                                                                                                             \
}

/* SSE2: two features per register. */
CSREPRO_WLS_BLOCK(csrepro_wls_block, , __m128d, 2, _mm_set1_pd, _mm_setzero_pd, _mm_loadu_pd, _mm_mul_pd, _mm_add_pd,
                  _mm_storeu_pd)

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CSREPRO_WLS_AVX2 1
/* AVX2 (where the CPU has it, checked at run time): four features per register. */
#define CSREPRO_TARGET_AVX2 , target("avx2")
CSREPRO_WLS_BLOCK(csrepro_wls_block4, CSREPRO_TARGET_AVX2, __m256d, 4, _mm256_set1_pd, _mm256_setzero_pd,
                  _mm256_loadu_pd, _mm256_mul_pd, _mm256_add_pd, _mm256_storeu_pd)
/* The sums of the features j < e, 16 at a time, the rest of them together; e = d where d % 4 is 0 or 1 (the odd
   one in the last block), else d - d % 4 (d >= 4; the caller sums the last 2 or 3 in SSE2).  Returns e. */
static __attribute__((target("avx2"))) Py_ssize_t csrepro_wls_sums_avx2(
        const double* X, Py_ssize_t n, Py_ssize_t d, const double* w, double* ux, double* uxx, double* wx) {
    Py_ssize_t j = 0;
    const int odd = d % 4 == 1;
    for (; d - j >= 16 + 4 * (d - j <= 17 && odd); j += 16) csrepro_wls_block4(X, n, d, w, j, 4, 0, ux, uxx, wx);
    switch (4 * ((d - j) / 4) + odd) {
        case 17: csrepro_wls_block4(X, n, d, w, j, 4, 1, ux, uxx, wx); break;
        case 13: csrepro_wls_block4(X, n, d, w, j, 3, 1, ux, uxx, wx); break;
        case 12: csrepro_wls_block4(X, n, d, w, j, 3, 0, ux, uxx, wx); break;
        case 9: csrepro_wls_block4(X, n, d, w, j, 2, 1, ux, uxx, wx); break;
        case 8: csrepro_wls_block4(X, n, d, w, j, 2, 0, ux, uxx, wx); break;
        case 5: csrepro_wls_block4(X, n, d, w, j, 1, 1, ux, uxx, wx); break;
        case 4: csrepro_wls_block4(X, n, d, w, j, 1, 0, ux, uxx, wx); break;
        default: break;
    }
    return odd ? d : d - d % 4;
}
#endif
#endif

/* The sums above for every feature j < d, d >= 1 (ux, uxx, wx: d entries each); where the CPU has AVX2 (checked
   at run time), all but the last d % 4 features four per register. */
static inline void csrepro_wls_sums(const double* X, Py_ssize_t n, Py_ssize_t d, const double* w, double* ux,
                                    double* uxx, double* wx) {
#if defined(__SSE2__)
    Py_ssize_t j = 0;
#if defined(CSREPRO_WLS_AVX2)
    if (d >= 4 && __builtin_cpu_supports("avx2")) {
        j = csrepro_wls_sums_avx2(X, n, d, w, ux, uxx, wx);
        if (j == d) return;
    }
#endif
    for (; d - j > 9; j += 8) csrepro_wls_block(X, n, d, w, j, 4, 0, ux, uxx, wx);
    switch (d - j) {  /* the last 1 to 9 features in one block */
        case 9: csrepro_wls_block(X, n, d, w, j, 4, 1, ux, uxx, wx); break;
        case 8: csrepro_wls_block(X, n, d, w, j, 4, 0, ux, uxx, wx); break;
        case 7: csrepro_wls_block(X, n, d, w, j, 3, 1, ux, uxx, wx); break;
        case 6: csrepro_wls_block(X, n, d, w, j, 3, 0, ux, uxx, wx); break;
        case 5: csrepro_wls_block(X, n, d, w, j, 2, 1, ux, uxx, wx); break;
        case 4: csrepro_wls_block(X, n, d, w, j, 2, 0, ux, uxx, wx); break;
        case 3: csrepro_wls_block(X, n, d, w, j, 1, 1, ux, uxx, wx); break;
        case 2: csrepro_wls_block(X, n, d, w, j, 1, 0, ux, uxx, wx); break;
        default: csrepro_wls_block(X, n, d, w, j, 0, 1, ux, uxx, wx); break;
    }
#else
    Py_ssize_t i, j;
    double e, a, b, c;
    for (j = 0; j < d; j++) {
        a = b = c = 0.0;
        for (i = 0; i < n; i++) {
            e = fabs(w[i]) * X[i * d + j];
            a += e;
            b += e * X[i * d + j];
            c += w[i] * X[i * d + j];
        }
        ux[j] = a;
        uxx[j] = b;
        wx[j] = c;
    }
#endif
}

#endif  /* CSREPRO_LINEAR_SCAN_SIMD_H */
