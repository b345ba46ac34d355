"""REBEL (Appel, Burgos-Artizzu & Perona 2016): decomposition, surrogate, closed-form step, learners, estimator."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import minimize

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.rebel import (
    REBELClassifier,
    closed_form_step,
    decompose_costs,
    rebel_loss,
    surrogate_targets,
    weak_learning_condition,
    weak_learning_edge,
)
from csrepro.costs import CostMatrixError, rebel_random
from csrepro.weak.binning import BinMapper, BinnedData
from csrepro.weak.vector import ExpVector, LayerTreeLearner, VectorStumpLearner

# ------------------------------------------------------------------ decomposition and surrogate (eq. 2)

@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, (4, 4), elements=st.floats(0, 1e3, allow_subnormal=False)))
def test_decomposition_reconstructs_every_cost_row_exactly(C):
    beta, b = decompose_costs(C)
    K = len(C)
    for y in range(K):
        rebuilt = beta[y] + sum(b[k, y] * (1.0 - np.eye(K)[k]) for k in range(K))
        assert_allclose(rebuilt, C[y], rtol=0, atol=1e-12 * max(1.0, C[y].max()))
        assert (b[:, y] >= 0).all() and b[:, y].min() == 0.0


def test_zero_one_targets_are_the_coupled_sum():
    cp, cm = surrogate_targets(1.0 - np.eye(3))
    assert_array_equal(cp, 1.0 - np.eye(3))
    assert_array_equal(cm, np.eye(3))
    assert_array_equal(decompose_costs(1.0 - np.eye(3))[0], 0.0)


def test_surrogate_bounds_the_empirical_risk():
    rng = np.random.default_rng(1)
    for _ in range(200):
        C = rebel_random(4, rng)
        H = 2 * rng.standard_normal((50, 4))
        y = rng.integers(0, 4, 50)
        risk = C[y, np.argmax(H, axis=1)].mean()
        assert rebel_loss(H, y, C) >= risk - 1e-12


# ------------------------------------------------------------------ closed-form a (Sec. 3)

def test_closed_form_step_minimises_the_loss():
    rng = np.random.default_rng(2)
    crit = ExpVector()
    for _ in range(20):
        K = rng.integers(2, 6)
        pos, neg = rng.exponential(size=2 * K), rng.exponential(size=2 * K)
        a, loss = closed_form_step(pos, neg)
        res = minimize(lambda v: crit.loss(pos, neg, v), np.zeros(K), method="BFGS", options={"gtol": 1e-10})
        assert_allclose(a, res.x, atol=1e-5)
        assert_allclose(loss, res.fun, rtol=1e-10)
        assert_allclose(crit.loss(pos, neg, a), loss, rtol=1e-12)
        assert loss <= (pos + neg).sum()  # the decrease sum(pos + neg) - loss is >= 0


def test_closed_form_step_is_finite_for_a_separated_class():
    a, loss = closed_form_step(np.array([1.0, 0.0, 0.0, 2.0]), np.array([0.0, 3.0, 0.0, 0.0]))
    assert_allclose(a, [0.5 * np.log(1e-10 * 1 / 1), 0.5 * np.log(5 / 1e-10 / 5)], rtol=1e-12)
    assert loss == 0.0


# ------------------------------------------------------------------ weak-learning condition (Sec. 4)

def test_weak_learning_condition_on_a_hand_computed_case():
    w_pos = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 0.0]])
    w_neg = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    f = np.array([1.0, -1.0, -1.0])
    # class 0: (w- - w+) f = (-1)(1) + (1)(-1) + (-1)(-1) = -1; class 1: (1)(1) + (-2)(-1) + (1)(-1) = 2
    # denominator: |w+ - w-| summed = 1 + 1 + 1 + 2 + 1 + 1 = 7
    assert weak_learning_edge(w_pos, w_neg, f) == pytest.approx(3 / 7)
    assert weak_learning_condition(w_pos, w_neg, f, 0.4)
    assert not weak_learning_condition(w_pos, w_neg, f, 0.5)
    with pytest.raises(ValueError, match="gamma must be > 0"):
        weak_learning_condition(w_pos, w_neg, f, 0.0)


# ------------------------------------------------------------------ binning and learners (Sec. 4)

def test_uniform_bins_are_evenly_spaced_over_the_training_range():
    X = np.array([[0.0, 5.0], [1.0, 5.0], [10.0, 5.0]])
    mapper, codes = BinMapper.fit_uniform(X, 4)
    assert_allclose(mapper.thresholds[0], [2.0, 4.0, 6.0, 8.0])
    assert len(mapper.thresholds[1]) == 0
    assert_array_equal(codes[:, 0], [0, 0, 4])
    assert_array_equal(mapper.transform(X), codes)
    assert_array_equal(mapper.counts[0], [2, 0, 0, 0, 1])


def random_channels(rng, n, K):
    return np.hstack([rng.exponential(size=(n, K)) * (rng.random((n, K)) < 0.7), rng.exponential(size=(n, K))])


@pytest.mark.parametrize("backend", BACKENDS)
def test_stump_is_the_best_of_all_thresholds(backend):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    channels = random_channels(rng, 80, 3)
    crit = ExpVector()
    with use_backend(backend):
        data = BinnedData(X, 20, spacing="uniform")
        stump = VectorStumpLearner().fit(data, channels, crit)
    best = np.inf
    for j in range(3):
        for t in data.mapper.thresholds[j]:
            right = X[:, j] > t
            best = min(best, crit.score(channels[right].sum(0), channels[~right].sum(0)))
    assert stump.score == pytest.approx(best, rel=1e-12)
    right = X[:, stump.feature] > stump.threshold
    assert_allclose(stump.cell_sums, [channels[~right].sum(0), channels[right].sum(0)], rtol=1e-12)


def test_each_tree_layer_does_not_increase_the_loss():
    rng = np.random.default_rng(4)
    for seed in range(5):
        X = rng.normal(size=(200, 5))
        channels = random_channels(rng, 200, 4)
        data = BinnedData(X, 30, spacing="uniform")
        scores = [LayerTreeLearner(D).fit(data, channels, ExpVector()).score for D in (1, 2, 3, 4)]
        assert all(b <= a * (1 + 1e-12) for a, b in zip(scores, scores[1:])), (seed, scores)
        assert scores[-1] < scores[0]


def test_tree_predictions_match_its_cell_sums():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 4))
    channels = random_channels(rng, 150, 3)
    with use_backend("numpy"):
        tree = LayerTreeLearner(3).fit(BinnedData(X, 25, spacing="uniform"), channels, ExpVector())
    leaf = tree.apply(X)
    assert tree.feature.max() >= 0 and len(tree.values) <= 8
    for c in range(len(tree.values)):
        assert_allclose(tree.cell_sums[c], channels[leaf == c].sum(0), rtol=1e-12)
    f = tree.predict(X)
    assert tree.score == pytest.approx(ExpVector().score(channels[f > 0].sum(0), channels[f < 0].sum(0)))


# ------------------------------------------------------------------ the estimator

@pytest.mark.parametrize("bias", [False, True])
def test_two_classes_zero_one_costs_reduce_to_adaboost(bias, noisy_binary):
    """Supplement's claim: same stumps (each gap between distinct values holds a threshold: integer features,
    N_tau = 200 over [0, 15]), same selection (2 sqrt(W_c W_e) is increasing in the weighted error below 1/2),
    same step (a_1 = -a_0 = alpha); so H_1 - H_0 = 2 F_AdaBoost and the predictions agree at every stage.
    With ``bias`` the classes are balanced so that a_0 = 0 (the project's AdaBoost has no alpha_0)."""
    X, y = noisy_binary()
    if bias:
        keep = np.concatenate([np.flatnonzero(y == "a")[:100], np.flatnonzero(y == "b")[:100]])
        X, y = X[keep], y[keep]
    T = 30
    ada = AdaBoostClassifier(n_estimators=T).fit(X, y)
    reb = REBELClassifier(n_estimators=T, bias=bias).fit(X, y)
    assert ada.n_estimators_ == T
    assert_allclose(reb.bias_, 0.0, atol=1e-15)
    polarity = np.array([np.sign(h.values[1]) for h in ada.estimators_])  # REBEL's f is +1 above the threshold
    assert_allclose(reb.estimator_weights_[:, 1], polarity * ada.estimator_weights_, rtol=1e-9)
    assert_allclose(reb.estimator_weights_[:, 0], -polarity * ada.estimator_weights_, rtol=1e-9)
    for h_a, h_r in zip(ada.estimators_, reb.estimators_):
        assert h_a.feature == h_r.feature
        assert_array_equal(h_a.predict(X) * np.sign(h_a.values[1]), h_r.predict(X))
    for pa, pr, Fa, Fr in zip(ada.staged_predict(X), reb.staged_predict(X), ada.staged_decision_function(X),
                              reb.staged_decision_function(X)):
        assert_array_equal(pa, pr)
        assert_allclose(Fr, 2 * Fa, rtol=1e-9, atol=1e-12)


def test_training_loss_decreases_every_round_and_matches_eq_2(digits):
    X, y = digits
    C = rebel_random(10, 0)
    model = REBELClassifier(cost_matrix=C, n_estimators=40).fit(X, y)
    assert np.all(np.diff(model.train_loss_) < 0)
    H = np.stack(list(model._stages(X)))
    z = np.searchsorted(model.classes_, y)
    assert_allclose(model.train_loss_, [rebel_loss(h, z, C) for h in H], rtol=1e-10)
    risk = C[z, np.argmax(H[-1], axis=1)].mean()
    assert risk <= model.train_loss_[-1]


def test_bias_is_the_closed_form_constant_learner(digits):
    X, y = digits
    model = REBELClassifier(n_estimators=1).fit(X, y)
    counts = np.bincount(y)
    assert_allclose(model.bias_, 0.5 * np.log(counts / (len(y) - counts)), rtol=1e-12)


@pytest.mark.parametrize("depth", [1, 3])
def test_cython_and_numpy_backends_fit_the_same_model(digits, depth):
    X, y = digits
    fits = []
    for b in BACKENDS:
        with use_backend(b):
            fits.append(REBELClassifier(n_estimators=15, max_depth=depth).fit(X, y))
    assert_allclose(fits[0].estimator_weights_, fits[1].estimator_weights_, rtol=1e-9)
    assert_array_equal(fits[0].predict(X), fits[1].predict(X))


def test_staged_predictions_equal_refits_with_fewer_learners(digits):
    X, y = digits
    C = rebel_random(10, 3)
    full = REBELClassifier(cost_matrix=C, n_estimators=12, max_depth=2)
    staged_p, staged_d = list(full.fit(X, y).staged_predict(X)), list(full.staged_decision_function(X))
    assert len(staged_p) == 12
    for T in (1, 5, 12):
        refit = REBELClassifier(cost_matrix=C, n_estimators=T, max_depth=2).fit(X, y)
        assert_array_equal(staged_p[T - 1], refit.predict(X))
        assert_allclose(staged_d[T - 1], refit.decision_function(X), rtol=1e-12)


def test_training_is_invariant_to_cost_scale_and_row_shifts(digits):
    X, y = digits
    C = rebel_random(10, 4)
    base = REBELClassifier(cost_matrix=C, n_estimators=8).fit(X, y)
    for other in (7.5 * C, C + np.arange(10.0)[:, None]):
        model = REBELClassifier(cost_matrix=other, n_estimators=8).fit(X, y)
        assert_allclose(model.decision_function(X), base.decision_function(X), rtol=1e-9)


def test_labels_absent_from_training(digits):
    X, y = digits
    keep = y != 9
    model = REBELClassifier(n_estimators=5, labels=np.arange(10)).fit(X[keep], y[keep])
    assert model.decision_function(X).shape == (len(X), 10)
    assert 9 not in model.predict(X)


@pytest.mark.parametrize("cost, match", [
    ([[0, -1], [1, 0]], "negative"),
    ([[2, 1], [1, 0]], r"diagonal C\[0, 0\] = 2 exceeds C\[0, 1\] = 1; REBEL accepts a non-zero diagonal only"),
    ([[0, 1, 1], [1, 0, 1], [1, 1, 0]], "cost matrix is 3x3 but there are 2 classes"),
    ([[0, 1], [np.nan, 0]], "not finite"),
    ([[0, 1, 2], [1, 0, 2]], "square"),
    ([[1, 1], [1, 0]], "no positive entry"),
])
def test_bad_cost_matrices(cost, match, noisy_binary):
    X, y = noisy_binary(n=40)
    with pytest.raises(CostMatrixError, match=match):
        REBELClassifier(cost_matrix=cost, n_estimators=2).fit(X, y)


def test_nonzero_diagonal_at_the_row_minimum_trains_as_the_shifted_matrix(noisy_binary):
    X, y = noisy_binary(n=80)
    a = REBELClassifier(cost_matrix=[[1, 3], [2.5, 2]], n_estimators=5).fit(X, y)
    b = REBELClassifier(cost_matrix=[[0, 2], [0.5, 0]], n_estimators=5).fit(X, y)
    assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-12)


