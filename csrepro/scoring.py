"""Scoring: a trial's test predictions (:class:`Predictions`), the metric registry (:data:`METRICS`, a
:class:`MetricTable`: name -> f(Predictions) -> value) and :func:`score`, which computes a trial's metrics.

The runner scores each fitted trial with :func:`score`; config checks ``exp.metrics`` against :data:`METRICS`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from csrepro import metrics


@dataclass
class Predictions:
    """One fitted estimator's test predictions, as class indices of the full dataset."""

    y_true: np.ndarray
    y_pred: np.ndarray
    C: np.ndarray
    estimator: object
    X_test: np.ndarray
    classes: np.ndarray

    @property
    def positive(self) -> int:
        """Index of the detected class of a binary problem: the estimator's ``pos_label_`` (detectors,
        csrepro.selection.detection_rate), else ``classes[1]``."""
        label = getattr(self.estimator, "pos_label_", self.classes[-1])
        return int(np.searchsorted(self.classes, label))

    @functools.cached_property
    def proba(self) -> np.ndarray:
        """predict_proba spread over all dataset classes (zero for classes the estimator never saw)."""
        P = np.zeros((len(self.y_true), len(self.classes)))
        P[:, np.searchsorted(self.classes, self.estimator.classes_)] = self.estimator.predict_proba(self.X_test)
        return P


class MetricTable(dict):
    """The runner's metrics: name -> f(Predictions) -> value.  The dict holds the fixed names; ``in`` and ``[]``
    also take the parametrised names of :attr:`families`, whose indices are class indices of the dataset
    (``Predictions.y_true``: positions in the sorted labels):

    * ``confusion_<i>_<j>``: entry (i, j) of the error-focused confusion matrix C_S of the trial's test predictions
      (:func:`csrepro.metrics.error_confusion`; Koço & Capponi 2013, eq. 1): the fraction of class-i test examples
      predicted j (0 for i = j); NaN when the test part has no class-i example;
    * ``class_error_<i>``: 1 - recall of class i, the row sum of C_S (NaN likewise).
    """

    #: family -> (pattern of its names, as written in errors; regex with one group per class index; f(p, *indices))
    families = {
        "confusion": ("confusion_<i>_<j>", re.compile(r"confusion_(\d+)_(\d+)"),
                      lambda p, i, j: _row_or_nan(p, i, metrics.error_confusion(p.y_true, p.y_pred, len(p.classes))[i, j])),
        "class_error": ("class_error_<i>", re.compile(r"class_error_(\d+)"),
                        lambda p, i: _row_or_nan(p, i, 1.0 - metrics.per_class_recall(p.y_true, p.y_pred,
                                                                                       len(p.classes))[i])),
    }

    @classmethod
    def parse(cls, name: str):
        """(family, class indices) of a parametrised metric name, or None."""
        for family, (_, pattern, _) in cls.families.items():
            match = pattern.fullmatch(name) if isinstance(name, str) else None
            if match:
                return family, tuple(int(g) for g in match.groups())
        return None

    @property
    def patterns(self) -> list[str]:
        """The parametrised names as written in errors (``confusion_<i>_<j>``, ...)."""
        return [pattern for pattern, _, _ in self.families.values()]

    def classes_needed(self, name: str) -> int:
        """Classes a dataset needs for metric ``name``: 1 + its largest class index (0 for a fixed name)."""
        parsed = self.parse(name)
        return 1 + max(parsed[1]) if parsed else 0

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or self.parse(name) is not None

    def __missing__(self, name):
        parsed = self.parse(name)
        if parsed is None:
            raise KeyError(name)
        family, indices = parsed
        f = self.families[family][2]
        return lambda p: f(p, *indices)


def _row_or_nan(p: Predictions, i: int, value) -> float:
    """``value`` as a float, NaN when the test part has no example of class i."""
    return float(value) if np.any(p.y_true == i) else float("nan")


METRICS = MetricTable({
    "risk": lambda p: metrics.risk(p.y_true, p.y_pred, p.C),
    "error": lambda p: metrics.error(p.y_true, p.y_pred),
    "accuracy": lambda p: 1.0 - metrics.error(p.y_true, p.y_pred),
    "gmean": lambda p: metrics.g_mean(p.y_true, p.y_pred, len(p.classes)),
    "confusion_norm": lambda p: metrics.confusion_norm(p.y_true, p.y_pred, len(p.classes)),
    "mauc": lambda p: metrics.mauc(p.y_true, p.proba),
    "errors": lambda p: int(np.sum(p.y_true != p.y_pred)),
    "false_positives": lambda p: int(np.sum((p.y_true != p.positive) & (p.y_pred == p.positive))),
    "misses": lambda p: int(np.sum((p.y_true == p.positive) & (p.y_pred != p.positive))),
    "cost_total": lambda p: float(np.sum(p.C[p.y_true, p.y_pred])),
    "zero_crossing": lambda p: metrics.zero_crossing(p.estimator),  # one-feature binary problems (Figure VI.2)
})


def score(p: Predictions, metric_names) -> dict:
    """``{name: value}`` of each metric of ``metric_names`` (names of :data:`METRICS`) on the predictions ``p``."""
    return {name: METRICS[name](p) for name in metric_names}
