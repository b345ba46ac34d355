"""The histogram kernel against its NumPy reference (hypothesis) and a hand-computed case."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro._kernels import histogram, histogram_ref


@st.composite
def problems(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, d, k = draw(st.integers(1, 40)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    n_bins = rng.integers(1, 7, d)
    codes = np.ascontiguousarray((rng.random((n, d)) * n_bins).astype(np.int32))
    offsets = np.concatenate([[0], np.cumsum(n_bins)[:-1]]).astype(np.intp)
    channels = rng.normal(size=(n, k))
    subset = draw(st.booleans())
    samples = rng.integers(0, n, draw(st.integers(0, 2 * n))).astype(np.intp) if subset else None
    return codes, offsets, channels, samples, int(n_bins.sum())


@settings(max_examples=200, deadline=None)
@given(problems())
def test_kernel_equals_reference(problem):
    codes, offsets, channels, samples, total = problem
    got = histogram.histogram(codes, offsets, channels, samples, np.full((total, channels.shape[1]), np.nan))
    want = histogram_ref.histogram(codes, offsets, channels, samples, np.empty((total, channels.shape[1])))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_hand_computed():
    codes = np.array([[0, 1], [1, 1], [1, 0]], dtype=np.int32)
    offsets = np.array([0, 2], dtype=np.intp)
    ch = np.array([[1.0, 10.0], [2.0, 20.0], [4.0, 40.0]])
    want = np.array([[1, 10], [6, 60], [4, 40], [3, 30]], float)
    for mod in (histogram, histogram_ref):
        np.testing.assert_array_equal(mod.histogram(codes, offsets, ch, None, np.empty((4, 2))), want)
        # rows 2, 2, 0: duplicates count twice
        sub = mod.histogram(codes, offsets, ch, np.array([2, 2, 0]), np.empty((4, 2)))
        np.testing.assert_array_equal(sub, [[1, 10], [8, 80], [8, 80], [1, 10]])


@settings(max_examples=200, deadline=None)
@given(problems(), st.booleans())
def test_feature_major_kernel_equals_row_major_bit_for_bit(problem, dominant):
    """histogram_fm (feature-major uint8 codes) gives exactly histogram's sums, and the reference's to rounding;
    ``dominant``: most rows of each feature in one bin (as MNIST's zero pixels)."""
    codes, offsets, channels, samples, total = problem
    if dominant:
        rng = np.random.default_rng(int(codes.sum()) + codes.size)
        codes = np.where(rng.random(codes.shape) < 0.8, 0, codes).astype(np.int32)
    codes_t = np.ascontiguousarray(codes.T, dtype=np.uint8)
    got = histogram.histogram_fm(codes_t, offsets, channels, samples, np.full((total, channels.shape[1]), np.nan))
    row_major = histogram.histogram(codes, offsets, channels, samples, np.empty((total, channels.shape[1])))
    np.testing.assert_array_equal(got, row_major)
    want = histogram_ref.histogram(codes, offsets, channels, samples, np.empty((total, channels.shape[1])))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_feature_major_blocks_and_wide_channels():
    """Several row blocks, d not a multiple of 4, 201 bins, a dominant bin; k = 8..24 even (REBEL's 2K: runs summed
    in registers), and other k (features four at a time)."""
    rng = np.random.default_rng(0)
    n, d = 5000, 7
    codes = np.where(rng.random((n, d)) < 0.8, 0, rng.integers(0, 201, (n, d))).astype(np.int32)
    offsets = np.arange(d, dtype=np.intp) * 201
    codes_t = np.ascontiguousarray(codes.T, dtype=np.uint8)
    for k in (20, 8, 24, 26, 5, 2, 1):
        ch = rng.normal(size=(n, k))
        for samples in (None, np.sort(rng.integers(0, n, 3000)), rng.integers(0, n, 3000)):
            got = histogram.histogram_fm(codes_t, offsets, ch, samples, np.empty((d * 201, k)))
            np.testing.assert_array_equal(got, histogram.histogram(codes, offsets, ch, samples, np.empty((d * 201, k))))
            want = histogram_ref.histogram(codes, offsets, ch, samples, np.empty((d * 201, k)))
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("kernel, codes", [(histogram.histogram, np.zeros((3, 2), np.int32)),
                                           (histogram.histogram_fm, np.zeros((2, 3), np.uint8))])
def test_both_entry_points_refuse_mismatched_shapes(kernel, codes):
    offsets = np.array([0, 1], dtype=np.intp)
    with pytest.raises(ValueError, match=r"shape mismatch: codes(_t)? (3x2|2x3), offsets 2, channels 4x2"):
        kernel(codes, offsets, np.zeros((4, 2)), None, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"out 2x3"):
        kernel(codes, offsets, np.zeros((3, 2)), None, np.zeros((2, 3)))
