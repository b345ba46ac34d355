/* histogram_simd.h -- the C of the kernel csrepro/_kernels/histogram.pyx (declared for Cython in
   _simd_histogram.pxd): the bin sums' inner loops (runs of one bin summed in registers, the sparse and dense
   passes of histogram_nodes) and route_rows' row loop, in SSE2 where the compiler targets it and AVX / AVX2
   functions compiled for those targets whatever the flags, chosen at run time where the CPU has them; plain C
   otherwise.  Every floating-point path performs the scalar loop's IEEE additions in its order: the same bits. */
#ifndef CSREPRO_HISTOGRAM_SIMD_H
#define CSREPRO_HISTOGRAM_SIMD_H

#include <Python.h>  /* Py_ssize_t */
#include "cpu_features.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CSREPRO_AVX 1  /* AVX runs: compiled for AVX whatever the flags, used where the CPU has it */
#endif

/* ---- histogram, histogram_fm: one bin's channels, and runs of samples in one bin ---- */
/* dst[c] += src[c] for c < k: one IEEE addition per element, so the same bits as the scalar loop. */
static inline void csrepro_hist_add(double* __restrict dst, const double* __restrict src, Py_ssize_t k) {
    Py_ssize_t c = 0;
#if defined(__SSE2__)
    for (; c + 2 <= k; c += 2)
        _mm_storeu_pd(dst + c, _mm_add_pd(_mm_loadu_pd(dst + c), _mm_loadu_pd(src + c)));
#endif
    for (; c < k; c++)
        dst[c] += src[c];
}
#if defined(__SSE2__)
/* One feature, rows t0..t1 (rows[t], or t when rows is NULL), k = 2 NV channels: a run of samples in one
   bin is summed in registers, loaded from and stored back to the bin once: the additions to each bin and
   their order are those of the row-at-a-time loop, hence the same bits (SSE2: NV registers of 2 doubles;
   AVX: NV / 2 of 4, and one of 2 for odd NV -- element-wise IEEE additions either way). */
#define CSREPRO_RUN(NV, NAME, ROWT)                                                                     \
static inline void NAME##_##NV(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch, \
                               const ROWT* rows, Py_ssize_t t0, Py_ssize_t t1) {                        \
    const Py_ssize_t k = 2 * NV;                                                                        \
    __m128d acc[NV];                                                                                    \
    Py_ssize_t t = t0, i, v;                                                                            \
    unsigned char b;                                                                                    \
    double* dst;                                                                                        \
    while (t < t1) {                                                                                    \
        i = rows ? rows[t] : t;                                                                         \
        b = codes[i];                                                                                   \
        dst = out + (o + b) * k;                                                                        \
        for (v = 0; v < NV; v++) acc[v] = _mm_loadu_pd(dst + 2 * v);                                    \
        for (;;) {                                                                                      \
            const double* src = ch + i * k;                                                             \
            for (v = 0; v < NV; v++) acc[v] = _mm_add_pd(acc[v], _mm_loadu_pd(src + 2 * v));            \
            if (++t >= t1) break;                                                                       \
            i = rows ? rows[t] : t;                                                                     \
            if (codes[i] != b) break;                                                                   \
        }                                                                                               \
        for (v = 0; v < NV; v++) _mm_storeu_pd(dst + 2 * v, acc[v]);                                    \
    }                                                                                                   \
}
#if defined(CSREPRO_AVX)
#define CSREPRO_RUN_AVX(NV, NAME, ROWT)                                                                     \
__attribute__((target("avx")))                                                                              \
static inline void NAME##_avx_##NV(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch, \
                                   const ROWT* rows, Py_ssize_t t0, Py_ssize_t t1) {                        \
    const Py_ssize_t k = 2 * NV;                                                                            \
    __m256d acc[NV / 2];                                                                                    \
    __m128d tail = _mm_setzero_pd();                                                                        \
    Py_ssize_t t = t0, i, v;                                                                                \
    unsigned char b;                                                                                        \
    double* dst;                                                                                            \
    while (t < t1) {                                                                                        \
        i = rows ? rows[t] : t;                                                                             \
        b = codes[i];                                                                                       \
        dst = out + (o + b) * k;                                                                            \
        for (v = 0; v < NV / 2; v++) acc[v] = _mm256_loadu_pd(dst + 4 * v);                                 \
        if (NV & 1) tail = _mm_loadu_pd(dst + k - 2);                                                       \
        for (;;) {                                                                                          \
            const double* src = ch + i * k;                                                                 \
            for (v = 0; v < NV / 2; v++) acc[v] = _mm256_add_pd(acc[v], _mm256_loadu_pd(src + 4 * v));      \
            if (NV & 1) tail = _mm_add_pd(tail, _mm_loadu_pd(src + k - 2));                                 \
            if (++t >= t1) break;                                                                           \
            i = rows ? rows[t] : t;                                                                         \
            if (codes[i] != b) break;                                                                       \
        }                                                                                                   \
        for (v = 0; v < NV / 2; v++) _mm256_storeu_pd(dst + 4 * v, acc[v]);                                 \
        if (NV & 1) _mm_storeu_pd(dst + k - 2, tail);                                                       \
    }                                                                                                       \
}
static inline int csrepro_has_avx(void) { return csrepro_cpu_has_avx(); }
#define CSREPRO_AVX_CASE(NV, NAME) case 2 * NV: NAME##_avx_##NV(out, codes, o, ch, rows, t0, t1); return 1;
#else
#define CSREPRO_RUN_AVX(NV, NAME, ROWT)
static inline int csrepro_has_avx(void) { return 0; }
#define CSREPRO_AVX_CASE(NV, NAME)
#endif
#define CSREPRO_RUNS(NAME, ROWT)                                                                       \
CSREPRO_RUN(4, NAME, ROWT) CSREPRO_RUN(5, NAME, ROWT) CSREPRO_RUN(6, NAME, ROWT)                       \
CSREPRO_RUN(7, NAME, ROWT) CSREPRO_RUN(8, NAME, ROWT) CSREPRO_RUN(9, NAME, ROWT)                       \
CSREPRO_RUN(10, NAME, ROWT) CSREPRO_RUN(11, NAME, ROWT) CSREPRO_RUN(12, NAME, ROWT)                    \
CSREPRO_RUN_AVX(4, NAME, ROWT) CSREPRO_RUN_AVX(5, NAME, ROWT) CSREPRO_RUN_AVX(6, NAME, ROWT)           \
CSREPRO_RUN_AVX(7, NAME, ROWT) CSREPRO_RUN_AVX(8, NAME, ROWT) CSREPRO_RUN_AVX(9, NAME, ROWT)           \
CSREPRO_RUN_AVX(10, NAME, ROWT) CSREPRO_RUN_AVX(11, NAME, ROWT) CSREPRO_RUN_AVX(12, NAME, ROWT)        \
/* 1 when handled (k even, 8 <= k <= 24; fewer channels are faster four features at a time), 0 for     \
   the caller's generic loop. */                                                                       \
