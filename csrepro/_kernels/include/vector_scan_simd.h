/* vector_scan_simd.h -- the C of the kernel csrepro/_kernels/vector_scan.pyx (declared for Cython in
   _simd_vector_scan.pxd): the closed-form split loss of a K-vector stump, the labelled split scores of a tree
   layer's nodes and the layer's per-sample channels, in SSE2 where the compiler targets it and AVX / AVX2
   functions compiled for those targets whatever the flags, chosen at run time where the CPU has them; plain C
   otherwise.  Every path performs the scalar loop's IEEE operations in its order: the same bits. */
#ifndef CSREPRO_VECTOR_SCAN_SIMD_H
#define CSREPRO_VECTOR_SCAN_SIMD_H

#include <Python.h>  /* Py_ssize_t */
#include "cpu_features.h"
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#define CSREPRO_LSS_SSE2 1
#else
#define CSREPRO_LSS_SSE2 0
#endif
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

/* ---- exp_vector_scores ---- */
/* sum_k sqrt(A_k B_k) of one split, A = (T+ - L+) + L-, B = L+ + (T- - L-), each clipped below at 0 (a NaN
   kept), added in k order from 0.0.  With SSE2 two classes per register: the same IEEE operations per class
   (max(0, x) keeps a NaN as "x < 0 ? 0 : x" does), the square roots then added one by one in k order. */
static inline double csrepro_split_loss(const double* L, const double* T, Py_ssize_t K) {
    double s = 0.0, A, B;
    Py_ssize_t k = 0;
#if defined(__SSE2__)
    const __m128d zero = _mm_setzero_pd();
    double q[2];
    for (; k + 2 <= K; k += 2) {
        __m128d lp = _mm_loadu_pd(L + k), lm = _mm_loadu_pd(L + K + k);
        __m128d a = _mm_add_pd(_mm_sub_pd(_mm_loadu_pd(T + k), lp), lm);
        __m128d b = _mm_add_pd(lp, _mm_sub_pd(_mm_loadu_pd(T + K + k), lm));
        _mm_storeu_pd(q, _mm_sqrt_pd(_mm_mul_pd(_mm_max_pd(zero, a), _mm_max_pd(zero, b))));
        s += q[0];
        s += q[1];
    }
#endif
    for (; k < K; k++) {
        A = (T[k] - L[k]) + L[K + k];
        B = L[k] + (T[K + k] - L[K + k]);
        if (A < 0.0) A = 0.0;
        if (B < 0.0) B = 0.0;
        s += sqrt(A * B);
    }
    return s;
}

/* ---- labelled_split_scores ---- */
/* labelled_split_scores of NQ nodes in one pass (independent running sums: their additions overlap), channels
   0 and 1 of a bin as one SSE2 pair: (R0, R1) + (L1, L0) gives both scores of a split, R0 + L1 and R1 + L0 = L0
   + R1 (one IEEE addition each, the scalar loop's bits).  Per node q: low[q] / top[q] the least finite score and
   the largest finite |score|, fmin[q * d + j] the least value written in feature j's columns (inf included,
   NaN ignored), so that the search for the first score <= low + rtol top can skip whole features. */
