"""Input checks shared by the estimators."""

from __future__ import annotations

import numpy as np

__all__ = ["check_binary_classes", "classes_and_codes"]


def check_binary_classes(estimator, classes) -> None:
    """Raise ValueError unless the training labels of binary-only ``estimator`` hold exactly two ``classes``.

    More than two: the message starts "Only binary classification is supported", as scikit-learn's
    ``check_classifier_not_supporting_multiclass`` expects; fewer: a single-class training part.
    """
    name, labels = type(estimator).__name__, np.asarray(classes).tolist()
    if len(labels) > 2:
        raise ValueError(f"Only binary classification is supported. {name} got {len(labels)} classes {labels[:10]}; "
                         "give it exactly two classes, or use a multiclass method (e.g. wrap it in "
                         "sklearn.multiclass.OneVsRestClassifier)")
    if len(labels) < 2:
        raise ValueError(f"{name} needs 2 classes but the training labels hold only {len(labels)} class {labels}; "
                         "a single-class training fold cannot train a classifier (use a stratified split)")


def classes_and_codes(y, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """(classes, codes): ``labels`` (sorted, unique) when given, else the sorted labels of ``y``, and the index of each
    label of ``y`` in them.  ``labels`` lets an estimator cover classes absent from a training part (the runner passes
    every class of the dataset); a training label outside ``labels`` is a ValueError naming it."""
    present = np.unique(y)
    classes = present if labels is None else np.unique(np.asarray(labels))
    unknown = np.setdiff1d(present, classes)
    if len(unknown):
        raise ValueError(f"training labels {unknown.tolist()} are not in labels={classes.tolist()}; add them to "
                         "`labels` or drop those samples")
    return classes, np.searchsorted(classes, y)
