"""REBEL's cost-neutral baselines: AdaBoost.MH (Schapire & Singer 1999) with real or discrete vector stumps,
one-vs-all AdaBoost."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from csrepro import methods
from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.aoso import AOSOLogitBoostClassifier
from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.combo import AdaBoostMMClassifier, CoMBoClassifier
from csrepro.boosting.cwboost import CWBoostClassifier
from csrepro.boosting.ecc import AdaBoostECCClassifier
from csrepro.boosting.multiclass_baselines import (
    AdaBoostMHClassifier,
    HammingCells,
    HammingSigns,
    OneVsAllAdaBoostClassifier,
    UniformStumpLearner,
    hamming_channels,
)
from csrepro.weak.binning import BinnedData
from csrepro.weak.stumps import StumpLearner

BOTH = [AdaBoostMHClassifier, OneVsAllAdaBoostClassifier]
#: every fitted variant: real AdaBoost.MH, discrete AdaBoost.MH, one-vs-all AdaBoost
VARIANTS = [AdaBoostMHClassifier, lambda **kw: AdaBoostMHClassifier(predictions="discrete", **kw),
            OneVsAllAdaBoostClassifier]


# ------------------------------------------------------------------ AdaBoost.MH's weak learner

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mh_stump_is_the_best_of_all_thresholds_by_z_with_closed_form_cells(backend, seed):
    rng = np.random.default_rng(seed)
    m, d, K, n_bins = 60, 3, 4, 7
    X = rng.normal(size=(m, d))
    X[:, 2] = rng.integers(0, 3, m)  # ties and empty uniform bins
    y = rng.integers(0, K, m)
    Y = np.where(np.arange(K) == y[:, None], 1.0, -1.0)
    D = rng.random((m, K))
    D /= D.sum()
    eps = 1.0 / (m * K)
    with use_backend(backend):
        data = BinnedData(X, n_bins, spacing="uniform")
        h = StumpLearner().fit(data, hamming_channels(D, Y), HammingCells(eps))

    def sides(left):
        """(W+, W-) per side, each (2, K), by brute force on the raw rule x_j <= t."""
        Wp = np.array([(D * (Y > 0))[s].sum(0) for s in (left, ~left)])
        Wn = np.array([(D * (Y < 0))[s].sum(0) for s in (left, ~left)])
        return Wp, Wn

    brute = []
    for j in range(d):
        for t in data.mapper.thresholds[j]:
            Wp, Wn = sides(X[:, j] <= t)
            brute.append((2 * np.sqrt(Wp * Wn).sum(), j, t))
    best = min(z for z, _, _ in brute)
    first = next((j, t) for z, j, t in brute if z <= best + 1e-12)
    assert h.score == pytest.approx(best, rel=1e-10)
    assert (h.feature, h.threshold) == first
    Wp, Wn = sides(X[:, h.feature] <= h.threshold)
    assert h.values.shape == (2, K)
    assert_allclose(h.values, 0.5 * np.log((Wp + eps) / (Wn + eps)), rtol=1e-10)
    assert_allclose(h.predict(X), np.where((X[:, h.feature] <= h.threshold)[:, None], h.values[0], h.values[1]))


def test_mh_sees_the_candidate_stumps_of_rebel(digits):
    """Both bin by BinnedData.memoised(X, n_bins, spacing="uniform"): one binning, the same thresholds."""
    X, y = digits
    mh = AdaBoostMHClassifier(n_estimators=10, n_bins=50).fit(X, y)
    data = BinnedData.memoised(X, 50, spacing="uniform")
    for h in mh.estimators_:
        assert h.threshold in data.mapper.thresholds[h.feature]
    assert UniformStumpLearner(50).uniform_data(BinnedData.memoised(X)) is data


# ------------------------------------------------------------------ AdaBoost.MH

def test_mh_hamming_loss_is_bounded_by_the_product_of_the_normalisers(digits):
    """Schapire & Singer's bound: (1/mK) sum_{i,l} 1[Y_i[l] f(x_i, l) <= 0] <= prod_t Z_t, at every round; and
    prod_t Z_t is (1/mK) sum_{i,l} exp(-Y_i[l] f(x_i, l)) exactly (the unrolled weight update)."""
    X, y = digits
    model = AdaBoostMHClassifier(n_estimators=40).fit(X, y)
    assert model.n_estimators_ == 40
    Y = np.where(model.classes_ == y[:, None], 1.0, -1.0)
    bound = np.cumprod(model.normalizers_)
    for t, F in enumerate(list(model._stages(X))[1:]):
        assert_allclose(bound[t], np.exp(-Y * F).mean(), rtol=1e-9)
        assert (Y * F <= 0).mean() <= bound[t]
    assert np.all(model.stump_scores_ <= 1.0) and np.all(model.normalizers_ < 1.0)
    assert bound[-1] < 0.05 and (model.predict(X) == y).mean() > 0.95


# ------------------------------------------------------------------ discrete AdaBoost.MH

def test_discrete_mh_first_round_by_hand():
    """Five samples on one feature x = 0..4, classes (0, 0, 1, 1, 2), D_1 = 1/15 per pair.  The edges
    r = sum_j sum_l |W+_jl - W-_jl| of the splits after x = 0, 1, 2, 3 are 7/15, 11/15, 7/15, 7/15: the split
    after 1 wins, left signs (+, -, -), right (-, +, -); err = 2/15 (pairs (4, 1) and (4, 2)),
    alpha = 1/2 ln(26 / 4), Z = sqrt(1 - r^2) = 2 sqrt(26) / 15, and D_2 = 1/26 on the 13 pairs it gets right,
    1/4 on the two it gets wrong."""
    X = np.arange(5.0)[:, None]
    y = np.array([0, 0, 1, 1, 2])
    model = AdaBoostMHClassifier(n_estimators=1, n_bins=7, predictions="discrete").fit(X, y)
    h = model.estimators_[0]
    assert 1.0 <= h.threshold < 2.0
    assert_array_equal(h.values, [[1, -1, -1], [-1, 1, -1]])
    assert -model.stump_scores_[0] == pytest.approx(11 / 15, rel=1e-12)
    assert model.alphas_[0] == pytest.approx(0.5 * np.log(6.5), rel=1e-12)
    assert model.normalizers_[0] == pytest.approx(2 * np.sqrt(26) / 15, rel=1e-12)
    Y = np.where(np.arange(3) == y[:, None], 1.0, -1.0)
    D2 = np.exp(-Y * model.decision_function(X)) / (15 * model.normalizers_[0])
    expected = np.full((5, 3), 1 / 26)
    expected[4, 1:] = 1 / 4
    assert_allclose(D2, expected, rtol=1e-12)
    assert_array_equal(model.predict(X), [0, 0, 1, 1, 1])  # sample 4: scores (-a, a, -a), class 1


def test_hamming_signs_ties_and_edge():
    """Signs of W+ - W- per label (+1 at a tie), and the loss -sum_l |W+_l - W-_l|."""
    S = np.array([[0.2, 0.1, 0.0, 0.1, 0.3, 0.0]])  # W+ = (0.2, 0.1, 0), W- = (0.1, 0.3, 0)
    assert_array_equal(HammingSigns.value(S), [[1.0, -1.0, 1.0]])
    assert_allclose(HammingSigns.loss(S), [-0.3])


def test_discrete_mh_hamming_loss_is_bounded_by_the_product_of_sqrt_one_minus_r_squared(digits):
    """Each Z'_t is sqrt(1 - r_t^2) with r_t the chosen stump's edge and alpha_t = 1/2 ln((1 + r_t) / (1 - r_t)); the
    Hamming loss of f = sum_t alpha_t h_t is at most prod_t Z'_t, which is (1/mK) sum_{i,l} exp(-Y_i[l] f(x_i, l))."""
    X, y = digits
    model = AdaBoostMHClassifier(n_estimators=40, predictions="discrete").fit(X, y)
    assert model.n_estimators_ == 40
    r = -model.stump_scores_
    assert np.all((r > 0) & (r < 1))
    assert_allclose(model.normalizers_, np.sqrt(1 - r ** 2), rtol=1e-9)
    assert_allclose(model.alphas_, 0.5 * np.log((1 + r) / (1 - r)), rtol=1e-12)
    Y = np.where(model.classes_ == y[:, None], 1.0, -1.0)
    bound = np.cumprod(model.normalizers_)
    for t, F in enumerate(list(model._stages(X))[1:]):
        assert_allclose(bound[t], np.exp(-Y * F).mean(), rtol=1e-9)
        assert (Y * F <= 0).mean() <= bound[t]
    for h in model.estimators_:
        assert set(np.unique(h.values)) <= {-1.0, 1.0}
    assert_allclose(model.decision_function(X), sum(a * h.predict(X) for a, h in zip(model.alphas_,
                                                                                      model.estimators_)))
    assert (model.predict(X) == y).mean() > 0.8