#define CSREPRO_LSS(NQ)                                                                                               \
static inline void csrepro_lss_##NQ(const double* const* h, double* const* out, const Py_ssize_t* offsets,            \
                                    const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top, double* fmin) { \
    const __m128d inf = _mm_set1_pd(INFINITY), zero = _mm_setzero_pd();                                               \
    const __m128d absmask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));                                  \
    __m128d lo[NQ], tp[NQ], T01[NQ], L01[NQ], fm[NQ];                                                                 \
    double T2[NQ], L2[NQ];                                                                                            \
    Py_ssize_t j, b, o, m;                                                                                            \
    int q;                                                                                                            \
    for (q = 0; q < NQ; q++) { lo[q] = inf; tp[q] = zero; }                                                           \
    for (j = 0; j < d; j++) {                                                                                         \
        o = offsets[j]; m = n_bins[j];                                                                                \
        for (q = 0; q < NQ; q++) { T01[q] = zero; T2[q] = 0.0; L01[q] = zero; L2[q] = 0.0; fm[q] = inf; }             \
        for (b = 0; b < m; b++)                                                                                       \
            for (q = 0; q < NQ; q++) {                                                                                \
                const double* s = h[q] + 3 * (o + b);                                                                 \
                T01[q] = _mm_add_pd(T01[q], _mm_loadu_pd(s));                                                         \
                T2[q] += s[2];                                                                                        \
            }                                                                                                         \
        for (b = 0; b < m - 1; b++)                                                                                   \
            for (q = 0; q < NQ; q++) {                                                                                \
                const double* s = h[q] + 3 * (o + b);                                                                 \
                __m128d r, x, a, fin, ok;                                                                             \
                double r2;                                                                                            \
                L01[q] = _mm_add_pd(L01[q], _mm_loadu_pd(s));                                                         \
                L2[q] += s[2];                                                                                        \
                r2 = T2[q] - L2[q];                                                                                   \
                r = _mm_sub_pd(T01[q], L01[q]);                                                                       \
                x = _mm_add_pd(r, _mm_shuffle_pd(L01[q], L01[q], 1));                                                 \
                ok = _mm_castsi128_pd(_mm_set1_epi64x(-(long long)((L2[q] > 0.5) & (r2 > 0.5))));                     \
                x = _mm_or_pd(_mm_and_pd(ok, x), _mm_andnot_pd(ok, inf));                                             \
                _mm_storeu_pd(out[q] + 2 * (o + b), x);                                                               \
                a = _mm_and_pd(x, absmask);                                                                           \
                fin = _mm_cmplt_pd(a, inf);                                                                           \
                lo[q] = _mm_min_pd(_mm_or_pd(_mm_and_pd(fin, x), _mm_andnot_pd(fin, inf)), lo[q]);                    \
                tp[q] = _mm_max_pd(_mm_and_pd(fin, a), tp[q]);                                                        \
                fm[q] = _mm_min_pd(x, fm[q]);                                                                         \
            }                                                                                                         \
        for (q = 0; q < NQ; q++) {                                                                                    \
            double f0 = _mm_cvtsd_f64(fm[q]), f1 = _mm_cvtsd_f64(_mm_unpackhi_pd(fm[q], fm[q]));                      \
            out[q][2 * (o + m - 1)] = INFINITY;                                                                       \
            out[q][2 * (o + m - 1) + 1] = INFINITY;                                                                   \
            fmin[q * d + j] = f1 < f0 ? f1 : f0;  /* the last bin's inf: at most inf anyway */                        \
        }                                                                                                             \
    }                                                                                                                 \
    for (q = 0; q < NQ; q++) {                                                                                        \
        double a0 = _mm_cvtsd_f64(lo[q]), a1 = _mm_cvtsd_f64(_mm_unpackhi_pd(lo[q], lo[q]));                          \
        double b0 = _mm_cvtsd_f64(tp[q]), b1 = _mm_cvtsd_f64(_mm_unpackhi_pd(tp[q], tp[q]));                          \
        low[q] = a1 < a0 ? a1 : a0;                                                                                   \
        top[q] = b1 > b0 ? b1 : b0;                                                                                   \
    }                                                                                                                 \
}
#if defined(__SSE2__)
CSREPRO_LSS(1)
CSREPRO_LSS(2)
#else  /* not used: labelled_split_scores keeps its scalar loop */
static inline void csrepro_lss_1(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                                 const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top, double* fmin) {
    (void)h; (void)out; (void)offsets; (void)n_bins; (void)d; (void)low; (void)top; (void)fmin;
}
static inline void csrepro_lss_2(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                                 const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top, double* fmin) {
    (void)h; (void)out; (void)offsets; (void)n_bins; (void)d; (void)low; (void)top; (void)fmin;
}
#endif
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
static inline int csrepro_has_avx2(void) { return csrepro_cpu_has_avx2(); }
/* Two nodes A, B in one AVX register, (A0, A1, B0, B1), their counts as (A2, B2).  A first pass keeps the
   running sums of each bin (P[b]: the sums of bins o..o+b, added in bin order from 0.0 -- the scalar loop's L
   after bin b, and T after the last bin); the second pass has no chain of additions.  Same results, bit for
   bit, as csrepro_lss_2 (element-wise IEEE operations).  buf: 6 doubles per bin of the largest feature. */
