# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Cost-sensitive AdaBoost step sizes for many candidate weak learners (NumPy reference: cs_ada_step_ref.py).

For a binary weak learner g with misclassified positive weight b and negative weight d (VI.41),
and class totals T+ and T- (VI.40), the loss of the step alpha along g is (VI.42)

    L(alpha) = (T+ - b) e^{-C1 alpha} + b e^{C1 alpha} + (T- - d) e^{-C2 alpha} + d e^{C2 alpha},

a convex function whose stationary point solves (VI.39).  Each candidate's alpha minimises L on
[alpha_min, alpha_max] (alpha_min = 0: a step along the descent direction g, as in AdaBoost;
-alpha_max allows flipping g): Newton's method on L'(alpha) = 0, kept inside a bracket that
shrinks at every step (bisection when a Newton step leaves it); when C1 = C2 = c the closed form
alpha = log((T - err)/err) / (2c), err = b + d, is used (AdaBoost's (VI.21) for c = 1), clipped.
"""

from libc.math cimport exp, log, fabs


cdef inline void _derivs(double a, double b, double d, double Tp, double Tm, double C1, double C2,
                         double* f1, double* f2) noexcept nogil:
    """L'(a) and L''(a) of (VI.42)."""
    cdef double ep = exp(C1 * a), em = exp(-C1 * a), fp = exp(C2 * a), fm = exp(-C2 * a)
    f1[0] = C1 * (b * ep - (Tp - b) * em) + C2 * (d * fp - (Tm - d) * fm)
    f2[0] = C1 * C1 * (b * ep + (Tp - b) * em) + C2 * C2 * (d * fp + (Tm - d) * fm)


cdef inline double _loss(double a, double b, double d, double Tp, double Tm, double C1, double C2) noexcept nogil:
    """(VI.42) at step a."""
    return (Tp - b) * exp(-C1 * a) + b * exp(C1 * a) + (Tm - d) * exp(-C2 * a) + d * exp(C2 * a)


cdef inline double _clip(double a, double lo, double hi) noexcept nogil:
    return lo if a < lo else (hi if a > hi else a)


cdef double _solve(double b, double d, double Tp, double Tm, double C1, double C2, double amin, double amax,
                   double tol, int max_iter, int* iters) noexcept nogil:
    """alpha minimising (VI.42) for one candidate on [amin, amax] (the root of (VI.39) when inside)."""
    cdef double err = b + d, T = Tp + Tm, c = 0.5 * (C1 + C2)
    cdef double lo = amin, hi = amax, a, a_new, f1, f2
    cdef int k
    iters[0] = 0
    if err <= 0.0:  # no mistakes: L decreases for ever
        return amax
    if err >= T:  # all mistakes
        return amin
    a = log((T - err) / err) / (2.0 * c)
    if C1 == C2:
        return _clip(a, lo, hi)
    _derivs(hi, b, d, Tp, Tm, C1, C2, &f1, &f2)
    if f1 <= 0.0:
        return hi
    _derivs(lo, b, d, Tp, Tm, C1, C2, &f1, &f2)
    if f1 >= 0.0:
        return lo
    a = _clip(a, lo, hi)  # start: the closed form at the mean cost
    for k in range(max_iter):
        iters[0] = k + 1
        _derivs(a, b, d, Tp, Tm, C1, C2, &f1, &f2)
        if f1 > 0.0:
            hi = a
        elif f1 < 0.0:
            lo = a
        else:
            return a
        a_new = a - f1 / f2 if f2 > 0.0 else 0.5 * (lo + hi)
        if not (lo < a_new < hi):
            a_new = 0.5 * (lo + hi)
        if fabs(a_new - a) <= tol * (1.0 + fabs(a)) or hi - lo <= tol * (1.0 + fabs(a)):
            return a_new
        a = a_new
    return a


def solve_steps(const double[::1] b, const double[::1] d, double Tp, double Tm, double C1, double C2,
                double alpha_min, double alpha_max, double tol, int max_iter, double[::1] alpha, double[::1] loss):
    """Fill ``alpha[j]`` (minimiser of (VI.42) on [alpha_min, alpha_max], the root of (VI.39) inside)
    and ``loss[j]`` ((VI.42) at it) for candidates (b[j], d[j]).

    Returns the total number of Newton/bisection iterations (0 for closed-form solutions).
    """
    cdef Py_ssize_t j, n = b.shape[0]
    cdef int it, total = 0
    with nogil:
        for j in range(n):
            alpha[j] = _solve(b[j], d[j], Tp, Tm, C1, C2, alpha_min, alpha_max, tol, max_iter, &it)
            loss[j] = _loss(alpha[j], b[j], d[j], Tp, Tm, C1, C2)
            total += it
    return total
