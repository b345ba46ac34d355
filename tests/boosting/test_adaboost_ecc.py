"""AdaBoost.ECC (Guruswami & Sahai 1999) with uniform-threshold stumps, a cost-neutral baseline of REBEL (Sec. 5.1)."""

import itertools
from math import comb

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.ecc import (
    MAX_EXHAUSTIVE_CLASSES,
    AdaBoostECCClassifier,
    max_cut_coloring,
    random_coloring,
)
from csrepro.boosting.multiclass_baselines import UniformStumpLearner
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete, class_channels

COLORINGS = ["random", "max_cut"]


def _noisy_multiclass(seed=0, n=240, K=4, d=3):
    """Integer features 0..15, K classes from a noisy sum: no stump separates any colouring."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 16, size=(n, d)).astype(float)
    score = X[:, 0] + 0.5 * X[:, 1] + 3 * rng.standard_normal(n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, K + 1)[1:-1]))
    return X, y


def _cut(W, mu):
    """U = sum_{k, l} W_kl [mu_k != mu_l], straight from the definition."""
    return sum(W[k, l] for k in range(len(mu)) for l in range(len(mu)) if mu[k] != mu[l])


# ------------------------------------------------------------------ one round by hand

def test_one_round_by_hand():
    """x = 0..6, y = (0, 1, 0, 1, 2, 2, 0), max-cut colouring.  D_1 = 1/14 on every (i, l != y_i).

    Colouring: W_kl = n_k / 14 with n = (3, 2, 2); isolating class 0 cuts (5 + 5) / 14, class 1 or 2 9 / 14, so
    mu_1 = (+1, -1, -1) and U_1 = 5/7.  D~_1 = (2, 1, 2, 1, 1, 1, 2) / 10 (class 0: both wrong labels split).
    Colour labels (+, -, +, -, -, -, +): the best stump is x <= 2 -> +1 (errors x = 1 and x = 6), eps = 0.3;
    W^+_+ = 0.4, W^+_- = 0.1, W^-_+ = 0.2, W^-_- = 0.3, so alpha = 1/2 ln 4 = ln 2, beta = 1/2 ln 1.5.
    Update: split pairs times e^{-mu(y_i) g(x_i)} (1/2 for x = 0, 2; 2 for x = 1; sqrt(2/3) for x = 3, 4, 5;
    sqrt(3/2) for x = 6): Z_1 = (8 + 3 sqrt(2/3) + 2 sqrt(3/2)) / 14 = (8 + 2 sqrt 6) / 14
    = 1 - U + 2 U (sqrt(0.04) + sqrt(0.06)).
    Round 2: 14 Z_1 W_2 = [[0, 1+q, 1+q], [2+r, 0, 2], [2r, 2, 0]] (r = sqrt(2/3), q = sqrt(3/2)); isolating
    class 1 cuts 7 + q + r, class 0 4 + 2q + 3r, class 2 5 + q + 2r: mu_2 = (+1, -1, +1), U_2 = (7 + q + r) / (14 Z_1).
    """
    X = np.arange(7.0)[:, None]
    y = np.array([0, 1, 0, 1, 2, 2, 0])
    model = AdaBoostECCClassifier(n_estimators=2, coloring="max_cut").fit(X, y)
    assert model.n_estimators_ == 2
    assert_array_equal(model.colorings_[0], [1, -1, -1])
    assert model.cuts_[0] == pytest.approx(5 / 7, rel=1e-12)
    h = model.estimators_[0]
    assert h.feature == 0 and 2 <= h.threshold < 3
    assert_array_equal(h.predict(X), [1, 1, 1, -1, -1, -1, -1])
    assert model.errors_[0] == pytest.approx(0.3, rel=1e-12)
    assert model.alphas_[0] == pytest.approx(np.log(2), rel=1e-12)
    assert model.betas_[0] == pytest.approx(0.5 * np.log(1.5), rel=1e-12)
    Z1 = (8 + 2 * np.sqrt(6)) / 14
    assert model.normalizers_[0] == pytest.approx(Z1, rel=1e-12)
    assert Z1 == pytest.approx(1 - 5 / 7 + 2 * 5 / 7 * (np.sqrt(0.04) + np.sqrt(0.06)), rel=1e-12)
    r, q = np.sqrt(2 / 3), np.sqrt(3 / 2)
    assert_array_equal(model.colorings_[1], [1, -1, 1])
    assert model.cuts_[1] == pytest.approx((7 + q + r) / (14 * Z1), rel=1e-12)
    # after round 1: f(x, l) = g(x) mu(l); x > 2 ties classes 1 and 2 at beta, the lowest index wins
    F1 = next(model.staged_decision_function(X))
    g = np.where(X[:, 0] <= 2, np.log(2), -0.5 * np.log(1.5))
    assert_allclose(F1, g[:, None] * np.array([1, -1, -1]), rtol=1e-12)
    assert_array_equal(next(model.staged_predict(X)), [0, 0, 0, 1, 1, 1, 1])


def test_a_pure_side_gets_the_floored_vote():
    """x <= 1 holds colour +1 only: alpha = 1/2 ln(W^+_+ / 1e-10), the binary AdaBoost's err floor."""
    X = np.arange(6.0)[:, None]
    y = np.array([0, 0, 1, 1, 2, 1])  # isolating class 1 cuts most: colours (+, +, -, -, +, -)
    model = AdaBoostECCClassifier(n_estimators=1, coloring="max_cut").fit(X, y)
    assert_array_equal(model.colorings_[0], [1, -1, 1])
    assert model.errors_[0] == pytest.approx(1 / 9, rel=1e-12)  # D~ = (1, 1, 2, 2, 1, 2) / 9, x = 4 wrong
    assert model.alphas_[0] == pytest.approx(0.5 * np.log((2 / 9) / AdaBoostClassifier.ERR_FLOOR), rel=1e-12)
    assert model.betas_[0] == pytest.approx(0.5 * np.log(6 / 1), rel=1e-12)


