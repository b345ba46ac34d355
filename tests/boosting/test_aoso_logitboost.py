"""AOSO-LogitBoost (Sun, Reid & Zhou 2012) with stumps on REBEL's evenly spaced thresholds.

scikit-learn's estimator checks: tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils._param_validation import InvalidParameterError

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.aoso import (
    AOSOLogitBoostClassifier,
    PairNewtonCells,
    logistic_loss,
    pair_channels,
    pair_newton_step,
    select_pair,
    softmax,
)
from csrepro.weak.binning import BinnedData
from csrepro.weak.stumps import StumpLearner


def _random_problem(seed, n=40, K=4, scale=1.5):
    rng = np.random.default_rng(seed)
    F = scale * rng.normal(size=(n, K))
    F -= F.mean(axis=1, keepdims=True)
    z = rng.integers(0, K, n)
    Y = np.eye(K)[z]
    return F, z, Y


def _direction(K, r, s):
    e = np.zeros(K)
    e[r], e[s] = 1.0, -1.0
    return e


# ------------------------------------------------------------------ node value and gain

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_newton_value_and_gain_match_finite_differences_of_the_loss_along_the_pair(seed):
    """For every pair (r, s): G and D are L'(0), L''(0) of L(t) = loss(F + t (e_r - e_s)) (numerical central
    differences of the actual loss), t = -L'/L'' the 1-D Newton step, and gain = L(0) - min of the quadratic model."""
    F, z, Y = _random_problem(seed)
    K = F.shape[1]
    P = softmax(F)
    eps = 1e-4
    for r in range(K):
        for s in range(K):
            if r == s:
                continue
            e = _direction(K, r, s)

            def L(t, e=e):
                return logistic_loss(F + t * e, z)

            d1 = (L(eps) - L(-eps)) / (2 * eps)
            d2 = (L(eps) - 2 * L(0.0) + L(-eps)) / eps ** 2
            G, D = pair_channels(P, Y, r, s).sum(axis=0)
            assert G == pytest.approx(d1, rel=1e-6, abs=1e-8)
            assert D == pytest.approx(d2, rel=1e-5)
            t, gain = pair_newton_step(G, D)
            assert t == pytest.approx(-d1 / d2, rel=1e-5, abs=1e-8)
            assert gain == pytest.approx(d1 * d1 / (2 * d2), rel=1e-5, abs=1e-8)  # L(0) - min_u L(0) + d1 u + d2 u^2/2
            # the Newton step is a descent step on the actual loss at these moderate probabilities
            assert L(t) <= L(0.0) + 1e-12


def test_denominator_floor_and_cells_criterion():
    t, gain = pair_newton_step(np.array([0.0, 2.0]), np.array([0.0, 4.0]))
    assert_allclose(t, [0.0, -0.5]) and assert_allclose(gain, [0.0, 0.5])
    t, gain = pair_newton_step(1.0, 0.0, floor=1e-3)
    assert t == pytest.approx(-1e3) and gain == pytest.approx(500.0)
    S = np.array([[2.0, 4.0], [-1.0, 1.0]])
    crit = PairNewtonCells()
    assert_allclose(crit.value(S), [-0.5, 1.0])
    assert_allclose(crit.loss(S), [-0.5, -0.5])


# ------------------------------------------------------------------ class pair

@pytest.mark.parametrize("seed", range(5))
def test_pair_is_the_largest_negative_gradient_then_the_partner_of_largest_gain(seed):
    F, _, Y = _random_problem(seed, n=25, K=5)
    P = softmax(F)
    r, s, G, D = select_pair(P, Y)
    neg_grad = [sum(Y[i, k] - P[i, k] for i in range(len(P))) for k in range(5)]
    assert r == int(np.argmax(neg_grad))
    gains = {}
    for k in range(5):
        if k != r:
            Gk = sum((P[i, r] - Y[i, r]) - (P[i, k] - Y[i, k]) for i in range(len(P)))
            Dk = sum(P[i, r] * (1 - P[i, r]) + P[i, k] * (1 - P[i, k]) + 2 * P[i, r] * P[i, k] for i in range(len(P)))
            gains[k] = (Gk * Gk / (2 * Dk), Gk, Dk)
    assert s == max(gains, key=lambda k: (gains[k][0], -k))
    assert (G, D) == pytest.approx(gains[s][1:], rel=1e-12)


def test_pair_rule_is_signed_not_absolute():
    """A class the node over-predicts has the largest |gradient sum| but a positive one: it is never r (it is the
    natural partner s, whose score goes down)."""
    P = np.array([[0.1, 0.1, 0.8], [0.2, 0.1, 0.7], [0.3, 0.3, 0.4]])
    Y = np.eye(3)[[0, 1, 0]]
    g = (P - Y).sum(axis=0)
    assert int(np.argmax(np.abs(g))) == 2
    r, s, _, _ = select_pair(P, Y)
    assert (r, s) == (0, 2)


