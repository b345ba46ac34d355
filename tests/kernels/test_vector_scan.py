"""The closed-form K-vector stump scan: Cython kernel against its NumPy reference and a direct computation."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from csrepro._kernels import vector_scan, vector_scan_ref
from csrepro.weak.vector import exp_vector_score


def random_hist(rng, n_bins, K):
    hist = rng.exponential(size=(sum(n_bins), 2 * K)) * (rng.random((sum(n_bins), 1)) < 0.8)
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    return np.ascontiguousarray(hist), offsets, np.asarray(n_bins, dtype=np.intp)


@pytest.mark.parametrize("K", [1, 2, 3, 10])
def test_kernel_equals_reference(K):
    rng = np.random.default_rng(K)
    hist, offsets, n_bins = random_hist(rng, [5, 1, 40, 2, 201], K)
    got = vector_scan.exp_vector_scores(hist, offsets, n_bins, np.empty(len(hist)))
    ref = vector_scan_ref.exp_vector_scores(hist, offsets, n_bins, np.empty(len(hist)))
    assert_array_equal(np.isinf(got), np.isinf(ref))
    assert_array_equal(np.flatnonzero(np.isinf(got)), offsets + n_bins - 1)
    finite = np.isfinite(got)
    assert_allclose(got[finite], ref[finite], rtol=1e-14)


def test_reference_is_the_loss_at_the_closed_form_step():
    rng = np.random.default_rng(0)
    hist, offsets, n_bins = random_hist(rng, [6, 4], 3)
    out = vector_scan_ref.exp_vector_scores(hist, offsets, n_bins, np.empty(len(hist)))
    for o, m in zip(offsets, n_bins):
        for b in range(m - 1):
            left, right = hist[o:o + b + 1].sum(0), hist[o + b + 1:o + m].sum(0)
            assert out[o + b] == pytest.approx(exp_vector_score(right, left), rel=1e-12)


def test_kernel_rejects_an_odd_channel_count():
    hist = np.ones((3, 3))
    with pytest.raises(ValueError, match="2K channels"):
        vector_scan.exp_vector_scores(hist, np.array([0], np.intp), np.array([3], np.intp), np.empty(3))
