"""REBEL: multi-class cost-sensitive boosting by estimating the minimum-risk class (Appel, Burgos-Artizzu &
Perona 2016).

Sign convention (the text extraction lost every minus sign; see experiments/rebel/NOTES.md).  ``C[y, k]``
is the cost of predicting k for true class y (row c_y); scores H(x) in R^K, h(x) = argmax_k H_k(x).
The coupled-sum bound (1) is 1(h(x) != y) <= 1/2 (sum_{k != y} F(H_k) + F(-H_y)); with F = exp the
surrogate (2) is

    L = (1/N) sum_n beta_{y_n} + (1/2N) sum_n ( <c+_n, e^{H(x_n)}> + <c-_n, e^{-H(x_n)}> ),
    c+_n = c_{y_n} - beta_{y_n} 1,   c-_n = max(c_{y_n}) 1 - c_{y_n},

(the paper's L~ and c^_n cancel), and the boosting weights are w+_n = c+_n * e^{H(x_n)},
w-_n = c-_n * e^{-H(x_n)}.  A weak learner f(x) in {-1, +1} with vector a adds f(x) a (eq. 3); the
closed-form a and the learners are in :mod:`csrepro.weak.vector`.
"""

from __future__ import annotations

from itertools import islice

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from csrepro.boosting.scores import _VectorBoost
from csrepro.costs import CostMatrixError, check_cost_matrix_for_labels
from csrepro.validation import IntegerInterval, check_sample_weight, drop_unweighted, warn_no_weak_learner
from csrepro.weak.binning import BinnedData
from csrepro.weak.vector import ExpVector, LayerTreeLearner

__all__ = ["REBELClassifier", "closed_form_step", "decompose_costs", "rebel_cost_matrix", "rebel_loss",
           "surrogate_targets", "weak_learning_condition", "weak_learning_edge"]


def decompose_costs(C):
    """(beta (K,), b (K, K)) with c_y = beta_y 1 + sum_k b[k, y] (1 - delta_k) for every row c_y of ``C`` (Sec. 3).

    b[k, y] = max(c_y) - c_y[k] >= 0 with min_k b[k, y] = 0; beta_y = max(c_y) - sum_k b[k, y] (may be
    negative).  Entry j of sum_k b[k, y] (1 - delta_k) is sum_k b[k, y] - b[j, y], whence the unique solution.
    """
    C = np.asarray(C, dtype=np.float64)
    top = C.max(axis=1)
    b = (top[:, None] - C).T
    return top - b.sum(axis=0), b


def surrogate_targets(C):
    """(c+, c-), each (K, K), row y the cost vectors of a sample of class y in eq. 2:
    c+ = c_y - beta_y 1 (entry j: sum_{k != j} b[k, y]) and c- = max(c_y) 1 - c_y (= b[:, y])."""
    beta, b = decompose_costs(C)
    C = np.asarray(C, dtype=np.float64)
    return C - beta[:, None], b.T.copy()


def rebel_loss(H, y, C):
    """The surrogate L of eq. 2 with F = exp at scores ``H`` (n, K), class indices ``y`` (n,), costs ``C``.

    An upper bound of the empirical risk (1/N) sum_n C[y_n, argmax_k H_k(x_n)].
    """
    beta, _ = decompose_costs(C)
    cp, cm = surrogate_targets(C)
    H, y = np.asarray(H, dtype=np.float64), np.asarray(y)
    return float(beta[y].mean() + 0.5 * (cp[y] * np.exp(H) + cm[y] * np.exp(-H)).sum(axis=1).mean())


