/* exp_losses_simd.h -- the C of the kernel csrepro/_kernels/exp_losses.pyx (from exp_losses.pyx.tp; declared
   for Cython in _simd_exp_losses.pxd): a branch-free maximum, and, where the compiler targets SSE2, two samples
   of the line search's per-sample moments and of the log1p outer's derivatives at once, one per SSE2 lane, and
   four rows' group sums and factor products in two registers; where the CPU has AVX2, four samples' moments and
   derivatives in one register.  Per lane the scalar loop's IEEE operations in its order: the same bits.
   CSREPRO_EXP_PAIRS is 0 without SSE2 (the kernel then runs its scalar loop alone and never calls the SIMD
   functions). */
#ifndef CSREPRO_EXP_LOSSES_SIMD_H
#define CSREPRO_EXP_LOSSES_SIMD_H

#include <Python.h>  /* Py_ssize_t */

static inline double csrepro_max(double a, double b) { return a > b ? a : b; }  /* one maxsd, no branch */

#if defined(__SSE2__)
#include <immintrin.h>
#include "cpu_features.h"
#define CSREPRO_EXP_PAIRS 1
/* _grouped_moments (sign 1) of two samples, s of the first and t of the second, one lane each. */
static inline void csrepro_moments_pair(const double* A0, const double* A1, const double* X0, const double* X1,
                                        const double* uniq, Py_ssize_t nu, double off0, double off1, double g0,
                                        double g1, double* s, double* t) {
    const __m128d off = _mm_set_pd(off1, off0), g = _mm_set_pd(g1, g0);
    __m128d m0 = _mm_setzero_pd(), m1 = m0, m2 = m0, m3 = m0, b, e;
    Py_ssize_t u;
    for (u = 0; u < nu; u++) {
        b = _mm_mul_pd(g, _mm_sub_pd(_mm_set1_pd(uniq[u]), off));
        e = _mm_mul_pd(_mm_set_pd(A1[u], A0[u]), _mm_set_pd(X1[u], X0[u]));
        m0 = _mm_add_pd(m0, e);
        e = _mm_mul_pd(e, b);
        m1 = _mm_add_pd(m1, e);
        e = _mm_mul_pd(e, b);
        m2 = _mm_add_pd(m2, e);
        m3 = _mm_add_pd(m3, _mm_mul_pd(e, b));
    }
    _mm_storel_pd(s, m0); _mm_storeh_pd(t, m0);
    _mm_storel_pd(s + 1, m1); _mm_storeh_pd(t + 1, m1);
    _mm_storel_pd(s + 2, m2); _mm_storeh_pd(t + 2, m2);
    _mm_storel_pd(s + 3, m3); _mm_storeh_pd(t + 3, m3);
}
/* _derivatives_log1p of two samples (moments s, t; scales sc0, sc1) into d, d2, one lane each. */
static inline void csrepro_log1p_pair(const double* s, const double* t, double sc0, double sc1, double* d,
                                      double* d2) {
    const __m128d inv = _mm_div_pd(_mm_set1_pd(1.0), _mm_add_pd(_mm_set_pd(t[0], s[0]), _mm_set_pd(sc1, sc0)));
    const __m128d r1 = _mm_mul_pd(_mm_set_pd(t[1], s[1]), inv), r2 = _mm_mul_pd(_mm_set_pd(t[2], s[2]), inv);
    const __m128d e1 = _mm_sub_pd(r2, _mm_mul_pd(r1, r1));
    const __m128d e2 = _mm_add_pd(
        _mm_sub_pd(_mm_mul_pd(_mm_set_pd(t[3], s[3]), inv), _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(3.0), r1), r2)),
        _mm_mul_pd(_mm_mul_pd(_mm_mul_pd(_mm_set1_pd(2.0), r1), r1), r1));
    _mm_storel_pd(d, r1); _mm_storeh_pd(d2, r1);
    _mm_storel_pd(d + 1, e1); _mm_storeh_pd(d2 + 1, e1);
    _mm_storel_pd(d + 2, e2); _mm_storeh_pd(d2 + 2, e2);
}
/* _group_sums of four consecutive rows (row + k M, k = 0..3) in two SSE2 registers, rows 0-1 and 2-3, one
   lane each, so that four chains of sums run at once: out[k nu + u] = sum of row k's terms order[starts[u]
   .. starts[u + 1]], in that order; with ``moments``, s[4 k] and s[4 k + 1] the sums' total and first
   moment sum_u out[k nu + u] (sign uniq[u] - off[k]) (``off`` NULL: offset 0). */
