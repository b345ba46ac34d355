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


def sequential_scores(hist, offsets, n_bins):
    """The scan's exact arithmetic, one bin and one class at a time: running sums from 0.0 in bin order, the square
    roots added from 0.0 in class order (the NumPy reference sums classes pairwise, so it agrees to rounding only)."""
    K = hist.shape[1] // 2
    out = np.full(len(hist), np.inf)
    for o, m in zip(offsets, n_bins):
        T, L = np.zeros(2 * K), np.zeros(2 * K)
        for b in range(m):
            T = T + hist[o + b]
        for b in range(m - 1):
            L = L + hist[o + b]
            s = 0.0
            for k in range(K):
                A, B = max((T[k] - L[k]) + L[K + k], 0.0), max(L[k] + (T[K + k] - L[K + k]), 0.0)
                s += np.sqrt(A * B)
            out[o + b] = 2.0 * s
    return out


@pytest.mark.parametrize("K", [1, 2, 3, 5, 10])
def test_kernel_is_bit_identical_to_the_sequential_scan(K):
    # the SIMD paths (two classes per register) must give the scalar loop's doubles, rounding residues below 0 included
    rng = np.random.default_rng(10 + K)
    hist, offsets, n_bins = random_hist(rng, [5, 1, 40, 2, 31], K)
    hist = hist * np.exp(rng.normal(0, 4, hist.shape))
    hist[rng.random(hist.shape) < 0.05] *= -1e-12
    got = vector_scan.exp_vector_scores(hist, offsets, n_bins, np.empty(len(hist)))
    assert_array_equal(got, sequential_scores(hist, offsets, n_bins))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 17, 33])
def test_layer_channels_every_row_count(n):
    # 8-row SIMD blocks and the scalar tail: the same doubles as the reference's channel-order sums
    rng = np.random.default_rng(n)
    ch = rng.exponential(size=(n, 6)) * np.exp(rng.normal(0, 4, (n, 6)))
    a = rng.normal(size=3)
    got = vector_scan.layer_channels(ch, np.exp(a), np.exp(-a), np.full((n, 3), np.nan))
    assert_array_equal(got, vector_scan_ref.layer_channels(ch, np.exp(a), np.exp(-a), np.empty((n, 3))))


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


# ----------------------------------------------------------------------------- tree layers at a fixed a

def layer_hist(rng, n_bins, V):
    """(V, total_bins, 3) histograms: (loss if +1, loss if -1, count), some bins empty, some losses equal."""
    B = sum(n_bins)
    count = rng.integers(0, 3, (V, B, 1)).astype(float)
    loss = rng.exponential(size=(V, B, 2)).round(1) * (count > 0)
    return np.ascontiguousarray(np.concatenate([loss, count], axis=2))


@pytest.mark.parametrize("seed", range(40))
def test_labelled_split_scores_kernel_equals_reference_and_a_direct_computation(seed):
    from csrepro.weak.splits import first_min

    rng = np.random.default_rng(seed)
    n_bins = list(rng.integers(1, 9, rng.integers(1, 5)))
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    n_bins = np.asarray(n_bins, dtype=np.intp)
    V = int(rng.integers(1, 4))
    hist = layer_hist(rng, n_bins, V)
    got, best = np.empty((V, 2 * hist.shape[1])), np.empty(V, np.intp)
    vector_scan.labelled_split_scores(hist, offsets, n_bins, got, best)
    want, want_best = np.empty_like(got), np.empty_like(best)
    vector_scan_ref.labelled_split_scores(hist, offsets, n_bins, want, want_best)
    assert_array_equal(got, want)
    assert_array_equal(best, want_best)
    for v in range(V):
        assert best[v] == first_min(got[v])
        for o, m in zip(offsets, n_bins):
            for b in range(m):
                L, R = hist[v, o:o + b + 1].sum(0), hist[v, o + b + 1:o + m].sum(0)
                if b == m - 1 or L[2] < 0.5 or R[2] < 0.5:
                    assert np.isinf(got[v, 2 * (o + b)]) and np.isinf(got[v, 2 * (o + b) + 1])
                else:
                    assert got[v, 2 * (o + b)] == pytest.approx(R[0] + L[1], rel=1e-12)  # left -1, right +1
                    assert got[v, 2 * (o + b) + 1] == pytest.approx(L[0] + R[1], rel=1e-12)


@pytest.mark.parametrize("K", [1, 3, 10])
def test_layer_channels_kernel_equals_reference_and_the_loss_at_fixed_a(K):
    rng = np.random.default_rng(K)
    ch = rng.exponential(size=(50, 2 * K))
    a = rng.normal(size=K)
    got = vector_scan.layer_channels(ch, np.exp(a), np.exp(-a), np.full((50, 3), np.nan))
    assert_array_equal(got, vector_scan_ref.layer_channels(ch, np.exp(a), np.exp(-a), np.empty((50, 3))))
    wp, wn = ch[:, :K], ch[:, K:]
    assert_allclose(got[:, 0], (wp * np.exp(a) + wn * np.exp(-a)).sum(1), rtol=1e-13)  # f = +1
    assert_allclose(got[:, 1], (wp * np.exp(-a) + wn * np.exp(a)).sum(1), rtol=1e-13)  # f = -1
    assert_array_equal(got[:, 2], 1.0)


def test_layer_kernels_refuse_mismatched_shapes():
    with pytest.raises(ValueError, match="needs 3 channels"):
        vector_scan.labelled_split_scores(np.ones((1, 3, 2)), np.array([0], np.intp), np.array([3], np.intp),
                                          np.empty((1, 6)), np.empty(1, np.intp))
    with pytest.raises(ValueError, match="best 2"):
        vector_scan.labelled_split_scores(np.ones((1, 3, 3)), np.array([0], np.intp), np.array([3], np.intp),
                                          np.empty((1, 6)), np.empty(2, np.intp))
    with pytest.raises(ValueError, match="2K channels"):
        vector_scan.layer_channels(np.ones((4, 3)), np.ones(2), np.ones(2), np.empty((4, 3)))
