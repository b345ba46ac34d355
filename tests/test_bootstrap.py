"""csrepro.metrics.paired_bootstrap_means and percentile_interval: pairing, seeding, NaN trials, hand cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from csrepro.metrics import paired_bootstrap_means, percentile_interval


def test_one_trial_gives_its_value_in_every_replicate():
    v = np.array([[[3.0], [5.0]]])
    b = paired_bootstrap_means(v, n_boot=7)
    assert b.shape == (7, 1, 2)
    assert np.all(b[:, 0, 0] == 3.0) and np.all(b[:, 0, 1] == 5.0)


def test_the_draw_is_shared_by_the_methods_of_a_problem():
    # method 1 = method 0 + 2 on every split: every replicate's difference is exactly 2 (paired),
    # while the methods' own means vary between replicates
    rng = np.random.default_rng(1)
    a = rng.random((3, 1, 6))
    b = paired_bootstrap_means(np.concatenate([a, a + 2.0], axis=1), n_boot=500)
    np.testing.assert_allclose(b[:, :, 1] - b[:, :, 0], 2.0)
    assert b[:, :, 0].std(axis=0).min() > 0


def test_seeded_and_different_seeds_differ():
    v = np.random.default_rng(0).random((2, 3, 5))
    np.testing.assert_array_equal(paired_bootstrap_means(v, 50, 4), paired_bootstrap_means(v, 50, 4))
    assert not np.array_equal(paired_bootstrap_means(v, 50, 4), paired_bootstrap_means(v, 50, 5))


def test_missing_trials_are_left_out_of_the_means():
    v = np.array([[[1.0, np.nan, 1.0, 1.0]]])
    b = paired_bootstrap_means(v, n_boot=200)
    finite = b[np.isfinite(b)]
    assert finite.size >= 190 and np.all(finite == 1.0)  # NaN only when a replicate drew the missing trial alone


def test_percentile_interval_by_hand():
    samples = np.arange(1, 101, dtype=float)  # 1..100
    lo, hi = percentile_interval(samples, 0.9)
    assert lo == pytest.approx(np.percentile(samples, 5)) and hi == pytest.approx(np.percentile(samples, 95))


@pytest.mark.parametrize("bad", [np.zeros((2, 3)), np.zeros((0, 1, 1)), np.full((1, 1, 2), np.inf)])
def test_bad_values_are_refused(bad):
    with pytest.raises(ValueError, match="3-D"):
        paired_bootstrap_means(bad)


def test_bad_level_and_n_boot_are_refused():
    with pytest.raises(ValueError, match="level"):
        percentile_interval(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="n_boot"):
        paired_bootstrap_means(np.ones((1, 1, 2)), n_boot=0)


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 6)),
              elements=st.floats(-1e3, 1e3)))
def test_replicate_means_lie_within_the_trials_range(v):
    b = paired_bootstrap_means(v, n_boot=30)
    lo, hi = v.min(axis=2), v.max(axis=2)
    assert np.all(b >= lo - 1e-9) and np.all(b <= hi + 1e-9)
