"""Small trees grown best-first over binned features (default: four terminal nodes, three splits).

Each step splits the leaf and threshold that most lower the criterion (the scan of
:mod:`csrepro.weak.splits`, as for stumps, on the leaf's histogram).  A child's histogram
comes from the kernel on the smaller child's rows; its sibling's is the parent's minus it (written over the parent's
in the sibling's scan, unless no split of the sibling will need it).
A sample-count channel rides along, so splits leaving a side without samples are excluded.
A leaf's scan keeps its distinct splits only (a bin holding none of the leaf's rows repeats the split before
it, bit for bit: same scores, and a tie goes to the first), so that a child of data with one bin per distinct
value (``max_bins=None``) scores about as many splits as it has distinct values.
The children of the last split need only their sums, which the parent's scan already holds (and, for
:meth:`TreeLearner.fit_predict`, a booster's training outputs without walking X down the tree, their parent's rows
and split).

* Cells criterion: leaves output ``criterion.value`` of their sums; a split must lower the
  summed cell loss (e.g. weighted SSE for regression trees, (VI.44) for CS-RealBoost).
* Discrete criterion: leaves are labelled -1/+1 and the whole tree is scored by
  ``criterion.score(pos, neg)`` on the sums of the samples it maps to +1 / -1 (e.g. the
  weighted error for AdaBoost, (VI.42) for CS-AdaBoost).  A split keeps the other leaves'
  labels and gives its children opposite labels (equal labels would change nothing).

The root split is always made (a two-leaf tree is the stump of
:class:`~csrepro.weak.stumps.StumpLearner`); later splits only when they lower the criterion,
so a tree may have fewer than ``max_leaves`` leaves.

Depth-limited trees (``max_depth=d``, e.g. the "2 to 3-depth" trees of Koço & Capponi 2013,
Sec. 5.2): the same best-first loop, where a leaf at depth d is never split, ``max_leaves``
defaults to 2^d (so the leaf count never binds) and a split is made when it does not raise the
criterion -- zero gain included, as scikit-learn's ``DecisionTreeClassifier(max_depth=d)`` does (a
zero-gain split changes no prediction but lets its children split further, e.g. on XOR); unlike
scikit-learn, a leaf holding one class only is split too (which changes no prediction).  So
every leaf above depth d that can be split (samples on both sides) is split by its own best split
(cells criteria: ties within rounding of the leaf's losses go to the lowest feature, then
threshold): the full level-by-level tree of depth d.  For a cells criterion (a sum of per-leaf
losses) a leaf's best split does not depend on the other leaves, so the order of the splits
changes nothing but node ids.  ``max_depth=None`` is the leaf-count growth above, unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from csrepro._kernels import backend
from csrepro.weak.binning import KERNELS, BinnedData
from csrepro.weak.criteria import Discrete, SignRegression
from csrepro.weak.splits import FIRST_RTOL, cell_losses, discrete_pick, first_min, scan_node, scan_pick

RTOL = 1e-12  # relative decrease of the criterion below which a split counts as no gain
_NO_SPLIT = np.array([np.inf])  # the candidate scores of a leaf that may not be split
_NO_PICK = (_NO_SPLIT, 0, np.inf)  # with their best_score


@dataclass(frozen=True, eq=False)
class Tree:
    """A fitted tree.  Node arrays: ``feature`` (-1 at leaves), ``threshold``, children ``left`` /
    ``right``, ``leaf`` (cell index at leaves, -1 inside); cells: ``values`` (L,) or (L, K) K-vectors,
    ``cell_sums`` (L, k)."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    values: np.ndarray
    cell_sums: np.ndarray
    score: float

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Leaf (cell) index of each row of X (each row walks down from the root: ``tree_leaves`` of the backend's
        histogram kernels)."""
        X = np.asarray(X, dtype=np.float64)
        return KERNELS[backend.current()].tree_leaves(X, self.feature, self.threshold, self.left, self.right,
                                                      self.leaf, np.empty(len(X), dtype=np.intp))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """h(x) for each row of X: shape (n,), or (n, K) for K-vector leaves."""
        return self.values[self.apply(X)]


def _root_histogram(data: BinnedData, channels: np.ndarray) -> np.ndarray:
    """The root's histogram of ``channels`` with a sample-count channel last: the channels' pass (the bits of the
    pass over the counted channels, channel by channel), written beside the bins' row counts (exact, summed once per
    data)."""
    if "bin_counts" not in data.cache:
        data.cache["bin_counts"] = data.histogram(np.ones((data.n_samples, 1)))[:, 0]
    k = np.shape(channels)[1]
    H = np.empty((data.mapper.total_bins, k + 1))
    H[:, k] = data.cache["bin_counts"]
    return data.histogram(channels, out=H)


class _Leaf:
    """A leaf while growing: node id, channel sums ``total`` (None: from the scan), label; and, if it
    may still be split, its rows (None: all), histogram ``H`` (less ``minus`` until scanned; ``keep``: False when no
    split of the leaf would need it after the scan, whose children only need their sums, so that H - minus is not
    written) and candidate ``scan`` (made by :meth:`scanned` when the leaf's splits are first scored).  A child of a
    last split grown for :meth:`TreeLearner.fit_predict` has ``cut`` (its parent's rows, feature, bin, side 0 / 1)
    instead of its rows."""

    def __init__(self, node, total, rows=None, H=None, depth=0, minus=None, keep=True, cut=None):
        self.node, self.rows, self.H, self.label, self.depth, self.minus = node, rows, H, 0.0, depth, minus
        self.total, self.scan, self.keep, self.cut = total, None, keep, cut
        self.cells = None  # cells criterion: (loss here, change of the loss for each split, their pick), computed once

    def scanned(self, data, criterion=None, base=None):
        """Make the leaf's ``scan`` (of H less ``minus``, written over H unless not ``keep``; ``total`` from it where
        not given); with a Discrete ``criterion``, return its pick with ``base``
        (:func:`~csrepro.weak.splits.scan_pick`: in the scan's pass for the weighted error)."""
        args = dict(counted=True, distinct=True, minus=self.minus, keep=self.keep)
        if criterion is None:
            self.scan, picked = scan_node(data, self.H, **args), None
        else:
            self.scan, picked = scan_pick(data, self.H, criterion, base, **args)
        self.minus = None
        if self.total is None:
            self.total = self.scan.total
        return picked

    def pick(self, data, criterion, base):
        """The Discrete ``criterion``'s scores of the leaf's labelled splits with ``base``, their first index within
        tolerance of the least and the least (:func:`~csrepro.weak.splits.discrete_pick`; scanning the leaf first
        where it is not yet scanned); ``_NO_PICK`` for a leaf that may not be split."""
        if self.H is None:
            return _NO_PICK
        return self.scanned(data, criterion, base) if self.scan is None else discrete_pick(self.scan, criterion, base)


class TreeLearner:
    """Best-first tree with at most ``max_leaves`` terminal nodes (``max_leaves - 1`` splits) and, if
    ``max_depth`` is given, no leaf deeper than ``max_depth`` (root: depth 0).

    ``max_leaves=None``: 4 without ``max_depth``, else 2^max_depth (a full tree of that depth).
    """

    def __init__(self, max_leaves: int | None = None, max_depth: int | None = None):
        if max_depth is not None and not (isinstance(max_depth, (int, np.integer)) and max_depth >= 1):
            raise ValueError(f"max_depth must be None or an integer >= 1, got {max_depth!r}")
        if max_leaves is None:
            max_leaves = 4 if max_depth is None else 2 ** int(max_depth)
        if not (isinstance(max_leaves, (int, np.integer)) and max_leaves >= 2):
            raise ValueError(f"max_leaves must be an integer >= 2, got {max_leaves!r}")
        self.max_leaves = int(max_leaves)
        self.max_depth = None if max_depth is None else int(max_depth)

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> Tree | None:
        """The greedily grown tree; None when every feature is constant."""
        grown = self._grow(data, channels, criterion, keep_rows=False)
        return None if grown is None else grown[0]

    def fit_predict(self, data: BinnedData, channels: np.ndarray, criterion) -> tuple[Tree | None, np.ndarray | None]:
        """``fit``'s tree and its outputs on the training rows, ``tree.predict`` of the training X (a split on codes
        is the rule on raw values): each row's leaf from the partitions made while growing, no walk down the tree;
        a last split's two leaves (adjacent, left first) written from their parent's rows by the split's codes
        (``split_outputs``; K-vector leaves: those rows partitioned).  (None, None) when every feature is constant."""
        grown = self._grow(data, channels, criterion, keep_rows=True)
        if grown is None:
            return None, None
        tree, leaves = grown
        hx = np.empty((data.n_samples,) + tree.values.shape[1:])
        for i, lf in enumerate(leaves):
            if lf.cut is None:
                hx[slice(None) if lf.rows is None else lf.rows] = tree.values[i]
            elif lf.cut[3] == 0:  # the left leaf of a last split; its right one follows
                rows, j, bin_, _ = lf.cut
                if hx.ndim == 1:
                    data.kernel.split_outputs(data.column(j), bin_, tree.values[i], tree.values[i + 1], hx, rows)
                else:
                    part = np.empty(data.n_samples if rows is None else len(rows), dtype=np.intp)
                    n_left = data.kernel.partition_rows(data.column(j), rows, bin_, part)
                    hx[part[:n_left]], hx[part[n_left:]] = tree.values[i], tree.values[i + 1]
        return tree, hx

    def _grow(self, data, channels, criterion, keep_rows):
        """(tree, its leaves) or None when every feature is constant; ``keep_rows``: every leaf keeps its rows, or
        (a last split's) its ``cut``."""
        if isinstance(criterion, SignRegression):
            raise TypeError("trees fit Discrete or Cells criteria; SignRegression is the line learner's")
        if len(data.candidates[0]) == 0:
            return None
        channels = np.ascontiguousarray(channels, dtype=np.float64)
        discrete = isinstance(criterion, Discrete)
        nodes = {"feature": [-1], "threshold": [np.nan], "left": [-1], "right": [-1]}
        leaves = [_Leaf(0, None, None, _root_histogram(data, channels))]
        while len(leaves) < self.max_leaves:
            scores, picks, current, tol = (self._discrete_scores if discrete else self._cell_scores)(data, leaves,
                                                                                                     criterion)
            best_leaf = int(np.argmin([low for _, low in picks]))  # as argmin of each leaf's scores.min()
            if self.max_depth is None:
                best = picks[best_leaf][0]  # first_min(scores[best_leaf])
                if not scores[best_leaf][best] < current - tol:  # a split must lower the criterion beyond rounding
                    break
            else:  # a split must not raise it; ties within rounding of the leaf's losses go to the lowest position
                best = first_min(scores[best_leaf] if discrete else scores[best_leaf] + leaves[best_leaf].cells[0])
                if not (np.isfinite(scores[best_leaf][best]) and scores[best_leaf][best] <= current + tol):
                    break
            leaf = leaves.pop(best_leaf)
            c, flip = divmod(best, 2) if discrete else (best, 0)
            last = len(leaves) + 2 == self.max_leaves or (self.max_depth is not None
                                                          and leaf.depth + 1 >= self.max_depth)
            # a child's split, if any, comes with at least len(leaves) + 2 leaves: are its children last too?
            keep = not (len(leaves) + 3 >= self.max_leaves or (self.max_depth is not None
                                                               and leaf.depth + 2 >= self.max_depth))
            new = self._split(data, channels, nodes, leaf, c, last=last, keep_rows=keep_rows, keep=keep)
            if discrete:
                new[0].label, new[1].label = (1.0, -1.0) if flip else (-1.0, 1.0)
            leaves[best_leaf:best_leaf] = new
        return self._tree(nodes, leaves, criterion, discrete), leaves

    @staticmethod
    def _discrete_scores(data, leaves, criterion):
        """Whole-tree scores of every labelled split of every leaf, their picks (``best_score``: first index, least
        score); the current tree's score; tolerance.  A leaf not yet scanned is scanned with its pick."""
        if leaves[0].label == 0:  # the root: its split is always made, no other leaf
            scores, first, low = leaves[0].scanned(data, criterion)
            return [scores], [(first, low)], np.inf, 0.0
        # in Python floats, NumPy's operations element by element (the same bits, no array per operation): the sums
        # mapped to +1 / -1 from 0.0 in leaf order, and each leaf's rest, pos - total * 1.0 (or * 0.0)
        totals = [lf.total.tolist() for lf in leaves]
        pos, neg = [0.0] * len(totals[0]), [0.0] * len(totals[0])
        for lf, t in zip(leaves, totals):
            if lf.label > 0 or lf.label < 0:
                side = pos if lf.label > 0 else neg
                side[:] = [a + x for a, x in zip(side, t)]
        current = float(criterion.score(np.array([pos]), np.array([neg]))[0])
        rest = [(np.array([a - x * float(lf.label > 0) for a, x in zip(pos, t)]),
                 np.array([a - x * float(lf.label < 0) for a, x in zip(neg, t)])) for lf, t in zip(leaves, totals)]
        picked = [lf.pick(data, criterion, base) for lf, base in zip(leaves, rest)]
        return ([s for s, _, _ in picked], [(i, low) for _, i, low in picked], current,
                RTOL * abs(current) if np.isfinite(current) else 0.0)

    @staticmethod
    def _cell_scores(data, leaves, criterion):
        """Change of the summed cell loss for every split of every leaf, their picks (as :meth:`_discrete_scores`);
        0 (inf at the root); tolerance."""
        for lf in leaves:  # a leaf's split gains, and so its pick, do not change while other leaves split
            if lf.cells is None:
                if lf.H is not None:
                    lf.scanned(data)
                here = float(criterion.loss(lf.total, criterion.value(lf.total)))
                gains = _NO_SPLIT if lf.scan is None else cell_losses(lf.scan, criterion) - here
                gains = np.ascontiguousarray(gains, dtype=np.float64)
                lf.cells = (here, gains, KERNELS[backend.current()].best_score(gains, FIRST_RTOL))
        here = [lf.cells[0] for lf in leaves]
        scores, picks = [lf.cells[1] for lf in leaves], [lf.cells[2] for lf in leaves]
        return (scores, picks, 0.0, RTOL * np.abs(here).sum()) if len(leaves) > 1 else (scores, picks, np.inf, 0.0)

    @staticmethod
    def _split(data, channels, nodes, leaf, c, last, keep_rows=False, keep=True):
        """Record the split of ``leaf`` by candidate c in ``nodes``; its two children as leaves (``last``: sums only,
        and their ``cut`` with ``keep_rows``; ``keep``: False when the children's own splits would be last, so that
        their histograms are not needed after their scans)."""
        _, feature, b = data.candidates
        q = leaf.scan.index[c]  # c among the leaf's distinct splits, q among all
        j, bin_ = int(feature[q]), int(b[q])
        ids = [len(nodes["feature"]), len(nodes["feature"]) + 1]
        for key, val in (("feature", j), ("threshold", data.threshold(j, bin_)), ("left", ids[0]), ("right", ids[1])):
            nodes[key][leaf.node] = val
        for key, val in (("feature", -1), ("threshold", np.nan), ("left", -1), ("right", -1)):
            nodes[key] += [val, val]
        totals = [leaf.scan.L[c], leaf.scan.R[c]]
        depth = leaf.depth + 1
        if last:  # no further split: the children need only their sums (and for fit_predict the split)
            return [_Leaf(ids[s], totals[s], depth=depth, cut=(leaf.rows, j, bin_, s) if keep_rows else None)
                    for s in (0, 1)]
        rows = np.empty(data.n_samples if leaf.rows is None else len(leaf.rows), dtype=np.intp)
        n_left = data.kernel.partition_rows(data.column(j), leaf.rows, bin_, rows)
        kids = [rows[:n_left], rows[n_left:]]
        small = 0 if len(kids[0]) <= len(kids[1]) else 1
        H_small = data.histogram(channels, kids[small], counts=True)  # a count channel last
        # the big child's: the parent's histogram (not needed any more) minus the small child's, in its scan
        hist = {small: (H_small, None), 1 - small: (leaf.H, H_small)}
        return [_Leaf(ids[s], totals[s], kids[s], hist[s][0], depth, hist[s][1], keep) for s in (0, 1)]

    @staticmethod
    def _tree(nodes, leaves, criterion, discrete) -> Tree:
        sums = np.array([lf.total for lf in leaves])
        if discrete:
            values = np.array([lf.label for lf in leaves])
            score = criterion.score(sums[values > 0].sum(0)[None], sums[values < 0].sum(0)[None])[0]
        else:
            values = np.asarray(criterion.value(sums), dtype=float)
            score = criterion.loss(sums, values).sum()
        leaf = np.full(len(nodes["feature"]), -1, dtype=np.intp)
        for i, lf in enumerate(leaves):
            leaf[lf.node] = i
        return Tree(np.array(nodes["feature"], dtype=np.intp), np.array(nodes["threshold"], dtype=float),
                    np.array(nodes["left"], dtype=np.intp), np.array(nodes["right"], dtype=np.intp),
                    leaf, values, sums, float(score))
