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
/* ux[j] = sum_i u_i x_ij, uxx[j] = sum_i (u_i x_ij) x_ij, wx[j] = sum_i w_i x_ij for the features j0 <= j < j0 + 2 np
   + odd of the row-major X (n x d), u_i = |w_i|; np <= 4 and odd (0 or 1) are constants where it is called, so the
   sums stay in registers (the odd feature's in scalar ones). */
static inline __attribute__((always_inline)) void csrepro_wls_block(
        const double* X, Py_ssize_t n, Py_ssize_t d, const double* w, Py_ssize_t j0, const int np, const int odd,
        double* ux, double* uxx, double* wx) {
    __m128d su[4], suu[4], sw[4], x, ex;
    double a = 0.0, b = 0.0, c = 0.0, e;
    Py_ssize_t i;
    int p;
    for (p = 0; p < np; p++) su[p] = suu[p] = sw[p] = _mm_setzero_pd();
    for (i = 0; i < n; i++) {
        const double* row = X + i * d + j0;
        const double ui = fabs(w[i]);
        const __m128d u = _mm_set1_pd(ui), wi = _mm_set1_pd(w[i]);
        for (p = 0; p < np; p++) {
            x = _mm_loadu_pd(row + 2 * p);
            ex = _mm_mul_pd(u, x);
            su[p] = _mm_add_pd(su[p], ex);
            suu[p] = _mm_add_pd(suu[p], _mm_mul_pd(ex, x));
            sw[p] = _mm_add_pd(sw[p], _mm_mul_pd(wi, x));
        }
        if (odd) {
            e = ui * row[2 * np];
            a += e;
            b += e * row[2 * np];
            c += w[i] * row[2 * np];
        }
    }
    for (p = 0; p < np; p++) {
        _mm_storeu_pd(ux + j0 + 2 * p, su[p]);
        _mm_storeu_pd(uxx + j0 + 2 * p, suu[p]);
        _mm_storeu_pd(wx + j0 + 2 * p, sw[p]);
    }
    if (odd) {
        ux[j0 + 2 * np] = a;
        uxx[j0 + 2 * np] = b;
        wx[j0 + 2 * np] = c;
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CSREPRO_WLS_AVX2 1
/* csrepro_wls_block's sums in AVX2 registers, four features per register: the features j0 <= j < j0 + 4 np
   + odd (np <= 4 and odd (0 or 1) constants where it is called; the odd feature's sums in scalar registers).
   AVX2 without FMA: each lane the same IEEE operations in the same order as the SSE2 and scalar loops, so the
   same bits. */
static inline __attribute__((always_inline, target("avx2"))) void csrepro_wls_block4(
        const double* X, Py_ssize_t n, Py_ssize_t d, const double* w, Py_ssize_t j0, const int np, const int odd,
        double* ux, double* uxx, double* wx) {
    __m256d su[4], suu[4], sw[4], x, ex;
    double a = 0.0, b = 0.0, c = 0.0, e;
    Py_ssize_t i;
    int p;
    for (p = 0; p < np; p++) su[p] = suu[p] = sw[p] = _mm256_setzero_pd();
    for (i = 0; i < n; i++) {
        const double* row = X + i * d + j0;
        const __m256d u = _mm256_set1_pd(fabs(w[i])), wi = _mm256_set1_pd(w[i]);
        for (p = 0; p < np; p++) {
            x = _mm256_loadu_pd(row + 4 * p);
            ex = _mm256_mul_pd(u, x);
            su[p] = _mm256_add_pd(su[p], ex);
            suu[p] = _mm256_add_pd(suu[p], _mm256_mul_pd(ex, x));
            sw[p] = _mm256_add_pd(sw[p], _mm256_mul_pd(wi, x));
        }
        if (odd) {
            e = fabs(w[i]) * row[4 * np];
            a += e;
            b += e * row[4 * np];
            c += w[i] * row[4 * np];
        }
    }
    for (p = 0; p < np; p++) {
        _mm256_storeu_pd(ux + j0 + 4 * p, su[p]);
        _mm256_storeu_pd(uxx + j0 + 4 * p, suu[p]);
        _mm256_storeu_pd(wx + j0 + 4 * p, sw[p]);
    }
    if (odd) {
        ux[j0 + 4 * np] = a;
        uxx[j0 + 4 * np] = b;
        wx[j0 + 4 * np] = c;
    }
}
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