# ------------------------------------------------------------------ the stump of a round

def _brute_round(X, y, F, thresholds):
    """The round AOSO takes at scores F, by brute force on the raw rule x_j <= t: root pair, best split under it
    (ties: first feature, then threshold), each side's own pair and clipped Newton value."""
    K = F.shape[1]
    P, Y = softmax(F), np.eye(K)[y]

    def pair(rows):
        g = (P[rows] - Y[rows]).sum(0)
        r = int(np.argmax(-g))
        best = None
        for k in range(K):
            if k == r:
                continue
            G = g[r] - g[k]
            D = sum(P[i, r] * (1 - P[i, r]) + P[i, k] * (1 - P[i, k]) + 2 * P[i, r] * P[i, k]
                    for i in np.flatnonzero(rows))
            if best is None or G * G / (2 * D) > best[0]:
                best = (G * G / (2 * D), k, G, D)
        return r, best[1], best[2], best[3]

    everyone = np.ones(len(X), bool)
    r, s, G, D = pair(everyone)
    cands = []
    for j in range(X.shape[1]):
        for t in thresholds[j]:
            gain = 0.0
            for side in (X[:, j] <= t, X[:, j] > t):
                Gs = sum((P[i, r] - Y[i, r]) - (P[i, s] - Y[i, s]) for i in np.flatnonzero(side))
                Ds = sum(P[i, r] * (1 - P[i, r]) + P[i, s] * (1 - P[i, s]) + 2 * P[i, r] * P[i, s]
                         for i in np.flatnonzero(side))
                gain += Gs * Gs / (2 * Ds)
            cands.append((gain, j, t))
    top = max(c[0] for c in cands)
    gain, j, t = next(c for c in cands if c[0] >= top * (1 - 1e-12))
    leaves = []
    for side in (X[:, j] <= t, X[:, j] > t):
        rj, sj, Gj, Dj = pair(side)
        leaves.append((rj, sj, float(np.clip(-Gj / Dj, -5, 5))))
    return (r, s), j, t, gain - G * G / (2 * D), leaves


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_round_is_the_brute_force_stump_and_pairs(backend, seed):
    rng = np.random.default_rng(seed)
    m, d, K, n_bins, T = 45, 3, 4, 7, 4
    X = rng.normal(size=(m, d))
    X[:, 2] = rng.integers(0, 3, m)  # ties and empty uniform bins
    y = rng.integers(0, K, m)
    with use_backend(backend):
        model = AOSOLogitBoostClassifier(n_estimators=T, n_bins=n_bins).fit(X, y)
    thresholds = BinnedData(X, n_bins, spacing="uniform").mapper.thresholds
    for t, F in enumerate(list(model._stages(X))[:T]):
        root, j, thr, split_gain, leaves = _brute_round(X, y, F, thresholds)
        h = model.estimators_[t]
        assert tuple(model.root_pairs_[t]) == root
        assert (h.feature, h.threshold) == (j, thr)
        assert model.split_gains_[t] == pytest.approx(split_gain, rel=1e-9, abs=1e-12)
        assert model.split_gains_[t] >= -1e-12
        for side, (rj, sj, tj) in enumerate(leaves):
            assert tuple(model.leaf_pairs_[t, side]) == (rj, sj)
            assert model.leaf_steps_[t, side] == pytest.approx(tj, rel=1e-10)
            assert_allclose(h.values[side], tj * _direction(K, rj, sj), rtol=1e-10)


def test_the_stump_learner_sees_the_root_pair_channels_on_the_uniform_thresholds(digits):
    X, y = digits
    model = AOSOLogitBoostClassifier(n_estimators=3, n_bins=50).fit(X, y)
    data = BinnedData.memoised(X, 50, spacing="uniform")
    F = list(model._stages(X))[2]
    P, Y = softmax(F), np.eye(10)[y]
    r, s = model.root_pairs_[2]
    h = StumpLearner().fit(data, pair_channels(P, Y, r, s), PairNewtonCells())
    assert (h.feature, h.threshold) == (model.estimators_[2].feature, model.estimators_[2].threshold)
    for h in model.estimators_:
        assert h.threshold in data.mapper.thresholds[h.feature]


def test_two_classes_reduce_to_binary_logitboost_newton_steps(noisy_binary):
    """K = 2: f = F_1 - F_0 moves on each side by v sum(y - p) / sum p (1 - p), the Newton step of the binary
    logistic loss log(1 + e^{-y f}) in f (p = P(class 1)); and F_0 = -F_1."""
    X, y = noisy_binary(n=120)
    model = AOSOLogitBoostClassifier(n_estimators=3).fit(X, y)
    yb = (y == "b").astype(float)
    for t, (F, F_next) in enumerate(zip(list(model._stages(X))[:-1], list(model._stages(X))[1:])):
        p = softmax(F)[:, 1]
        h = model.estimators_[t]
        for side in (X[:, h.feature] <= h.threshold, X[:, h.feature] > h.threshold):
            t_pair = np.clip((yb[side] - p[side]).sum() / (2 * (p[side] * (1 - p[side])).sum()), -5, 5)
            step = 2 * t_pair  # f moves by t - (-t)
            df = (F_next[:, 1] - F_next[:, 0]) - (F[:, 1] - F[:, 0])
            assert_allclose(df[side], model.learning_rate * step, rtol=1e-10)
        assert_allclose(F_next[:, 0], -F_next[:, 1], atol=1e-12)
    assert_allclose(model.decision_function(X), F_next[:, 1] - F_next[:, 0])


