"""Learning a partition matrix from out-of-fold probabilities (O'Brien, Gupta & Gray 2008, Sec. 5).

Orientation: as in :mod:`csrepro.decision.rules`, every matrix here is in the project orientation
(``A[j, k]``: predict k, true j); the paper's partition matrix is a = A.T (a_{i|j}: assign i, true j).

Eq. (12): a = argmin_a sum_n c_{g(p(x_n); a)|y_n}, scored with the true cost matrix c, decided by eq. (1)
with a.  Greedy (Sec. 5.1): a starts at c and each free parameter theta is set in turn by an exact search.
Every class's expected cost under a(theta) is affine in theta, so the training cost is piecewise constant in
theta with breakpoints where a sample's assigned class changes; the breakpoints are sorted, the cost changes
swept with a cumulative sum, and theta is put inside the interval of least cost.  Forms (the free parameter
for class i, paper orientation first):

* ``"parallel"`` (Sec. 5, Property 5 + 3): a_{i|j} <- a_{i|j} + beta, a_{j|i} <- a_{j|i} - beta (j != i),
  i.e. a_{i|j} = c_{i|j} + beta_i - beta_j overall; project: column i + beta, row i - beta.  Up to a term
  -beta p_i common to all classes, only class i's expected cost moves (by beta sum_j p_j).
* ``"row"`` (Property 7): row i of a times theta (project column i); only class i's cost moves.
* ``"full"``: the single entry a_{i|j} = theta (project ``A[j, i]``), for all K^2 - K off-diagonal pairs
  (i over ``order``, then j over ``order``); only class i's cost moves.
* ``"column"`` (Property 6): column l of a times theta (project row l); every class's cost moves by
  theta p_l a_{i|l}, so a sample's class follows the lower envelope of K lines (up to K - 1 changes).

The one-line forms have one changepoint per sample (the paper's beta_in: sum_j a_{g^i|j} p_j =
sum_j (a_{i|j} + beta_in) p_j, g^i the best class other than i), found by one argsort and one cumsum, O(N log N)
per parameter; the column form walks each sample's envelope vectorised over samples (K - 1 steps of O(NK)).

The paper's selection rule, as printed in the damaged text: "Re-order the training data by their
changepoints, so that {x_k, y_k} denotes the training point with the kth largest changepoint. Then select
N* = argmin_{N'} sum_{n<=N'} c_{g^i(p(x_n))|y_n} + sum_{n>N'} c_{i|y_n}".  With the changepoint defined as
printed (beta_i < beta_in: sample n goes to class i; beta_i > beta_in: to g^i), a beta_i between the N'-th and
(N'+1)-th largest changepoints assigns class i to the N' samples with the largest changepoints, so the two
sums are swapped in the print.  Used here (:func:`nstar`): descending order, cost(N') = sum_{n<=N'} c_{i|y_n} +
sum_{n>N'} c_{g^i|y_n}, N' = 0..N (the print's range reads "N' = 1, 2, ..., N"; N' = 0, every sample to g^i,
is included), beta_i inside the chosen gap.  :func:`line_search` is the same sweep for any sign of the slope
and is checked against brute force (the cost at every interval midpoint by direct eq. (1)) in the tests.

Choices (not in the paper):

* Ties: the current value is kept when its cost is within ``tol`` of the least (so training cost never
  increases); otherwise the least-cost interval nearest to the current value wins (then the lower one), and
  theta is its midpoint.  Changepoints where a sample's cost does not change are dropped, so a run of
  equal-cost intervals is one interval; an interval with no float strictly inside is skipped.
  ``tol`` = 1e-12 N max|c|.  The accepted matrix's cost is recomputed by eq. (1) and a step that would raise
  it (rounding at a changepoint) is refused, so the guarantee holds exactly.
* Unbounded end interval: its finite end -/+ ``END_MARGIN`` (0.5) times max(spread of the changepoints, unit),
  unit = the mean off-diagonal entry of the initial matrix (parallel, full) or 1 (row, column factors).
* ``bounded=True`` (Property 4: a_{i|i} = 0, a_{i|j} > 0; Property 5's range for a row shift): theta keeps
  every entry it moves >= ``BOUND_MARGIN`` (1e-3) times the mean off-diagonal entry of the initial matrix, or
  >= its current value when that is already lower (a zero entry of c may stay zero).
* The (N, K) @ (K, K) products run with one BLAS thread (threads only contend on so narrow a product).
* Estimators (:class:`PartitionMatrixClassifier`, :class:`LachicheFlachClassifier`, :class:`MossmanClassifier`):
  out-of-fold probabilities from seeded, shuffled ``StratifiedKFold(min(cv, smallest class count))`` (at least
  2 folds), each fold's probabilities laid out over all classes (0 for a class its training part lacked);
  the rule is learned on them and the estimator (default ``GaussianNB()``) refitted on all data.
"""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.costs import check_cost_matrix_for_labels, validate_cost_matrix, zero_one
from csrepro.decision.rules import decide, mossman_rule
from csrepro.threads import one_thread
from csrepro.validation import IntegerInterval, check_targets, classes_and_codes, codes_of