static inline void csrepro_group_sums4(const double* row, Py_ssize_t M, const Py_ssize_t* order,
                                       const Py_ssize_t* starts, Py_ssize_t nu, int moments, const double* uniq,
                                       double sign, const double* off, double* out, double* s) {
    const double *r0 = row, *r1 = row + M, *r2 = row + 2 * M, *r3 = row + 3 * M;
    const __m128d zero = _mm_setzero_pd();
    const __m128d oa = off == NULL ? zero : _mm_set_pd(off[1], off[0]);
    const __m128d ob = off == NULL ? zero : _mm_set_pd(off[3], off[2]);
    __m128d ta = zero, tb = zero, ma = zero, mb = zero, acca, accb, b;
    Py_ssize_t u, k, j;
    for (u = 0; u < nu; u++) {
        acca = zero;
        accb = zero;
        for (k = starts[u]; k < starts[u + 1]; k++) {
            j = order[k];
            acca = _mm_add_pd(acca, _mm_set_pd(r1[j], r0[j]));
            accb = _mm_add_pd(accb, _mm_set_pd(r3[j], r2[j]));
        }
        _mm_storel_pd(out + u, acca); _mm_storeh_pd(out + nu + u, acca);
        _mm_storel_pd(out + 2 * nu + u, accb); _mm_storeh_pd(out + 3 * nu + u, accb);
        if (moments) {
            b = _mm_set1_pd(sign * uniq[u]);
            ta = _mm_add_pd(ta, acca);
            ma = _mm_add_pd(ma, _mm_mul_pd(acca, _mm_sub_pd(b, oa)));
            tb = _mm_add_pd(tb, accb);
            mb = _mm_add_pd(mb, _mm_mul_pd(accb, _mm_sub_pd(b, ob)));
        }
    }
    if (moments) {
        _mm_storel_pd(s, ta); _mm_storel_pd(s + 1, ma); _mm_storeh_pd(s + 4, ta); _mm_storeh_pd(s + 5, ma);
        _mm_storel_pd(s + 8, tb); _mm_storel_pd(s + 9, mb); _mm_storeh_pd(s + 12, tb); _mm_storeh_pd(s + 13, mb);
    }
}
/* _times_max of four consecutive rows (row + k M, k = 0..3) with factor rows f0..f3, two rows per SSE2 register:
   term j of row k times fk[group[j]], rho[k] = the largest of ``floor`` and row k's terms (maxima in term order). */
static inline void csrepro_times_max4(double* row, Py_ssize_t M, const double* f0, const double* f1, const double* f2,
                                      const double* f3, const Py_ssize_t* group, double floor, double* rho) {
    double *r0 = row, *r1 = row + M, *r2 = row + 2 * M, *r3 = row + 3 * M;
    __m128d ma = _mm_set1_pd(floor), mb = ma, xa, xb;
    Py_ssize_t j, g;
    for (j = 0; j < M; j++) {
        g = group[j];
        xa = _mm_mul_pd(_mm_set_pd(r1[j], r0[j]), _mm_set_pd(f1[g], f0[g]));
        xb = _mm_mul_pd(_mm_set_pd(r3[j], r2[j]), _mm_set_pd(f3[g], f2[g]));
        _mm_storel_pd(r0 + j, xa); _mm_storeh_pd(r1 + j, xa);
        _mm_storel_pd(r2 + j, xb); _mm_storeh_pd(r3 + j, xb);
        ma = _mm_max_pd(ma, xa);  /* ma > xa ? ma : xa, as csrepro_max */
        mb = _mm_max_pd(mb, xb);
    }
    _mm_storel_pd(rho, ma); _mm_storeh_pd(rho + 1, ma); _mm_storel_pd(rho + 2, mb); _mm_storeh_pd(rho + 3, mb);
}
/* With AVX2 (where the CPU has it: csrepro_cpu_has_avx2), four samples i..i+3 at once, one per lane: their
   _grouped_moments (sign 1; sample k's groups A + k nu, its factors Xk, off[k], g[k]) and then the outer's three
   derivatives (``log1p``: _derivatives_log1p, else _derivatives_identity; scale[k]) into d[3 k .. 3 k + 2]. */
