"""NumPy reference of :mod:`csrepro._kernels.cs_ada_step`: (VI.39) by plain bisection, all candidates at once."""

import numpy as np


def loss_derivative(alpha, b, d, Tp, Tm, C1, C2):
    """L'(alpha) of (VI.42); its root is (VI.39)."""
    return (C1 * (b * np.exp(C1 * alpha) - (Tp - b) * np.exp(-C1 * alpha))
            + C2 * (d * np.exp(C2 * alpha) - (Tm - d) * np.exp(-C2 * alpha)))


def step_loss(alpha, b, d, Tp, Tm, C1, C2):
    """(VI.42) (e^{C1 a} - e^{-C1 a}) b + e^{-C1 a} T+ + ..., summed as (T+ - b) e^{-C1 a} + b e^{C1 a} + ... (no cancellation)."""
    return ((Tp - b) * np.exp(-C1 * alpha) + b * np.exp(C1 * alpha)
            + (Tm - d) * np.exp(-C2 * alpha) + d * np.exp(C2 * alpha))


def solve_steps(b, d, Tp, Tm, C1, C2, alpha_min, alpha_max, tol, max_iter, alpha, loss):
    """Same contract as the kernel (``tol``, ``max_iter`` unused: 200 halvings of [alpha_min, alpha_max])."""
    b, d = np.asarray(b, float), np.asarray(d, float)
    lo, hi = np.full(len(b), float(alpha_min)), np.full(len(b), float(alpha_max))
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        up = loss_derivative(mid, b, d, Tp, Tm, C1, C2) > 0
        hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
    alpha[:] = 0.5 * (lo + hi)
    loss[:] = step_loss(alpha, b, d, Tp, Tm, C1, C2)
    return 0


def _solved(b, d, Tp, Tm, C1, C2, alpha_max, tol, max_iter):
    """The steps and losses of :func:`solve_steps` with alpha_min = 0."""
    alpha, loss = np.empty(len(b)), np.empty(len(b))
    solve_steps(b, d, Tp, Tm, C1, C2, 0.0, alpha_max, tol, max_iter, alpha, loss)
    return alpha, loss


def _newton_bounds(b, d, Tp, Tm, C1, C2, s, q, alpha_max):
    """(L(a1) - L'(a1)^2 / (2 m), L(a1)), a1 one Newton step of L'(alpha) = 0 from -s/q (see the kernel)."""
    a = np.clip(-s / q, 0.0, alpha_max)
    ep, fp = np.exp(C1 * a), np.exp(C2 * a)
    f1 = C1 * (b * ep - (Tp - b) / ep) + C2 * (d * fp - (Tm - d) / fp)
    f2 = C1 * C1 * (b * ep + (Tp - b) / ep) + C2 * C2 * (d * fp + (Tm - d) / fp)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(f2 > 0.0, np.clip(a - f1 / f2, 0.0, alpha_max), a)
    ep, fp = np.exp(C1 * a), np.exp(C2 * a)
    f1 = C1 * (b * ep - (Tp - b) / ep) + C2 * (d * fp - (Tm - d) / fp)
    up = (Tp - b) / ep + b * ep + (Tm - d) / fp + d * fp
    return _convex_bound(b, d, Tp, Tm, C1, C2, up, f1), up


