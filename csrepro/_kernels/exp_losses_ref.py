"""NumPy reference of :mod:`csrepro._kernels.exp_losses` (same maths, array at a time)."""

import numpy as np

FAMILIES = {"margin": 0, "plain": 1, "pairwise": 2}
OUTERS = {"identity": 0, "log1p": 1}


def _expsum(A, B, W, alpha):
    """Shift m and moments s_p = sum_j W b^p exp(a + alpha b - m) over the last axis."""
    E = A + alpha * B
    m = np.max(np.where(W > 0, E, -np.inf), axis=1, keepdims=True)
    T = W * np.exp(E - m)
    return m[:, 0], T.sum(1), (T * B).sum(1), (T * B * B).sum(1)


def sample_terms(S, g, v, z, C, family, outer, alpha):
    """Per-sample loss at ``alpha`` and its first two alpha-derivatives, each shape (n,)."""
    n = S.shape[0]
    W = C[z]
    G = g[:, None] * v[None, :]
    if family == 0:
        idx = np.arange(n)
        m, g0, g1, g2 = _expsum(S - S[idx, z][:, None], G - G[idx, z][:, None], W, alpha)
    else:
        m, g0, g1, g2 = _expsum(S, G, W, alpha)
        if family == 2:
            mb, b0, b1, b2 = _expsum(-S, -G, np.ones_like(W), alpha)
            m = m + mb
            g0, g1, g2 = g0 * b0, g1 * b0 + g0 * b1, g2 * b0 + 2 * g1 * b1 + g0 * b2
    if outer == 0:
        em = np.exp(m)
        return em * g0, em * g1, em * g2
    lg = m + np.log(g0)
    p = 1.0 / (1.0 + np.exp(-lg))
    r1 = g1 / g0 * p
    return np.logaddexp(0.0, lg), r1, g2 / g0 * p - r1 * r1


def coordinate_weights(S, v, z, C, family, outer, out):
    """Boosting weights w^r_i, eqs. (34)-(37)."""
    out[:] = sample_terms(S, np.ones(S.shape[0]), v, z, C, family, outer, 0.0)[1]


def line_totals(S, g, v, z, C, family, outer, alpha):
    """Summed loss at ``alpha`` and its first two alpha-derivatives."""
    return tuple(float(t.sum()) for t in sample_terms(S, g, v, z, C, family, outer, alpha))


def line_search(S, g, v, z, C, family, outer, tol=1e-10, max_iter=100, max_step=1e8):
    """Exact line search (31) by safeguarded Newton; same rules as the Cython kernel."""
    with np.errstate(over="ignore", invalid="ignore"):
        _, d1, d2 = line_totals(S, g, v, z, C, family, outer, 0.0)
        if d1 == 0.0:
            return 0.0, 0
        lo, hi = (0.0, np.inf) if d1 < 0 else (-np.inf, 0.0)
        alpha, it = 0.0, 0
        while it < max_iter:
            it += 1
            cand = alpha - d1 / d2 if 0 < d2 < np.inf else alpha - d1
            if not lo < cand < hi:
                if np.isfinite(lo) and np.isfinite(hi):
                    cand = 0.5 * (lo + hi)
                else:
                    cand = 2 * lo + 1 if hi == np.inf else 2 * hi - 1
            cand = float(np.clip(cand, -max_step, max_step))
            step = cand - alpha
            _, n1, n2 = line_totals(S, g, v, z, C, family, outer, cand)
            if not (abs(n1) < np.inf and n2 < np.inf):
                if cand > alpha:
                    hi = cand
                else:
                    lo = cand
                continue
            alpha, d1, d2 = cand, n1, n2
            if d1 < 0:
                lo = alpha
            elif d1 > 0:
                hi = alpha
            else:
                break
            if abs(step) <= tol * (1 + abs(alpha)) or abs(alpha) >= max_step:
                break
        return alpha, it