static __attribute__((target("avx2"))) void csrepro_derivs4(const double* A, Py_ssize_t nu, const double* X0,
                                                           const double* X1, const double* X2, const double* X3,
                                                           const double* uniq, const double* off, const double* g,
                                                           const double* scale, int log1p, double* d) {
    const __m256d o = _mm256_loadu_pd(off), gg = _mm256_loadu_pd(g), sc = _mm256_loadu_pd(scale);
    __m256d m0 = _mm256_setzero_pd(), m1 = m0, m2 = m0, m3 = m0, b, e, inv, r1, r2, e1, e2;
    double out[12];
    Py_ssize_t u, k;
    for (u = 0; u < nu; u++) {
        b = _mm256_mul_pd(gg, _mm256_sub_pd(_mm256_set1_pd(uniq[u]), o));
        e = _mm256_mul_pd(_mm256_set_pd(A[3 * nu + u], A[2 * nu + u], A[nu + u], A[u]),
                          _mm256_set_pd(X3[u], X2[u], X1[u], X0[u]));
        m0 = _mm256_add_pd(m0, e);
        e = _mm256_mul_pd(e, b);
        m1 = _mm256_add_pd(m1, e);
        e = _mm256_mul_pd(e, b);
        m2 = _mm256_add_pd(m2, e);
        m3 = _mm256_add_pd(m3, _mm256_mul_pd(e, b));
    }
    if (log1p) {
        inv = _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_add_pd(m0, sc));
        r1 = _mm256_mul_pd(m1, inv);
        r2 = _mm256_mul_pd(m2, inv);
        e1 = _mm256_sub_pd(r2, _mm256_mul_pd(r1, r1));
        e2 = _mm256_add_pd(
            _mm256_sub_pd(_mm256_mul_pd(m3, inv), _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(3.0), r1), r2)),
            _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), r1), r1), r1));
    } else {
        r1 = _mm256_mul_pd(sc, m1);
        e1 = _mm256_mul_pd(sc, m2);
        e2 = _mm256_mul_pd(sc, m3);
    }
    _mm256_storeu_pd(out, r1);
    _mm256_storeu_pd(out + 4, e1);
    _mm256_storeu_pd(out + 8, e2);
    for (k = 0; k < 4; k++) {
        d[3 * k] = out[k];
        d[3 * k + 1] = out[4 + k];
        d[3 * k + 2] = out[8 + k];
    }
}
static inline int csrepro_exp_quads(void) { return csrepro_cpu_has_avx2(); }
#else
#define CSREPRO_EXP_PAIRS 0
static inline void csrepro_derivs4(const double* A, Py_ssize_t nu, const double* X0, const double* X1,
                                   const double* X2, const double* X3, const double* uniq, const double* off,
                                   const double* g, const double* scale, int log1p, double* d) {
    (void)A; (void)nu; (void)X0; (void)X1; (void)X2; (void)X3; (void)uniq; (void)off; (void)g; (void)scale;
    (void)log1p; (void)d;
}
static inline int csrepro_exp_quads(void) { return 0; }
static inline void csrepro_moments_pair(const double* A0, const double* A1, const double* X0, const double* X1,
                                        const double* uniq, Py_ssize_t nu, double off0, double off1, double g0,
                                        double g1, double* s, double* t) {
    (void)A0; (void)A1; (void)X0; (void)X1; (void)uniq; (void)nu; (void)off0; (void)off1; (void)g0;
    (void)g1; (void)s; (void)t;
}
static inline void csrepro_log1p_pair(const double* s, const double* t, double sc0, double sc1, double* d,
                                      double* d2) {
    (void)s; (void)t; (void)sc0; (void)sc1; (void)d; (void)d2;
}
static inline void csrepro_group_sums4(const double* row, Py_ssize_t M, const Py_ssize_t* order,
                                       const Py_ssize_t* starts, Py_ssize_t nu, int moments, const double* uniq,
                                       double sign, const double* off, double* out, double* s) {
    (void)row; (void)M; (void)order; (void)starts; (void)nu; (void)moments; (void)uniq; (void)sign; (void)off;
    (void)out; (void)s;
}
static inline void csrepro_times_max4(double* row, Py_ssize_t M, const double* f0, const double* f1, const double* f2,
                                      const double* f3, const Py_ssize_t* group, double floor, double* rho) {
    (void)row; (void)M; (void)f0; (void)f1; (void)f2; (void)f3; (void)group; (void)floor; (void)rho;
}
#endif

#endif  /* CSREPRO_EXP_LOSSES_SIMD_H */
