"""Cost-neutral multiclass boosting baselines of REBEL (Appel, Burgos-Artizzu & Perona 2016, Sec. 5): AdaBoost.MH
with real-valued vector stumps and one-vs-all discrete AdaBoost, both on REBEL's N_tau evenly spaced thresholds.

Both search the candidate stumps REBEL searches: the thresholds of
:meth:`~csrepro.weak.binning.BinMapper.fit_uniform` (``n_bins`` evenly spaced thresholds per feature over its
training range, :class:`~csrepro.weak.binning.BinnedData` with ``spacing="uniform"``), ties to the lowest
feature, then threshold.

* :class:`AdaBoostMHClassifier` -- Schapire & Singer 1999, AdaBoost.MH (the multi-label Hamming-loss reduction,
  Sec. 6 / Fig. 5) with the domain-partitioning weak hypotheses of Sec. 4.2 applied per label, real-valued
  (``predictions="real"``) or {-1, +1}-valued (``"discrete"``): one 2K-channel histogram pass (W+ per label | W-
  per label) through the shared K-vector histogram, and the cells criterion :class:`HammingCells` (real) or
  :class:`HammingSigns` (discrete) whose ``value`` is the K-vector of a cell, so that
  :class:`~csrepro.weak.stumps.StumpLearner` grows K-vector cells (see :mod:`csrepro.weak.base`).
* :class:`OneVsAllAdaBoostClassifier` -- K binary discrete AdaBoosts (Freund & Schapire 1997), class k against
  the rest, each the project's :class:`~csrepro.boosting.binary.AdaBoostClassifier` with the weak learner
  :class:`UniformStumpLearner`; prediction argmax_k F_k(x) (the one-vs-all reduction, e.g. Schapire & Singer
  1999, Sec. 6; Allwein, Schapire & Singer 2000).

Neither uses costs, so neither has a ``cost_matrix`` parameter (as the project's cost-neutral binary boosters);
:func:`csrepro.methods.make_estimator` warns when a cost matrix is given to their method ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import StrOptions

from csrepro._kernels import backend
from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.scores import _VectorBoost
from csrepro.validation import IntegerInterval, warn_no_weak_learner
from csrepro.weak.binning import BinnedData
from csrepro.weak.stumps import Stump, StumpLearner

__all__ = ["AdaBoostMHClassifier", "HammingCells", "HammingSigns", "OneVsAllAdaBoostClassifier",
           "UniformStumpLearner", "hamming_channels"]


# ----- weak-learner pieces -------------------------------------------------------------------------------------
def hamming_channels(D: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Channels (n, 2K) [D(i, l) 1[Y_i[l] = +1] | D(i, l) 1[Y_i[l] = -1]] of AdaBoost.MH's weights D (n, K) and
    label codes Y (n, K) in {-1, +1}: their sums over a cell j are (W+_j1..W+_jK | W-_j1..W-_jK)."""
    pos = Y > 0
    return np.ascontiguousarray(np.hstack([np.where(pos, D, 0.0), np.where(pos, 0.0, D)]))


@dataclass(frozen=True)
class HammingCells:
    """Cells criterion of AdaBoost.MH's real-valued vector cells on :func:`hamming_channels` (Schapire & Singer 1999).

    ``value(S)`` (..., K): c_jl = 1/2 ln((W+_jl + eps) / (W-_jl + eps)) per label l, the smoothed
    confidence of Sec. 4.2 (eps > 0 bounds |c_jl| by about 1/2 ln(1 / eps) when a cell holds one sign only).
    ``loss(S, value)`` (...): the cell's part of Z = 2 sum_j sum_l sqrt(W+_jl W-_jl), the normaliser at the
    unsmoothed c_jl, by which Sec. 4.2 chooses the partition (the outputs are then smoothed); a stump's
    score is Z over its two cells.
    """

    eps: float

    @staticmethod
    def _split(S):
        S = np.maximum(np.asarray(S, dtype=np.float64), 0.0)  # R = T - L may round a hair below 0
        K = S.shape[-1] // 2
        return S[..., :K], S[..., K:]

    def value(self, S):
        Wp, Wn = self._split(S)
        return 0.5 * np.log((Wp + self.eps) / (Wn + self.eps))

    def loss(self, S, value=None):
        Wp, Wn = self._split(S)
        return 2.0 * np.sqrt(Wp * Wn).sum(axis=-1)


