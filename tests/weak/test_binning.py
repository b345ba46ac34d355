"""Binning: exact bins, quantile bins, and the threshold rule code <= b  <=>  x <= threshold."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.weak.binning import BinMapper, BinnedData, quantile_groups

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


def test_exact_bins_are_distinct_values():
    X = np.array([[3.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0]])
    m = BinMapper.fit(X)
    np.testing.assert_array_equal(m.n_bins, [3, 1])
    np.testing.assert_array_equal(m.offsets, [0, 3])
    np.testing.assert_array_equal(m.thresholds[0], [1.5, 2.5])
    np.testing.assert_array_equal(m.values[0], [1, 2, 3])
    np.testing.assert_array_equal(m.counts[0], [1, 1, 2])
    codes = m.transform(X)
    assert codes.dtype == np.int32 and codes.flags.c_contiguous
    np.testing.assert_array_equal(codes, [[2, 0], [0, 0], [1, 0], [2, 0]])
    data = BinnedData(X)
    flat, feature, b = data.candidates  # feature 1 is constant: no candidates
    np.testing.assert_array_equal(flat, [0, 1])
    np.testing.assert_array_equal(feature, [0, 0])
    np.testing.assert_array_equal(b, [0, 1])


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 3)), elements=finite),
       st.one_of(st.none(), st.integers(2, 6)), arrays(np.float64, 10, elements=finite))
def test_threshold_rule(X, max_bins, Xnew):
    X = np.vstack([X, np.nextafter(X, np.inf)])  # adjacent floats: midpoints must not round onto a value
    m, codes = BinMapper.fit_transform(X, max_bins)
    np.testing.assert_array_equal(codes, m.transform(X))
    for j, t in enumerate(m.thresholds):
        assert np.all(np.diff(t) > 0)
        assert max_bins is None or len(t) + 1 <= max_bins
        for b in range(len(t)):
            np.testing.assert_array_equal(codes[:, j] <= b, X[:, j] <= t[b])
            new = np.searchsorted(t, Xnew, side="left")
            np.testing.assert_array_equal(new <= b, Xnew <= t[b])
        if max_bins is None:
            assert len(t) + 1 == len(np.unique(X[:, j]))
        np.testing.assert_array_equal(np.bincount(codes[:, j], minlength=len(t) + 1), m.counts[j])


def test_quantile_groups_balance_counts():
    starts = quantile_groups(np.ones(100, dtype=int), 4)
    np.testing.assert_array_equal(starts, [0, 25, 50, 75])
    assert len(quantile_groups(np.ones(3, dtype=int), 10)) == 3
    # a heavy value closes its group
    np.testing.assert_array_equal(quantile_groups(np.array([1, 1, 100, 1, 1]), 3), [0, 3])


def test_bad_max_bins():
    with pytest.raises(ValueError, match="max_bins"):
        BinMapper.fit(np.ones((3, 1)), max_bins=1)
    with pytest.raises(ValueError, match="backend"), use_backend("fortran"):
        BinnedData(np.ones((3, 1)))
    with pytest.raises(ValueError, match="max_bins"):  # checked at once, though the binning waits
        BinnedData(np.ones((3, 1)), max_bins=1)


def test_binning_waits_for_first_use():
    X = np.random.default_rng(0).normal(size=(30, 4)).round(1)
    data = BinnedData(X, max_bins=5)
    assert "_binned" not in vars(data)  # learners on raw features (lines) never pay for the binning
    m, codes = BinMapper.fit_transform(X, 5)
    np.testing.assert_array_equal(data.codes, codes)
    assert data.mapper.total_bins == m.total_bins and data.codes is data.codes


def test_memoised_binning_is_shared_per_training_set():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    a, b = BinnedData.memoised(X), BinnedData.memoised(X.copy())
    assert a is b
    assert BinnedData.memoised(X, max_bins=4) is not a
    assert BinnedData.memoised(X[1:]) is not a
    np.testing.assert_array_equal(a.codes, BinnedData(X).codes)


# ----------------------------------------------------------------------------- uniform binnings: sparse features

def test_sparse_layout_lists_the_rows_outside_the_most_frequent_bin():
    from csrepro.weak.binning import SPARSE_FRACTION, SparseLayout

    codes_t = np.array([[0, 0, 0, 2, 0, 1],     # bin 0 holds 4 / 6: sparse
                        [1, 2, 1, 0, 2, 0],     # most frequent: 2 / 6 (bins 0, 1, 2 tie), under the fraction: dense
                        [3, 3, 3, 3, 3, 3]], dtype=np.uint8)  # one bin: sparse, no rows
    counts = [np.bincount(c, minlength=4) for c in codes_t]
    lay = SparseLayout.build(codes_t, counts, SPARSE_FRACTION)
    np.testing.assert_array_equal(lay.default, [0, -1, 3])
    np.testing.assert_array_equal(lay.indptr, [0, 2, 2, 2])
    np.testing.assert_array_equal(lay.indices, [3, 5])
    assert lay.indices.dtype == np.int32 and lay.n_entries == 2
    np.testing.assert_array_equal(SparseLayout.build(codes_t, counts, 0.0).default, [0, 0, 3])  # ties: lowest bin


def test_only_uniform_binnings_read_features_sparsely():
    X = np.zeros((20, 2))
    X[:3, 0], X[:, 1] = [1.0, 2.0, 3.0], np.arange(20)
    uniform, quantile = BinnedData(X, 5, spacing="uniform"), BinnedData(X, 5)
    np.testing.assert_array_equal(uniform.layout.default, [0, -1])
    assert quantile.layout is None  # every other booster: the dense pass and its bits
    w = np.random.default_rng(0).normal(size=(20, 2))
    np.testing.assert_array_equal(quantile.histogram(w), quantile.kernel.histogram_fm(
        quantile.codes_fm, quantile.mapper.offsets, w, None, np.empty((quantile.mapper.total_bins, 2))))


@st.composite
def repeated_data(draw):
    """Features with many repeated values (most rows at one value for some), channels, a random row subset."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d = draw(st.integers(2, 80)), draw(st.integers(1, 4))
    X = rng.integers(0, draw(st.integers(2, 6)), (n, d)).astype(float)
    X = np.where(rng.random((n, d)) < rng.random(d), X.min(axis=0), X)
    k = draw(st.sampled_from([2, 3, 8, 20]))
    channels = rng.normal(size=(n, k))
    kind = draw(st.sampled_from(["none", "sorted", "shuffled", "repeats", "small"]))
    samples = {"none": None, "sorted": np.flatnonzero(rng.random(n) < 0.8), "shuffled": rng.permutation(n)[:n - 1],
               "repeats": rng.integers(0, n, n), "small": np.array([int(rng.integers(n))])}[kind]
    return X, channels, samples, draw(st.integers(2, 8)), draw(st.sampled_from(BACKENDS))