# ------------------------------------------------------------------ the booster

def test_scores_keep_sum_to_zero(digits):
    X, y = digits
    model = AOSOLogitBoostClassifier(n_estimators=30).fit(X, y)
    for h in model.estimators_:
        assert_allclose(h.values.sum(axis=1), 0.0, atol=1e-15)
        assert ((h.values != 0).sum(axis=1) <= 2).all()
    for H in model.staged_decision_function(X):
        assert_allclose(H.sum(axis=1), 0.0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_training_loss_decreases_every_round_with_the_default_learning_rate(seed):
    """Random features, labels partly noise: the logged loss equals the loss of the staged scores and falls at
    every round."""
    rng = np.random.default_rng(seed)
    n, d, K = 300, 5, 5
    X = rng.normal(size=(n, d))
    y = np.where(rng.random(n) < 0.5, rng.integers(0, K, n), np.digitize(X[:, 0] + X[:, 1], [-1.5, -0.5, 0.5, 1.5]))
    model = AOSOLogitBoostClassifier(n_estimators=60).fit(X, y)
    assert model.learning_rate == 0.5 and model.n_estimators_ == 60
    z = np.searchsorted(model.classes_, y)
    losses = [logistic_loss(F, z) for F in model._stages(X)]
    assert_allclose(model.train_loss_, losses, rtol=1e-12)
    assert losses[0] == pytest.approx(n * np.log(K))
    assert np.all(np.diff(losses) < 0)


def test_learns_digits(digits):
    X, y = digits
    model = AOSOLogitBoostClassifier(n_estimators=100).fit(X, y)
    assert (model.predict(X) == y).mean() > 0.97
    assert model.train_loss_[-1] < 0.2 * model.train_loss_[0]


def test_deterministic_and_random_state_is_ignored(digits):
    X, y = digits
    a = AOSOLogitBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    b = AOSOLogitBoostClassifier(n_estimators=10, random_state=123).fit(X, y)
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert_array_equal(a.leaf_pairs_, b.leaf_pairs_)


def test_cython_and_numpy_backends_fit_the_same_model(digits):
    X, y = digits
    fits = []
    for b in BACKENDS:
        with use_backend(b):
            fits.append(AOSOLogitBoostClassifier(n_estimators=15).fit(X, y))
    assert [(h.feature, h.threshold) for h in fits[0].estimators_] == [(h.feature, h.threshold)
                                                                        for h in fits[1].estimators_]
    assert_array_equal(fits[0].leaf_pairs_, fits[1].leaf_pairs_)
    assert_allclose(fits[0].decision_function(X), fits[1].decision_function(X), rtol=1e-9, atol=1e-12)
    assert_array_equal(fits[0].predict(X), fits[1].predict(X))


def test_labels_absent_from_training(digits):
    X, y = digits
    keep = y != 9
    model = AOSOLogitBoostClassifier(n_estimators=20, labels=np.arange(10)).fit(X[keep], y[keep])
    H = model.decision_function(X)
    assert H.shape == (len(X), 10)
    assert (H[:, 9] <= 0).all() and 9 not in model.predict(X)


def test_constant_features_stop_before_the_first_round():
    X = np.ones((20, 2))
    y = np.repeat([0, 1, 2, 3], 5)
    model = AOSOLogitBoostClassifier(n_estimators=5).fit(X, y)
    assert model.n_estimators_ == 0 and model.leaf_pairs_.shape == (0, 2, 2)
    assert_array_equal(model.predict(X), np.zeros(20, dtype=int))


def test_bad_inputs(noisy_binary):
    X, y = noisy_binary(n=40)
    with pytest.raises(ValueError, match="only 1 class"):
        AOSOLogitBoostClassifier().fit(X, np.full(len(X), "a"))
    with pytest.raises(ValueError, match=r"training labels \['b'\] are not in labels=\['a', 'c'\]"):
        AOSOLogitBoostClassifier(labels=["a", "c"]).fit(X, y)
    for bad in ({"learning_rate": 0.0}, {"max_step": -1.0}, {"n_estimators": 0}, {"n_bins": 1}):
        with pytest.raises(InvalidParameterError):
            AOSOLogitBoostClassifier(**bad).fit(X, y)
    with pytest.raises(ValueError):
        AOSOLogitBoostClassifier().fit(np.where(np.arange(40)[:, None] == 3, np.nan, X), y)