@dataclass(frozen=True)
class HammingSigns:
    """Cells criterion of AdaBoost.MH's {-1, +1}-valued vector cells on :func:`hamming_channels` (Schapire & Singer
    1999, Sec. 4.2, the case of predictions in {-1, +1}).

    ``value(S)`` (..., K): h_jl = sign(W+_jl - W-_jl) per label l, +1 where W+_jl = W-_jl (the stated tie rule;
    such a pair adds nothing to the edge either way).  ``loss(S, value)`` (...): -sum_l |W+_jl - W-_jl|, minus the
    cell's part of the edge r = sum_j sum_l |W+_jl - W-_jl| (weights summing to 1), so that a stump's score is -r
    and the scan picks the stump of largest edge, i.e. of least Z = sqrt(1 - r^2).
    """

    @staticmethod
    def value(S):
        Wp, Wn = HammingCells._split(S)
        return np.where(Wp >= Wn, 1.0, -1.0)

    @staticmethod
    def loss(S, value=None):
        Wp, Wn = HammingCells._split(S)
        return -np.abs(Wp - Wn).sum(axis=-1)


@dataclass(frozen=True)
class UniformStumpLearner:
    """:class:`~csrepro.weak.stumps.StumpLearner` on ``n_bins`` evenly spaced thresholds per feature (REBEL's
    N_tau, :meth:`~csrepro.weak.binning.BinMapper.fit_uniform`), whatever binning the booster's ``data`` has.

    A weak learner of :mod:`csrepro.weak.base` for boosters whose engine bins by quantiles (the binary
    engine of :mod:`csrepro.boosting.binary`): the uniform binning of ``data.X`` is made once and kept in
    ``data.cache`` (and in :meth:`BinnedData.memoised`'s memo, so REBEL and AdaBoost.MH on the same X share it).
    """

    n_bins: int = 200

    def uniform_data(self, data: BinnedData) -> BinnedData:
        """``data`` itself when it is already binned so, else the uniform binning of ``data.X``."""
        if data.spacing == "uniform" and data.max_bins == self.n_bins:
            return data
        key = ("uniform_stumps", self.n_bins)
        if key not in data.cache:
            with backend.use_backend(data.backend):  # the kernels of data
                data.cache[key] = BinnedData.memoised(data.X, self.n_bins, spacing="uniform")
        return data.cache[key]

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> Stump | None:
        """The best stump on the uniform thresholds; None when every feature is constant."""
        return StumpLearner().fit(self.uniform_data(data), channels, criterion)


# ----- shared estimator plumbing -------------------------------------------------------------------------------
_CONSTRAINTS: dict = {
    "n_estimators": [IntegerInterval(1, None, closed="left")],
    "n_bins": [IntegerInterval(2, None, closed="left")],
    "labels": ["array-like", None],
    "random_state": ["random_state"],
}


class _MulticlassBoost(_VectorBoost):
    """Parameters of the two baselines (not an estimator by itself: ``fit`` and ``_stages`` are the subclasses')."""

    _parameter_constraints: dict = dict(_CONSTRAINTS)

    def __init__(self, n_estimators=200, n_bins=200, labels=None, random_state=None):
        self.n_estimators = n_estimators
        self.n_bins = n_bins
        self.labels = labels
        self.random_state = random_state


