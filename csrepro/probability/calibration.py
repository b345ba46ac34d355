"""Platt-calibrated classifiers with the cost-sensitive threshold: baselines of thesis Sec. VI.E.2.

:class:`PlattCalibrated` wraps any binary classifier with Platt's sigmoid (scikit-learn's
``CalibratedClassifierCV(method="sigmoid")``) and the cost-sensitive threshold P(1|x) >
C2/(C1 + C2): the "AdaBoost/RealBoost/LogitBoost/SVM with Platt calibration" baselines.
Its multiclass counterpart without calibration, any classifier's own ``predict_proba`` and the
minimum-expected-cost rule, is :class:`csrepro.decision.bayes_rule.BayesRuleClassifier`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.boosting.cost_sensitive import _BinaryCostBoost, resolve_binary_costs
from csrepro.validation import check_binary_classes, check_targets

__all__ = ["PlattCalibrated"]


class PlattCalibrated(ClassifierMixin, BaseEstimator):
    """``estimator`` with Platt's sigmoid calibration and the cost-sensitive threshold (Platt 1999).

    P(1|x) comes from ``CalibratedClassifierCV(estimator, method="sigmoid", cv=cv,
    ensemble=False)``: the sigmoid is fitted on ``cv``-fold out-of-fold decision values and
    applied to the estimator refitted on all data.  ``decision_function`` is
    log(P/(1 - P)) - log(C2/C1), > 0 exactly when P(1|x) > C2/(C1 + C2), the Bayes decision for
    the costs (VI.3); C1, C2 or ``cost_matrix`` as for the boosters
    (:func:`~csrepro.boosting.cost_sensitive.resolve_binary_costs`; default 1, 1).
    """

    _parameter_constraints: dict = {
        # required (None, the default, is refused): what CalibratedClassifierCV calibrates
        "estimator": [HasMethods(["fit", "decision_function"]), HasMethods(["fit", "predict_proba"])],
        "cv": ["cv_object"],
        **{name: _BinaryCostBoost._parameter_constraints[name] for name in ("C1", "C2", "cost_matrix")},
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, cv=3, C1=None, C2=None, cost_matrix=None, random_state=None):
        self.estimator = estimator
        self.cv = cv
        self.C1 = C1
        self.C2 = C2
        self.cost_matrix = cost_matrix
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Fit the calibrated estimator on (X, y)."""
        self.costs_ = resolve_binary_costs(self.C1, self.C2, self.cost_matrix)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        self.classes_ = np.unique(y)
        check_binary_classes(self, self.classes_)
        self.calibrated_ = CalibratedClassifierCV(clone(self.estimator), method="sigmoid", cv=self.cv,
                                                  ensemble=False).fit(X, y)
        return self

    def predict_proba(self, X):
        """Platt-calibrated (P(classes_[0] | x), P(classes_[1] | x))."""
        check_is_fitted(self)
        return self.calibrated_.predict_proba(validate_data(self, X, dtype=np.float64, reset=False))

    def decision_function(self, X):
        """log-odds of the calibrated P(1|x) minus log(C2/C1)."""
        p = np.clip(self.predict_proba(X)[:, 1], 1e-300, 1 - 1e-16)
        return np.log(p) - np.log1p(-p) - np.log(self.costs_[1] / self.costs_[0])

    def predict(self, X):
        """``classes_[1]`` where P(1|x) > C2/(C1 + C2)."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
