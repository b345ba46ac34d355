"""Input checks shared by the estimators."""

from __future__ import annotations

import numpy as np

__all__ = ["check_binary_classes"]


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
