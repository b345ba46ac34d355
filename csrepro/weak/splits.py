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

    ``L``, ``R``: (C, k) channel sums left / right; ``valid``: (C,) both sides hold node
    samples; ``total``: (k,) the node's sums.
    """

    L: np.ndarray
    R: np.ndarray
    valid: np.ndarray
    total: np.ndarray


def scan_node(data: BinnedData, H: np.ndarray, samples: np.ndarray | None = None) -> NodeScan:
    """Left/right sums of every split of the node with histogram ``H`` and rows ``samples`` (None: all)."""
    flat, feature, b = data.candidates
    m = data.mapper
    cum = np.cumsum(H, axis=0)
    before = np.vstack([np.zeros((1, H.shape[1])), cum])[m.offsets]  # sums of the bins before feature j
    totals = cum[m.offsets + m.n_bins - 1] - before
    L = cum[flat] - before[feature]
    R = totals[feature] - L
    if samples is None:  # every bin holds training samples
        valid = np.ones(len(flat), dtype=bool)
    else:
        node_codes = data.codes[samples]
        lo, hi = node_codes.min(axis=0), node_codes.max(axis=0)
        valid = (b >= lo[feature]) & (b < hi[feature])
    return NodeScan(L, R, valid, H[m.offsets[0]:m.offsets[0] + m.n_bins[0]].sum(axis=0))


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


def discrete_scores(scan: NodeScan, criterion: Discrete, base_pos=0.0, base_neg=0.0) -> np.ndarray:
    """Scores (2C,) of the labelled splits: at 2c "left -1, right +1" of candidate c, at 2c + 1 "left +1, right -1".

    ``base_pos`` / ``base_neg`` (k,) are the sums already mapped to +1 / -1 by the rest of a tree.
    """
    k = scan.L.shape[1]
    pos = np.stack([scan.R, scan.L], axis=1).reshape(-1, k) + base_pos
    neg = np.stack([scan.L, scan.R], axis=1).reshape(-1, k) + base_neg
    return np.where(np.repeat(scan.valid, 2), criterion.score(pos, neg), np.inf)
