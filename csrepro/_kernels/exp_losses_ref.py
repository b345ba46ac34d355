"""NumPy reference of :mod:`csrepro._kernels.exp_losses` (same maths, array at a time)."""

import numpy as np

FAMILIES = {"margin": 0, "plain": 1, "pairwise": 2}
OUTERS = {"identity": 0, "log1p": 1}


def _moments(A, B, alpha):
    """Shift m and moments s_p = sum_j A e^{alpha b} b^p / e^m over the last axis (A = log-weights)."""
    E = A + alpha * B
    m = np.max(E, axis=1, keepdims=True)
    T = np.exp(E - m)
    return m[:, 0], T.sum(1), (T * B).sum(1), (T * B * B).sum(1)


def sample_terms(S, g, v, z, C, family, outer, alpha):
    """Per-sample loss at ``alpha`` along S + alpha g v^T and its first two alpha-derivatives."""
    idx = np.arange(S.shape[0])
    with np.errstate(divide="ignore"):
        logc = np.log(C[z])  # -inf drops zero-cost terms
    G = g[:, None] * v[None, :]
    if family == 0:
        m, g0, g1, g2 = _moments(logc + S - S[idx, z][:, None], G - G[idx, z][:, None], alpha)
    else:
        m, g0, g1, g2 = _moments(logc + S, G, alpha)
        if family == 2:
            mb, b0, b1, b2 = _moments(-S, -G, alpha)
            m = m + mb
            g0, g1, g2 = g0 * b0, g1 * b0 + g0 * b1, g2 * b0 + 2 * g1 * b1 + g0 * b2
    if outer == 0:
        em = np.exp(m)
        return em * g0, em * g1, em * g2
    lg = m + np.log(g0)
    p = 1.0 / (1.0 + np.exp(-lg))
    r1 = g1 / g0 * p
    return np.logaddexp(0.0, lg), r1, g2 / g0 * p - r1 * r1


def line_totals(S, g, v, z, C, family, outer, alpha):
    """Summed loss at ``alpha`` and its first two alpha-derivatives."""
    return tuple(float(t.sum()) for t in sample_terms(S, g, v, z, C, family, outer, alpha))


TINY = np.exp(-700.0)


def _normalise(T, floor):
    """Rows of T scaled to a largest entry of 1 and floored at ``floor``; returns (T, divisors)."""
    rho = np.maximum(T.max(axis=1), TINY)
    return np.maximum(T / rho[:, None], floor), rho


def _fold(scale, rho, outer):
    return scale * rho if outer == 0 else scale / rho


