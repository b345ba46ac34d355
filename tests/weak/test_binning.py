"""Binning: exact bins, quantile bins, and the threshold rule code <= b  <=>  x <= threshold."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

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
    with pytest.raises(ValueError, match="backend"):
        BinnedData(np.ones((3, 1)), backend="fortran")
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
