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

from libc.math cimport exp, log, log1p, fabs, INFINITY
import numpy as np

FAMILIES = {"margin": 0, "plain": 1, "pairwise": 2}
OUTERS = {"identity": 0, "log1p": 1}


cdef inline void _expsum(const double* s, const double* v, const double* c, Py_ssize_t M,
                         double sign, double off_a, double off_b, double g, double alpha,
                         double* m, double* s0, double* s1, double* s2) noexcept nogil:
    """Moments of sum_j c_j exp(a_j + alpha b_j), a_j = sign s_j - off_a, b_j = g (sign v_j - off_b).

    Returns the shift m and s_p = sum_j c_j b_j^p exp(a_j + alpha b_j - m); c NULL means ones.
    """
    cdef Py_ssize_t j
    cdef double e, b, w, cj
    cdef double mx = -INFINITY
    for j in range(M):
        if c != NULL and c[j] <= 0.0:
            continue
        e = sign * s[j] - off_a + alpha * g * (sign * v[j] - off_b)
        if e > mx:
            mx = e
    s0[0] = 0.0
    s1[0] = 0.0
    s2[0] = 0.0
    for j in range(M):
        cj = 1.0 if c == NULL else c[j]
        if cj <= 0.0:
            continue
        b = g * (sign * v[j] - off_b)
        w = cj * exp(sign * s[j] - off_a + alpha * b - mx)
        s0[0] += w
        s1[0] += w * b
        s2[0] += w * b * b
    m[0] = mx


cdef inline void _sample(const double* s, const double* v, const double* c, Py_ssize_t M,
                         Py_ssize_t z, int family, int outer, double g, double alpha,
                         double* val, double* d1, double* d2) noexcept nogil:
    """Loss of one sample at alpha and its first two alpha-derivatives."""
    cdef double m, g0, g1, g2, mb, b0, b1, b2, lg, p, r1, em
    if family == 0:
        _expsum(s, v, c, M, 1.0, s[z], v[z], g, alpha, &m, &g0, &g1, &g2)
    elif family == 1:
        _expsum(s, v, c, M, 1.0, 0.0, 0.0, g, alpha, &m, &g0, &g1, &g2)
    else:
        _expsum(s, v, c, M, 1.0, 0.0, 0.0, g, alpha, &m, &g0, &g1, &g2)
        _expsum(s, v, NULL, M, -1.0, 0.0, 0.0, g, alpha, &mb, &b0, &b1, &b2)
        m = m + mb
        g2 = g2 * b0 + 2.0 * g1 * b1 + g0 * b2
        g1 = g1 * b0 + g0 * b1
        g0 = g0 * b0
    if outer == 0:
        em = exp(m)
        val[0] = em * g0
        d1[0] = em * g1
        d2[0] = em * g2
    else:
        lg = m + log(g0)
        if lg > 0.0:
            val[0] = lg + log1p(exp(-lg))
            p = 1.0 / (1.0 + exp(-lg))
        else:
            val[0] = log1p(exp(lg))
            p = exp(lg) / (1.0 + exp(lg))
        r1 = g1 / g0 * p
        d1[0] = r1
        d2[0] = g2 / g0 * p - r1 * r1


cdef void _totals(const double[:, ::1] S, const double[::1] g, const double[::1] v,
                  const Py_ssize_t[::1] z, const double[:, ::1] C, int family, int outer,
                  double alpha, double* tv, double* t1, double* t2) noexcept nogil:
    cdef Py_ssize_t i, n = S.shape[0], M = S.shape[1]
    cdef double a, b, d
    tv[0] = 0.0
    t1[0] = 0.0
    t2[0] = 0.0
    for i in range(n):
        _sample(&S[i, 0], &v[0], &C[z[i], 0], M, z[i], family, outer, g[i], alpha, &a, &b, &d)
        tv[0] += a
        t1[0] += b
        t2[0] += d


def line_totals(const double[:, ::1] S, const double[::1] g, const double[::1] v,
                const Py_ssize_t[::1] z, const double[:, ::1] C, int family, int outer,
                double alpha):
    """Summed loss at ``alpha`` and its first and second alpha-derivatives."""
    cdef double tv, t1, t2
    with nogil:
        _totals(S, g, v, z, C, family, outer, alpha, &tv, &t1, &t2)
    return tv, t1, t2


cdef inline void _grouped(const double* A, const double* U, Py_ssize_t nu, double sign,
                         double off, double g, double alpha,
                         double* s0, double* s1, double* s2) noexcept nogil:
    """Moments of sum_u A_u exp(alpha b_u), b_u = g (sign U_u - off): grouped terms of one sample."""
    cdef Py_ssize_t u
    cdef double b, e
    s0[0] = 0.0
    s1[0] = 0.0
    s2[0] = 0.0
    for u in range(nu):
        if A[u] == 0.0:
            continue
        b = g * (sign * U[u] - off)
        e = A[u] if b == 0.0 else A[u] * exp(alpha * b)
        s0[0] += e
        s1[0] += e * b
        s2[0] += e * b * b


