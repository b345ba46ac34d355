/* exp_losses_simd.h -- the C of the kernel csrepro/_kernels/exp_losses.pyx (from exp_losses.pyx.tp; declared
   for Cython in _simd_exp_losses.pxd): a branch-free maximum, the per-cell sums of _aggregate_cells, and, where the
   compiler targets SSE2, two samples of the line search's per-sample moments and of the log1p outer's derivatives
   at once, one per SSE2 lane; where the CPU has AVX2, four samples' moments and derivatives, and four samples'
   group sums and state update (the state is column-major: one load takes a term of four samples), one per lane.
   Per lane the scalar loop's IEEE operations in its order: the same bits.  CSREPRO_EXP_PAIRS is 0 without SSE2
   (the kernel then runs its scalar loop alone and never calls the SIMD functions). */
#ifndef CSREPRO_EXP_LOSSES_SIMD_H
#define CSREPRO_EXP_LOSSES_SIMD_H

#include <Python.h>  /* Py_ssize_t */

static inline double csrepro_max(double a, double b) { return a > b ? a : b; }  /* one maxsd, no branch */

/* _aggregate_cells' loop, samples 0..n-1 in order (A, B: n rows of nu groups; ``B`` NULL: the families without
   the second sum): w = scale[i] (times sw[i] unless ``sw`` is NULL) and row c = rows[i] of ``out`` gets
   out[c nu + u] += w A[i nu + u], or with ``B`` out[c nu nu + u nu + k] += (w A[i nu + u]) B[i nu + k].  In C for
   ``restrict``: the compiler knows that the sums do not overlap the terms, and keeps no run-time overlap checks in
   the short loops over the groups. */
static inline void csrepro_cell_sums(const double* restrict A, const double* restrict B,
                                     const double* restrict scale, const double* restrict sw,
                                     const Py_ssize_t* restrict rows, Py_ssize_t n, Py_ssize_t nu,
                                     double* restrict out) {
    Py_ssize_t i, u, k;
    double w, x, *o;
    if (B == NULL) {
        for (i = 0; i < n; i++) {
            w = sw == NULL ? scale[i] : sw[i] * scale[i];
            o = out + rows[i] * nu;
            for (u = 0; u < nu; u++)
                o[u] += w * A[i * nu + u];
        }
        return;
    }
    for (i = 0; i < n; i++) {
        w = sw == NULL ? scale[i] : sw[i] * scale[i];
        o = out + rows[i] * nu * nu;
        for (u = 0; u < nu; u++) {
            x = w * A[i * nu + u];
            for (k = 0; k < nu; k++)
                o[u * nu + k] += x * B[i * nu + k];
        }
    }
}

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
/* With AVX2 (where the CPU has it: csrepro_cpu_has_avx2), four consecutive samples of the state at once, one per
   lane: ``col`` points at the first one's term 0, term j of sample k lies at col[j n + k] (the state's column-major
   layout, n samples), so that each term of the four is one load.  Per lane the one-sample loop's operations in
   its order. */
/* _group_sums of the four samples: out[k nu + u] = sum of sample k's terms order[starts[u] .. starts[u + 1]], in
   that order; with ``moments``, s[4 k] and s[4 k + 1] the sums' total and first moment sum_u out[k nu + u]
   (sign uniq[u] - off[k]) (``off`` NULL: offset 0). */
static __attribute__((target("avx2"))) void csrepro_group_sums4(const double* col, Py_ssize_t n,
                                                               const Py_ssize_t* order, const Py_ssize_t* starts,
                                                               Py_ssize_t nu, int moments, const double* uniq,
                                                               double sign, const double* off, double* out,
                                                               double* s) {
    const __m256d zero = _mm256_setzero_pd(), o = off == NULL ? zero : _mm256_loadu_pd(off);
    __m256d t = zero, m = zero, acc;
    double lanes[4];
    Py_ssize_t u, k;
    for (u = 0; u < nu; u++) {
        acc = zero;
        for (k = starts[u]; k < starts[u + 1]; k++)
            acc = _mm256_add_pd(acc, _mm256_loadu_pd(col + order[k] * n));
        _mm256_storeu_pd(lanes, acc);
        for (k = 0; k < 4; k++)
            out[k * nu + u] = lanes[k];
        if (moments) {
            t = _mm256_add_pd(t, acc);
            m = _mm256_add_pd(m, _mm256_mul_pd(acc, _mm256_sub_pd(_mm256_set1_pd(sign * uniq[u]), o)));
        }
    }
    if (moments) {
        double ts[4], ms[4];
        _mm256_storeu_pd(ts, t);
        _mm256_storeu_pd(ms, m);
        for (k = 0; k < 4; k++) {
            s[4 * k] = ts[k];
            s[4 * k + 1] = ms[k];
        }
    }
}
/* _times_max and then _divide_floored of the four samples: term j of sample k times fk[group[j]] (fk: its factor
   row; ``f0`` NULL: no factors), rho[k] = the largest of ``floor`` and sample k's terms (maxima in term order), then
   each term max(term / rho[k], floor ck[j]) (ck: its cost row; ``c0`` NULL: floor ``floor``); the products stay
   in registers (or the stack) between the two loops. */
