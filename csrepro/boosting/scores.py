"""Score-vector boosters: the label handling and the (staged) outputs of a model H(x) in R^K built round by round.

A subclass's ``fit`` calls :meth:`_VectorBoost._validate_training` and stores what its ``_stages`` needs;
``_stages(X)`` yields the scores (n, K) before the first round, then after each round: by default the running
sum of ``_increments(X)`` (each round's addition) from ``_start(X)`` (zeros); a booster whose rounds do not add
(one-vs-all, totally corrective) overrides ``_stages`` itself.  Everything else --
``decision_function``, ``predict`` and their staged versions, which :mod:`csrepro.selection.rounds` uses to
choose the number of rounds on validation -- is derived here once: ``predict`` is ``classes_[argmax_k H_k]``
(ties: the lowest class index), and with two classes ``decision_function`` is H_1 - H_0 (scikit-learn's
binary convention: positive favours ``classes_[1]``).
"""

from __future__ import annotations

from collections import deque
from itertools import islice

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.validation import check_targets, classes_and_codes


class _VectorBoost(ClassifierMixin, BaseEstimator):
    """Base of the score-vector boosters (REBEL, AdaBoost.MH, one-vs-all AdaBoost); not an estimator by itself."""

    def _validate_training(self, X, y):
        """(X, z): finite float X and the indices z of y in ``classes_`` (``labels`` as given, else the sorted
        labels of y), which this sets; at least two classes must be present."""
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_targets(y)
        present = np.unique(y)
        if len(present) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes but the training labels hold only 1 "
                             f"class ({present[0]!r}); use a stratified split")
        self.classes_, z = classes_and_codes(y, self.labels)
        return X, z

    def _raw(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _start(self, X):
        """Scores (n, K) before the first round: zeros."""
        return np.zeros((len(X), len(self.classes_)))

    def _increments(self, X):
        """Each round's addition to the scores, (n, K), on validated X."""
        raise NotImplementedError

    def _stages(self, X):
        """Scores (n, K) before any round, then after each round 1..T."""
        X = self._raw(X)
        H = self._start(X)
        yield H
        for step in self._increments(X):
            H = H + step
            yield H

    def _scores(self, X):
        return deque(self._stages(X), maxlen=1)[0]

    @staticmethod
    def _decision(H):
        return H[:, 1] - H[:, 0] if H.shape[1] == 2 else H

    def decision_function(self, X):
        """Scores H(x) (n, K); with two classes H_1(x) - H_0(x)."""
        return self._decision(self._scores(X))

    def staged_decision_function(self, X):
        """Yield the decision function after each round 1..T."""
        for H in islice(self._stages(X), 1, None):
            yield self._decision(H)

    def predict(self, X):
        """``classes_[argmax_k H_k(x)]`` (ties: the lowest class index)."""
        H = self._scores(X)  # first: checks that the model is fitted
        return self.classes_[np.argmax(H, axis=1)]

    def staged_predict(self, X):
        """Yield the predictions after each round 1..T."""
        for H in islice(self._stages(X), 1, None):
            yield self.classes_[np.argmax(H, axis=1)]


class _VoteProba:
    """``predict_proba`` of a weighted vote: scores sum_t alpha_t h_t(x, .) with h_t(x, .) summing to 1 over the
    classes and alpha_t > 0 (``alphas_``), divided by sum_t alpha_t, so rows sum to 1 (uniform without rounds).
    A positive rescaling of the scores: each class's ranking of the examples (all Hand & Till's MAUC reads) is
    that of the scores."""

    @staticmethod
    def _proba(H, total):
        return H / total if total > 0 else np.full(H.shape, 1.0 / H.shape[1])

    def predict_proba(self, X):
        """Vote fractions (n, K): the scores over sum_t alpha_t."""
        check_is_fitted(self)
        totals = np.cumsum(self.alphas_)  # summed in the order of staged_predict_proba
        return self._proba(self._scores(X), totals[-1] if len(totals) else 0.0)

    def staged_predict_proba(self, X):
        """Yield :meth:`predict_proba` after each round 1..T."""
        check_is_fitted(self)
        for H, total in zip(islice(self._stages(X), 1, None), np.cumsum(self.alphas_)):
            yield self._proba(H, total)
