"""csrepro.statistics: hand-computed cases, SciPy's t distribution and t-test, and autorank's critical difference
against the Nemenyi formula."""

import contextlib
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from csrepro.statistics import (COST_FLOOR, corrected_resampled_ttest, geometric_cost_ratio,
                                hierarchical_bootstrap, win_tie_loss)

# ----------------------------------------------------------------------------- geometric cost ratio


def test_geometric_ratio_hand_case():
    # method 1 costs twice the reference on problem 0 and half on problem 1: geometric mean 1 (arithmetic 1.25);
    # method 2 costs 4x and 1x: sqrt(4) = 2
    means = np.array([[1.0, 2.0, 4.0], [2.0, 1.0, 2.0]])
    np.testing.assert_allclose(geometric_cost_ratio(means, reference=0), [1.0, 1.0, 2.0])


def test_geometric_ratio_is_scipys_gmean_and_ignores_the_pool():
    rng = np.random.default_rng(1)
    means = rng.random((6, 4)) + 0.1
    np.testing.assert_allclose(geometric_cost_ratio(means, 2)[0], stats.gmean(means[:, 0] / means[:, 2]))
    # dropping or adding other methods changes nothing for method 0 against the reference
    np.testing.assert_allclose(geometric_cost_ratio(means[:, [0, 2]], 1)[0], geometric_cost_ratio(means, 2)[0])
    with_weak = np.column_stack([means, 100 * means[:, 0]])
    np.testing.assert_allclose(geometric_cost_ratio(with_weak, 2)[:4], geometric_cost_ratio(means, 2))


def test_zero_costs_count_as_the_floor():
    # problem 0: both perfect (ratio 1); problem 1: the method perfect, the reference 0.01 (ratio floor / 0.01)
    means = np.array([[0.0, 0.0], [0.01, 0.0]])
    expected = np.sqrt(1.0 * COST_FLOOR / 0.01)
    np.testing.assert_allclose(geometric_cost_ratio(means, reference=0), [1.0, expected])
    np.testing.assert_allclose(geometric_cost_ratio(means, reference=0, floor=0.005), [1.0, np.sqrt(0.5)])


def test_batched_ratio_keeps_leading_axes():
    means = np.array([[[1.0, 2.0]], [[1.0, 3.0]]])  # (2 replicates, 1 problem, 2 methods)
    np.testing.assert_allclose(geometric_cost_ratio(means, 0), [[1.0, 2.0], [1.0, 3.0]])


# ----------------------------------------------------------------------------- hierarchical bootstrap


def test_units_then_splits_hand_case():
    # unit A: the method costs 2x the reference on every split, unit B: half.  Drawing two units gives a geometric
    # ratio of 2 (AA), 1 (AB or BA) or 1/2 (BB) with probabilities 1/4, 1/2, 1/4.
    values = np.zeros((2, 2, 3))
    values[0] = [[1, 1, 1], [2, 2, 2]]
    values[1] = [[2, 2, 2], [1, 1, 1]]
    boot = hierarchical_bootstrap(values, ["A", "B"], lambda m: geometric_cost_ratio(m, 0)[1], n_boot=4000)
    assert set(np.round(boot, 12)) == {0.5, 1.0, 2.0}
    freq = pd.Series(np.round(boot, 12)).value_counts(normalize=True)
    assert freq[1.0] == pytest.approx(0.5, abs=0.03) and freq[2.0] == pytest.approx(0.25, abs=0.03)


def test_problems_of_a_unit_share_the_split_draw():
    # unit 0 has problems 0 and 1 = problem 0 + 10 on every split; unit 1 has problem 2 (costs near 100).  With one
    # split draw per drawn unit, every draw of problem 0 is followed by problem 1's row, exactly 10 higher (a
    # separate draw per problem would break that); each replicate holds 4, 3 or 2 rows (units drawn 00, 01, 11).
    rng = np.random.default_rng(0)
    x = rng.random((1, 2, 5))
    values = np.concatenate([x, x + 10, 100 + rng.random((1, 2, 5))])
    seen = []
    hierarchical_bootstrap(values, [0, 0, 1], lambda m: seen.append(m.copy()) or m.sum(), n_boot=300)
    sizes = set()
    for means in seen:
        first = np.flatnonzero(means[:, 0] < 10)
        np.testing.assert_allclose(means[first + 1], means[first] + 10)
        assert len(means) == 2 * len(first) + (2 - len(first))
        sizes.add(len(means))
    assert sizes == {2, 3, 4}


def test_one_unit_is_the_ordinary_bootstrap_of_the_mean():
    # one unit with one problem: the replicates are bootstrap means over the splits, as scipy.stats.bootstrap's
    x = np.array([0.3, 0.1, 0.7, 0.4, 0.9, 0.2])
    boot = hierarchical_bootstrap(x[None, None, :], [0], lambda m: m[0, 0], n_boot=10000, random_state=1)
    ref = stats.bootstrap((x,), np.mean, n_resamples=10000, method="percentile", random_state=2).confidence_interval
    np.testing.assert_allclose(np.percentile(boot, [2.5, 97.5]), [ref.low, ref.high], atol=0.01)
    assert boot.mean() == pytest.approx(x.mean(), abs=0.005)


