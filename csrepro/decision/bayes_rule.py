"""The minimum-expected-cost rule over a probability model: the Bayes-rule and calibrated Bayes-rule wrappers.

Cost convention (the project's, CONTRACT.md): ``cost_matrix[j, k]`` is the cost of predicting class k when the
true class is j, rows and columns in ``classes_`` order (O'Brien et al.'s c_{i|j} = ``cost_matrix[j, i]``).  Both
wrappers decide by :func:`csrepro.decision.rules.decide`, argmin_k sum_j P_j C[j, k] (ties: the lowest index).

* :class:`BayesRuleClassifier`: any classifier's own ``predict_proba`` and the rule, e.g. the "standard approach"
  of Appel et al. 2016, Fig. 3 (method id ``rebel_standard``) or O'Brien et al.'s eq. (1) on the raw estimates
  (method id ``bayes_rule``).
* :class:`CalibratedBayesClassifier`: scikit-learn's ``CalibratedClassifierCV`` (isotonic or sigmoid) followed by
  the rule, a modern peer of O'Brien et al.'s partition matrices (issue 20).

``labels``: the full label set when a training part may lack some classes, in the order of the cost matrix's rows
and columns (kept as given, duplicates refused); ``classes_`` is then ``labels``.  A class absent from ``y`` gets
probability 0 and stays a possible minimum-expected-cost prediction (e.g. a cheap hedging class).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.costs import check_cost_matrix_for_labels
from csrepro.decision.rules import decide
from csrepro.threads import one_thread
from csrepro.validation import check_labels, check_targets, classes_and_codes, codes_of

__all__ = ["BayesRuleClassifier", "CalibratedBayesClassifier"]


def _labels_and_codes(estimator, y):
    """(classes_, codes of y in classes_): ``labels`` when given, else the labels of ``y``; >= 2 present classes."""
    check_targets(y)
    present = np.unique(y)
    if len(present) < 2:
        raise ValueError(f"{type(estimator).__name__} needs at least 2 classes but the training labels hold only 1 "
                         f"class ({present[0]!r}); a single-class training part cannot train a classifier (use a "
                         "stratified split)")
    return classes_and_codes(y, estimator.labels)


def _seeded(estimator, random_state):
    """A clone of ``estimator`` whose unset ``random_state`` (if it has one) is drawn from ``random_state``."""
    estimator = clone(estimator)
    if random_state is not None and estimator.get_params(deep=False).get("random_state", "absent") is None:
        estimator.set_params(random_state=check_random_state(random_state).randint(np.iinfo(np.int32).max))
    return estimator


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


class CalibratedBayesClassifier(ClassifierMixin, BaseEstimator):
    """Calibrated probabilities followed by the minimum-expected-cost rule, O'Brien et al. 2008 eq. (1).

    ``CalibratedClassifierCV(estimator, method=method, cv=cv, ensemble=ensemble)`` is fitted on (X, y) (scikit-learn,
    ``ensemble=True``: one estimator per fold of ``cv``, each calibrated on its held-out fold, probabilities averaged;
    ``ensemble=False``: the calibration fitted on the folds' out-of-fold predictions and applied to one estimator
    refitted on all of (X, y); multiclass by one-vs-rest calibration and normalisation), then ``predict`` = ``classes_[argmin_k sum_j P_j C[j, k]]``
    (:func:`csrepro.decision.rules.decide`, ties to the lowest index; O'Brien's g(p; c) = argmin_i sum_j c_{i|j} p_j
    with c_{i|j} = C[j, i]).  ``estimator`` default: ``LogisticRegression(max_iter=1000)``; ``cost_matrix`` (K, K),
    rows true and columns predicted class, both in ``classes_`` order (None: 0-1 costs, i.e. the argmax of the calibrated probabilities); ``labels``: all
    classes (module docstring: an absent class gets probability 0); ``random_state`` seeds an estimator whose own
    ``random_state`` is None (integer ``cv`` folds are stratified and unshuffled, so deterministic; fewer folds, at
    least 2, when the rarest class has fewer than ``cv`` members: a class with one member is then absent from one
    fold's training part, which scikit-learn calibrates without it).
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), HasMethods(["fit", "decision_function"]), None],
        "cost_matrix": ["array-like", None],
        "method": [StrOptions({"isotonic", "sigmoid"})],
        "cv": ["cv_object"],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
        "ensemble": ["boolean"],
    }

    def __init__(self, estimator=None, cost_matrix=None, method="isotonic", cv=5, labels=None, random_state=None,
                 ensemble=True):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.method = method
        self.cv = cv
        self.labels = labels
        self.random_state = random_state
        self.ensemble = ensemble

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Fit the calibrated estimator on (X, y) (no costs) and check the cost matrix against ``classes_``."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = _labels_and_codes(self, y)
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        base = LogisticRegression(max_iter=1000) if self.estimator is None else _seeded(self.estimator,
                                                                                         self.random_state)
        folds = self.cv
        if isinstance(folds, numbers.Integral):  # a class rarer than cv: as many folds as its members, at least 2
            smallest = int(np.bincount(codes)[np.bincount(codes) > 0].min())
            with warnings.catch_warnings():  # a class with one member: StratifiedKFold warns, then leaves it out once
                warnings.simplefilter("ignore", UserWarning)
                folds = list(StratifiedKFold(max(2, min(int(folds), smallest))).split(X, codes))  # integer cv's own
        # one BLAS thread: the sigmoid fits and LogisticRegression (scipy's L-BFGS-B on small problems) ran ~20x
        # slower with a multithreaded OpenBLAS on a busy 2-core machine; the experiments parallelise over folds instead
        with one_thread("blas"):
            self.calibrated_ = CalibratedClassifierCV(base, method=self.method, cv=folds,
                                                      ensemble=self.ensemble).fit(X, y)
        self._columns = codes_of(self.classes_, self.calibrated_.classes_)
        return self

    def predict_proba(self, X):
        """Calibrated probabilities (n, K) in ``classes_`` order (0 for a class absent from the training labels)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        P = np.zeros((len(X), len(self.classes_)))
        P[:, self._columns] = self.calibrated_.predict_proba(X)
        return P

    def predict(self, X):
        """The minimum-expected-cost class under ``predict_proba`` (eq. (1); ties: the lowest class index)."""
        P = self.predict_proba(X)
        return self.classes_[decide(P, self.cost_matrix_)]
