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
    where the CPU has it), as in :func:`histogram_fm`, otherwise dense features go four at a time.  Returns
    ``out``.
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
    cdef bint every = node is None
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
    out[:, :, :] = 0.0
    if n == 0 or k == 0 or d == 0:
        return np.asarray(out)
    step = max(1024, 524288 // k)  # a block's channels: about 4 MiB (more blocks: more passes over the bins)
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
            if every and n_dense and _run(base, &codes_t[dense[0], 0], offsets[dense[0]], ch, k, NULL, t0, t1):
                for q in range(1, n_dense):
                    _run(base, &codes_t[dense[q], 0], offsets[dense[q]], ch, k, NULL, t0, t1)
                q = n_dense
            while q + 4 <= n_dense:
                c0, c1, c2, c3 = &codes_t[dense[q], 0], &codes_t[dense[q + 1], 0], &codes_t[dense[q + 2], 0], \
                    &codes_t[dense[q + 3], 0]
                o0, o1, o2, o3 = offsets[dense[q]], offsets[dense[q + 1]], offsets[dense[q + 2]], offsets[dense[q + 3]]
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
                c0, o0 = &codes_t[dense[q], 0], offsets[dense[q]]
                for i in range(t0, t1):
                    v = 0 if every else nd[i]
                    if v >= 0:
                        _add(base + (v * B + o0 + c0[i]) * k, ch + i * k, k)
                q += 1
            for q in range(n_sparse):
                j = sparse[q]
                c0, o0, p, e = &codes_t[j, 0], offsets[j], cur[j], indptr[j + 1]
                if every:  # runs of one bin in registers (8..24 channels)
                    e = p
                    while e < indptr[j + 1] and indices[e] < t1:
                        e += 1
                    if _run32(base, c0, o0, ch, k, &indices[0], p, e):
                        cur[j] = e
                        continue
                while p < e and indices[p] < t1:
                    i = indices[p]
                    v = 0 if every else nd[i]
                    if v >= 0:
                        _add(base + (v * B + o0 + c0[i]) * k, ch + i * k, k)
                    p += 1
                cur[j] = p
            t0 = t1
        for q in range(n_sparse):
            j = sparse[q]
            o, m, df = offsets[j], n_bins[j], default[j]
            for v in range(V):
                s[:] = 0.0
                nb = base + (v * B + o) * k
                for b in range(m):
                    if b != df:
                        _add(&s[0], nb + b * k, k)
                dst = nb + df * k
                for c in range(k):
                    dst[c] = tot[v, c] - s[c]
    return np.asarray(out)


def route_rows(const unsigned char[:, ::1] codes_t, int[::1] node, const Py_ssize_t[::1] feature,
               const Py_ssize_t[::1] threshold_bin, const int[::1] left, const int[::1] right):
    """Move each row to its child, in place: a row of node v = ``node[i]`` >= 0 goes to ``left[v]`` when
    ``feature[v] < 0`` (v not split) or ``codes_t[feature[v], i] <= threshold_bin[v]``, else to ``right[v]``;
    rows with node -1 stay.  Returns ``node``."""
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], V = feature.shape[0], i, v
    cdef Py_ssize_t bad = 0
    if node.shape[0] != n or threshold_bin.shape[0] != V or left.shape[0] != V or right.shape[0] != V:
        raise ValueError(f"shape mismatch: codes_t {d}x{n}, node {node.shape[0]}, feature {V}, threshold_bin "
                         f"{threshold_bin.shape[0]}, left {left.shape[0]}, right {right.shape[0]}")
    # per node: the feature read (0 when not split) and the bin above which a row goes right (never, when not split:
    # a code is at most 255), so that the row loop has no branch on the data
    cdef Py_ssize_t[:, ::1] per = np.empty((V, 3), dtype=np.intp)  # read, above, step of each node
    for v in range(V):
        bad += feature[v] >= d
        if feature[v] >= 0:
            per[v, 0], per[v, 1], per[v, 2] = feature[v], threshold_bin[v], right[v] - left[v]
        else:
            per[v, 0], per[v, 1], per[v, 2] = 0, 255, 0
    with nogil:
        for i in range(n):  # ids checked before any write
            bad += node[i] >= V
        if bad == 0:
            for i in range(n):
                v = node[i]
                if v >= 0:
                    node[i] = left[v] + (codes_t[per[v, 0], i] > per[v, 1]) * per[v, 2]
    if bad:
        raise ValueError(f"a feature id >= {d} or a node id >= {V}: ids out of range")
    return np.asarray(node)
