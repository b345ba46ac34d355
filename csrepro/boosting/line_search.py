"""Exact line search (Beijbom et al. 2014 eq. 31) on a convex 1-D objective."""

import math


def _step(alpha, d):
    """The next trial point from the derivatives ``d`` = (d1, d2[, d3]) at alpha, and whether it is
    a Newton-type step: Halley's (cubic convergence) when d3 is given and its denominator is
    positive, else Newton's; a plain gradient step when the curvature is not finite and positive.
    """
    d1, d2 = d[0], d[1]
    if not 0.0 < d2 < math.inf:
        return alpha - d1, False
    if len(d) > 2:
        den = 2.0 * d2 * d2 - d1 * d[2]
        if den > 0.0:
            return alpha - 2.0 * d1 * d2 / den, True
    return alpha - d1 / d2, True


def newton_line_search(derivatives, tol=1e-8, max_iter=100, max_step=1e8, start=None):
    """Minimise a convex function of alpha given ``derivatives(alpha) -> (d1, d2)`` or ``(d1, d2, d3)``.

    ``start``: the derivatives at alpha = 0 when the caller already knows them.

    Safeguarded Newton (Halley with a third derivative): steps stay inside a bracket [lo, hi]
    that always holds the root of d1; a step that leaves it, or lands where the derivatives
    overflow, is replaced by bisection; an unbounded bracket end grows geometrically.  Once the
    bracket is finite, a Newton-type step longer than half the step before last is replaced by
    bisection too (the safeguard of Numerical Recipes' rtsafe): far from the minimiser, in an
    exponential tail, Newton steps move by about a constant, and a Halley step with a near-zero
    denominator can land far past the minimiser, so without it the way back could crawl until
    ``max_iter``; with it the bracket at least halves every two evaluations.  Stops
    when a step just taken, or the next Newton-type step (then alpha is within about that
    step of the minimiser and the step is not taken), is below ``tol * (1 + |alpha|)``.  With
    a third derivative it also stops at the next Newton-type step delta itself, without
    evaluating there, once that point's Newton error estimate |d3 / (2 d2)| delta^2 is below
    ``tol * (1 + |alpha|)`` and |delta| below ``sqrt(tol) (1 + |alpha|)`` (Halley's error is
    smaller still): the evaluation that would only confirm convergence is skipped.  So the
    returned alpha is the last point evaluated or a step from it, unless a later trial
    overflowed.  |alpha| is capped at ``max_step``; where the objective keeps decreasing (e.g.
    separable data) the Newton-type steps in its exponential tail move by about a constant, so
    ``max_iter`` usually ends the search first.  Returns ``(alpha, evaluations)``.
    """
    d = derivatives(0.0) if start is None else start
    if d[0] == 0.0:
        return 0.0, 0
    lo, hi = (0.0, math.inf) if d[0] < 0.0 else (-math.inf, 0.0)
    alpha = 0.0
    last = before_last = math.inf  # lengths of the last two steps taken
    for it in range(1, max_iter + 1):
        cand, newton = _step(alpha, d)
        if newton and lo < cand < hi:
            delta, bound = abs(cand - alpha), tol * (1.0 + abs(alpha))
            if delta <= bound:
                return alpha, it - 1
            if len(d) > 2 and delta * delta <= bound * bound / tol:  # |delta| <= sqrt(tol) (1 + |alpha|)
                newton_error = abs(d[2]) / (2.0 * d[1]) * delta * delta  # of cand, a Newton step from alpha
                if newton_error <= bound:
                    return cand, it - 1
        finite = math.isfinite(lo) and math.isfinite(hi)
        if not lo < cand < hi or (finite and 2.0 * abs(cand - alpha) > before_last):
            if finite:
                cand = 0.5 * (lo + hi)
            else:
                cand = 2.0 * lo + 1.0 if hi == math.inf else 2.0 * hi - 1.0
        cand = min(max(cand, -max_step), max_step)
        step = cand - alpha
        trial = derivatives(cand)
        if not (abs(trial[0]) < math.inf and trial[1] < math.inf):
            if cand > alpha:  # overflow: the minimiser lies between alpha and cand
                hi = cand
            else:
                lo = cand
            continue
        before_last, last = last, abs(step)
        alpha, d = cand, trial
        if d[0] < 0.0:
            lo = alpha
        elif d[0] > 0.0:
            hi = alpha
        else:
            return alpha, it
        if abs(step) <= tol * (1.0 + abs(alpha)) or abs(alpha) >= max_step:
            return alpha, it
    return alpha, max_iter
