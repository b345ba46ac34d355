# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Per-(feature, bin) sums of per-sample channels (NumPy reference: histogram_ref.py).

Binned features are integer codes ``codes[i, j]`` (C-contiguous, shape (n, d)); the bins of
all features lie in one flat axis, feature j's bin b at ``offsets[j] + b``.  For per-sample
channels ``channels[i, c]`` (e.g. w_i 1[y_i = +1], w_i 1[y_i = -1], or w_i, w_i z_i) the
histogram is ``out[offsets[j] + codes[i, j], c] = sum_i channels[i, c]`` over the samples i of
a subset (a tree node) or of all rows: one pass over the rows, no Python objects per sample.
"""

import numpy as np


def histogram(const int[:, ::1] codes, const Py_ssize_t[::1] offsets, const double[:, ::1] channels,
              samples, double[:, ::1] out):
    """Fill ``out`` (zeroed first, shape (total_bins, k)) with the channel sums; returns ``out``.

    ``samples``: int array of row indices (duplicates count twice), or None for all rows.
    """
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], k = channels.shape[1]
    cdef Py_ssize_t m, t, i, j, c, b
    cdef const Py_ssize_t[::1] rows
    cdef bint every = samples is None
    if channels.shape[0] != n or offsets.shape[0] != d or out.shape[1] != k:
        raise ValueError(f"shape mismatch: codes {n}x{d}, offsets {offsets.shape[0]}, channels "
                         f"{channels.shape[0]}x{k}, out {out.shape[0]}x{out.shape[1]}")
    if every:
        m = n
    else:
        rows = np.ascontiguousarray(samples, dtype=np.intp)
        m = rows.shape[0]
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
