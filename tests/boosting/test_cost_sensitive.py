"""CS-AdaBoost, CS-RealBoost, CS-LogitBoost (thesis Algs. 4-6): reductions, hand checks, cost arguments."""

import numpy as np
import pytest

from csrepro.boosting import cost_sensitive_steps as steps
from csrepro.boosting.binary import (
    AdaBoostClassifier,
    LogitBoostClassifier,
    RealBoostClassifier,
)
from csrepro.boosting.cost_sensitive import (
    CSAdaBoostClassifier,
    CSLogitBoostClassifier,
    CSRealBoostClassifier,
    resolve_binary_costs,
)
from csrepro.boosting.cost_sensitive_baselines import AdaCostClassifier, CSB0Classifier
from csrepro.methods import make_estimator


def _problem(n=160, seed=0, balanced=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.8 * rng.normal(size=n) > 0.4).astype(int)
    if balanced:
        y = (np.argsort(np.argsort(X[:, 0] - 0.5 * X[:, 1] + 0.8 * rng.normal(size=n))) >= n // 2).astype(int)
    return X, y


@pytest.mark.parametrize("cs, parent", [
    (CSAdaBoostClassifier(C1=1, C2=1, class_balanced=False, n_estimators=15), AdaBoostClassifier(n_estimators=15)),
    (CSAdaBoostClassifier(C1=1, C2=1, class_balanced=False, n_estimators=8, weak_learner="tree4"),
     AdaBoostClassifier(n_estimators=8, weak_learner="tree4")),
    (CSRealBoostClassifier(C1=1, C2=1, class_balanced=False, n_estimators=15), RealBoostClassifier(n_estimators=15)),
    (CSRealBoostClassifier(C1=1, C2=1, class_balanced=False, n_estimators=8, weak_learner="tree4"),
     RealBoostClassifier(n_estimators=8, weak_learner="tree4")),
    (CSLogitBoostClassifier(C1=1, C2=1, n_estimators=15), LogitBoostClassifier(n_estimators=15, weak_learner="line")),
    (CSLogitBoostClassifier(C1=1, C2=1, n_estimators=15, weak_learner="stump", newton_weights=True),
     LogitBoostClassifier(n_estimators=15)),
])
def test_equal_unit_costs_reduce_to_the_parent(cs, parent):
    X, y = _problem()
    f_cs, f_parent = cs.fit(X, y).decision_function(X), parent.fit(X, y).decision_function(X)
    assert cs.n_estimators_ == parent.n_estimators_
    np.testing.assert_allclose(f_cs, f_parent, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(cs.predict_proba(X), parent.predict_proba(X), rtol=1e-10, atol=1e-12)


def test_class_balanced_start_is_uniform_on_balanced_classes():
    X, y = _problem(balanced=True)
    cs = CSAdaBoostClassifier(C1=1.0, C2=1.0, n_estimators=10).fit(X, y)
    np.testing.assert_allclose(cs.decision_function(X), AdaBoostClassifier(n_estimators=10).fit(X, y)
                               .decision_function(X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("weak_learner, nonnegative_alpha", [("stump", True), ("tree4", True), ("tree4", False)])
def test_first_cs_ada_step_solves_vi39_with_class_balanced_weights(weak_learner, nonnegative_alpha):
    """alpha_1 solves (VI.39) for b, d of h_1 under w = 1/(2|I+|), 1/(2|I-|) (Alg. 4), of either sign when free."""
    X, y = _problem(seed=1)
    m = CSAdaBoostClassifier(C1=3.0, C2=0.5, n_estimators=3, weak_learner=weak_learner,
                             nonnegative_alpha=nonnegative_alpha).fit(X, y)
    h = m.estimators_[0].predict(X)
    ys = np.where(y == 1, 1.0, -1.0)
    w = steps.class_balanced_weights(ys)
    b, d = w[(ys > 0) & (h < 0)].sum(), w[(ys < 0) & (h > 0)].sum()
    a = m.estimator_weights_[0]
    lhs = 2 * 3.0 * b * np.cosh(3.0 * a) + 2 * 0.5 * d * np.cosh(0.5 * a)
    assert lhs == pytest.approx(3.0 * 0.5 * np.exp(-3.0 * a) + 0.5 * 0.5 * np.exp(-0.5 * a), rel=1e-9)


@pytest.mark.parametrize("y", [[0, 0, 1, 1], [1, 1, 0, 0]])
@pytest.mark.parametrize("nonnegative_alpha", [True, False])
def test_separable_data_stops_after_one_floored_step(y, nonnegative_alpha):
    """An error-free stump stops the fit after its floored step; with alpha free, so does an all-wrong one (the
    first labelling, "left -1, right +1", is all wrong on the second labels and ties with its mirror)."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    m = CSAdaBoostClassifier(C1=1.0, C2=1.0, n_estimators=5, nonnegative_alpha=nonnegative_alpha).fit(X, y)
    assert m.n_estimators_ == 1
    floor = CSAdaBoostClassifier.ERR_FLOOR
    assert abs(m.estimator_weights_[0]) == pytest.approx(0.5 * np.log((1 - floor) / floor))
    np.testing.assert_array_equal(m.predict(X), y)


@pytest.mark.parametrize("C1, C2", [(1.0, 1.0), (4.0, 1.0)])
def test_free_alpha_changes_nothing_for_stumps(C1, C2):
    """Both polarities of every stump are candidates, so a step of either sign adds the same alpha g."""
    X, y = _problem(seed=3)
    fits = [CSAdaBoostClassifier(C1=C1, C2=C2, n_estimators=12, nonnegative_alpha=s).fit(X, y) for s in (True, False)]
    assert fits[0].n_estimators_ == fits[1].n_estimators_
    np.testing.assert_allclose(fits[1].decision_function(X), fits[0].decision_function(X), rtol=1e-9, atol=1e-12)


def test_free_alpha_trees_take_negative_steps_and_lower_the_loss():
    """With trees the free step is used (some alpha < 0 on this problem), and each round's (VI.42), the weights'
    total before renormalising, is below T+ + T- = 1."""
    X, y = _problem(seed=4, n=300)
    m = CSAdaBoostClassifier(C1=2.0, C2=1.0, n_estimators=10, weak_learner="tree4", nonnegative_alpha=False).fit(X, y)
    assert (m.estimator_weights_ < 0).any()
    ys = np.where(y == 1, 1.0, -1.0)
    w = steps.class_balanced_weights(ys)
    for a, h in zip(m.estimator_weights_, m.estimators_):
        w = steps.exp_weight_update(w, ys, a * h.predict(X), 2.0, 1.0)
        assert w.sum() < 1.0
        w /= w.sum()


def test_cost_matrix_gives_the_costs():
    X, y = _problem(seed=2)
    C = np.array([[0.0, 1.0], [3.0, 0.0]])
    assert resolve_binary_costs(None, None, C) == (3.0, 1.0) and resolve_binary_costs(3.0, 1.0, C) == (3.0, 1.0)
    assert resolve_binary_costs(None, 2.0, None) == (1.0, 2.0)
    for cls in (CSAdaBoostClassifier, CSRealBoostClassifier, CSLogitBoostClassifier):
        a = cls(cost_matrix=C, n_estimators=5).fit(X, y).decision_function(X)
        np.testing.assert_array_equal(a, cls(C1=3.0, C2=1.0, n_estimators=5).fit(X, y).decision_function(X))
    with pytest.raises(ValueError, match=r"'C1' parameter of CSAdaBoostClassifier must be a float in the range "
                                         r"\(0.0, inf\) or None"):
        CSAdaBoostClassifier(C1=-1.0).fit(X, y)


@pytest.mark.parametrize("cls", [CSAdaBoostClassifier, CSRealBoostClassifier, CSLogitBoostClassifier, CSB0Classifier,
                                 AdaCostClassifier])
def test_costs_given_both_ways_must_agree(cls):
    """C1 = 2 beside a matrix whose miss cost C[1, 0] is 3 used to win silently; now fit names both values."""
    X, y = _problem(seed=2)
    C = [[0.0, 1.0], [3.0, 0.0]]
    with pytest.raises(ValueError, match=r"C1=2\.0 conflicts with cost_matrix C\[1, 0\]=3\.0; .*drop C1 and C2, or drop "
                                         "cost_matrix"):
        cls(C1=2.0, cost_matrix=C, n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match=r"C2=0\.5 conflicts with cost_matrix C\[0, 1\]=1\.0"):
        cls(C1=3.0, C2=0.5, cost_matrix=C, n_estimators=2).fit(X, y)
    assert cls(C1=3.0, cost_matrix=C, n_estimators=2).fit(X, y).costs_ == (3.0, 1.0)


def test_booster_ids_give_explicit_costs_instead_of_the_runners_matrix():
    """The runner passes every method its cost matrix; a booster id with C1/C2 trains on those (Figure VI.2)."""
    C = [[0.0, 1.0], [1.0, 0.0]]
    swept = make_estimator("cs_adaboost", cost_matrix=C, random_state=0, C1=4.0)
    assert (swept.C1, swept.cost_matrix) == (4.0, None)
    assert make_estimator("adaboost_platt", cost_matrix=C, random_state=0, C2=2.0).cost_matrix is None
    assert make_estimator("csb1", cost_matrix=C, random_state=0).cost_matrix == C


@pytest.mark.parametrize("cls", [CSAdaBoostClassifier, CSRealBoostClassifier, CSLogitBoostClassifier])
def test_a_larger_miss_cost_detects_more(cls):
    X, y = _problem(n=300, seed=3)
    rate = [np.mean(cls(C1=c, C2=1.0, n_estimators=20).fit(X, y).predict(X)[y == 1] == 1) for c in (0.25, 1.0, 4.0)]
    assert rate[0] < rate[1] < rate[2]


def test_cs_logit_zero_crossing_is_the_cost_sensitive_bayes_boundary():
    """Two unit Gaussians at +-1: P(1|x) = 1/(1 + e^{-2x}) (VI.55), so (VI.54) puts the boundary at x* = T/2 = 1/2 log(C2/C1)."""
    rng = np.random.default_rng(4)
    X = np.concatenate([rng.normal(-1, 1, 4000), rng.normal(1, 1, 4000)])[:, None]
    y = np.repeat([0, 1], 4000)
    m = CSLogitBoostClassifier(C1=4.0, C2=1.0, n_estimators=20, z_max=1e6).fit(X, y)  # no clipping: a line is global
    grid = np.linspace(-3, 3, 6001)[:, None]
    x_star = grid[np.argmin(np.abs(m.decision_function(grid))), 0]
    assert x_star == pytest.approx(-0.5 * np.log(4.0), abs=0.1)
    # predict_proba inverts (VI.35): C2/(C1 + C2) = 0.2 on the boundary (VI.54)
    assert m.posterior(np.array([[x_star]]))[0] == pytest.approx(0.2, abs=0.01)
    np.testing.assert_array_equal(m.predict_proba(grid).argmax(1), m.predict(grid))