__all__ = ["BOUND_MARGIN", "END_MARGIN", "EXPECTED_FAILED_CHECKS", "FORMS", "LachicheFlachClassifier", "LineSearch",
           "MossmanClassifier", "ORDERS", "PartitionMatrixClassifier", "learn_lf_weights", "learn_mossman_thresholds",
           "learn_partition", "line_search", "nstar", "training_cost", "update_partition"]

FORMS = ("parallel", "column", "row", "full")
ORDERS = ("frequency", "index", "random")
#: bounded search: moved entries stay >= BOUND_MARGIN * mean off-diagonal entry of the initial matrix
BOUND_MARGIN = 1e-3
#: an unbounded end interval is entered by END_MARGIN * max(changepoint spread, unit) beyond its finite end
END_MARGIN = 0.5
#: scikit-learn estimator checks the classifiers here fail by design (``expected_failed_checks`` of
#: ``parametrize_with_checks``; each class's ``_expected_failed_checks``)
EXPECTED_FAILED_CHECKS = {
    "check_classifiers_train": "predict applies the learned partition to predict_proba, so it need not be the "
                               "argmax of predict_proba (scikit-learn marks TunedThresholdClassifierCV alike)",
}


# ----------------------------------------------------------------------------- inputs


def _check_problem(P, y, C):
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] < 1:
        raise ValueError(f"P must be 2-D (n_samples, n_classes) with n_samples >= 1, got shape {P.shape}")
    if not np.all(np.isfinite(P)) or P.min() < 0:
        raise ValueError("P must hold finite, non-negative class-probability estimates")
    C = validate_cost_matrix(C, P.shape[1])
    y = np.asarray(y)
    if y.shape != (P.shape[0],) or not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= P.shape[1]:
        raise ValueError(f"y must hold {P.shape[0]} class indices in 0..{P.shape[1] - 1}")
    return P, y.astype(np.intp), C


def _off_mean(A):
    K = A.shape[0]
    return float(np.abs(A[~np.eye(K, dtype=bool)]).mean())


def _class_order(order, y, K, rng):
    if isinstance(order, str):
        if order == "frequency":
            return np.argsort(-np.bincount(y, minlength=K), kind="stable")
        if order == "index":
            return np.arange(K)
        if order == "random":
            return check_random_state(rng).permutation(K)
        raise ValueError(f"order={order!r} is not valid; use one of {ORDERS} or a permutation of 0..{K - 1}")
    perm = np.asarray(order)
    if perm.shape != (K,) or not np.array_equal(np.sort(perm), np.arange(K)):
        raise ValueError(f"order must be one of {ORDERS} or a permutation of the class indices 0..{K - 1}, "
                         f"got {order!r}")
    return perm.astype(np.intp)


def _parameters(form, order):
    if form == "full":
        return [(j, i) for i in order for j in order if j != i]
    return [int(i) for i in order]


def training_cost(P, y, C, A=None):
    """Mean training cost (1/N) sum_n c_{g(p_n; a)|y_n} (eq. 12 / N): decisions by eq. (1) with the partition
    matrix ``A`` (default ``C``), scored with the cost matrix ``C``; both in project orientation."""
    P, y, C = _check_problem(P, y, C)
    return float(C[y, decide(P, C if A is None else A)].mean())


def _assign(R):
    return np.argmin(R, axis=1)


# ----------------------------------------------------------------------------- one parameter


def update_partition(A, form, index, theta):
    """The partition matrix (project orientation) with one free parameter set to ``theta``.

    ``"parallel"``, class i: column i + theta, row i - theta off the diagonal (paper: a_{i|j} + theta,
    a_{j|i} - theta).  ``"row"``, class i: column i times theta (paper row i).  ``"column"``, class l: row l
    times theta (paper column l).  ``"full"``, index (j, i): ``A[j, i] = theta`` (paper a_{i|j}).
    """
    A = np.array(A, dtype=np.float64)
    if form == "parallel":
        A[:, index] += theta
        A[index, :] -= theta
        A[index, index] = 0.0
    elif form == "row":
        A[:, index] *= theta
    elif form == "column":
        A[index, :] *= theta
    elif form == "full":
        A[index] = theta
    else:
        raise ValueError(f"form={form!r} is not valid; use one of {FORMS}")
    return A


def _theta0(A, form, index):
    return float(A[index]) if form == "full" else (0.0 if form == "parallel" else 1.0)