static __attribute__((target("avx2"))) void csrepro_rescale4(double* col, Py_ssize_t n, Py_ssize_t M,
                                                            const double* f0, const double* f1, const double* f2,
                                                            const double* f3, const Py_ssize_t* group,
                                                            const double* c0, const double* c1, const double* c2,
                                                            const double* c3, double floor, double* rho) {
    const __m256d fl = _mm256_set1_pd(floor);
    __m256d x[M], mx = fl, inv, lo = fl;
    Py_ssize_t j, g;
    for (j = 0; j < M; j++) {
        x[j] = _mm256_loadu_pd(col + j * n);
        if (f0 != NULL) {
            g = group[j];
            x[j] = _mm256_mul_pd(x[j], _mm256_set_pd(f3[g], f2[g], f1[g], f0[g]));
        }
        mx = _mm256_max_pd(mx, x[j]);  /* mx > x ? mx : x, as csrepro_max */
    }
    _mm256_storeu_pd(rho, mx);
    inv = _mm256_div_pd(_mm256_set1_pd(1.0), mx);
    for (j = 0; j < M; j++) {
        if (c0 != NULL)
            lo = _mm256_mul_pd(fl, _mm256_set_pd(c3[j], c2[j], c1[j], c0[j]));
        _mm256_storeu_pd(col + j * n, _mm256_max_pd(_mm256_mul_pd(x[j], inv), lo));
    }
}
/* With AVX2, csrepro_cell_sums of the pairwise family (``B``) for nu <= 4 groups: a sample's nu x nu products, in
   the order of ``out``'s row, four per register (lane l of chunk q: group u = (4 q + l) / nu of A times group k =
   (4 q + l) % nu of B, the two rows' lanes put in place by a permutation), each product and sum as the scalar
   loop's; the last L % 4 (L = nu nu) in scalars. */
static __attribute__((target("avx2"))) void csrepro_cell_products4(const double* restrict A, const double* restrict B,
                                                                  const double* restrict scale,
                                                                  const double* restrict sw,
                                                                  const Py_ssize_t* restrict rows, Py_ssize_t n,
                                                                  Py_ssize_t nu, double* restrict out) {
    const Py_ssize_t L = nu * nu, nq = L / 4;
    const __m256i mask = _mm256_set_epi64x(nu > 3 ? -1 : 0, nu > 2 ? -1 : 0, nu > 1 ? -1 : 0, -1);
    __m256i pa[4], pb[4];
    __m256d x, b;
    int lane[8];
    double w, *o;
    Py_ssize_t i, q, l, t;
    for (q = 0; q < nq; q++) {  /* 32-bit index pairs of the doubles each lane takes */
        for (t = 0; t < 4; t++) {
            l = 4 * q + t;
            lane[2 * t] = (int)(2 * (l / nu));
            lane[2 * t + 1] = (int)(2 * (l / nu) + 1);
        }
        pa[q] = _mm256_loadu_si256((const __m256i*)lane);
        for (t = 0; t < 4; t++) {
            l = 4 * q + t;
            lane[2 * t] = (int)(2 * (l % nu));
            lane[2 * t + 1] = (int)(2 * (l % nu) + 1);
        }
        pb[q] = _mm256_loadu_si256((const __m256i*)lane);
    }
    for (i = 0; i < n; i++) {
        w = sw == NULL ? scale[i] : sw[i] * scale[i];
        x = _mm256_mul_pd(_mm256_set1_pd(w), _mm256_maskload_pd(A + i * nu, mask));
        b = _mm256_maskload_pd(B + i * nu, mask);
        o = out + rows[i] * L;
        for (q = 0; q < nq; q++)
            _mm256_storeu_pd(o + 4 * q, _mm256_add_pd(_mm256_loadu_pd(o + 4 * q), _mm256_mul_pd(
                _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(x), pa[q])),
                _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(b), pb[q])))));
        for (l = 4 * nq; l < L; l++)
            o[l] += (w * A[i * nu + l / nu]) * B[i * nu + l % nu];
    }
}
/* With AVX2, four samples i..i+3 at once, one per lane: their _grouped_moments (sign 1; sample k's groups A + k nu,
   its factors Xk, off[k], g[k]) and then the outer's three derivatives (``log1p``: _derivatives_log1p, else
   _derivatives_identity; scale[k]) into r[0..2], each times the sample's weight sw[k] unless ``sw`` is NULL. */