@pytest.mark.parametrize("coloring", COLORINGS)
def test_first_stump_is_the_least_weighted_error_stump_on_the_uniform_thresholds(coloring):
    X, y = _noisy_multiclass(seed=3, n=90, K=5)
    n_bins = 9
    model = AdaBoostECCClassifier(n_estimators=1, n_bins=n_bins, coloring=coloring, random_state=0).fit(X, y)
    m, K = len(X), 5
    mu = model.colorings_[0]
    s = mu[y]
    D = np.where(np.arange(K) == y[:, None], 0.0, 1.0 / (m * (K - 1)))
    Ds = np.where(s[:, None] != mu[None, :], D, 0.0)
    assert model.cuts_[0] == pytest.approx(Ds.sum(), rel=1e-12)
    w = Ds.sum(axis=1) / Ds.sum()
    data = BinnedData(X, n_bins, spacing="uniform")
    brute = []
    for j in range(X.shape[1]):
        for t in data.mapper.thresholds[j]:
            err = w[(X[:, j] <= t) != (s > 0)].sum()  # "x <= t -> +1"; the flip has error 1 - err
            brute.append((min(err, 1 - err), j, t))
    best = min(e for e, _, _ in brute)
    first = next((j, t) for e, j, t in brute if e <= best + 1e-12)
    h = model.estimators_[0]
    assert model.errors_[0] == pytest.approx(best, rel=1e-10)
    assert (h.feature, h.threshold) == first
    assert model.errors_[0] < 0.5


# ------------------------------------------------------------------ colourings

def test_random_coloring_is_a_uniform_balanced_split():
    rng = np.random.RandomState(0)
    draws = [random_coloring(5, rng) for _ in range(3000)]
    assert all(sorted(mu.tolist()) == [-1, -1, 1, 1, 1] for mu in draws)
    counts = {}
    for mu in draws:
        key = tuple(np.flatnonzero(mu < 0))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == comb(5, 2)
    assert max(counts.values()) < 1.25 * 300 and min(counts.values()) > 0.75 * 300
    assert_array_equal(random_coloring(7, np.random.RandomState(1)), random_coloring(7, np.random.RandomState(1)))
    assert sorted(random_coloring(2, np.random.RandomState(3)).tolist()) == [-1, 1]