def test_bad_labels(noisy_binary):
    X, y = noisy_binary(n=40)
    with pytest.raises(ValueError, match=r"training labels \['b'\] are not in labels=\['a', 'c'\]"):
        REBELClassifier(labels=["a", "c"]).fit(X, y)
    with pytest.raises(ValueError, match="only 1 class"):
        REBELClassifier().fit(X, np.full(len(X), "a"))
    with pytest.raises(ValueError, match="NaN"):
        REBELClassifier().fit(np.where(X > 14, np.nan, X), y)


def test_sample_weight_acts_as_repeated_rows():
    """Issue 28: REBEL weighs each sample's surrogate terms by its (normalised) sample weight; integer weights act
    as repeated rows (same range of the uniform thresholds: every weighted row is kept once)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)
    w = rng.integers(1, 4, size=60)
    C = rebel_random(3, random_state=2)
    weighted = REBELClassifier(cost_matrix=C, n_estimators=6).fit(X, y, sample_weight=w)
    repeated = REBELClassifier(cost_matrix=C, n_estimators=6).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_array_equal(weighted.predict(X), repeated.predict(X))
    assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-9, atol=1e-12)
    assert_allclose(weighted.train_loss_, repeated.train_loss_, rtol=1e-9)
    ones = REBELClassifier(cost_matrix=C, n_estimators=6).fit(X, y, sample_weight=np.ones(60))
    assert_array_equal(ones.decision_function(X), REBELClassifier(cost_matrix=C, n_estimators=6).fit(X, y)
                       .decision_function(X))
