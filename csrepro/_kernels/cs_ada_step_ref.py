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
    """The losses of :func:`solve_steps` with alpha_min = 0."""
    alpha, loss = np.empty(len(b)), np.empty(len(b))
    solve_steps(b, d, Tp, Tm, C1, C2, 0.0, alpha_max, tol, max_iter, alpha, loss)
    return loss


def ada_losses(b, d, Tp, Tm, C1, C2, alpha_max, slack, tol, max_iter, loss):
    """Same contract as the kernel: its three passes on whole arrays, the candidates solved by :func:`solve_steps`."""
    b, d = np.asarray(b, float), np.asarray(d, float)
    T, h = Tp + Tm, 1.0 / max(C1, C2)
    M = C1 * C1 * Tp * np.exp(C1 * h) + C2 * C2 * Tm * np.exp(C2 * h)
    s = C1 * (2.0 * b - Tp) + C2 * (2.0 * d - Tm)
    flat = s >= 1e-9 * (C1 * Tp + C2 * Tm)
    loss[flat] = (Tp - b[flat]) + b[flat] + (Tm - d[flat]) + d[flat]
    rest = np.flatnonzero(~flat)
    if len(rest) == 0:
        return 0
    b, d, s = b[rest], d[rest], s[rest]
    gp, gn = np.sqrt(np.maximum((Tp - b) * b, 0.0)), np.sqrt(np.maximum((Tm - d) * d, 0.0))
    bound = 2.0 * (gp + gn)
    upper = T - np.where(-s <= M * h, s * s / (2.0 * M), -0.5 * s * h)  # >= the loss
    exact = np.zeros(len(rest), dtype=bool)

    def solve(where):
        bound[where] = _solved(b[where], d[where], Tp, Tm, C1, C2, alpha_max, tol, max_iter)
        exact[where] = True
        return bound[where]

    lo, hi = int(np.argmin(bound)), int(np.argmax(upper))
    best = solve([lo])[0]
    top = max(loss[flat].max(initial=-np.inf), best, solve([hi])[0])
    near = np.flatnonzero(~exact & (bound <= best + slack * T))  # pass 2: the bound at a0
    if len(near):
        bn, dn, err = b[near], d[near], b[near] + d[near]
        with np.errstate(divide="ignore", invalid="ignore"):
            a0 = np.where(err <= 0.0, alpha_max, np.where(err >= T, 0.0, np.clip(
                np.log((T - err) / err) / (C1 + C2), 0.0, alpha_max)))
            pr, pw = (Tp - bn) * np.exp(-C1 * a0), bn * np.exp(C1 * a0)
            nr, nw = (Tm - dn) * np.exp(-C2 * a0), dn * np.exp(C2 * a0)
            up = pr + pw + nr + nw
            slope = C1 * (pw - pr) + C2 * (nw - nr)
            den = 4.0 * (C1 * C1 * gp[near] + C2 * C2 * gn[near])
            bound[near] = np.where(den > 0.0, np.fmax(bound[near], up - slope * slope / den), bound[near])
        q = int(np.argmin(up))
        if up[q] < best:
            best = min(best, solve([near[q]])[0])
    solve(~exact & ((bound <= best + slack * T) | (upper >= top * (1.0 - 1e-9) - 1e-14 * T)))
    loss[rest] = bound
    return int(exact.sum())