@settings(max_examples=200, deadline=None)
@given(repeated_data())
def test_sparse_and_dense_histograms_agree(problem):
    """A uniform binning's histogram (sparse features: default bin = total - the others; a row subset as a node,
    or the dense pass for repeated rows and small subsets) matches the dense pass over the same codes to rounding,
    on both backends; and each node of histogram_nodes matches its rows' histogram."""
    from csrepro._kernels import histogram_ref

    X, channels, samples, n_thresholds, backend = problem
    with use_backend(backend):
        data = BinnedData(X, n_thresholds, spacing="uniform")
    m = data.mapper
    dense = histogram_ref.histogram(data.codes, m.offsets, channels, samples,
                                    np.empty((m.total_bins, channels.shape[1])))
    got = data.histogram(channels, samples)
    np.testing.assert_allclose(got, dense, rtol=1e-12, atol=1e-12 * np.abs(channels).sum())
    node = np.random.default_rng(len(X)).integers(-1, 3, len(X)).astype(np.int32)
    nodes = data.histogram_nodes(channels, node, 3)
    for v in range(3):
        want = histogram_ref.histogram(data.codes, m.offsets, channels, np.flatnonzero(node == v),
                                       np.empty((m.total_bins, channels.shape[1])))
        np.testing.assert_allclose(nodes[v], want, rtol=1e-12, atol=1e-12 * np.abs(channels).sum())
    np.testing.assert_allclose(data.node_sums(channels, node, 3), [channels[node == v].sum(0) for v in range(3)],
                               rtol=1e-12, atol=1e-12 * np.abs(channels).sum())


