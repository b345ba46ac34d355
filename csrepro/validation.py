"""Input checks shared by the estimators, and the warning for a fit that learned nothing."""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight

__all__ = ["IntegerInterval", "check_binary_classes", "check_labels", "check_sample_weight", "check_targets", "classes_and_codes",
           "codes_of", "drop_unweighted", "warn_no_weak_learner"]


class IntegerInterval(Interval):
    """scikit-learn's ``Interval(Integral, left, right, closed=...)`` parameter constraint, without booleans:
    ``n_estimators=True`` is refused in scikit-learn's words ("must be an int in the range ...") instead of
    running one round."""

    def __init__(self, left, right, *, closed):
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


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


def _missing(values: np.ndarray) -> np.ndarray:
    """Indices of the missing entries (None or NaN) of a 1-D array."""
    return np.flatnonzero(pd.isna(values))


#: dtype kinds whose 1-D arrays scikit-learn's ``type_of_target`` always finds "binary" or "multiclass" (integers,
#: booleans, unicode strings; not bytes, which it refuses): valid targets without its checks, which cost 0.7-2 ms
#: per fit (a MetaCost fit makes 101)
LABEL_KINDS = frozenset("iubU")


def check_targets(y) -> None:
    """scikit-learn's check of classification targets (:func:`~sklearn.utils.multiclass.check_classification_targets`),
    after a check of its own for missing labels: ``None`` (or NaN) among string labels makes scikit-learn's sort
    fail with a TypeError that names no input, so such ``y`` is refused here with scikit-learn's own "Unknown label
    type" wording and the index of the first missing label.  A 1-D array of a :data:`LABEL_KINDS` dtype passes
    without either check (it holds no missing label and is a valid target)."""
    values = np.asarray(y)
    if values.ndim == 1 and values.dtype.kind in LABEL_KINDS:
        return
    values = values.ravel() if values.dtype == object else values[:0].ravel()  # only object arrays can hold None
    missing = _missing(values)
    if len(missing):
        raise ValueError(f"Unknown label type: y holds a missing label (None or NaN) at index {missing[0]} "
                         f"({len(missing)} of {len(values)}); give every sample a class label or drop those samples")
    check_classification_targets(y)


def check_sample_weight(sample_weight, X):
    """None for None, else scikit-learn's checked ``sample_weight`` (one finite, non-negative weight per row of
    ``X``, not all zero; its own one-line errors) scaled to mean 1, so that weights of all ones are exactly ones
    and a booster's initial distribution is the normalised weights."""
    if sample_weight is None:
        return None
    sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    return sw * (len(sw) / sw.sum())


def drop_unweighted(sw, *arrays):
    """(sw, *arrays) without the rows of zero sample weight (all of them unchanged when ``sw`` is None): a
    zero-weight row is then exactly a removed row, also where the rows' values place the weak learners'
    thresholds or bins."""
    if sw is None or np.all(sw > 0):
        return (sw, *arrays)
    keep = sw > 0
    return (sw[keep], *(a[keep] for a in arrays))


def check_labels(labels) -> np.ndarray:
    """``labels`` as a 1-D array in the order given (it is the order of ``classes_`` and of the cost matrix's rows
    and columns); ValueError, in one line, unless it holds at least one label, each once, none missing."""
    try:
        classes = np.asarray(labels)
    except ValueError as exc:
        raise ValueError(f"labels must be a flat sequence of class labels, got {labels!r} ({exc})") from None
    if classes.ndim != 1 or len(classes) == 0:
        raise ValueError(f"labels must be a non-empty flat sequence of class labels, got {labels!r}")
    missing = _missing(classes)
    if len(missing):
        raise ValueError(f"labels[{missing[0]}] is {classes[missing[0]]!r}; every entry of labels must be a class label")
    try:
        unique, counts = np.unique(classes, return_counts=True)
    except TypeError:
        raise ValueError(f"labels mix label types ({sorted({type(v).__name__ for v in classes.tolist()})}); give "
                         "labels of one type, as in y") from None
    if len(unique) < len(classes):
        raise ValueError(f"labels has duplicates {unique[counts > 1].tolist()}; give each class once, in the order "
                         "of the cost matrix's rows and columns")
    return classes


def codes_of(classes, values, what="training labels") -> np.ndarray:
    """The index of each of ``values`` in ``classes`` (any order; sorted classes give ``np.searchsorted``'s
    indices); ValueError naming the ``what`` that are not among ``classes``."""
    classes, values = np.asarray(classes), np.asarray(values)
    order = np.argsort(classes, kind="stable")
    try:
        pos = np.minimum(np.searchsorted(classes, values, sorter=order), len(classes) - 1)
        found = classes[order[pos]] == values
    except TypeError:
        found = np.zeros(len(values), dtype=bool)
    if not np.all(found):
        unknown = list(dict.fromkeys(values[~found].tolist()))
        raise ValueError(f"{what} {unknown[:10]} are not in labels={classes.tolist()}; add them to "
                         "`labels` or drop those samples")
    return order[pos]


def classes_and_codes(y, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """(classes, codes): ``labels`` exactly as given (:func:`check_labels`: its order is that of ``classes_`` and of
    the cost matrix's rows and columns) or, when None, the sorted labels of ``y`` (scikit-learn's ``classes_``); and
    the index of each label of ``y`` in them.  ``labels`` lets an estimator cover classes absent from a training
    part (the runner passes every class of the dataset); a training label outside ``labels`` is a ValueError
    naming it."""
    if labels is None:
        classes = np.unique(y)
        return classes, np.searchsorted(classes, y)
    classes = check_labels(labels)
    return classes, codes_of(classes, y)


def warn_no_weak_learner(estimator, why: str) -> None:
    """ConvergenceWarning for a boosting fit of ``estimator`` that stopped before its first weak learner (``why``):
    it is a constant model, and is not to pass silently for one that learned."""
    warnings.warn(f"{type(estimator).__name__} stopped before its first weak learner: {why}. It is a constant model "
                  "(the same scores for every x); check the costs, the weak learner and the features",
                  ConvergenceWarning, stacklevel=4)
