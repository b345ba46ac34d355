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