static inline __attribute__((target("avx2"), always_inline)) void csrepro_derivs4_lanes(
        const double* A, Py_ssize_t nu, const double* X0, const double* X1, const double* X2, const double* X3,
        const double* uniq, const double* off, const double* g, const double* scale, int log1p, const double* sw,
        __m256d* r) {
    const __m256d o = _mm256_loadu_pd(off), gg = _mm256_loadu_pd(g), sc = _mm256_loadu_pd(scale);
    __m256d m0 = _mm256_setzero_pd(), m1 = m0, m2 = m0, m3 = m0, b, e, inv, r1, r2;
    Py_ssize_t u;
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
        r[0] = r1;
        r[1] = _mm256_sub_pd(r2, _mm256_mul_pd(r1, r1));
        r[2] = _mm256_add_pd(
            _mm256_sub_pd(_mm256_mul_pd(m3, inv), _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(3.0), r1), r2)),
            _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), r1), r1), r1));
    } else {
        r[0] = _mm256_mul_pd(sc, m1);
        r[1] = _mm256_mul_pd(sc, m2);
        r[2] = _mm256_mul_pd(sc, m3);
    }
    if (sw != NULL) {
        const __m256d w = _mm256_loadu_pd(sw);
        for (u = 0; u < 3; u++)
            r[u] = _mm256_mul_pd(w, r[u]);
    }
}
/* The four samples' (weighted) derivatives added to the sums t[0..2], sample after sample as the one-sample loop
   adds them (the line search's derivatives). */
static __attribute__((target("avx2"))) void csrepro_derivs4_add(
        const double* A, Py_ssize_t nu, const double* X0, const double* X1, const double* X2, const double* X3,
        const double* uniq, const double* off, const double* g, const double* scale, int log1p, const double* sw,
        double* t) {
    __m256d r[3];
    __m128d lo, hi;
    int p;
    csrepro_derivs4_lanes(A, nu, X0, X1, X2, X3, uniq, off, g, scale, log1p, sw, r);
    for (p = 0; p < 3; p++) {
        lo = _mm256_castpd256_pd128(r[p]);
        hi = _mm256_extractf128_pd(r[p], 1);
        t[p] = t[p] + _mm_cvtsd_f64(lo);
        t[p] = t[p] + _mm_cvtsd_f64(_mm_unpackhi_pd(lo, lo));
        t[p] = t[p] + _mm_cvtsd_f64(hi);
        t[p] = t[p] + _mm_cvtsd_f64(_mm_unpackhi_pd(hi, hi));
    }
}
/* The four samples' (weighted) derivatives into d0[0..3], d1[0..3], d2[0..3] (prepare_step's rows of ``wh``). */
static __attribute__((target("avx2"))) void csrepro_derivs4_store(
        const double* A, Py_ssize_t nu, const double* X0, const double* X1, const double* X2, const double* X3,
        const double* uniq, const double* off, const double* g, const double* scale, int log1p, const double* sw,
        double* d0, double* d1, double* d2) {
    __m256d r[3];
    csrepro_derivs4_lanes(A, nu, X0, X1, X2, X3, uniq, off, g, scale, log1p, sw, r);
    _mm256_storeu_pd(d0, r[0]);
    _mm256_storeu_pd(d1, r[1]);
    _mm256_storeu_pd(d2, r[2]);
}
static inline int csrepro_exp_quads(void) { return csrepro_cpu_has_avx2(); }
#else
#define CSREPRO_EXP_PAIRS 0
static inline void csrepro_derivs4_add(const double* A, Py_ssize_t nu, const double* X0, const double* X1,
                                       const double* X2, const double* X3, const double* uniq, const double* off,
                                       const double* g, const double* scale, int log1p, const double* sw, double* t) {
    (void)A; (void)nu; (void)X0; (void)X1; (void)X2; (void)X3; (void)uniq; (void)off; (void)g; (void)scale;
    (void)log1p; (void)sw; (void)t;
}
static inline void csrepro_derivs4_store(const double* A, Py_ssize_t nu, const double* X0, const double* X1,
                                         const double* X2, const double* X3, const double* uniq, const double* off,
                                         const double* g, const double* scale, int log1p, const double* sw,
                                         double* d0, double* d1, double* d2) {
    (void)A; (void)nu; (void)X0; (void)X1; (void)X2; (void)X3; (void)uniq; (void)off; (void)g; (void)scale;
    (void)log1p; (void)sw; (void)d0; (void)d1; (void)d2;
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
static inline void csrepro_group_sums4(const double* col, Py_ssize_t n, const Py_ssize_t* order,
                                       const Py_ssize_t* starts, Py_ssize_t nu, int moments, const double* uniq,
                                       double sign, const double* off, double* out, double* s) {
    (void)col; (void)n; (void)order; (void)starts; (void)nu; (void)moments; (void)uniq; (void)sign; (void)off;
    (void)out; (void)s;
}
static inline void csrepro_rescale4(double* col, Py_ssize_t n, Py_ssize_t M, const double* f0, const double* f1,
                                    const double* f2, const double* f3, const Py_ssize_t* group, const double* c0,
                                    const double* c1, const double* c2, const double* c3, double floor, double* rho) {
    (void)col; (void)n; (void)M; (void)f0; (void)f1; (void)f2; (void)f3; (void)group; (void)c0; (void)c1; (void)c2;
    (void)c3; (void)floor; (void)rho;
}
static inline void csrepro_cell_products4(const double* A, const double* B, const double* scale, const double* sw,
                                          const Py_ssize_t* rows, Py_ssize_t n, Py_ssize_t nu, double* out) {
    (void)A; (void)B; (void)scale; (void)sw; (void)rows; (void)n; (void)nu; (void)out;
}
#endif

#endif  /* CSREPRO_EXP_LOSSES_SIMD_H */
