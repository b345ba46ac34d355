"""Feature binning, done once per boosting fit, and the histogram pass over the binned data.

Each feature's distinct training values are sorted into bins; thresholds lie between
consecutive bins (the midpoint of the neighbouring values), so a split "bin <= b" on training
codes is the raw rule ``x <= thresholds[j][b]`` and fitted weak learners predict on raw
features.  By default every distinct value has its own bin: stumps and trees then search all
thresholds, exactly.  ``max_bins`` caps the bins per feature by grouping consecutive values into
bins of about equal training counts (quantiles).  ``spacing="uniform"`` instead places ``max_bins``
evenly spaced thresholds over each feature's training range (:meth:`BinMapper.fit_uniform`; REBEL's
N_tau thresholds, Appel et al. 2016, Sec. 4).

Uniform binnings (the REBEL family: REBEL, AdaBoost.MH, one-vs-all AdaBoost) also skip each feature's most
frequent bin when it holds at least :data:`SPARSE_FRACTION` of the rows (MNIST's zero pixels), as LightGBM
does: the histogram reads only the other rows of such a feature (a CSC-like index, :class:`SparseLayout`)
and sets that bin to the column total less the other bins.  The sums then agree with the dense pass up
to rounding; quantile binnings (every other booster) keep the dense pass and its bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from csrepro._kernels import backend, histogram, histogram_ref
from csrepro.cache import fingerprint, named_cache

KERNELS = {"cython": histogram, "numpy": histogram_ref}  # the histogram passes, by backend.current()
#: the 8 most recently used binnings, see BinnedData.memoised
BINNED = named_cache("binned_data", maxsize=8)
SPACINGS = ("quantile", "uniform")
#: a feature of a uniform binning is read sparsely when its most frequent bin holds at least this fraction of rows
SPARSE_FRACTION = 0.5


def check_max_bins(max_bins) -> None:
    """ValueError unless ``max_bins`` is None (one bin per distinct value) or an integer >= 2."""
    if max_bins is not None and not (isinstance(max_bins, (int, np.integer)) and max_bins >= 2):
        raise ValueError(f"max_bins must be None (all thresholds) or an integer >= 2, got {max_bins!r}")


def quantile_groups(counts: np.ndarray, max_groups: int | None) -> np.ndarray:
    """Start index of each group when consecutive cells with ``counts`` form <= ``max_groups`` groups.

    Groups hold about equal total counts: a group ends after the cell where the cumulative count
    first reaches the next multiple of total / max_groups.  None (or enough groups): one cell each.
    """
    n_cells = len(counts)
    if max_groups is None or n_cells <= max_groups:
        return np.arange(n_cells)
    cum = np.cumsum(counts)
    targets = cum[-1] * np.arange(1, max_groups) / max_groups
    ends = np.unique(np.searchsorted(cum, targets, side="left"))  # last cell of each group but the final one
    ends = ends[ends < n_cells - 1]
    return np.concatenate([[0], ends + 1])


@dataclass(frozen=True, eq=False)
class BinMapper:
    """Per-feature bins: ``thresholds[j]`` (increasing, n_bins[j] - 1 values), code(x) = #{thresholds < x}.

    ``values[j][b]`` is the mean of the training values in bin b and ``counts[j][b]`` their number.
    """

    thresholds: tuple
    values: tuple
    counts: tuple

    @classmethod
    def fit(cls, X: np.ndarray, max_bins: int | None = None) -> BinMapper:
        """Bins of each column of finite ``X``: one per distinct value, or <= ``max_bins`` quantile bins."""
        return cls.fit_transform(X, max_bins)[0]

    @classmethod
    def fit_transform(cls, X: np.ndarray, max_bins: int | None = None) -> tuple[BinMapper, np.ndarray]:
        """The mapper of :meth:`fit` and the codes of ``X`` (as :meth:`transform`, from the same sort)."""
        check_max_bins(max_bins)
        X = np.asarray(X, dtype=np.float64)
        codes = np.empty(X.shape, dtype=np.int32)
        thresholds, values, counts = [], [], []
        for j, col in enumerate(X.T):
            u, inverse, c = np.unique(col, return_inverse=True, return_counts=True)
            starts = quantile_groups(c, max_bins)
            mid = u[starts[1:] - 1] + 0.5 * (u[starts[1:]] - u[starts[1:] - 1])
            # adjacent floats: the midpoint may round up to the next value; keep u_b <= t < u_{b+1}
            thresholds.append(np.where(mid < u[starts[1:]], mid, u[starts[1:] - 1]))
            cb = np.add.reduceat(c, starts)
            counts.append(cb)
            values.append(np.add.reduceat(u * c, starts) / cb)
            group = np.zeros(len(u), dtype=np.int32)
            group[starts[1:]] = 1
            codes[:, j] = np.cumsum(group)[inverse]  # bin of each distinct value, then of each row
        return cls(tuple(thresholds), tuple(values), tuple(counts)), codes

    @classmethod
    def fit_uniform(cls, X: np.ndarray, n_thresholds: int) -> tuple[BinMapper, np.ndarray]:
        """``n_thresholds`` evenly spaced thresholds per feature, t_i = lo + i (hi - lo) / (n_thresholds + 1),
        i = 1..n_thresholds, over its training range [lo, hi] (none for a constant feature), and the codes of X.

        Bins may be empty (``values`` there: the bin's midpoint, ``counts`` 0); splits at neighbouring
        thresholds with no training value between them are then equal.
        """
        check_max_bins(n_thresholds)
        X = np.asarray(X, dtype=np.float64)
        codes = np.empty(X.shape, dtype=np.int32)
        thresholds, values, counts = [], [], []
        steps = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
        for j, col in enumerate(X.T):
            lo, hi = col.min(), col.max()
            t = np.unique(lo + (hi - lo) * steps) if hi > lo else np.empty(0)
            codes[:, j] = np.searchsorted(t, col, side="left")
            c = np.bincount(codes[:, j], minlength=len(t) + 1)
            edges = np.concatenate([[lo], t, [hi]])
            mid = 0.5 * (edges[:-1] + edges[1:])
            values.append(np.where(c > 0, np.bincount(codes[:, j], weights=col, minlength=len(c)) / np.maximum(c, 1),
                                   mid))
            thresholds.append(t)
            counts.append(c)
        return cls(tuple(thresholds), tuple(values), tuple(counts)), codes

    @cached_property
    def n_bins(self) -> np.ndarray:
        """Bins per feature, shape (d,)."""
        return np.array([len(t) + 1 for t in self.thresholds], dtype=np.intp)

    @cached_property
    def offsets(self) -> np.ndarray:
        """Start of each feature's bins on the flat bin axis, shape (d,) (np.intp)."""
        return np.concatenate([[0], np.cumsum(self.n_bins)[:-1]]).astype(np.intp)

    @property
    def total_bins(self) -> int:
        return int(self.n_bins.sum())

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Integer codes, C-contiguous int32 array (n, d)."""
        X = np.asarray(X, dtype=np.float64)
        codes = np.empty(X.shape, dtype=np.int32)
        for j, t in enumerate(self.thresholds):
            codes[:, j] = np.searchsorted(t, X[:, j], side="left")
        return codes


@dataclass(frozen=True, eq=False)
class SparseLayout:
    """Which rows of each feature the histogram reads (the ``default, indptr, indices`` of the kernels'
    ``histogram_nodes``): feature j is sparse when ``default[j] >= 0``, its most frequent bin, and then
    ``indices[indptr[j]:indptr[j + 1]]`` (int32, increasing) are the rows in its other bins; dense
    (``default[j] = -1``, no indices) otherwise."""

    default: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray

    @classmethod
    def build(cls, codes_t: np.ndarray, counts, fraction: float = SPARSE_FRACTION) -> SparseLayout:
        """The layout of feature-major codes ``codes_t`` (d, n) with bin ``counts`` per feature: sparse where the
        most frequent bin (the lowest such) holds at least ``fraction`` x n rows."""
        d, n = codes_t.shape
        top = np.array([int(np.argmax(c)) for c in counts], dtype=np.int32)
        share = np.array([c[b] for c, b in zip(counts, top)], dtype=np.float64)
        default = np.where(share >= fraction * n, top, -1).astype(np.int32)
        sparse = np.flatnonzero(default >= 0)
        lengths = np.zeros(d, dtype=np.intp)
        lengths[sparse] = n - share[sparse].astype(np.intp)
        mask = codes_t[sparse] != default[sparse, None].astype(codes_t.dtype)
        indices = np.nonzero(mask)[1].astype(np.int32)  # row-major over (feature, row): rows increasing per feature
        if len(indices) != lengths.sum():
            raise ValueError("counts do not match codes_t")
        return cls(default, np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp), indices)

    @property
    def n_entries(self) -> int:
        """Rows read for the sparse features."""
        return len(self.indices)


def _into(out: np.ndarray | None, H: np.ndarray) -> np.ndarray:
    """``H`` when ``out`` is None, else ``out`` with ``H`` in its first columns."""
    if out is None:
        return H
    out[:, :H.shape[1]] = H
    return out


class BinnedData:
    """The training data of a weak learner (:mod:`csrepro.weak.base`): raw ``X``, ``codes`` (n, d) int32,
    the ``mapper``; binned once per fit, on first use of ``codes`` or ``mapper`` (learners on raw features,
    such as lines, never bin).

    ``histogram(channels, samples)`` is the one per-sample pass every binned weak learner uses
    (``histogram_nodes`` and ``node_sums``: every node of a tree layer in one pass; a uniform binning's
    :attr:`layout` reads features with a dominant bin sparsely);
    ``cache`` holds what learners derive once per fit (bin groupings, squared features).  ``backend``
    names the kernels learners use: :func:`csrepro._kernels.backend.current` when the data is made ("cython",
    or "numpy" for their NumPy references).  ``spacing``:
    "quantile" (:meth:`BinMapper.fit_transform`) or "uniform" (:meth:`BinMapper.fit_uniform`, ``max_bins``
    thresholds per feature; required then).
    """

    def __init__(self, X: np.ndarray, max_bins: int | None = None, spacing: str = "quantile"):
        if spacing not in SPACINGS or (spacing == "uniform" and max_bins is None):
            raise ValueError(f"spacing={spacing!r} is not valid; choose one of {list(SPACINGS)} "
                             "(\"uniform\" needs max_bins, the number of thresholds)")
        check_max_bins(max_bins)
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.max_bins, self.backend, self.spacing = max_bins, backend.current(), spacing
        self.kernel = KERNELS[self.backend]
        self.n_samples, self.n_features = self.X.shape
        self.cache = {}

    @cached_property
    def _binned(self) -> tuple[BinMapper, np.ndarray]:
        if self.spacing == "uniform":
            return BinMapper.fit_uniform(self.X, self.max_bins)
        return BinMapper.fit_transform(self.X, self.max_bins)

    @property
    def mapper(self) -> BinMapper:
        """The bins of each feature (:class:`BinMapper`)."""
        return self._binned[0]

    @property
    def codes(self) -> np.ndarray:
        """Bin of each training value, C-contiguous int32 (n, d)."""
        return self._binned[1]

    @classmethod
    def memoised(cls, X: np.ndarray, max_bins: int | None = None, spacing: str = "quantile") -> BinnedData:
        """``BinnedData(X, max_bins, spacing)``, shared by fits on the same X (e.g. a grid of costs or
        detection rates on one training split): the 8 most recently used binnings are kept, keyed
        on the bytes of X and the backend (:data:`BINNED`).  Treat the result as read-only (``cache`` entries
        are deterministic)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        key = fingerprint(X, max_bins, backend.current(), spacing)
        return BINNED.get(key, lambda: cls(X, max_bins, spacing))

    @cached_property
    def codes_fm(self) -> np.ndarray | None:
        """Feature-major uint8 copy of ``codes``, (d, n), for the feature-major kernels; None when a feature has
        more than 256 bins."""
        if self.n_features and int(self.mapper.n_bins.max()) > 256:
            return None
        return np.ascontiguousarray(self.codes.T, dtype=np.uint8)

    @cached_property
    def codes_columns(self) -> np.ndarray | None:
        """Feature-major codes (d, n) in the narrowest of uint8 (``codes_fm``) and uint16; None when a feature has
        more than 65,536 bins."""
        if self.codes_fm is not None:
            return self.codes_fm
        if int(self.mapper.n_bins.max()) > 65536:
            return None
        return np.ascontiguousarray(self.codes.T, dtype=np.uint16)

    def column(self, j: int) -> np.ndarray:
        """Feature j's training codes, contiguous: a row of ``codes_columns``, else of ``codes.T`` copied once."""
        if self.codes_columns is not None:
            return self.codes_columns[j]
        return self._codes_t[j]

    @cached_property
    def _codes_t(self) -> np.ndarray:
        """``codes.T``, contiguous (for :meth:`column` where ``codes_columns`` is None)."""
        return np.ascontiguousarray(self.codes.T)

    @cached_property
    def layout(self) -> SparseLayout | None:
        """The :class:`SparseLayout` of a uniform binning (features whose most frequent bin holds at least
        :data:`SPARSE_FRACTION` of the rows are read sparsely); None for quantile binnings (dense: their
        histograms keep the bits of the row-at-a-time pass) or without ``codes_fm``."""
        if self.spacing != "uniform" or self.codes_fm is None:
            return None
        return SparseLayout.build(self.codes_fm, self.mapper.counts)

    def histogram(self, channels: np.ndarray, samples: np.ndarray | None = None, out: np.ndarray | None = None,
                  counts: bool = False) -> np.ndarray:
        """Sums of ``channels`` (n, k) per flat bin, shape (total_bins, k), over ``samples`` (None: all; an index
        array, duplicates counting twice); ``out``: None, or a C-contiguous array (total_bins, k') with k' >= k whose
        first k columns get the sums (the others are left as they are: e.g. a tree's sample counts) and is returned.
        ``counts``: the sums of a last channel of ones too (each bin's sample count; ``histogram_fm`` adds it to the
        channels it gathers, other passes sum the channels with a column of ones, ``with_counts``).

        With a :attr:`layout` (uniform binnings) :meth:`histogram_nodes`' pass (a subset as node 0: rows in
        increasing order), unless ``samples`` repeats a row or is so small that reading its rows of every
        feature costs less than that pass (then, as for quantile binnings, the dense pass in the order of
        ``samples``).  Dense: the Cython backend reads :attr:`codes_columns` (uint8 or uint16: ``histogram_fm``,
        the same sums, bit for bit, in a cache-friendlier loop order)."""
        channels = np.ascontiguousarray(channels, dtype=np.float64)
        lay = self.layout
        fm = self.backend == "cython" and self.codes_columns is not None
        if counts and (lay is not None or not fm):  # the count as a channel of ones
            channels = self.kernel.with_counts(channels, np.empty((len(channels), channels.shape[1] + 1)))
            counts = False
        if lay is not None:
            if samples is None:
                return _into(out, self.histogram_nodes(channels, None, 1)[0])
            samples = np.asarray(samples, dtype=np.intp)
            dense_cost = len(samples) * self.n_features
            sparse_cost = self.n_samples * (1 + int(np.count_nonzero(lay.default < 0))) + lay.n_entries
            if sparse_cost < dense_cost:
                member = np.bincount(samples, minlength=self.n_samples)
                if member.max(initial=0) <= 1:
                    return _into(out, self.histogram_nodes(channels, (member - 1).astype(np.int32), 1)[0])
        if out is None:
            out = np.empty((self.mapper.total_bins, channels.shape[1] + counts))
        if fm:
            return self.kernel.histogram_fm(self.codes_columns, self.mapper.offsets, channels, samples, out, counts)
        return self.kernel.histogram(self.codes, self.mapper.offsets, channels, samples, out)

    def histogram_nodes(self, channels: np.ndarray, node: np.ndarray | None, n_nodes: int) -> np.ndarray:
        """Histograms (n_nodes, total_bins, k) of the rows of each node, ``node`` (n,) int32 the node of each row
        (-1: none; None: all in node 0), in one pass over the rows (``histogram_nodes`` of the backend; rows in
        increasing order); without a :attr:`layout`, every feature read densely (quantile binnings) or, beyond
        256 bins, one :meth:`histogram` per node."""
        channels = np.ascontiguousarray(channels, dtype=np.float64)
        m = self.mapper
        lay = self.layout
        if lay is None and self.codes_fm is not None:
            lay = self._dense_layout
        if lay is None:
            where = np.zeros(self.n_samples, dtype=np.int32) if node is None else np.asarray(node)
            return np.stack([self.histogram(channels, np.flatnonzero(where == v)) for v in range(n_nodes)]
                            ).reshape(n_nodes, m.total_bins, channels.shape[1])
        out = np.empty((n_nodes, m.total_bins, channels.shape[1]))
        return self.kernel.histogram_nodes(self.codes_fm, m.offsets, m.n_bins, lay.default, lay.indptr, lay.indices,
                                           channels, node, out)

    @cached_property
    def _dense_layout(self) -> SparseLayout:
        return SparseLayout(np.full(self.n_features, -1, dtype=np.int32), np.zeros(self.n_features + 1, np.intp),
                            np.empty(0, dtype=np.int32))

    def node_sums(self, channels: np.ndarray, node: np.ndarray | None, n_nodes: int) -> np.ndarray:
        """Sums (n_nodes, k) of ``channels`` over each node's rows, added in increasing row order (``node`` as for
        :meth:`histogram_nodes`)."""
        channels = np.ascontiguousarray(channels, dtype=np.float64)
        return self.kernel.node_sums(channels, node, np.empty((n_nodes, channels.shape[1])))

    @cached_property
    def candidates(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Split candidates "code <= b" on the flat bin axis: (flat index, feature, bin b).

        Every bin but a feature's last one; features with one bin give none.
        """
        m = self.mapper
        last = m.offsets + m.n_bins - 1
        flat = np.setdiff1d(np.arange(m.total_bins), last)
        feature = np.searchsorted(m.offsets, flat, side="right") - 1
        return flat, feature, flat - m.offsets[feature]

    def threshold(self, feature: int, b: int) -> float:
        """Raw threshold of the split "code <= b" of ``feature``."""
        return float(self.mapper.thresholds[feature][b])
