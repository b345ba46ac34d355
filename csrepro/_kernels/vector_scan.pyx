# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Closed-form scan of K-vector stumps over a 2K-channel histogram (NumPy reference: vector_scan_ref.py).

For the binary stump f = -1 on "code_j <= b", +1 above, and the loss
sum_n sum_k w+_nk e^{f a_k} + w-_nk e^{-f a_k} (Appel et al. 2016, Sec. 3, F = exp), class k's term
A_k e^{a_k} + B_k e^{-a_k} has A_k = W+_k,+ + W-_k,-, B_k = W+_k,- + W-_k,+, minimum 2 sqrt(A_k B_k)
at a_k = 1/2 ln(B_k / A_k).  The other polarity swaps A and B: same minimum, a negated.  One pass
over each feature's bins keeps the running left sums L; R = total - L.

A tree layer (Sec. 4) fixes a: :func:`layer_channels` gives each sample's loss if labelled +1 / -1 (and a
count), :func:`labelled_split_scores` the loss of every labelled split of every leaf and each leaf's best.
"""

import numpy as np
from libc.math cimport INFINITY, fabs, sqrt


cdef extern from *:
    """
    #include <math.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* sum_k sqrt(A_k B_k) of one split, A = (T+ - L+) + L-, B = L+ + (T- - L-), each clipped below at 0 (a NaN
       kept), added in k order from 0.0.  With SSE2 two classes per register: the same IEEE operations per class
       (max(0, x) keeps a NaN as "x < 0 ? 0 : x" does), the square roots then added one by one in k order. */
    static double csrepro_split_loss(const double* L, const double* T, Py_ssize_t K) {
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
    """
    double _split_loss "csrepro_split_loss"(const double* L, const double* T, Py_ssize_t K) noexcept nogil


def exp_vector_scores(const double[:, ::1] hist, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                      double[::1] out):
    """Fill ``out`` (total_bins,) with the loss at the closed-form a of every split; inf at each feature's
    last bin.  ``hist`` (total_bins, 2K): channels 0..K-1 sum w+, K..2K-1 sum w-.  Returns ``out``."""
    cdef Py_ssize_t B = hist.shape[0], C = hist.shape[1], K = C // 2, d = offsets.shape[0]
    cdef Py_ssize_t j, b, c, o
    cdef double[::1] L = np.empty(C), T = np.empty(C)
    if C != 2 * K or n_bins.shape[0] != d or out.shape[0] != B:
        raise ValueError(f"shape mismatch: hist {B}x{C} (needs 2K channels), offsets {d}, n_bins "
                         f"{n_bins.shape[0]}, out {out.shape[0]}")
    with nogil:
        for j in range(d):
            o = offsets[j]
            T[:] = 0.0
            for b in range(n_bins[j]):
                for c in range(C):
                    T[c] += hist[o + b, c]
            L[:] = 0.0
            for b in range(n_bins[j] - 1):
                for c in range(C):
                    L[c] += hist[o + b, c]
                out[o + b] = 2.0 * _split_loss(&L[0], &T[0], K)
            out[o + n_bins[j] - 1] = INFINITY
    return np.asarray(out)


cdef extern from *:
    """
    #include <math.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #define CSREPRO_LSS_SSE2 1
    #else
    #define CSREPRO_LSS_SSE2 0
    #endif
    /* labelled_split_scores of NQ nodes in one pass (independent running sums: their additions overlap), channels
       0 and 1 of a bin as one SSE2 pair: (R0, R1) + (L1, L0) gives both scores of a split, R0 + L1 and R1 + L0 = L0
       + R1 (one IEEE addition each, the scalar loop's bits).  Per node q: low[q] / top[q] the least finite score and
       the largest finite |score|, fmin[q * d + j] the least value written in feature j's columns (inf included,
       NaN ignored), so that the search for the first score <= low + rtol top can skip whole features. */
    #define CSREPRO_LSS(NQ)                                                                                    \\
    static void csrepro_lss_##NQ(const double* const* h, double* const* out, const Py_ssize_t* offsets,        \\
                                 const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top, double* fmin) { \\
        const __m128d inf = _mm_set1_pd(INFINITY), zero = _mm_setzero_pd();                                   \\
        const __m128d absmask = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));                      \\
        __m128d lo[NQ], tp[NQ], T01[NQ], L01[NQ], fm[NQ];                                                       \\
        double T2[NQ], L2[NQ];                                                                                 \\
        Py_ssize_t j, b, o, m;                                                                                 \\
        int q;                                                                                                 \\
        for (q = 0; q < NQ; q++) { lo[q] = inf; tp[q] = zero; }                                                \\
        for (j = 0; j < d; j++) {                                                                              \\
            o = offsets[j]; m = n_bins[j];                                                                     \\
            for (q = 0; q < NQ; q++) { T01[q] = zero; T2[q] = 0.0; L01[q] = zero; L2[q] = 0.0; fm[q] = inf; }  \\
            for (b = 0; b < m; b++)                                                                            \\
                for (q = 0; q < NQ; q++) {                                                                     \\
                    const double* s = h[q] + 3 * (o + b);                                                      \\
                    T01[q] = _mm_add_pd(T01[q], _mm_loadu_pd(s));                                              \\
                    T2[q] += s[2];                                                                             \\
                }                                                                                              \\
            for (b = 0; b < m - 1; b++)                                                                        \\
                for (q = 0; q < NQ; q++) {                                                                     \\
                    const double* s = h[q] + 3 * (o + b);                                                      \\
                    __m128d r, x, a, fin, ok;                                                                  \\
                    double r2;                                                                                 \\
                    L01[q] = _mm_add_pd(L01[q], _mm_loadu_pd(s));                                              \\
                    L2[q] += s[2];                                                                             \\
                    r2 = T2[q] - L2[q];                                                                        \\
                    r = _mm_sub_pd(T01[q], L01[q]);                                                            \\
                    x = _mm_add_pd(r, _mm_shuffle_pd(L01[q], L01[q], 1));                                      \\
                    ok = _mm_castsi128_pd(_mm_set1_epi64x(-(long long)((L2[q] > 0.5) & (r2 > 0.5))));           \\
                    x = _mm_or_pd(_mm_and_pd(ok, x), _mm_andnot_pd(ok, inf));                                  \\
                    _mm_storeu_pd(out[q] + 2 * (o + b), x);                                                    \\
                    a = _mm_and_pd(x, absmask);                                                                \\
                    fin = _mm_cmplt_pd(a, inf);                                                                \\
                    lo[q] = _mm_min_pd(_mm_or_pd(_mm_and_pd(fin, x), _mm_andnot_pd(fin, inf)), lo[q]);         \\
                    tp[q] = _mm_max_pd(_mm_and_pd(fin, a), tp[q]);                                             \\
                    fm[q] = _mm_min_pd(x, fm[q]);                                                              \\
                }                                                                                              \\
            for (q = 0; q < NQ; q++) {                                                                         \\
                double f0 = _mm_cvtsd_f64(fm[q]), f1 = _mm_cvtsd_f64(_mm_unpackhi_pd(fm[q], fm[q]));           \\
                out[q][2 * (o + m - 1)] = INFINITY;                                                            \\
                out[q][2 * (o + m - 1) + 1] = INFINITY;                                                        \\
                fmin[q * d + j] = f1 < f0 ? f1 : f0;  /* the last bin's inf: at most inf anyway */             \\
            }                                                                                                  \\
        }                                                                                                      \\
        for (q = 0; q < NQ; q++) {                                                                             \\
            double a0 = _mm_cvtsd_f64(lo[q]), a1 = _mm_cvtsd_f64(_mm_unpackhi_pd(lo[q], lo[q]));               \\
            double b0 = _mm_cvtsd_f64(tp[q]), b1 = _mm_cvtsd_f64(_mm_unpackhi_pd(tp[q], tp[q]));               \\
            low[q] = a1 < a0 ? a1 : a0;                                                                        \\
            top[q] = b1 > b0 ? b1 : b0;                                                                        \\
        }                                                                                                      \\
    }
    #if defined(__SSE2__)
    CSREPRO_LSS(1)
    CSREPRO_LSS(2)
    #else  /* not used: labelled_split_scores keeps its scalar loop */
    static void csrepro_lss_1(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                              const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top, double* fmin) {}
    static void csrepro_lss_2(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                              const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top, double* fmin) {}
    #endif
    #if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #include <immintrin.h>
    static int csrepro_has_avx2(void) {
        static int has = -1;  /* a benign race: every thread stores the same value */
        if (has < 0) {
            __builtin_cpu_init();
            has = __builtin_cpu_supports("avx2") ? 1 : 0;
        }
        return has;
    }
    /* Two nodes A, B in one AVX register, (A0, A1, B0, B1), their counts as (A2, B2).  A first pass keeps the
       running sums of each bin (P[b]: the sums of bins o..o+b, added in bin order from 0.0 -- the scalar loop's L
       after bin b, and T after the last bin); the second pass has no chain of additions.  Same results, bit for
       bit, as csrepro_lss_2 (element-wise IEEE operations).  buf: 6 doubles per bin of the largest feature. */
    __attribute__((target("avx2")))
    static void csrepro_lss_avx2(const double* hA, const double* hB, double* oA, double* oB,
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
    #else
    static int csrepro_has_avx2(void) { return 0; }
    static void csrepro_lss_avx2(const double* hA, const double* hB, double* oA, double* oB,
                                 const Py_ssize_t* offsets, const Py_ssize_t* n_bins, Py_ssize_t d,
                                 double* low, double* top, double* fminA, double* fminB, double* buf) {}
    #endif
    """
    bint _has_avx2 "csrepro_has_avx2"() noexcept nogil
    bint _SSE2 "CSREPRO_LSS_SSE2"
    void _lss_avx2 "csrepro_lss_avx2"(const double* hA, const double* hB, double* oA, double* oB,
                                      const Py_ssize_t* offsets, const Py_ssize_t* n_bins, Py_ssize_t d,
                                      double* low, double* top, double* fminA, double* fminB,
                                      double* buf) noexcept nogil
    void _lss1 "csrepro_lss_1"(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                               const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top,
                               double* fmin) noexcept nogil
    void _lss2 "csrepro_lss_2"(const double* const* h, double* const* out, const Py_ssize_t* offsets,
                               const Py_ssize_t* n_bins, Py_ssize_t d, double* low, double* top,
                               double* fmin) noexcept nogil


cdef void _lss_scalar(const double[:, :, ::1] hist, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                      double[:, ::1] out, Py_ssize_t v, double* low_, double* top_) noexcept nogil:
    """Node v's row of :func:`labelled_split_scores`, one bin at a time; ``low_[0]`` / ``top_[0]``: its least finite
    score and largest finite |score|."""
    cdef Py_ssize_t j, b, o, m
    cdef double T0, T1, T2, L0, L1, L2, R0, R1, R2, x
    cdef double low = INFINITY, top = 0.0
    for j in range(offsets.shape[0]):
        o, m = offsets[j], n_bins[j]
        T0 = T1 = T2 = 0.0
        for b in range(m):
            T0 += hist[v, o + b, 0]
            T1 += hist[v, o + b, 1]
            T2 += hist[v, o + b, 2]
        L0 = L1 = L2 = 0.0
        for b in range(m - 1):
            L0 += hist[v, o + b, 0]
            L1 += hist[v, o + b, 1]
            L2 += hist[v, o + b, 2]
            R0, R1, R2 = T0 - L0, T1 - L1, T2 - L2
            if L2 > 0.5 and R2 > 0.5:
                x = R0 + L1
                out[v, 2 * (o + b)] = x
                if x < INFINITY and x > -INFINITY:  # finite: track the least score and the largest |score|
                    low = min(low, x)
                    top = max(top, fabs(x))
                x = L0 + R1
                out[v, 2 * (o + b) + 1] = x
                if x < INFINITY and x > -INFINITY:
                    low = min(low, x)
                    top = max(top, fabs(x))
            else:
                out[v, 2 * (o + b)] = INFINITY
                out[v, 2 * (o + b) + 1] = INFINITY
        out[v, 2 * (o + m - 1)] = INFINITY
        out[v, 2 * (o + m - 1) + 1] = INFINITY
    low_[0], top_[0] = low, top


def labelled_split_scores(const double[:, :, ::1] hist, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                          double[:, ::1] out, Py_ssize_t[::1] best, double rtol=1e-12):
    """Scores of the labelled splits of every node at a fixed a (a tree layer): ``hist`` (n_nodes, total_bins, 3),
    channels (loss if labelled +1, loss if labelled -1, sample count).  For the split "code_j <= b" of node v, with
    L the sums of bins o..o+b (added in bin order from 0.0), T those of the feature's bins and R = T - L:
    ``out[v, 2 (o + b)]`` = R_0 + L_1 (left -1, right +1), ``out[v, 2 (o + b) + 1]`` = L_0 + R_1 (left +1, right
    -1); inf where a side holds no sample (count <= 0.5) and at each feature's last bin.  ``out`` (n_nodes,
    2 total_bins).  ``best[v]``: the first index of row v within ``rtol`` x (largest finite |score|) of its least
    score (0 when none is finite), as :func:`csrepro.weak.splits.first_min`.  Returns ``out``.

    Two nodes per pass (independent running sums), channels 0 and 1 as one SSE2 pair; the least value of each
    feature's columns is kept, so that the search for ``best`` starts at the first feature that can hold it
    (when the features' bins tile 0..total_bins-1, as a mapper's do; otherwise every column is searched)."""
    cdef Py_ssize_t V = hist.shape[0], B = hist.shape[1], d = offsets.shape[0]
    cdef Py_ssize_t v, j, r, nq, q
    cdef double thr
    cdef bint tiled = True
    cdef const double* hp[2]
    cdef double* op[2]
    cdef double low[2]
    cdef double top[2]
    if (hist.shape[2] != 3 or n_bins.shape[0] != d or out.shape[0] != V or out.shape[1] != 2 * B
            or best.shape[0] != V):
        raise ValueError(f"shape mismatch: hist {V}x{B}x{hist.shape[2]} (needs 3 channels), offsets {d}, n_bins "
                         f"{n_bins.shape[0]}, out {out.shape[0]}x{out.shape[1]}, best {best.shape[0]}")
    for j in range(d):
        tiled = tiled and n_bins[j] >= 1 and offsets[j] == (0 if j == 0 else offsets[j - 1] + n_bins[j - 1])
    tiled = tiled and (offsets[d - 1] + n_bins[d - 1] == B if d else B == 0)
    cdef double[:, ::1] fmin = np.empty((2, max(d, 1)))
    cdef bint avx2 = _has_avx2()
    cdef double[::1] buf = np.empty(6 * max(1, int(np.max(n_bins)) if d else 1))
    if V == 0 or B == 0:
        return np.asarray(out)
    with nogil:
        v = 0
        while v < V:
            nq = 2 if v + 1 < V and _SSE2 else 1
            for q in range(nq):
                hp[q], op[q] = &hist[v + q, 0, 0], &out[v + q, 0]
            if not _SSE2:  # the scalar loop, one node at a time; every column searched
                _lss_scalar(hist, offsets, n_bins, out, v, low, top)
                for j in range(d):
                    fmin[0, j] = -INFINITY
            elif avx2 and d:  # a lone last node as both A and B (the same values written twice)
                _lss_avx2(hp[0], hp[nq - 1], op[0], op[nq - 1], &offsets[0], &n_bins[0], d, low, top, &fmin[0, 0],
                          &fmin[nq - 1, 0], &buf[0])
            elif nq == 2:
                _lss2(hp, op, &offsets[0] if d else NULL, &n_bins[0] if d else NULL, d, low, top, &fmin[0, 0])
            else:
                _lss1(hp, op, &offsets[0] if d else NULL, &n_bins[0] if d else NULL, d, low, top, &fmin[0, 0])
            for q in range(nq):
                best[v + q] = 0
                thr = low[q] + rtol * top[q]
                r = 0
                if tiled:  # from the first feature whose columns hold a value <= thr (none: no such column)
                    r = 2 * B
                    for j in range(d):
                        if fmin[q, j] <= thr:
                            r = 2 * offsets[j]
                            break
                while r < 2 * B:
                    if out[v + q, r] <= thr:
                        best[v + q] = r
                        break
                    r += 1
            v += nq
    return np.asarray(out)


cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* layer_channels' sums for rows i0..i1-1 of ch (n, 2K): out[i] = (sum_k ch[i,k] u_k + ch[i,K+k] d_k,
       sum_k ch[i,k] d_k + ch[i,K+k] u_k, 1), each sum from 0.0 in channel order.  With SSE2, two rows per register
       and four registers (eight rows): each lane runs the scalar loop's multiplications and additions in the same
       order, so the sums are the same IEEE doubles. */
    #if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #include <immintrin.h>
    #define CSREPRO_LAYER_AVX 1
    static int csrepro_has_avx(void) {
        static int has = -1;
        if (has < 0) {
            __builtin_cpu_init();
            has = __builtin_cpu_supports("avx") ? 1 : 0;
        }
        return has;
    }
    /* Rows i..: eight at a time, four per AVX register (lanes = rows), the same per-lane operations; returns the
       first row not done. */
    __attribute__((target("avx")))
    static Py_ssize_t csrepro_layer_channels_avx(const double* ch, Py_ssize_t K, const double* up,
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
    static void csrepro_layer_channels(const double* ch, Py_ssize_t K, const double* up, const double* down,
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
    """
    void _layer_channels "csrepro_layer_channels"(const double* ch, Py_ssize_t K, const double* up, const double* down,
                                                  double* out, Py_ssize_t n) noexcept nogil