@pytest.mark.parametrize("K", range(2, 9))
def test_max_cut_is_exact_and_takes_the_first_maximiser(K):
    rng = np.random.default_rng(K)
    W = rng.random((K, K)) * (rng.random((K, K)) < 0.7)
    np.fill_diagonal(W, 0.0)
    W[0, 1] += 0.1  # weight off the diagonal
    mus = [np.array((1,) + bits) for bits in itertools.product([1, -1], repeat=K - 1)]
    mus = sorted(mus[1:], key=lambda mu: sum(2 ** (k - 1) for k in range(1, K) if mu[k] < 0))
    cuts = [_cut(W, mu) for mu in mus]
    mu = max_cut_coloring(W)
    assert _cut(W, mu) == pytest.approx(max(cuts), rel=1e-12)
    assert_array_equal(mu, mus[int(np.argmax(cuts))])


def test_max_cut_ties_go_to_the_first_colouring():
    assert_array_equal(max_cut_coloring(np.ones((3, 3)) - np.eye(3)), [1, -1, 1])  # class 1 alone


@pytest.mark.parametrize("K", [MAX_EXHAUSTIVE_CLASSES + 1, 20, 26])
def test_large_k_max_cut_is_a_local_optimum_cutting_half_the_weight(K):
    rng = np.random.default_rng(K)
    W = rng.random((K, K)) ** 3
    np.fill_diagonal(W, 0.0)
    mu = max_cut_coloring(W)
    U = _cut(W, mu)
    assert set(mu.tolist()) == {-1.0, 1.0}
    assert U >= W.sum() / 2
    for k in range(K):
        flipped = mu.copy()
        flipped[k] = -flipped[k]
        assert _cut(W, flipped) <= U + 1e-12
    # the greedy start is no worse than random balanced splits on average
    rs = np.random.RandomState(0)
    assert U >= np.mean([_cut(W, random_coloring(K, rs)) for _ in range(50)])


@pytest.mark.parametrize("coloring", COLORINGS)
def test_fitted_colourings(coloring, digits):
    X, y = digits
    model = AdaBoostECCClassifier(n_estimators=30, coloring=coloring, random_state=0).fit(X, y)
    C = model.colorings_
    assert C.shape == (30, 10) and set(np.unique(C)) == {-1.0, 1.0}
    assert np.all((C > 0).any(axis=1) & (C < 0).any(axis=1))
    if coloring == "random":
        assert np.all(C.sum(axis=1) == 0)  # 5 / 5 splits
        assert len({tuple(c) for c in C}) > 20
    else:
        assert np.all(C[:, 0] == 1) and np.all(model.cuts_ >= 0.5)  # half of the total pair weight, sum D = 1


# ------------------------------------------------------------------ the bound

@pytest.mark.parametrize("coloring", COLORINGS)
@pytest.mark.parametrize("seed", [0, 1])
def test_training_error_is_bounded_by_k_minus_1_times_the_product_of_the_normalisers(coloring, seed):
    """Every round: prod_t Z_t = 1/(m (K-1)) sum_i sum_{l != y_i} exp((f(x_i, l) - f(x_i, y_i)) / 2) (unrolled
    update) and training error <= (K - 1) prod_t Z_t; each Z_t <= 1 - U_t + 2 U_t sqrt(eps_t (1 - eps_t)) <= 1."""
    K = 4
    X, y = _noisy_multiclass(seed=seed, K=K)
    m = len(X)
    model = AdaBoostECCClassifier(n_estimators=60, n_bins=20, coloring=coloring, random_state=seed).fit(X, y)
    assert model.n_estimators_ == 60
    U, eps, Z = model.cuts_, model.errors_, model.normalizers_
    assert np.all((U > 0) & (U <= 1)) and np.all(eps < 0.5)
    assert np.all(Z <= 1 - U + 2 * U * np.sqrt(eps * (1 - eps)) + 1e-12) and np.all(Z < 1)
    bound = (K - 1) * np.cumprod(Z)
    wrong = np.arange(K) != y[:, None]
    for t, (F, pred) in enumerate(zip(model.staged_decision_function(X), model.staged_predict(X), strict=True)):
        margins = F - F[np.arange(m), y][:, None]
        assert_allclose(bound[t] / (K - 1), np.exp(margins / 2)[wrong].sum() / (m * (K - 1)), rtol=1e-9)
        assert (pred != y).mean() <= bound[t]
    assert bound[-1] < bound[9] < bound[0]


