"""Inner cross-validation of one parameter for experiment entries with ``inner_cv: {param, values, folds}``
(csrepro.config.MethodEntry)."""

from __future__ import annotations

from sklearn.model_selection import GridSearchCV, StratifiedKFold


def inner_cv(estimator, cv: dict, random_state: int) -> GridSearchCV:
    """``estimator`` whose ``cv["param"]`` is chosen among ``cv["values"]`` on the training part only.

    Stratified ``cv["folds"]``-fold cross-validation (shuffled with ``random_state``, the trial's
    model seed) scores each value by accuracy; ties go to the first value listed; the estimator
    is then refitted on the whole training part with the chosen value (``best_params_``).
    """
    folds = StratifiedKFold(n_splits=cv.get("folds", 5), shuffle=True, random_state=random_state)
    return GridSearchCV(estimator, {cv["param"]: list(cv["values"])}, cv=folds, scoring="accuracy", refit=True,
                        error_score="raise")