def load_state(S, z, C, family, outer, P, Q, scale):
    """The state of the loss terms at scores S (see the kernel's module docstring)."""
    c = C[z]
    a = S - S[np.arange(len(z)), z][:, None] if family == 0 else S
    m = np.where(c > 0, a, -np.inf).max(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        P[:], rho = _normalise(np.where(c > 0, c * np.exp(np.maximum(a - m[:, None], -700.0)), 0.0),
                               TINY * c)
        if family == 2:
            mb = (-S).max(axis=1)
            Q[:], rho_b = _normalise(np.exp(np.maximum(-S - mb[:, None], -700.0)), TINY)
            m, rho = m + mb, rho * rho_b
        scale[:] = _fold(np.exp(m) if outer == 0 else np.exp(-m), rho, outer)


def apply_step(P, Q, scale, z, C, factors, group, family, outer, rows=None):
    """Update (32) of the state: each term times its group's factor (see :func:`line_factors`;
    with ``rows``, sample i's factors are row ``rows[i]``)."""
    nu = factors.shape[1] // 2 if family == 2 else factors.shape[1]
    factors = factors if rows is None else factors[rows]
    P[:], rho = _normalise(P * factors[:, group], TINY * C[z])
    if family == 2:
        Q[:], rho_b = _normalise(Q * factors[:, nu + group], TINY)
        rho = rho * rho_b
    scale[:] = _fold(scale, rho, outer)


def prepare_step(P, Q, scale, order, starts, uniq, off, family, outer, wh, A, B, with_loss=False):
    """Weights (34)-(37) with the next two derivatives (``wh``; only the weights if it has one row)
    and grouped line-search terms from the state.

    Returns the summed loss when ``with_loss``, else 0.
    """
    n, nu = P.shape[0], len(uniq)
    group = np.repeat(np.arange(nu), np.diff(starts))[np.argsort(order)]
    onehot = np.eye(nu)[group]  # (M, U): term j belongs to group group[j]
    A[:] = P @ onehot
    B[:] = Q @ onehot if family == 2 else 0.0
    ones = np.ones((n, nu))
    wh[:] = np.stack(_sample_derivatives(A, B, ones, ones, uniq, off, np.ones(n), scale, family, outer)[:len(wh)])
    if not with_loss:
        return 0.0
    s0 = A.sum(1) * (B.sum(1) if family == 2 else 1.0)
    return float(np.sum(scale * s0) if outer == 0 else np.sum(np.log1p(s0 / scale)))


def line_factors(uniq, off, g, family, alpha, work):
    """Each group's factor along g at ``alpha`` (exp(alpha g (uniq - off)), pairwise: also exp(-alpha g uniq))."""
    nu = len(uniq)
    ag = alpha * g[:, None]
    with np.errstate(over="ignore"):
        work[:, :nu] = np.exp(np.maximum(ag * (uniq[None, :] - off[:, None]), -700.0))
        if family == 2:
            work[:, nu:] = np.exp(np.maximum(-ag * uniq[None, :], -700.0))


def _grouped(A, X, b):
    e = A * X
    return [(e * b**p).sum(1) for p in range(4)]


def _sample_derivatives(A, B, XA, XB, uniq, off, g, scale, family, outer):
    """Per-sample first three alpha-derivatives from the groups and their factors."""
    with np.errstate(over="ignore", invalid="ignore"):
        s0, s1, s2, s3 = _grouped(A, XA, g[:, None] * (uniq[None, :] - off[:, None]))
        if family == 2:
            b0, b1, b2, b3 = _grouped(B, XB, -g[:, None] * uniq[None, :])
            s0, s1, s2, s3 = (s0 * b0, s1 * b0 + s0 * b1, s2 * b0 + 2 * s1 * b1 + s0 * b2,
                              s3 * b0 + 3 * (s2 * b1 + s1 * b2) + s0 * b3)
        if outer == 0:
            return scale * s1, scale * s2, scale * s3
        r1, r2, r3 = s1 / (s0 + scale), s2 / (s0 + scale), s3 / (s0 + scale)
        return r1, r2 - r1 * r1, r3 - 3 * r1 * r2 + 2 * r1**3


def line_derivatives(A, B, scale, uniq, off, g, family, outer, alpha, work, rows=None, row_g=None, row_off=None):
    """Summed first three alpha-derivatives along g (31); leaves the factors in ``work``
    (with ``rows``: computed per cell from ``row_g``, ``row_off``; sample i reads row ``rows[i]``)."""
    nu = len(uniq)
    if rows is None:
        line_factors(uniq, off, g, family, alpha, work)
        X = work
    else:
        line_factors(uniq, row_off, row_g, family, alpha, work)
        X = work[rows]
    d = _sample_derivatives(A, B, X[:, :nu], X[:, nu:2 * nu] if family == 2 else None,
                            uniq, off, g, scale, family, outer)
    return tuple(float(np.sum(t)) for t in d)


def aggregate_cells(A, B, scale, rows, family, out):
    """Per-cell sums of scale_i A[i, u] (pairwise: of scale_i A[i, u] B[i, k], column u U + k)."""
    W = scale[:, None] * A
    if family == 2:
        W = (W[:, :, None] * B[:, None, :]).reshape(len(A), -1)
    out[:] = 0.0
    np.add.at(out, rows, W)


def line_start(x, a, b, wh, g):
    """Fill ``g`` with a x + b; return sum_i wh[p, i] g_i^(p+1), the line's derivatives at 0."""
    g[:] = a * x + b
    return tuple(float(np.sum(wh[p] * g ** (p + 1))) for p in range(3))
