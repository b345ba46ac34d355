"""Decision stumps over binned features: h(x) = left if x_j <= t else right, all features and thresholds.

With a :class:`~csrepro.weak.criteria.Discrete` criterion the outputs are -1/+1 (threshold and
polarity, the binary rules of AdaBoost, thesis (VI.17)); with a Cells criterion (e.g.
:class:`~csrepro.weak.criteria.LeastSquares` for LogitBoost's regression stumps, or
:func:`~csrepro.weak.criteria.posterior_cells` for RealBoost) each side outputs its cell value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete, SignRegression
from csrepro.weak.splits import cell_losses, discrete_pick, first_min, scan_node


@dataclass(frozen=True, eq=False)
class Stump:
    """A fitted stump.  Cells are (left, right): ``values`` (2,) outputs, or (2, K) K-vectors, ``cell_sums``
    (2, k) channel sums of the training samples on each side; ``score`` is the criterion's value."""

    feature: int
    threshold: float
    values: np.ndarray
    cell_sums: np.ndarray
    score: float

    def predict(self, X: np.ndarray) -> np.ndarray:
        """h(x) for each row of X: shape (n,), or (n, K) for K-vector cells."""
        return self.values[np.where(X[:, self.feature] <= self.threshold, 0, 1)]


class StumpLearner:
    """Best stump for channels and a criterion; ties go to the lowest feature, then threshold,
    then (discrete) the polarity "+1 above the threshold"."""

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> Stump | None:
        """The stump minimising ``criterion``; None when every feature is constant."""
        return self._fit(data, channels, criterion)[0]

    def fit_predict(self, data: BinnedData, channels: np.ndarray, criterion) -> tuple[Stump | None, np.ndarray | None]:
        """``fit``'s stump and its outputs on the training rows, ``stump.predict`` of the training X (a split on codes
        is the rule on raw values), from the feature's codes.  (None, None) when every feature is constant."""
        h, b = self._fit(data, channels, criterion)
        if h is None:
            return None, None
        column = data.column(h.feature)
        if h.values.ndim == 1:  # two outputs: in one pass (the kernel's split_outputs)
            return h, data.kernel.split_outputs(column, b, h.values[0], h.values[1], np.empty(len(column)))
        return h, h.values[(column > b).view(np.uint8)]

    def _fit(self, data, channels, criterion):
        """(the stump, its bin: "code <= bin" goes left), or (None, None)."""
        if isinstance(criterion, SignRegression):
            raise TypeError("stumps fit Discrete or Cells criteria; SignRegression is the line learner's")
        flat, feature, b = data.candidates
        if len(flat) == 0:
            return None, None
        scan = scan_node(data, data.histogram(channels))
        if isinstance(criterion, Discrete):
            scores, best, _ = discrete_pick(scan, criterion)  # best: first_min(scores)
            c, flip = divmod(best, 2)
            values = np.array([1.0, -1.0]) if flip else np.array([-1.0, 1.0])
        else:
            scores = cell_losses(scan, criterion)
            c = best = first_min(scores)
            values = np.array([criterion.value(scan.L[c]), criterion.value(scan.R[c])], dtype=float)
        return Stump(int(feature[c]), data.threshold(int(feature[c]), int(b[c])), values,
                     np.vstack([scan.L[c], scan.R[c]]), float(scores[best])), int(b[c])