def test_the_bootstrap_is_seeded_and_checks_its_input():
    values = np.random.default_rng(0).random((4, 3, 5))
    units = [0, 0, 1, 1]
    a = hierarchical_bootstrap(values, units, lambda m: m.mean(axis=0), n_boot=50, random_state=7)
    b = hierarchical_bootstrap(values, units, lambda m: m.mean(axis=0), n_boot=50, random_state=7)
    assert a.shape == (50, 3) and np.array_equal(a, b)
    with pytest.raises(ValueError, match="one unit per problem"):
        hierarchical_bootstrap(values, [0, 1], np.mean)
    with pytest.raises(ValueError, match="finite"):
        hierarchical_bootstrap(np.where(values > 0.5, np.nan, values), units, np.mean)


# ----------------------------------------------------------------------------- corrected resampled t-test


def test_corrected_ttest_hand_case():
    # d = (1, 2, 3): mean 2, s^2 = 1; J = 3, n_test / n_train = 1/2 -> variance (1/3 + 1/2) * 1 = 5/6,
    # t = 2 / sqrt(5/6) = sqrt(24/5).  Student's t with 2 df has the closed form P(|T| > t) = 1 - t / sqrt(2 + t^2),
    # so p = 1 - sqrt(4.8 / 6.8) = 1 - sqrt(12/17).
    t, p = corrected_resampled_ttest([1.0, 2.0, 3.0], 0.5)
    assert t == pytest.approx(np.sqrt(24 / 5)) and p == pytest.approx(1 - np.sqrt(12 / 17))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-10, 10), min_size=2, max_size=20), st.floats(0, 2))
def test_corrected_ttest_against_scipy(d, ratio):
    # the corrected statistic is scipy's one-sample t times sqrt((1/J) / (1/J + ratio)); p from scipy's t
    d = np.asarray(d)
    if np.ptp(d) < 1e-6 * (1 + np.abs(d).max()):
        return  # constant differences: covered by the zero-variance test
    j = len(d)
    t, p = corrected_resampled_ttest(d, ratio)
    expected = stats.ttest_1samp(d, 0.0).statistic * np.sqrt((1 / j) / (1 / j + ratio))
    assert t == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert p == pytest.approx(2 * stats.t.sf(abs(expected), j - 1), rel=1e-9, abs=1e-15)
    if ratio == 0:  # no correction: scipy's p-value itself
        assert p == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9, abs=1e-15)


def test_the_correction_turns_a_naive_win_into_a_tie():
    # 75 / 25 splits (n_test / n_train = 1/3): the variance factor is 1/5 + 1/3 instead of 1/5, t shrinks by
    # sqrt(0.2 / 0.5333) = 0.61; here the naive test finds a win (p ~ 0.025), the corrected one a tie (p ~ 0.1)
    d = np.array([-0.02, -0.005, -0.035, -0.01, -0.03])
    (t_naive, p_naive), (t, p) = corrected_resampled_ttest(d, 0.0), corrected_resampled_ttest(d, 1 / 3)
    assert t == pytest.approx(t_naive * np.sqrt(0.2 / (0.2 + 1 / 3)))
    assert p_naive < 0.05 < p
    assert win_tie_loss(d, 0.0) == 1 and win_tie_loss(d, 1 / 3) == 0


def test_zero_variance_and_vectorised_axes():
    t, p = corrected_resampled_ttest([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [-2.0, -2.0, -2.0]], 1 / 3)
    assert list(t) == [0.0, np.inf, -np.inf] and list(p) == [1.0, 0.0, 0.0]
    d = np.random.default_rng(0).normal(size=(4, 6, 3))
    t_axis, _ = corrected_resampled_ttest(d, 0.25, axis=1)
    t_last, _ = corrected_resampled_ttest(np.moveaxis(d, 1, -1), 0.25)
    np.testing.assert_allclose(t_axis, t_last)
    with pytest.raises(ValueError, match="at least 2"):
        corrected_resampled_ttest([1.0], 0.5)


def test_win_tie_loss_signs():
    # lower cost is better: consistently negative differences win, positive lose, noise ties
    d = np.array([[-1.0, -1.1, -0.9, -1.05, -0.95], [1.0, 1.1, 0.9, 1.05, 0.95], [0.1, -0.2, 0.15, -0.1, 0.05]])
    assert list(win_tie_loss(d, 1 / 3)) == [1, -1, 0]
    # at alpha 0.05 exactly when scipy's two-sided p is below it
    _, p = corrected_resampled_ttest(d, 1 / 3)
    assert list(win_tie_loss(d, 1 / 3) != 0) == list(p < 0.05)
    with pytest.raises(ValueError, match="alpha"):
        win_tie_loss(d, 1 / 3, alpha=1.5)


# ----------------------------------------------------------------------------- Friedman / Nemenyi (autorank)


@pytest.mark.parametrize("n, k", [(12, 22), (12, 5), (30, 8)])
def test_autoranks_critical_difference_is_the_nemenyi_formula(n, k):
    """CD = q_alpha sqrt(k (k + 1) / (6 N)), q_alpha the studentized range quantile / sqrt(2) (Demsar 2006)."""
    from autorank import autorank

    data = pd.DataFrame(np.random.default_rng(n + k).random((n, k)), columns=[f"m{i}" for i in range(k)])
    with contextlib.redirect_stdout(io.StringIO()):
        res = autorank(data, alpha=0.05, order="ascending", force_mode="nonparametric", approach="frequentist",
                       verbose=False)
    q = stats.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2)
    assert res.cd == pytest.approx(q * np.sqrt(k * (k + 1) / (6 * n)), rel=1e-3)
    # the Friedman statistic is scipy's on the same table
    assert res.pvalue == pytest.approx(stats.friedmanchisquare(*data.to_numpy().T).pvalue, rel=1e-6)
