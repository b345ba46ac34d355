"""What a weak learner fits: per-sample channels, and a criterion on their sums, both set by the booster.

A weak learner partitions the samples into cells (the two sides of a stump, the leaves of a
tree, the bins of a histogram) and only ever sees per-cell sums S of per-sample ``channels``
(n, k), computed by the histogram kernel.  Two kinds of criterion:

* :class:`Discrete` -- weak learners with outputs in {-1, +1} (AdaBoost-style stumps, trees):
  every candidate g is scored by ``score(pos, neg)``, where ``pos`` / ``neg`` (C, k) are the
  channel sums over the samples g maps to +1 / -1; the smallest score wins.  With
  :func:`class_channels`, ``pos[:, 0]`` is the weight of positives classified +1,
  ``pos[:, 1]`` of negatives classified +1, ``neg[:, 0]`` of positives classified -1,
  ``neg[:, 1]`` of negatives classified -1 (the four totals of (VI.40)-(VI.41)).
* :class:`Cells` -- real-valued weak learners (RealBoost-style histograms, regression stumps,
  trees): cell c outputs ``value(S_c)`` and a candidate's loss is sum_c ``loss(S_c, value(S_c))``;
  the smallest wins.  Both callables are vectorised over leading axes of S (..., k).  ``value``
  may return a K-vector per cell, (..., K): the learner's cells then hold K-vectors (see
  :mod:`csrepro.weak.base`), e.g. the one-hot label of :class:`LeastCost` (least summed cost,
  AdaBoost.MM's cost-split trees) and :class:`Gini` (weighted majority, a classification tree).

Lines g(x) = a x_j + b (:class:`~csrepro.weak.lines.LineLearner`) are fitted on the raw features,
not on cells: :class:`LeastSquares` (channels (w, w z)) and :class:`SignRegression` (MCBoost's
eq. 30, channel w) say what they fit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from csrepro._kernels import backend
from csrepro.weak.binning import KERNELS

__all__ = ["Cells", "Criterion", "Discrete", "Gini", "LeastCost", "LeastSquares", "SignRegression", "class_channels",
           "error_criterion", "label_channels", "logit_channels", "posterior_cells", "weighted_error", "wls_channels"]


@dataclass(frozen=True)
class Discrete:
    """Criterion of {-1, +1}-valued weak learners: ``score(pos, neg) -> (C,)``, lower is better.

    ``errors``: None, or ``errors(b, d) -> (C,)`` with ``score(pos, neg)`` equal to ``errors(neg[:, 0], pos[:, 1])``
    bit for bit (see :func:`error_criterion`): the learners then sum only those two channels of each candidate and
    call it once per node, on both labellings of its candidates (a score like ``ada_losses``, exact only where it
    can decide the least, decides over all of them).
    """

    score: Callable[[np.ndarray, np.ndarray], np.ndarray]
    errors: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None


def error_criterion(errors: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Discrete:
    """The :class:`Discrete` criterion ``errors(b, d)`` of the error sums of :func:`class_channels`: b = ``neg[:, 0]``
    (positives mapped to -1), d = ``pos[:, 1]`` (negatives mapped to +1); e.g. AdaBoost's weighted error b + d."""
    return Discrete(lambda pos, neg: errors(neg[:, 0], pos[:, 1]), errors)


def weighted_error(b: np.ndarray, d: np.ndarray) -> np.ndarray:
    """AdaBoost's weighted error d + b: as ``errors`` of :func:`error_criterion`, the learners score its splits in one
    kernel pass (``weighted_errors`` of the histogram kernels, the same bits)."""
    return d + b


@dataclass(frozen=True)
class Cells:
    """Criterion of real-valued weak learners: cell output ``value(S)``, cell loss ``loss(S, value)``."""

    value: Callable[[np.ndarray], np.ndarray]
    loss: Callable[[np.ndarray, np.ndarray], np.ndarray]


