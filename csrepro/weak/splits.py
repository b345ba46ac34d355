"""The one threshold scan shared by stumps and trees: candidate sums from a node's histogram, and their scores.

For a node with flat histogram H (total_bins, k), the split "code_j <= b" sends the channel
sums L = sum_{b' <= b} H[j, b'] left and R = T - L right (T: the node total); one cumulative
sum over the flat bin axis gives every candidate of every feature at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete


@dataclass(frozen=True, eq=False)
class NodeScan:
    """Candidates of one node, in the order of ``BinnedData.candidates``.

    ``L``, ``R``: (C, k) channel sums left / right (Fortran order: each column ``L[:, c]`` is
    contiguous); ``valid``: (C,) both sides hold node samples; ``total``: (k,) the node's sums.
    """

    L: np.ndarray
    R: np.ndarray
    valid: np.ndarray
    total: np.ndarray


def scan_node(data: BinnedData, H: np.ndarray, counted: bool = False) -> NodeScan:
    """Left/right sums of every split of the node with histogram ``H``.

    ``counted``: the last channel of ``H`` counts samples; a split is then valid when both sides
    hold samples (and that channel is dropped from the sums).  Otherwise every split is valid
    (at the root every bin holds training samples).
    """
    flat, feature, _ = data.candidates
    m = data.mapper
    cum = np.cumsum(np.ascontiguousarray(H.T), axis=1)  # channel-major: each channel's sums contiguous
    before = np.take(cum, m.offsets - 1, axis=1)  # sums of the bins before feature j
    before[:, 0] = 0.0
    totals = np.take(cum, m.offsets + m.n_bins - 1, axis=1) - before
    L = np.take(cum, flat, axis=1)
    L -= np.take(before, feature, axis=1)
    R = np.take(totals, feature, axis=1)
    R -= L
    if counted:
        valid = (L[-1] > 0.5) & (R[-1] > 0.5)
        L, R, totals = L[:-1], R[:-1], totals[:-1]
    else:
        valid = np.ones(len(flat), dtype=bool)
    return NodeScan(L.T, R.T, valid, totals[:, 0])


def first_min(scores: np.ndarray, rtol: float = 1e-12) -> int:
    """Index of the first score within ``rtol`` x (largest finite |score|) of the minimum.

    Candidates tied up to rounding (e.g. equal sums added in another order) are thus broken by
    position -- lowest feature, then threshold -- not by rounding noise.
    """
    finite = scores[np.isfinite(scores)]
    if len(finite) == 0:
        return 0
    low = finite.min()
    return int(np.argmax(scores <= low + rtol * np.abs(finite).max()))


def cell_losses(scan: NodeScan, criterion) -> np.ndarray:
    """Loss of each candidate under a Cells criterion: loss(L) + loss(R); inf where invalid."""
    lv, rv = criterion.value(scan.L), criterion.value(scan.R)
    loss = criterion.loss(scan.L, lv) + criterion.loss(scan.R, rv)
    return np.where(scan.valid, loss, np.inf)


def discrete_scores(scan: NodeScan, criterion: Discrete, base=None) -> np.ndarray:
    """Scores (2C,) of the labelled splits: at 2c "left -1, right +1" of candidate c, at 2c + 1 "left +1, right -1".

    ``base``: None, or the sums (pos, neg), each (k,), already mapped to +1 / -1 by the rest of a tree.
    The criterion is called once per labelling, with (C, k) arrays.
    """
    L, R = scan.L, scan.R
    sides = [(R, L), (L, R)] if base is None else [(R + base[0], L + base[1]), (L + base[0], R + base[1])]
    scores = np.empty(2 * len(scan.valid))
    for start, (pos, neg) in enumerate(sides):
        scores[start::2] = np.where(scan.valid, criterion.score(pos, neg), np.inf)
    return scores
