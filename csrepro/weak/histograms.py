"""Histogram weak learners: one feature, one real output per bin (RealBoost-style posterior steps).

The fine bins of :class:`~csrepro.weak.binning.BinnedData` are grouped into at most ``n_bins``
bins per feature of about equal training counts; bin c outputs ``criterion.value(S_c)`` from its
channel sums, e.g. 1/2 log(P+ / P-) of regularised class weights for RealBoost (thesis (VI.23)),
the cost-sensitive (VI.46), or a loss's link of the posterior -- see
:func:`~csrepro.weak.criteria.posterior_cells`, whose smoothing keeps empty bins finite.
The feature whose bins have the smallest total ``criterion.loss`` is chosen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from csrepro.weak.binning import BinnedData, quantile_groups
from csrepro.weak.criteria import Discrete, SignRegression
from csrepro.weak.splits import first_min


@dataclass(frozen=True, eq=False)
class HistogramStep:
    """A fitted histogram learner: bin c = #{edges < x_feature}; ``values`` (n_cells,) per bin, or
    (n_cells, K) K-vectors."""

    feature: int
    edges: np.ndarray
    values: np.ndarray
    cell_sums: np.ndarray
    score: float

    def predict(self, X: np.ndarray) -> np.ndarray:
        """h(x) for each row of X: shape (n,), or (n, K) for K-vector bins."""
        return self.values[np.searchsorted(self.edges, X[:, self.feature], side="left")]


class HistogramLearner:
    """Histogram weak learner with at most ``n_bins`` equal-count bins per feature (fixed per fit)."""

    def __init__(self, n_bins: int = 16):
        if not (isinstance(n_bins, (int, np.integer)) and n_bins >= 1):
            raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")
        self.n_bins = int(n_bins)

    def layout(self, data: BinnedData):
        """(group starts on the flat bin axis, first group of each feature, raw edges per feature, the group of each
        fine bin per feature), once per fit."""
        key = ("histogram_layout", self.n_bins)
        if key not in data.cache:
            m = data.mapper
            starts, first, edges, groups = [], [], [], []
            for j in range(data.n_features):
                s = quantile_groups(m.counts[j], self.n_bins)
                first.append(sum(len(x) for x in starts))
                starts.append(m.offsets[j] + s)
                edges.append(m.thresholds[j][s[1:] - 1])
                groups.append(np.repeat(np.arange(len(s)), np.diff(np.append(s, len(m.counts[j])))))
            data.cache[key] = (np.concatenate(starts), np.array(first), tuple(edges), tuple(groups))
        return data.cache[key]

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> HistogramStep:
        """The feature whose per-bin outputs minimise the summed cell loss (ties: lowest index)."""
        if isinstance(criterion, (Discrete, SignRegression)):
            raise TypeError("the histogram learner outputs one real value per bin; give it a Cells criterion "
                            "(e.g. csrepro.weak.criteria.posterior_cells), or use stumps/trees for -1/+1 outputs")
        starts, first, edges, _ = self.layout(data)
        S = np.add.reduceat(data.histogram(channels), starts, axis=0)
        values = criterion.value(S)
        per_feature = np.add.reduceat(criterion.loss(S, values), first)
        j = first_min(per_feature)
        cells = slice(first[j], first[j + 1] if j + 1 < len(first) else len(S))
        return HistogramStep(j, edges[j], np.asarray(values[cells], dtype=float), S[cells], float(per_feature[j]))

    def fit_predict(self, data: BinnedData, channels: np.ndarray, criterion) -> tuple[HistogramStep, np.ndarray]:
        """``fit``'s step and its outputs on the training rows, ``step.predict`` of the training X bit for bit (a
        row's bin is the group of its fine bin: the edges are the groups' last thresholds), from the feature's
        codes."""
        h = self.fit(data, channels, criterion)
        return h, h.values[self.layout(data)[3][h.feature]][data.column(h.feature)]
