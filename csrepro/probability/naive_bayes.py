"""Multinomial (categorical) naive Bayes with Laplace correction over quantised features (O'Brien et al. 2008, Sec. 6).

O'Brien, Gupta & Gray 2008, Sec. 6: "multinomial naive Bayes was used with Laplacian correction for estimating
probabilities.  Any continuous features used with naive Bayes were quantized to 21 values."  With the features
coded as categories v = 0..m_j - 1 (below) and N_k training examples of class k among N, K classes:

* P(x_j = v | k) = (N_kjv + alpha) / (N_k + alpha m_j), N_kjv = examples of class k with code v in feature j
  (Laplace's correction for alpha = 1; the same as scikit-learn's ``CategoricalNB(alpha=1, min_categories=m_j)``);
* P(k) = (N_k + alpha) / (N + alpha K), the same correction for the class prior, so that a class of ``labels``
  absent from ``y`` (N_k = 0) keeps a positive prior and uniform likelihoods 1 / m_j;
* P(k | x) = P(k) prod_j P(x_j | k) / sum_k' P(k') prod_j P(x_j | k'), computed in log space.

Coding of a feature j from its training column (``n_values`` = 21 is the paper's "21 values"):

* at most ``n_values`` distinct training values: each distinct value is a category (m_j = their number), e.g.
  ordinal-coded categorical attributes.  A test value not among them gets the Laplace estimate of a zero count,
  alpha / (N_k + alpha m_j), in every class (so it favours no class through its count, only through N_k) -- no
  error;
* more than ``n_values`` distinct training values: quantised to m_j = ``n_values`` levels.
  ``quantize="uniform"`` (default): equal-width bins over the training range [lo, hi], level of x =
  floor(n_values (x - lo) / (hi - lo)), hi in the top level.  ``quantize="quantile"``: equal-frequency bins, the
  interior edges being the i / n_values empirical quantiles (i = 1..n_values - 1; NumPy's linear interpolation);
  tied edges (and edges at lo) are merged, so a column with heavy ties may get fewer than ``n_values`` levels.
  Test values below lo or above hi go to the end levels (clipping); every level is a category, empty ones
  included.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.probability.base import JointLikelihoodMixin
from csrepro.validation import IntegerInterval, check_targets, classes_and_codes

__all__ = ["QuantizedNaiveBayes", "quantization_edges"]


def quantization_edges(column, n_values, quantize="uniform"):
    """Interior bin edges (increasing) quantising ``column`` to at most ``n_values`` levels.

    The level of x is ``np.searchsorted(edges, x, side="right")``: level i holds edges[i-1] <= x < edges[i], so
    values below the first or above the last edge clip to the end levels.  ``"uniform"``: edges
    lo + (hi - lo) i / n_values, i = 1..n_values - 1 (equal width); ``"quantile"``: the i / n_values quantiles of
    ``column``, duplicates and edges <= lo dropped (equal frequency).
    """
    column = np.asarray(column, dtype=np.float64)
    lo, hi = column.min(), column.max()
    fractions = np.arange(1, n_values) / n_values
    if quantize == "uniform":
        edges = lo + (hi - lo) * fractions
        if not np.all(np.isfinite(edges)):  # hi - lo overflows: the same edges, computed without the difference
            edges = np.maximum.accumulate((1 - fractions) * lo + fractions * hi)
        return edges
    edges = np.unique(np.quantile(column, fractions))
    return edges[edges > lo]


class QuantizedNaiveBayes(JointLikelihoodMixin, ClassifierMixin, BaseEstimator):
    """Categorical naive Bayes with Laplace correction; features with many values quantised (O'Brien et al. 2008).

    See the module docstring for the formulas and the coding of the features.

    Parameters
    ----------
    n_values : int >= 2
        A feature with more distinct training values is quantised to this many levels (the paper's 21); one with
        at most this many is used as categories directly.
    quantize : {"uniform", "quantile"}
        Equal-width bins over the training range (default) or equal-frequency bins.
    alpha : float > 0
        Additive (Laplace for 1) smoothing of the feature likelihoods and of the class prior.
    labels : array-like or None
        All class labels, when ``y`` may lack some: ``predict_proba`` has one column per label, in the order given
        (``classes_``; duplicates refused), an absent class getting prior alpha / (N + alpha K) and likelihoods
        1 / m_j.  None: the sorted labels of ``y``.

    Attributes
    ----------
    classes_ : (K,) the labels.  class_count_ : (K,) N_k.  class_log_prior_ : (K,) log P(k).
    quantized_ : (n_features,) bool, whether feature j was quantised.
    categories_ : list, the sorted distinct training values of a categorical feature, None for a quantised one.
    bin_edges_ : list, the interior edges of a quantised feature (:func:`quantization_edges`), None otherwise.
    n_categories_ : (n_features,) m_j.
    category_count_ : list of (K, m_j) N_kjv.  feature_log_prob_ : list of (K, m_j) log P(x_j = v | k).
    unseen_log_prob_ : (n_features, K) log alpha / (N_k + alpha m_j), used for a test value of a categorical
    feature not seen in training.
    """

    _parameter_constraints: dict = {
        "n_values": [IntegerInterval(2, None, closed="left")],
        "quantize": [StrOptions({"uniform", "quantile"})],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "labels": ["array-like", None],
    }

    def __init__(self, n_values=21, quantize="uniform", alpha=1.0, labels=None):
        self.n_values = n_values
        self.quantize = quantize
        self.alpha = alpha
        self.labels = labels

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Code the features (categories or quantisation levels) and count N_kjv and N_k on (X, y)."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        self.classes_, z = classes_and_codes(y, self.labels)
        K, alpha = len(self.classes_), float(self.alpha)
        self.quantized_ = np.zeros(X.shape[1], dtype=bool)
        self.categories_, self.bin_edges_ = [], []
        for j in range(X.shape[1]):
            values = np.unique(X[:, j])
            if len(values) > self.n_values:
                self.quantized_[j] = True
                self.categories_.append(None)
                self.bin_edges_.append(quantization_edges(X[:, j], self.n_values, self.quantize))
            else:
                self.categories_.append(values)
                self.bin_edges_.append(None)
        self.n_categories_ = np.array([len(c) if c is not None else len(e) + 1
                                       for c, e in zip(self.categories_, self.bin_edges_)])
        codes, _ = self._codes(X)
        self.class_count_ = np.bincount(z, minlength=K).astype(np.float64)
        self.class_log_prior_ = np.log(self.class_count_ + alpha) - np.log(len(y) + alpha * K)
        self.category_count_, self.feature_log_prob_ = [], []
        denominators = self.class_count_[:, None] + alpha * self.n_categories_[None, :]  # (K, n_features)
        for j, m in enumerate(self.n_categories_):
            counts = np.zeros((K, m))
            np.add.at(counts, (z, codes[:, j]), 1.0)
            self.category_count_.append(counts)
            self.feature_log_prob_.append(np.log(counts + alpha) - np.log(denominators[:, j:j + 1]))
        self.unseen_log_prob_ = (np.log(alpha) - np.log(denominators)).T
        return self

    def _codes(self, X):
        """(codes (n, n_features) int, unseen (n, n_features) bool): category or level index of each value; an
        unseen value of a categorical feature gets code 0 and unseen True."""
        codes = np.zeros(X.shape, dtype=np.intp)
        unseen = np.zeros(X.shape, dtype=bool)
        for j, (values, edges) in enumerate(zip(self.categories_, self.bin_edges_)):
            if values is None:
                codes[:, j] = np.searchsorted(edges, X[:, j], side="right")
            else:
                idx = np.minimum(np.searchsorted(values, X[:, j]), len(values) - 1)
                unseen[:, j] = values[idx] != X[:, j]
                codes[:, j] = np.where(unseen[:, j], 0, idx)
        return codes, unseen

    def encode(self, X):
        """The category / level index of each value of X (n, n_features); -1 for an unseen category."""
        check_is_fitted(self)
        codes, unseen = self._codes(validate_data(self, X, dtype=np.float64, reset=False))
        return np.where(unseen, -1, codes)

    def _joint_log_likelihood(self, X):
        codes, unseen = self._codes(validate_data(self, X, dtype=np.float64, reset=False))
        jll = np.tile(self.class_log_prior_, (len(codes), 1))
        for j, table in enumerate(self.feature_log_prob_):
            jll += np.where(unseen[:, j:j + 1], self.unseen_log_prob_[j], table[:, codes[:, j]].T)
        return jll
