# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""SMO-type solver for the SVM dual with per-sample linear term and box (NumPy reference: smo_ref.py).

Problem: minimise F(alpha) = 1/2 alpha' Q alpha - p' alpha  s.t.  y' alpha = 0, 0 <= alpha_i <= U_i,
with Q_ij = y_i y_j K_ij and y_i in {-1, +1}; the gradient is G = Q alpha - p.  The CS-SVM dual
(Masnadi-Shirazi thesis, eq. V.43) is this problem with p_i = 1 for positives and kappa for
negatives, U_i = C C_1 or C (2 C_{-1} - 1).  An example with U_i = 0 (and alpha_i = 0) is in
neither working set below, so it is left out of the problem (used for leave-one-out).

Optimality.  Let I_up hold the indices whose alpha may move so that y_t alpha_t grows
(y_t = +1 and alpha_t < U_t, or y_t = -1 and alpha_t > 0) and I_low those where it may shrink.
With m = max_{I_up} -y_t G_t and M = min_{I_low} -y_t G_t, alpha is optimal iff m <= M; the
solver stops when m - M < tol.

Step.  i = argmax_{I_up} -y_t G_t.  j is chosen among t in I_low with -y_t G_t < m by the
second-order rule of Fan, Chen & Lin (JMLR 2005): maximise the guaranteed decrease b^2 / a,
with b = m + y_t G_t > 0 and a = K_ii + K_tt - 2 K_it (a small positive constant when a <= 0).
Moving alpha_i by +y_i delta and alpha_j by -y_j delta keeps y' alpha fixed; along delta the
objective has slope -b and curvature a, so delta = b / a, clipped so both stay in their boxes.
The gradient then changes by delta y_t (K_it - K_jt) for every t; the same pass finds the next
m, M and i.

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


cdef Py_ssize_t solve(const double[:, ::1] K, const double[::1] d, const double[::1] y, const double[::1] p,
                      const double[::1] upper, double[::1] alpha, double[::1] G, double tol, Py_ssize_t max_iter,
                      double *b_out, double *gap_out) noexcept nogil:
    """SMO from a feasible ``alpha`` with gradient ``G`` (both updated in place); ``d`` = diag(K).

    Returns the number of iterations; writes the intercept to ``b_out`` and m - M to ``gap_out``.
    """
    cdef Py_ssize_t n = y.shape[0], t, i = -1, j, k, it = 0, n_free = 0
    cdef double m = -INFINITY, M = INFINITY, v, a, b, best, score, delta, lim_i, lim_j, s_free = 0.0
    for t in range(n):
        v = -y[t] * G[t]
        if in_up(y[t], alpha[t], upper[t]) and v > m:
            m = v
            i = t
        if in_low(y[t], alpha[t], upper[t]) and v < M:
            M = v
    while i >= 0 and m - M >= tol and it < max_iter:
        j = -1
        best = 0.0
        for t in range(n):
            if not in_low(y[t], alpha[t], upper[t]):
                continue
            v = -y[t] * G[t]
            if v >= m:
                continue
            b = m - v
            a = d[i] + d[t] - 2.0 * K[i, t]
            if a <= 0.0:
                a = TAU
            score = b * b / a
            if score > best:
                best = score
                j = t
        if j < 0:
            break
        b = m + y[j] * G[j]
        a = d[i] + d[j] - 2.0 * K[i, j]
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
        it += 1
        k = i  # gradient update, and in the same pass the next m, M and i
        i = -1
        m = -INFINITY
        M = INFINITY
        for t in range(n):
            G[t] += delta * y[t] * (K[k, t] - K[j, t])
            v = -y[t] * G[t]
            if in_up(y[t], alpha[t], upper[t]) and v > m:
                m = v
                i = t
            if in_low(y[t], alpha[t], upper[t]) and v < M:
                M = v
    for t in range(n):
        if 0.0 < alpha[t] < upper[t]:
            s_free -= y[t] * G[t]
            n_free += 1
    if n_free > 0:
        b_out[0] = s_free / n_free
    elif i < 0:
        b_out[0] = M
    elif M == INFINITY:
        b_out[0] = m
    else:
        b_out[0] = 0.5 * (m + M)
    gap_out[0] = m - M
    return it