def _entries(A, form, index):
    """The off-diagonal entries the parameter moves, as u + v theta (arrays u, v)."""
    K = A.shape[0]
    if form == "parallel":
        i = index
        others = np.arange(K) != i
        return np.r_[A[others, i], A[i, others]], np.r_[np.ones(K - 1), -np.ones(K - 1)]
    if form == "row":
        col = np.delete(A[:, index], index)
        return np.zeros(K - 1), col
    if form == "column":
        row = np.delete(A[index, :], index)
        return np.zeros(K - 1), row
    return np.zeros(1), np.ones(1)


def _bounds(A, form, index, floor, theta0):
    """[lower, upper]: every moved entry u + v theta >= min(floor, its current value); contains theta0."""
    if floor is None:
        return -np.inf, np.inf
    u, v = _entries(A, form, index)
    f = np.minimum(floor, u + v * theta0)
    lower, upper = -np.inf, np.inf
    pos, neg = v > 0, v < 0
    if pos.any():
        lower = float(np.max((f[pos] - u[pos]) / v[pos]))
    if neg.any():
        upper = float(np.min((f[neg] - u[neg]) / v[neg]))
    return min(lower, theta0), max(upper, theta0)


def _one_line_events(a, b, R, k, cy):
    """Changepoints of the forms where only class k's expected cost moves, as a + b theta."""
    n = np.arange(len(a))
    others = R.copy()
    others[:, k] = np.inf
    g = np.argmin(others, axis=1)
    m = others[n, g]
    ck, cg = cy[:, k], cy[n, g]
    pos, neg = b > 0, b < 0
    zero = ~(pos | neg)
    stay = (a < m) | ((a == m) & (k < g))  # b == 0: constant assignment, eq. (1) tie rule
    base = ck[pos].sum() + cg[neg].sum() + np.where(stay, ck, cg)[zero].sum()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = (m - a) / np.where(zero, 1.0, b)
    # b > 0: class k below the changepoint, g above; b < 0: the reverse
    return base, np.r_[t[pos], t[neg]], np.r_[(cg - ck)[pos], (ck - cg)[neg]]


def _envelope_events(U, V, cy):
    """Changepoints of the lower envelope of the K lines U[n] + V[n] theta, walked from theta = -inf."""
    N, K = U.shape
    rows = np.arange(N)
    vmax = V.max(axis=1, keepdims=True)
    cur = np.argmin(np.where(V == vmax, U, np.inf), axis=1)  # steepest, then lowest, then lowest index
    base = cy[rows, cur].sum()
    ts, ds = [], []
    active = rows
    for _ in range(K - 1):
        c = cur[active]
        Uc, Vc = U[active, c][:, None], V[active, c][:, None]
        dv = Vc - V[active]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            t = np.where(dv > 0, (U[active] - Uc) / np.where(dv > 0, dv, 1.0), np.inf)
        tmin = t.min(axis=1)
        ok = np.isfinite(tmin)
        if not ok.any():
            break
        # the next line: among those crossing first, the least slope (then the lowest index)
        nxt = np.argmin(np.where(t == tmin[:, None], V[active], np.inf), axis=1)
        act, c, nxt = active[ok], c[ok], nxt[ok]
        ts.append(tmin[ok])
        ds.append(cy[act, nxt] - cy[act, c])
        cur[act] = nxt
        active = act
    if not ts:
        return base, np.empty(0), np.empty(0)
    return base, np.concatenate(ts), np.concatenate(ds)


class LineSearch(NamedTuple):
    """Result of :func:`line_search`; costs are training-cost sums (not means)."""

    theta: float  #: chosen value (== theta0 when kept)
    cost: float  #: cost at theta from the sweep (cost0 when kept)
    theta0: float  #: current value
    cost0: float  #: cost at theta0 (direct eq. (1))
    lower: float  #: admissible range (bounded) or -inf
    upper: float  #: admissible range (bounded) or +inf
    breakpoints: np.ndarray  #: sorted distinct changepoints where the cost changes (M,)
    interval_costs: np.ndarray  #: (M + 1,) costs on (-inf, b_0), (b_0, b_1), ..., (b_{M-1}, +inf)


#: changepoints farther than this many units from 0 are treated as infinitely far (see _sweep)
FAR = 1e12


