"""Stumps: a hand-computed 6-point case, the discrete candidate totals, and regression stumps by brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete, LeastSquares, class_channels, error_criterion, weighted_error, wls_channels
from csrepro.weak.splits import discrete_pick, discrete_scores, first_min, scan_node
from csrepro.weak.stumps import StumpLearner
from csrepro.weak.trees import TreeLearner

WEIGHTED_ERROR = Discrete(lambda pos, neg: pos[:, 1] + neg[:, 0])


def test_discrete_stump_hand_computed(six_points):
    # Feature 0 (x = 1..6, y = + + - + - -, w = (1,1,1,2,1,1)/7), "+1 iff x <= t":
    #   t=1.5: 3/7, 2.5: 2/7 (x=4), 3.5: 3/7, 4.5: 1/7 (x=3), 5.5: 2/7;  "-1 iff x <= t" is 1 - those.
    # Feature 1 ([3,3,1,1,2,2]): best is "-1 iff x <= 2.5", error 2/7 (x=4).
    X, y, w = six_points
    h = StumpLearner().fit(BinnedData(X), class_channels(w, y), WEIGHTED_ERROR)
    assert (h.feature, h.threshold) == (0, 4.5)
    np.testing.assert_array_equal(h.values, [1.0, -1.0])
    assert h.score == pytest.approx(1 / 7)
    np.testing.assert_array_equal(h.predict(X), [1, 1, 1, 1, -1, -1])
    # the four totals of (VI.40)-(VI.41): positives/negatives mapped to +1 and to -1
    pos, neg = h.cell_sums[h.values > 0].sum(0), h.cell_sums[h.values < 0].sum(0)
    np.testing.assert_allclose(pos, [4 / 7, 1 / 7])
    np.testing.assert_allclose(neg, [0, 2 / 7])


def test_discrete_criterion_sees_every_candidate(six_points):
    X, y, w = six_points
    calls = []

    def score(pos, neg):
        calls.append((pos, neg))
        return pos[:, 1] + neg[:, 0]

    StumpLearner().fit(BinnedData(X), class_channels(w, y), Discrete(score))
    # one call per polarity, each with the 5 thresholds of feature 0 and the 2 of feature 1
    assert [p.shape for p, _ in calls] == [(7, 2), (7, 2)]
    np.testing.assert_array_equal(calls[0][0], calls[1][1])  # polarities swap the sides
    for pos, neg in calls:  # the totals of each candidate always sum to the class weights
        np.testing.assert_allclose(pos + neg, np.tile([4 / 7, 3 / 7], (7, 1)))


def test_ties_lowest_feature_then_threshold_then_polarity():
    X = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], float)  # two identical features
    y = np.array([1, -1, 1, -1], float)
    h = StumpLearner().fit(BinnedData(X), class_channels(np.full(4, 0.25), y), WEIGHTED_ERROR)
    # every threshold has error 1/4 with some polarity; the first is t = 1.5 on feature 0, "+1 iff x <= t"
    assert (h.feature, h.threshold, h.score) == (0, 1.5, 0.25)
    np.testing.assert_array_equal(h.values, [1.0, -1.0])


def test_regression_stump_brute_force():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)).round(1)
    w, z = rng.uniform(0.1, 1, 40), rng.normal(size=40)
    h = StumpLearner().fit(BinnedData(X), wls_channels(w, z), LeastSquares())
    best = np.inf
    for j in range(3):
        for t in np.unique(X[:, j])[:-1]:
            left = X[:, j] <= t
            sse = sum(np.sum(w[s] * (z[s] - np.average(z[s], weights=w[s])) ** 2) for s in (left, ~left))
            best = min(best, sse)
    pred = h.predict(X)
    np.testing.assert_allclose(np.sum(w * (z - pred) ** 2), best, rtol=1e-10)
    np.testing.assert_allclose(h.score + np.sum(w * z * z), best, rtol=1e-10)


def test_two_leaf_tree_is_the_stump(six_points):
    X, y, w = six_points
    data, ch = BinnedData(X), class_channels(w, y)
    for crit in (WEIGHTED_ERROR, LeastSquares()):
        s, t = StumpLearner().fit(data, ch, crit), TreeLearner(2).fit(data, ch, crit)
        np.testing.assert_array_equal(s.predict(X), t.predict(X))
        assert s.score == pytest.approx(t.score)


def test_constant_features_give_none():
    X = np.ones((5, 2))
    ch = class_channels(np.full(5, 0.2), np.array([1, -1, 1, -1, 1.0]))
    assert StumpLearner().fit(BinnedData(X), ch, WEIGHTED_ERROR) is None
    assert TreeLearner(4).fit(BinnedData(X), ch, WEIGHTED_ERROR) is None


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.booleans())
def test_error_form_scores_are_the_score_bits(seed, with_base, counted):
    """discrete_scores of an error_criterion (only the error sums b, d added) equal those of the same criterion as a
    plain score on (pos, neg), bit for bit, with and without a tree's base sums, invalid splits included."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    X = rng.integers(0, 6, (n, 3)).astype(float)
    data = BinnedData(X)
    ch = class_channels(rng.random(n), np.where(rng.random(n) < 0.4, 1.0, -1.0))
    if counted:  # a subset's histogram with a count channel: some splits leave a side empty
        rows = np.flatnonzero(rng.random(n) < 0.5)
        scan = scan_node(data, data.histogram(np.column_stack([ch, np.ones(n)]), rows), counted=True, distinct=True)
    else:
        scan = scan_node(data, data.histogram(ch))
    base = (rng.random(2), rng.random(2)) if with_base else None
    for errors in (lambda b, d: d + b, weighted_error, lambda b, d: 3.0 * b + np.sqrt(d)):  # weighted: its kernel
        plain = Discrete(lambda pos, neg: errors(neg[:, 0], pos[:, 1]))
        want = discrete_scores(scan, plain, base)
        assert discrete_scores(scan, error_criterion(errors), base).tobytes() == want.tobytes()
        scores, first, low = discrete_pick(scan, error_criterion(errors), base)
        assert scores.tobytes() == want.tobytes() and first == first_min(want) and low == want.min()


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["error", "sse"]), st.sampled_from([None, 3]))
def test_stump_fit_predict_is_fit_then_predict(seed, kind, max_bins):
    """fit_predict's stump is fit's and its outputs are stump.predict(X), bit for bit (binned or every value)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 30))
    X = np.round(rng.normal(size=(n, 3)), 1)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    ch = class_channels(rng.random(n), y) if kind == "error" else wls_channels(rng.random(n), rng.normal(size=n))
    crit = WEIGHTED_ERROR if kind == "error" else LeastSquares()
    data = BinnedData(X, max_bins)
    h, hx = StumpLearner().fit_predict(data, ch, crit)
    want = StumpLearner().fit(data, ch, crit)
    if want is None:
        assert h is None and hx is None
        return
    assert (h.feature, h.threshold, h.score) == (want.feature, want.threshold, want.score)
    np.testing.assert_array_equal(h.values, want.values)
    np.testing.assert_array_equal(h.cell_sums, want.cell_sums)
    np.testing.assert_array_equal(hx, want.predict(X))