def test_discrete_mh_stump_has_the_largest_edge_of_all_thresholds(digits):
    """The discrete stump maximises sum_j sum_l |W+_jl - W-_jl| over all thresholds (brute force at round 1)."""
    X, y = digits
    X = X[:, 20:28]
    model = AdaBoostMHClassifier(n_estimators=1, n_bins=9, predictions="discrete").fit(X, y)
    data = BinnedData.memoised(X, 9, spacing="uniform")
    Y = np.where(np.arange(10) == y[:, None], 1.0, -1.0)
    D = np.full(Y.shape, 1 / Y.size)
    edges = []
    for j in range(X.shape[1]):
        for t in data.mapper.thresholds[j]:
            left = X[:, j] <= t
            edges.append((sum(np.abs((D * Y)[s].sum(0)).sum() for s in (left, ~left)), j, t))
    best = max(e for e, _, _ in edges)
    assert -model.stump_scores_[0] == pytest.approx(best, rel=1e-12)
    assert (model.estimators_[0].feature, model.estimators_[0].threshold) == next(
        (j, t) for e, j, t in edges if e >= best - 1e-12)


def test_discrete_mh_stops_after_a_perfect_stump_and_when_no_edge_is_left():
    """Two classes split by x_0: the first stump is perfect (err = 0), its step uses err = ERR_FLOOR and training
    stops.  Rows of equal features with balanced classes: no stump has an edge, training stops with no round."""
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    model = AdaBoostMHClassifier(n_estimators=10, predictions="discrete").fit(X, [0, 0, 1, 1])
    floor = AdaBoostMHClassifier.ERR_FLOOR
    assert model.n_estimators_ == 1
    assert model.alphas_[0] == pytest.approx(0.5 * np.log((1 - floor) / floor))
    assert_array_equal(model.predict(X), [0, 0, 1, 1])
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    model = AdaBoostMHClassifier(n_estimators=10, predictions="discrete").fit(X, [0, 1, 0, 1])
    assert model.n_estimators_ == 0 and len(model.alphas_) == 0