def _sweep(base, t, d, theta0, cost0, lower, upper, unit, tol):
    # a changepoint beyond FAR x unit (a near-zero slope, down to a division overflow: +-inf) is taken as at +-inf:
    # one at -inf has happened at every theta the search may pick, one at +inf never does; so the end margin below
    # stays finite
    far = FAR * max(unit, 1.0)
    base = base + d[t < -far].sum()
    keep = (d != 0) & (np.abs(t) <= far)
    t, d = t[keep], d[keep]
    order = np.argsort(t)  # equal changepoints are summed below, so the sort need not be stable
    t, d = t[order], d[order]
    if t.size:
        first = np.flatnonzero(np.r_[True, t[1:] != t[:-1]])
        bp, D = t[first], np.add.reduceat(d, first)
    else:
        bp, D = np.empty(0), np.empty(0)
    costs = base + np.r_[0.0, np.cumsum(D)]
    lo, hi = np.maximum(np.r_[-np.inf, bp], lower), np.minimum(np.r_[bp, np.inf], upper)
    with np.errstate(invalid="ignore", over="ignore"):
        mid = 0.5 * (lo + hi)
    valid = (lo < hi) & ~(np.isfinite(mid) & ((mid <= lo) | (mid >= hi)))  # a float strictly inside
    result = dict(theta=theta0, cost=cost0, theta0=theta0, cost0=cost0, lower=lower, upper=upper,
                  breakpoints=bp, interval_costs=costs)
    if not valid.any():
        return LineSearch(**result)
    best = costs[valid].min()
    if cost0 <= best + tol:
        return LineSearch(**result)
    cand = np.flatnonzero(valid & (costs <= best + tol))
    dist = np.maximum(lo[cand] - theta0, 0.0) + np.maximum(theta0 - hi[cand], 0.0)
    j = cand[np.argmin(dist)]
    delta = END_MARGIN * max(float(bp[-1] - bp[0]) if bp.size else 0.0, unit)
    if np.isfinite(lo[j]) and np.isfinite(hi[j]):
        theta = 0.5 * (lo[j] + hi[j])
    elif np.isfinite(hi[j]):
        theta = hi[j] - delta
    elif np.isfinite(lo[j]):
        theta = lo[j] + delta
    else:
        return LineSearch(**result)
    result.update(theta=float(theta), cost=float(costs[j]))
    return LineSearch(**result)


def _search(P, s, cy, A, R, form, index, floor, unit, cost0, tol):
    theta0 = _theta0(A, form, index)
    lower, upper = _bounds(A, form, index, floor, theta0)
    if form == "column":
        ell = index
        V = P[:, [ell]] * A[ell][None, :]
        base, t, d = _envelope_events(R - V * theta0, V, cy)
    else:
        if form == "parallel":
            k, a, b = index, R[:, index], s
        elif form == "row":
            k, a, b = index, np.zeros(len(R)), R[:, index]
        else:
            j, k = index
            b = P[:, j]
            a = R[:, k] - b * A[j, k]
        base, t, d = _one_line_events(a, b, R, k, cy)
    return _sweep(base, t, d, theta0, cost0, lower, upper, unit, tol)


def _tol(C, N):
    return 1e-12 * N * max(float(np.abs(C).max()), 1.0)


def line_search(P, y, C, A, form, index, bounded=True, initial=None):
    """Exact search over one free parameter of the partition matrix ``A`` (project orientation), Sec. 5.1.

    ``index``: a class for ``"parallel"``, ``"row"``, ``"column"``; a (true j, predicted i) pair for
    ``"full"`` (paper a_{i|j}).  Scored with the cost matrix ``C`` (eq. 12).  ``initial``: the matrix whose
    mean off-diagonal entry sets the bound's floor and the end margin's unit (default ``A``).  See the module
    docstring for the tie rule, bounds and margins.
    """
    P, y, C = _check_problem(P, y, C)
    if form not in FORMS:
        raise ValueError(f"form={form!r} is not valid; use one of {FORMS}")
    A = np.asarray(A, dtype=np.float64)
    init = A if initial is None else np.asarray(initial, dtype=np.float64)
    cy = C[y]
    R = P @ A
    cost0 = float(cy[np.arange(len(y)), _assign(R)].sum())
    floor = BOUND_MARGIN * _off_mean(init) if bounded else None
    unit = _off_mean(init) if form in ("parallel", "full") else 1.0
    return _search(P, P.sum(axis=1), cy, A, R, form, index, floor, unit, cost0, _tol(C, len(y)))


def nstar(changepoints, cost_i, cost_other):
    """The paper's N* rule (Sec. 5.1), as reconstructed (module docstring).

    Samples sorted by decreasing changepoint beta_in; cost(N') = sum_{n<=N'} c_{i|y_n} + sum_{n>N'} c_{g^i|y_n}
    for N' = 0..N (beta_i just below the N'-th largest changepoint assigns class i to those N' samples).
    Returns (N*, costs (N + 1,), the sort order); N* is the first minimiser.
    """
    changepoints = np.asarray(changepoints, dtype=np.float64)
    order = np.argsort(-changepoints, kind="stable")
    ci, co = np.asarray(cost_i, float)[order], np.asarray(cost_other, float)[order]
    costs = np.r_[0.0, np.cumsum(ci)] + (co.sum() - np.r_[0.0, np.cumsum(co)])
    return int(np.argmin(costs)), costs, order


# ----------------------------------------------------------------------------- greedy learning


