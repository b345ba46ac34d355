"""Comparing methods against a fixed reference over problems that share their splits (issue 30).

The setting: ``values[p, m, t]`` is the test cost (lower is better) of method m on split t of problem p; problems
are grouped into *units* (datasets) whose problems use the same splits (trial t of every problem of a unit is the
same train / test split), so neither the problems of a unit nor its splits are independent.  What no library does
is here, in NumPy / SciPy; the Friedman test and the Nemenyi critical difference are autorank's.

* :func:`geometric_cost_ratio`: geometric mean over problems of (method cost / reference cost), zero costs floored
  at :data:`COST_FLOOR`;
* :func:`hierarchical_bootstrap`: a statistic's bootstrap distribution, resampling units, then splits within each
  drawn unit (the same split draw for every problem and method of that unit);
* :func:`corrected_resampled_ttest` and :func:`win_tie_loss`: Nadeau & Bengio's (2003) corrected resampled t-test
  of paired differences over overlapping training sets, and the win / tie / loss it implies.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats

__all__ = ["COST_FLOOR", "corrected_resampled_ttest", "geometric_cost_ratio", "hierarchical_bootstrap",
           "win_tie_loss"]

#: A mean cost below this counts as this in a cost ratio, so that a problem a method (or the reference) solves
#: perfectly gives a finite ratio (two perfect methods: ratio 1).  In the problem's cost units: the leaderboard's
#: costs are per test example with off-diagonal costs of order 1 (0-1 costs: the error rate), where one mistake
#: among a few hundred test rows costs about 1e-3 to 1e-2; the least nonzero mean cost of the v1 store is 0.008.
COST_FLOOR = 1e-4


def _cube(values) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 3 or x.size == 0 or not np.isfinite(x).all():
        raise ValueError(f"values must be a non-empty (problems, methods, splits) array of finite costs, got shape "
                         f"{x.shape}{'' if x.ndim != 3 or np.isfinite(x).all() else ' with NaN or inf'}; "
                         "keep only the problems where every method has every split")
    return x


def geometric_cost_ratio(means, reference: int, floor: float = COST_FLOOR) -> np.ndarray:
    """Geometric mean over problems of ``max(c_pm, floor) / max(c_pr, floor)``: ``means`` (..., problems, methods)
    mean costs, ``reference`` the column of the reference method r; returns (..., methods), the reference's 1.

    It depends only on the method and the reference, not on which other methods are in ``means``; a ratio of 1.2
    means 20 % costlier than the reference on a typical problem.  Costs below ``floor`` count as ``floor``
    (:data:`COST_FLOOR`)."""
    c = np.maximum(np.asarray(means, dtype=np.float64), floor)
    if c.ndim < 2 or c.shape[-2] == 0 or np.isnan(c).any():
        raise ValueError(f"means must be (..., problems, methods) with at least one problem and no NaN, "
                         f"got shape {c.shape}")
    return np.exp(np.log(c / c[..., [reference]]).mean(axis=-2))


def hierarchical_bootstrap(values, units, statistic: Callable[[np.ndarray], np.ndarray], n_boot: int = 2000,
                           random_state=0) -> np.ndarray:
    """Two-stage bootstrap distribution of ``statistic`` over units, then splits.

    ``values`` (P, M, T): costs of method m on split t of problem p; ``units`` (P,): the unit (dataset) of each
    problem, whose problems share their T splits.  Each replicate draws U units with replacement (U: the number of
    distinct units), then for each drawn unit T split indices with replacement -- one draw shared by the unit's
    problems and by every method, so comparisons stay paired -- and takes each method's mean cost over the drawn
    splits on every problem of the unit.  A unit drawn twice contributes its problems twice, each time with its own
    split draw.  ``statistic`` maps those means, (n_problem_draws, M), to an array; returns the replicates
    stacked, (n_boot, ...)."""
    x = _cube(values)
    units = np.asarray(units)
    if units.shape != (x.shape[0],):
        raise ValueError(f"units must give one unit per problem ({x.shape[0]}), got shape {units.shape}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot!r}")
    members = [np.flatnonzero(units == u) for u in np.unique(units)]
    n_splits = x.shape[2]
    rng = np.random.default_rng(random_state)
    out = []
    for _ in range(n_boot):
        drawn = rng.integers(0, len(members), size=len(members))
        splits = rng.integers(0, n_splits, size=(len(members), n_splits))
        problems = np.concatenate([members[u] for u in drawn])
        rows = np.repeat(splits, [len(members[u]) for u in drawn], axis=0)  # each problem draw's split indices
        picked = np.take_along_axis(x[problems], rows[:, None, :], axis=2)  # (n_problem_draws, M, T)
        out.append(np.asarray(statistic(picked.mean(axis=2))))
    return np.stack(out)


def corrected_resampled_ttest(differences, test_train_ratio, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """Nadeau & Bengio's (2003) corrected resampled t-test of paired differences, two-sided.

    ``differences`` holds, along ``axis``, the J differences d_j (e.g. method minus reference test cost) on J
    random train / test splits of one problem; ``test_train_ratio`` is n_test / n_train of those splits
    (broadcast against the other axes).  The splits' training sets overlap, so the variance of the mean
    difference is estimated by (1/J + n_test/n_train) s^2 instead of s^2 / J (s^2: the sample variance, ddof=1):
    t = mean(d) / sqrt((1/J + n_test/n_train) s^2), compared with Student's t with J - 1 degrees of freedom.
    Returns (t, p).  With s^2 = 0, t is 0 (p = 1) when mean(d) = 0 and +-inf (p = 0) otherwise."""
    d = np.moveaxis(np.asarray(differences, dtype=np.float64), axis, -1)
    j = d.shape[-1]
    ratio = np.asarray(test_train_ratio, dtype=np.float64)
    if j < 2 or not np.isfinite(d).all():
        raise ValueError(f"need at least 2 finite differences per test along axis {axis}, got {j}")
    if (ratio < 0).any() or not np.isfinite(ratio).all():
        raise ValueError(f"test_train_ratio must be finite and >= 0, got {ratio}")
    mean = d.mean(axis=-1)
    scale = np.sqrt((1.0 / j + ratio) * d.var(axis=-1, ddof=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(scale > 0, mean / np.where(scale > 0, scale, 1.0), np.sign(mean) * np.inf)
    t = np.where((scale == 0) & (mean == 0), 0.0, t)
    return t, 2.0 * stats.t.sf(np.abs(t), df=j - 1)


def win_tie_loss(differences, test_train_ratio, alpha: float = 0.05, axis: int = -1) -> np.ndarray:
    """Per test of :func:`corrected_resampled_ttest` on ``differences`` = method minus reference costs (lower is
    better): 1 (win: p < ``alpha`` and the method cheaper on average), -1 (loss: p < ``alpha``, costlier) or
    0 (tie)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    t, p = corrected_resampled_ttest(differences, test_train_ratio, axis=axis)
    return np.where(p < alpha, -np.sign(t), 0).astype(int)
