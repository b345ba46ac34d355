"""Boosters of the thesis Ch. III-IV on the binary engine: canonical GradientBoost, SavageBoost, TangentBoost.

* :class:`CanonicalGradientBoostClassifier` -- Algorithm 1 (III.57)-(III.60) for a canonical loss
  with a sigmoidal inverse link and margin parameter ``a``.
* :class:`SavageBoostClassifier` -- Algorithm 2 (IV.15)-(IV.18), the Savage loss (IV.14).
* :class:`TangentBoostClassifier` -- Algorithm 3 (IV.31)-(IV.38), the Tangent loss (IV.30).

The weak learners of the first two (histograms, stumps, trees) output in each cell
1/2 log(P_w(1 | cell) / P_w(-1 | cell)) of the cell's weighted class posterior under the loss's
weights, and are chosen by (III.58); see :class:`CanonicalGradientBoostClassifier`.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from csrepro.boosting.binary import ROW_SMOOTHING, _BinaryBoost, _weak_learners
from csrepro.boosting.line_search import newton_line_search
from csrepro.losses.binary import get_margin_loss
from csrepro.weak.criteria import (
    LeastSquares,
    class_channels,
    posterior_cells,
    wls_channels,
)

__all__ = ["CANONICAL_GRADIENTBOOST_LOSSES", "CanonicalGradientBoostClassifier", "SavageBoostClassifier",
           "TangentBoostClassifier"]

#: canonical losses with an inverse-sigmoidal link (Definition 8): weights (III.57) lie in (0, 1)
CANONICAL_GRADIENTBOOST_LOSSES = ("canonical_logistic", "canonical_boosting", "canonical_gaussian",
                                  "canonical_laplacian", "logistic", "table_ii8_8", "table_ii8_9")


def _half_log_ratio(Wp, Wn):
    """1/2 log(P_w(1|cell) / P_w(-1|cell)): RealBoost's histogram step (VI.23), SavageBoost's (IV.18)."""
    return 0.5 * np.log(Wp / Wn)


def _gradient_loss(Wp, Wn, f):
    """-(W+ - W-) f: (III.58) as a cell loss (minimised)."""
    return -(Wp - Wn) * f


class _PosteriorStepBoost(_BinaryBoost):
    """GradientBoost (III.53)-(III.56), posterior-based cell outputs chosen by (III.58); subclasses set ``loss_``.

    Each iteration: weights w_i = ``self._weights(y_i F(x_i))``; cell output ``self._cell_output(W+, W-)``
    on the cell's regularised class weights; the weak learner maximising
    sum_cells (W+ - W-) f = sum_i y_i w_i f(x_i) (III.58); F += f (III.59).
    """

    WEAK_LEARNERS = ("histogram", "stump", "tree4")
    _parameter_constraints: dict = {**_BinaryBoost._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS)}
    _expected_failed_checks = ROW_SMOOTHING

    def _weights(self, margins):
        return self.loss_.weight(margins)  # (III.56)

    def _cell_output(self, Wp, Wn):
        return _half_log_ratio(Wp, Wn)

    def _init_state(self, y, sw=None):
        state = super()._init_state(y, sw)
        state.w = state.weighted(self._weights(y * state.F))
        return state

    def _objective(self, state):
        channels = class_channels(state.w, state.y)
        return channels, posterior_cells(self._cell_output, _gradient_loss, channels, self.smoothing)

    def _update(self, state, g):
        state.w = state.weighted(self._weights(state.y * state.F))

    def _inverse_link(self, F):
        return self.loss_.inverse_link(F)


class CanonicalGradientBoostClassifier(_PosteriorStepBoost):
    """Canonical GradientBoost, Algorithm 1 of thesis Ch. III.

    F^(0) = 0; each iteration weights w_i = 1 - [f*]^{-1}(y_i F(x_i)) (III.57), (III.60), the weak
    learner f of (III.58) and F <- F + f (III.59); ``predict_proba`` = [f*]^{-1}(F) (II.50).

    Weak learner outputs (Algorithm 1 leaves them open).  Each cell (histogram bin of one feature,
    stump side, tree leaf) has the weighted class posterior P_w = (W+ + e) / (W+ + W- + 2e) under
    the weights (III.57), with Laplace pseudo-weights e = ``smoothing`` x mean weight, and outputs

    * ``output="realboost"`` (default): f = 1/2 log(P_w / (1 - P_w)), the histogram weak learner
      of RealBoost (VI.23) and SavageBoost (IV.18), whose scale does not depend on the loss;
    * ``output="link"``: f = f*(P_w), the loss's own link.  The four losses of Ch. III are scale
      families (phi(v; a) = phi(a v; 1) / a or a phi(v / a; 1)), so with this output F scales with
      a and the predictions do not depend on a: the margin parameter is inert.

    Among features / splits the one maximising (III.58) sum_i y_i w_i f(x_i) is taken.  With either
    output, a cell's step vanishes exactly when eta (1 - p(F)) = (1 - eta) p(F), p = [f*]^{-1},
    i.e. at F = f*(eta) (II.14): the fixed points are Bayes consistent.

    Parameters
    ----------
    loss : str
        One of :data:`CANONICAL_GRADIENTBOOST_LOSSES` (canonical, inverse-sigmoidal link).
    a : float
        Margin parameter of the loss (Ch. III.E); must stay 1 for "logistic" and the Table II.8 rows.
    output : {"realboost", "link"}
        Cell outputs, see above.
    step : {"unit", "line_search"}
        ``"unit"`` (default): F <- F + f, (III.59) as printed.  ``"line_search"``: F <- F + rho f with
        rho = argmin_rho sum_i phi(y_i (F_i + rho f_i)), the line search of GradientBoost (Friedman
        2001, the thesis's [36]); the canonical losses are convex (phi' = -(1 - [f*]^{-1}) is
        nondecreasing), so rho is the root of a monotone derivative, found by safeguarded Newton.
        The two differ in what ``a`` means.  The four losses of Ch. III are scale families: the
        weights (III.57) depend on F only through G = a F (logistic, boosting) or G = F / a
        (Gaussian, Laplacian), and the cell outputs do not depend on a.  With unit steps G
        follows the a = 1 recursion with step size a (resp. 1 / a): the margin parameter acts as
        a learning rate, and steep settings (large a for logistic/boosting, small a for
        Gaussian/Laplacian) make F oscillate.  With the line search rho absorbs the scale, G is
        the same for every a, and a has no effect on the predictions.
    n_estimators, weak_learner ("histogram", "stump", "tree4"), max_bins, hist_bins, smoothing, random_state
        As :class:`~csrepro.boosting.binary._BinaryBoost`.
    """

    OUTPUTS = ("realboost", "link")
    STEPS = ("unit", "line_search")
    _parameter_constraints: dict = {
        **_PosteriorStepBoost._parameter_constraints,
        "loss": [StrOptions(set(CANONICAL_GRADIENTBOOST_LOSSES))],
        "a": [Interval(Real, 0, None, closed="neither")],  # the loss may bound it further (get_margin_loss)
        "output": [StrOptions(set(OUTPUTS))],
        "step": [StrOptions(set(STEPS))],
    }

    def __init__(self, loss="canonical_logistic", a=1.0, output="realboost", step="unit", n_estimators=100,
                 weak_learner="histogram", max_bins=None, hist_bins=16, smoothing=1.0,
                 random_state=None):
        super().__init__(n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, random_state=random_state)
        self.loss = loss
        self.a = a
        self.output = output
        self.step = step

    def _check_params(self):
        self.loss_ = get_margin_loss(self.loss, self.a)  # whether the loss takes a, and a's range for it
        return super()._check_params()

    def _weights(self, margins):
        return 1.0 - self.loss_.inverse_link(margins)  # (III.57)

    def _coefficient(self, state, h, hx):
        """1 (III.59), or rho of the GradientBoost line search when ``step="line_search"``."""
        if self.step == "unit":
            return 1.0
        yh = state.y * hx

        def derivatives(rho):  # d/drho and d2/drho2 of sum_i phi(m_i + rho yh_i); phi'' = d[f*]^{-1}/dv
            m = state.y * state.F + rho * yh
            d1 = -np.dot(yh, 1.0 - self.loss_.inverse_link(m))
            eps = 1e-6 * (1.0 + np.abs(m))
            curv = (self.loss_.inverse_link(m + eps) - self.loss_.inverse_link(m - eps)) / (2.0 * eps)
            return d1, np.dot(yh * yh, curv)

        rho, _ = newton_line_search(derivatives, tol=1e-6, max_step=1e6)
        return rho

    def _cell_output(self, Wp, Wn):
        if self.output == "link":
            return self.loss_.link(Wp / (Wp + Wn))
        return _half_log_ratio(Wp, Wn)


class SavageBoostClassifier(_PosteriorStepBoost):
    """SavageBoost, Algorithm 2 of thesis Ch. IV, for the Savage loss phi(v) = 1/(1 + e^{2v})^2 (IV.14).

    Each iteration fits, per weak-learner cell, the step (IV.18) G = 1/2 log(P_w(1|x) / P_w(-1|x))
    (``smoothing`` as in :func:`~csrepro.weak.criteria.posterior_cells`), picks the feature / split
    maximising sum_i y_i w_i G(x_i) (the gradient direction (III.54)-(III.55)), and sets F <- F + G.
    ``predict_proba`` = e^{2F} / (1 + e^{2F}).

    Weights.  (IV.18) is the minimiser of the conditional risk (IV.15) of a cell with constant F
    whenever the reweighting has w(x, 1) / w(x, -1) = e^{-2F(x)}.  Two weightings have that property:

    * ``weighting="gradient"`` (default): w_i = -phi'(y_i F(x_i)) = 4 s^2 (1 - s),
      s = 1 / (1 + e^{2 y_i F(x_i)}), the Savage loss's boosting weights (III.56).  They vanish
      for large negative margins, which is what makes the algorithm robust to outliers.
    * ``weighting="exponential"``: w_i proportional to e^{-y_i F(x_i)}, Algorithm 2's multiplicative
      update with the sign that makes (IV.18) solve (IV.15).  As printed, (IV.17) and Algorithm 2
      use e^{+y G}, under which (IV.18) gives G = f* + F and F diverges; with either sign this is
      RealBoost's weighting, and the Savage loss does not enter the algorithm.
    """

    WEIGHTINGS = ("gradient", "exponential")
    _parameter_constraints: dict = {**_PosteriorStepBoost._parameter_constraints,
                                    "weighting": [StrOptions(set(WEIGHTINGS))]}

    def __init__(self, n_estimators=100, weak_learner="histogram", weighting="gradient", max_bins=None, hist_bins=16,
                 smoothing=1.0, random_state=None):
        super().__init__(n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, random_state=random_state)
        self.weighting = weighting

    def _check_params(self):
        self.loss_ = get_margin_loss("savage")
        return super()._check_params()

    def _weights(self, margins):
        if self.weighting == "gradient":
            return super()._weights(margins)
        return np.exp(-(margins - margins.min()))  # e^{-v} / e^{-min v}: no overflow


class TangentBoostClassifier(_BinaryBoost):
    """TangentBoost, Algorithm 3 of thesis Ch. IV, for the Tangent loss phi(v) = (2 arctan(v) - 1)^2 (IV.30).

    With eta(x) = 1/2 + arctan(F(x)) (IV.29), each iteration fits the weak learner ("line":
    a x_k + b, the least-squares lines of Algorithm 3; or a regression "stump", "tree4",
    "histogram") to the working responses of the Gauss step (IV.33)-(IV.36),
    z = (1 - eta)(1 + F^2) for y = 1 (IV.37) and z = -eta (1 + F^2) for y = -1 (IV.38), by
    weighted least squares, and sets F <- F + f.  ``predict_proba`` = eta clipped to [0, 1].

    Weights (``weights``):

    * ``"thesis"`` (default): w = eta (1 - eta) as in Algorithm 3, with eta clipped to [0, 1].
      Unclipped, eta (1 - eta) < 0 for |F| > tan(1/2); the clip gives those samples weight 0.
    * ``"gauss_newton"``: w = (dr/dF)^2 / 4 = 1 / (1 + F^2)^2 for the residual r = 2 arctan(yF) - 1
      (IV.34), the weights of the Gauss-Newton step (IV.33) for the sum of squares (IV.31); positive
      for every F.

    Training stops early if every weight is zero (no weak learner can be fitted).
    """

    WEAK_LEARNERS = ("line", "stump", "tree4", "histogram")
    WEIGHTS = ("thesis", "gauss_newton")
    _parameter_constraints: dict = {**_BinaryBoost._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS),
                                    "weights": [StrOptions(set(WEIGHTS))]}
    # weighted and repeated fits agree to float rounding in F (tests/boosting/test_binary_boost.py), which the
    # saturating tangent link turns into probabilities 0 vs 5e-5 on the check's data (atol 1e-9)
    _expected_failed_checks = {"check_sample_weight_equivalence_on_dense_data":
                               "float rounding of F, amplified where the tangent link saturates at 0 or 1"}

    def __init__(self, n_estimators=100, weak_learner="line", weights="thesis", max_bins=None, hist_bins=16,
                 smoothing=1.0, random_state=None):
        super().__init__(n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, random_state=random_state)
        self.weights = weights

    def _check_params(self):
        self.loss_ = get_margin_loss("tangent")
        return super()._check_params()

    def _objective(self, state):
        F, y = state.F, state.y
        z = y * (0.5 - np.arctan(y * F)) * (1.0 + F * F)  # (IV.37) for y = 1, (IV.38) for y = -1
        if self.weights == "thesis":
            eta = self.loss_.inverse_link(F)
            state.w = state.weighted(eta * (1.0 - eta))
        else:
            state.w = state.weighted(1.0 / (1.0 + F * F) ** 2)
        return wls_channels(state.w, z), LeastSquares()

    def _coefficient(self, state, h, hx):
        return 1.0 if state.w.any() else None

    def _inverse_link(self, F):
        return self.loss_.inverse_link(F)