def _greedy(P, y, C, A0, form, order, n_passes, bounded, skip=()):
    cy = C[y]
    rows = np.arange(len(y))
    s = P.sum(axis=1)
    floor = BOUND_MARGIN * _off_mean(A0) if bounded else None
    unit = _off_mean(A0) if form in ("parallel", "full") else 1.0
    tol = _tol(C, len(y))
    N, K = P.shape
    A = A0.copy()
    R = P @ A
    cost = float(cy[rows, _assign(R)].sum())
    initial = cost
    factors = np.zeros(K) if form == "parallel" else np.ones(K)
    per_pass, steps = [], []
    params = [p for p in _parameters(form, order) if p not in skip]
    for _ in range(n_passes):
        for index in params:
            res = _search(P, s, cy, A, R, form, index, floor, unit, cost, tol)
            if res.theta != res.theta0:
                A_new = update_partition(A, form, index, res.theta)
                R_new = P @ A_new
                c_new = float(cy[rows, _assign(R_new)].sum())
                if c_new <= cost:  # guard against rounding at a changepoint: never accept a worse matrix
                    A, R, cost = A_new, R_new, c_new
                    if form == "parallel":
                        factors[index] += res.theta
                    elif form != "full":
                        factors[index] *= res.theta
            steps.append(cost / N)
        per_pass.append(cost / N)
    info = {"form": form, "order": [int(i) for i in order], "bounded": bool(bounded),
            "initial_cost": initial / N, "train_cost": per_pass, "step_costs": steps}
    if form != "full":
        info["beta" if form == "parallel" else "factors"] = factors
    return A, info


def learn_partition(P, y, C, form="parallel", n_passes=1, order="frequency", bounded=True, random_state=None):
    """Greedy eq.-(12) partition matrix (Sec. 5.1): start at a = c, set each free parameter in turn exactly.

    ``P`` (N, K) probability estimates (out-of-fold), ``y`` class indices 0..K-1, ``C`` the project cost matrix
    (validated; c = C.T).  ``form`` in :data:`FORMS`; ``order``: "frequency" (most to least populous, the
    paper's; ties by index), "index", "random" (seeded by ``random_state``) or a permutation of 0..K-1.
    Returns (A, info): A the partition matrix in project orientation (decide with :func:`decide`); info has
    "initial_cost" (mean cost of c itself), "train_cost" (mean training cost after each pass; never above the
    previous), "step_costs", "order", and "beta" (parallel: A = C + beta[None, :] - beta[:, None]) or
    "factors" (row: A = C * factors[None, :]; column: A = C * factors[:, None]).
    """
    P, y, C = _check_problem(P, y, C)
    if form not in FORMS:
        raise ValueError(f"form={form!r} is not valid; use one of {FORMS}")
    if isinstance(n_passes, bool) or not isinstance(n_passes, Integral) or n_passes < 1:
        raise ValueError(f"n_passes must be an int >= 1, got {n_passes!r}")
    order = _class_order(order, y, P.shape[1], random_state)
    with one_thread("blas"):  # (N, K) @ (K, K): threads only contend here
        return _greedy(P, y, C, C, form, order, int(n_passes), bounded)


def learn_lf_weights(P, y, C, n_passes=1, order="frequency", random_state=None):
    """Lachiche & Flach, eqs. (4)-(5): weights w for y = argmax_i w_i p_i minimising the training cost under c.

    Sec. 5: this is a column-multiply of the 0-1 matrix (a_{i|j} = w_j z_{i|j}; project row j times w_j),
    so it runs the column-form exact search started at ``zero_one(K)`` and scored with ``C``.  The weight of the
    first class in ``order`` is fixed at 1 (LF fix w_1 = 1: scaling all weights changes nothing, Property 1);
    the others are set in turn, kept > 0 (bounded).  Returns (w (K,), info) as :func:`learn_partition`.
    """
    P, y, C = _check_problem(P, y, C)
    if isinstance(n_passes, bool) or not isinstance(n_passes, Integral) or n_passes < 1:
        raise ValueError(f"n_passes must be an int >= 1, got {n_passes!r}")
    K = P.shape[1]
    order = _class_order(order, y, K, random_state)
    with one_thread("blas"):
        A, info = _greedy(P, y, C, zero_one(K), "column", order, int(n_passes), True, skip=(int(order[0]),))
    info["partition_matrix"] = A
    return info.pop("factors"), info


def _interior(lo, hi, spread):
    """A threshold t with lo <= t < hi (rules "value <= t"): the midpoint, or lo when no float lies strictly
    between lo and hi (that t gives the same partition of the data); an unbounded end: see END_MARGIN."""
    if np.isfinite(lo) and np.isfinite(hi):
        mid = 0.5 * (lo + hi)
        return mid if lo < mid < hi else lo
    delta = END_MARGIN * max(spread, 1.0)
    return hi - delta if np.isfinite(hi) else lo + delta