# ----- AdaBoost.MH -----------------------------------------------------------------------------------------------
class AdaBoostMHClassifier(_MulticlassBoost):
    """AdaBoost.MH with real-valued or discrete vector stumps (Schapire & Singer 1999, Sec. 6 / Fig. 5, with the
    domain-partitioning weak hypotheses of Sec. 4.2 per label).

    The Hamming-loss reduction: sample i of class y_i gets the label code Y_i[l] = +1 if l = y_i else -1
    (l = 1..K) and the weights D_1(i, l) = 1 / (m K) over the m K (example, label) pairs.  Round t: the weak
    hypothesis is a stump partitioning the features into cells j (its two sides), searched over every feature and
    threshold with W^b_jl = sum_i D_t(i, l) 1[x_i in cell j, Y_i[l] = b] (b = +-1; one 2K-channel histogram pass,
    :func:`hamming_channels`), then D_{t+1}(i, l) = D_t(i, l) exp(-alpha_t Y_i[l] h_t(x_i, l)) / Z'_t, Z'_t its
    normaliser (``normalizers_``).  The outputs f = sum_t alpha_t h_t.

    ``predictions="real"`` (Sec. 4.2, real-valued predictions):

    * h_t(x, l) = c_jl = 1/2 ln((W+_jl + eps) / (W-_jl + eps)) on cell j, alpha_t = 1 (absorbed in the c_jl);
    * the stump minimises Z_t = 2 sum_j sum_l sqrt(W+_jl W-_jl) (:class:`HammingCells`).

    ``predictions="discrete"`` (Sec. 4.2, predictions in {-1, +1}; with them AdaBoost.MH is Freund & Schapire's
    discrete AdaBoost on the m K pairs):

    * h_t(x, l) = sign(W+_jl - W-_jl) on cell j (+1 at a tie), of edge r_t = sum_j sum_l |W+_jl - W-_jl|
      (sum D_t = 1), i.e. of weighted Hamming error err_t = (1 - r_t) / 2;
    * the stump maximises r_t, i.e. minimises Z_t = sqrt(1 - r_t^2) (:class:`HammingSigns`);
    * alpha_t = 1/2 ln((1 + r_t) / (1 - r_t)) = 1/2 ln((1 - err_t) / err_t), the minimiser of Z'_t, which is then
      sqrt(1 - r_t^2).  Training stops without the stump when r_t <= ``ERR_FLOOR`` (no edge left: D_{t+1} would
      be D_t), and after a stump with err_t <= ``ERR_FLOOR`` (perfect up to rounding), whose step is computed with
      err_t = ``ERR_FLOOR`` (the rule of :class:`~csrepro.boosting.binary.AdaBoostClassifier`).

    The training Hamming loss (1 / (m K)) sum_{i, l} 1[Y_i[l] f(x_i, l) <= 0] is at most prod_t Z'_t (Schapire &
    Singer 1999, Thm. 1 applied to the m K pairs; Z'_t = Z_t without smoothing).  Prediction: argmax_l f(x, l)
    (the single-label rule of the Hamming reduction).

    Smoothing (real only): eps = 1 / (m K), the initial weight of one (example, label) pair -- Sec. 4.2 takes eps
    "on the order of 1/m" for m weighted examples; here the weighted items are the m K pairs.  It bounds |c_jl| by
    about 1/2 ln(m K) and keeps a cell holding one sign only finite.

    Parameters
    ----------
    n_estimators : int >= 1
        Rounds T (vector stumps).
    n_bins : int >= 2
        Evenly spaced thresholds per feature over its training range (REBEL's N_tau = 200).
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some (an
        absent class gets only negative codes).
    random_state : None
        Accepted for a uniform interface; training is deterministic (ties: lowest feature, then threshold).
    predictions : {"real", "discrete"}
        The weak hypotheses' outputs: real-valued confidences c_jl, or signs with a step alpha_t.

    Attributes
    ----------
    classes_, estimators_ (stumps with ``values`` (2, K) = c_jl or the signs h_jl, ``predict(X)`` (n, K)),
    alphas_ (T,) the steps alpha_t (1 for "real"), stump_scores_ (T,) the criterion value each stump was chosen
    by (Z_t for "real", -r_t for "discrete"), normalizers_ (T,) Z'_t, epsilon_ (real only), n_estimators_,
    n_features_in_.
    """

    _parameter_constraints: dict = {**_CONSTRAINTS, "predictions": [StrOptions({"real", "discrete"})]}
    ERR_FLOOR = AdaBoostClassifier.ERR_FLOOR

    def __init__(self, n_estimators=200, n_bins=200, labels=None, random_state=None, predictions="real"):
        super().__init__(n_estimators=n_estimators, n_bins=n_bins, labels=labels, random_state=random_state)
        self.predictions = predictions

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Run up to ``n_estimators`` rounds of AdaBoost.MH on (X, y)."""
        X, z = self._validate_training(X, y)
        m, K = len(X), len(self.classes_)
        Y = -np.ones((m, K))
        Y[np.arange(m), z] = 1.0
        D = np.full((m, K), 1.0 / (m * K))
        discrete = self.predictions == "discrete"
        if discrete:
            criterion = HammingSigns()
        else:
            self.epsilon_ = 1.0 / (m * K)
            criterion = HammingCells(self.epsilon_)
        data = BinnedData.memoised(X, self.n_bins, spacing="uniform")
        learner = StumpLearner()
        estimators, alphas, scores, norms = [], [], [], []
        for _ in range(self.n_estimators):
            h = learner.fit(data, hamming_channels(D, Y), criterion)
            if h is None:
                break
            hx, alpha, stop = h.predict(X), 1.0, False
            if discrete:
                alpha, stop = self._step(-h.score)
                if alpha is None:
                    break
                hx = alpha * hx
            D = D * np.exp(-Y * hx)
            Z = D.sum()
            D /= Z
            estimators.append(h)
            alphas.append(alpha)
            scores.append(h.score)
            norms.append(Z)
            if stop:
                break
        self.estimators_ = estimators
        self.alphas_ = np.array(alphas)
        self.stump_scores_ = np.array(scores)
        self.normalizers_ = np.array(norms)
        self.n_estimators_ = len(estimators)
        if not estimators:
            warn_no_weak_learner(self, "no stump was found, or the first discrete stump's step was not positive")
        return self

    def _step(self, r):
        """(alpha_t, stop after this round) of a discrete stump of edge r; (None, True) when no edge is left."""
        if r <= self.ERR_FLOOR:
            return None, True
        err = 0.5 * (1.0 - r)
        if err <= self.ERR_FLOOR:
            return 0.5 * np.log((1.0 - self.ERR_FLOOR) / self.ERR_FLOOR), True
        return 0.5 * np.log((1.0 + r) / (1.0 - r)), False

    def _increments(self, X):
        for h, alpha in zip(self.estimators_, self.alphas_, strict=True):
            yield alpha * h.predict(X)


# ----- one-vs-all AdaBoost ---------------------------------------------------------------------------------------
class OneVsAllAdaBoostClassifier(_MulticlassBoost):
    """One-vs-all discrete AdaBoost on stumps: K binary AdaBoosts, class k against the rest, argmax_k F_k(x).

    Booster k is the project's :class:`~csrepro.boosting.binary.AdaBoostClassifier` (Freund & Schapire 1997,
    AdaBoost.M1 with two classes; thesis (VI.17)-(VI.22)) on the labels y^k_i = +1 if y_i = k else -1: uniform
    weights, each round the stump g of least weighted error err on REBEL's evenly spaced thresholds
    (:class:`UniformStumpLearner`), alpha = 1/2 ln((1 - err) / err), w_i <- w_i e^{-y^k_i alpha g(x_i)}
    normalised; it stops early when err >= 1/2 or after a stump with err = 0 (the binary engine's rules).
    F_k(x) = sum_t alpha_kt g_kt(x); prediction argmax_k F_k(x) (the one-vs-all reduction: Schapire & Singer
    1999, Sec. 6; Allwein, Schapire & Singer 2000).  Round t of the staged outputs is every booster with
    min(t, its rounds) stumps, so stage t equals a refit with ``n_estimators=t``.  A class of ``labels``
    absent from training has no booster: F_k = -inf, never predicted.  With two classes the two boosters
    mirror each other (F_0 = -F_1) and the decision function F_1 - F_0 is 2 F_AdaBoost.

    Parameters
    ----------
    n_estimators : int >= 1
        Rounds T of each binary AdaBoost.
    n_bins : int >= 2
        Evenly spaced thresholds per feature over its training range (REBEL's N_tau = 200).
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some.
    random_state : None
        Accepted for a uniform interface; training is deterministic (ties: lowest feature, then threshold).

    Attributes
    ----------
    classes_, estimators_ (K fitted binary :class:`~csrepro.boosting.binary.AdaBoostClassifier`, None for an
    absent class), n_estimators_ (rounds of the longest booster), n_features_in_.
    """

    _parameter_constraints: dict = dict(_CONSTRAINTS)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit one binary AdaBoost per class (``n_estimators`` rounds each at most)."""
        X, z = self._validate_training(X, y)
        learner = UniformStumpLearner(self.n_bins)
        present = np.bincount(z, minlength=len(self.classes_)) > 0
        self.estimators_ = [
            AdaBoostClassifier(n_estimators=self.n_estimators, weak_learner=learner)
            .fit(X, np.where(z == k, 1, -1)) if present[k] else None
            for k in range(len(self.classes_))]
        self.n_estimators_ = max(b.n_estimators_ for b in self.estimators_ if b is not None)
        return self

    def _stages(self, X):
        X = self._raw(X)
        n, K = len(X), len(self.classes_)
        H = np.zeros((n, K))
        stages = []
        for k, booster in enumerate(self.estimators_):
            if booster is None:
                H[:, k] = -np.inf
                stages.append(iter(()))
            else:
                stages.append(booster.staged_decision_function(X))
        yield H
        for _ in range(self.n_estimators_):
            H = H.copy()
            for k, stage in enumerate(stages):
                F = next(stage, None)
                if F is not None:  # a booster that stopped early keeps its last score
                    H[:, k] = F
            yield H
