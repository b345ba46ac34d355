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
:func:`ada_losses` gives the same losses only where they can decide the best candidate (bounds elsewhere).
"""

from libc.math cimport INFINITY, exp, fabs, fmax, fmin, log, sqrt

import numpy as np


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


cdef inline double _solved_loss(double b, double d, double Tp, double Tm, double C1, double C2, double amax,
                                double tol, int max_iter) noexcept nogil:
    """(VI.42) at the step of :func:`solve_steps` (alpha_min = 0): the same bits as its ``loss``."""
    cdef int it
    return _loss(_solve(b, d, Tp, Tm, C1, C2, 0.0, amax, tol, max_iter, &it), b, d, Tp, Tm, C1, C2)


cdef inline double _pair_bound(double b, double d, double Tp, double Tm) noexcept nogil:
    """2 sqrt((T+ - b) b) + 2 sqrt((T- - d) d): each class's pair of terms of (VI.42) at its own minimum."""
    return 2.0 * (sqrt(fmax((Tp - b) * b, 0.0)) + sqrt(fmax((Tm - d) * d, 0.0)))


cdef inline double _descent_bound(double s, double M, double h) noexcept nogil:
    """A lower bound of L(0) - min L for L'(0) = s < 0 and L'' <= M on [0, h]: the quadratic bound's decrease."""
    return s * s / (2.0 * M) if -s <= M * h else -0.5 * s * h


def ada_losses(const double[::1] b, const double[::1] d, double Tp, double Tm, double C1, double C2, double alpha_max,
               double slack, double tol, int max_iter, double[::1] loss):
    """Fill ``loss[j]`` with the loss of :func:`solve_steps` (alpha_min = 0, ``alpha_max``, ``tol``, ``max_iter``:
    the same bits) wherever it may decide the smallest or the largest entry, else with a lower bound of it.

    With T = T+ + T-, L'(0) = s = C1 (2b - T+) + C2 (2d - T-):

    1. s >= 1e-9 (C1 T+ + C2 T-) (flat: alpha = 0): the exact loss (T+ - b) + b + (T- - d) + d.  Otherwise the
       pair bound p = 2 sqrt((T+ - b) b) + 2 sqrt((T- - d) d) <= loss, and the upper bound u = T - D(s) >= loss,
       D the decrease a quadratic with L'' <= M = C1^2 T+ e^{C1 h} + C2^2 T- e^{C2 h} on [0, h], h = 1/max(C1, C2),
       guarantees.  The candidate of least p (first) and that of largest u (first) are solved: best is the
       former's loss, top the largest of the flat losses and the two solved.
    2. Candidates with p <= best + slack T: the bound at a0 = log((T - b - d)/(b + d))/(C1 + C2) (clipped to
       [0, alpha_max]; alpha_max when b + d <= 0, 0 when b + d >= T), max(p, L(a0) - L'(a0)^2 / (2 m)),
       m = 2 C1^2 sqrt((T+ - b) b) + 2 C2^2 sqrt((T- - d) d) <= L''; if the least L(a0) among them is below
       best, its candidate is solved and best is the smaller.
    3. Solved: every other candidate whose bound is <= best + slack T, or whose u >= top (1 - 1e-9) - 1e-14 T.

    So an entry not solved is a lower bound above best + slack T >= (smallest loss) + slack T and below top (the
    largest entry, solved).  Returns the number of candidates solved.
    """
    cdef Py_ssize_t n = b.shape[0]
    if d.shape[0] != n or loss.shape[0] != n:
        raise ValueError(f"shape mismatch: b {n}, d {d.shape[0]}, loss {loss.shape[0]}")
    cdef unsigned char[::1] stage = np.zeros(n, dtype=np.uint8)  # 0: exact, 1: pair bound, 2: bound at a0
    cdef int solved = 0
    if n:
        with nogil:
            solved = _bounded_losses(&b[0], &d[0], n, Tp, Tm, C1, C2, alpha_max, slack, tol, max_iter, &loss[0],
                                     &stage[0])
    return solved