def test_digits_are_fitted(digits):
    X, y = digits
    model = AdaBoostECCClassifier(n_estimators=100, random_state=0).fit(X, y)
    assert 9 * np.prod(model.normalizers_) < 0.5
    assert (model.predict(X) == y).mean() > 0.98


# ------------------------------------------------------------------ the output rule

def test_decision_function_is_the_sum_of_coloured_votes(digits):
    X, y = digits
    model = AdaBoostECCClassifier(n_estimators=15, random_state=0).fit(X, y)
    F = np.zeros((len(X), 10))
    votes = np.zeros((len(X), 10))
    for h, mu, a, b in zip(model.estimators_, model.colorings_, model.alphas_, model.betas_, strict=True):
        hx = h.predict(X)
        assert set(np.unique(hx)) <= {-1.0, 1.0}
        F += np.where(hx > 0, a, -b)[:, None] * mu
        votes += np.where(hx[:, None] > 0, a * (mu > 0), b * (mu < 0))
    assert_allclose(model.decision_function(X), F, rtol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(F, axis=1)])
    # f / 2 and the vote form differ by a term constant over the classes
    diff = F / 2 - votes
    assert_allclose(diff, diff[:, :1] * np.ones((1, 10)), atol=1e-9)


# ------------------------------------------------------------------ two classes

def test_two_classes_is_binary_boosting_with_per_side_votes_not_discrete_adaboost(noisy_binary):
    """K = 2: every colouring splits the two classes, U_t = 1, D~_t is the binary weight vector; the model is
    binary boosting with the least-error stump and votes (alpha, -beta) per side, w <- w e^{-y g}, and the
    decision function H_b - H_a is 2 F.  It is not discrete AdaBoost (one vote for both sides of a stump): the
    first stumps agree, the boosters then differ."""
    X, y = noisy_binary()
    T, n_bins = 25, 200
    fits = [AdaBoostECCClassifier(n_estimators=T, coloring=c, random_state=s).fit(X, y)
            for c, s in [("random", 0), ("random", 1), ("max_cut", None)]]
    assert_allclose(fits[0].cuts_, 1.0, rtol=1e-12)
    for other in fits[1:]:  # the colouring's orientation does not matter
        assert_allclose(other.decision_function(X), fits[0].decision_function(X), rtol=1e-9, atol=1e-12)
    ypm = np.where(y == "b", 1.0, -1.0)
    w = np.full(len(X), 1.0 / len(X))
    F = np.zeros(len(X))
    data = BinnedData(X, n_bins, spacing="uniform")
    error = Discrete(lambda pos, neg: pos[:, 1] + neg[:, 0])
    for t in range(T):
        h = UniformStumpLearner(n_bins).fit(data, class_channels(w, ypm), error)
        hx = h.predict(X)
        a, b = w[(hx > 0) & (ypm > 0)].sum(), w[(hx > 0) & (ypm < 0)].sum()
        c, d = w[(hx < 0) & (ypm > 0)].sum(), w[(hx < 0) & (ypm < 0)].sum()
        g = np.where(hx > 0, 0.5 * np.log(a / b), -0.5 * np.log(d / c))
        F += g
        w = w * np.exp(-ypm * g)
        w /= w.sum()
    assert_allclose(fits[0].decision_function(X), 2 * F, rtol=1e-9)
    ada = AdaBoostClassifier(n_estimators=T, weak_learner=UniformStumpLearner(n_bins)).fit(X, y)
    assert ada.n_estimators_ == T
    first, first_ada = fits[0].estimators_[0], ada.estimators_[0]
    assert (first.feature, first.threshold) == (first_ada.feature, first_ada.threshold)
    assert fits[0].errors_[0] == pytest.approx(0.5 * (1 - np.tanh(ada.estimator_weights_[0])), rel=1e-9)  # err
    assert_array_equal(next(fits[0].staged_predict(X)), next(ada.staged_predict(X)))
    assert np.mean(fits[0].predict(X) != ada.predict(X)) > 0.0
    assert not np.allclose(fits[0].decision_function(X), 2 * ada.decision_function(X))


# ------------------------------------------------------------------ staging, determinism, backends, interface

