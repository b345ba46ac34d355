"""The one threshold scan shared by stumps and trees: candidate sums from a node's histogram, and their scores.

For a node with flat histogram H (total_bins, k), the split "code_j <= b" sends the channel
sums L = sum_{b' <= b} H[j, b'] left and R = T - L right (T: the node total); one cumulative
sum over the flat bin axis gives every candidate of every feature at once (the kernel
``node_scan`` of :mod:`csrepro._kernels.histogram`, one pass; ``best_score`` picks the winner; :func:`scan_pick`
scores the labelled splits of AdaBoost's weighted error in that pass).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from csrepro._kernels import backend
from csrepro.weak.binning import KERNELS, BinnedData
from csrepro.weak.criteria import Discrete, weighted_error


#: first_min's default tolerance
FIRST_RTOL = 1e-12


@dataclass(frozen=True, eq=False)
class NodeScan:
    """Candidates of one node, in the order of ``BinnedData.candidates``.

    ``L``, ``R``: (C, k) channel sums left / right (each column ``L[:, c]`` contiguous, rows not: views of the
    kernel's output); ``valid``: (C,) both sides hold node samples; ``total``: (k,) the node's sums;
    ``index``: None when the C candidates are all of ``BinnedData.candidates``, else the position there
    of each (a node's distinct splits, :func:`scan_node`).
    """

    L: np.ndarray
    R: np.ndarray
    valid: np.ndarray
    total: np.ndarray
    index: np.ndarray | None = None


def scan_node(data: BinnedData, H: np.ndarray, counted: bool = False, distinct: bool = False,
              minus: np.ndarray | None = None, keep: bool = True) -> NodeScan:
    """Left/right sums of every split of the node with histogram ``H``.

    ``counted``: the last channel of ``H`` counts samples; a split is then valid when both sides
    hold samples (and that channel is dropped from the sums).  Otherwise every split is valid
    (at the root every bin holds training samples).  ``distinct``: only the splits whose left sums differ (in
    some bit) from the previous split's of the same feature -- a split at a bin without rows of the node equals
    the one before it, and a tie goes to the first (its scores are equal, bit for bit) -- with their ``index``;
    in a child node of data with many distinct values (one bin per value) most bins hold none of its rows.
    ``minus``: None, or the histogram of rows of ``H`` outside the node (e.g. its sibling's, H its parent's): the
    node's histogram is then H - minus, written over ``H`` (C-contiguous float64) in the scan's pass, unless
    ``keep`` is False (a node that needs no histogram after its scan: ``H`` is then left as it is).
    """
    return _scan(data, H, counted, distinct, minus, keep)


def scan_pick(data: BinnedData, H: np.ndarray, criterion: Discrete, base=None, counted: bool = False,
              distinct: bool = False, minus: np.ndarray | None = None, keep: bool = True,
              rtol: float = FIRST_RTOL) -> tuple[NodeScan, tuple[np.ndarray, int, float]]:
    """(:func:`scan_node`, :func:`discrete_pick` of it with ``base`` and ``rtol``); for
    :func:`~csrepro.weak.criteria.weighted_error` (two channels) the kernel ``node_scan`` scores the splits as it
    writes them, in the scan's pass (the same scores and pick)."""
    if criterion.errors is not weighted_error:
        scan = scan_node(data, H, counted, distinct, minus, keep)
        return scan, discrete_pick(scan, criterion, base, rtol)
    return _scan(data, H, counted, distinct, minus, keep, (*_error_base(base), rtol))


def _scan(data, H, counted, distinct, minus, keep, errors=None):
    """:func:`scan_node`; with ``errors`` (b0, d0, rtol), (the scan, its weighted errors' pick) (:func:`scan_pick`)."""
    m = data.mapper
    C, kk = len(data.candidates[0]), H.shape[1] - bool(counted)
    L, R, valid, total = np.empty((kk, C)), np.empty((kk, C)), np.empty(C, dtype=bool), np.empty(kk)
    index = np.empty(C, dtype=np.intp)
    if minus is None:
        H = np.ascontiguousarray(H, dtype=np.float64)
    args = (H, m.offsets, m.n_bins, counted, distinct, L, R, valid.view(np.uint8), index, total, minus,
            None if minus is None or not keep else H)
    if errors is None:
        w = data.kernel.node_scan(*args)
    else:
        scores = np.empty(2 * C)
        w, first, low = data.kernel.node_scan(*args, scores, *errors)
    if not distinct:
        scan = NodeScan(L.T, R.T, valid, total)
    else:
        scan = NodeScan(L[:, :w].T, R[:, :w].T, valid[:w], total, index[:w])
    return scan if errors is None else (scan, (scores[:2 * w], first, low))


def first_min(scores: np.ndarray, rtol: float = FIRST_RTOL) -> int:
    """Index of the first score within ``rtol`` x (largest finite |score|) of the minimum.

    Candidates tied up to rounding (e.g. equal sums added in another order) are thus broken by
    position -- lowest feature, then threshold -- not by rounding noise.
    """
    return KERNELS[backend.current()].best_score(np.ascontiguousarray(scores, dtype=np.float64), rtol)[0]


def cell_losses(scan: NodeScan, criterion) -> np.ndarray:
    """Loss of each candidate under a Cells criterion: loss(L) + loss(R); inf where invalid (the criterion's own
    ``split_losses`` where it has one, e.g. :class:`~csrepro.weak.criteria.LeastSquares`' one-pass kernel)."""
    if hasattr(criterion, "split_losses"):
        return criterion.split_losses(scan.L, scan.R, scan.valid)
    lv, rv = criterion.value(scan.L), criterion.value(scan.R)
    loss = criterion.loss(scan.L, lv) + criterion.loss(scan.R, rv)
    return np.where(scan.valid, loss, np.inf)


def discrete_scores(scan: NodeScan, criterion: Discrete, base=None) -> np.ndarray:
    """Scores (2C,) of the labelled splits: at 2c "left -1, right +1" of candidate c, at 2c + 1 "left +1, right -1".

    ``base``: None, or the sums (pos, neg), each (k,), already mapped to +1 / -1 by the rest of a tree.
    The criterion is called once per labelling, with (C, k) arrays; or its ``errors`` form once, on the two error
    sums (2C,) of every labelled split, in the order of the scores (only those channels added: the same bits).
    The learners call :func:`discrete_pick`, which also picks the best.
    """
    L, R = scan.L, scan.R
    if criterion.errors is None:
        scores = np.empty(2 * len(scan.valid))
        sides = [(R, L), (L, R)] if base is None else [(R + base[0], L + base[1]), (L + base[0], R + base[1])]
        for start, (pos, neg) in enumerate(sides):
            scores[start::2] = criterion.score(pos, neg)
    else:
        b, d = np.empty(2 * len(scan.valid)), np.empty(2 * len(scan.valid))
        KERNELS[backend.current()].error_sums(*_error_columns(scan), *_error_base(base), b, d)
        scores = np.ascontiguousarray(criterion.errors(b, d), dtype=np.float64)
    if not scan.valid.all():
        invalid = 2 * np.flatnonzero(~scan.valid)
        scores[invalid] = scores[invalid + 1] = np.inf
    return scores


def _error_columns(scan: NodeScan) -> list[np.ndarray]:
    """The error sums' columns: b = neg[:, 0], d = pos[:, 1] are at 2c (L[c, 0], R[c, 1]), at 2c + 1 (R[c, 0],
    L[c, 1]); as ``error_sums`` takes them (pos_left, pos_right, neg_left, neg_right)."""
    return [np.ascontiguousarray(S[:, c], dtype=np.float64) for c in (0, 1) for S in (scan.L, scan.R)]


def _error_base(base) -> tuple[float, float]:
    """(b0, d0): the rest of a tree's errors, (neg[0], pos[1]) of ``base``; (0.0, 0.0) at the root."""
    return (0.0, 0.0) if base is None else (base[1][0], base[0][1])


def discrete_pick(scan: NodeScan, criterion: Discrete, base=None,
                  rtol: float = FIRST_RTOL) -> tuple[np.ndarray, int, float]:
    """(:func:`discrete_scores`, the ``best_score`` of them with ``rtol``: the first index within tolerance of the
    least, the least score).  For :func:`~csrepro.weak.criteria.weighted_error` the kernel ``weighted_errors``
    writes the scores and picks in one call (the same scores and pick)."""
    kernel = KERNELS[backend.current()]
    if criterion.errors is not weighted_error:
        scores = discrete_scores(scan, criterion, base)
        return (scores, *kernel.best_score(scores, rtol))
    scores = np.empty(2 * len(scan.valid))
    first, low = kernel.weighted_errors(*_error_columns(scan), scan.valid.view(np.uint8), *_error_base(base), rtol,
                                        scores)
    return scores, first, low
