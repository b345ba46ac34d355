# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Closed-form scan of K-vector stumps over a 2K-channel histogram (NumPy reference: vector_scan_ref.py).

For the binary stump f = -1 on "code_j <= b", +1 above, and the loss
sum_n sum_k w+_nk e^{f a_k} + w-_nk e^{-f a_k} (Appel et al. 2016, Sec. 3, F = exp), class k's term
A_k e^{a_k} + B_k e^{-a_k} has A_k = W+_k,+ + W-_k,-, B_k = W+_k,- + W-_k,+, minimum 2 sqrt(A_k B_k)
at a_k = 1/2 ln(B_k / A_k).  The other polarity swaps A and B: same minimum, a negated.  One pass
over each feature's bins keeps the running left sums L; R = total - L.
"""

import numpy as np
from libc.math cimport INFINITY, sqrt


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
