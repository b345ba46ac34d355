"""The weak-learner protocol, the same for every booster of the library.

Each round a booster calls ::

    h = learner.fit(data, channels, criterion)   # a WeakHypothesis, or None
    hx = h.predict(X)                            # (n,), or (n, K) for K-vector cells

"fit(X, targets, sample weights)" in this form:

* ``data`` -- :class:`~csrepro.weak.binning.BinnedData`: the training features X (n, d), made
  once per booster fit.  It bins X on first use of ``data.codes`` / ``data.mapper``, so a learner
  on the raw features (lines) costs no binning; ``data.histogram(channels, rows)`` sums channels
  per bin (the kernel :mod:`csrepro._kernels.histogram`, any number k of channels);
  ``data.backend`` picks the kernels or their NumPy references; ``data.cache`` holds what a
  learner derives once per fit.
* ``channels`` -- (n, k) floats set by the booster: the per-sample targets with the sample
  weights folded in, so that the sums of a cell (a stump side, a leaf, a bin) are all a
  criterion needs: :func:`~csrepro.weak.criteria.class_channels` (w 1[y = +1], w 1[y = -1]),
  :func:`~csrepro.weak.criteria.wls_channels` (w, w z) for least squares of z, MCBoost's one
  channel w.  Scalar targets are the K = 1 case of K-vector targets: K-vector targets give more
  channels (e.g. 2K), the same kernels sum them.
* ``criterion`` -- what to minimise (:mod:`csrepro.weak.criteria`):
  :class:`~csrepro.weak.criteria.Discrete` ``score(pos, neg)`` for {-1, +1}-valued learners;
  a cells criterion -- :class:`~csrepro.weak.criteria.Cells`, or any object with its ``value(S)``
  (the cell's output from its sums S (..., k)) and ``loss(S, value)`` -- for real-valued cells;
  :class:`~csrepro.weak.criteria.LeastSquares` (cells and lines) and
  :class:`~csrepro.weak.criteria.SignRegression` (lines: MCBoost's eq. 30).  A learner raises
  TypeError for a kind of criterion it cannot fit.

``fit`` returns a :class:`WeakHypothesis`: ``predict(X)`` on raw features gives (n,) for scalar
cell values, (n, K) when the criterion's ``value`` returns K-vectors; fitted hypotheses also carry
``score`` (the criterion at the fit) and, for cell learners, ``values`` and ``cell_sums`` (the
channel sums of each cell), from which a booster takes its step (e.g. AdaBoost's alpha).  It
returns None when nothing can be fitted (every feature constant for stumps and trees, all
weights zero for lines); boosters stop there.  Learners keep no state between fits besides
their constructor parameters.

Optional: ``h, hx = learner.fit_predict(data, channels, criterion)`` returns the same ``h`` as
``fit`` and ``hx = h.predict(X)`` on the training rows, bit for bit, taken from the partition the
fit made (stumps and histograms: the feature's codes; trees: each leaf's rows), so a booster need not walk X
down ``h`` again; ``hx`` is None when ``h`` is.  A booster uses it where a learner has it.

K-vector cells.  A cells criterion whose ``value`` maps sums (..., k) to (..., K) makes every
cell learner -- :class:`~csrepro.weak.stumps.StumpLearner`, :class:`~csrepro.weak.trees.TreeLearner`,
:class:`~csrepro.weak.histograms.HistogramLearner` -- grow cells holding K-vectors from the
k-channel histograms, with no change to them or to the kernels: the scan scores candidates
by ``loss`` (one number per cell), the fitted ``values`` are (cells, K) and ``predict`` gives
(n, K).  So AdaBoost.MH's real vector stumps (per cell and class, 1/2 ln W+_k / W-_k from 2K
channels) and AdaBoost.MM's cost-split trees (leaf value: the one-hot label of least summed
cost, from the K channels of the cost rows) are criteria, not new learners.

What REBEL adds.  REBEL's weak hypothesis is f(x) a: a binary f in {-1, +1} and one vector a
in R^K shared by all cells (so its cells are not independent and it is no cells criterion).
Its stumps are :class:`~csrepro.weak.stumps.StumpLearner` under a Discrete criterion on the 2K
channels (w+, w-): ``score(pos, neg)`` is the loss at the closed-form a, sum_k 2 sqrt((W+_k,+ +
W-_k,-)(W+_k,- + W-_k,+)), and the booster reads a from the stump's ``cell_sums`` (2, 2K), as
AdaBoost reads alpha, and adds f(x) a.  REBEL then needs: (1) its layer-wise tree growth (Sec. 4:
every leaf replaced at once by its own stump, chosen with a held fixed, then a refitted in closed
form from the whole tree's totals), which :class:`~csrepro.weak.trees.TreeLearner`'s best-first
growth (one split per step, children labelled opposite) does not do: a new learner of this
protocol, reusing the per-leaf histograms and scan of :mod:`csrepro.weak.splits`, whose criterion
scores a leaf's stump at fixed a (linear in the sums: sum_k W+_k e^{f a_k} + W-_k e^{-f a_k}
per side f) and refits a; (2) its N_tau evenly
spaced thresholds over each feature's range, a binning option beside the quantile bins of
:class:`~csrepro.weak.binning.BinMapper`; (3) for speed only, Cython kernels for the 2K-channel
histogram (:mod:`csrepro._kernels.histogram` unrolls k = 2, 3 and loops over larger k) and for
the closed-form scan of its cumulative sums, in place of the NumPy scan of
:mod:`csrepro.weak.splits`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Criterion

__all__ = ["WeakHypothesis", "WeakLearner"]


@runtime_checkable
class WeakHypothesis(Protocol):
    """A fitted weak learner."""

    def predict(self, X: np.ndarray) -> np.ndarray:
        """h(x) for each row of raw features X: (n,), or (n, K) for K-vector cells."""


@runtime_checkable
class WeakLearner(Protocol):
    """A weak learner: the hypothesis family it searches and its constructor parameters."""

    def fit(self, data: BinnedData, channels: np.ndarray, criterion: Criterion) -> WeakHypothesis | None:
        """The hypothesis minimising ``criterion`` on the channel sums; None when none can be fitted."""