cdef inline void move(const double[:, ::1] K, const double[::1] y, double[::1] alpha, double[::1] G,
                      Py_ssize_t s, double delta) noexcept nogil:
    """alpha_s += delta, with the gradient G = Q alpha - p updated to match."""
    cdef Py_ssize_t t
    alpha[s] += delta
    for t in range(y.shape[0]):
        G[t] += delta * y[t] * y[s] * K[s, t]


cdef double reassign(const double[:, ::1] K, const double[::1] y, const double[::1] upper, double[::1] alpha,
                     double[::1] G, Py_ssize_t i, double rest, bint same) noexcept nogil:
    """Restore y' alpha = 0 after alpha_i was removed: returns what is left of ``rest``.

    ``same``: raise the alphas of i's class with room, else lower the other class' positive
    alphas; either way the example nearest to i (largest K_it, first index on ties) goes first,
    each as far as its box allows.
    """
    cdef Py_ssize_t t, s
    cdef double room, best
    while rest > 0.0:
        s = -1
        best = -INFINITY
        for t in range(y.shape[0]):
            if (y[t] == y[i]) != same:
                continue
            room = upper[t] - alpha[t] if same else alpha[t]
            if room > 0.0 and K[i, t] > best:
                best = K[i, t]
                s = t
        if s < 0:
            break
        room = upper[s] - alpha[s] if same else alpha[s]
        if room >= rest:
            move(K, y, alpha, G, s, rest if same else -rest)
            rest = 0.0
        else:
            move(K, y, alpha, G, s, room if same else -room)
            alpha[s] = upper[s] if same else 0.0
            rest -= room
    return rest


def smo_solve(const double[:, ::1] K, const double[::1] y, const double[::1] p,
              const double[::1] upper, double[::1] alpha, double[::1] G, double tol, Py_ssize_t max_iter):
    """Run SMO from a feasible ``alpha`` whose gradient is ``G``; both are updated in place.

    Returns ``(n_iter, b, gap)``: iterations done, the intercept from the KKT conditions, and
    m - M at exit (``gap < tol`` means converged).
    """
    cdef double b, gap
    cdef Py_ssize_t it
    cdef double[::1] d = np.ascontiguousarray(np.diagonal(K))
    with nogil:
        it = solve(K, d, y, p, upper, alpha, G, tol, max_iter, &b, &gap)
    return it, b, gap


def loo_decision_values(const double[:, ::1] K, const double[::1] y, const double[::1] p,
                        const double[::1] upper, const double[::1] alpha, const double[::1] G, double b,
                        double tol, Py_ssize_t max_iter):
    """Leave-one-out decision values f_{-i}(x_i) from the solution (``alpha``, ``G``, ``b``) on all n.

    An example with alpha_i = 0 leaves the solution optimal when removed (its KKT conditions
    drop out, the others are unchanged), so f_{-i}(x_i) = f(x_i) = y_i (G_i + p_i) + b.  For a
    support vector, U_i is set to 0 (removing it), alpha_i is taken out and given back by
    :func:`reassign` (own class first, then the other class) so that y' alpha = 0 holds
    (alpha seeding), and SMO runs from there.  Returns ``(values, total iterations, largest
    final m - M)``.
    """
    cdef Py_ssize_t n = y.shape[0], i, t, it = 0
    cdef double bi, gap, worst = -INFINITY, rest
    values = np.empty(n)
    cdef double[::1] out = values
    cdef double[::1] d = np.ascontiguousarray(np.diagonal(K))
    cdef double[::1] a = np.empty(n), g = np.empty(n), u = np.empty(n)
    with nogil:
        for i in range(n):
            if alpha[i] == 0.0:
                out[i] = y[i] * (G[i] + p[i]) + b
                continue
            for t in range(n):
                a[t] = alpha[t]
                g[t] = G[t]
                u[t] = upper[t]
            u[i] = 0.0
            move(K, y, a, g, i, -alpha[i])
            a[i] = 0.0
            rest = reassign(K, y, u, a, g, i, alpha[i], True)
            reassign(K, y, u, a, g, i, rest, False)
            it += solve(K, d, y, p, u, a, g, tol, max_iter, &bi, &gap)
            if gap > worst:
                worst = gap
            out[i] = y[i] * (g[i] + p[i]) + bi
    return values, it, worst
