"""The earlier cost-sensitive boosters of thesis Sec. VI.C.5 / VI.E.2: the baselines of CS-AdaBoost and co.

Heuristic cost-sensitive AdaBoost variants ("weight manipulation"), each with the update rules of
its original paper; all use binary weak learners ("stump" or "tree4") chosen by weighted error on
the current distribution, and the decision rule sign(sum_t alpha_t h_t(x)).  Costs: ``C1`` on
positives (``classes_[1]``, the miss cost) and ``C2`` on negatives (the false-positive cost), or a
2x2 ``cost_matrix`` (C1 = C[1, 0], C2 = C[0, 1]; a cost given both ways must agree, see
:func:`~csrepro.boosting.cost_sensitive.resolve_binary_costs`).  "Correct" means y_i h(x_i) = 1.

- CSB0, CSB1 (Ting 2000, "A comparative study of cost-sensitive boosting algorithms", ICML):
  cost-proportional initial weights; w <- C_delta w (CSB0) or C_delta w e^{-delta} (CSB1), with
  delta = y h in {-1, +1} and C_delta = cost_i when misclassified, 1 when correct (discrete
  weak learners: confidence 1).  The vote uses AdaBoost's alpha (VI.21).
- CSB2 (Ting 2000 as summarised by the thesis (VI.31); identical to Asymmetric AdaBoost, Viola &
  Jones 2002, per Sec. VI.E.2): cost-proportional initial weights, w <- cost_i w e^{-y alpha h},
  alpha of AdaBoost (VI.21).  The cost factor applies every round, so costs near 1 matter.
- AdaC1, AdaC2, AdaC3 (Sun, Kamel, Wong & Wang 2007, Pattern Recognition 40): uniform start,
  costs scaled into (0, 1] (the larger is 1); with S+ / S- the cost-weighted mass of correct /
  misclassified samples (sum c_i D_i) and Q+ / Q- the same with c_i^2:
  AdaC1: alpha = 1/2 log((1 + S+ - S-)/(1 - S+ + S-)), D <- D e^{-alpha c y h};
  AdaC2: alpha = 1/2 log(S+/S-), D <- c D e^{-alpha y h};
  AdaC3: alpha = 1/2 log((S + Q+ - Q-)/(S - Q+ + Q-)) (S = S+ + S-), D <- c D e^{-alpha c y h}.
- AdaCost (Fan, Stolfo, Zhang & Chan 1999, ICML): costs in [0, 1) (``cost_scale``: cost_i/(C1 + C2) by
  default, so that equal costs give c = 1/2 and not the degenerate c = 1, beta_+ = 0; or the excess cost
  1 - min(C1, C2)/cost_i), D_1 proportional to the costs;
  beta_i = (1 - c_i)/2 when correct, (1 + c_i)/2 when misclassified; r = sum D_i y_i h_i beta_i,
  alpha = 1/2 log((1 + r)/(1 - r)), D <- D e^{-alpha y h beta}.  Its weak learner maximises r
  (the Schapire-Singer bound AdaCost is derived from); chosen by weighted error, r is mostly
  negative from the first round (all beta_+ = 0 when the costs are equal).

Every distribution is renormalised to sum 1 after its update.  Training stops when alpha <= 0,
and after a weak learner whose alpha would be infinite (no cost-weighted mistakes; the
denominator is floored at 1e-10 of the total, as for AdaBoost).

The other baselines of Sec. VI.E.2, classifiers with Platt calibration and the cost-sensitive
threshold, are :class:`csrepro.probability.calibration.PlattCalibrated`.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils._param_validation import StrOptions

from csrepro.boosting.binary import _weak_learners
from csrepro.boosting.cost_sensitive import _BinaryCostBoost
from csrepro.weak.criteria import Discrete, class_channels

__all__ = ["AdaC1Classifier", "AdaC2Classifier", "AdaC3Classifier", "AdaCostClassifier", "CSB0Classifier",
           "CSB1Classifier", "CSB2Classifier"]

FLOOR = 1e-10


class _CostBoost(_BinaryCostBoost):
    """Discrete boosting with per-class costs; subclasses set INIT, SCALED and the two rules."""

    _NO_STEP = "the first weak learner's step alpha is not positive under this booster's rule"

    WEAK_LEARNERS = ("stump", "tree4")
    _parameter_constraints: dict = {**_BinaryCostBoost._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS)}
    INIT = "uniform"  # or "cost": initial weights proportional to the costs
    SCALED = None  # "max" / "sum": costs divided by the larger one / by C1 + C2 (the papers' costs in (0, 1])

    def _init_state(self, y, sw=None):
        state = super()._init_state(y, sw)
        c = np.where(y > 0, *self.costs_)
        state.info["c"] = c / {None: 1.0, "max": max(self.costs_), "sum": sum(self.costs_)}[self.SCALED]
        if self.INIT == "cost":
            weighted = state.weighted(state.info["c"])
            state.w = weighted / weighted.sum()
        return state

    def _objective(self, state):
        return class_channels(state.w, state.y), Discrete(lambda pos, neg: pos[:, 1] + neg[:, 0])

    def _ratio(self, D, c, correct) -> tuple[float, float]:
        """(numerator, denominator) of alpha = 1/2 log(num/den) for distribution D (sums to 1)."""
        raise NotImplementedError

    def _reweight(self, w, c, correct, y, g) -> np.ndarray:
        """Unnormalised new weights after the step g = alpha h on the training rows."""
        raise NotImplementedError

    def _coefficient(self, state, h, hx):
        correct = hx == state.y
        num, den = self._ratio(state.w / state.w.sum(), state.info["c"], correct)
        if den <= FLOOR * (abs(num) + abs(den)):
            state.stop, den = True, FLOOR * (abs(num) + abs(den))
        if not num > den:
            return None
        state.info["correct"] = correct
        return 0.5 * np.log(num / den)

    def _update(self, state, g):
        state.w = self._reweight(state.w, state.info["c"], state.info["correct"], state.y, g)
        state.w /= state.w.sum()


def _ada_ratio(D, correct):
    """AdaBoost's (1 - err, err) (VI.21)."""
    err = float(D[~correct].sum())
    return 1.0 - err, err