def closed_form_step(pos, neg):
    """(a, loss): the a in R^K minimising sum_k A_k e^{a_k} + B_k e^{-a_k} and that minimum, sum_k 2 sqrt(A_k B_k).

    ``pos`` / ``neg`` (2K,): sums of [w+ | w-] over the samples f maps to +1 / -1, so A_k = W+_{k,+} + W-_{k,-},
    B_k = W+_{k,-} + W-_{k,+} and a_k = 1/2 ln(B_k / A_k).  The loss decrease is sum(pos + neg) - loss
    (the loss at a = 0).  See :class:`~csrepro.weak.vector.ExpVector`.
    """
    crit = ExpVector()
    pos, neg = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    return crit.step(pos, neg), float(crit.score(pos, neg))


def weak_learning_edge(w_pos, w_neg, f):
    """gamma(f) = <|sum_n (w-_n - w+_n) f(x_n)|, 1> / sum_n <|w+_n - w-_n|, 1> (Sec. 4's weak-learning condition).

    ``w_pos``, ``w_neg`` (n, K) >= 0, ``f`` (n,) in {-1, +1}.  The absolute value is per class (the
    sign of a_k is free).  0 when every w+_n = w-_n.
    """
    w_pos, w_neg, f = (np.asarray(v, dtype=np.float64) for v in (w_pos, w_neg, f))
    den = np.abs(w_pos - w_neg).sum()
    return float(np.abs(((w_neg - w_pos) * f[:, None]).sum(axis=0)).sum() / den) if den > 0 else 0.0


def weak_learning_condition(w_pos, w_neg, f, gamma):
    """Whether f meets Sec. 4's condition with edge ``gamma`` > 0 on these weights: weak_learning_edge >= gamma."""
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    return weak_learning_edge(w_pos, w_neg, f) >= gamma


def rebel_cost_matrix(cost_matrix, classes):
    """The validated float64 cost matrix for ``classes``; None means 0-1 costs (1 - I, unnormalised).

    Non-negative, finite, K x K.  A non-zero diagonal is accepted when C[y, y] is the smallest entry of
    row y: training depends only on the differences within a row (b of :func:`decompose_costs`), so
    such a row trains as row - C[y, y]; every row needs some entry above its diagonal.
    """
    if cost_matrix is not None:
        try:
            C = np.array(cost_matrix, dtype=np.float64)
        except (TypeError, ValueError):
            C = None  # the validator below names the problem
        if C is not None and C.ndim == 2 and C.shape[0] == C.shape[1] and np.isfinite(C).all() and (C >= 0).all():
            diag = np.diag(C).copy()
            off = C + np.diag(np.full(len(C), np.inf))
            bad = np.flatnonzero(diag > off.min(axis=1))
            if len(bad):
                j = bad[0]
                k = int(np.argmin(off[j]))
                raise CostMatrixError(
                    f"cost matrix diagonal C[{j}, {j}] = {diag[j]:g} exceeds C[{j}, {k}] = {C[j, k]:g}; REBEL accepts "
                    "a non-zero diagonal only where it is the smallest entry of its row (a correct prediction "
                    "never costs more than a mistake)")
            check_cost_matrix_for_labels(C - diag[:, None], classes)
            return C
    return check_cost_matrix_for_labels(cost_matrix, classes)