def prepare_step(const double[:, ::1] S, const double[::1] v, const double[::1] uniq,
                 const Py_ssize_t[::1] group, const Py_ssize_t[::1] z, const double[:, ::1] C,
                 int family, int outer, double[::1] w, double[:, ::1] A, double[:, ::1] B,
                 double[::1] shift):
    """Weights (34)-(37) for coordinate v, and the grouped terms the line search needs.

    ``uniq`` holds the distinct values of v and ``group[j]`` the index of v_j in it.  Along
    the line every term of a sample with the same v_j moves together, so the sums collapse
    to ``A[i, u] = sum_{j: group j = u} c_j exp(a_j - shift_i)`` (and ``B`` for the second
    factor of the pairwise family); :func:`newton_search` then needs one exp per group.
    """
    cdef Py_ssize_t i, j, n = S.shape[0], M = S.shape[1], nu = uniq.shape[0]
    cdef double m, mb, e, s0, s1, s2, b0, b1, b2, sz, vz, p
    cdef const double* c
    with nogil:
        for i in range(n):
            c = &C[z[i], 0]
            sz = S[i, z[i]] if family == 0 else 0.0
            vz = v[z[i]] if family == 0 else 0.0
            m = -INFINITY
            for j in range(M):
                if c[j] > 0.0 and S[i, j] - sz > m:
                    m = S[i, j] - sz
            for j in range(nu):
                A[i, j] = 0.0
                B[i, j] = 0.0
            for j in range(M):
                if c[j] > 0.0:
                    A[i, group[j]] += c[j] * exp(S[i, j] - sz - m)
            _grouped(&A[i, 0], &uniq[0], nu, 1.0, vz, 1.0, 0.0, &s0, &s1, &s2)
            if family == 2:
                mb = -INFINITY
                for j in range(M):
                    if -S[i, j] > mb:
                        mb = -S[i, j]
                for j in range(M):
                    B[i, group[j]] += exp(-S[i, j] - mb)
                _grouped(&B[i, 0], &uniq[0], nu, -1.0, 0.0, 1.0, 0.0, &b0, &b1, &b2)
                s1 = s1 * b0 + s0 * b1
                s0 = s0 * b0
                m = m + mb
            shift[i] = m
            if outer == 0:
                w[i] = exp(m) * s1
            else:
                p = s0 / (s0 + exp(-m))
                w[i] = s1 / s0 * p


cdef void _grouped_totals(const double[:, ::1] A, const double[:, ::1] B, const double[::1] scale,
                          const double[::1] uniq, const double[::1] off, const double[::1] g,
                          int family, int outer, double alpha, double* t1, double* t2) noexcept nogil:
    """Summed first and second alpha-derivatives from the grouped terms.

    ``scale`` is exp(shift) for the identity outer and exp(-shift) for log1p.
    """
    cdef Py_ssize_t i, n = A.shape[0], nu = A.shape[1]
    cdef double s0, s1, s2, b0, b1, b2, p, r1
    t1[0] = 0.0
    t2[0] = 0.0
    for i in range(n):
        _grouped(&A[i, 0], &uniq[0], nu, 1.0, off[i], g[i], alpha, &s0, &s1, &s2)
        if family == 2:
            _grouped(&B[i, 0], &uniq[0], nu, -1.0, 0.0, g[i], alpha, &b0, &b1, &b2)
            s2 = s2 * b0 + 2.0 * s1 * b1 + s0 * b2
            s1 = s1 * b0 + s0 * b1
            s0 = s0 * b0
        if outer == 0:
            t1[0] += scale[i] * s1
            t2[0] += scale[i] * s2
        else:
            p = s0 / (s0 + scale[i])
            r1 = s1 / s0 * p
            t1[0] += r1
            t2[0] += s2 / s0 * p - r1 * r1


def newton_search(const double[:, ::1] A, const double[:, ::1] B, const double[::1] shift,
                  const double[::1] uniq, const double[::1] off, const double[::1] g,
                  int family, int outer, double tol=1e-10, int max_iter=100, double max_step=1e8):
    """Exact line search (31) on the grouped terms of :func:`prepare_step`.

    Safeguarded Newton on the convex 1-D problem: Newton steps inside a bracket
    [lo, hi] that always holds the root of the derivative, bisection when a step leaves it
    or lands where the derivatives overflow; an unbounded bracket end grows geometrically.
    Stops when the step is below ``tol * (1 + |alpha|)``; |alpha| is capped at ``max_step``
    (reached only when the loss keeps decreasing, e.g. on separable data).
    ``off[i]`` is v_{z_i} for the margin family, else 0.  Returns ``(alpha, n_iter)``.
    """
    cdef Py_ssize_t i, n = A.shape[0]
    cdef double alpha = 0.0, lo, hi, d1, d2, n1, n2, cand, step
    cdef int it = 0
    cdef double[::1] scale = np.empty(n)
    with nogil:
        for i in range(n):
            scale[i] = exp(shift[i]) if outer == 0 else exp(-shift[i])
        _grouped_totals(A, B, scale, uniq, off, g, family, outer, 0.0, &d1, &d2)
        if d1 == 0.0:
            max_iter = 0
        if d1 < 0.0:
            lo = 0.0
            hi = INFINITY
        else:
            lo = -INFINITY
            hi = 0.0
        while it < max_iter:
            it += 1
            if d2 > 0.0 and d2 < INFINITY:
                cand = alpha - d1 / d2
            else:
                cand = alpha - d1
            if not (cand > lo and cand < hi):
                if lo > -INFINITY and hi < INFINITY:
                    cand = 0.5 * (lo + hi)
                elif hi == INFINITY:
                    cand = 2.0 * lo + 1.0
                else:
                    cand = 2.0 * hi - 1.0
            if cand > max_step:
                cand = max_step
            elif cand < -max_step:
                cand = -max_step
            step = cand - alpha
            _grouped_totals(A, B, scale, uniq, off, g, family, outer, cand, &n1, &n2)
            if not (fabs(n1) < INFINITY and n2 < INFINITY):
                # overflow: the minimiser lies between alpha and cand
                if cand > alpha:
                    hi = cand
                else:
                    lo = cand
                continue
            alpha = cand
            d1 = n1
            d2 = n2
            if d1 < 0.0:
                lo = alpha
            elif d1 > 0.0:
                hi = alpha
            else:
                break
            if fabs(step) <= tol * (1.0 + fabs(alpha)) or fabs(alpha) >= max_step:
                break
    return alpha, it