def class_channels(w: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Channels (w_i 1[y_i = +1], w_i 1[y_i = -1]), shape (n, 2), for labels y in {-1, +1} (the backend's
    ``class_channels``: w * 1.0 = w, w * 0.0 = 0.0 for the finite, non-negative weights)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    w = np.ascontiguousarray(np.broadcast_to(np.asarray(w, dtype=np.float64), y.shape))
    return KERNELS[backend.current()].class_channels(w, y, np.empty((len(y), 2)))


def wls_channels(w: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Channels (w_i, w_i z_i), shape (n, 2), of a weighted least-squares fit of responses z."""
    return np.ascontiguousarray(np.column_stack([w, w * z]))


def logit_channels(F: np.ndarray, y: np.ndarray, sw: np.ndarray | None, floor: float, z_max: float) -> np.ndarray:
    """LogitBoost's :func:`wls_channels` (w, z) at scores F, labels y in {-1, +1}, in one pass (the backend's
    ``logit_channels`` after NumPy's tanh, NumPy's bits): p = (1 + tanh F) / 2 (FHT 2000), v = max(p (1 - p),
    ``floor``), z = clip(((y + 1) / 2 - p) / v, -``z_max``, ``z_max``) and w = v times the sample weights ``sw``
    (None: none)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    return KERNELS[backend.current()].logit_channels(np.tanh(np.asarray(F, dtype=np.float64)), y, sw, float(floor),
                                                     float(z_max), np.empty((len(y), 2)))


def posterior_cells(output, loss, channels: np.ndarray, smoothing: float = 1.0) -> Cells:
    """Cells on :func:`class_channels` with regularised posteriors (no empty-cell blow-ups).

    A cell with class sums (W+, W-) outputs ``output(W+ + eps, W- + eps)`` and costs
    ``loss(W+, W-, f)`` on its unregularised sums, where eps = ``smoothing`` * (sum of all
    weights) / n: each class gets ``smoothing`` pseudo-samples of the mean weight in every cell
    (Laplace smoothing; an empty cell has posterior 1/2).  E.g. RealBoost (FHT 2000, Alg. 2;
    thesis (VI.23)): ``output = 1/2 log(Wp / Wn)``, ``loss = Wp e^{-f} + Wn e^{f}``.
    """
    if not (np.isfinite(smoothing) and smoothing > 0):
        raise ValueError(f"smoothing must be > 0 (pseudo-samples per class and cell), got {smoothing!r}")
    eps = smoothing * channels.sum() / len(channels)
    if not eps > 0:
        eps = np.finfo(float).tiny  # all weights zero: every output is output(eps, eps)

    def value(S):
        return output(S[..., 0] + eps, S[..., 1] + eps)

    def cell_loss(S, f):
        return loss(S[..., 0], S[..., 1], f)

    return Cells(value, cell_loss)


def label_channels(w: np.ndarray, z: np.ndarray, n_classes: int) -> np.ndarray:
    """Channels (n, K) w_i 1[z_i = k] of class indices z in 0..K-1: a cell's sums are its class weights W_k."""
    out = np.zeros((len(z), n_classes))
    out[np.arange(len(z)), z] = w
    return out


def _one_hot(index, S):
    """One-hot K-vectors (..., K) of the label ``index`` (...) of each cell of S (..., K)."""
    return (index[..., None] == np.arange(S.shape[-1])).astype(float)


@dataclass(frozen=True)
class LeastCost:
    """Cells criterion of AdaBoost.MM's cost-split trees on K channels, the rows D(i, .) of a cost matrix.

    A cell with summed cost rows S_l = sum_{i in cell} D(i, l) predicts the label of least summed
    cost: ``value(S)`` is the one-hot K-vector of argmin_l S_l (ties: the lowest l), ``loss(S, value)``
    the summed cost of predicting it, <S, value> (= min_l S_l at the argmin).  A tree's loss is then
    sum_i D(i, h(x_i)) = D . 1_h, the cost the weak learner minimises (Mukherjee & Schapire 2013;
    Koço & Capponi 2013, eq. (14)).
    """

    @staticmethod
    def value(S):
        S = np.asarray(S, dtype=np.float64)
        return _one_hot(np.argmin(S, axis=-1), S)

    @staticmethod
    def loss(S, value):
        return np.einsum("...k,...k->...", np.asarray(S, dtype=np.float64), value)


@dataclass(frozen=True)
class Gini:
    """Cells criterion of a classification tree on :func:`label_channels` (class weights W_k of a cell).

    ``value(S)``: the one-hot K-vector of the weighted majority class argmax_k W_k (ties: the lowest k);
    ``loss(S, value)``: W gini = W - sum_k W_k^2 / W (W = sum_k W_k; 0 for an empty cell), so a split
    minimises the weighted Gini impurity of its children, scikit-learn's ``DecisionTreeClassifier``
    criterion (the loss does not depend on ``value``).
    """

    @staticmethod
    def value(S):
        S = np.asarray(S, dtype=np.float64)
        return _one_hot(np.argmax(S, axis=-1), S)

    @staticmethod
    def loss(S, value=None):
        S = np.asarray(S, dtype=np.float64)
        W = S.sum(axis=-1)
        sq = np.einsum("...k,...k->...", S, S)
        return W - np.divide(sq, W, out=np.zeros(np.shape(W)), where=W > 0)


@dataclass(frozen=True)
class LeastSquares:
    """Cells criterion of weighted least squares on :func:`wls_channels` (S = (sum w, sum w z)).

    value = sum wz / (sum w + ridge) (the weighted mean of z, shrunk towards 0 by ``ridge``);
    loss = -(sum wz)^2 / (sum w + ridge), the cell's weighted SSE minus the constant sum w z^2
    (at ridge 0).  A cell without weight outputs 0.  It is also the criterion of the line
    learner, which fits a z ~ a x_j + b (and ignores ``ridge``).
    """

    ridge: float = 0.0

    def __post_init__(self):
        if not (np.isfinite(self.ridge) and self.ridge >= 0):
            raise ValueError(f"ridge must be >= 0, got {self.ridge!r}")

    def value(self, S):
        den = S[..., 0] + self.ridge
        return np.divide(S[..., 1], den, out=np.zeros(np.shape(den)), where=den > 0)

    def loss(self, S, f):
        return -S[..., 1] * self.value(S)

    def split_losses(self, L, R, valid):
        """loss(L) + loss(R) of every candidate split at once, inf where not ``valid`` (the backend's
        ``least_squares_losses``: :func:`csrepro.weak.splits.cell_losses`' bits in one pass)."""
        return KERNELS[backend.current()].least_squares_losses(
            *(np.ascontiguousarray(S[:, c], dtype=np.float64) for S in (L, R) for c in (0, 1)),
            valid.view(np.uint8), float(self.ridge), np.empty(len(valid)))


@dataclass(frozen=True)
class SignRegression:
    """Criterion of MCBoost's weak learner (Beijbom et al. 2014, eq. 30) on one channel, the boosting weights w.

    For each feature the line g = a x_j + b fits the targets -sign(w_i) with weights |w_i| by
    weighted least squares; the line of smallest directional derivative sum_i w_i g(x_i) (27)
    wins.  That derivative is the weighted SSE minus sum_i |w_i|: the same fit and score as
    :class:`LeastSquares` on ``wls_channels(|w|, -sign(w))``, computed by the kernel
    :mod:`csrepro._kernels.linear_scan` straight from w.  Only the line learner fits it.
    """


#: what a weak learner's ``fit`` accepts as ``criterion`` (each learner raises TypeError for kinds it cannot fit)
Criterion = Discrete | Cells | LeastCost | Gini | LeastSquares | SignRegression