static inline int NAME(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,        \
                       Py_ssize_t k, const ROWT* rows, Py_ssize_t t0, Py_ssize_t t1) {                 \
    if (csrepro_has_avx()) {                                                                           \
        switch (k) {                                                                                   \
        CSREPRO_AVX_CASE(4, NAME) CSREPRO_AVX_CASE(5, NAME) CSREPRO_AVX_CASE(6, NAME)                  \
        CSREPRO_AVX_CASE(7, NAME) CSREPRO_AVX_CASE(8, NAME) CSREPRO_AVX_CASE(9, NAME)                  \
        CSREPRO_AVX_CASE(10, NAME) CSREPRO_AVX_CASE(11, NAME) CSREPRO_AVX_CASE(12, NAME)               \
        default: return 0;                                                                             \
        }                                                                                              \
    }                                                                                                  \
    switch (k) {                                                                                       \
    case 8: NAME##_4(out, codes, o, ch, rows, t0, t1); return 1;                                       \
    case 10: NAME##_5(out, codes, o, ch, rows, t0, t1); return 1;                                      \
    case 12: NAME##_6(out, codes, o, ch, rows, t0, t1); return 1;                                      \
    case 14: NAME##_7(out, codes, o, ch, rows, t0, t1); return 1;                                      \
    case 16: NAME##_8(out, codes, o, ch, rows, t0, t1); return 1;                                      \
    case 18: NAME##_9(out, codes, o, ch, rows, t0, t1); return 1;                                      \
    case 20: NAME##_10(out, codes, o, ch, rows, t0, t1); return 1;                                     \
    case 22: NAME##_11(out, codes, o, ch, rows, t0, t1); return 1;                                     \
    case 24: NAME##_12(out, codes, o, ch, rows, t0, t1); return 1;                                     \
    default: return 0;                                                                                 \
    }                                                                                                  \
}
/* csrepro_hist_run: rows t (rows NULL) or rows[t], Py_ssize_t; csrepro_hist_run32: int32 rows (the sparse
   features' row indices). */
CSREPRO_RUNS(csrepro_hist_run, Py_ssize_t)
CSREPRO_RUNS(csrepro_hist_run32, int)
#else  /* no SSE2: the caller's generic loop */
static inline int csrepro_hist_run(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                   Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) {
    (void)out; (void)codes; (void)o; (void)ch; (void)k; (void)rows; (void)t0; (void)t1;
    return 0;
}
static inline int csrepro_hist_run32(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                     Py_ssize_t k, const int* rows, Py_ssize_t t0, Py_ssize_t t1) {
    (void)out; (void)codes; (void)o; (void)ch; (void)k; (void)rows; (void)t0; (void)t1;
    return 0;
}
#endif

