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
  and refits a in closed form.  No layer raises the loss.  A layer is a fixed number of passes over
  the rows, one histogram for all its leaves (``data.histogram_nodes``), whatever their number.
"""

from __future__ import annotations

import numpy as np

from csrepro._kernels import histogram_ref, vector_scan, vector_scan_ref
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete
from csrepro.weak.splits import first_min
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
        """(n, 2): sample n's loss if f(x_n) = +1 and if f(x_n) = -1, at the fixed vector a (the first two
        columns of the kernel ``layer_channels``, here its NumPy reference)."""
        channels = np.asarray(channels, dtype=np.float64)
        out = np.empty((len(channels), 3))
        return vector_scan_ref.layer_channels(channels, np.exp(a), np.exp(-a), out)[:, :2]


def _check(criterion):
    if not isinstance(criterion, ExpVector):
        raise TypeError(f"REBEL's learners fit the ExpVector criterion, got {type(criterion).__name__}")


class VectorStumpLearner:
    """Best stump f(x) = -1 if x_j <= t else +1 under :class:`ExpVector` (a is then read off ``cell_sums``).

    Ties go to the lowest feature, then threshold.  ``values`` = (-1, +1); ``cell_sums`` (2, 2K).
    """

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> Stump | None:
        """The stump of least loss at its closed-form a; None when every feature is constant."""
        return self.fit_cells(data, channels, criterion)[0]

    def fit_cells(self, data: BinnedData, channels: np.ndarray, criterion) -> tuple[Stump | None, np.ndarray | None]:
        """(:meth:`fit`'s stump, the cell of each training row: 0 left, 1 right), read off the bin codes (the
        same cells as ``stump.predict(data.X)``, without a pass over the raw features); (None, None) when every
        feature is constant."""
        _check(criterion)
        if len(data.candidates[0]) == 0:
            return None, None
        m = data.mapper
        hist = data.histogram(channels)
        scores = SCANS[data.backend].exp_vector_scores(hist, m.offsets, m.n_bins, np.empty(m.total_bins))
        best = first_min(scores)
        j = int(np.searchsorted(m.offsets, best, side="right") - 1)
        b = best - int(m.offsets[j])
        cum = np.cumsum(hist[m.offsets[j]:m.offsets[j] + m.n_bins[j]], axis=0)
        left, right = cum[b], cum[-1] - cum[b]
        codes = data.codes_fm[j] if data.codes_fm is not None else data.codes[:, j]
        return (Stump(j, data.threshold(j, b), np.array([-1.0, 1.0]), np.vstack([left, right]), float(scores[best])),
                (codes > b).view(np.int8))


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
        """The layer-wise tree (a stump at depth 1); None when every feature is constant."""
        return self.fit_cells(data, channels, criterion)[0]

    def fit_cells(self, data: BinnedData, channels: np.ndarray, criterion):
        """(:meth:`fit`'s hypothesis, the cell of each training row), the cells as the growth routed the rows (the
        same as ``h.apply(data.X)``, without a pass over the raw features); (None, None) when every feature is
        constant.

        Each layer costs a few passes over the rows, whatever the number of leaves (kernels of ``data.backend``):
        the channels (loss if +1, loss if -1, count) at the current a (``layer_channels``), one histogram of
        every leaf at once (``data.histogram_nodes``, each row labelled by its leaf), scored for all leaves
        together (``labelled_split_scores``), the rows moved to their new leaves (``route_rows``) and one sum of
        [w+ | w-] per leaf (``data.node_sums``) for the refit of a."""
        stump, cells = VectorStumpLearner().fit_cells(data, channels, criterion)
        if stump is None or self.max_depth == 1:
            return stump, cells
        channels = np.ascontiguousarray(channels, dtype=np.float64)
        m = data.mapper
        scan = SCANS[data.backend]
        if data.codes_fm is not None:
            codes, route = data.codes_fm, data.kernel.route_rows
        else:  # more than 256 bins: int32 codes, NumPy routing
            codes, route = np.ascontiguousarray(data.codes.T), histogram_ref.route_rows
        n = len(channels)
        b0 = int(np.searchsorted(m.thresholds[stump.feature], stump.threshold))  # the stump's bin: code <= b0 goes left
        leaf_of = route(codes, np.zeros(n, dtype=np.int32), np.array([stump.feature], dtype=np.intp),
                        np.array([b0], dtype=np.intp), np.array([0], dtype=np.int32), np.array([1], dtype=np.int32))
        feature, threshold = [stump.feature, -1, -1], [stump.threshold, np.nan, np.nan]
        children = [[1, 2], [-1, -1], [-1, -1]]
        nodes, labels = [1, 2], [-1.0, 1.0]  # per leaf (leaf_of's index): tree node id, label
        a = criterion.step(stump.cell_sums[1], stump.cell_sums[0])
        fixed = np.empty((n, 3))
        for _ in range(self.max_depth - 1):
            scan.layer_channels(channels, np.exp(a), np.exp(-a), fixed)
            L = len(nodes)
            best = np.empty(L, dtype=np.intp)
            scores = scan.labelled_split_scores(data.histogram_nodes(fixed, leaf_of, L), m.offsets, m.n_bins,
                                                np.empty((L, 2 * m.total_bins)), best)
            totals = data.node_sums(fixed, leaf_of, L)
            keep = np.where(np.array(labels) > 0, totals[:, 0], totals[:, 1])  # the leaf's loss as it is
            split = scores[np.arange(L), best] < keep - RTOL * np.abs(keep)
            flat, flip = np.divmod(best, 2)
            j_of = np.searchsorted(m.offsets, flat, side="right") - 1
            b_of = flat - m.offsets[j_of]
            # new leaf indices: a kept leaf one, a split leaf two (left, right), in the order of the leaves
            first = np.concatenate([[0], np.cumsum(np.where(split, 2, 1))[:-1]]).astype(np.int32)
            new_nodes, new_labels = [], []
            for v in range(L):
                if not split[v]:
                    new_nodes.append(nodes[v])
                    new_labels.append(labels[v])
                    continue
                j, b, left_label = int(j_of[v]), int(b_of[v]), (1.0 if flip[v] else -1.0)
                ids = [len(feature), len(feature) + 1]
                feature[nodes[v]], threshold[nodes[v]], children[nodes[v]] = j, data.threshold(j, b), ids
                feature += [-1, -1]
                threshold += [np.nan, np.nan]
                children += [[-1, -1], [-1, -1]]
                new_nodes += ids
                new_labels += [left_label, -left_label]
            if split.any():
                route(codes, leaf_of, np.where(split, j_of, -1).astype(np.intp), b_of.astype(np.intp), first,
                      first + split.astype(np.int32))
            nodes, labels = new_nodes, new_labels
            values = np.array(labels)
            sums = data.node_sums(channels, leaf_of, len(nodes))
            pos, neg = sums[values > 0].sum(axis=0), sums[values < 0].sum(axis=0)
            a = criterion.step(pos, neg)
        leaf = np.full(len(feature), -1, dtype=np.intp)
        leaf[nodes] = np.arange(len(nodes))
        children = np.array(children, dtype=np.intp)
        return (Tree(np.array(feature, dtype=np.intp), np.array(threshold), children[:, 0], children[:, 1], leaf,
                     values, sums, float(criterion.score(pos, neg))), leaf_of)

