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


def exp_vector_scores(const double[:, ::1] hist, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                      double[::1] out):
    """Fill ``out`` (total_bins,) with the loss at the closed-form a of every split; inf at each feature's
    last bin.  ``hist`` (total_bins, 2K): channels 0..K-1 sum w+, K..2K-1 sum w-.  Returns ``out``."""
    cdef Py_ssize_t B = hist.shape[0], C = hist.shape[1], K = C // 2, d = offsets.shape[0]
    cdef Py_ssize_t j, b, c, k, o
    cdef double s, A, Bk
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
                s = 0.0
                for c in range(C):
                    L[c] += hist[o + b, c]
                for k in range(K):
                    A = (T[k] - L[k]) + L[K + k]
                    Bk = L[k] + (T[K + k] - L[K + k])
                    if A < 0.0:
                        A = 0.0
                    if Bk < 0.0:
                        Bk = 0.0
                    s += sqrt(A * Bk)
                out[o + b] = 2.0 * s
            out[o + n_bins[j] - 1] = INFINITY
    return np.asarray(out)


def labelled_split_scores(const double[:, :, ::1] hist, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                          double[:, ::1] out, Py_ssize_t[::1] best, double rtol=1e-12):
    """Scores of the labelled splits of every node at a fixed a (a tree layer): ``hist`` (n_nodes, total_bins, 3),
    channels (loss if labelled +1, loss if labelled -1, sample count).  For the split "code_j <= b" of node v, with
    L the sums of bins o..o+b (added in bin order from 0.0), T those of the feature's bins and R = T - L:
    ``out[v, 2 (o + b)]`` = R_0 + L_1 (left -1, right +1), ``out[v, 2 (o + b) + 1]`` = L_0 + R_1 (left +1, right
    -1); inf where a side holds no sample (count <= 0.5) and at each feature's last bin.  ``out`` (n_nodes,
    2 total_bins).  ``best[v]``: the first index of row v within ``rtol`` x (largest finite |score|) of its least
    score (0 when none is finite), as :func:`csrepro.weak.splits.first_min`.  Returns ``out``."""
    cdef Py_ssize_t V = hist.shape[0], B = hist.shape[1], d = offsets.shape[0]
    cdef Py_ssize_t v, j, b, o, m, r
    cdef double T0, T1, T2, L0, L1, L2, R0, R1, R2, low, top, x
    if (hist.shape[2] != 3 or n_bins.shape[0] != d or out.shape[0] != V or out.shape[1] != 2 * B
            or best.shape[0] != V):
        raise ValueError(f"shape mismatch: hist {V}x{B}x{hist.shape[2]} (needs 3 channels), offsets {d}, n_bins "
                         f"{n_bins.shape[0]}, out {out.shape[0]}x{out.shape[1]}, best {best.shape[0]}")
    with nogil:
        for v in range(V):
            low, top = INFINITY, 0.0
            for j in range(d):
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
            best[v] = 0
            low = low + rtol * top
            for r in range(2 * B):
                if out[v, r] <= low:
                    best[v] = r
                    break
    return np.asarray(out)


def layer_channels(const double[:, ::1] channels, const double[::1] up, const double[::1] down, double[:, ::1] out):
    """The channels of a tree layer at a fixed a, ``up`` = e^a, ``down`` = e^-a (K,): for [w+ | w-] = ``channels``
    (n, 2K), ``out`` (n, 3) = (loss if labelled +1: sum_k w+_k up_k + w-_k down_k, loss if labelled -1:
    sum_k w+_k down_k + w-_k up_k, 1); each sum from 0.0 in channel order (the w+ terms, then the w- terms).
    Returns ``out``."""
    cdef Py_ssize_t n = channels.shape[0], K = up.shape[0], i, c
    cdef double s0, s1
    if channels.shape[1] != 2 * K or down.shape[0] != K or out.shape[0] != n or out.shape[1] != 3:
        raise ValueError(f"shape mismatch: channels {n}x{channels.shape[1]}, up {K}, down {down.shape[0]}, out "
                         f"{out.shape[0]}x{out.shape[1]} (needs 2K channels and 3 outputs)")
    cdef double a0, a1, b0, b1, c0, c1, e0, e1, u, w
    with nogil:
        for i in range(0, n - n % 4, 4):  # four rows at a time: eight independent running sums, each in channel order
            a0 = a1 = b0 = b1 = c0 = c1 = e0 = e1 = 0.0
            for c in range(K):
                u, w = up[c], down[c]
                a0 = a0 + channels[i, c] * u
                a1 = a1 + channels[i, c] * w
                b0 = b0 + channels[i + 1, c] * u
                b1 = b1 + channels[i + 1, c] * w
                c0 = c0 + channels[i + 2, c] * u
                c1 = c1 + channels[i + 2, c] * w
                e0 = e0 + channels[i + 3, c] * u
                e1 = e1 + channels[i + 3, c] * w
            for c in range(K):
                u, w = down[c], up[c]
                a0 = a0 + channels[i, K + c] * u
                a1 = a1 + channels[i, K + c] * w
                b0 = b0 + channels[i + 1, K + c] * u
                b1 = b1 + channels[i + 1, K + c] * w
                c0 = c0 + channels[i + 2, K + c] * u
                c1 = c1 + channels[i + 2, K + c] * w
                e0 = e0 + channels[i + 3, K + c] * u
                e1 = e1 + channels[i + 3, K + c] * w
            out[i, 0], out[i, 1], out[i, 2] = a0, a1, 1.0
            out[i + 1, 0], out[i + 1, 1], out[i + 1, 2] = b0, b1, 1.0
            out[i + 2, 0], out[i + 2, 1], out[i + 2, 2] = c0, c1, 1.0
            out[i + 3, 0], out[i + 3, 1], out[i + 3, 2] = e0, e1, 1.0
        for i in range(n - n % 4, n):
            s0 = 0.0
            s1 = 0.0
            for c in range(K):
                s0 = s0 + channels[i, c] * up[c]
                s1 = s1 + channels[i, c] * down[c]
            for c in range(K):
                s0 = s0 + channels[i, K + c] * down[c]
                s1 = s1 + channels[i, K + c] * up[c]
            out[i, 0] = s0
            out[i, 1] = s1
            out[i, 2] = 1.0
    return np.asarray(out)
