"""The number of weak learners of a staged estimator, chosen on a validation part of its training data.

:class:`RoundsOnValidation` serves the experiment entries with ``rounds_on_validation: {val_size, criterion}``
(csrepro.config.MethodEntry) and the REBEL protocol (Appel et al. 2016, Sec. 5.1: "50% of the samples for
training, 25% for validation (i.e. for finding the optimal number of weak learners), and the remaining 25%
for testing"): the estimator is fitted once on the training rows minus a stratified validation part, and
kept truncated at the best round, with no refit on the validation rows.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.costs import check_cost_matrix_for_labels
from csrepro.data.protocols import holdout

__all__ = ["CRITERIA", "RoundsOnValidation", "staged_scores"]

CRITERIA = ("error", "cost")


def staged_scores(estimator, X, y, criterion: str = "error", cost_matrix=None) -> np.ndarray:
    """Mean validation error (or cost ``cost_matrix[y, prediction]``, classes in ``estimator.classes_`` order)
    after each round 1..T of a fitted ``estimator`` with ``staged_predict``; shape (T,)."""
    classes = estimator.classes_
    truth = np.searchsorted(classes, y)
    out = []
    for pred in estimator.staged_predict(X):
        if criterion == "error":
            out.append(np.mean(pred != y))
        else:
            out.append(cost_matrix[truth, np.searchsorted(classes, pred)].mean())
    return np.asarray(out, dtype=np.float64)


def _inner_has(name):
    return lambda self: hasattr(self.estimator, name)


class RoundsOnValidation(ClassifierMixin, BaseEstimator):
    """``estimator`` truncated at the number of weak learners with the lowest validation error (or cost).

    ``fit`` splits (X, y) with :func:`csrepro.data.protocols.holdout` (``test_size=val_size``,
    stratified, seeded by ``random_state``; every class keeps a training row), fits a clone of
    ``estimator`` on the rest, scores each stage of its ``staged_predict`` on the validation part
    (:func:`staged_scores`) and keeps the smallest round count reaching the minimum (ties: fewest
    rounds).  The fitted model is not refitted: ``predict`` and ``decision_function`` are the stage
    ``best_n_estimators_`` of ``staged_predict`` / ``staged_decision_function``.  An estimator with a
    ``labels`` parameter left at None is given every class of ``y``, so a class missing from the
    training part still has a score.

    Parameters
    ----------
    estimator : classifier with ``fit`` and ``staged_predict``
        E.g. :class:`~csrepro.boosting.rebel.REBELClassifier`; its ``n_estimators`` is the maximum.
    val_size : float in (0, 1) or int
        The validation part: a fraction of the rows (1/3 of the 75 % left after a 25 % test part gives
        the paper's 50/25/25) or a row count.
    criterion : {"error", "cost"}
        Mean 0-1 error, or mean ``cost_matrix[y, prediction]`` on the validation part.
    cost_matrix : array (K, K) or None
        Costs in sorted-label order (the fitted estimator's ``classes_``); required by ``"cost"``.
    random_state : int or None
        Seed of the validation split.

    Attributes
    ----------
    estimator_ (the fitted clone, all rounds), best_n_estimators_, validation_scores_ (T,), classes_,
    n_features_in_.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "staged_predict"])],
        "val_size": [Interval(Real, 0, 1, closed="neither"), Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions(set(CRITERIA))],
        "cost_matrix": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, val_size=1 / 3, criterion="error", cost_matrix=None, random_state=None):
        self.estimator = estimator
        self.val_size = val_size
        self.criterion = criterion
        self.cost_matrix = cost_matrix
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Fit on (X, y) minus the validation part and choose the round count on that part."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        labels = np.unique(y)
        if self.criterion == "cost" and self.cost_matrix is None:
            raise ValueError("criterion='cost' needs a cost_matrix; pass one or use criterion='error'")
        seed = self.random_state
        if seed is not None and not isinstance(seed, (int, np.integer)):  # a RandomState instance
            seed = int(check_random_state(seed).randint(2**31))
        try:
            train, val = holdout(y, test_size=self.val_size, random_state=seed)
        except ValueError as err:
            raise ValueError(f"cannot hold out val_size={self.val_size!r} of n_samples = {len(y)} training rows: {err}") \
                from None
        estimator = clone(self.estimator)
        if "labels" in estimator.get_params() and estimator.get_params()["labels"] is None:
            estimator.set_params(labels=labels)
        estimator.fit(X[train], y[train])
        C = None
        if self.criterion == "cost":
            C = check_cost_matrix_for_labels(self.cost_matrix, estimator.classes_)
        scores = staged_scores(estimator, X[val], y[val], self.criterion, C)
        if not len(scores):
            raise ValueError(f"{type(estimator).__name__} fitted no weak learner (staged_predict yielded nothing); "
                             "check its n_estimators and the training data")
        self.estimator_ = estimator
        self.validation_scores_ = scores
        self.best_n_estimators_ = int(np.argmin(scores)) + 1
        self.classes_ = estimator.classes_
        return self

    def _stage(self, staged):
        for i, value in enumerate(staged, start=1):
            if i == self.best_n_estimators_:
                return value
        raise RuntimeError("the fitted estimator yields fewer stages than best_n_estimators_")

    def _X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def predict(self, X):
        """Predictions of the model truncated at ``best_n_estimators_`` weak learners."""
        X = self._X(X)
        return self._stage(self.estimator_.staged_predict(X))

    @available_if(_inner_has("staged_decision_function"))
    def decision_function(self, X):
        """Decision function of the model truncated at ``best_n_estimators_`` weak learners."""
        X = self._X(X)
        return self._stage(self.estimator_.staged_decision_function(X))

    @available_if(_inner_has("staged_predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the model truncated at ``best_n_estimators_`` weak learners."""
        X = self._X(X)
        return self._stage(self.estimator_.staged_predict_proba(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            tags.classifier_tags.multi_class = get_tags(self.estimator).classifier_tags.multi_class
        return tags