class REBELClassifier(_VectorBoost):
    """REBEL (Appel, Burgos-Artizzu & Perona 2016): H(x) = a_0 + sum_t f_t(x) a_t (eq. 3), greedy on the loss (2).

    Each round: weights w+_n = c+_n * e^{H(x_n)}, w-_n = c-_n * e^{-H(x_n)} (Sec. 3, F = exp); the weak
    learner f in {-1, +1} and vector a minimising sum_n <w+_n, e^{f(x_n) a}> + <w-_n, e^{-f(x_n) a}>, a
    in closed form per class (:func:`closed_form_step`); H += f a.  Prediction: argmax_k H_k(x), the
    estimated minimum-risk class.  Training is invariant to scaling ``cost_matrix`` and to adding a
    constant to a row.  ``predict_proba`` only for a model trained with 0-1 costs (see there): the paper
    estimates the minimum-risk class, not posteriors, and with other costs H has no posterior reading.

    Parameters
    ----------
    cost_matrix : array (K, K) or None
        ``C[y, k]`` = cost of predicting class k for true class y (rows true, columns predicted, in ``classes_``
        order: ``labels`` as given, else sorted); None: 0-1 costs.  See :func:`rebel_cost_matrix` for what is accepted.
    n_estimators : int >= 1
        Weak learners T.
    max_depth : int in [1, 4]
        1: stumps; D > 1: trees grown one layer at a time (Sec. 4, :class:`~csrepro.weak.vector.LayerTreeLearner`).
    n_bins : int >= 2
        N_tau: evenly spaced thresholds per feature over its training range (Sec. 4, footnote: 200).
    bias : bool
        Fit a_0 of eq. 3 first (the closed-form a for f = 1); False: H starts at 0.
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some;
        ``cost_matrix`` is indexed by them.
    random_state : None
        Accepted for a uniform interface; training is deterministic (ties: lowest feature, then threshold).

    Attributes
    ----------
    classes_, cost_matrix_, bias_ (K,) = a_0, estimators_ (weak hypotheses f_t, ``predict(X)`` in {-1, +1}),
    estimator_weights_ (T, K) = a_t, train_loss_ (T + 1,) the loss (2) after a_0 and each round, n_features_in_.
    """

    _parameter_constraints: dict = {
        "cost_matrix": ["array-like", None],
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "max_depth": [IntegerInterval(1, 4, closed="both")],
        "n_bins": [IntegerInterval(2, None, closed="left")],
        "bias": ["boolean"],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, cost_matrix=None, n_estimators=200, max_depth=1, n_bins=200, bias=True,
                 labels=None, random_state=None):
        self.cost_matrix = cost_matrix
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.n_bins = n_bins
        self.bias = bias
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Boost ``n_estimators`` weak learners on (X, y) under the cost matrix.  ``sample_weight`` (n,),
        non-negative, weighs each sample's terms of the surrogate loss (2) (normalised to mean 1: an integer
        weight acts as that many copies of the sample)."""
        X, z = self._validate_training(X, y)
        sw, X, z = drop_unweighted(check_sample_weight(sample_weight, X), X, z)
        self.cost_matrix_ = rebel_cost_matrix(self.cost_matrix, self.classes_)
        cp, cm = surrogate_targets(self.cost_matrix_)
        cp, cm = cp[z], cm[z]
        if sw is not None:
            cp, cm = cp * sw[:, None], cm * sw[:, None]
        crit = ExpVector()
        learner = LayerTreeLearner(self.max_depth)
        data = BinnedData.memoised(X, self.n_bins, spacing="uniform")
        K = len(self.classes_)
        H = np.zeros((len(X), K))
        channels = np.hstack([cp, cm])
        self.bias_ = crit.step(channels.sum(axis=0), np.zeros(2 * K)) if self.bias else np.zeros(K)
        H += self.bias_
        beta = np.average(decompose_costs(self.cost_matrix_)[0][z], weights=sw)
        estimators, weights, losses = [], [], []
        channels, work = np.empty((len(X), 2 * K)), np.empty((len(X), K))
        for _ in range(self.n_estimators):
            scale = self._weights(H, cp, cm, channels, work)
            losses.append(beta + 0.5 * channels.sum() * scale / len(X))
            h, cells = learner.fit_cells(data, channels, crit)
            if h is None:
                break
            a = crit.step(h.cell_sums[h.values > 0].sum(axis=0), h.cell_sums[h.values < 0].sum(axis=0))
            H += h.values[cells][:, None] * a
            estimators.append(h)
            weights.append(a)
        scale = self._weights(H, cp, cm, channels, work)
        losses.append(beta + 0.5 * channels.sum() * scale / len(X))
        self.estimators_ = estimators
        self.estimator_weights_ = np.array(weights).reshape(-1, K)
        self.train_loss_ = np.array(losses)
        if not estimators:
            warn_no_weak_learner(self, "no stump was found (every feature constant)")
        return self

    @staticmethod
    def _weights(H, cp, cm, out, work):
        """s = e^{max |H|}; writes the channels [w+ | w-] / s into ``out`` (n, 2K) (no overflow; a is scale-free).
        ``work`` (n, K) is scratch: the exponentials run on contiguous arrays, in place."""
        top = np.abs(H).max()
        K = H.shape[1]
        np.exp(np.subtract(H, top, out=work), out=work)
        np.multiply(cp, work, out=out[:, :K])
        np.exp(np.subtract(np.negative(H, out=work), top, out=work), out=work)
        np.multiply(cm, work, out=out[:, K:])
        return np.exp(top)

    def _start(self, X):
        """H(x) = a_0 before the first weak learner."""
        return np.tile(self.bias_, (len(X), 1))

    def _increments(self, X):
        for h, a in zip(self.estimators_, self.estimator_weights_):
            yield h.predict(X)[:, None] * a

    def _zero_one(self) -> bool:
        """Whether the costs are 0-1 up to row shifts and scale (C - diag(C) a multiple of 1 - I): the fitted
        ``cost_matrix_``, else the ``cost_matrix`` parameter (None: 0-1).  ``predict_proba`` exists only then."""
        C = getattr(self, "cost_matrix_", None)
        if C is None:
            if self.cost_matrix is None:
                return True
            try:
                C = np.array(self.cost_matrix, dtype=np.float64)
            except (TypeError, ValueError):
                return False
            if C.ndim != 2 or C.shape[0] != C.shape[1] or len(C) < 2 or not np.isfinite(C).all():
                return False
        C = C - np.diag(C)[:, None]
        off = C[~np.eye(len(C), dtype=bool)]
        return bool(np.allclose(off, off[0], rtol=1e-12, atol=0.0))

    @staticmethod
    def _posterior(H):
        """p_k proportional to sigmoid(2 H_k), normalised over k (computed in log space)."""
        log_p = -np.logaddexp(0.0, -2.0 * H)
        log_p -= log_p.max(axis=1, keepdims=True)
        P = np.exp(log_p)
        return P / P.sum(axis=1, keepdims=True)

    @available_if(_zero_one)
    def predict_proba(self, X):
        """Posterior estimates P(classes_[k] | x) of a model trained with 0-1 costs; (n, K).

        With 0-1 costs the surrogate (2) separates per class: a sample of class y contributes
        e^{H_k} for k != y and e^{-H_k} for k = y.  Its population minimiser at x minimises, for each k,
        (1 - p_k) e^{H_k} + p_k e^{-H_k} (p_k = P(k | x)), whose derivative vanishes at
        H_k = 1/2 ln(p_k / (1 - p_k)), i.e. p_k = sigmoid(2 H_k) = 1 / (1 + e^{-2 H_k}), as for
        AdaBoost (Friedman, Hastie & Tibshirani 2000).  The K values need not sum to 1 for a finite
        model, so they are normalised over k.  The argmax of the result is ``predict``'s (sigmoid is
        increasing).  Defined only for 0-1 costs (``available_if``: with other costs, C - diag(C) not a multiple
        of 1 - I, H_k(x) estimates no posterior and the estimator has no ``predict_proba``; train a cost-neutral
        REBEL and apply the costs at test time, :class:`csrepro.decision.bayes_rule.BayesRuleClassifier`).  Not in the
        paper: the Fig. 3 "standard approach" (experiments/rebel/NOTES.md).
        """
        check_is_fitted(self)
        return self._posterior(self._scores(X))

    @available_if(_zero_one)
    def staged_predict_proba(self, X):
        """Yield :meth:`predict_proba` after each weak learner 1..T (0-1 costs only)."""
        check_is_fitted(self)
        for H in islice(self._stages(X), 1, None):
            yield self._posterior(H)
