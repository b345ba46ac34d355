# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Weak-learner scan for regression weak learners g(x) = a x_j + b (NumPy reference: linear_scan_ref.py).

For boosting weights w (the directional-derivative weights of eq. 27), every feature j gets the
weighted least-squares fit (Friedman et al. 2000) of the targets t_i = -sign(w_i) with sample
weights |w_i|.  For that fit the directional derivative (27) is sum_i w_i g(x_i) =
-(cov_j^2 / var_j + T^2 / U), so the feature minimising (30) maximises cov_j^2 / var_j.
The per-feature sums are the C of include/linear_scan_simd.h (in registers, a block of features at a time).
:func:`column_sums` gives the channel totals of the least-squares line learner (:mod:`csrepro.weak.lines`).
"""

from libc.math cimport fabs
import numpy as np

from csrepro._kernels._simd_linear_scan cimport csr_wls_sums

# relative variance below which a feature is treated as constant
cdef double CONST_TOL = 1e-12


def wls_scan(const double[:, ::1] X, const double[::1] w):
    """Best single-feature WLS fit for weights ``w``.

    Returns ``(j, a, b, dd)``: feature index (-1 when all weights are zero), slope,
    intercept, and the directional derivative (27) of g = a x_j + b.  Ties go to the
    lowest feature index.
    """
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j, best = -1
    cdef double[::1] ux = np.zeros(d), uxx = np.zeros(d), wx = np.zeros(d)
    cdef double U = 0.0, T = 0.0, wi, var, cov, gain, best_gain = -1.0
    cdef double a = 0.0, b = 0.0
    if w.shape[0] != n:
        raise ValueError(f"w has {w.shape[0]} weights for {n} samples; give one weight per sample")
    with nogil:
        for i in range(n):
            wi = w[i]
            U += fabs(wi)
            T -= wi
        if n > 0 and d > 0:
            csr_wls_sums(&X[0, 0], n, d, &w[0], &ux[0], &uxx[0], &wx[0])
        if U > 0.0:
            for j in range(d):
                var = uxx[j] - ux[j] * ux[j] / U
                cov = -wx[j] - ux[j] * T / U
                gain = cov * cov / var if var > CONST_TOL * uxx[j] else 0.0
                if gain > best_gain:
                    best_gain = gain
                    best = j
                    a = cov / var if gain > 0.0 else 0.0
                    b = (T - a * ux[j]) / U
    if best < 0:
        return -1, 0.0, 0.0, 0.0
    return best, a, b, -(best_gain + T * T / U)


def column_sums(const double[:, ::1] a, double[::1] out):
    """``out`` = the sums of the two columns of ``a`` (n, 2) (the line learner's (w, w z)), added row by row from
    row 0: NumPy's ``a.sum(axis=0)`` bit for bit; returns ``out``."""
    cdef Py_ssize_t n = a.shape[0], i
    if a.shape[1] != 2 or out.shape[0] != 2:
        raise ValueError(f"shape mismatch: a {n}x{a.shape[1]}, out {out.shape[0]}; two columns")
    out[0] = out[1] = 0.0
    with nogil:
        for i in range(n):
            out[0] += a[i, 0]
            out[1] += a[i, 1]
    return np.asarray(out)
