"""Exact line search (Beijbom et al. 2014 eq. 31) on a convex 1-D objective."""

import math


def newton_line_search(derivatives, tol=1e-8, max_iter=100, max_step=1e8, start=None):
    """Minimise a convex function of alpha given ``derivatives(alpha) -> (d1, d2)``.

    ``start``: the derivatives at alpha = 0 when the caller already knows them.

    Safeguarded Newton: steps stay inside a bracket [lo, hi] that always holds the root of
    d1; a step that leaves it, or lands where the derivatives overflow, is replaced by
    bisection; an unbounded bracket end grows geometrically.  Stops when the step is
    below ``tol * (1 + |alpha|)``.  |alpha| is capped at ``max_step``, reached only when the
    objective keeps decreasing (e.g. separable data).  Returns ``(alpha, n_iter)``.
    """
    d1, d2 = derivatives(0.0) if start is None else start
    if d1 == 0.0:
        return 0.0, 0
    lo, hi = (0.0, math.inf) if d1 < 0.0 else (-math.inf, 0.0)
    alpha = 0.0
    for it in range(1, max_iter + 1):
        cand = alpha - d1 / d2 if 0.0 < d2 < math.inf else alpha - d1
        if not lo < cand < hi:
            if math.isfinite(lo) and math.isfinite(hi):
                cand = 0.5 * (lo + hi)
            else:
                cand = 2.0 * lo + 1.0 if hi == math.inf else 2.0 * hi - 1.0
        cand = min(max(cand, -max_step), max_step)
        step = cand - alpha
        n1, n2 = derivatives(cand)
        if not (abs(n1) < math.inf and n2 < math.inf):
            if cand > alpha:  # overflow: the minimiser lies between alpha and cand
                hi = cand
            else:
                lo = cand
            continue
        alpha, d1, d2 = cand, n1, n2
        if d1 < 0.0:
            lo = alpha
        elif d1 > 0.0:
            hi = alpha
        else:
            return alpha, it
        if abs(step) <= tol * (1.0 + abs(alpha)) or abs(alpha) >= max_step:
            return alpha, it
    return alpha, max_iter
