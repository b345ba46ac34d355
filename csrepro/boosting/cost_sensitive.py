"""Cost-sensitive AdaBoost, RealBoost and LogitBoost (Masnadi-Shirazi & Vasconcelos, PAMI 2011; thesis Ch. VI).

Costs: ``C1`` for a miss (a ``classes_[1]`` example predicted ``classes_[0]``) and ``C2`` for a
false positive (VI.2), or a 2x2 ``cost_matrix`` (C1 = C[1, 0], C2 = C[0, 1]); a cost given both ways
must agree with the matrix, else fit raises a ValueError (:func:`resolve_binary_costs`).  Each booster minimises a cost-sensitive loss whose minimiser is the
asymmetric logistic transform (VI.35), f = 1/(C1 + C2) log(P(1|x) C1 / (P(-1|x) C2)), so sign f
is the Bayes decision for the costs.  ``posterior(X)`` inverts (VI.35) (= p_c of (VI.34)), the
estimate of P(y = 1 | x); ``predict_proba`` is the cost-weighted posterior
P C1 / (P C1 + (1 - P) C2) = 1/(1 + e^{-(C1 + C2) f}), whose argmax is ``predict`` (scikit-learn's
contract) and which is P itself when C1 = C2.
With C1 = C2 = 1 (and ``class_balanced=False`` for Ada/Real) each is exactly its parent of
:mod:`csrepro.boosting.binary`.  The maths lives in :mod:`csrepro.boosting.cost_sensitive_steps`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from csrepro.boosting import cost_sensitive_steps as steps
from csrepro.boosting.binary import (
    ROW_SMOOTHING,
    AdaBoostClassifier,
    LogitBoostClassifier,
    _BinaryBoost,
    _weak_learners,
)
from csrepro.costs import validate_cost_matrix
from csrepro.weak.criteria import (
    LeastSquares,
    class_channels,
    error_criterion,
    posterior_cells,
    wls_channels,
)

__all__ = ["CSAdaBoostClassifier", "CSLogitBoostClassifier", "CSRealBoostClassifier", "resolve_binary_costs"]


def resolve_binary_costs(C1, C2, cost_matrix) -> tuple[float, float]:
    """(C1, C2) from ``C1``/``C2`` or from a 2x2 ``cost_matrix`` (C1 = C[1, 0], the miss; C2 = C[0, 1], the
    false positive; rows = true class, columns = predicted class, both in sorted label order = ``classes_``); a
    cost given by neither is 1.

    A cost given both ways must equal the matrix entry: otherwise a ValueError names both values.
    """
    given = steps.check_costs(1.0 if C1 is None else C1, 1.0 if C2 is None else C2)
    if cost_matrix is None:
        return given
    C = validate_cost_matrix(cost_matrix, 2)
    for name, value, where, entry in (("C1", C1, "C[1, 0]", C[1, 0]), ("C2", C2, "C[0, 1]", C[0, 1])):
        if value is not None and float(value) != entry:
            raise ValueError(f"{name}={float(value)!r} conflicts with cost_matrix {where}={float(entry)!r}; give the "
                             "costs one way: drop C1 and C2, or drop cost_matrix")
    return steps.check_costs(C[1, 0], C[0, 1])


class _BinaryCostBoost(_BinaryBoost):
    """Base of the binary boosters with costs: ``C1`` (miss) and ``C2`` (false positive), or a 2x2 ``cost_matrix``
    (:func:`resolve_binary_costs`); ``costs_`` at fit."""

    _parameter_constraints: dict = {**_BinaryBoost._parameter_constraints,
                                    "C1": [Interval(Real, 0, None, closed="neither"), None],
                                    "C2": [Interval(Real, 0, None, closed="neither"), None],
                                    "cost_matrix": ["array-like", None]}

    def __init__(self, C1=None, C2=None, n_estimators=100, weak_learner="stump", max_bins=None, hist_bins=16,
                 smoothing=1.0, cost_matrix=None, random_state=None):
        super().__init__(n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, random_state=random_state)
        self.C1 = C1
        self.C2 = C2
        self.cost_matrix = cost_matrix

    def _check_params(self):
        self.costs_ = resolve_binary_costs(self.C1, self.C2, self.cost_matrix)
        return super()._check_params()


class _CostSensitive(_BinaryCostBoost):
    """Shared by the three: posterior p_c of (VI.34)."""

    def _inverse_link(self, F):
        return 0.5 * (1.0 + np.tanh(0.5 * (self.costs_[0] + self.costs_[1]) * F))

    def posterior(self, X):
        """P(y = classes_[1] | x) estimated by inverting (VI.35): p_c(F(x)) of (VI.34)."""
        return steps.asymmetric_inverse_link(self.decision_function(X), *self.costs_)


class _ExponentialCS(_CostSensitive):
    """CS-Ada and CS-Real: the loss (VI.32), class-balanced initial weights (Algs. 4-5), update (VI.38)/(VI.45)."""

    _parameter_constraints: dict = {**_BinaryCostBoost._parameter_constraints, "class_balanced": ["boolean"]}

    def __init__(self, C1=None, C2=None, n_estimators=100, weak_learner="stump", max_bins=None, hist_bins=16,
                 smoothing=1.0, class_balanced=True, cost_matrix=None, random_state=None):
        super().__init__(C1=C1, C2=C2, n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, cost_matrix=cost_matrix,
                         random_state=random_state)
        self.class_balanced = class_balanced

    def _init_state(self, y, sw=None):
        state = super()._init_state(y, sw)
        if self.class_balanced:
            state.w = steps.class_balanced_weights(y, sw)
        pos = y > 0  # made once per fit: the rows of each class, the update's exponent per unit step
        state.info["rows"] = np.flatnonzero(pos), np.flatnonzero(~pos)
        state.info["rates"] = steps.exp_rates(y, *self.costs_)
        return state

    def _update(self, state, g):
        # (VI.38) / (VI.45)
        state.w = steps.exp_weight_update(state.w, state.y, g, *self.costs_, rates=state.info["rates"])
        state.w /= state.w.sum()


class CSAdaBoostClassifier(_ExponentialCS):
    """Cost-sensitive AdaBoost (thesis Algorithm 4, Theorem 46).

    Start from class-balanced weights (1/(2|I+|), 1/(2|I-|)); at each iteration every binary
    weak learner g ("stump" or "tree4"; for trees (VI.42) is also the split criterion) gets the
    step alpha(g) solving (VI.39) (Cython kernel, all candidates at once) and is scored by the
    loss (VI.42) (:func:`~csrepro.boosting.cost_sensitive_steps.ada_losses`: solved only where it can
    decide the choice); the best (alpha_m, g_m) is added and the weights updated by (VI.38).
    Training stops when no candidate lowers the loss, and after a weak learner without errors,
    whose step uses errors 1e-10 of the total weight (split between the classes by their
    weight), as AdaBoost does (so C1 = C2 = 1 gives AdaBoost's steps exactly).

    ``nonnegative_alpha``: True (our reading, NOTES) restricts the step to alpha >= 0 along g; False lets it take
    either sign (|C alpha| <= 30), so that a tree's candidates are scored by (VI.42) at their best step of either
    sign (symmetric in g <-> -g), and an all-wrong weak learner is an error-free one with alpha < 0.  With stumps,
    both polarities being candidates, the two give the same ensembles.
    """

    WEAK_LEARNERS = ("stump", "tree4")
    _parameter_constraints: dict = {**_ExponentialCS._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS), "nonnegative_alpha": ["boolean"]}
    ERR_FLOOR = AdaBoostClassifier.ERR_FLOOR
    _NO_STEP = "no weak learner lowers the loss (VI.42) at its step"

    def __init__(self, C1=None, C2=None, n_estimators=100, weak_learner="stump", max_bins=None, hist_bins=16,
                 smoothing=1.0, class_balanced=True, nonnegative_alpha=True, cost_matrix=None, random_state=None):
        super().__init__(C1=C1, C2=C2, n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, class_balanced=class_balanced,
                         cost_matrix=cost_matrix, random_state=random_state)
        self.nonnegative_alpha = nonnegative_alpha

    def _steps(self, b, d, Tp, Tm):
        amin = 0.0 if self.nonnegative_alpha else -steps.alpha_limit(*self.costs_)
        return steps.ada_steps(b, d, Tp, Tm, *self.costs_, alpha_min=amin)

    def _objective(self, state):
        channels, Tp, Tm = steps.class_totals(state.w, state.y, state.info["rows"])
        losses = steps.ada_loss_function(Tp, Tm, *self.costs_, signed=not self.nonnegative_alpha)
        return channels, error_criterion(losses)

    def _coefficient(self, state, h, hx):
        pos_sums, neg_sums = _labelled_sums(h)
        Tp, Tm = pos_sums[0] + neg_sums[0], pos_sums[1] + neg_sums[1]
        b, d = neg_sums[0], pos_sums[1]  # (VI.41): misclassified positives / negatives
        floor = self.ERR_FLOOR
        if b + d <= floor * (Tp + Tm):
            state.stop = True
            b, d = floor * Tp, floor * Tm
        elif not self.nonnegative_alpha and b + d >= (1.0 - floor) * (Tp + Tm):  # -g is error-free
            state.stop = True
            b, d = (1.0 - floor) * Tp, (1.0 - floor) * Tm
        alpha, loss = self._steps(np.array([b]), np.array([d]), Tp, Tm)
        if not loss[0] < Tp + Tm:  # (VI.42) at alpha = 0 is T+ + T-: no descent left
            return None
        return float(alpha[0])


def _labelled_sums(h) -> tuple[tuple[float, float], tuple[float, float]]:
    """The channel sums of the cells of ``h`` (``cell_sums``, ``values``) mapped to +1 and to -1: NumPy's
    ``h.cell_sums[h.values > 0].sum(axis=0)`` and ``[h.values < 0]`` (row by row from the first such cell; (0.0, 0.0)
    for none), its bits, in Python floats."""
    sums = {}
    for S, v in zip(h.cell_sums.tolist(), h.values.tolist()):
        if v > 0 or v < 0:
            a = sums.get(v > 0)
            sums[v > 0] = S if a is None else [a[0] + S[0], a[1] + S[1]]
    return tuple(sums.get(True, (0.0, 0.0))), tuple(sums.get(False, (0.0, 0.0)))


def _cs_real_output(C1, C2):
    return lambda Wp, Wn: steps.real_outputs(Wp, Wn, C1, C2)  # (VI.46)


def _cs_real_loss(C1, C2):
    return lambda Wp, Wn, f: Wp * np.exp(-C1 * f) + Wn * np.exp(C2 * f)  # (VI.44), per cell


class CSRealBoostClassifier(_ExponentialCS):
    """Cost-sensitive RealBoost (thesis Algorithm 5, Theorem 47).

    Start from class-balanced weights; each cell of the weak learner ("histogram": bins of one
    feature, ``hist_bins`` of them; "stump", "tree4": leaves) outputs (VI.46) on its weighted,
    Laplace-regularised class masses (``smoothing``, see
    :func:`~csrepro.weak.criteria.posterior_cells`); the feature / split minimising (VI.44) is
    added with step 1 and the weights updated by (VI.45).
    """

    WEAK_LEARNERS = ("histogram", "stump", "tree4")
    _parameter_constraints: dict = {**_ExponentialCS._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS)}
    _expected_failed_checks = ROW_SMOOTHING

    def __init__(self, C1=None, C2=None, n_estimators=100, weak_learner="histogram", max_bins=None, hist_bins=16,
                 smoothing=1.0, class_balanced=True, cost_matrix=None, random_state=None):
        super().__init__(C1=C1, C2=C2, n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, class_balanced=class_balanced,
                         cost_matrix=cost_matrix, random_state=random_state)

    def _objective(self, state):
        channels = class_channels(state.w, state.y)
        return channels, posterior_cells(_cs_real_output(*self.costs_), _cs_real_loss(*self.costs_), channels,
                                         self.smoothing)


class CSLogitBoostClassifier(_CostSensitive):
    """Cost-sensitive LogitBoost (thesis Algorithm 6, Theorem 48).

    With p_c(x) the asymmetric link (VI.34) of the current F (gamma = (C1 + C2)/2,
    eta = 1/2 log(C2/C1)): working responses z (VI.49), weights w (VI.50); the weak learner
    ("line": a x_j + b by (VI.52)-(VI.53), chosen by (VI.51); "stump", "tree4": regression
    stumps/trees; "histogram": per-bin means) is the weighted least-squares fit of z, and
    F <- F + fit / (2 gamma) (VI.47).  ``newton_weights``: (VI.50) as printed uses p(1 - p) with p
    of (VI.16); True uses p_c(1 - p_c), the curvature of the Newton step of App. VI.H.4 (they
    agree when C1 = C2).  Safeguards as in LogitBoost: w floored at 2 eps, and z clipped to
    [-z_max (C1 + C2)/(2 C1), z_max (C1 + C2)/(2 C2)]: z_max times the responses of a negative /
    positive on the cost-sensitive boundary (p_c = C2/(C1 + C2)) over those at C1 = C2, so
    FHT's [-z_max, z_max] when C1 = C2 = 1 (a symmetric clip biases the boundary when
    C1 != C2).  F starts at 0, where p_c = C2/(C1 + C2).
    """

    WEAK_LEARNERS = ("line", "stump", "tree4", "histogram")
    _parameter_constraints: dict = {**_CostSensitive._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS),
                                    "z_max": [Interval(Real, 0, None, closed="neither")],
                                    "newton_weights": ["boolean"]}
    W_FLOOR = LogitBoostClassifier.W_FLOOR

    def __init__(self, C1=None, C2=None, n_estimators=100, weak_learner="line", max_bins=None, hist_bins=16,
                 smoothing=1.0, z_max=4.0, newton_weights=False, cost_matrix=None,
                 random_state=None):
        super().__init__(C1=C1, C2=C2, n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, cost_matrix=cost_matrix,
                         random_state=random_state)
        self.z_max = z_max
        self.newton_weights = newton_weights

    def _objective(self, state):
        pc = steps.asymmetric_inverse_link(state.F, *self.costs_)
        w = state.weighted(np.maximum(steps.logit_weights(state.F, *self.costs_, newton=bool(self.newton_weights)),
                                      self.W_FLOOR))
        curvature = np.maximum(pc * (1.0 - pc), self.W_FLOOR)
        C1, C2 = self.costs_
        lo, hi = -self.z_max * (C1 + C2) / (2 * C1), self.z_max * (C1 + C2) / (2 * C2)
        z = np.clip((0.5 * (state.y + 1.0) - pc) / curvature, lo, hi)  # (VI.49)
        state.w = w
        return wls_channels(w, z), LeastSquares()

    def _coefficient(self, state, h, hx):
        return 1.0 / (self.costs_[0] + self.costs_[1])  # 1/(2 gamma) of (VI.47)