/* ---- histogram_nodes: nodes' bins zeroed, sparse and dense features, the sparse features' default bin ---- */
/* The bins o..o+m-1 of every node v < V of out (V, B, k), zeroed. */
static inline void csrepro_zero_bins(double* out, Py_ssize_t V, Py_ssize_t B, Py_ssize_t k, Py_ssize_t o,
                                     Py_ssize_t m) {
    Py_ssize_t v;
    for (v = 0; v < V; v++)
        memset(out + (v * B + o) * k, 0, (size_t)(m * k) * sizeof(double));
}
/* One sparse feature's entries p..e-1 (rows below t1), rows labelled by node (nd; -1: none), k = 3 channels:
   dst += src as csrepro_hist_add (an SSE2 pair and one scalar: the same IEEE additions).  Returns the first
   entry not read. */
static inline Py_ssize_t csrepro_sparse3(double* base, Py_ssize_t Bk, const unsigned char* codes, Py_ssize_t o,
                                         const double* ch, const int* nd, const int* indices, Py_ssize_t p,
                                         Py_ssize_t e, Py_ssize_t t1) {
    for (; p < e; p++) {
        Py_ssize_t i = indices[p], v;
        double* dst;
        const double* src;
        if (i >= t1) break;
        v = nd[i];
        if (v < 0) continue;
        dst = base + v * Bk + (o + codes[i]) * 3;
        src = ch + i * 3;
#if defined(__SSE2__)
        _mm_storeu_pd(dst, _mm_add_pd(_mm_loadu_pd(dst), _mm_loadu_pd(src)));
#else
        dst[0] += src[0];
        dst[1] += src[1];
#endif
        dst[2] += src[2];
    }
    return p;
}
/* The default bin df of a sparse feature (bins o..o+m-1) in every node v < V, k = 3 channels: tot[v] less the
   feature's other bins, these added in increasing bin order from 0.0 (as the generic loop); two nodes at a time
   (independent chains of additions). */
static inline void csrepro_default3(double* base, Py_ssize_t V, Py_ssize_t Bk, Py_ssize_t o, Py_ssize_t m,
                                    Py_ssize_t df, const double* tot) {
    Py_ssize_t v = 0, b;
#if defined(__SSE2__)
    for (; v + 2 <= V; v += 2) {
        double* na = base + v * Bk + o * 3;
        double* nb = na + Bk;
        __m128d sa = _mm_setzero_pd(), sb = _mm_setzero_pd();
        double sa2 = 0.0, sb2 = 0.0;
        for (b = 0; b < m; b++) {
            if (b == df) continue;
            sa = _mm_add_pd(sa, _mm_loadu_pd(na + 3 * b));
            sa2 += na[3 * b + 2];
            sb = _mm_add_pd(sb, _mm_loadu_pd(nb + 3 * b));
            sb2 += nb[3 * b + 2];
        }
        _mm_storeu_pd(na + 3 * df, _mm_sub_pd(_mm_loadu_pd(tot + 3 * v), sa));
        na[3 * df + 2] = tot[3 * v + 2] - sa2;
        _mm_storeu_pd(nb + 3 * df, _mm_sub_pd(_mm_loadu_pd(tot + 3 * v + 3), sb));
        nb[3 * df + 2] = tot[3 * v + 5] - sb2;
    }
#endif
    for (; v < V; v++) {
        double* na = base + v * Bk + o * 3;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0;
        for (b = 0; b < m; b++) {
            if (b == df) continue;
            s0 += na[3 * b];
            s1 += na[3 * b + 1];
            s2 += na[3 * b + 2];
        }
        na[3 * df] = tot[3 * v] - s0;
        na[3 * df + 1] = tot[3 * v + 1] - s1;
        na[3 * df + 2] = tot[3 * v + 2] - s2;
    }
}
/* Four dense features (codes c[0..3], offsets o[0..3]), rows t0..t1-1 labelled by node (nd; -1: none), k = 3
   channels. */
static inline void csrepro_dense3x4(double* base, Py_ssize_t Bk, const unsigned char* const* c,
                                    const Py_ssize_t* o, const double* ch, const int* nd, Py_ssize_t t0,
                                    Py_ssize_t t1) {
    Py_ssize_t i, f;
    for (i = t0; i < t1; i++) {
        Py_ssize_t v = nd[i];
        const double* src = ch + i * 3;
        double* nb;
        if (v < 0) continue;
        nb = base + v * Bk;
        for (f = 0; f < 4; f++) {
            double* dst = nb + (o[f] + c[f][i]) * 3;
#if defined(__SSE2__)
            _mm_storeu_pd(dst, _mm_add_pd(_mm_loadu_pd(dst), _mm_loadu_pd(src)));
#else
            dst[0] += src[0];
            dst[1] += src[1];
#endif
            dst[2] += src[2];
        }
    }
}

/* ---- best_score ---- */
/* One pass over s[0..n-1]: *every the least non-NaN entry (HUGE_VAL when none), *lo the least finite one (HUGE_VAL
   when none), *top the largest |finite| (0.0 when none); returns whether some entry is NaN.  Two entries at a time in
   SSE2 registers (min / max select an operand: the values are entries, only the sign of a zero minimum may differ
   from a scalar scan's), the last one scalar. */