__attribute__((target("avx2")))
static inline void csrepro_lss_avx2(const double* hA, const double* hB, double* oA, double* oB,
                                    const Py_ssize_t* offsets, const Py_ssize_t* n_bins, Py_ssize_t d,
                                    double* low, double* top, double* fminA, double* fminB, double* buf) {
    const __m256d inf = _mm256_set1_pd(INFINITY);
    const __m256d absmask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    const __m128d half = _mm_set1_pd(0.5);
    __m256d lo = inf, tp = _mm256_setzero_pd();
    Py_ssize_t j, b, o, m;
    for (j = 0; j < d; j++) {
        __m256d P = _mm256_setzero_pd(), fm = inf;
        __m128d P2 = _mm_setzero_pd();
        o = offsets[j]; m = n_bins[j];
        for (b = 0; b < m; b++) {
            const double* sA = hA + 3 * (o + b);
            const double* sB = hB + 3 * (o + b);
            P = _mm256_add_pd(P, _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(sA)),
                                                      _mm_loadu_pd(sB), 1));
            P2 = _mm_add_pd(P2, _mm_loadh_pd(_mm_load_sd(sA + 2), sB + 2));
            _mm256_storeu_pd(buf + 6 * b, P);
            _mm_storeu_pd(buf + 6 * b + 4, P2);
        }
        for (b = 0; b < m - 1; b++) {
            __m256d L = _mm256_loadu_pd(buf + 6 * b), x, a, fin, ok;
            __m128d L2 = _mm_loadu_pd(buf + 6 * b + 4), R2 = _mm_sub_pd(P2, L2);
            __m128d ok2 = _mm_and_pd(_mm_cmpgt_pd(L2, half), _mm_cmpgt_pd(R2, half));
            ok = _mm256_permute4x64_pd(_mm256_castpd128_pd256(ok2), 0x50);
            x = _mm256_add_pd(_mm256_sub_pd(P, L), _mm256_permute_pd(L, 5));
            x = _mm256_blendv_pd(inf, x, ok);
            _mm_storeu_pd(oA + 2 * (o + b), _mm256_castpd256_pd128(x));
            _mm_storeu_pd(oB + 2 * (o + b), _mm256_extractf128_pd(x, 1));
            a = _mm256_and_pd(x, absmask);
            fin = _mm256_cmp_pd(a, inf, _CMP_LT_OQ);
            lo = _mm256_min_pd(_mm256_blendv_pd(inf, x, fin), lo);
            tp = _mm256_max_pd(_mm256_and_pd(fin, a), tp);
            fm = _mm256_min_pd(x, fm);
        }
        oA[2 * (o + m - 1)] = INFINITY;
        oA[2 * (o + m - 1) + 1] = INFINITY;
        oB[2 * (o + m - 1)] = INFINITY;
        oB[2 * (o + m - 1) + 1] = INFINITY;
        {
            double f[4];
            _mm256_storeu_pd(f, fm);
            fminA[j] = f[1] < f[0] ? f[1] : f[0];
            fminB[j] = f[3] < f[2] ? f[3] : f[2];
        }
    }
    {
        double l[4], t[4];
        _mm256_storeu_pd(l, lo);
        _mm256_storeu_pd(t, tp);
        low[0] = l[1] < l[0] ? l[1] : l[0];
        low[1] = l[3] < l[2] ? l[3] : l[2];
        top[0] = t[1] > t[0] ? t[1] : t[0];
        top[1] = t[3] > t[2] ? t[3] : t[2];
    }
}
#else  /* not used: labelled_split_scores checks csrepro_has_avx2 first */
static inline int csrepro_has_avx2(void) { return 0; }
static inline void csrepro_lss_avx2(const double* hA, const double* hB, double* oA, double* oB,
                                    const Py_ssize_t* offsets, const Py_ssize_t* n_bins, Py_ssize_t d,
                                    double* low, double* top, double* fminA, double* fminB, double* buf) {
    (void)hA; (void)hB; (void)oA; (void)oB; (void)offsets; (void)n_bins; (void)d; (void)low; (void)top;
    (void)fminA; (void)fminB; (void)buf;
}
#endif

/* ---- layer_channels ---- */
/* layer_channels' sums for rows i0..i1-1 of ch (n, 2K): out[i] = (sum_k ch[i,k] u_k + ch[i,K+k] d_k,
   sum_k ch[i,k] d_k + ch[i,K+k] u_k, 1), each sum from 0.0 in channel order.  With SSE2, two rows per register
   and four registers (eight rows): each lane runs the scalar loop's multiplications and additions in the same
   order, so the sums are the same IEEE doubles. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CSREPRO_LAYER_AVX 1
static inline int csrepro_has_avx(void) { return csrepro_cpu_has_avx(); }
/* Rows i..: eight at a time, four per AVX register (lanes = rows), the same per-lane operations; returns the
   first row not done. */
