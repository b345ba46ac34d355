"""REBEL's weak learners f(x) a: a binary f in {-1, +1} and one vector a in R^K (Appel et al. 2016, Secs. 3-4).

Channels are the 2K boosting weights [w+ | w-] (n, 2K) (eq. 2's weights at the current scores, see
:mod:`csrepro.boosting.rebel`); the criterion :class:`ExpVector` minimises, over f and a,

    sum_n sum_k w+_nk e^{f(x_n) a_k} + w-_nk e^{-f(x_n) a_k}.

With W^{+-}_{k,s} the sums of w^{+-}_{.k} over the samples f maps to s, class k's term is
A_k e^{a_k} + B_k e^{-a_k}, A_k = W+_{k,+} + W-_{k,-}, B_k = W+_{k,-} + W-_{k,+}: minimised by
a_k = 1/2 ln(B_k / A_k), where it equals 2 sqrt(A_k B_k).  Polarity is free (-f, -a is the same
learner), so a stump is scored once per threshold.

* :class:`VectorStumpLearner` -- the best stump: one 2K-channel histogram pass
  (``data.histogram``), then the closed-form scan of :mod:`csrepro._kernels.vector_scan` (or its
  NumPy reference, ``data.backend``).
* :class:`LayerTreeLearner` -- Sec. 4's greedy trees: a stump, then ``max_depth - 1`` layers; each
  layer offers every leaf a stump scored at the current a (the loss is then linear in the sums:
  two channels, the cost of labelling a sample +1 or -1) or no change, keeps each leaf's best,
  and refits a in closed form.  No layer raises the loss.
"""

from __future__ import annotations

import numpy as np

from csrepro._kernels import vector_scan, vector_scan_ref
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete
from csrepro.weak.splits import discrete_scores, first_min, scan_node
from csrepro.weak.stumps import Stump
from csrepro.weak.trees import RTOL, Tree

__all__ = ["ExpVector", "LayerTreeLearner", "VectorStumpLearner"]

SCANS = {"cython": vector_scan, "numpy": vector_scan_ref}


def _terms(pos, neg):
    """(A, B), each (..., K), from the channel sums ``pos`` / ``neg`` (..., 2K) of the samples f maps to +1 / -1."""
    K = pos.shape[-1] // 2
    return pos[..., :K] + neg[..., K:], neg[..., :K] + pos[..., K:]


def exp_vector_score(pos, neg):
    """Loss at the closed-form a: sum_k 2 sqrt(A_k B_k), shape (...)."""
    A, B = _terms(pos, neg)
    return 2.0 * np.sqrt(np.maximum(A, 0.0) * np.maximum(B, 0.0)).sum(axis=-1)


class ExpVector(Discrete):
    """The Discrete criterion of REBEL's f(x) a on channels [w+ | w-]: ``score`` is the loss at the closed-form a.

    ``FLOOR``: a side sum A_k or B_k below FLOOR x (A_k + B_k) is raised to it in :meth:`step`, so a
    class separated perfectly gets a finite a_k = +-1/2 ln(1 / FLOOR) (about +-11.5, AdaBoost's
    error floor 1e-10 in the project); a class without weight gets a_k = 0.
    """

    FLOOR = 1e-10

    def __init__(self):
        super().__init__(exp_vector_score)

    def step(self, pos, neg):
        """Closed-form a (..., K) = 1/2 ln(B / A) for the sums ``pos`` / ``neg`` (..., 2K)."""
        A, B = _terms(np.asarray(pos, float), np.asarray(neg, float))
        floor = self.FLOOR * (A + B)
        with np.errstate(divide="ignore", invalid="ignore"):
            a = 0.5 * np.log(np.maximum(B, floor) / np.maximum(A, floor))
        return np.where(A + B > 0, a, 0.0)

    @staticmethod
    def loss(pos, neg, a):
        """sum_k A_k e^{a_k} + B_k e^{-a_k}: the loss of f(x) a with side sums ``pos`` / ``neg``."""
        A, B = _terms(np.asarray(pos, float), np.asarray(neg, float))
        return (A * np.exp(a) + B * np.exp(-a)).sum(axis=-1)

    @staticmethod
    def fixed_channels(channels, a):
        """(n, 2): sample n's loss if f(x_n) = +1 and if f(x_n) = -1, at the fixed vector a."""
        K = channels.shape[1] // 2
        up, down = np.exp(a), np.exp(-a)
        wp, wn = channels[:, :K], channels[:, K:]
        return np.ascontiguousarray(np.column_stack([wp @ up + wn @ down, wp @ down + wn @ up]))


def _check(criterion):
    if not isinstance(criterion, ExpVector):
        raise TypeError(f"REBEL's learners fit the ExpVector criterion, got {type(criterion).__name__}")