#if defined(__SSE2__)
typedef struct { __m128d e, l, t, n; } csrepro_range2;  /* the range's SSE2 accumulators: lanes of even / odd i */
static inline void csrepro_range_start(csrepro_range2* r) {
    r->e = r->l = _mm_set1_pd(HUGE_VAL);
    r->t = r->n = _mm_setzero_pd();
}
/* entries v (two) into the accumulators */
static inline void csrepro_range_add(csrepro_range2* r, __m128d v) {
    const __m128d inf = _mm_set1_pd(HUGE_VAL), av = _mm_andnot_pd(_mm_set1_pd(-0.0), v);
    const __m128d fin = _mm_cmplt_pd(av, inf);  /* false for +-inf and NaN */
    r->n = _mm_or_pd(r->n, _mm_cmpunord_pd(v, v));
    r->e = _mm_min_pd(v, r->e);  /* a NaN v: e kept */
    r->l = _mm_min_pd(_mm_or_pd(_mm_and_pd(fin, v), _mm_andnot_pd(fin, inf)), r->l);
    r->t = _mm_max_pd(_mm_and_pd(fin, av), r->t);
}
/* the lanes combined: *every, *lo, *top; whether some entry was NaN */
static inline int csrepro_range_end(const csrepro_range2* r, double* every, double* lo, double* top) {
    double x[2];
    _mm_storeu_pd(x, r->e);
    *every = x[1] < x[0] ? x[1] : x[0];
    _mm_storeu_pd(x, r->l);
    *lo = x[1] < x[0] ? x[1] : x[0];
    _mm_storeu_pd(x, r->t);
    *top = x[1] > x[0] ? x[1] : x[0];
    return _mm_movemask_pd(r->n) != 0;
}
#endif
static inline int csrepro_score_range(const double* s, Py_ssize_t n, double* every, double* lo, double* top) {
    double e = HUGE_VAL, l = HUGE_VAL, t = 0.0, x, a;
    int nan = 0;
    Py_ssize_t i = 0;
#if defined(__SSE2__)
    csrepro_range2 r;
    csrepro_range_start(&r);
    for (; i + 2 <= n; i += 2)
        csrepro_range_add(&r, _mm_loadu_pd(s + i));
    nan = csrepro_range_end(&r, &e, &l, &t);
#endif
    for (; i < n; i++) {
        x = s[i];
        if (x != x) {
            nan = 1;
            continue;
        }
        e = x < e ? x : e;
        a = fabs(x);
        if (a < HUGE_VAL) {
            l = x < l ? x : l;
            t = a > t ? a : t;
        }
    }
    *every = e;
    *lo = l;
    *top = t;
    return nan;
}

/* ---- weighted_errors ---- */
/* weighted_errors' scores (see histogram.pyx) written candidate by candidate, with csrepro_score_range's results on
   them kept as they are written: in SSE2 a candidate's two scores are one register, added to the range's
   accumulators as that pass adds them (the same lanes: the same results); otherwise that pass at the end. */
typedef struct {
#if defined(__SSE2__)
    csrepro_range2 r;
#endif
    double* s;
    double b0, d0;
} csrepro_errors;
static inline void csrepro_errors_start(csrepro_errors* e, double* s, double b0, double d0) {
#if defined(__SSE2__)
    csrepro_range_start(&e->r);
#endif
    e->s = s;
    e->b0 = b0;
    e->d0 = d0;
}
/* candidate c's scores s[2c] = (nr + d0) + (pl + b0), s[2c + 1] = (nl + d0) + (pr + b0); HUGE_VAL both unless ok */
static inline void csrepro_errors_put(csrepro_errors* e, Py_ssize_t c, double pl, double pr, double nl, double nr,
                                      int ok) {
    const double s0 = ok ? (nr + e->d0) + (pl + e->b0) : HUGE_VAL, s1 = ok ? (nl + e->d0) + (pr + e->b0) : HUGE_VAL;
    e->s[2 * c] = s0;
    e->s[2 * c + 1] = s1;
#if defined(__SSE2__)
    csrepro_range_add(&e->r, _mm_set_pd(s1, s0));
#endif
}
/* after C candidates: csrepro_score_range's results on s[0..2C-1] */
static inline int csrepro_errors_end(const csrepro_errors* e, Py_ssize_t C, double* every, double* lo, double* top) {
#if defined(__SSE2__)
    (void)C;
    return csrepro_range_end(&e->r, every, lo, top);
#else
    return csrepro_score_range(e->s, 2 * C, every, lo, top);
#endif
}
static inline int csrepro_weighted_errors(const double* pl, const double* pr, const double* nl, const double* nr,
                                          const unsigned char* valid, double b0, double d0, Py_ssize_t C, double* s,
                                          double* every, double* lo, double* top) {
    csrepro_errors e;
    Py_ssize_t c;
    csrepro_errors_start(&e, s, b0, d0);
    for (c = 0; c < C; c++)
        csrepro_errors_put(&e, c, pl[c], pr[c], nl[c], nr[c], valid[c]);
    return csrepro_errors_end(&e, C, every, lo, top);
}