def test_real_mh_is_the_default_with_unit_steps(digits):
    X, y = digits
    model = AdaBoostMHClassifier(n_estimators=5).fit(X, y)
    assert model.predictions == "real"
    assert_array_equal(model.alphas_, np.ones(5))
    with pytest.raises(ValueError, match="predictions"):
        AdaBoostMHClassifier(predictions="sign").fit(X, y)


def test_mh_predicts_the_argmax_of_the_summed_vector_stumps(digits):
    X, y = digits
    model = AdaBoostMHClassifier(n_estimators=15).fit(X, y)
    F = sum(h.predict(X) for h in model.estimators_)
    assert_allclose(model.decision_function(X), F, rtol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(F, axis=1)])


# ------------------------------------------------------------------ one-vs-all AdaBoost

def test_two_class_one_vs_all_is_two_mirrored_binary_adaboosts(noisy_binary):
    """Class b vs rest is AdaBoost on (a, b); class a vs rest is AdaBoost on the flipped labels, F_a = -F_b.
    Integer features 0..15 and N_tau = 200: every gap holds a uniform threshold, so the uniform stumps split the
    training set as the binary AdaBoost's all-threshold stumps do."""
    X, y = noisy_binary()
    T = 30
    ova = OneVsAllAdaBoostClassifier(n_estimators=T).fit(X, y)
    ada = AdaBoostClassifier(n_estimators=T).fit(X, y)
    flipped = AdaBoostClassifier(n_estimators=T).fit(X, np.where(y == "a", "z", "b"))  # "z" > "b": a is positive
    assert ada.n_estimators_ == T and ova.n_estimators_ == T
    F_a, F_b = (booster.decision_function(X) for booster in ova.estimators_)
    assert_allclose(F_b, ada.decision_function(X), rtol=1e-9)
    assert_allclose(F_a, flipped.decision_function(X), rtol=1e-9)
    assert_allclose(F_a, -F_b, rtol=1e-9)
    for pa, po, Fa, Fo in zip(ada.staged_predict(X), ova.staged_predict(X), ada.staged_decision_function(X),
                              ova.staged_decision_function(X), strict=True):
        assert_array_equal(pa, po)
        assert_allclose(Fo, 2 * Fa, rtol=1e-9, atol=1e-12)


def test_one_vs_all_predicts_the_argmax_of_its_boosters(digits):
    X, y = digits
    model = OneVsAllAdaBoostClassifier(n_estimators=10).fit(X, y)
    F = np.column_stack([b.decision_function(X) for b in model.estimators_])
    for k, b in enumerate(model.estimators_):
        assert_array_equal(b.classes_, [-1, 1])
        assert (b.predict(X) == 1).sum() > 0 and set(np.unique(y[b.predict(X) == 1])) >= {k}
    assert_allclose(model.decision_function(X), F)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(F, axis=1)])