def layer_channels(const double[:, ::1] channels, const double[::1] up, const double[::1] down, double[:, ::1] out):
    """The channels of a tree layer at a fixed a, ``up`` = e^a, ``down`` = e^-a (K,): for [w+ | w-] = ``channels``
    (n, 2K), ``out`` (n, 3) = (loss if labelled +1: sum_k w+_k up_k + w-_k down_k, loss if labelled -1:
    sum_k w+_k down_k + w-_k up_k, 1); each sum from 0.0 in channel order (the w+ terms, then the w- terms).
    Returns ``out``."""
    cdef Py_ssize_t n = channels.shape[0], K = up.shape[0]
    if channels.shape[1] != 2 * K or down.shape[0] != K or out.shape[0] != n or out.shape[1] != 3:
        raise ValueError(f"shape mismatch: channels {n}x{channels.shape[1]}, up {K}, down {down.shape[0]}, out "
                         f"{out.shape[0]}x{out.shape[1]} (needs 2K channels and 3 outputs)")
    if n == 0 or K == 0:
        out[:, 0] = 0.0
        out[:, 1] = 0.0
        out[:, 2] = 1.0
        return np.asarray(out)
    with nogil:
        _layer_channels(&channels[0, 0], K, &up[0], &down[0], &out[0, 0], n)
    return np.asarray(out)