@pytest.mark.parametrize("coloring", COLORINGS)
def test_staged_outputs_equal_refits_with_fewer_rounds(coloring, digits):
    X, y = digits
    full = AdaBoostECCClassifier(n_estimators=12, coloring=coloring, random_state=7).fit(X, y)
    staged_p, staged_d = list(full.staged_predict(X)), list(full.staged_decision_function(X))
    assert len(staged_p) == len(staged_d) == 12
    for T in (1, 5, 12):
        refit = AdaBoostECCClassifier(n_estimators=T, coloring=coloring, random_state=7).fit(X, y)
        assert_array_equal(refit.colorings_, full.colorings_[:T])
        assert_array_equal(staged_p[T - 1], refit.predict(X))
        assert_allclose(staged_d[T - 1], refit.decision_function(X), rtol=1e-12)


def test_deterministic_given_random_state(digits):
    X, y = digits

    def fit(**kw):
        return AdaBoostECCClassifier(n_estimators=10, **kw).fit(X, y)

    a, b, c = fit(random_state=3), fit(random_state=3), fit(random_state=4)
    assert_array_equal(a.colorings_, b.colorings_)
    assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert not np.array_equal(a.colorings_, c.colorings_)
    rs = np.random.RandomState(3)
    assert_array_equal(fit(random_state=rs).colorings_, a.colorings_)
    m1, m2 = fit(coloring="max_cut", random_state=0), fit(coloring="max_cut", random_state=1)
    assert_array_equal(m1.decision_function(X), m2.decision_function(X))


@pytest.mark.parametrize("coloring", COLORINGS)
def test_cython_and_numpy_backends_fit_the_same_model(coloring, digits):
    X, y = digits
    fits = []
    for b in BACKENDS:
        with use_backend(b):
            fits.append(AdaBoostECCClassifier(n_estimators=15, coloring=coloring, random_state=0).fit(X, y))
    assert [(h.feature, h.threshold) for h in fits[0].estimators_] == [(h.feature, h.threshold)
                                                                       for h in fits[1].estimators_]
    assert_array_equal(fits[0].colorings_, fits[1].colorings_)
    assert_allclose(fits[0].decision_function(X), fits[1].decision_function(X), rtol=1e-9)
    assert_array_equal(fits[0].predict(X), fits[1].predict(X))


def test_stumps_use_the_uniform_thresholds(digits):
    X, y = digits
    model = AdaBoostECCClassifier(n_estimators=10, n_bins=50, random_state=0).fit(X, y)
    data = BinnedData.memoised(X, 50, spacing="uniform")
    for h in model.estimators_:
        assert h.threshold in data.mapper.thresholds[h.feature]


def test_labels_absent_from_training(digits):
    """An absent class is a wrong label of every sample: coloured and scored, trained to score low."""
    X, y = digits
    keep = y != 9
    model = AdaBoostECCClassifier(n_estimators=30, labels=np.arange(10), random_state=0).fit(X[keep], y[keep])
    assert model.colorings_.shape == (30, 10)
    assert model.decision_function(X).shape == (len(X), 10)
    assert (model.predict(X[keep]) == 9).mean() < 0.05


def test_bad_inputs(noisy_binary):
    X, y = noisy_binary(n=40)
    with pytest.raises(ValueError, match="only 1 class"):
        AdaBoostECCClassifier().fit(X, np.full(len(X), "a"))
    with pytest.raises(ValueError, match=r"training labels \['b'\] are not in labels=\['a', 'c'\]"):
        AdaBoostECCClassifier(labels=["a", "c"]).fit(X, y)
    with pytest.raises(ValueError, match="coloring"):
        AdaBoostECCClassifier(coloring="dense").fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        AdaBoostECCClassifier(n_estimators=0).fit(X, y)


def test_constant_features_stop_training():
    X = np.ones((12, 2))
    y = np.repeat([0, 1, 2], 4)
    model = AdaBoostECCClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert model.n_estimators_ == 0 and model.colorings_.shape == (0, 3)
    assert_array_equal(model.predict(X), np.zeros(12, dtype=int))


# AdaBoostECCClassifier(n_estimators=5) passes scikit-learn's checks in
# tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator); max-cut colourings here
@parametrize_with_checks([AdaBoostECCClassifier(n_estimators=5, coloring="max_cut")])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