class CSB0Classifier(_CostBoost):
    """CSB0 (Ting 2000): w <- C_delta w, no exponential factor; cost-proportional start."""

    INIT = "cost"

    def _ratio(self, D, c, correct):
        return _ada_ratio(D, correct)

    def _reweight(self, w, c, correct, y, g):
        return w * np.where(correct, 1.0, c)


class CSB1Classifier(CSB0Classifier):
    """CSB1 (Ting 2000): w <- C_delta w e^{-delta}, delta = y h (confidence 1); cost-proportional start."""

    def _reweight(self, w, c, correct, y, g):
        return w * np.where(correct, np.exp(-1.0), c * np.e)


class CSB2Classifier(CSB0Classifier):
    """CSB2 (Ting 2000; thesis (VI.31)): w <- cost_i w e^{-y alpha h}; cost-proportional start."""

    def _reweight(self, w, c, correct, y, g):
        return c * w * np.exp(-y * g)


class AdaC1Classifier(_CostBoost):
    """AdaC1 (Sun et al. 2007): alpha = 1/2 log((1 + S+ - S-)/(1 - S+ + S-)), D <- D e^{-alpha c y h}."""

    SCALED = "max"

    def _ratio(self, D, c, correct):
        s = float(np.sum(np.where(correct, c, -c) * D))
        return 1.0 + s, 1.0 - s

    def _reweight(self, w, c, correct, y, g):
        return w * np.exp(-c * y * g)