/* ---- node_scan ---- */
#define CSREPRO_SCAN_MAXK 256
/* node_scan's pass (see histogram.pyx for what it computes), k <= CSREPRO_SCAN_MAXK channels, H (B, k) contiguous, L
   and R (kk, *) rows ls / rs doubles apart, left: B doubles of scratch; M: NULL, or (B, k) subtracted from H (each
   entry's difference scanned and, unless D is NULL, written to D, which may be H); E: NULL, or (kk = 2) the
   candidates written are scored by weighted_errors into E as R is written.  Inlined with k = 2 and k = 3 (constant:
   the running sums stay in registers) and as is.  Bits: the scalar loop's subtractions and additions in its order. */
static inline __attribute__((always_inline)) Py_ssize_t csrepro_scan_body(
        const Py_ssize_t k, const double* H, const Py_ssize_t* n_bins, Py_ssize_t d, int counted, int distinct,
        double* L, Py_ssize_t ls, double* R, Py_ssize_t rs, unsigned char* valid, Py_ssize_t* index, double* total,
        double* left, const double* M, double* D, csrepro_errors* E) {
    const Py_ssize_t kk = k - (counted ? 1 : 0);
    /* k entries each (k <= CSREPRO_SCAN_MAXK): of constant size where k is, so kept in registers there */
    double run[k], before[k], cur[k], T[k];
    unsigned long long prev[k];
    Py_ssize_t b = 0, q = 0, w = 0, j, t, c, x;
    for (c = 0; c < k; c++) {
        run[c] = 0.0;
        prev[c] = 0;
    }
    for (j = 0; j < d; j++) {
        const Py_ssize_t m = n_bins[j], w0 = w;
        for (c = 0; c < k; c++)
            before[c] = run[c];
        for (t = 0; t < m; t++, b++) {
            for (c = 0; c < k; c++) {
                double h = H[b * k + c];
                if (M)
                    h -= M[b * k + c];
                if (D)
                    D[b * k + c] = h;
                run[c] += h;
            }
            if (t < m - 1) {
                int fresh = !distinct || t == 0;
                for (c = 0; c < k; c++) {
                    unsigned long long u;
                    cur[c] = run[c] - before[c];
                    memcpy(&u, &cur[c], 8);  /* the double's bits */
                    fresh |= u != prev[c];
                    prev[c] = u;
                }
                for (c = 0; c < kk; c++)  /* written always, kept when fresh: no branch on the data */
                    L[c * ls + w] = cur[c];
                if (counted)
                    left[w - w0] = cur[k - 1];
                index[w] = q;
                w += fresh;
                q++;
            }
        }
        for (c = 0; c < k; c++)
            T[c] = run[c] - before[c];
        if (j == 0)
            for (c = 0; c < kk; c++)
                total[c] = T[c];
        for (x = w0; x < w; x++) {
            for (c = 0; c < kk; c++)
                R[c * rs + x] = T[c] - L[c * ls + x];
            valid[x] = counted ? (left[x - w0] > 0.5 && T[k - 1] - left[x - w0] > 0.5) : 1;
            if (E)
                csrepro_errors_put(E, x, L[x], R[x], L[ls + x], R[rs + x], valid[x]);
        }
    }
    return w;
}
#if defined(__SSE2__)
/* One bin of csrepro_scan_tree: h = H[i] (less M[i] where M is not NULL; written to D[i] where D is not NULL) added
   to the running sums (channels 0, 1 in one register, the count in run2). */
static inline __attribute__((always_inline)) void csrepro_scan_tree_add(const double* H, const double* M, double* D,
                                                                        Py_ssize_t i, __m128d* run, double* run2) {
    __m128d h = _mm_loadu_pd(H + 3 * i);
    double h2 = H[3 * i + 2];
    if (M) {
        h = _mm_sub_pd(h, _mm_loadu_pd(M + 3 * i));
        h2 -= M[3 * i + 2];
    }
    if (D) {
        _mm_storeu_pd(D + 3 * i, h);
        D[3 * i + 2] = h2;
    }
    *run = _mm_add_pd(*run, h);
    *run2 += h2;
}
/* csrepro_scan_body for a tree node (k = 3: two channels and a count; counted, distinct) in SSE2: the same IEEE
   operations in the same order, channels 0 and 1 two lanes of one register (element-wise: the same bits), a
   candidate's bits compared as integers, and R, valid and the scores two candidates at a time (each lane the scalar
   operations; the scores into E's range in the scalar loop's order). */