@pytest.mark.parametrize("max_bins, spacing", [(None, "quantile"), (300, "uniform")])
def test_histogram_nodes_without_a_sparse_layout(max_bins, spacing):
    """Quantile binnings (all features dense) and binnings beyond 256 bins (no uint8 codes: one histogram per node)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(400, 2))
    data = BinnedData(X, max_bins, spacing=spacing)
    assert (data.codes_fm is None) == (data.mapper.n_bins.max() > 256)
    ch = rng.normal(size=(400, 3))
    node = rng.integers(-1, 2, 400).astype(np.int32)
    got = data.histogram_nodes(ch, node, 2)
    for v in range(2):
        np.testing.assert_allclose(got[v], data.histogram(ch, np.flatnonzero(node == v)), rtol=1e-12, atol=1e-12)


def test_row_subsets_take_the_sparse_pass_unless_small_or_repeated():
    rng = np.random.default_rng(3)
    X = np.where(rng.random((1000, 5)) < 0.95, 0.0, rng.normal(size=(1000, 5)))
    data = BinnedData(X, 10, spacing="uniform")
    calls = []
    nodes = data.histogram_nodes
    data.histogram_nodes = lambda *a: calls.append(a[1]) or nodes(*a)
    ch = rng.normal(size=(1000, 4))
    big, small = np.flatnonzero(rng.random(1000) < 0.5), np.array([3, 1, 4])
    for samples in (None, big, small, np.r_[big, big[:1]]):
        m = data.mapper
        dense = data.kernel.histogram_fm(data.codes_fm, m.offsets, ch, samples, np.empty((m.total_bins, 4)))
        np.testing.assert_allclose(data.histogram(ch, samples), dense, rtol=1e-12, atol=1e-12)
    assert len(calls) == 2 and calls[0] is None  # all rows, then `big` as node 0; `small` and repeats: dense
    np.testing.assert_array_equal(np.flatnonzero(calls[1] == 0), big)
    assert calls[1].min() == -1


@pytest.mark.parametrize("max_bins, spacing", [(None, "quantile"), (20, "quantile"), (10, "uniform"), (300, "uniform")])
def test_histogram_counts_and_out(max_bins, spacing):
    """``counts``: the histogram of the channels beside a channel of ones, bit for bit, on every pass (feature-major,
    sparse layout, row-major beyond 256 bins, the NumPy backend); ``out``: its first columns filled, the rest kept."""
    rng = np.random.default_rng(4)
    X = np.where(rng.random((600, 3)) < 0.6, 0.0, rng.normal(size=(600, 3)))
    ch = rng.random((600, 2))
    ones = np.column_stack([ch, np.ones(600)])
    for backend in BACKENDS:
        with use_backend(backend):
            data = BinnedData(X, max_bins, spacing=spacing)
            for samples in (None, np.flatnonzero(rng.random(600) < 0.5), rng.integers(0, 600, 50)):
                np.testing.assert_array_equal(data.histogram(ch, samples, counts=True), data.histogram(ones, samples))
                out = np.full((data.mapper.total_bins, 4), 7.0)
                np.testing.assert_array_equal(data.histogram(ch, samples, out=out, counts=True), out)
                np.testing.assert_array_equal(out[:, :3], data.histogram(ones, samples))
                np.testing.assert_array_equal(out[:, 3], 7.0)
