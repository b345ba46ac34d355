"""Platt-calibrated classifiers with the cost-sensitive threshold: baselines of thesis Sec. VI.E.2.

:class:`PlattCalibrated` wraps any binary classifier with Platt's sigmoid (scikit-learn's
``CalibratedClassifierCV(method="sigmoid")``) and the cost-sensitive threshold P(1|x) >
C2/(C1 + C2): the "AdaBoost/RealBoost/LogitBoost/SVM with Platt calibration" baselines.
:class:`BayesRuleClassifier` is its multiclass counterpart without calibration: any classifier's own
``predict_proba`` and the minimum-expected-cost rule (:func:`csrepro.decision.rules.decide`) for a cost matrix, e.g. the
"standard approach" of Appel et al. 2016, Fig. 3 (method id ``rebel_standard``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.boosting.cost_sensitive import _BinaryCostBoost, resolve_binary_costs
from csrepro.costs import check_cost_matrix_for_labels
from csrepro.decision.rules import decide
from csrepro.validation import check_binary_classes, check_labels, check_targets, codes_of

__all__ = ["BayesRuleClassifier", "PlattCalibrated"]


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


class BayesRuleClassifier(ClassifierMixin, BaseEstimator):
    """``estimator`` trained on the data alone, its ``predict_proba`` and the Bayes rule for ``cost_matrix`` at test time.

    ``predict`` = ``classes_[argmin_k sum_j P(j | x) C[j, k]]`` (:func:`csrepro.decision.rules.decide`;
    Beijbom et al. 2014 eq. 3); the posteriors are the estimator's own, not recalibrated.  The
    estimator is cloned and fitted without the costs (it should be cost-neutral: the costs enter only
    here).  ``labels`` (all classes, in the order of the cost matrix's rows and columns, kept as given) is
    ``classes_`` and is passed on to an estimator with a ``labels`` parameter so that its posteriors cover classes
    missing from ``y``; the estimator's ``predict_proba`` columns are put in ``labels`` order (a class it never saw
    gets 0).  ``cost_matrix``: ``C[j, k]`` = cost of predicting ``classes_[k]`` when the truth is ``classes_[j]``
    (rows true, columns predicted; None: 0-1 costs, i.e. the argmax of the posteriors).
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "cost_matrix": ["array-like", None],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, cost_matrix=None, labels=None, random_state=None):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Fit the estimator on (X, y) (no costs) and check the cost matrix against its classes."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        estimator = clone(self.estimator)
        params = estimator.get_params(deep=False)
        labels = None if self.labels is None else check_labels(self.labels)
        expected = np.unique(y) if labels is None else labels  # bad labels or costs stop before the estimator's fit
        if labels is not None:
            codes_of(labels, np.unique(y))
        if len(expected) >= 2:  # fewer: the estimator's own error
            check_cost_matrix_for_labels(self.cost_matrix, expected)
        if labels is not None and "labels" in params and params["labels"] is None:
            estimator.set_params(labels=labels)
        self.estimator_ = estimator.fit(X, y)
        self.classes_ = self.estimator_.classes_ if labels is None else labels
        self._columns = codes_of(self.classes_, self.estimator_.classes_)
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        return self

    def predict_proba(self, X):
        """The estimator's posterior estimates (n, K), columns in ``classes_`` order."""
        check_is_fitted(self)
        return self._in_order(self.estimator_.predict_proba(validate_data(self, X, dtype=np.float64, reset=False)))

    def _in_order(self, P):
        """The estimator's probabilities ``P`` with their columns in ``classes_`` order."""
        if np.array_equal(self._columns, np.arange(len(self.classes_))):
            return P
        full = np.zeros((len(P), len(self.classes_)))
        full[:, self._columns] = P
        return full

    def predict(self, X):
        """The minimum-expected-cost class under ``predict_proba`` (ties: the lowest class index)."""
        P = self.predict_proba(X)
        return self.classes_[decide(P, self.cost_matrix_)]

    @available_if(lambda self: hasattr(self.estimator, "staged_predict_proba"))
    def staged_predict(self, X):
        """The minimum-expected-cost class after each round of a boosted estimator (its ``staged_predict_proba``),
        so that its number of rounds can be chosen on validation cost (csrepro.selection.rounds)."""
        check_is_fitted(self)
        for P in self.estimator_.staged_predict_proba(validate_data(self, X, dtype=np.float64, reset=False)):
            yield self.classes_[decide(self._in_order(P), self.cost_matrix_)]