static inline __attribute__((always_inline)) Py_ssize_t csrepro_scan_tree(
        const double* H, const Py_ssize_t* n_bins, Py_ssize_t d, double* L, Py_ssize_t ls, double* R, Py_ssize_t rs,
        unsigned char* valid, Py_ssize_t* index, double* total, double* left, const double* M, double* D,
        csrepro_errors* E) {
    double* const L1 = L + ls;
    double* const R1 = R + rs;
    const __m128d half = _mm_set1_pd(0.5), inf = _mm_set1_pd(HUGE_VAL);
    __m128d run = _mm_setzero_pd(), before, cur, T;
    __m128i prev = _mm_setzero_si128();
    double run2 = 0.0, before2, cur2, T2;
    unsigned long long prev2 = 0, u2;
    Py_ssize_t b = 0, q = 0, w = 0, j, t, x;
    for (j = 0; j < d; j++) {
        const Py_ssize_t m = n_bins[j], w0 = w;
        before = run;
        before2 = run2;
        for (t = 0; t < m - 1; t++) {
            int same;
            csrepro_scan_tree_add(H, M, D, b + t, &run, &run2);
            cur = _mm_sub_pd(run, before);
            cur2 = run2 - before2;
            memcpy(&u2, &cur2, 8);  /* the double's bits */
            same = (t > 0) & (u2 == prev2) &  /* no branch on the data */
                   (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_castpd_si128(cur), prev)) == 0xFFFF);
            prev = _mm_castpd_si128(cur);
            prev2 = u2;
            _mm_storel_pd(L + w, cur);  /* written always, kept when fresh: no branch on the data */
            _mm_storeh_pd(L1 + w, cur);
            left[w - w0] = cur2;
            index[w] = q + t;
            w += !same;
        }
        csrepro_scan_tree_add(H, M, D, b + m - 1, &run, &run2);  /* the last bin (m >= 1): no candidate */
        b += m;
        q += m - 1;
        T = _mm_sub_pd(run, before);
        T2 = run2 - before2;
        if (j == 0)
            _mm_storeu_pd(total, T);
        {
            const __m128d T0 = _mm_unpacklo_pd(T, T), T1 = _mm_unpackhi_pd(T, T), Tc = _mm_set1_pd(T2);
            for (x = w0; x + 2 <= w; x += 2) {
                const __m128d l0 = _mm_loadu_pd(L + x), l1 = _mm_loadu_pd(L1 + x), c = _mm_loadu_pd(left + (x - w0));
                const __m128d r0 = _mm_sub_pd(T0, l0), r1 = _mm_sub_pd(T1, l1);
                const __m128d ok = _mm_and_pd(_mm_cmpgt_pd(c, half), _mm_cmpgt_pd(_mm_sub_pd(Tc, c), half));
                const int bits = _mm_movemask_pd(ok);
                _mm_storeu_pd(R + x, r0);
                _mm_storeu_pd(R1 + x, r1);
                valid[x] = bits & 1;
                valid[x + 1] = bits >> 1;
                if (E) {  /* s0 = (nr + d0) + (pl + b0), s1 = (nl + d0) + (pr + b0); HUGE_VAL unless ok */
                    const __m128d b0 = _mm_set1_pd(E->b0), d0 = _mm_set1_pd(E->d0);
                    __m128d s0 = _mm_add_pd(_mm_add_pd(r1, d0), _mm_add_pd(l0, b0));
                    __m128d s1 = _mm_add_pd(_mm_add_pd(l1, d0), _mm_add_pd(r0, b0));
                    __m128d a, z;
                    s0 = _mm_or_pd(_mm_and_pd(ok, s0), _mm_andnot_pd(ok, inf));
                    s1 = _mm_or_pd(_mm_and_pd(ok, s1), _mm_andnot_pd(ok, inf));
                    a = _mm_unpacklo_pd(s0, s1);  /* candidate x: (s0, s1) */
                    z = _mm_unpackhi_pd(s0, s1);  /* candidate x + 1 */
                    _mm_storeu_pd(E->s + 2 * x, a);
                    _mm_storeu_pd(E->s + 2 * x + 2, z);
                    csrepro_range_add(&E->r, a);
                    csrepro_range_add(&E->r, z);
                }
            }
            for (; x < w; x++) {
                R[x] = _mm_cvtsd_f64(T0) - L[x];
                R1[x] = _mm_cvtsd_f64(T1) - L1[x];
                valid[x] = left[x - w0] > 0.5 && T2 - left[x - w0] > 0.5;
                if (E)
                    csrepro_errors_put(E, x, L[x], R[x], L1[x], R1[x], valid[x]);
            }
        }
    }
    return w;
}
#endif
static inline Py_ssize_t csrepro_node_scan(Py_ssize_t k, const double* H, const Py_ssize_t* n_bins, Py_ssize_t d,
                                           int counted, int distinct, double* L, Py_ssize_t ls, double* R,
                                           Py_ssize_t rs, unsigned char* valid, Py_ssize_t* index, double* total,
                                           double* left, const double* M, double* D, csrepro_errors* E) {
    /* constants where the loops are hot: a stump's two channels (every split), a tree node's two and a count
       (distinct splits) */
    if (k == 2 && !counted && !distinct)
        return csrepro_scan_body(2, H, n_bins, d, 0, 0, L, ls, R, rs, valid, index, total, left, M, D, E);
#if defined(__SSE2__)
    if (k == 3 && counted && distinct)
        return !M ? csrepro_scan_tree(H, n_bins, d, L, ls, R, rs, valid, index, total, left, NULL, NULL, E)
               : D ? csrepro_scan_tree(H, n_bins, d, L, ls, R, rs, valid, index, total, left, M, D, E)
                   : csrepro_scan_tree(H, n_bins, d, L, ls, R, rs, valid, index, total, left, M, NULL, E);
#else
    if (k == 3 && counted && distinct)
        return csrepro_scan_body(3, H, n_bins, d, 1, 1, L, ls, R, rs, valid, index, total, left, M, D, E);
#endif
    switch (k) {
    case 2:
        return csrepro_scan_body(2, H, n_bins, d, counted, distinct, L, ls, R, rs, valid, index, total, left, M, D, E);
    case 3:
        return csrepro_scan_body(3, H, n_bins, d, counted, distinct, L, ls, R, rs, valid, index, total, left, M, D, E);
    default:
        return csrepro_scan_body(k, H, n_bins, d, counted, distinct, L, ls, R, rs, valid, index, total, left, M, D, E);
    }
}