def learn_mossman_thresholds(P, y, C, block=256):
    """Thresholds (theta1, theta2) of rule (3) minimising the training cost under ``C``, exactly.

    All candidates: theta1 in each gap between sorted distinct p3 values, theta2 in each gap between distinct
    p2 - p1 values, swept with prefix sums: O(N^2) time (fine for N <= 1e4; samples in blocks of ``block``),
    O(block N) memory.
    Ties: the theta1 gap nearest 1/2, then the theta2 gap nearest 0 (argmax-like references); thresholds
    are gap midpoints (an unbounded end: its finite end -/+ END_MARGIN max(spread, 1)).  ``P`` (N, 3), or
    (N, 2) for the two-class case (p3 = 0, theta1 = 1: a threshold on p2 - p1, Sec. 3.1).
    Returns (theta1, theta2, mean training cost).
    """
    P, y, C = _check_problem(P, y, C)
    N, K = P.shape
    if K not in (2, 3):
        raise ValueError(f"Mossman's rule (3) needs 3 classes (or 2), got {K}")
    cy = C[y]
    c1, c2 = cy[:, 0], cy[:, 1]
    c3 = cy[:, 2] if K == 3 else np.zeros(N)
    s = P[:, 2] if K == 3 else np.zeros(N)
    dv = P[:, 1] - P[:, 0]
    vals, rank = np.unique(dv, return_inverse=True)  # theta2 gap q: d <= vals[q-1] -> class 1
    Q = len(vals)
    q_lo, q_hi = np.r_[-np.inf, vals], np.r_[vals, np.inf]
    q_dist = np.maximum(q_lo, 0.0) + np.maximum(-q_hi, 0.0)
    tol = _tol(C, N)
    by_s = np.argsort(s, kind="stable")
    s_sorted = s[by_s]
    # prefixes (samples with p3 <= theta1) that are theta1 gaps: 0, and after each run of equal p3
    ends = np.r_[0, np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True]) + 1]
    if K == 2:
        ends = np.array([N])
    w = (c1 - c2)[by_s]
    r = rank[by_s]
    c3_suffix = np.r_[np.cumsum(c3[by_s][::-1])[::-1], 0.0]  # sum of c3 over the samples not in the prefix
    c2_prefix = np.r_[0.0, np.cumsum(c2[by_s])]
    h = np.zeros(Q)  # h[q] = sum of (c1 - c2) over the prefix's samples of d-rank q
    end_cost, end_q = np.empty(len(ends)), np.empty(len(ends), dtype=np.intp)
    for done in range(0, N, block):
        upto = min(done + block, N)
        E = np.zeros((upto - done, Q))
        E[np.arange(upto - done), r[done:upto]] = w[done:upto]
        H = np.vstack([h, h + np.cumsum(E, axis=0)])  # prefixes done .. upto
        h = H[-1]
        sel = np.flatnonzero((ends >= done) & ((ends < upto) | (upto == N)))
        if not len(sel):
            continue
        F = np.hstack([np.zeros((len(sel), 1)), np.cumsum(H[ends[sel] - done], axis=1)])  # (., Q + 1)
        total = F + (c3_suffix[ends[sel]] + c2_prefix[ends[sel]])[:, None]
        mins = total.min(axis=1, keepdims=True)
        end_q[sel] = np.argmin(np.where(total <= mins + tol, q_dist[None, :], np.inf), axis=1)
        end_cost[sel] = mins[:, 0]
    lo = np.where(ends > 0, s_sorted[np.maximum(ends - 1, 0)], -np.inf)
    hi = np.where(ends < N, s_sorted[np.minimum(ends, N - 1)], np.inf)
    s_dist = np.maximum(lo - 0.5, 0.0) + np.maximum(0.5 - hi, 0.0)
    e = int(np.argmin(np.where(end_cost <= end_cost.min() + tol, s_dist, np.inf)))
    q = int(end_q[e])
    theta1 = 1.0 if K == 2 else _interior(lo[e], hi[e], float(np.ptp(s)))
    theta2 = _interior(q_lo[q], q_hi[q], float(np.ptp(dv)))
    return float(theta1), float(theta2), float(C[y, _mossman_predict(P, theta1, theta2)].mean())


def _mossman_predict(P, theta1, theta2):
    if P.shape[1] == 2:
        return np.where(P[:, 1] - P[:, 0] <= theta2, 0, 1)
    return mossman_rule(P, theta1, theta2)


# ----------------------------------------------------------------------------- estimators


