# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exponential-family multiclass losses along a line in score space (NumPy reference: exp_losses_ref.py).

A loss is ``gamma(G)`` with, for a sample of class z with score row s (Beijbom et al. 2014):
  family 0 ("margin",   eqs. 20-22): G = sum_j c_j exp(s_j - s_z)
  family 1 ("plain",    eq. 12):     G = sum_j c_j exp(s_j)
  family 2 ("pairwise", eq. 14):     G = (sum_j c_j exp(s_j)) (sum_k exp(-s_k))
and gamma the identity (outer 0) or log(1 + .) (outer 1), where c = C[z].  Along the line
``s + alpha * g_i * v`` (an update of one predictor coordinate, eq. 32, with v = y_{.,r} / 2),
each sample's loss and its first two derivatives in alpha are computed from max-shifted sums.
"""

from libc.math cimport log1p, INFINITY
import numpy as np

# Arguments of the vectorised exp are floored here: exp(-700) ~ 1e-304 relative to the
# largest (shifted) term changes no sum, and it keeps NumPy's SIMD exp off its slow
# underflow path (results below ~1e-308 are ~20x slower to compute).
cdef double EXP_FLOOR = -700.0


cdef inline double _floored(double x) noexcept nogil:
    return x if x > EXP_FLOOR else EXP_FLOOR

FAMILIES = {"margin": 0, "plain": 1, "pairwise": 2}
OUTERS = {"identity": 0, "log1p": 1}


cdef inline void _grouped_moments(const double* A, const double* X, const double* uniq,
                                  Py_ssize_t nu, double sign, double off, double g,
                                  double* s0, double* s1, double* s2) noexcept nogil:
    """Moments sum_u A_u X_u b_u^p (p = 0, 1, 2) with b_u = g (sign uniq_u - off), X_u = exp(alpha b_u)."""
    cdef Py_ssize_t u
    cdef double b, e
    s0[0] = 0.0
    s1[0] = 0.0
    s2[0] = 0.0
    for u in range(nu):
        b = g * (sign * uniq[u] - off)
        e = A[u] * X[u]
        s0[0] += e
        s1[0] += e * b
        s2[0] += e * b * b


cdef inline void _sample_derivs(const double* A, const double* B, const double* XA, const double* XB,
                                Py_ssize_t nu, const double* uniq, double off, double g, double scale,
                                int family, int outer, double* d1, double* d2) noexcept nogil:
    """First two alpha-derivatives of one sample's loss from its groups and exp factors."""
    cdef double s0, s1, s2, b0, b1, b2, inv, r1
    _grouped_moments(A, XA, uniq, nu, 1.0, off, g, &s0, &s1, &s2)
    if family == 2:
        _grouped_moments(B, XB, uniq, nu, -1.0, 0.0, g, &b0, &b1, &b2)
        s2 = s2 * b0 + 2.0 * s1 * b1 + s0 * b2
        s1 = s1 * b0 + s0 * b1
        s0 = s0 * b0
    if outer == 0:
        d1[0] = scale * s1
        d2[0] = scale * s2
    else:
        # d/da log(1 + e^m s0) = s1 / (s0 + e^-m); scale = e^-m
        inv = 1.0 / (s0 + scale)
        r1 = s1 * inv
        d1[0] = r1
        d2[0] = s2 * inv - r1 * r1