class VectorStumpLearner:
    """Best stump f(x) = -1 if x_j <= t else +1 under :class:`ExpVector` (a is then read off ``cell_sums``).

    Ties go to the lowest feature, then threshold.  ``values`` = (-1, +1); ``cell_sums`` (2, 2K).
    """

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> Stump | None:
        """The stump of least loss at its closed-form a; None when every feature is constant."""
        _check(criterion)
        if len(data.candidates[0]) == 0:
            return None
        m = data.mapper
        hist = data.histogram(channels)
        scores = SCANS[data.backend].exp_vector_scores(hist, m.offsets, m.n_bins, np.empty(m.total_bins))
        best = first_min(scores)
        j = int(np.searchsorted(m.offsets, best, side="right") - 1)
        b = best - int(m.offsets[j])
        cum = np.cumsum(hist[m.offsets[j]:m.offsets[j] + m.n_bins[j]], axis=0)
        left, right = cum[b], cum[-1] - cum[b]
        return Stump(j, data.threshold(j, b), np.array([-1.0, 1.0]), np.vstack([left, right]),
                     float(scores[best]))


#: the scan criterion at fixed a: channels (loss if +1, loss if -1), score = sum over the sides of their labels' losses
_FIXED_A = Discrete(lambda pos, neg: pos[:, 0] + neg[:, 1])


class LayerTreeLearner:
    """Depth-``max_depth`` trees grown one layer at a time under :class:`ExpVector` (Appel et al. 2016, Sec. 4).

    Layer 1 is :class:`VectorStumpLearner`'s stump and its a.  Each further layer: (1) every leaf may be
    replaced by a stump (the paper's start, a copy of the parent's split, changes nothing: "no change"
    is the same candidate); (2) with a fixed, each leaf independently takes the threshold and polarity
    of least loss among its samples, or stays a leaf unless a stump lowers that loss by more than
    RTOL; (3) a is refitted in closed form on the new leaves.  Steps (2) and (3) cannot raise the loss.
    Returns a :class:`~csrepro.weak.trees.Tree` with leaf labels ``values`` in {-1, +1} and
    ``cell_sums`` (L, 2K); a stump when ``max_depth`` is 1.
    """

    def __init__(self, max_depth: int = 2):
        if not (isinstance(max_depth, (int, np.integer)) and max_depth >= 1):
            raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
        self.max_depth = int(max_depth)

    def fit(self, data: BinnedData, channels: np.ndarray, criterion):
        """The layer-wise tree; None when every feature is constant."""
        stump = VectorStumpLearner().fit(data, channels, criterion)
        if stump is None or self.max_depth == 1:
            return stump
        left = data.X[:, stump.feature] <= stump.threshold
        feature, threshold = [stump.feature, -1, -1], [stump.threshold, np.nan, np.nan]
        children = [[1, 2], [-1, -1], [-1, -1]]
        leaves = [(1, np.flatnonzero(left), -1.0), (2, np.flatnonzero(~left), 1.0)]
        a = criterion.step(stump.cell_sums[1], stump.cell_sums[0])
        ones = np.ones((len(channels), 1))
        for _ in range(self.max_depth - 1):
            fixed = np.hstack([criterion.fixed_channels(channels, a), ones])
            grown = []
            for node, rows, label in leaves:
                split = self._split(data, fixed, rows, label)
                if split is None:
                    grown.append((node, rows, label))
                    continue
                j, b, left_label = split
                ids = [len(feature), len(feature) + 1]
                feature[node], threshold[node], children[node] = j, data.threshold(j, b), ids
                feature += [-1, -1]
                threshold += [np.nan, np.nan]
                children += [[-1, -1], [-1, -1]]
                goes_left = data.codes[rows, j] <= b
                grown += [(ids[0], rows[goes_left], left_label), (ids[1], rows[~goes_left], -left_label)]
            leaves = grown
            values = np.array([label for _, _, label in leaves])
            sums = np.array([channels[rows].sum(axis=0) for _, rows, _ in leaves])
            pos, neg = sums[values > 0].sum(axis=0), sums[values < 0].sum(axis=0)
            a = criterion.step(pos, neg)
        leaf = np.full(len(feature), -1, dtype=np.intp)
        leaf[[node for node, _, _ in leaves]] = np.arange(len(leaves))
        children = np.array(children, dtype=np.intp)
        return Tree(np.array(feature, dtype=np.intp), np.array(threshold), children[:, 0], children[:, 1], leaf,
                    values, sums, float(criterion.score(pos, neg)))

    @staticmethod
    def _split(data, fixed, rows, label):
        """(feature, bin, left label) of the leaf's best stump at fixed a, or None if none beats its label."""
        scan = scan_node(data, data.histogram(fixed, rows), counted=True)
        scores = discrete_scores(scan, _FIXED_A)
        best = first_min(scores)
        keep = scan.total[0] if label > 0 else scan.total[1]
        if not scores[best] < keep - RTOL * abs(keep):
            return None
        c, flip = divmod(best, 2)
        flat, feature, b = data.candidates
        return int(feature[c]), int(b[c]), (1.0 if flip else -1.0)
