# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Per-(feature, bin) sums of per-sample channels (NumPy reference: histogram_ref.py).

Binned features are integer codes ``codes[i, j]`` (C-contiguous, shape (n, d)); the bins of
all features lie in one flat axis, feature j's bin b at ``offsets[j] + b``.  For per-sample
channels ``channels[i, c]`` (e.g. w_i 1[y_i = +1], w_i 1[y_i = -1], or w_i, w_i z_i) the
histogram is ``out[offsets[j] + codes[i, j], c] = sum_i channels[i, c]`` over the samples i of
a subset (a tree node) or of all rows: one pass over the rows, no Python objects per sample.

* :func:`histogram` (row-major int32 codes) and :func:`histogram_fm` (feature-major uint8 codes, the same bits):
  every feature read densely (quantile binnings).
* :func:`histogram_nodes`: every node of a tree layer at once (each row labelled by its node), and features read
  sparsely -- only the rows outside their most frequent bin, which gets the node total less the other bins
  (LightGBM's trick; uniform binnings, :class:`csrepro.weak.binning.SparseLayout`).
* :func:`node_sums` (the channel sums of each node) and :func:`route_rows` (rows to their child nodes).
"""

import numpy as np


def _rows(codes, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t[::1] offsets, const double[:, ::1] channels,
          samples, double[:, ::1] out):
    """The row indices of ``samples`` as a contiguous intp array (an empty one for None: all n rows),
    after checking that ``offsets``, ``channels`` and ``out`` fit ``codes`` (its shape, described)."""
    if channels.shape[0] != n or offsets.shape[0] != d or out.shape[1] != channels.shape[1]:
        raise ValueError(f"shape mismatch: {codes}, offsets {offsets.shape[0]}, channels "
                         f"{channels.shape[0]}x{channels.shape[1]}, out {out.shape[0]}x{out.shape[1]}")
    return np.ascontiguousarray(np.empty(0) if samples is None else samples, dtype=np.intp)


def histogram(const int[:, ::1] codes, const Py_ssize_t[::1] offsets, const double[:, ::1] channels,
              samples, double[:, ::1] out):
    """Fill ``out`` (zeroed first, shape (total_bins, k)) with the channel sums; returns ``out``.

    ``samples``: int array of row indices (duplicates count twice), or None for all rows.
    """
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], k = channels.shape[1]
    cdef Py_ssize_t m, t, i, j, c, b
    cdef bint every = samples is None
    cdef const Py_ssize_t[::1] rows = _rows(f"codes {n}x{d}", n, d, offsets, channels, samples, out)
    m = n if every else rows.shape[0]
    with nogil:
        out[:, :] = 0.0
        if k == 2:  # the common case (two class weights, or w and w z): unrolled
            for t in range(m):
                i = t if every else rows[t]
                for j in range(d):
                    b = offsets[j] + codes[i, j]
                    out[b, 0] += channels[i, 0]
                    out[b, 1] += channels[i, 1]
        elif k == 3:  # two channels and a sample count (tree nodes)
            for t in range(m):
                i = t if every else rows[t]
                for j in range(d):
                    b = offsets[j] + codes[i, j]
                    out[b, 0] += channels[i, 0]
                    out[b, 1] += channels[i, 1]
                    out[b, 2] += channels[i, 2]
        else:
            for t in range(m):
                i = t if every else rows[t]
                for j in range(d):
                    b = offsets[j] + codes[i, j]
                    for c in range(k):
                        out[b, c] += channels[i, c]
    return np.asarray(out)


cdef extern from *:
    """
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    #if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #define CSREPRO_AVX 1  /* AVX runs: compiled for AVX whatever the flags, used where the CPU has it */
    #include <immintrin.h>
    #endif
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
    #define CSREPRO_RUN(NV, NAME, ROWT)                                                                    \
    static void NAME##_##NV(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,       \
                            const ROWT* rows, Py_ssize_t t0, Py_ssize_t t1) {                              \
        const Py_ssize_t k = 2 * NV;                                                                       \
        __m128d acc[NV];                                                                                   \
        Py_ssize_t t = t0, i, v;                                                                           \
        unsigned char b;                                                                                   \
        double* dst;                                                                                       \
        while (t < t1) {                                                                                   \
            i = rows ? rows[t] : t;                                                                        \
            b = codes[i];                                                                                  \
            dst = out + (o + b) * k;                                                                       \
            for (v = 0; v < NV; v++) acc[v] = _mm_loadu_pd(dst + 2 * v);                                   \
            for (;;) {                                                                                     \
                const double* src = ch + i * k;                                                            \
                for (v = 0; v < NV; v++) acc[v] = _mm_add_pd(acc[v], _mm_loadu_pd(src + 2 * v));           \
                if (++t >= t1) break;                                                                      \
                i = rows ? rows[t] : t;                                                                    \
                if (codes[i] != b) break;                                                                  \
            }                                                                                              \
            for (v = 0; v < NV; v++) _mm_storeu_pd(dst + 2 * v, acc[v]);                                   \
        }                                                                                                  \
    }
    #if defined(CSREPRO_AVX)
    #define CSREPRO_RUN_AVX(NV, NAME, ROWT)                                                                \
    __attribute__((target("avx")))                                                                         \
    static void NAME##_avx_##NV(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,   \
                                const ROWT* rows, Py_ssize_t t0, Py_ssize_t t1) {                          \
        const Py_ssize_t k = 2 * NV;                                                                       \
        __m256d acc[NV / 2];                                                                               \
        __m128d tail = _mm_setzero_pd();                                                                   \
        Py_ssize_t t = t0, i, v;                                                                           \
        unsigned char b;                                                                                   \
        double* dst;                                                                                       \
        while (t < t1) {                                                                                   \
            i = rows ? rows[t] : t;                                                                        \
            b = codes[i];                                                                                  \
            dst = out + (o + b) * k;                                                                       \
            for (v = 0; v < NV / 2; v++) acc[v] = _mm256_loadu_pd(dst + 4 * v);                            \
            if (NV & 1) tail = _mm_loadu_pd(dst + k - 2);                                                  \
            for (;;) {                                                                                     \
                const double* src = ch + i * k;                                                            \
                for (v = 0; v < NV / 2; v++) acc[v] = _mm256_add_pd(acc[v], _mm256_loadu_pd(src + 4 * v)); \
                if (NV & 1) tail = _mm_add_pd(tail, _mm_loadu_pd(src + k - 2));                            \
                if (++t >= t1) break;                                                                      \
                i = rows ? rows[t] : t;                                                                    \
                if (codes[i] != b) break;                                                                  \
            }                                                                                              \
            for (v = 0; v < NV / 2; v++) _mm256_storeu_pd(dst + 4 * v, acc[v]);                            \
            if (NV & 1) _mm_storeu_pd(dst + k - 2, tail);                                                  \
        }                                                                                                  \
    }
    static int csrepro_has_avx(void) {
        static int has = -1;  /* a benign race: every thread stores the same value */
        if (has < 0) {
            __builtin_cpu_init();
            has = __builtin_cpu_supports("avx") ? 1 : 0;
        }
        return has;
    }
    #define CSREPRO_AVX_CASE(NV, NAME) case 2 * NV: NAME##_avx_##NV(out, codes, o, ch, rows, t0, t1); return 1;
    #else
    #define CSREPRO_RUN_AVX(NV, NAME, ROWT)
    static int csrepro_has_avx(void) { return 0; }
    #define CSREPRO_AVX_CASE(NV, NAME)
    #endif
    #define CSREPRO_RUNS(NAME, ROWT)                                                                       \
    CSREPRO_RUN(4, NAME, ROWT) CSREPRO_RUN(5, NAME, ROWT) CSREPRO_RUN(6, NAME, ROWT)                       \
    CSREPRO_RUN(7, NAME, ROWT) CSREPRO_RUN(8, NAME, ROWT) CSREPRO_RUN(9, NAME, ROWT)                       \
    CSREPRO_RUN(10, NAME, ROWT) CSREPRO_RUN(11, NAME, ROWT) CSREPRO_RUN(12, NAME, ROWT)                    \
    CSREPRO_RUN_AVX(4, NAME, ROWT) CSREPRO_RUN_AVX(5, NAME, ROWT) CSREPRO_RUN_AVX(6, NAME, ROWT)           \
    CSREPRO_RUN_AVX(7, NAME, ROWT) CSREPRO_RUN_AVX(8, NAME, ROWT) CSREPRO_RUN_AVX(9, NAME, ROWT)           \
    CSREPRO_RUN_AVX(10, NAME, ROWT) CSREPRO_RUN_AVX(11, NAME, ROWT) CSREPRO_RUN_AVX(12, NAME, ROWT)        \
    /* 1 when handled (k even, 8 <= k <= 24; fewer channels are faster four features at a time), 0 for        \
       the caller's generic loop. */                                                                       \
    static int NAME(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,               \
                    Py_ssize_t k, const ROWT* rows, Py_ssize_t t0, Py_ssize_t t1) {                        \
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
    #else
    static int csrepro_hist_run(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) {
        return 0;
    }
    static int csrepro_hist_run32(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                  Py_ssize_t k, const int* rows, Py_ssize_t t0, Py_ssize_t t1) {
        return 0;
    }
    #endif
    """
    void _add "csrepro_hist_add"(double* dst, const double* src, Py_ssize_t k) noexcept nogil
    bint _run "csrepro_hist_run"(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                 Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil
    bint _run32 "csrepro_hist_run32"(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                     Py_ssize_t k, const int* rows, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil


cdef extern from *:
    """
    #include <string.h>
    /* The bins o..o+m-1 of every node v < V of out (V, B, k), zeroed. */
    static void csrepro_zero_bins(double* out, Py_ssize_t V, Py_ssize_t B, Py_ssize_t k, Py_ssize_t o, Py_ssize_t m) {
        Py_ssize_t v;
        for (v = 0; v < V; v++)
            memset(out + (v * B + o) * k, 0, (size_t)(m * k) * sizeof(double));
    }
    /* One sparse feature's entries p..e-1 (rows below t1), rows labelled by node (nd; -1: none), k = 3 channels:
       dst += src as csrepro_hist_add (an SSE2 pair and one scalar: the same IEEE additions).  Returns the first
       entry not read. */
    static Py_ssize_t csrepro_sparse3(double* base, Py_ssize_t Bk, const unsigned char* codes, Py_ssize_t o,
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
    static void csrepro_default3(double* base, Py_ssize_t V, Py_ssize_t Bk, Py_ssize_t o, Py_ssize_t m, Py_ssize_t df,
                                 const double* tot) {
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
    static void csrepro_dense3x4(double* base, Py_ssize_t Bk, const unsigned char* const* c, const Py_ssize_t* o,
                                 const double* ch, const int* nd, Py_ssize_t t0, Py_ssize_t t1) {
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
    """
    void _zero_bins "csrepro_zero_bins"(double* out, Py_ssize_t V, Py_ssize_t B, Py_ssize_t k, Py_ssize_t o,
                                        Py_ssize_t m) noexcept nogil
    Py_ssize_t _sparse3 "csrepro_sparse3"(double* base, Py_ssize_t Bk, const unsigned char* codes, Py_ssize_t o,
                                          const double* ch, const int* nd, const int* indices, Py_ssize_t p,
                                          Py_ssize_t e, Py_ssize_t t1) noexcept nogil
    void _default3 "csrepro_default3"(double* base, Py_ssize_t V, Py_ssize_t Bk, Py_ssize_t o, Py_ssize_t m,
                                      Py_ssize_t df, const double* tot) noexcept nogil
    void _dense3x4 "csrepro_dense3x4"(double* base, Py_ssize_t Bk, const unsigned char* const* c, const Py_ssize_t* o,
                                      const double* ch, const int* nd, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil


def histogram_fm(const unsigned char[:, ::1] codes_t, const Py_ssize_t[::1] offsets,
                 const double[:, ::1] channels, samples, double[:, ::1] out):
    """:func:`histogram` from feature-major codes ``codes_t`` (d, n) uint8 (every feature < 257 bins).

    Same result, bit for bit: every bin receives its samples' channels one addition at a time in the
    order of ``samples`` (rows 0..n-1 for None), starting from 0.0, as :func:`histogram` does.  Only the
    loop order differs: blocks of rows (whose channels stay in cache), within a block one feature at a time
    (so its bins stay in cache too): for 8..24 channels (even) a run of consecutive samples in one bin (a
    dominant bin, e.g. MNIST's zero pixels) is summed in registers (SSE2, or AVX where the CPU has it) and
    stored once; otherwise four features are interleaved (independent additions).
    """
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], k = channels.shape[1]
    cdef Py_ssize_t m, t, t0, t1, i, j, step
    cdef Py_ssize_t o0, o1, o2, o3
    cdef const unsigned char* c0
    cdef const unsigned char* c1
    cdef const unsigned char* c2
    cdef const unsigned char* c3
    cdef const double* ch
    cdef double* base
    cdef const Py_ssize_t* rp = NULL
    cdef bint every = samples is None
    cdef const Py_ssize_t[::1] rows = _rows(f"codes_t {d}x{n}", n, d, offsets, channels, samples, out)
    m = n if every else rows.shape[0]
    step = max(256, 32768 // max(k, 1))  # a block's channels: about 256 KiB
    out[:, :] = 0.0
    if m == 0 or k == 0 or d == 0:
        return np.asarray(out)
    if not every:
        rp = &rows[0]
    with nogil:
        ch = &channels[0, 0]
        base = &out[0, 0]
        t0 = 0
        while t0 < m:
            t1 = min(t0 + step, m)
            if _run(base, &codes_t[0, 0], offsets[0], ch, k, rp, t0, t1):
                for j in range(1, d):
                    _run(base, &codes_t[j, 0], offsets[j], ch, k, rp, t0, t1)
                t0 = t1
                continue
            j = 0
            while j + 4 <= d:
                c0, c1, c2, c3 = &codes_t[j, 0], &codes_t[j + 1, 0], &codes_t[j + 2, 0], &codes_t[j + 3, 0]
                o0, o1, o2, o3 = offsets[j], offsets[j + 1], offsets[j + 2], offsets[j + 3]
                for t in range(t0, t1):
                    i = t if every else rows[t]
                    _add(base + (o0 + c0[i]) * k, ch + i * k, k)
                    _add(base + (o1 + c1[i]) * k, ch + i * k, k)
                    _add(base + (o2 + c2[i]) * k, ch + i * k, k)
                    _add(base + (o3 + c3[i]) * k, ch + i * k, k)
                j += 4
            while j < d:
                c0, o0 = &codes_t[j, 0], offsets[j]
                for t in range(t0, t1):
                    i = t if every else rows[t]
                    _add(base + (o0 + c0[i]) * k, ch + i * k, k)
                j += 1
            t0 = t1
    return np.asarray(out)


def _nodes(node, Py_ssize_t n, Py_ssize_t n_nodes):
    """``node`` as a contiguous int32 array after checking it (n values in -1..n_nodes-1); an empty one for None."""
    if node is None:
        if n_nodes < 1:
            raise ValueError("node=None puts every row in node 0: out needs at least one node")
        return np.empty(0, dtype=np.int32)
    nd = np.ascontiguousarray(node, dtype=np.int32)
    if nd.shape != (n,) or (n and (nd.min() < -1 or nd.max() >= n_nodes)):
        raise ValueError(f"node must hold {n} node ids in -1..{n_nodes - 1}")
    return nd


def node_sums(const double[:, ::1] channels, node, double[:, ::1] out):
    """Fill ``out`` (n_nodes, k): ``out[v] = sum channels[i]`` over the rows with ``node[i] == v`` (-1: no node;
    None: every row in node 0), added one row at a time in increasing i from 0.0.  Returns ``out``."""
    cdef Py_ssize_t n = channels.shape[0], k = channels.shape[1], i, v
    cdef bint every = node is None
    if out.shape[1] != k:
        raise ValueError(f"shape mismatch: channels {n}x{k}, out {out.shape[0]}x{out.shape[1]}")
    cdef const int[::1] nd = _nodes(node, n, out.shape[0])
    out[:, :] = 0.0
    if n == 0 or k == 0:
        return np.asarray(out)
    with nogil:
        for i in range(n):
            v = 0 if every else nd[i]
            if v >= 0:
                _add(&out[v, 0], &channels[i, 0], k)
    return np.asarray(out)


def histogram_nodes(const unsigned char[:, ::1] codes_t, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                    const int[::1] default, const Py_ssize_t[::1] indptr, const int[::1] indices,
                    const double[:, ::1] channels, node, double[:, :, ::1] out):
    """Every node's histogram in one pass over the rows: ``out[v]`` (total_bins, k) sums the channels of the rows
    with ``node[i] == v`` (-1: in no node; None: every row in node 0); ``out`` (n_nodes, total_bins, k).

    Feature-major uint8 codes ``codes_t`` (d, n).  A feature j with ``default[j] < 0`` is dense: every row is
    read.  Otherwise it is sparse: ``indices[indptr[j]:indptr[j + 1]]`` are, increasing, the rows whose code is
    not ``default[j]``; only those are read, and the default bin gets the node total less the feature's other
    bins.  Exactly (the NumPy reference gives the same bits): each bin but a sparse feature's default receives
    its rows' channels one addition at a time in increasing row order, from 0.0; the node total T_v likewise
    (:func:`node_sums`); a default bin is T_v - S, S the feature's other bins added in increasing bin order
    from 0.0.  Loop order: blocks of rows (about 4 MiB of channels: larger blocks pass over the bins fewer
    times); within a block each dense feature, then each sparse feature's entries in the block (a cursor per
    feature); with one node and 8..24 channels (even), runs of one bin are summed in registers (SSE2, or AVX
    where the CPU has it), as in :func:`histogram_fm`, otherwise dense features go four at a time.  When the
    features' bins tile 0..total_bins-1 (a mapper's offsets), each feature's bins (of every node) are zeroed just
    before the first block reads that feature rather than all at the start, and a sparse feature's default bins are
    computed as soon as the last block has read it, while its bins are still in cache.  Rows labelled by node with
    3 channels (a tree layer): the adds unrolled.  None of this changes an addition or its order.
    Returns ``out``.
    """
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], k = channels.shape[1]
    cdef Py_ssize_t V = out.shape[0], B = out.shape[1]
    cdef Py_ssize_t t, t0, t1, i, j, q, p, e, v, b, c, o, m, df, step
    cdef Py_ssize_t o0, o1, o2, o3
    cdef const unsigned char* c0
    cdef const unsigned char* c1
    cdef const unsigned char* c2
    cdef const unsigned char* c3
    cdef const double* ch
    cdef const double* src
    cdef double* base
    cdef double* nb
    cdef double* dst
    cdef bint every = node is None, done
    if (channels.shape[0] != n or offsets.shape[0] != d or n_bins.shape[0] != d or default.shape[0] != d
            or indptr.shape[0] != d + 1 or out.shape[2] != k or indptr[0] != 0 or indptr[d] != indices.shape[0]):
        raise ValueError(f"shape mismatch: codes_t {d}x{n}, offsets {offsets.shape[0]}, n_bins {n_bins.shape[0]}, "
                         f"default {default.shape[0]}, indptr {indptr.shape[0]} (ends {np.asarray(indptr)[-1:]}), "
                         f"indices {indices.shape[0]}, channels {channels.shape[0]}x{k}, out {V}x{B}x{out.shape[2]}")
    cdef const int[::1] nd = _nodes(node, n, V)
    is_sparse = np.asarray(default) >= 0
    cdef const Py_ssize_t[::1] dense = np.flatnonzero(~is_sparse).astype(np.intp)
    cdef const Py_ssize_t[::1] sparse = np.flatnonzero(is_sparse).astype(np.intp)
    cdef Py_ssize_t n_dense = dense.shape[0], n_sparse = sparse.shape[0]
    cdef Py_ssize_t[::1] cur = np.array(indptr[:d], dtype=np.intp)
    cdef double[:, ::1] tot = np.zeros((V, k))
    cdef double[::1] s = np.zeros(k)
    cdef const unsigned char* cs[4]
    cdef Py_ssize_t os[4]
    cdef Py_ssize_t last = d - 1 if d else 0
    cdef bint lazy = n > 0 and k > 0 and d > 0 and offsets[0] == 0 and offsets[last] + n_bins[last] == B
    for j in range(1, d):
        lazy = lazy and n_bins[j - 1] >= 0 and offsets[j] == offsets[j - 1] + n_bins[j - 1]
    if not lazy:  # else each feature's bins are zeroed just before the first block reads the feature
        out[:, :, :] = 0.0
    if n == 0 or k == 0 or d == 0:
        return np.asarray(out)
    step = max(1024, 524288 // k)  # a block's channels: about 4 MiB (more blocks: more passes over the bins)
    cdef bint layer = k == 3 and not every  # a tree layer's rows: the adds unrolled
    with nogil:
        ch = &channels[0, 0]
        base = &out[0, 0, 0]
        if n_sparse:
            for i in range(n):
                v = 0 if every else nd[i]
                if v >= 0:
                    _add(&tot[v, 0], ch + i * k, k)
        t0 = 0
        while t0 < n:
            t1 = min(t0 + step, n)
            q = 0
            if lazy and t0 == 0 and n_dense:
                _zero_bins(base, V, B, k, offsets[dense[0]], n_bins[dense[0]])
            if every and n_dense and _run(base, &codes_t[dense[0], 0], offsets[dense[0]], ch, k, NULL, t0, t1):
                for q in range(1, n_dense):
                    if lazy and t0 == 0:
                        _zero_bins(base, V, B, k, offsets[dense[q]], n_bins[dense[q]])
                    _run(base, &codes_t[dense[q], 0], offsets[dense[q]], ch, k, NULL, t0, t1)
                q = n_dense
            while q + 4 <= n_dense:
                if lazy and t0 == 0:
                    for c in range(4):
                        _zero_bins(base, V, B, k, offsets[dense[q + c]], n_bins[dense[q + c]])
                c0, c1, c2, c3 = &codes_t[dense[q], 0], &codes_t[dense[q + 1], 0], &codes_t[dense[q + 2], 0], \
                    &codes_t[dense[q + 3], 0]
                o0, o1, o2, o3 = offsets[dense[q]], offsets[dense[q + 1]], offsets[dense[q + 2]], offsets[dense[q + 3]]
                if layer:  # the adds unrolled (the same IEEE additions, in the same order)
                    cs[0], cs[1], cs[2], cs[3] = c0, c1, c2, c3
                    os[0], os[1], os[2], os[3] = o0, o1, o2, o3
                    _dense3x4(base, B * k, cs, os, ch, &nd[0], t0, t1)
                    q += 4
                    continue
                for i in range(t0, t1):
                    v = 0 if every else nd[i]
                    if v < 0:
                        continue
                    nb, src = base + v * B * k, ch + i * k
                    _add(nb + (o0 + c0[i]) * k, src, k)
                    _add(nb + (o1 + c1[i]) * k, src, k)
                    _add(nb + (o2 + c2[i]) * k, src, k)
                    _add(nb + (o3 + c3[i]) * k, src, k)
                q += 4
            while q < n_dense:
                if lazy and t0 == 0:
                    _zero_bins(base, V, B, k, offsets[dense[q]], n_bins[dense[q]])
                c0, o0 = &codes_t[dense[q], 0], offsets[dense[q]]
                for i in range(t0, t1):
                    v = 0 if every else nd[i]
                    if v >= 0:
                        _add(base + (v * B + o0 + c0[i]) * k, ch + i * k, k)
                q += 1
            for q in range(n_sparse):
                j = sparse[q]
                c0, o0, p, e = &codes_t[j, 0], offsets[j], cur[j], indptr[j + 1]
                if lazy and t0 == 0:
                    _zero_bins(base, V, B, k, o0, n_bins[j])
                if layer:
                    cur[j] = _sparse3(base, B * k, c0, o0, ch, &nd[0], &indices[0], p, e, t1)
                else:
                    done = False
                    if every:  # runs of one bin in registers (8..24 channels)
                        e = p
                        while e < indptr[j + 1] and indices[e] < t1:
                            e += 1
                        if _run32(base, c0, o0, ch, k, &indices[0], p, e):
                            cur[j] = e
                            done = True
                    if not done:
                        while p < e and indices[p] < t1:
                            i = indices[p]
                            v = 0 if every else nd[i]
                            if v >= 0:
                                _add(base + (v * B + o0 + c0[i]) * k, ch + i * k, k)
                            p += 1
                        cur[j] = p
                if t1 < n:
                    continue
                # the feature is complete: its default bins now, while its bins are in cache
                o, m, df = offsets[j], n_bins[j], default[j]
                if k == 3:
                    _default3(base, V, B * k, o, m, df, &tot[0, 0])
                    continue
                for v in range(V):
                    s[:] = 0.0
                    nb = base + (v * B + o) * k
                    for b in range(m):
                        if b != df:
                            _add(&s[0], nb + b * k, k)
                    dst = nb + df * k
                    for c in range(k):
                        dst[c] = tot[v, c] - s[c]
            t0 = t1
    return np.asarray(out)


cdef extern from *:
    """
    /* route_rows on a per-node table: off[v] (the node's feature row in codes_t, as feature x n; 0 when v is not
       split), above[v] (a code above it goes right; 255 when not split: never), left[v], step[v] = right[v] -
       left[v] (0 when not split).  Rows with node < 0 stay.  Rows t0..n-1 (scalar). */
    static void csrepro_route(const unsigned char* codes, int* node, Py_ssize_t t0, Py_ssize_t n,
                              const Py_ssize_t* off, const int* above, const int* left, const int* step) {
        Py_ssize_t i;
        for (i = t0; i < n; i++) {
            int v = node[i];
            if (v >= 0)
                node[i] = left[v] + (codes[off[v] + i] > above[v]) * step[v];
        }
    }
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #include <immintrin.h>
    static int csrepro_route_has_avx2(void) {
        static int has = -1;  /* a benign race: every thread stores the same value */
        if (has < 0) {
            __builtin_cpu_init();
            has = __builtin_cpu_supports("avx2") ? 1 : 0;
        }
        return has;
    }
    /* The largest node id of rows 0..n-1 (INT_MIN when none). */
    __attribute__((target("avx2")))
    static int csrepro_max_id_avx2(const int* node, Py_ssize_t n) {
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
    #define CSREPRO_ROUTE_AVX2(NAME, LOOK)                                                                     \
    __attribute__((target("avx2")))                                                                         \
    static Py_ssize_t NAME(const unsigned char* codes, int* node, Py_ssize_t n, const int* off32,           \
                           const int* above, const int* left, const int* step) {                            \
        const __m256i o0 = _mm256_loadu_si256((const __m256i*)off32);                                       \
        const __m256i o1 = _mm256_loadu_si256((const __m256i*)(off32 + 8));                                 \
        const __m256i a0 = _mm256_loadu_si256((const __m256i*)above);                                       \
        const __m256i a1 = _mm256_loadu_si256((const __m256i*)(above + 8));                                 \
        const __m256i l0 = _mm256_loadu_si256((const __m256i*)left);                                        \
        const __m256i l1 = _mm256_loadu_si256((const __m256i*)(left + 8));                                  \
        const __m256i s0 = _mm256_loadu_si256((const __m256i*)step);                                        \
        const __m256i s1 = _mm256_loadu_si256((const __m256i*)(step + 8));                                  \
        const __m256i seven = _mm256_set1_epi32(7), none = _mm256_set1_epi32(-1), ff = _mm256_set1_epi32(0xFF); \
        const __m256i eight = _mm256_set1_epi32(8);                                                         \
        __m256i rows = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);                                           \
        Py_ssize_t i = 0;                                                                                   \
        (void)o1; (void)a1; (void)l1; (void)s1;  /* unused by the 8-node variant */                         \
        for (; i + 11 <= n; i += 8) {                                                                       \
            __m256i nv = _mm256_loadu_si256((const __m256i*)(node + i));                                    \
            __m256i valid = _mm256_cmpgt_epi32(nv, none), hi = _mm256_cmpgt_epi32(nv, seven);               \
            __m256i of = LOOK(o0, o1), ab = LOOK(a0, a1), lf = LOOK(l0, l1), st = LOOK(s0, s1);             \
            __m256i c = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int*)codes,              \
                                                    _mm256_add_epi32(of, rows), valid, 1);                  \
            __m256i nw = _mm256_add_epi32(lf, _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_and_si256(c, ff), ab), st)); \
            _mm256_storeu_si256((__m256i*)(node + i), _mm256_blendv_epi8(nv, nw, valid));                   \
            rows = _mm256_add_epi32(rows, eight);                                                           \
            (void)hi;                                                                                       \
        }                                                                                                   \
        return i;                                                                                           \
    }
    #define CSREPRO_LOOK16(T0, T1) _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(T0, nv), _mm256_permutevar8x32_epi32(T1, nv), hi)
    #define CSREPRO_LOOK8(T0, T1) _mm256_permutevar8x32_epi32(T0, nv)
    CSREPRO_ROUTE_AVX2(csrepro_route_avx2_16, CSREPRO_LOOK16)
    CSREPRO_ROUTE_AVX2(csrepro_route_avx2_8, CSREPRO_LOOK8)
    /* At most 16 nodes of which S <= 8 are split: no gather -- for each split node u (feature row at soff[u],
       bin sab[u]) eight codes read at once, and a row goes right when its node is u and its code > sab[u]. */
    #define CSREPRO_ROUTE_SPLIT(NAME, LOOK)                                                                    \
    __attribute__((target("avx2")))                                                                         \
    static Py_ssize_t NAME(const unsigned char* codes, int* node, Py_ssize_t n, int S, const int* su,       \
                           const Py_ssize_t* soff, const int* sab, const int* left, const int* step) {      \
        const __m256i l0 = _mm256_loadu_si256((const __m256i*)left);                                        \
        const __m256i l1 = _mm256_loadu_si256((const __m256i*)(left + 8));                                  \
        const __m256i s0 = _mm256_loadu_si256((const __m256i*)step);                                        \
        const __m256i s1 = _mm256_loadu_si256((const __m256i*)(step + 8));                                  \
        const __m256i seven = _mm256_set1_epi32(7), none = _mm256_set1_epi32(-1);                           \
        __m256i U[8], A[8];                                                                                 \
        Py_ssize_t i = 0;                                                                                   \
        int u;                                                                                              \
        (void)l1; (void)s1;  /* unused by the 8-node variant */                                             \
        for (u = 0; u < S; u++) {                                                                           \
            U[u] = _mm256_set1_epi32(su[u]);                                                                \
            A[u] = _mm256_set1_epi32(sab[u]);                                                               \
        }                                                                                                   \
        for (; i + 8 <= n; i += 8) {                                                                        \
            __m256i nv = _mm256_loadu_si256((const __m256i*)(node + i));                                    \
            __m256i valid = _mm256_cmpgt_epi32(nv, none), hi = _mm256_cmpgt_epi32(nv, seven);               \
            __m256i right = _mm256_setzero_si256(), lf, st;                                                 \
            for (u = 0; u < S; u++) {                                                                       \
                __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(codes + soff[u] + i)));   \
                right = _mm256_or_si256(right, _mm256_and_si256(_mm256_cmpeq_epi32(nv, U[u]),               \
                                                                _mm256_cmpgt_epi32(c, A[u])));              \
            }                                                                                               \
            lf = LOOK(l0, l1);                                                                              \
            st = LOOK(s0, s1);                                                                              \
            _mm256_storeu_si256((__m256i*)(node + i),                                                       \
                                _mm256_blendv_epi8(nv, _mm256_add_epi32(lf, _mm256_and_si256(right, st)), valid)); \
            (void)hi;                                                                                       \
        }                                                                                                   \
        return i;                                                                                           \
    }
    CSREPRO_ROUTE_SPLIT(csrepro_route_split_16, CSREPRO_LOOK16)
    CSREPRO_ROUTE_SPLIT(csrepro_route_split_8, CSREPRO_LOOK8)
    static Py_ssize_t csrepro_route_split(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V, int S,
                                          const int* su, const Py_ssize_t* soff, const int* sab, const int* left,
                                          const int* step) {
        return V <= 8 ? csrepro_route_split_8(codes, node, n, S, su, soff, sab, left, step)
                      : csrepro_route_split_16(codes, node, n, S, su, soff, sab, left, step);
    }
    static Py_ssize_t csrepro_route_avx2(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                         const int* off32, const int* above, const int* left, const int* step) {
        return V <= 8 ? csrepro_route_avx2_8(codes, node, n, off32, above, left, step)
                      : csrepro_route_avx2_16(codes, node, n, off32, above, left, step);
    }
    #else
    static int csrepro_route_has_avx2(void) { return 0; }
    static int csrepro_max_id_avx2(const int* node, Py_ssize_t n) { return 0; }
    static Py_ssize_t csrepro_route_avx2(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                         const int* off32, const int* above, const int* left, const int* step) { return 0; }
    static Py_ssize_t csrepro_route_split(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V, int S,
                                          const int* su, const Py_ssize_t* soff, const int* sab, const int* left,
                                          const int* step) { return 0; }
    #endif
    """
    void _route "csrepro_route"(const unsigned char* codes, int* node, Py_ssize_t t0, Py_ssize_t n,
                                const Py_ssize_t* off, const int* above, const int* left, const int* step) noexcept nogil
    bint _route_has_avx2 "csrepro_route_has_avx2"() noexcept nogil
    int _max_id_avx2 "csrepro_max_id_avx2"(const int* node, Py_ssize_t n) noexcept nogil
    Py_ssize_t _route_avx2 "csrepro_route_avx2"(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                                const int* off32,
                                                const int* above, const int* left, const int* step) noexcept nogil
    Py_ssize_t _route_split "csrepro_route_split"(const unsigned char* codes, int* node, Py_ssize_t n, Py_ssize_t V,
                                                  int S, const int* su, const Py_ssize_t* soff, const int* sab,
                                                  const int* left, const int* step) noexcept nogil


def route_rows(const unsigned char[:, ::1] codes_t, node, const Py_ssize_t[::1] feature,
               const Py_ssize_t[::1] threshold_bin, const int[::1] left, const int[::1] right):
    """Move each row to its child, in place: a row of node v = ``node[i]`` >= 0 goes to ``left[v]`` when
    ``feature[v] < 0`` (v not split) or ``codes_t[feature[v], i] <= threshold_bin[v]``, else to ``right[v]``;
    rows with node -1 stay.  Returns ``node``.

    A per-node table (the feature row read, 0 when not split; the bin above which a row goes right, 255 when not
    split: never; left; right - left), so that the row loop has no branch on the data; with AVX2 (where the CPU
    has it), at most 16 nodes and d x n < 2^31, eight rows at a time (table in registers, codes gathered)."""
    cdef int[::1] nd = node
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], V = feature.shape[0], i, v, t0 = 0
    cdef Py_ssize_t bad = 0
    cdef int top
    if nd.shape[0] != n or threshold_bin.shape[0] != V or left.shape[0] != V or right.shape[0] != V:
        raise ValueError(f"shape mismatch: codes_t {d}x{n}, node {nd.shape[0]}, feature {V}, threshold_bin "
                         f"{threshold_bin.shape[0]}, left {left.shape[0]}, right {right.shape[0]}")
    cdef Py_ssize_t W = max(V, 16)
    cdef Py_ssize_t off_s[16]
    cdef int tab_s[64]
    cdef Py_ssize_t[::1] off_h
    cdef int[::1] tab_h
    cdef Py_ssize_t* off = off_s
    cdef int* tab = tab_s  # rows of W: above, left, step, feature x n (int32)
    if V > 16:
        off_h, tab_h = np.empty(W, dtype=np.intp), np.empty(4 * W, dtype=np.int32)
        off, tab = &off_h[0], &tab_h[0]
    cdef bint vec = V <= 16 and d * n < 2**31 - 16 and _route_has_avx2()
    for v in range(W):
        off[v], tab[v], tab[W + v], tab[2 * W + v], tab[3 * W + v] = 0, 255, 0, 0, 0
    cdef int S = 0  # the split nodes: their ids, feature rows, bins
    cdef int su[8]
    cdef int sab[8]
    cdef Py_ssize_t soff[8]
    for v in range(V):
        bad += feature[v] >= d
        tab[W + v] = left[v]
        if feature[v] >= 0 and feature[v] < d and V <= 16:
            if S < 8:
                su[S], soff[S], sab[S] = v, feature[v] * n, min(max(threshold_bin[v], -1), 255)
            S += 1
        if feature[v] >= 0 and feature[v] < d:  # codes are 0..255: a bin outside -1..255 as -1 or 255
            off[v] = feature[v] * n
            tab[v] = min(max(threshold_bin[v], -1), 255)
            tab[2 * W + v], tab[3 * W + v] = right[v] - left[v], feature[v] * n
    if n == 0 or bad:
        if bad:
            raise ValueError(f"a feature id >= {d} or a node id >= {V}: ids out of range")
        return node
    with nogil:
        if vec:  # ids checked before any write
            top = _max_id_avx2(&nd[0], n)
            bad = top >= V
        else:
            for i in range(n):
                bad += nd[i] >= V
        if bad == 0 and d == 0:  # no feature: no node is split
            for i in range(n):
                if nd[i] >= 0:
                    nd[i] = left[nd[i]]
        elif bad == 0:
            if vec and S <= 8:
                t0 = _route_split(&codes_t[0, 0], &nd[0], n, V, S, su, soff, sab, tab + W, tab + 2 * W)
            elif vec:
                t0 = _route_avx2(&codes_t[0, 0], &nd[0], n, V, tab + 3 * W, tab, tab + W, tab + 2 * W)
            _route(&codes_t[0, 0], &nd[0], t0, n, off, tab, tab + W, tab + 2 * W)
    if bad:
        raise ValueError(f"a feature id >= {d} or a node id >= {V}: ids out of range")
    return node