class _OutOfFoldRule(ClassifierMixin, BaseEstimator):
    """Shared fit: a decision rule learned on out-of-fold probabilities, then the estimator refitted on all data.

    Folds: an int ``cv`` gives seeded, shuffled ``StratifiedKFold(n)`` with n = min(cv, smallest class count),
    at least 2 (a one-member class is then missing from one training part, with a scikit-learn warning); a
    splitter object is used as given and must put every sample in one test part.  Each fold's probabilities
    are laid out over all ``classes_`` (a class the fold's estimator did not see gets probability 0; a training
    part with a single class gives probability 1 to it without fitting).
    """

    _expected_failed_checks = EXPECTED_FAILED_CHECKS

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "cost_matrix": ["array-like", None],
        "cv": [IntegerInterval(2, None, closed="left"), HasMethods(["split", "get_n_splits"])],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def _base_estimator(self):
        return GaussianNB() if self.estimator is None else self.estimator

    def _check_n_classes(self, K):
        pass

    def _proba_columns(self, est, proba):
        if np.array_equal(est.classes_, self.classes_):
            return proba
        out = np.zeros((proba.shape[0], len(self.classes_)))
        out[:, codes_of(self.classes_, est.classes_)] = proba
        return out

    def _out_of_fold(self, X, y, rng):
        base = self._base_estimator()
        if isinstance(self.cv, Integral):
            counts = np.unique(y, return_counts=True)[1]
            if counts.max() < 2:
                raise ValueError(f"{type(self).__name__} needs a class with at least 2 samples for out-of-fold "
                                 "probabilities; every class has one")
            n_splits = max(2, min(int(self.cv), int(counts.min())))
            splits = StratifiedKFold(n_splits, shuffle=True,
                                     random_state=rng.randint(np.iinfo(np.int32).max)).split(X, y)
        else:
            splits = self.cv.split(X, y)
        P = np.zeros((len(y), len(self.classes_)))
        covered = np.zeros(len(y), dtype=int)
        for train, test in splits:
            covered[test] += 1
            present = np.unique(y[train])
            if len(present) == 1:
                P[test, codes_of(self.classes_, present)[0]] = 1.0
                continue
            est = clone(base).fit(X[train], y[train])
            P[test] = self._proba_columns(est, est.predict_proba(X[test]))
        if not np.all(covered == 1):
            raise ValueError("cv must put every training sample in exactly one test part")
        return P

    def _fit_rule(self, X, y):
        """Learn the rule on out-of-fold probabilities of (X, y), then refit the estimator on all of (X, y).  Each
        public subclass's ``fit`` calls it, so that an unsupported argument (e.g. ``sample_weight``) is refused
        under the public estimator's name."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        classes, codes = classes_and_codes(y, self.labels)
        if len(classes) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes; y has 1 class ({classes.tolist()})")
        self.classes_ = classes
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, classes)
        self._check_n_classes(len(classes))
        rng = check_random_state(self.random_state)
        P = self._out_of_fold(X, y, rng)
        self._learn(P, codes, rng)
        estimator = clone(self._base_estimator())
        params = estimator.get_params(deep=False)
        if self.labels is not None and "labels" in params and params["labels"] is None:
            estimator.set_params(labels=classes)
        self.estimator_ = estimator.fit(X, y)
        return self

    def predict_proba(self, X):
        """The refitted estimator's probability estimates (n, K), columns in ``classes_`` order."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._proba_columns(self.estimator_, self.estimator_.predict_proba(X))

    def predict(self, X):
        """The learned rule applied to :meth:`predict_proba`."""
        P = self.predict_proba(X)
        return self.classes_[self._apply_rule(P)]