__attribute__((target("avx")))
static inline Py_ssize_t csrepro_layer_channels_avx(const double* ch, Py_ssize_t K, const double* up,
                                                    const double* down, double* out, Py_ssize_t n) {
    Py_ssize_t C = 2 * K, i = 0, c;
    for (; i + 8 <= n; i += 8) {
        const double* r = ch + i * C;
        __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd(), b0 = _mm256_setzero_pd(),
                b1 = _mm256_setzero_pd();
        double la[4], lb[4], ma[4], mb[4];
        int g;
        for (c = 0; c < C; c++) {
            __m256d u = _mm256_set1_pd(c < K ? up[c] : down[c - K]);
            __m256d w = _mm256_set1_pd(c < K ? down[c] : up[c - K]);
            __m256d x = _mm256_set_pd(r[3 * C + c], r[2 * C + c], r[C + c], r[c]);
            __m256d y = _mm256_set_pd(r[7 * C + c], r[6 * C + c], r[5 * C + c], r[4 * C + c]);
            a0 = _mm256_add_pd(a0, _mm256_mul_pd(x, u));
            a1 = _mm256_add_pd(a1, _mm256_mul_pd(x, w));
            b0 = _mm256_add_pd(b0, _mm256_mul_pd(y, u));
            b1 = _mm256_add_pd(b1, _mm256_mul_pd(y, w));
        }
        _mm256_storeu_pd(la, a0);
        _mm256_storeu_pd(ma, a1);
        _mm256_storeu_pd(lb, b0);
        _mm256_storeu_pd(mb, b1);
        for (g = 0; g < 4; g++) {
            double* o = out + (i + g) * 3;
            o[0] = la[g]; o[1] = ma[g]; o[2] = 1.0;
            o[12] = lb[g]; o[13] = mb[g]; o[14] = 1.0;
        }
    }
    return i;
}
#endif
static inline void csrepro_layer_channels(const double* ch, Py_ssize_t K, const double* up, const double* down,
                                          double* out, Py_ssize_t n) {
    Py_ssize_t C = 2 * K, i = 0, c;
#if defined(CSREPRO_LAYER_AVX)
    if (csrepro_has_avx()) i = csrepro_layer_channels_avx(ch, K, up, down, out, n);
#endif
#if defined(__SSE2__)
    for (; i + 8 <= n; i += 8) {
        const double* r = ch + i * C;
        __m128d s0[4], s1[4];
        int g;
        for (g = 0; g < 4; g++) { s0[g] = _mm_setzero_pd(); s1[g] = _mm_setzero_pd(); }
        for (c = 0; c < C; c++) {
            __m128d u = _mm_set1_pd(c < K ? up[c] : down[c - K]);
            __m128d w = _mm_set1_pd(c < K ? down[c] : up[c - K]);
            for (g = 0; g < 4; g++) {
                __m128d x = _mm_loadh_pd(_mm_load_sd(r + (2 * g) * C + c), r + (2 * g + 1) * C + c);
                s0[g] = _mm_add_pd(s0[g], _mm_mul_pd(x, u));
                s1[g] = _mm_add_pd(s1[g], _mm_mul_pd(x, w));
            }
        }
        for (g = 0; g < 4; g++) {
            double* o = out + (i + 2 * g) * 3;
            _mm_storel_pd(o, s0[g]);
            _mm_storel_pd(o + 1, s1[g]);
            o[2] = 1.0;
            _mm_storeh_pd(o + 3, s0[g]);
            _mm_storeh_pd(o + 4, s1[g]);
            o[5] = 1.0;
        }
    }
#endif
    for (; i < n; i++) {
        const double* r = ch + i * C;
        double a = 0.0, b = 0.0;
        for (c = 0; c < K; c++) { a = a + r[c] * up[c]; b = b + r[c] * down[c]; }
        for (c = 0; c < K; c++) { a = a + r[K + c] * down[c]; b = b + r[K + c] * up[c]; }
        out[i * 3] = a;
        out[i * 3 + 1] = b;
        out[i * 3 + 2] = 1.0;
    }
}

#endif  /* CSREPRO_VECTOR_SCAN_SIMD_H */