def _convex_bound(b, d, Tp, Tm, C1, C2, L, f1):
    """L(a) - L'(a)^2 / (2 m) from L = L(a), f1 = L'(a) at a step a (m = 2 C1^2 sqrt((T+ - b) b) + 2 C2^2
    sqrt((T- - d) d) <= L''), -inf where m = 0."""
    m = 2.0 * (C1 * C1 * np.sqrt(np.maximum((Tp - b) * b, 0.0)) + C2 * C2 * np.sqrt(np.maximum((Tm - d) * d, 0.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m > 0.0, L - f1 * f1 / (2.0 * m), -np.inf)


def _strongly_convex_bound(b, d, Tp, Tm, C1, C2, a):
    """:func:`_convex_bound` at a step a shared by the candidates."""
    return _convex_bound(b, d, Tp, Tm, C1, C2, step_loss(a, b, d, Tp, Tm, C1, C2),
                         loss_derivative(a, b, d, Tp, Tm, C1, C2))


def ada_losses(b, d, Tp, Tm, C1, C2, alpha_max, slack, tol, max_iter, loss):
    """Same contract as the kernel: its three passes on whole arrays, the candidates solved by :func:`solve_steps`."""
    b, d = np.asarray(b, float), np.asarray(d, float)
    T, c = Tp + Tm, max(C1, C2)
    h, q = 1.0 / c, C1 * C1 * Tp + C2 * C2 * Tm
    M = C1 * C1 * Tp * np.exp(C1 * h) + C2 * C2 * Tm * np.exp(C2 * h)
    s = C1 * (2.0 * b - Tp) + C2 * (2.0 * d - Tm)
    flat = s >= 1e-9 * (C1 * Tp + C2 * Tm)
    loss[flat] = (Tp - b[flat]) + b[flat] + (Tm - d[flat]) + d[flat]
    rest = np.flatnonzero(~flat)
    if len(rest) == 0:
        return 0
    b, d, s = b[rest], d[rest], s[rest]
    x, y = -2.0 * s * c / q, -s * c / q
    lo = np.fmax(2.0 * (np.sqrt(np.maximum((Tp - b) * b, 0.0)) + np.sqrt(np.maximum((Tm - d) * d, 0.0))),
                 np.where(x <= np.log(2.0), T - s * s * (1.0 + x + x * x) / (2.0 * q), -np.inf))
    hi = np.fmin(T - np.where(-s <= M * h, s * s / (2.0 * M), -0.5 * s * h),
                 np.where(y <= 1.0, T - s * s / (2.0 * q) * (1.0 - y - y * y), np.inf))
    exact = np.zeros(len(rest), dtype=bool)

    def solve(where):
        """Solve the candidates ``where``: their losses into lo, and their steps."""
        alpha, lo[where] = _solved(b[where], d[where], Tp, Tm, C1, C2, alpha_max, tol, max_iter)
        exact[where] = True
        return alpha

    jlo, jhi = int(np.argmin(lo)), int(np.argmax(hi))
    alpha = solve([jlo])[0]  # pass 2's shared bound is taken at this step
    best = lo[jlo]
    solve([jhi])
    top = max(loss[flat].max(initial=-np.inf), best, lo[jhi])
    x = top * (1.0 - 1e-9) - 1e-14 * T
    low = np.flatnonzero(~exact & (lo <= best + slack * T))  # pass 2: the bound at alpha, the cosh bound, Newton's
    lo[low] = np.fmax(lo[low], _strongly_convex_bound(b[low], d[low], Tp, Tm, C1, C2, alpha))
    low = low[lo[low] <= best + slack * T]
    gp, gn = np.sqrt(np.maximum((Tp - b[low]) * b[low], 0.0)), np.sqrt(np.maximum((Tm - d[low]) * d[low], 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        u = C1 * 0.5 * np.log((Tm - d[low]) / d[low]) - C2 * 0.5 * np.log((Tp - b[low]) / b[low])
        lo[low] = np.fmax(lo[low], np.where((gp > 0.0) & (gn > 0.0), 2.0 * (gp + gn) + gp * gn * u * u / (
            gp * C1 * C1 + gn * C2 * C2), 2.0 * (gp + gn)))
    near = np.flatnonzero(~exact & ((lo <= best + slack * T) | (hi >= x)))
    if len(near):
        low, up = _newton_bounds(b[near], d[near], Tp, Tm, C1, C2, s[near], q, alpha_max)
        lo[near], hi[near] = np.fmax(lo[near], low), np.fmin(hi[near], up)
        k = int(np.argmin(hi[near]))
        if hi[near[k]] < best:
            solve([near[k]])
            best = min(best, lo[near[k]])
    refined = np.zeros(len(rest), dtype=bool)
    refined[near] = True
    solve(refined & ~exact & ((lo <= best + slack * T) | (hi >= x)))
    loss[rest] = lo
    return int(exact.sum())


def class_sums(w, pos, neg):
    """(w[pos].sum(), w[neg].sum())."""
    return float(w[pos].sum()), float(w[neg].sum())