class AdaC2Classifier(_CostBoost):
    """AdaC2 (Sun et al. 2007): alpha = 1/2 log(S+/S-), D <- c D e^{-alpha y h}."""

    SCALED = "max"

    def _ratio(self, D, c, correct):
        return float(np.sum((c * D)[correct])), float(np.sum((c * D)[~correct]))

    def _reweight(self, w, c, correct, y, g):
        return c * w * np.exp(-y * g)


class AdaC3Classifier(_CostBoost):
    """AdaC3 (Sun et al. 2007): alpha = 1/2 log((S + Q+ - Q-)/(S - Q+ + Q-)), D <- c D e^{-alpha c y h}."""

    SCALED = "max"

    def _ratio(self, D, c, correct):
        S = float(np.sum(c * D))
        q = float(np.sum(np.where(correct, c * c, -c * c) * D))
        return S + q, S - q

    def _reweight(self, w, c, correct, y, g):
        return c * w * np.exp(-c * y * g)


class AdaCostClassifier(_CostBoost):
    """AdaCost (Fan et al. 1999): beta = (1 -+ c)/2, r = sum D y h beta, alpha = 1/2 log((1+r)/(1-r)),
    D <- D e^{-alpha y h beta}.

    ``cost_scale`` maps the costs into Fan et al.'s c_i in [0, 1] (they do not say how): "sum" (default), c_i =
    cost_i / (C1 + C2), so equal costs give c = 1/2 and r = 1/4 - err; "excess", c_i = 1 - min(C1, C2) / cost_i,
    the costlier class's excess cost, so the cheaper class has c = 0 (beta = 1/2 either way) and equal costs give
    r = 1/2 - err.  Either way the start is proportional to the costs.
    """

    SCALED = "sum"
    INIT = "cost"
    COST_SCALES = ("sum", "excess")
    _parameter_constraints: dict = {**_CostBoost._parameter_constraints, "cost_scale": [StrOptions(set(COST_SCALES))]}

    def __init__(self, C1=None, C2=None, n_estimators=100, weak_learner="stump", max_bins=None, hist_bins=16,
                 smoothing=1.0, cost_scale="sum", cost_matrix=None, random_state=None):
        super().__init__(C1=C1, C2=C2, n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, cost_matrix=cost_matrix,
                         random_state=random_state)
        self.cost_scale = cost_scale

    @property
    def _NO_STEP(self):
        floor = "1/4 - err" if self.cost_scale == "sum" else "1/2 - err"
        return (f"r <= 0, so its step 1/2 log((1+r)/(1-r)) is not positive (with equal costs and cost_scale="
                f"{self.cost_scale!r}, r = {floor})")

    def _scaled(self, costs):
        """Fan et al.'s c for ``costs`` (an array of C1 / C2 values) under ``cost_scale``."""
        if self.cost_scale == "sum":
            return costs / sum(self.costs_)
        return 1.0 - min(self.costs_) / costs

    def _init_state(self, y, sw=None):
        state = super()._init_state(y, sw)  # the start: proportional to the costs
        if self.cost_scale != "sum":
            state.info["c"] = self._scaled(np.where(y > 0, *self.costs_))
        return state

    @staticmethod
    def _beta(c, correct):
        return np.where(correct, 0.5 * (1.0 - c), 0.5 * (1.0 + c))

    def _objective(self, state):
        cp, cn = self._scaled(np.array(self.costs_, dtype=float))
        bp, bn = self._beta(np.array([cp, cn]), True), self._beta(np.array([cp, cn]), False)

        def minus_r(pos, neg):  # columns: (positives, negatives) mapped to +1 / -1
            return -(bp[0] * pos[:, 0] - bn[0] * neg[:, 0] + bp[1] * neg[:, 1] - bn[1] * pos[:, 1])
        return class_channels(state.w, state.y), Discrete(minus_r)

    def _ratio(self, D, c, correct):
        r = float(np.sum(D * np.where(correct, 1.0, -1.0) * self._beta(c, correct)))
        return 1.0 + r, 1.0 - r

    def _reweight(self, w, c, correct, y, g):
        return w * np.exp(-y * g * self._beta(c, correct))
