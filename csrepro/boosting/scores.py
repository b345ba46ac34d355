"""Score-vector boosters: the label handling and the (staged) outputs of a model H(x) in R^K built round by round.

A subclass's ``fit`` calls :meth:`_VectorBoost._validate_training` and stores what its ``_stages`` needs;
``_stages(X)`` yields the scores (n, K) before the first round, then after each round.  Everything else --
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
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data


class _VectorBoost(ClassifierMixin, BaseEstimator):
    """Base of the score-vector boosters (REBEL, AdaBoost.MH, one-vs-all AdaBoost); not an estimator by itself."""

    def _validate_training(self, X, y):
        """(X, z): finite float X and the indices z of y in ``classes_`` (``labels`` if given, else the sorted
        labels of y), which this sets; at least two classes must be present."""
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_classification_targets(y)
        present = np.unique(y)
        if len(present) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes but the training labels hold only 1 "
                             f"class ({present[0]!r}); use a stratified split")
        self.classes_ = present if self.labels is None else np.unique(np.asarray(self.labels))
        unknown = np.setdiff1d(present, self.classes_)
        if len(unknown):
            raise ValueError(f"training labels {unknown.tolist()} are not in labels={self.classes_.tolist()}; "
                             "add them to `labels` or drop those samples")
        return X, np.searchsorted(self.classes_, y)

    def _raw(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _stages(self, X):
        """Scores (n, K) before any round, then after each round 1..T."""
        raise NotImplementedError

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