/* ---- route_rows ---- */
/* route_rows on a per-node table: off[v] (the node's feature row in codes_t, as feature x n; 0 when v is not
   split), above[v] (a code above it goes right; 255 when not split: never), left[v], step[v] = right[v] -
   left[v] (0 when not split).  Rows with node < 0 stay.  Rows t0..n-1 (scalar). */
static inline void csrepro_route(const unsigned char* codes, int* node, Py_ssize_t t0, Py_ssize_t n,
                                 const Py_ssize_t* off, const int* above, const int* left, const int* step) {
    Py_ssize_t i;
    for (i = t0; i < n; i++) {
        int v = node[i];
        if (v >= 0)
            node[i] = left[v] + (codes[off[v] + i] > above[v]) * step[v];
    }
}
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
static inline int csrepro_route_has_avx2(void) { return csrepro_cpu_has_avx2(); }
/* The largest node id of rows 0..n-1 (INT_MIN when none). */
__attribute__((target("avx2")))
static inline int csrepro_max_id_avx2(const int* node, Py_ssize_t n) {
    __m256i m = _mm256_set1_epi32(-2147483647 - 1);
    int r = -2147483647 - 1, t[8];
    Py_ssize_t i = 0, q;
    for (; i + 8 <= n; i += 8)
        m = _mm256_max_epi32(m, _mm256_loadu_si256((const __m256i*)(node + i)));
    _mm256_storeu_si256((__m256i*)t, m);
    for (q = 0; q < 8; q++)
        r = t[q] > r ? t[q] : r;
    for (; i < n; i++)
        r = node[i] > r ? node[i] : r;
    return r;
}
/* Eight rows at a time, at most 16 nodes: the table looked up in registers (a permute; two and a blend past 8
   nodes), the codes gathered (32-bit reads at byte offsets: rows up to n - 11 only, so that no read passes the
   feature's row; off32 = feature x n must fit an int32 with n).  Integer operations only: the same ids as the
   scalar loop.  Returns the first row not routed. */
#define CSREPRO_ROUTE_AVX2(NAME, LOOK)                                                                            \
__attribute__((target("avx2")))                                                                                   \
static inline Py_ssize_t NAME(const unsigned char* codes, int* node, Py_ssize_t n, const int* off32,              \
                              const int* above, const int* left, const int* step) {                               \
    const __m256i o0 = _mm256_loadu_si256((const __m256i*)off32);                                                 \
    const __m256i o1 = _mm256_loadu_si256((const __m256i*)(off32 + 8));                                           \
    const __m256i a0 = _mm256_loadu_si256((const __m256i*)above);                                                 \
    const __m256i a1 = _mm256_loadu_si256((const __m256i*)(above + 8));                                           \
    const __m256i l0 = _mm256_loadu_si256((const __m256i*)left);                                                  \
    const __m256i l1 = _mm256_loadu_si256((const __m256i*)(left + 8));                                            \
    const __m256i s0 = _mm256_loadu_si256((const __m256i*)step);                                                  \
    const __m256i s1 = _mm256_loadu_si256((const __m256i*)(step + 8));                                            \
    const __m256i seven = _mm256_set1_epi32(7), none = _mm256_set1_epi32(-1), ff = _mm256_set1_epi32(0xFF);       \
    const __m256i eight = _mm256_set1_epi32(8);                                                                   \
    __m256i rows = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);                                                     \
    Py_ssize_t i = 0;                                                                                             \
    (void)o1; (void)a1; (void)l1; (void)s1;  /* unused by the 8-node variant */                                   \
    for (; i + 11 <= n; i += 8) {                                                                                 \
        __m256i nv = _mm256_loadu_si256((const __m256i*)(node + i));                                              \
        __m256i valid = _mm256_cmpgt_epi32(nv, none), hi = _mm256_cmpgt_epi32(nv, seven);                         \
        __m256i of = LOOK(o0, o1), ab = LOOK(a0, a1), lf = LOOK(l0, l1), st = LOOK(s0, s1);                       \
        __m256i c = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int*)codes,                        \
                                                _mm256_add_epi32(of, rows), valid, 1);                            \
        __m256i nw = _mm256_add_epi32(lf, _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_and_si256(c, ff), ab), st)); \
        _mm256_storeu_si256((__m256i*)(node + i), _mm256_blendv_epi8(nv, nw, valid));                             \
        rows = _mm256_add_epi32(rows, eight);                                                                     \
        (void)hi;                                                                                                 \
    }                                                                                                             \
    return i;                                                                                                     \
}
#define CSREPRO_LOOK16(T0, T1) \
    _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(T0, nv), _mm256_permutevar8x32_epi32(T1, nv), hi)