def prepare_step(const double[:, ::1] S, const double[::1] uniq, const Py_ssize_t[::1] group,
                 const Py_ssize_t[::1] z, const double[:, ::1] C, const double[::1] off,
                 int family, int outer, double[::1] w, double[::1] h, double[:, ::1] A,
                 double[:, ::1] B, double[::1] scale, double[:, ::1] work, bint with_loss=False):
    """Weights (34)-(37) for one coordinate, and the grouped terms the line search needs.

    ``w[i]`` and ``h[i]`` receive the first and second derivatives of sample i's loss with
    respect to the coordinate f_r (so sum_i h_i g_i^2 is the line search's curvature at 0).

    ``uniq`` holds the distinct values of the score direction v = y_{., r} / 2, ``group[j]``
    the index of v_j in it, ``off[i]`` = v_{z_i} for the margin family (else 0).  Along the
    line all terms of a sample with the same v_j move together, so the sums collapse to
    ``A[i, u] = sum_{j: group j = u} c_j exp(a_j - m_i)`` (``B`` likewise for the second
    factor of the pairwise family); ``scale[i]`` is exp(m_i) for the identity outer and
    exp(-m_i) for log1p.  ``work`` is scratch of shape (n, M), or (n, 2M) for pairwise.
    Exponentials go through NumPy's vectorised ``exp``; the loops around it run without the GIL.
    Returns the summed loss at S when ``with_loss``, else 0.
    """
    cdef Py_ssize_t i, j, n = S.shape[0], M = S.shape[1], nu = uniq.shape[0]
    cdef double m, mb, sz, x, s0, total = 0.0
    cdef const double* c
    cdef double[::1] ones = np.ones(nu)
    with nogil:
        for i in range(n):
            c = &C[z[i], 0]
            sz = S[i, z[i]] if family == 0 else 0.0
            m = -INFINITY
            for j in range(M):  # branch-free max over the costly terms
                x = S[i, j] - sz if c[j] > 0.0 else -INFINITY
                m = x if x > m else m
            for j in range(M):
                work[i, j] = _floored(S[i, j] - sz - m)
            if family == 2:
                mb = -INFINITY
                for j in range(M):
                    mb = -S[i, j] if -S[i, j] > mb else mb
                for j in range(M):
                    work[i, M + j] = _floored(-S[i, j] - mb)
                m = m + mb
            scale[i] = m if outer == 0 else -m
    with np.errstate(over="ignore"):
        np.exp(work, out=np.asarray(work))
        np.exp(scale, out=np.asarray(scale))
    with nogil:
        for i in range(n):
            c = &C[z[i], 0]
            for j in range(nu):
                A[i, j] = 0.0
                B[i, j] = 0.0
            for j in range(M):  # zero-cost terms add c_j * work = 0 (work <= 1 after the shift)
                A[i, group[j]] += c[j] * work[i, j]
            if family == 2:
                for j in range(M):
                    B[i, group[j]] += work[i, M + j]
            _sample_derivs(&A[i, 0], &B[i, 0], &ones[0], &ones[0], nu, &uniq[0], off[i], 1.0,
                           scale[i], family, outer, &w[i], &h[i])
            if with_loss:
                s0 = 0.0
                for j in range(nu):
                    s0 += A[i, j]
                if family == 2:
                    x = 0.0
                    for j in range(nu):
                        x += B[i, j]
                    s0 *= x
                total += scale[i] * s0 if outer == 0 else log1p(s0 / scale[i])
    return total


def add_outer(double[:, ::1] S, const double[::1] g, const double[::1] v, double alpha):
    """In-place update (32) of the scores: S += alpha g v^T."""
    cdef Py_ssize_t i, j, n = S.shape[0], M = S.shape[1]
    cdef double a
    with nogil:
        for i in range(n):
            a = alpha * g[i]
            for j in range(M):
                S[i, j] += a * v[j]


def line_derivatives(const double[:, ::1] A, const double[:, ::1] B, const double[::1] scale,
                 const double[::1] uniq, const double[::1] off, const double[::1] g,
                 int family, int outer, double alpha, double[:, ::1] work):
    """Summed first and second alpha-derivatives of the loss at ``alpha`` along g (31).

    Uses the groups of :func:`prepare_step`; ``work`` is scratch of shape (n, U), or
    (n, 2U) for the pairwise family.
    """
    cdef Py_ssize_t i, u, n = A.shape[0], nu = A.shape[1]
    cdef double d1, d2, t1 = 0.0, t2 = 0.0
    with nogil:
        for i in range(n):
            for u in range(nu):
                work[i, u] = _floored(alpha * g[i] * (uniq[u] - off[i]))
                if family == 2:
                    work[i, nu + u] = _floored(-alpha * g[i] * uniq[u])
    with np.errstate(over="ignore"):
        np.exp(work, out=np.asarray(work))
    with nogil:
        for i in range(n):
            _sample_derivs(&A[i, 0], &B[i, 0], &work[i, 0], &work[i, nu], nu, &uniq[0], off[i],
                           g[i], scale[i], family, outer, &d1, &d2)
            t1 += d1
            t2 += d2
    return t1, t2
