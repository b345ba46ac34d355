# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Closed-form scan of K-vector stumps over a 2K-channel histogram (NumPy reference: vector_scan_ref.py).

For the binary stump f = -1 on "code_j <= b", +1 above, and the loss
sum_n sum_k w+_nk e^{f a_k} + w-_nk e^{-f a_k} (Appel et al. 2016, Sec. 3, F = exp), class k's term
A_k e^{a_k} + B_k e^{-a_k} has A_k = W+_k,+ + W-_k,-, B_k = W+_k,- + W-_k,+, minimum 2 sqrt(A_k B_k)
at a_k = 1/2 ln(B_k / A_k).  The other polarity swaps A and B: same minimum, a negated.  One pass
over each feature's bins keeps the running left sums L; R = total - L.

A tree layer (Sec. 4) fixes a: :func:`layer_channels` gives each sample's loss if labelled +1 / -1 (and a
count), :func:`labelled_split_scores` the loss of every labelled split of every leaf and each leaf's best.

The SSE2 / AVX / AVX2 loops are C in ``include/vector_scan_simd.h``, declared in ``_simd_vector_scan.pxd``.
"""

import numpy as np
from libc.math cimport INFINITY, fabs, sqrt

from csrepro._kernels._simd_vector_scan cimport (
    _SSE2, _has_avx2, _layer_channels, _lss1, _lss2, _lss_avx2, _split_loss,
)


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
