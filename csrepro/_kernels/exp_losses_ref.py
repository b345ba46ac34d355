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


def prepare_step(S, uniq, group, z, C, off, family, outer, w, h, A, B, scale, work, with_loss=False):
    """Weights (34)-(37), second derivatives h and grouped line-search terms (``work`` unused).

    Returns the summed loss at S when ``with_loss``, else 0.
    """
    n = S.shape[0]
    idx = np.arange(n)
    v = uniq[group]
    w[:], h[:] = sample_terms(S, np.ones(n), v, z, C, family, outer, 0.0)[1:]
    onehot = np.eye(len(uniq))[group]  # (M, U): term j belongs to group group[j]
    a = S - S[idx, z][:, None] if family == 0 else S
    c = C[z]
    m = np.where(c > 0, a, -np.inf).max(axis=1)
    A[:] = (c * np.exp(a - m[:, None])) @ onehot
    B[:] = 0.0
    if family == 2:
        mb = (-S).max(axis=1)
        B[:] = np.exp(-S - mb[:, None]) @ onehot
        m = m + mb
    scale[:] = np.exp(m) if outer == 0 else np.exp(-m)
    if not with_loss:
        return 0.0
    return line_totals(S, np.zeros(n), v, z, C, family, outer, 0.0)[0]


def add_outer(S, g, v, alpha):
    """In-place update (32) of the scores: S += alpha g v^T."""
    S += alpha * np.outer(g, v)


def _grouped(A, slopes, g, alpha):
    b = g[:, None] * slopes
    e = A * np.exp(alpha * b)
    return e.sum(1), (e * b).sum(1), (e * b * b).sum(1)


def line_derivatives(A, B, scale, uniq, off, g, family, outer, alpha, work):
    """Summed first and second alpha-derivatives along g (31), from the groups."""
    with np.errstate(over="ignore", invalid="ignore"):
        s0, s1, s2 = _grouped(A, uniq[None, :] - off[:, None], g, alpha)
        if family == 2:
            b0, b1, b2 = _grouped(B, -np.broadcast_to(uniq, A.shape), g, alpha)
            s0, s1, s2 = s0 * b0, s1 * b0 + s0 * b1, s2 * b0 + 2 * s1 * b1 + s0 * b2
        if outer == 0:
            return float(np.sum(scale * s1)), float(np.sum(scale * s2))
        p = s0 / (s0 + scale)
        r1 = s1 / s0 * p
        return float(r1.sum()), float(np.sum(s2 / s0 * p - r1 * r1))