#define CSREPRO_LOOK8(T0, T1) _mm256_permutevar8x32_epi32(T0, nv)
CSREPRO_ROUTE_AVX2(csrepro_route_avx2_16, CSREPRO_LOOK16)
CSREPRO_ROUTE_AVX2(csrepro_route_avx2_8, CSREPRO_LOOK8)
/* At most 16 nodes of which S <= 8 are split: no gather -- for each split node u (feature row at soff[u],
   bin sab[u]) eight codes read at once, and a row goes right when its node is u and its code > sab[u]. */
#define CSREPRO_ROUTE_SPLIT(NAME, LOOK)                                                                        \
__attribute__((target("avx2")))                                                                                \
static inline Py_ssize_t NAME(const unsigned char* codes, int* node, Py_ssize_t n, int S, const int* su,       \
                              const Py_ssize_t* soff, const int* sab, const int* left, const int* step) {      \
    const __m256i l0 = _mm256_loadu_si256((const __m256i*)left);                                               \
    const __m256i l1 = _mm256_loadu_si256((const __m256i*)(left + 8));                                         \
    const __m256i s0 = _mm256_loadu_si256((const __m256i*)step);                                               \
    const __m256i s1 = _mm256_loadu_si256((const __m256i*)(step + 8));                                         \
    const __m256i seven = _mm256_set1_epi32(7), none = _mm256_set1_epi32(-1);                                  \
    __m256i U[8], A[8];                                                                                        \
    Py_ssize_t i = 0;                                                                                          \
    int u;                                                                                                     \
    (void)l1; (void)s1;  /* unused by the 8-node variant */                                                    \
    for (u = 0; u < S; u++) {                                                                                  \
        U[u] = _mm256_set1_epi32(su[u]);                                                                       \
        A[u] = _mm256_set1_epi32(sab[u]);                                                                      \
    }                                                                                                          \
    for (; i + 8 <= n; i += 8) {                                                                               \
        __m256i nv = _mm256_loadu_si256((const __m256i*)(node + i));                                           \
        __m256i valid = _mm256_cmpgt_epi32(nv, none), hi = _mm256_cmpgt_epi32(nv, seven);                      \
        __m256i right = _mm256_setzero_si256(), lf, st;                                                        \
        for (u = 0; u < S; u++) {                                                                              \
            __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(codes + soff[u] + i)));          \
            right = _mm256_or_si256(right, _mm256_and_si256(_mm256_cmpeq_epi32(nv, U[u]),                      \
                                                            _mm256_cmpgt_epi32(c, A[u])));                     \
        }                                                                                                      \
        lf = LOOK(l0, l1);                                                                                     \
        st = LOOK(s0, s1);                                                                                     \
        _mm256_storeu_si256((__m256i*)(node + i),                                                              \
                            _mm256_blendv_epi8(nv, _mm256_add_epi32(lf, _mm256_and_si256(right, st)), valid)); \
        (void)hi;                                                                                              \
    }                                                                                                          \
    return i;                                                                                                  \
}
CSREPRO_ROUTE_SPLIT(csrepro_route_split_16, CSREPRO_LOOK16)
CSREPRO_ROUTE_SPLIT(csrepro_route_split_8, CSREPRO_LOOK8)
static inline Py_ssize_t csrepro_route_split(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                             int S, const int* su, const Py_ssize_t* soff, const int* sab,
                                             const int* left, const int* step) {
    return V <= 8 ? csrepro_route_split_8(codes, node, n, S, su, soff, sab, left, step)
                  : csrepro_route_split_16(codes, node, n, S, su, soff, sab, left, step);
}
static inline Py_ssize_t csrepro_route_avx2(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                            const int* off32, const int* above, const int* left, const int* step) {
    return V <= 8 ? csrepro_route_avx2_8(codes, node, n, off32, above, left, step)
                  : csrepro_route_avx2_16(codes, node, n, off32, above, left, step);
}
#else
static inline int csrepro_route_has_avx2(void) { return 0; }
/* Stubs never called (route_rows checks csrepro_route_has_avx2 first). */
static inline int csrepro_max_id_avx2(const int* node, Py_ssize_t n) {
    (void)node; (void)n;
    return 0;
}
static inline Py_ssize_t csrepro_route_avx2(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                            const int* off32, const int* above, const int* left, const int* step) {
    (void)codes; (void)node; (void)n; (void)V; (void)off32; (void)above; (void)left; (void)step;
    return 0;
}
static inline Py_ssize_t csrepro_route_split(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                             int S, const int* su, const Py_ssize_t* soff, const int* sab,
                                             const int* left, const int* step) {
    (void)codes; (void)node; (void)n; (void)V; (void)S; (void)su; (void)soff; (void)sab; (void)left; (void)step;
    return 0;
}
#endif

#endif  /* CSREPRO_HISTOGRAM_SIMD_H */