cdef int _bounded_losses(const double* b, const double* d, Py_ssize_t n, double Tp, double Tm, double C1, double C2,
                         double amax, double slack, double tol, int max_iter, double* loss,
                         unsigned char* stage) noexcept nogil:
    """:func:`ada_losses`'s three passes; ``stage`` (n,) zeroed scratch."""
    cdef Py_ssize_t j, jlo = -1, jhi = -1, jup = -1
    cdef double T = Tp + Tm, flat = 1e-9 * (C1 * Tp + C2 * Tm), h = 1.0 / fmax(C1, C2)
    cdef double M = C1 * C1 * Tp * exp(C1 * h) + C2 * C2 * Tm * exp(C2 * h)
    cdef double s, p, u, lo = INFINITY, uhi = -INFINITY, upmin = INFINITY, top = -INFINITY, best, x, cut
    cdef double a0, err, pr, pw, nr, nw, up, slope, den
    cdef int solved = 0
    for j in range(n):
        s = C1 * (2.0 * b[j] - Tp) + C2 * (2.0 * d[j] - Tm)
        if s >= flat:
            loss[j] = (Tp - b[j]) + b[j] + (Tm - d[j]) + d[j]
            top = fmax(top, loss[j])
            continue
        p = _pair_bound(b[j], d[j], Tp, Tm)
        u = T - _descent_bound(s, M, h)
        loss[j] = p
        stage[j] = 1
        if p < lo:
            lo, jlo = p, j
        if u > uhi:
            uhi, jhi = u, j
    if jlo < 0:
        return 0
    loss[jlo] = _solved_loss(b[jlo], d[jlo], Tp, Tm, C1, C2, amax, tol, max_iter)
    stage[jlo] = 0
    solved += 1
    if stage[jhi]:
        loss[jhi] = _solved_loss(b[jhi], d[jhi], Tp, Tm, C1, C2, amax, tol, max_iter)
        stage[jhi] = 0
        solved += 1
    best = loss[jlo]
    top = fmax(top, fmax(best, loss[jhi]))
    cut = best + slack * T
    for j in range(n):
        if stage[j] != 1 or loss[j] > cut:
            continue
        err = b[j] + d[j]
        if err <= 0.0:
            a0 = amax
        elif err >= T:
            a0 = 0.0
        else:
            a0 = _clip(log((T - err) / err) / (C1 + C2), 0.0, amax)
        pr, pw = (Tp - b[j]) * exp(-C1 * a0), b[j] * exp(C1 * a0)
        nr, nw = (Tm - d[j]) * exp(-C2 * a0), d[j] * exp(C2 * a0)
        up = pr + pw + nr + nw
        slope = C1 * (pw - pr) + C2 * (nw - nr)
        den = 4.0 * (C1 * C1 * sqrt(fmax((Tp - b[j]) * b[j], 0.0)) + C2 * C2 * sqrt(fmax((Tm - d[j]) * d[j], 0.0)))
        if den > 0.0:
            loss[j] = fmax(loss[j], up - slope * slope / den)
        stage[j] = 2
        if up < upmin:
            upmin, jup = up, j
    if jup >= 0 and upmin < best:
        loss[jup] = _solved_loss(b[jup], d[jup], Tp, Tm, C1, C2, amax, tol, max_iter)
        stage[jup] = 0
        solved += 1
        best = fmin(best, loss[jup])
    cut = best + slack * T
    x = top * (1.0 - 1e-9) - 1e-14 * T
    for j in range(n):
        if stage[j] == 0:
            continue
        s = C1 * (2.0 * b[j] - Tp) + C2 * (2.0 * d[j] - Tm)
        if loss[j] <= cut or T - _descent_bound(s, M, h) >= x:
            loss[j] = _solved_loss(b[j], d[j], Tp, Tm, C1, C2, amax, tol, max_iter)
            stage[j] = 0
            solved += 1
    return solved
