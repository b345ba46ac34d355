# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""SMO-type solver for the SVM dual with per-sample linear term and box (NumPy reference: smo_ref.py).

Problem: minimise F(alpha) = 1/2 alpha' Q alpha - p' alpha  s.t.  y' alpha = 0, 0 <= alpha_i <= U_i,
with Q_ij = y_i y_j K_ij and y_i in {-1, +1}; the gradient is G = Q alpha - p.  The CS-SVM dual
(Masnadi-Shirazi thesis, eq. V.43) is this problem with p_i = 1 for positives and kappa for
negatives, U_i = C C_1 or C (2 C_{-1} - 1).

Optimality.  Let I_up hold the indices whose alpha may move so that y_t alpha_t grows
(y_t = +1 and alpha_t < U_t, or y_t = -1 and alpha_t > 0) and I_low those where it may shrink.
With m = max_{I_up} -y_t G_t and M = min_{I_low} -y_t G_t, alpha is optimal iff m <= M; the
solver stops when m - M < tol.

Step.  i = argmax_{I_up} -y_t G_t.  j is chosen among t in I_low with -y_t G_t < m by the
second-order rule of Fan, Chen & Lin (JMLR 2005): maximise the guaranteed decrease b^2 / a,
with b = m + y_t G_t > 0 and a = K_ii + K_tt - 2 K_it (a small positive constant when a <= 0).
Moving alpha_i by +y_i delta and alpha_j by -y_j delta keeps y' alpha fixed; along delta the
objective has slope -b and curvature a, so delta = b / a, clipped so both stay in their boxes.
The gradient then changes by delta y_t (K_it - K_jt) for every t.

Intercept.  For fixed alpha every optimal b lies in [m, M]; a free alpha_t (0 < alpha_t < U_t)
is in both sets and gives b = -y_t G_t exactly, i.e. y_t (f(x_t)) = p_t.  b is the mean over
the free alphas, or (m + M) / 2 when there are none.
"""

from libc.math cimport INFINITY
import numpy as np

# curvature used when K_ii + K_jj - 2 K_ij <= 0 (duplicate points or a non-PSD kernel)
cdef double TAU = 1e-12


cdef inline bint in_up(double y, double a, double u) noexcept nogil:
    return (a < u) if y > 0 else (a > 0.0)


cdef inline bint in_low(double y, double a, double u) noexcept nogil:
    return (a > 0.0) if y > 0 else (a < u)


cdef void violating_extremes(const double[::1] y, const double[::1] upper, double[::1] alpha,
                             double[::1] G, Py_ssize_t *i_out, double *m_out, double *M_out) noexcept nogil:
    """m, M of the optimality test and i = argmax over I_up (-1 when I_up is empty)."""
    cdef Py_ssize_t t, n = y.shape[0], i = -1
    cdef double v, m = -INFINITY, M = INFINITY
    for t in range(n):
        v = -y[t] * G[t]
        if in_up(y[t], alpha[t], upper[t]) and v > m:
            m = v
            i = t
        if in_low(y[t], alpha[t], upper[t]) and v < M:
            M = v
    i_out[0] = i
    m_out[0] = m
    M_out[0] = M


def smo_solve(const double[:, ::1] K, const double[::1] y, const double[::1] p,
              const double[::1] upper, double[::1] alpha, double[::1] G, double tol, Py_ssize_t max_iter):
    """Run SMO from a feasible ``alpha`` whose gradient is ``G``; both are updated in place.

    Returns ``(n_iter, b, gap)``: iterations done, the intercept from the KKT conditions, and
    m - M at exit (``gap < tol`` means converged).
    """
    cdef Py_ssize_t n = y.shape[0], t, i, j, it = 0, n_free = 0
    cdef double m, M, v, a, b, best, score, delta, lim_i, lim_j, s_free = 0.0
    with nogil:
        while True:
            violating_extremes(y, upper, alpha, G, &i, &m, &M)
            if i < 0 or m - M < tol or it >= max_iter:
                break
            j = -1
            best = 0.0
            for t in range(n):
                if not in_low(y[t], alpha[t], upper[t]):
                    continue
                v = -y[t] * G[t]
                if v >= m:
                    continue
                b = m - v
                a = K[i, i] + K[t, t] - 2.0 * K[i, t]
                if a <= 0.0:
                    a = TAU
                score = b * b / a
                if score > best:
                    best = score
                    j = t
            if j < 0:
                break
            b = m + y[j] * G[j]
            a = K[i, i] + K[j, j] - 2.0 * K[i, j]
            if a <= 0.0:
                a = TAU
            lim_i = upper[i] - alpha[i] if y[i] > 0 else alpha[i]
            lim_j = alpha[j] if y[j] > 0 else upper[j] - alpha[j]
            delta = b / a
            if lim_i < delta:
                delta = lim_i
            if lim_j < delta:
                delta = lim_j
            alpha[i] += y[i] * delta
            alpha[j] -= y[j] * delta
            if delta == lim_i:
                alpha[i] = upper[i] if y[i] > 0 else 0.0
            if delta == lim_j:
                alpha[j] = 0.0 if y[j] > 0 else upper[j]
            for t in range(n):
                G[t] += delta * y[t] * (K[i, t] - K[j, t])
            it += 1
        for t in range(n):
            if 0.0 < alpha[t] < upper[t]:
                s_free -= y[t] * G[t]
                n_free += 1
    if n_free > 0:
        b = s_free / n_free
    elif i < 0:
        b = M
    elif M == INFINITY:
        b = m
    else:
        b = 0.5 * (m + M)
    return it, b, m - M
