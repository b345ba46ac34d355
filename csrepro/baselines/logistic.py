"""Multinomial logistic regression with the project's ``labels`` convention: a modern baseline of the cross-paper
leaderboard (issue 21, ``logistic_bayes``) and a probability model for the decision rules (``model: lr``).

``labels``: the full label set when a training part may lack some classes (kept as given, duplicates refused);
``classes_`` is then ``labels`` and an absent class gets probability 0.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.decision.bayes_rule import _labels_and_codes
from csrepro.threads import one_thread
from csrepro.validation import IntegerInterval

__all__ = ["MultinomialLogisticRegression"]


class MultinomialLogisticRegression(ClassifierMixin, BaseEstimator):
    """scikit-learn's ``LogisticRegression(C=C, solver="lbfgs", max_iter=max_iter)`` -- the multinomial
    (softmax) model for more than two classes, the binary logistic model for two -- with ``labels`` (an absent
    class gets probability 0).  ``predict`` is the argmax; for the costs wrap it in
    :class:`~csrepro.decision.bayes_rule.BayesRuleClassifier`.  Fitted on one BLAS thread (as
    :class:`~csrepro.decision.bayes_rule.CalibratedBayesClassifier`); lbfgs is deterministic, ``random_state`` is accepted for
    a uniform interface.
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, C=1.0, max_iter=1000, tol=1e-4, labels=None, random_state=None):
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the logistic model on (X, y)."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = _labels_and_codes(self, y)  # >= 2 present classes
        self._present = np.unique(codes)
        with one_thread("blas"):
            self.model_ = LogisticRegression(C=self.C, solver="lbfgs", max_iter=self.max_iter, tol=self.tol).fit(
                X, codes)
        self.n_iter_ = self.model_.n_iter_
        return self

    def predict_proba(self, X):
        """Class probabilities (n, K) in ``classes_`` order (0 for a class absent from the training labels)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        P = np.zeros((len(X), len(self.classes_)))
        P[:, self._present] = self.model_.predict_proba(X)
        return P

    def predict(self, X):
        """The most probable class (ties: the lowest class index)."""
        P = self.predict_proba(X)
        return self.classes_[np.argmax(P, axis=1)]
