"""NumPy references of :mod:`csrepro._kernels.smo`.

``smo_solve`` and ``loo_decision_values`` are the same algorithms written with NumPy (identical
arithmetic, for tests and benchmarks).  ``primal_intercept`` finds b from the primal for fixed
alpha, without the KKT rule (the tests' duality-gap certificate uses it).
"""

import numpy as np

TAU = 1e-12


def _sets(y, alpha, upper):
    up = np.where(y > 0, alpha < upper, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < upper)
    return up, low


def _extremes(y, alpha, upper, G):
    up, low = _sets(y, alpha, upper)
    v = -y * G
    i = int(np.argmax(np.where(up, v, -np.inf))) if up.any() else -1
    m = v[i] if i >= 0 else -np.inf
    M = v[low].min() if low.any() else np.inf
    return i, m, M, low, v


def smo_solve(K, y, p, upper, alpha, G, tol, max_iter):
    """Same contract as :func:`csrepro._kernels.smo.smo_solve` (``alpha``, ``G`` updated in place)."""
    it = 0
    while True:
        i, m, M, low, v = _extremes(y, alpha, upper, G)
        if i < 0 or m - M < tol or it >= max_iter:
            break
        cand = low & (v < m)
        if not cand.any():
            break
        a = K[i, i] + np.diag(K) - 2.0 * K[i]
        a = np.where(a <= 0.0, TAU, a)
        score = np.where(cand, (m - v) ** 2 / a, 0.0)
        j = int(np.argmax(score))
        lim_i = upper[i] - alpha[i] if y[i] > 0 else alpha[i]
        lim_j = alpha[j] if y[j] > 0 else upper[j] - alpha[j]
        delta = min((m - v[j]) / a[j], lim_i, lim_j)
        alpha[i] += y[i] * delta
        alpha[j] -= y[j] * delta
        if delta == lim_i:
            alpha[i] = upper[i] if y[i] > 0 else 0.0
        if delta == lim_j:
            alpha[j] = 0.0 if y[j] > 0 else upper[j]
        G += delta * y * (K[i] - K[j])
        it += 1
    free = (alpha > 0) & (alpha < upper)
    if free.any():
        b = float(np.mean(-y[free] * G[free]))
    elif i < 0:
        b = M
    elif M == np.inf:
        b = m
    else:
        b = 0.5 * (m + M)
    return it, b, m - M


def _move(K, y, alpha, G, s, delta):
    alpha[s] += delta
    G += delta * y * y[s] * K[s]


def _reassign(K, y, upper, alpha, G, i, rest, same):
    while rest > 0.0:
        room = upper - alpha if same else alpha.copy()
        cand = ((y == y[i]) == same) & (room > 0.0)
        if not cand.any():
            break
        s = int(np.argmax(np.where(cand, K[i], -np.inf)))
        if room[s] >= rest:
            _move(K, y, alpha, G, s, rest if same else -rest)
            rest = 0.0
        else:
            _move(K, y, alpha, G, s, room[s] if same else -room[s])
            alpha[s] = upper[s] if same else 0.0
            rest -= room[s]
    return rest


def loo_decision_values(K, y, p, upper, alpha, G, b, tol, max_iter):
    """Same contract as :func:`csrepro._kernels.smo.loo_decision_values`."""
    values = y * (G + p) + b
    total, worst = 0, -np.inf
    for i in np.flatnonzero(alpha != 0.0):
        a, g, u = alpha.copy(), G.copy(), upper.copy()
        u[i] = 0.0
        _move(K, y, a, g, i, -alpha[i])
        a[i] = 0.0
        rest = _reassign(K, y, u, a, g, i, alpha[i], True)
        _reassign(K, y, u, a, g, i, rest, False)
        it, bi, gap = smo_solve(K, y, p, u, a, g, tol, max_iter)
        total += it
        worst = max(worst, gap)
        values[i] = y[i] * (g[i] + p[i]) + bi
    return values, total, worst


def primal_intercept(g, y, p, upper):
    """b minimising sum_i U_i [p_i - y_i (g_i + b)]_+ for fixed g_i = sum_j alpha_j y_j K_ij.

    The sum is convex and piecewise linear in b with kinks at b = y_i p_i - g_i; the midpoint
    of the minimising kinks is returned (the minimiser is unique unless the sum is flat there).
    """
    kinks = y * p - g
    cost = np.array([upper @ np.maximum(0.0, p - y * (g + b)) for b in kinks])
    best = kinks[cost <= cost.min() * (1 + 1e-12) + 1e-15]
    return 0.5 * (best.min() + best.max())