class PartitionMatrixClassifier(_OutOfFoldRule):
    """O'Brien, Gupta & Gray 2008: eq. (1) with a partition matrix learned by eq. (12) on out-of-fold probabilities.

    ``estimator`` (default ``GaussianNB()``, any classifier with ``predict_proba``) gives probabilities;
    ``cost_matrix`` (project orientation, ``C[j, k]``: predict ``classes_[k]``, true ``classes_[j]``, i.e. rows true,
    columns predicted, in ``classes_`` order; paper c = C.T; None: 0-1) scores
    them.  The partition matrix is learned by :func:`learn_partition` (``form``, ``n_passes``, ``order`` --
    a string or a permutation of class indices into ``classes_`` --, ``bounded``) on out-of-fold
    probabilities: an int ``cv`` gives seeded, shuffled ``StratifiedKFold(n)``, n = min(cv, smallest class
    count) but >= 2 (a one-member class is then absent from one training part: scikit-learn warns); a splitter
    object is used as given.  A fold's probabilities are laid out over all ``classes_`` (0 for a class its
    training part lacked; a single-class training part gives that class probability 1 without fitting).
    The estimator is then refitted on all data, and ``predict`` = argmin_k sum_j p_j A[j, k] (eq. 1) on its
    ``predict_proba``, which is passed through.  ``labels``: all classes, in the order of ``cost_matrix``'s rows
    and columns (kept as given; it is ``classes_``), as for :class:`csrepro.decision.bayes_rule.BayesRuleClassifier`.  Attributes: ``partition_matrix_`` (project
    orientation), ``train_cost_`` (mean out-of-fold training cost after each pass), ``initial_cost_`` (that of
    ``cost_matrix_`` itself), ``estimator_``, ``classes_``, ``cost_matrix_``.
    """

    _parameter_constraints: dict = {
        **_OutOfFoldRule._parameter_constraints,
        "form": [StrOptions(set(FORMS))],
        "n_passes": [IntegerInterval(1, None, closed="left")],
        "order": [StrOptions(set(ORDERS)), "array-like"],
        "bounded": ["boolean"],
    }

    def __init__(self, estimator=None, cost_matrix=None, form="parallel", cv=9, n_passes=1, order="frequency",
                 bounded=True, labels=None, random_state=None):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.form = form
        self.cv = cv
        self.n_passes = n_passes
        self.order = order
        self.bounded = bounded
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Learn the rule on out-of-fold probabilities of (X, y), then refit the estimator on all of (X, y)."""
        return self._fit_rule(X, y)

    def _learn(self, P, y, rng):
        self.partition_matrix_, info = learn_partition(P, y, self.cost_matrix_, form=self.form,
                                                       n_passes=self.n_passes, order=self.order,
                                                       bounded=self.bounded, random_state=rng)
        self.train_cost_ = info["train_cost"]
        self.initial_cost_ = info["initial_cost"]

    def _apply_rule(self, P):
        return decide(P, self.partition_matrix_)


class LachicheFlachClassifier(_OutOfFoldRule):
    """Lachiche & Flach 2003, eqs. (4)-(5): argmax_i w_i p_i, weights learned on out-of-fold probabilities.

    Weights by :func:`learn_lf_weights` (greedy one class at a time, exact search, scored with
    ``cost_matrix``; the first class of ``order`` keeps w = 1).  Folds, ``estimator`` (default
    ``GaussianNB()``), ``cost_matrix`` orientation: as :class:`PartitionMatrixClassifier`.  Attributes:
    ``weights_`` (``classes_`` order), ``partition_matrix_`` (the column-multiplied 0-1 matrix, Sec. 5),
    ``train_cost_``, ``initial_cost_`` (of plain argmax), ``estimator_``, ``classes_``.
    """

    _parameter_constraints: dict = {
        **_OutOfFoldRule._parameter_constraints,
        "n_passes": [IntegerInterval(1, None, closed="left")],
        "order": [StrOptions(set(ORDERS)), "array-like"],
    }

    def __init__(self, estimator=None, cost_matrix=None, cv=9, n_passes=1, order="frequency", labels=None,
                 random_state=None):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.cv = cv
        self.n_passes = n_passes
        self.order = order
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Learn the rule on out-of-fold probabilities of (X, y), then refit the estimator on all of (X, y)."""
        return self._fit_rule(X, y)

    def _learn(self, P, y, rng):
        self.weights_, info = learn_lf_weights(P, y, self.cost_matrix_, n_passes=self.n_passes, order=self.order,
                                               random_state=rng)
        self.partition_matrix_ = info["partition_matrix"]
        self.train_cost_ = info["train_cost"]
        self.initial_cost_ = info["initial_cost"]

    def _apply_rule(self, P):
        return decide(P, self.partition_matrix_)  # = argmax_i w_i p_i (eq. 4)


class MossmanClassifier(_OutOfFoldRule):
    """Mossman 1999, rule (3), with both thresholds learned on out-of-fold probabilities (exact, O(N^2)).

    For 3 classes; the third class of ``classes_`` is the paper's class 3 (thresholded on p3 alone).  Two
    classes are accepted as the rule without class 3 (theta1 = 1: a threshold on p2 - p1, i.e. ROC analysis)
    so that scikit-learn's binary checks run; 4 or more classes raise ``ValueError``.  Thresholds by
    :func:`learn_mossman_thresholds`; folds, ``estimator`` (default ``GaussianNB()``), ``cost_matrix`` as
    :class:`PartitionMatrixClassifier`.  Attributes: ``thresholds_`` (theta1, theta2), ``train_cost_``,
    ``estimator_``, ``classes_``.
    """

    _expected_failed_checks = {
        **EXPECTED_FAILED_CHECKS,
        "check_dtype_object": "its labels have 4 classes; rule (3) is for 3 (ValueError naming the fix)",
    }

    def __init__(self, estimator=None, cost_matrix=None, cv=9, labels=None, random_state=None):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.cv = cv
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Learn the rule on out-of-fold probabilities of (X, y), then refit the estimator on all of (X, y)."""
        return self._fit_rule(X, y)

    def _check_n_classes(self, K):
        if K > 3:
            raise ValueError(f"MossmanClassifier implements Mossman's 3-class rule (3) but there are {K} classes; "
                             "use PartitionMatrixClassifier or LachicheFlachClassifier for K > 3")

    def _learn(self, P, y, rng):
        theta1, theta2, cost = learn_mossman_thresholds(P, y, self.cost_matrix_)
        self.thresholds_ = (theta1, theta2)
        self.train_cost_ = [cost]

    def _apply_rule(self, P):
        return _mossman_predict(P, *self.thresholds_)
