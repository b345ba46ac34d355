# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Per-(feature, bin) sums of per-sample channels (NumPy reference: histogram_ref.py).

Binned features are integer codes ``codes[i, j]`` (C-contiguous, shape (n, d)); the bins of
all features lie in one flat axis, feature j's bin b at ``offsets[j] + b``.  For per-sample
channels ``channels[i, c]`` (e.g. w_i 1[y_i = +1], w_i 1[y_i = -1], or w_i, w_i z_i) the
histogram is ``out[offsets[j] + codes[i, j], c] = sum_i channels[i, c]`` over the samples i of
a subset (a tree node) or of all rows: one pass over the rows, no Python objects per sample.
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
       their order are those of the row-at-a-time loop, hence the same bits. */
    #define CSREPRO_RUN(NV)                                                                            \
    static void csrepro_hist_run_##NV(double* out, const unsigned char* codes, Py_ssize_t o,          \
                                      const double* ch, const Py_ssize_t* rows, Py_ssize_t t0,         \
                                      Py_ssize_t t1) {                                                 \
        const Py_ssize_t k = 2 * NV;                                                                   \
        __m128d acc[NV];                                                                               \
        Py_ssize_t t = t0, i, v;                                                                       \
        unsigned char b;                                                                               \
        double* dst;                                                                                   \
        while (t < t1) {                                                                               \
            i = rows ? rows[t] : t;                                                                    \
            b = codes[i];                                                                              \
            dst = out + (o + b) * k;                                                                   \
            for (v = 0; v < NV; v++) acc[v] = _mm_loadu_pd(dst + 2 * v);                               \
            for (;;) {                                                                                 \
                const double* src = ch + i * k;                                                        \
                for (v = 0; v < NV; v++) acc[v] = _mm_add_pd(acc[v], _mm_loadu_pd(src + 2 * v));       \
                if (++t >= t1) break;                                                                  \
                i = rows ? rows[t] : t;                                                                \
                if (codes[i] != b) break;                                                              \
            }                                                                                          \
            for (v = 0; v < NV; v++) _mm_storeu_pd(dst + 2 * v, acc[v]);                               \
        }                                                                                              \
    }
    CSREPRO_RUN(4) CSREPRO_RUN(5) CSREPRO_RUN(6)
    CSREPRO_RUN(7) CSREPRO_RUN(8) CSREPRO_RUN(9) CSREPRO_RUN(10) CSREPRO_RUN(11) CSREPRO_RUN(12)
    /* 1 when handled (k even, 8 <= k <= 24; fewer channels are faster four features at a time), 0 for
       the caller's generic loop. */
    static int csrepro_hist_run(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) {
        switch (k) {
        case 8: csrepro_hist_run_4(out, codes, o, ch, rows, t0, t1); return 1;
        case 10: csrepro_hist_run_5(out, codes, o, ch, rows, t0, t1); return 1;
        case 12: csrepro_hist_run_6(out, codes, o, ch, rows, t0, t1); return 1;
        case 14: csrepro_hist_run_7(out, codes, o, ch, rows, t0, t1); return 1;
        case 16: csrepro_hist_run_8(out, codes, o, ch, rows, t0, t1); return 1;
        case 18: csrepro_hist_run_9(out, codes, o, ch, rows, t0, t1); return 1;
        case 20: csrepro_hist_run_10(out, codes, o, ch, rows, t0, t1); return 1;
        case 22: csrepro_hist_run_11(out, codes, o, ch, rows, t0, t1); return 1;
        case 24: csrepro_hist_run_12(out, codes, o, ch, rows, t0, t1); return 1;
        default: return 0;
        }
    }
    #else
    static int csrepro_hist_run(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) {
        return 0;
    }
    #endif
    """
    void _add "csrepro_hist_add"(double* dst, const double* src, Py_ssize_t k) noexcept nogil
    bint _run "csrepro_hist_run"(double* out, const unsigned char* codes, Py_ssize_t o, const double* ch,
                                 Py_ssize_t k, const Py_ssize_t* rows, Py_ssize_t t0, Py_ssize_t t1) noexcept nogil


def histogram_fm(const unsigned char[:, ::1] codes_t, const Py_ssize_t[::1] offsets,
                 const double[:, ::1] channels, samples, double[:, ::1] out):
    """:func:`histogram` from feature-major codes ``codes_t`` (d, n) uint8 (every feature < 257 bins).

    Same result, bit for bit: every bin receives its samples' channels one addition at a time in the
    order of ``samples`` (rows 0..n-1 for None), starting from 0.0, as :func:`histogram` does.  Only the
    loop order differs: blocks of rows (whose channels stay in cache), within a block one feature at a time
    (so its bins stay in cache too): for 8..24 channels (even) a run of consecutive samples in one bin (a
    dominant bin, e.g. MNIST's zero pixels) is summed in SSE2 registers and stored once; otherwise four
    features are interleaved (independent additions).
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
