"""What the probability models share: posteriors and predictions from a joint log-likelihood."""

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted


class JointLikelihoodMixin:
    """``predict_log_proba``, ``predict_proba`` and ``predict`` from ``_joint_log_likelihood(X)`` (n, K), the model's
    log P(x, k) up to a constant per row, columns in ``classes_`` order (-inf for a class the model cannot produce)."""

    def predict_log_proba(self, X):
        """log P(k | x) (n, K), columns in ``classes_`` order."""
        check_is_fitted(self)
        jll = self._joint_log_likelihood(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """P(k | x) (n, K), rows summing to 1, columns in ``classes_`` order."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class (ties: the first in ``classes_``)."""
        check_is_fitted(self)
        return self.classes_[np.argmax(self._joint_log_likelihood(X), axis=1)]
