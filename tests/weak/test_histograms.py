"""Histogram weak learner: finite outputs with empty / pure bins, the RealBoost Z criterion, bin layout."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Cells, Discrete, class_channels, posterior_cells
from csrepro.weak.histograms import HistogramLearner


def _real(ch, smoothing=1.0):
    return posterior_cells(lambda p, q: 0.5 * np.log(p / q), lambda p, q, f: p * np.exp(-f) + q * np.exp(f),
                           ch, smoothing)


def test_empty_and_pure_bins_stay_finite():
    X = np.arange(12, dtype=float)[:, None]
    y = np.array([1] * 6 + [-1] * 6, float)  # every bin is pure
    w = np.ones(12)
    w[:4] = 0.0  # and the first bins hold no weight at all
    ch = class_channels(w / w.sum(), y)
    h = HistogramLearner(n_bins=4).fit(BinnedData(X), ch, _real(ch))
    assert np.all(np.isfinite(h.values)) and np.isfinite(h.score)
    assert h.values[0] == 0.0  # an empty bin has posterior 1/2
    assert np.all(h.values[2:] < 0) and h.values[1] > 0
    assert np.all(np.isfinite(h.predict(np.array([[-1e9], [5.5], [1e9]]))))


def test_z_criterion_and_posteriors():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = np.where(X[:, 2] + 1.5 * rng.normal(size=300) > 0, 1.0, -1.0)
    w = rng.uniform(0.5, 1.5, 300)
    w /= w.sum()
    ch = class_channels(w, y)
    data = BinnedData(X)
    h = HistogramLearner(n_bins=8).fit(data, ch, _real(ch, smoothing=1e-9))
    assert h.feature == 2 and len(h.values) == 8
    # each bin holds ~300/8 training samples; outputs are 1/2 log(W+ / W-) of the bin
    bins = np.searchsorted(h.edges, X[:, 2], side="left")
    np.testing.assert_array_equal(np.bincount(bins, minlength=8).clip(37, 38), np.bincount(bins, minlength=8))
    Wp, Wn = np.bincount(bins, w * (y > 0), 8), np.bincount(bins, w * (y < 0), 8)
    np.testing.assert_allclose(h.values, 0.5 * np.log(Wp / Wn), rtol=1e-6)
    # Z = sum_i w_i exp(-y_i h(x_i)) = sum_bins 2 sqrt(W+ W-) without smoothing (Schapire & Singer 1999)
    np.testing.assert_allclose(h.score, np.sum(w * np.exp(-y * h.predict(X))), rtol=1e-9)
    np.testing.assert_allclose(h.score, np.sum(2 * np.sqrt(Wp * Wn)), rtol=1e-6)
    for j in range(4):  # the chosen feature has the smallest Z
        other = HistogramLearner(n_bins=8).fit(BinnedData(X[:, [j]]), ch, _real(ch, smoothing=1e-9))
        assert other.score >= h.score - 1e-12


def test_histogram_needs_cells():
    X = np.arange(4.0)[:, None]
    ch = class_channels(np.full(4, 0.25), np.array([1, -1, 1, -1.0]))
    with pytest.raises(TypeError, match="Cells"):
        HistogramLearner().fit(BinnedData(X), ch, Discrete(lambda p, n: p[:, 0]))
    with pytest.raises(ValueError, match="n_bins"):
        HistogramLearner(0)
    with pytest.raises(ValueError, match="smoothing"):
        posterior_cells(np.subtract, np.subtract, ch, smoothing=0.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 3, 7]), st.sampled_from([1, 2, 4, 16]),
       st.sampled_from([1, 3]))
def test_fit_predict_is_fit_then_predict(seed, max_bins, n_bins, K):
    """fit_predict's step is fit's and its outputs are step.predict(X), bit for bit (ties and repeated values,
    binned or every value, scalar or K-vector bins)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    X = np.round(rng.normal(size=(n, 3)), 1)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    ch = class_channels(rng.random(n), y)
    crit = real = _real(ch)
    if K > 1:  # K-vector bins: the scalar output times 1..K
        crit = Cells(lambda S: real.value(S)[..., None] * np.arange(1, K + 1), lambda S, v: real.loss(S, v[..., 0]))
    data = BinnedData(X, max_bins)
    h, hx = HistogramLearner(n_bins).fit_predict(data, ch, crit)
    want = HistogramLearner(n_bins).fit(data, ch, crit)
    assert (h.feature, h.score) == (want.feature, want.score)
    np.testing.assert_array_equal(h.edges, want.edges)
    np.testing.assert_array_equal(h.values, want.values)
    np.testing.assert_array_equal(hx, want.predict(X))
