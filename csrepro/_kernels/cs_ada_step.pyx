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
:func:`class_sums` gives a round's class totals T+, T- as NumPy's pairwise sums (``np.sum``'s bits).
"""

from libc.math cimport INFINITY, NAN, exp, fabs, fmax, fmin, log, sqrt

from csrepro._kernels._simd_cs_ada_step cimport _near, _pass1, ada_best, ada_k

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


cdef inline double _convex_bound(double b, double d, double Tp, double Tm, double C1, double C2, double L,
                                 double f1) noexcept nogil:
    """L(a) - L'(a)^2 / (2 m) <= the least loss, from L = L(a), f1 = L'(a) at any step a: L'' >= m = 2 C1^2
    sqrt((T+ - b) b) + 2 C2^2 sqrt((T- - d) d) everywhere (AM-GM), so L >= L(a) + L'(a) (t - a) + m (t - a)^2 / 2;
    -inf where m = 0."""
    cdef double m = 2.0 * (C1 * C1 * sqrt(fmax((Tp - b) * b, 0.0)) + C2 * C2 * sqrt(fmax((Tm - d) * d, 0.0)))
    if not m > 0.0:
        return -INFINITY
    return L - f1 * f1 / (2.0 * m)


cdef inline double _shared_bound(double b, double d, double Tp, double Tm, double C1, double C2,
                                 const double* e) noexcept nogil:
    """:func:`_convex_bound` at a step a shared by all candidates (e = e^{C1 a}, e^{-C1 a}, e^{C2 a}, e^{-C2 a}: no
    exponential per candidate)."""
    cdef double f1 = C1 * (b * e[0] - (Tp - b) * e[1]) + C2 * (d * e[2] - (Tm - d) * e[3])
    return _convex_bound(b, d, Tp, Tm, C1, C2, (Tp - b) * e[1] + b * e[0] + (Tm - d) * e[3] + d * e[2], f1)


cdef inline double _cosh_bound(double b, double d, double Tp, double Tm, double C1, double C2,
                               double* memo) noexcept nogil:
    """2 gp + 2 gn + gp gn (C1 tn - C2 tp)^2 / (gp C1^2 + gn C2^2) <= the least loss, gp = sqrt((T+ - b) b),
    tp = log((T+ - b)/b)/2 (gn, tn alike): L = 2 gp cosh(C1 a - tp) + 2 gn cosh(C2 a - tn), cosh u >= 1 + u^2/2.
    ``memo``: (b, log((T+ - b)/b), d, log((T- - d)/d)) of the last logs taken (NaN: none), reused for an equal b / d
    (a tree node's candidates often share one of them): the same bits."""
    cdef double gp = sqrt(fmax((Tp - b) * b, 0.0)), gn = sqrt(fmax((Tm - d) * d, 0.0)), u
    if not (gp > 0.0 and gn > 0.0):
        return 2.0 * (gp + gn)
    if b != memo[0]:
        memo[0], memo[1] = b, log((Tp - b) / b)
    if d != memo[2]:
        memo[2], memo[3] = d, log((Tm - d) / d)
    u = C1 * 0.5 * memo[3] - C2 * 0.5 * memo[1]
    return 2.0 * (gp + gn) + gp * gn * u * u / (gp * C1 * C1 + gn * C2 * C2)


cdef inline void _newton_bounds(const double* b, const double* d, const Py_ssize_t* js, double Tp, double Tm,
                                double C1, double C2, double q, double amax, double* lo, double* hi) noexcept nogil:
    """Tighten ``lo`` / ``hi`` of candidates js[0], js[1] (may be equal) by L(a1) - L'(a1)^2 / (2 m) and L(a1), a1
    one Newton step from -s/q: the two in step (independent chains of exponentials); one exponential per point when
    C1 = C2."""
    cdef double a[2]
    cdef double ep[2]
    cdef double fp[2]
    cdef double f1[2]
    cdef double f2[2]
    cdef double bt, dt
    cdef int k, t
    for t in range(2):
        bt, dt = b[js[t]], d[js[t]]
        a[t] = _clip(-(C1 * (2.0 * bt - Tp) + C2 * (2.0 * dt - Tm)) / q, 0.0, amax)
    for k in range(2):
        for t in range(2):
            ep[t] = exp(C1 * a[t])
            fp[t] = ep[t] if C2 == C1 else exp(C2 * a[t])
        for t in range(2):
            bt, dt = b[js[t]], d[js[t]]
            f1[t] = C1 * (bt * ep[t] - (Tp - bt) / ep[t]) + C2 * (dt * fp[t] - (Tm - dt) / fp[t])
            if k == 0:
                f2[t] = C1 * C1 * (bt * ep[t] + (Tp - bt) / ep[t]) + C2 * C2 * (dt * fp[t] + (Tm - dt) / fp[t])
                if f2[t] > 0.0:
                    a[t] = _clip(a[t] - f1[t] / f2[t], 0.0, amax)
    for t in range(2):
        bt, dt = b[js[t]], d[js[t]]
        f2[t] = (Tp - bt) / ep[t] + bt * ep[t] + (Tm - dt) / fp[t] + dt * fp[t]  # L(a1)
        hi[js[t]] = fmin(hi[js[t]], f2[t])
        lo[js[t]] = fmax(lo[js[t]], _convex_bound(bt, dt, Tp, Tm, C1, C2, f2[t], f1[t]))


def ada_losses(const double[::1] b, const double[::1] d, double Tp, double Tm, double C1, double C2, double alpha_max,
               double slack, double tol, int max_iter, double[::1] loss):
    """Fill ``loss[j]`` with the loss of :func:`solve_steps` (alpha_min = 0, ``alpha_max``, ``tol``, ``max_iter``:
    the same bits) wherever it may decide the smallest or the largest entry, else with a lower bound of it.

    With T = T+ + T-, s = L'(0) = C1 (2b - T+) + C2 (2d - T-) and q = L''(0) = C1^2 T+ + C2^2 T-, c = max(C1, C2):

    1. s >= 1e-9 (C1 T+ + C2 T-) (flat: alpha = 0): the exact loss (T+ - b) + b + (T- - d) + d.  Otherwise bounds
       without exponentials, lo <= loss <= hi: lo the larger of 2 sqrt((T+ - b) b) + 2 sqrt((T- - d) d) (each
       class's terms at their own minimum) and, when x = -2 s c / q <= log 2, T - s^2 (1 + x + x^2) / (2 q) (the
       minimum lies in [0, -2s/q], where L'' >= q e^{-x}); hi the smaller of T - D(s), D the decrease a quadratic
       with L'' <= M = C1^2 T+ e^{C1 h} + C2^2 T- e^{C2 h} on [0, h = 1/c] guarantees, and, when y = -s c / q <= 1,
       T - s^2 (1 - y - y^2) / (2 q) (L at -s/q, L'' <= q e^{y} there).  The candidates of least lo and of largest
       hi (the first) are solved: best is the former's loss, top the largest of the flat losses and the two.
    2. Candidates with lo <= best + slack T: lo = max(lo, L(a*) - L'(a*)^2 / (2 m)), a* the step of the first
       solved candidate (strong convexity, m as below; no exponential per candidate), then for those still with
       lo <= best + slack T, lo = max(lo, 2 gp + 2 gn + gp gn (C1 tn - C2 tp)^2 / (gp C1^2 +
       gn C2^2)), gp = sqrt((T+ - b) b), tp = log((T+ - b)/b)/2, gn, tn alike (L = 2 gp cosh(C1 a - tp) +
       2 gn cosh(C2 a - tn) and cosh u >= 1 + u^2/2).  Those still with lo <= best + slack T, or with
       hi >= top (1 - 1e-9) - 1e-14 T: with a1 one Newton step of
       L' = 0 from -s/q (clipped to [0, alpha_max]), lo = max(lo, L(a1) - L'(a1)^2 / (2 m)) (strong convexity,
       m = 2 C1^2 sqrt((T+ - b) b) + 2 C2^2 sqrt((T- - d) d) <= L''), hi = min(hi, L(a1)); if the least hi among
       them is below best, its candidate is solved and best is the smaller.
    3. Solved: each of these whose lo <= best + slack T or hi >= top (1 - 1e-9) - 1e-14 T.

    So an entry not solved is a lower bound above best + slack T >= (smallest loss) + slack T and below top (the
    largest entry, solved).  Returns the number of candidates solved.  (A lower bound only ever rules a candidate
    out: a tighter one leaves the least and largest entries, those within slack T of the least, and the candidate
    solved in step 2 (its hi < best: never ruled out) as they were; it lowers only the number solved and raises
    only entries that are not solved.)
    """
    cdef Py_ssize_t n = b.shape[0]
    if d.shape[0] != n or loss.shape[0] != n:
        raise ValueError(f"shape mismatch: b {n}, d {d.shape[0]}, loss {loss.shape[0]}")
    cdef unsigned char[::1] stage = np.empty(n, dtype=np.uint8)  # 0: exact, 1: cheap bounds, 2: Newton bounds
    cdef double[::1] upper = np.empty(n)
    cdef Py_ssize_t[::1] near = np.empty(n + 1, dtype=np.intp)
    cdef int solved = 0
    if n:
        with nogil:
            solved = _bounded_losses(&b[0], &d[0], n, Tp, Tm, C1, C2, alpha_max, slack, tol, max_iter, &loss[0],
                                     &stage[0], &upper[0], &near[0])
    return solved


cdef int _bounded_losses(const double* b, const double* d, Py_ssize_t n, double Tp, double Tm, double C1, double C2,
                         double amax, double slack, double tol, int max_iter, double* loss, unsigned char* stage,
                         double* upper, Py_ssize_t* near) noexcept nogil:
    """:func:`ada_losses`'s three passes (the first, and the second's choice of candidates, in C:
    include/cs_ada_step_simd.h); ``stage``, ``upper`` (n,), ``near`` (n + 1,) scratch (``near``: the candidates the
    second pass bounds, in order, then those it bounds by a Newton step, two at a time)."""
    cdef Py_ssize_t i, j, jlo, jhi, jup = -1, m = 0, k = 0
    cdef ada_k kc
    cdef ada_best st
    cdef double memo[8]  # _cosh_bound's, one per labelling (j even / odd)
    kc.Tp, kc.Tm, kc.C1, kc.C2, kc.T, kc.cm, kc.h = Tp, Tm, C1, C2, Tp + Tm, fmax(C1, C2), 1.0 / fmax(C1, C2)
    cdef double M = C1 * C1 * Tp * exp(C1 * kc.h) + C2 * C2 * Tm * exp(C2 * kc.h), q = C1 * C1 * Tp + C2 * C2 * Tm
    kc.q, kc.Mh, kc.q2, kc.M2, kc.flat = q, M * kc.h, 2.0 * q, 2.0 * M, 1e-9 * (C1 * Tp + C2 * Tm)
    cdef double T = kc.T, upmin = INFINITY, top, best, x, cut, a
    cdef double es[4]  # _shared_bound's
    cdef int solved = 0, it
    for j in range(8):
        memo[j] = NAN
    jlo = _pass1(&kc, b, d, n, loss, upper, stage, &st)
    if jlo < 0:
        return 0
    jhi, top = st.jhi, st.top
    a = _solve(b[jlo], d[jlo], Tp, Tm, C1, C2, 0.0, amax, tol, max_iter, &it)
    loss[jlo] = _loss(a, b[jlo], d[jlo], Tp, Tm, C1, C2)  # = _solved_loss; its step is the shared bound's
    es[0], es[1], es[2], es[3] = exp(C1 * a), exp(-C1 * a), exp(C2 * a), exp(-C2 * a)
    stage[jlo] = 0
    solved += 1
    if stage[jhi]:
        loss[jhi] = _solved_loss(b[jhi], d[jhi], Tp, Tm, C1, C2, amax, tol, max_iter)
        stage[jhi] = 0
        solved += 1
    best = loss[jlo]
    top = fmax(top, fmax(best, loss[jhi]))
    cut = best + slack * T
    x = top * (1.0 - 1e-9) - 1e-14 * T
    m = _near(stage, loss, upper, n, cut, x, near)
    for i in range(m):  # the shared-step and cosh bounds; near[:k]: those left for the Newton bounds
        j = near[i]
        if loss[j] <= cut:
            loss[j] = fmax(loss[j], _shared_bound(b[j], d[j], Tp, Tm, C1, C2, es))
            if loss[j] <= cut:
                loss[j] = fmax(loss[j], _cosh_bound(b[j], d[j], Tp, Tm, C1, C2, &memo[4 * (j & 1)]))
            if loss[j] > cut and upper[j] < x:
                continue
        near[k] = j
        k += 1
    for i in range(0, k, 2):
        if i + 1 == k:
            near[k] = near[i]
        _newton_bounds(b, d, &near[i], Tp, Tm, C1, C2, q, amax, loss, upper)
    for i in range(k):
        j = near[i]
        stage[j] = 2
        if upper[j] < upmin:
            upmin, jup = upper[j], j
    if jup >= 0 and upmin < best:
        loss[jup] = _solved_loss(b[jup], d[jup], Tp, Tm, C1, C2, amax, tol, max_iter)
        stage[jup] = 0
        solved += 1
        best = fmin(best, loss[jup])
    cut = best + slack * T
    for i in range(k):
        j = near[i]
        if stage[j] == 2 and (loss[j] <= cut or upper[j] >= x):
            loss[j] = _solved_loss(b[j], d[j], Tp, Tm, C1, C2, amax, tol, max_iter)
            stage[j] = 0
            solved += 1
    return solved


cdef double _pairwise(const double* a, const Py_ssize_t* rows, Py_ssize_t n) noexcept nogil:
    """The sum of a[rows[0..n-1]] in NumPy's pairwise order (``np.add.reduce`` of a contiguous float64 array: below 8
    terms one by one from 0.0; up to 128 eight running sums, combined in pairs, then the rest; beyond, the two
    halves split at a multiple of 8), so its bits."""
    cdef double r[8]
    cdef double res = 0.0
    cdef Py_ssize_t i, j, n2
    if n < 8:
        for i in range(n):
            res += a[rows[i]]
        return res
    if n <= 128:
        for j in range(8):
            r[j] = a[rows[j]]
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += a[rows[i + j]]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[rows[i]]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise(a, rows, n2) + _pairwise(a, rows + n2, n - n2)


def class_sums(const double[::1] w, const Py_ssize_t[::1] pos, const Py_ssize_t[::1] neg):
    """(T+, T-) = (``w[pos].sum()``, ``w[neg].sum()``), NumPy's pairwise sums bit for bit (``pos``, ``neg``: the rows
    of each class, in order)."""
    cdef Py_ssize_t n = w.shape[0], i
    cdef double Tp, Tm
    for i in range(pos.shape[0]):
        if not 0 <= pos[i] < n:
            raise ValueError(f"row {pos[i]} of pos out of range for {n} rows")
    for i in range(neg.shape[0]):
        if not 0 <= neg[i] < n:
            raise ValueError(f"row {neg[i]} of neg out of range for {n} rows")
    with nogil:
        Tp = _pairwise(&w[0], &pos[0], pos.shape[0]) if pos.shape[0] else 0.0
        Tm = _pairwise(&w[0], &neg[0], neg.shape[0]) if neg.shape[0] else 0.0
    return Tp, Tm
