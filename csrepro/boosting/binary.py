"""Binary boosting engine and the classic boosters: AdaBoost, RealBoost, LogitBoost.

Labels: any two; ``classes_[1]`` is the positive class (y = +1), ``classes_[0]`` the negative
(y = -1).  The predictor is the additive model F(x) = sum_m alpha_m h_m(x) (thesis (VI.13)),
learned on features binned once per fit (:class:`~csrepro.weak.binning.BinnedData`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.validation import (
    IntegerInterval,
    check_binary_classes,
    check_sample_weight,
    check_targets,
    drop_unweighted,
    warn_no_weak_learner,
)
from csrepro.weak.base import WeakLearner
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import (
    LeastSquares,
    class_channels,
    error_criterion,
    logit_channels,
    posterior_cells,
    weighted_error,
)
from csrepro.weak.histograms import HistogramLearner
from csrepro.weak.lines import LineLearner
from csrepro.weak.stumps import StumpLearner
from csrepro.weak.trees import TreeLearner

__all__ = ["AdaBoostClassifier", "BoostState", "LogitBoostClassifier", "RealBoostClassifier", "logistic_inverse_link"]


@dataclass(eq=False)
class BoostState:
    """Per-fit training state passed to the hooks; subclasses may add attributes.

    ``y``: labels in {-1, +1}; ``F``: current scores F(x_i) (the base class adds each step);
    ``w``: boosting weights; ``m``: index of the current iteration; ``stop``: set True in a
    hook to end training after the current step; ``sw``: the fit's sample weights scaled to mean 1
    (None without).
    """

    y: np.ndarray
    F: np.ndarray
    w: np.ndarray
    m: int = 0
    stop: bool = False
    info: dict = field(default_factory=dict)
    sw: np.ndarray | None = None

    def weighted(self, w):
        """Per-example weights ``w`` times the sample weights (``w`` itself without sample weights)."""
        return w if self.sw is None else w * self.sw


def logistic_inverse_link(F):
    """P(y = +1 | x) = e^F / (e^F + e^-F) = 1 / (1 + e^{-2F}) (thesis (VI.16), (VI.25); FHT 2000)."""
    return 0.5 * (1.0 + np.tanh(np.asarray(F, dtype=float)))


#: the scikit-learn check that boosters with Laplace-smoothed cells (:func:`~csrepro.weak.criteria.posterior_cells`)
#: fail, and why: their sample weights are exact example weights everywhere else
ROW_SMOOTHING = {"check_sample_weight_equivalence_on_dense_data":
                 "the cells' smoothing adds pseudo-samples of the mean weight per training row (and the histogram "
                 "learner's equal-count bins count rows), so an integer weight is not exactly that many repeated rows"}


def _weak_learners(names):
    """The ``weak_learner`` constraint of a booster whose ``WEAK_LEARNERS`` are ``names``: one of them,
    or an object with ``fit(data, channels, criterion)``."""
    return [StrOptions(set(names)), HasMethods(["fit"])]


class _BinaryBoost(ClassifierMixin, BaseEstimator):
    """Base of binary boosting (not an estimator by itself: ``_objective`` is required): F(x) = sum_m alpha_m h_m(x),
    one binning per fit.

    The binning is shared by fits on the same X (:meth:`BinnedData.memoised`, 8 kept).

    Each iteration m: ``channels, criterion = self._objective(state)``; the weak learner fits
    them (:mod:`csrepro.weak.criteria`) giving h_m; ``alpha = self._coefficient(state, h, hx)``
    with hx = h_m(x_i) on the training rows (from the learner's ``fit_predict`` where it has one, else
    ``h.predict``; None: stop without adding h_m); then the base sets
    ``state.F += alpha * hx`` and calls ``self._update(state, alpha * hx)``.  Training ends after
    ``n_estimators`` steps, when the weak learner returns None, or when a hook sets ``state.stop``.
    A fit that stops before its first weak learner (F = 0: one class predicted everywhere) warns
    (:func:`~csrepro.validation.warn_no_weak_learner`).

    Hooks for subclasses:

    * ``_init_state(y, sw) -> BoostState`` -- default: F = 0, w = 1/n, or the sample weights ``sw`` (mean 1)
      over n: the initial distribution D_1 is the normalised sample weights, as in scikit-learn's AdaBoost.
      Weights a booster recomputes from F (LogitBoost's p (1 - p), the margin losses' phi') are multiplied by
      them (``state.weighted``), so that an integer weight acts as that many copies of the row.
    * ``_objective(state) -> (channels, criterion)`` -- what the weak learner fits (required).
    * ``_coefficient(state, h, hx) -> float | None`` -- the step alpha_m; default 1.
    * ``_update(state, g)`` -- new weights after F += g (g = alpha h on the training rows); default: nothing.
    * ``_inverse_link(F) -> P(y=+1|x)`` -- for predict_proba; default :func:`logistic_inverse_link`.
    * ``WEAK_LEARNERS`` -- the names accepted by ``weak_learner``.

    Parameters
    ----------
    n_estimators : int >= 1
        Boosting iterations M.
    weak_learner : {"stump", "tree4", "histogram", "line"} or a learner object
        "stump": :class:`~csrepro.weak.stumps.StumpLearner`; "tree4":
        :class:`~csrepro.weak.trees.TreeLearner` with four terminal nodes; "histogram":
        :class:`~csrepro.weak.histograms.HistogramLearner` with ``hist_bins`` bins; "line":
        :class:`~csrepro.weak.lines.LineLearner`.  Any object following the weak-learner
        protocol of :mod:`csrepro.weak.base` (``fit(data, channels, criterion)``) is used as is
        (keep it stateless: per-fit caches go in ``data.cache``).  Which ones apply depends on
        the booster's criterion.
    max_bins : int or None
        None: one bin per distinct feature value (stumps and trees search all thresholds);
        else at most ``max_bins`` equal-count bins per feature.
    hist_bins : int
        Bins per feature of the histogram weak learner (equal training counts).
    smoothing : float
        Pseudo-samples of mean weight added per class to each cell of posterior-type learners
        (see :func:`~csrepro.weak.criteria.posterior_cells`).
    random_state : None
        Accepted for a uniform interface; training is deterministic (ties go to the lowest
        feature index and threshold).

    Attributes
    ----------
    classes_, estimators_ (weak hypotheses, each with ``predict(X)``), estimator_weights_
    (alpha_m), n_estimators_ (steps actually taken), n_features_in_.
    """

    WEAK_LEARNERS = ("stump", "tree4", "histogram", "line")
    #: why a fit stops before its first weak learner when the learner found one (the warning's words)
    _NO_STEP = "its step was not positive"
    # scikit-learn's parameter validation (fit, csrepro.methods.validate_params); a subclass with its own
    # WEAK_LEARNERS sets "weak_learner": _weak_learners(WEAK_LEARNERS)
    _parameter_constraints: dict = {
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "weak_learner": _weak_learners(WEAK_LEARNERS),
        "max_bins": [IntegerInterval(2, None, closed="left"), None],
        "hist_bins": [IntegerInterval(1, None, closed="left")],
        "smoothing": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_estimators=100, weak_learner="stump", max_bins=None, hist_bins=16, smoothing=1.0,
                 random_state=None):
        self.n_estimators = n_estimators
        self.weak_learner = weak_learner
        self.max_bins = max_bins
        self.hist_bins = hist_bins
        self.smoothing = smoothing
        self.random_state = random_state

    # ----- hooks -----------------------------------------------------------------------------
    def _init_state(self, y, sw=None):
        n = len(y)
        return BoostState(y=y, F=np.zeros(n), w=np.full(n, 1.0 / n) if sw is None else sw / n, sw=sw)

    def _objective(self, state):
        raise NotImplementedError

    def _coefficient(self, state, h, hx):
        return 1.0

    def _update(self, state, g):
        pass

    def _inverse_link(self, F):
        return logistic_inverse_link(F)

    # ----- engine ----------------------------------------------------------------------------
    def _make_learner(self) -> WeakLearner:
        """``weak_learner`` itself when it is an object, else a new learner of that name."""
        wl = self.weak_learner
        if not isinstance(wl, str):
            return wl
        return {"stump": StumpLearner, "tree4": lambda: TreeLearner(4),
                "histogram": lambda: HistogramLearner(self.hist_bins), "line": LineLearner}[wl]()

    def _check_params(self):
        """Set what fit derives from the parameters (subclasses: cross-parameter checks); return the weak learner.

        Each parameter on its own has been checked against ``_parameter_constraints`` by then (``fit``'s
        ``_fit_context``).
        """
        return self._make_learner()

    def _validate_training(self, X, y):
        """Finite float X, labels as +-1 (``classes_[1]`` -> +1); errors name the problem and the fix."""
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_targets(y)
        self.classes_ = np.unique(y)
        check_binary_classes(self, self.classes_)
        return X, np.where(y == self.classes_[1], 1.0, -1.0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Run up to ``n_estimators`` boosting iterations on (X, y); ``sample_weight`` (n,), non-negative, gives
        the initial distribution (normalised; None: uniform)."""
        learner = self._check_params()
        X, ypm = self._validate_training(X, y)
        sw, X, ypm = drop_unweighted(check_sample_weight(sample_weight, X), X, ypm)
        data = BinnedData.memoised(X, self.max_bins)
        fit_predict = getattr(learner, "fit_predict", None)  # h and h(x_i) on the training rows, without a walk
        # else the same X, column-major: a weak hypothesis reads a few whole columns
        columns = np.asfortranarray(X) if fit_predict is None else None
        state = self._init_state(ypm, sw)
        estimators, alphas = [], []
        for m in range(self.n_estimators):
            state.m = m
            channels, criterion = self._objective(state)
            if fit_predict is None:
                h = learner.fit(data, channels, criterion)
                hx = None if h is None else h.predict(columns)
            else:
                h, hx = fit_predict(data, channels, criterion)
            if h is None:
                break
            alpha = self._coefficient(state, h, hx)
            if alpha is None:
                break
            g = alpha * hx
            state.F += g
            self._update(state, g)
            estimators.append(h)
            alphas.append(float(alpha))
            if state.stop:
                break
        self.estimators_ = estimators
        self.estimator_weights_ = np.array(alphas)
        self.n_estimators_ = len(estimators)
        if not estimators:
            warn_no_weak_learner(self, "the weak learner found no split" if h is None else self._NO_STEP)
        return self

    def _raw(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def staged_decision_function(self, X):
        """Yield F(x) after each iteration 1..n_estimators_ (for per-iteration error curves)."""
        X = self._raw(X)
        F = np.zeros(len(X))
        for h, a in zip(self.estimators_, self.estimator_weights_):
            F = F + a * h.predict(X)
            yield F

    def decision_function(self, X):
        """F(x) = sum_m alpha_m h_m(x); positive favours ``classes_[1]``."""
        X = self._raw(X)
        F = np.zeros(len(X))
        for h, a in zip(self.estimators_, self.estimator_weights_):
            F += a * h.predict(X)
        return F

    def predict(self, X):
        """``classes_[1]`` where F(x) > 0, else ``classes_[0]`` (h(x) = sgn F(x))."""
        F = self.decision_function(X)
        return self.classes_[(F > 0).astype(int)]

    def staged_predict(self, X):
        """Yield the predictions after each iteration."""
        for F in self.staged_decision_function(X):
            yield self.classes_[(F > 0).astype(int)]

    def predict_proba(self, X):
        """Columns (P(classes_[0] | x), P(classes_[1] | x)) through the booster's inverse link of F."""
        p = self._inverse_link(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def staged_predict_proba(self, X):
        """Yield ``predict_proba`` after each iteration."""
        for F in self.staged_decision_function(X):
            p = self._inverse_link(F)
            yield np.column_stack([1.0 - p, p])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


def _exp_output(Wp, Wn):
    return 0.5 * np.log(Wp / Wn)


def _exp_loss(Wp, Wn, f):
    return Wp * np.exp(-f) + Wn * np.exp(f)


def _exp_reweight(state, g):
    """w_i <- w_i e^{-y_i g_i}, normalised to sum 1 (VI.22), (VI.24): one new array, the same bits as
    ``w * np.exp(-y * g)`` (-(y g) = (-y) g exactly)."""
    e = np.multiply(state.y, g)
    np.exp(np.negative(e, out=e), out=e)
    state.w = np.multiply(state.w, e, out=e)
    state.w /= state.w.sum()


#: AdaBoost's criterion: the weighted error pos[:, 1] + neg[:, 0] (negatives mapped to +1, positives to -1)
_WEIGHTED_ERROR = error_criterion(weighted_error)


class AdaBoostClassifier(_BinaryBoost):
    """Discrete AdaBoost (Freund & Schapire 1997; thesis Sec. VI.C.1).

    Weights start uniform; each iteration picks the {-1, +1} weak learner g of smallest weighted
    error err (VI.18)-(VI.19) ("stump" or "tree4"), steps alpha = 1/2 log((1 - err) / err)
    (VI.21), and reweights w_i <- w_i e^{-y_i alpha g(x_i)} (VI.22), normalised to sum 1.
    Training stops when err >= 1/2 (no progress possible), and after a weak learner with
    err = 0, whose step is then computed with err = 1e-10 (a finite stand-in for alpha = inf).
    """

    WEAK_LEARNERS = ("stump", "tree4")
    _parameter_constraints: dict = {**_BinaryBoost._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS)}
    ERR_FLOOR = 1e-10
    _NO_STEP = "the first weak learner's weighted error is at least 1/2"

    def _objective(self, state):
        return class_channels(state.w, state.y), _WEIGHTED_ERROR

    def _coefficient(self, state, h, hx):
        err = float(state.w.compress(hx != state.y).sum() / state.w.sum())  # compress: w[mask], in half the time
        if err >= 0.5:
            return None
        if err <= self.ERR_FLOOR:
            state.stop, err = True, self.ERR_FLOOR
        return 0.5 * np.log((1.0 - err) / err)

    def _update(self, state, g):
        _exp_reweight(state, g)


class RealBoostClassifier(_BinaryBoost):
    """Real AdaBoost (Friedman, Hastie & Tibshirani 2000, Algorithm 2; thesis Sec. VI.C.2).

    Each iteration fits the weighted class posterior P_w(y = 1 | x) per cell of the weak
    learner ("histogram": bins of one feature; "stump", "tree4": leaves), regularised by
    ``smoothing`` (see :func:`~csrepro.weak.criteria.posterior_cells`), sets the step to
    G(x) = 1/2 log(P_w(1|x) / P_w(-1|x)) (VI.23), chooses the feature / split minimising
    Z = sum_i w_i e^{-y_i G(x_i)} (Schapire & Singer 1999; = sum_cells 2 sqrt(W+ W-) without
    smoothing), and reweights w_i <- w_i e^{-y_i G(x_i)} (VI.24), normalised to sum 1.
    """

    WEAK_LEARNERS = ("histogram", "stump", "tree4")
    _parameter_constraints: dict = {**_BinaryBoost._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS)}
    _expected_failed_checks = ROW_SMOOTHING

    def __init__(self, n_estimators=100, weak_learner="histogram", max_bins=None, hist_bins=16, smoothing=1.0,
                 random_state=None):
        super().__init__(n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, random_state=random_state)

    def _objective(self, state):
        channels = class_channels(state.w, state.y)
        return channels, posterior_cells(_exp_output, _exp_loss, channels, self.smoothing)

    def _update(self, state, g):
        _exp_reweight(state, g)


#: LogitBoost's criterion (no ridge)
_LEAST_SQUARES = LeastSquares()


class LogitBoostClassifier(_BinaryBoost):
    """LogitBoost, two classes (Friedman, Hastie & Tibshirani 2000, Algorithm 3; thesis Sec. VI.C.3).

    With p(x) = e^F / (e^F + e^-F) (VI.16) and y* = (y + 1)/2: working responses
    z = (y* - p) / (p (1 - p)) and weights w = p (1 - p) (VI.26); the weak learner ("stump":
    regression stump, "tree4": regression tree, "histogram": per-bin weighted means, "line":
    a x_j + b) is the weighted least-squares fit f of z, and F <- F + f / 2.  Numerical
    safeguards as FHT recommend (Sec. 6): z clipped to [-z_max, z_max] (``z_max``, FHT
    suggest 2 to 4) and w floored at 2 x machine epsilon.
    """

    WEAK_LEARNERS = ("stump", "tree4", "histogram", "line")
    _parameter_constraints: dict = {**_BinaryBoost._parameter_constraints,
                                    "weak_learner": _weak_learners(WEAK_LEARNERS),
                                    "z_max": [Interval(Real, 0, None, closed="neither")]}
    W_FLOOR = 2 * np.finfo(float).eps

    def __init__(self, n_estimators=100, weak_learner="stump", max_bins=None, hist_bins=16, smoothing=1.0,
                 z_max=4.0, random_state=None):
        super().__init__(n_estimators=n_estimators, weak_learner=weak_learner, max_bins=max_bins,
                         hist_bins=hist_bins, smoothing=smoothing, random_state=random_state)
        self.z_max = z_max

    def _objective(self, state):
        channels = logit_channels(state.F, state.y, state.sw, self.W_FLOOR, self.z_max)
        state.w = channels[:, 0]
        return channels, _LEAST_SQUARES

    def _coefficient(self, state, h, hx):
        return 0.5
