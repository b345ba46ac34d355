"""A probability model whose fits are shared: :class:`_SharedFitClassifier` fits its ``estimator`` once per
(training rows, labels, parameters) and process, and hands every later fit on the same data the fitted model.

Decision rules learned on out-of-fold probabilities (:mod:`csrepro.decision.partition`) fit their probability model
once per fold and once on all rows.  Several rules of one trial (the leaderboard's parallel and full partition
matrices and Lachiche-Flach on calibrated gradient boosting, issue 30) use the same folds (the trial's selection
seed), so they would fit the same model on the same rows several times; the cost families of a dataset share the
split, so their rules would too.  The estimator must be a deterministic function of its parameters and training
rows (a seeded model): a hit then returns exactly what a refit would (csrepro.cache's rule: caches save time and
never change results).  The time of the fit is paid by the first rule that needs it.  The class is private (a
helper of the registry's ``model: hgb``, csrepro.methods.hgb_probabilities, not a public estimator of the
package); it passes scikit-learn's estimator checks (tests/test_hgb_rules.py).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.cache import fingerprint, named_cache

__all__ = ["SHARED_FITS", "estimator_settings"]

#: fitted models by (estimator parameters, training rows, labels); a model of the leaderboard holds a few boosters
SHARED_FITS = named_cache("shared_fits", maxsize=8)


def estimator_settings(estimator) -> str:
    """Every parameter of ``estimator`` (nested estimators by class name and their own parameters; arrays by their
    fingerprint), as text: the key of a fit that is a function of its parameters and data."""
    params = estimator.get_params(deep=True)
    return repr(sorted((key, type(value).__name__ if isinstance(value, BaseEstimator) else
                        fingerprint(value) if isinstance(value, np.ndarray) else repr(value))
                       for key, value in params.items())) + type(estimator).__name__


class _SharedFitClassifier(ClassifierMixin, BaseEstimator):
    """``estimator`` fitted once per (parameters, X, y) in a process (module docstring); ``predict_proba`` and
    ``predict`` are the fitted estimator's.  ``estimator`` must be deterministic given its parameters and data.

    Attributes: ``estimator_`` (the fitted model, possibly shared with other instances: read-only), ``classes_``,
    ``n_features_in_``, ``shared_`` (whether this fit reused a model fitted before).
    """

    _parameter_constraints: dict = {"estimator": [HasMethods(["fit", "predict"])]}

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        """Fit ``estimator`` on (X, y), or take the model fitted before on the same rows with the same parameters."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        key = fingerprint(estimator_settings(self.estimator), X, np.asarray(y))
        self.shared_ = key in SHARED_FITS
        self.estimator_ = SHARED_FITS.get(key, lambda: clone(self.estimator).fit(X, y))
        self.classes_ = self.estimator_.classes_
        return self

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, X):
        """The fitted estimator's class probabilities."""
        check_is_fitted(self)
        return self.estimator_.predict_proba(validate_data(self, X, dtype=np.float64, reset=False))

    def predict(self, X):
        """The fitted estimator's predictions."""
        check_is_fitted(self)
        return self.estimator_.predict(validate_data(self, X, dtype=np.float64, reset=False))
