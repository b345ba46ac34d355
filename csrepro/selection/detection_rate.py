"""Model selection for a target detection rate (Masnadi-Shirazi thesis, Sec. VI.E; Sec. V.E for the SVMs).

"The training set [is] split into five folds, four of which were used for training and one for
validation.  The latter served to tune parameters (cost parameters and classifier threshold) so as
to minimize ... the number of false positives at a given detection rate" (Sec. VI.E).
:class:`DetectionRateClassifier` does this for any scikit-learn classifier and parameter grid:
every grid point is scored by its pooled out-of-fold decision values, its threshold is the
largest one meeting the detection rate (:func:`csrepro.metrics.detection_at_rate`), the point with
the fewest out-of-fold false positives wins (ties: first in grid order), and it is refitted on
all training data with that cross-validated threshold.  (:class:`csrepro.selection.svm.
DetectionRateSVC` is the same protocol with warm-started SMO solves for the Ch. V SVMs.)

The out-of-fold scores and refits do not depend on the target rate, so they are kept in a small
per-process cache (:data:`CROSS_VALIDATIONS`, :mod:`csrepro.cache`) keyed by (estimator, grid,
folds, training data): the method ids of one method
at five detection rates, run one after the other on a trial's training part, share one
cross-validation.  The inner folds are seeded by ``cv_seed``, not by ``random_state`` (which
the runner derives from the method id), so that they are shared too; ``cv_seed`` also seeds
randomised estimators (random forests).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.model_selection import LeaveOneOut, ParameterGrid, StratifiedKFold
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro._kernels import backend
from csrepro.cache import fingerprint, named_cache
from csrepro.metrics import detection_at_rate
from csrepro.validation import IntegerInterval, check_binary_classes, check_targets

__all__ = ["CROSS_VALIDATIONS", "CV_CONSTRAINT", "DetectionRateClassifier", "POSITIVES", "detected_class",
           "detected_labels", "inner_folds", "select_at_rate", "signed_for_last"]

#: the detected class: ``classes_[1]`` ("last"), the rarer training class ("minority") or ``classes_[0]`` ("first")
POSITIVES = ("last", "minority", "first")
#: ``cv`` of the detection-rate selectors (scikit-learn parameter constraint): leave-one-out or k >= 2 folds
CV_CONSTRAINT = [StrOptions({"loo"}), IntegerInterval(2, None, closed="left")]

#: out-of-fold scores and refits of the 8 most recently used (estimator, grid, folds, training data)
CROSS_VALIDATIONS = named_cache("detection_rate_cv", maxsize=8)


def inner_folds(ys, cv, seed):
    """Stratified, shuffled ``cv``-fold (train, test) pairs of the +-1 labels ``ys``; None for ``cv="loo"``.

    Errors name the fix for a ``cv`` that is not "loo" or an int >= 2, or that exceeds the smaller class.
    """
    if cv == "loo":
        return None
    if isinstance(cv, bool) or not (isinstance(cv, (int, np.integer)) and cv >= 2):
        raise ValueError(f"cv must be 'loo' or an int >= 2, got {cv!r}")
    n_min = int(min(np.sum(ys > 0), np.sum(ys < 0)))
    if cv > n_min:
        raise ValueError(f"cv={cv} folds but the smaller class has only {n_min} training examples; "
                         "lower cv or use cv='loo'")
    return list(StratifiedKFold(cv, shuffle=True, random_state=seed).split(ys, ys))


def detected_class(y, classes, positive):
    """The class a detector detects among the two ``classes`` of labels ``y``: ``classes[1]`` for
    ``positive="last"``, ``classes[0]`` for "first", the rarer class for "minority" (ties: ``classes[1]``)."""
    if positive not in POSITIVES:
        raise ValueError(f"positive must be one of {list(POSITIVES)}, got {positive!r}")
    if positive == "first":
        return classes[0]
    counts = [np.sum(y == c) for c in classes]
    return classes[0] if positive == "minority" and counts[0] < counts[1] else classes[1]


def signed_for_last(values, classes, pos_label):
    """Detection values (> 0: ``pos_label``) signed so that > 0 means ``classes[1]`` (scikit-learn's
    binary ``decision_function``) on exactly the same rows: for ``pos_label = classes[0]``,
    tiny - values with tiny the smallest positive float, so that a tie (0, not detected) is > 0."""
    return values if pos_label == classes[1] else np.nextafter(0.0, 1.0) - values


def detected_labels(detected, classes, pos_label):
    """``pos_label`` where ``detected``, else the other of the two ``classes``."""
    other = classes[0] if pos_label == classes[1] else classes[1]
    return np.where(detected, pos_label, other)


def select_at_rate(ys, scores, rate):
    """(index, points): the grid point whose out-of-fold ``scores`` meet ``rate`` on the +-1 labels ``ys``
    with the fewest false positives (ties: first in grid order), and every point's
    :func:`~csrepro.metrics.detection_at_rate` (threshold, detection rate, false positives)."""
    points = [detection_at_rate(ys, s, rate, pos_label=1.0) for s in scores]
    return min(range(len(points)), key=lambda i: points[i].false_positives), points


class DetectionRateClassifier(ClassifierMixin, BaseEstimator):
    """``estimator`` with parameters from ``param_grid`` and a threshold meeting a detection rate.

    Parameters
    ----------
    estimator : binary classifier with ``decision_function`` (> 0 predicts its ``classes_[1]``).
    param_grid : dict or list of dicts (``sklearn.model_selection.ParameterGrid``); None = {}.
    target_detection_rate : float in (0, 1]
        Fraction of the detected class the out-of-fold predictions must find.
    positive : {"last", "minority", "first"}
        The detected class: ``classes_[1]`` (sorted label order), the rarer class of the
        training labels (ties: ``classes_[1]``), or ``classes_[0]``.  The estimator is fitted on 0/1 labels
        with the detected class as 1, so its costs (C1 = miss cost) refer to that class.
    cv : int >= 2 or "loo"
        Stratified k-fold (the thesis' five folds, Sec. VI.E) or leave-one-out.
    cv_seed : int
        Seed of the stratified shuffle and of the estimator's ``random_state`` when it has one
        (shared by all rates and methods of a training part).
    random_state : ignored
        Accepted for the runner's interface: the runner's per-method seed would stop the rates from sharing
        their cross-validation.  There is no ``cost_matrix``: the detection-rate target replaces costs.

    Fitted: ``best_params_``, ``threshold_`` (cross-validated threshold on the decision values),
    ``cv_false_positives_``, ``cv_detection_rate_``, ``cv_results_`` (one dict per grid point),
    ``best_estimator_``, ``classes_``.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "decision_function"])],  # required: None, the default, is refused
        "param_grid": [dict, list, None],
        "target_detection_rate": [Interval(Real, 0, 1, closed="right")],
        "positive": [StrOptions(set(POSITIVES))],
        "cv": CV_CONSTRAINT,
        "cv_seed": ["random_state"],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, param_grid=None, target_detection_rate=0.9, positive="last", cv=5,
                 cv_seed=0, random_state=None):
        self.estimator = estimator
        self.param_grid = param_grid
        self.target_detection_rate = target_detection_rate
        self.positive = positive
        self.cv = cv
        self.cv_seed = cv_seed
        self.random_state = random_state

    def _estimator_and_grid(self):
        """(template estimator, list of parameter dicts); subclasses build them from flat parameters."""
        return self.estimator, list(ParameterGrid(self.param_grid or {}))

    def _splits(self, ys):
        folds = inner_folds(ys, self.cv, self.cv_seed)
        return list(LeaveOneOut().split(ys)) if folds is None else folds

    def _template(self, template, params):
        est = clone(template).set_params(**params)
        if "random_state" in est.get_params(deep=False):
            est.set_params(random_state=self.cv_seed)
        return est

    def _cross_validate(self, X, y, ys, template, grid):
        """Cached entry {"scores": [out-of-fold decision values per grid point], "models": {}} of (X, y)."""
        est = self._template(template, {})
        key = fingerprint(f"{type(est).__module__}.{type(est).__qualname__}",
                          repr(sorted(est.get_params(deep=False).items(), key=str)), grid, self.cv, self.cv_seed, X, y,
                          backend.current())

        def cross_validate():
            splits = self._splits(ys)
            scores = []
            for params in grid:
                s = np.empty(len(y))
                for train, test in splits:
                    s[test] = self._template(template, params).fit(X[train], y[train]).decision_function(X[test])
                scores.append(s)
            return {"scores": scores, "models": {}}

        return CROSS_VALIDATIONS.get(key, cross_validate)

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's fits validate its (grid) parameters
    def fit(self, X, y):
        """Cross-validate the grid on (X, y) for the target detection rate, then refit the best point."""
        d = float(self.target_detection_rate)
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_targets(y)
        self.classes_ = np.unique(y)
        check_binary_classes(self, self.classes_)
        self.pos_label_ = detected_class(y, self.classes_, self.positive)
        z = (y == self.pos_label_).astype(int)  # the estimator sees the detected class as 1
        ys = np.where(z == 1, 1.0, -1.0)
        template, grid = self._estimator_and_grid()
        entry = self._cross_validate(X, z, ys, template, grid)
        best, points = select_at_rate(ys, entry["scores"], d)
        self.cv_results_ = [{**params, "threshold": p.threshold, "detection_rate": p.detection_rate,
                             "false_positives": p.false_positives} for params, p in zip(grid, points, strict=True)]
        self.best_params_ = grid[best]
        self.threshold_ = self.cv_results_[best]["threshold"]
        self.cv_false_positives_ = self.cv_results_[best]["false_positives"]
        self.cv_detection_rate_ = self.cv_results_[best]["detection_rate"]
        if best not in entry["models"]:
            entry["models"][best] = self._template(template, self.best_params_).fit(X, z)
        self.best_estimator_ = entry["models"][best]
        return self

    def _detection(self, X):
        """Decision values f of ``best_estimator_`` less the float just below ``threshold_``: > 0 (f >= threshold_)
        predicts the detected class, ties included (:func:`~csrepro.metrics.detection_at_rate`)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        return self.best_estimator_.decision_function(X) - np.nextafter(self.threshold_, -np.inf)

    def decision_function(self, X):
        """The thresholded decision values, signed so that > 0 is exactly where ``predict`` gives ``classes_[1]``."""
        return signed_for_last(self._detection(X), self.classes_, self.pos_label_)

    def predict(self, X):
        """The detected class where the decision value is >= ``threshold_``, else the other class."""
        return detected_labels(self._detection(X) > 0, self.classes_, self.pos_label_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