# ------------------------------------------------------------------ both

@pytest.mark.parametrize("cls", [*VARIANTS, AOSOLogitBoostClassifier])
def test_staged_outputs_equal_refits_with_fewer_rounds(cls, digits):
    """Stage t of the staged outputs is the model refitted with ``n_estimators=t`` (ECC, CW-Boost and the
    cost-matrix boosters have their own versions, which also compare their per-round attributes)."""
    X, y = digits
    full = cls(n_estimators=12).fit(X, y)
    staged_p, staged_d = list(full.staged_predict(X)), list(full.staged_decision_function(X))
    assert len(staged_p) == len(staged_d) == 12
    for T in (1, 5, 12):
        refit = cls(n_estimators=T).fit(X, y)
        assert_array_equal(staged_p[T - 1], refit.predict(X))
        assert_allclose(staged_d[T - 1], refit.decision_function(X), rtol=1e-12)


def test_one_vs_all_stages_hold_a_booster_that_stopped_early():
    """A separable class: its AdaBoost stops after the stump with err = 0, later stages keep its score."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = np.where(X[:, 0] > 1.0, 2, rng.integers(0, 2, 150))
    model = OneVsAllAdaBoostClassifier(n_estimators=8).fit(X, y)
    assert model.estimators_[2].n_estimators_ == 1 and model.n_estimators_ == 8
    stages = list(model.staged_decision_function(X))
    assert len(stages) == 8
    for T in (1, 4, 8):
        assert_allclose(stages[T - 1], OneVsAllAdaBoostClassifier(n_estimators=T).fit(X, y).decision_function(X))
        assert_allclose(stages[T - 1][:, 2], stages[0][:, 2])


@pytest.mark.parametrize("cls", VARIANTS)
def test_cython_and_numpy_backends_fit_the_same_model(cls, digits):
    X, y = digits
    fits = []
    for b in BACKENDS:
        with use_backend(b):
            fits.append(cls(n_estimators=15).fit(X, y))
    assert_allclose(fits[0].decision_function(X), fits[1].decision_function(X), rtol=1e-9)
    assert_array_equal(fits[0].predict(X), fits[1].predict(X))


@pytest.mark.parametrize("cls", [*BOTH, AdaBoostECCClassifier, CWBoostClassifier, AOSOLogitBoostClassifier,
                                 AdaBoostMMClassifier, CoMBoClassifier])
def test_cost_neutral_boosters_take_no_cost_matrix(cls):
    """A parameter an estimator does not use is not in its signature (issue 28)."""
    assert "cost_matrix" not in cls().get_params()
    with pytest.raises(TypeError, match="cost_matrix"):
        cls(cost_matrix=np.ones((10, 10)) - np.eye(10))


@pytest.mark.parametrize("cls", VARIANTS)
def test_labels_absent_from_training(cls, digits):
    X, y = digits
    keep = y != 9
    model = cls(n_estimators=5, labels=np.arange(10)).fit(X[keep], y[keep])
    assert model.decision_function(X).shape == (len(X), 10)
    assert 9 not in model.predict(X)


@pytest.mark.parametrize("cls", BOTH)
def test_bad_labels(cls, noisy_binary):
    X, y = noisy_binary(n=40)
    with pytest.raises(ValueError, match=r"training labels \['b'\] are not in labels=\['a', 'c'\]"):
        cls(labels=["a", "c"]).fit(X, y)
    with pytest.raises(ValueError, match="only 1 class"):
        cls().fit(X, np.full(len(X), "a"))


@pytest.mark.parametrize("name, cls", [("adaboost_mh", AdaBoostMHClassifier),
                                       ("ova_adaboost", OneVsAllAdaBoostClassifier)])
def test_registry_ids_are_cost_neutral_and_warn_about_a_cost_matrix(name, cls, digits):
    X, y = digits
    spec = methods.get_method(name)
    assert spec.estimator_class is cls and spec.multiclass and not spec.cost_sensitive
    C = np.ones((10, 10)) - np.eye(10)
    C[0] *= 50
    with pytest.warns(methods.CostBlindWarning, match=f"method '{name}' is cost-blind"):
        with_costs = methods.make_estimator(name, cost_matrix=C, n_estimators=3).fit(X, y)
    assert_allclose(with_costs.decision_function(X), cls(n_estimators=3).fit(X, y).decision_function(X))
