"""Weak learners: small Python faces over the kernels in :mod:`csrepro._kernels`, all following the one
protocol of :mod:`csrepro.weak.base` (``fit(data, channels, criterion)`` -> a hypothesis with ``predict``,
or None).

Learners: :class:`~csrepro.weak.stumps.StumpLearner`, :class:`~csrepro.weak.trees.TreeLearner`,
:class:`~csrepro.weak.histograms.HistogramLearner`, :class:`~csrepro.weak.lines.LineLearner`; what they fit:
:mod:`csrepro.weak.criteria`; their data: :class:`~csrepro.weak.binning.BinnedData`.
"""

from csrepro.weak.base import WeakHypothesis, WeakLearner

__all__ = ["WeakHypothesis", "WeakLearner"]
