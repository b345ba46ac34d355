"""RegularizedDiscriminantAnalysis: the covariance blend of O'Brien et al. 2008, Sec. 6, and its schedule."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro.probability import RegularizedDiscriminantAnalysis
from csrepro.probability.rda import (
    DEFAULT_GRID,
    condition_number,
    identity_scale,
    regularized_covariance,
    schedule_path,
)

# class 0: (0, 0), (2, 0) -> mean (1, 0), S_0 = [[1, 0], [0, 0]]; class 1: (0, 0), (0, 2) -> S_1 = [[0, 0], [0, 1]];
# S_pool = I / 2, trace(S_k) / d = 1/2
X_HAND = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 0.0], [0.0, 2.0]])
Y_HAND = np.array([0, 0, 1, 1])


def test_blend_by_hand():
    S0, pooled = np.array([[1.0, 0.0], [0.0, 0.0]]), np.eye(2) / 2
    # (1 - 0.1 - 0.2) S_0 + 0.1 I/2 + 0.2 (1/2) I
    np.testing.assert_allclose(regularized_covariance(S0, pooled, 0.1, 0.2), [[0.85, 0.0], [0.0, 0.15]])
    assert condition_number(S0) == np.inf
    assert condition_number(np.diag([0.85, 0.15])) == pytest.approx(0.85 / 0.15)


def test_joint_schedule_picks_the_first_grid_point_below_the_bound():
    """lambda = gamma = t: Sigma_0 = [[1 - t, 0], [0, t]], condition (1 - t) / t < 10 first at t = 0.1 on the grid
    0, 0.05, ..., 0.5 (t = 0.05 gives 19)."""
    grid = np.linspace(0, 0.5, 11)
    model = RegularizedDiscriminantAnalysis(max_condition=10, grid=grid).fit(X_HAND, Y_HAND)
    np.testing.assert_allclose(model.pooled_covariance_, np.eye(2) / 2)
    np.testing.assert_allclose(model.lambdas_, [0.1, 0.1])
    np.testing.assert_allclose(model.gammas_, [0.1, 0.1])
    np.testing.assert_array_equal(model.steps_, [2, 2])
    np.testing.assert_allclose(model.covariances_[0], [[0.9, 0.0], [0.0, 0.1]])
    np.testing.assert_allclose(model.covariances_[1], [[0.1, 0.0], [0.0, 0.9]])
    np.testing.assert_allclose(model.condition_numbers_, [9.0, 9.0])


def test_lambda_first_schedule_by_hand():
    """gamma = 0, lambda = t: Sigma_0 = [[1 - t/2, 0], [0, t/2]], condition (2 - t) / t < 10 first at t = 0.2."""
    grid = np.linspace(0, 0.5, 11)
    path = schedule_path("lambda_first", grid)
    assert path.shape == (21, 2)
    np.testing.assert_allclose(path[:11], np.column_stack([grid, np.zeros(11)]))
    np.testing.assert_allclose(path[11:], np.column_stack([np.full(10, 0.5), grid[1:]]))
    model = RegularizedDiscriminantAnalysis(max_condition=10, schedule="lambda_first", grid=grid).fit(X_HAND, Y_HAND)
    np.testing.assert_allclose(model.lambdas_, [0.2, 0.2])
    np.testing.assert_allclose(model.gammas_, [0.0, 0.0])
    np.testing.assert_allclose(model.covariances_[0], [[0.9, 0.0], [0.0, 0.1]])


def test_default_grid_first_point_on_singular_classes():
    """Classes with fewer examples than features: the chosen step is the first on the schedule with condition
    below 1e6 (the one before fails), for both schedules; a well-sampled class needs none."""
    rng = np.random.default_rng(0)
    d = 6
    X = np.vstack([rng.normal(size=(3, d)), rng.normal(size=(4, d)) + 1, rng.normal(size=(60, d)) * [1, 2, 3, 1, 1, 5]])
    y = np.repeat([0, 1, 2], [3, 4, 60])
    assert DEFAULT_GRID[0] == 0 and len(DEFAULT_GRID) == 101
    for schedule in ("joint", "lambda_first"):
        model = RegularizedDiscriminantAnalysis(schedule=schedule).fit(X, y)
        path = schedule_path(schedule, DEFAULT_GRID)
        S_ml = [np.cov(X[y == k].T, bias=True) for k in range(3)]
        for k in range(3):
            step = model.steps_[k]
            lam, gamma = path[step]
            assert (model.lambdas_[k], model.gammas_[k]) == (lam, gamma)
            Sigma = regularized_covariance(S_ml[k], model.pooled_covariance_, lam, gamma)
            np.testing.assert_allclose(model.covariances_[k], Sigma, rtol=1e-10, atol=1e-14)
            assert condition_number(Sigma) < 1e6
            if step > 0:
                before = regularized_covariance(S_ml[k], model.pooled_covariance_, *path[step - 1])
                assert condition_number(before) >= 1e6
        assert model.steps_[0] > 0 and model.steps_[1] > 0 and model.steps_[2] == 0


def test_unregularised_equals_scikit_learn_qda():
    """Well-conditioned classes: lambda = gamma = 0 and the posteriors of QDA(reg_param=0) (ML covariances)."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 3))
    X = np.vstack([rng.normal(size=(80, 3)) @ A + [2, 0, 0], rng.normal(size=(60, 3)) * [1, 2, 0.5],
                   rng.normal(size=(50, 3)) + [0, 2, -1]])
    y = np.repeat(["p", "q", "r"], [80, 60, 50])
    model = RegularizedDiscriminantAnalysis().fit(X, y)
    assert np.all(model.lambdas_ == 0) and np.all(model.gammas_ == 0) and np.all(model.steps_ == 0)
    qda = QuadraticDiscriminantAnalysis(reg_param=0.0).fit(X, y)
    test = np.vstack([X, rng.normal(size=(50, 3)) * 3])
    np.testing.assert_allclose(model.predict_proba(test), qda.predict_proba(test), rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(model.predict(test), qda.predict(test))
    np.testing.assert_allclose(model.priors_, [80 / 190, 60 / 190, 50 / 190])


def test_singleton_class_uses_the_pooled_trace():
    """A class of one example has S_k = 0: Sigma_k = t S_pool + t (trace(S_pool) / d) I."""
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(size=(30, 3)), [[5.0, 5.0, 5.0]]])
    y = np.array([0] * 30 + [1])
    model = RegularizedDiscriminantAnalysis().fit(X, y)
    pooled = model.pooled_covariance_
    np.testing.assert_allclose(pooled, np.cov(X[:30].T, bias=True) * 30 / 31)
    t = model.lambdas_[1]
    assert t > 0 and model.gammas_[1] == t
    np.testing.assert_allclose(model.covariances_[1], t * pooled + t * np.trace(pooled) / 3 * np.eye(3))
    assert identity_scale(np.zeros((3, 3)), pooled) == pytest.approx(np.trace(pooled) / 3)
    P = model.predict_proba(X)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1)
    assert model.predict([[5.0, 5.0, 5.0]])[0] == 1


def test_all_singletons_fall_back_to_the_unit_identity():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 3.0]])
    model = RegularizedDiscriminantAnalysis().fit(X, [0, 1, 2])
    np.testing.assert_allclose(model.pooled_covariance_, 0.0)
    t = model.gammas_[0]
    np.testing.assert_allclose(model.covariances_, np.broadcast_to(t * np.eye(2), (3, 2, 2)))
    np.testing.assert_array_equal(model.predict(X), [0, 1, 2])


def test_absent_label_has_a_zero_column():
    model = RegularizedDiscriminantAnalysis(labels=[0, 1, 7]).fit(X_HAND, Y_HAND)
    P = model.predict_proba(X_HAND)
    assert P.shape == (4, 3) and np.all(P[:, 2] == 0) and np.allclose(P.sum(axis=1), 1)
    assert np.all(np.isneginf(model.predict_log_proba(X_HAND)[:, 2]))


def test_far_points_are_stable():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(100, 4)), rng.integers(0, 3, 100)
    model = RegularizedDiscriminantAnalysis().fit(X, y)
    P = model.predict_proba(np.array([[1e4] * 4, [-1e6, 0, 0, 1e6], [0.0] * 4]))
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(5, 40), d=st.integers(1, 6), K=st.integers(2, 4),
       scale=st.floats(1e-3, 1e3), schedule=st.sampled_from(["joint", "lambda_first"]))
def test_posteriors_are_a_distribution(seed, n, d, K, scale, schedule):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * scale
    y = rng.integers(0, K, n)
    model = RegularizedDiscriminantAnalysis(schedule=schedule).fit(X, y)
    assert np.all(model.condition_numbers_ < 1e6)
    P = model.predict_proba(np.vstack([X, X * 3 + 1]))
    assert np.all(P >= 0) and np.allclose(P.sum(axis=1), 1)


def test_deterministic():
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(50, 5)), rng.integers(0, 3, 50)
    first = RegularizedDiscriminantAnalysis().fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(first, RegularizedDiscriminantAnalysis().fit(X, y).predict_proba(X))


def test_bad_inputs():
    with pytest.raises(ValueError, match="NaN"):
        RegularizedDiscriminantAnalysis().fit([[0.0, 1.0], [np.nan, 2.0]], [0, 1])
    with pytest.raises(ValueError, match="grid must be a non-empty strictly increasing"):
        RegularizedDiscriminantAnalysis(grid=[0.0, 0.7]).fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="grid must be"):
        RegularizedDiscriminantAnalysis(grid=[0.2, 0.1]).fit(X_HAND, Y_HAND)
    with pytest.raises(InvalidParameterError, match="max_condition"):
        RegularizedDiscriminantAnalysis(max_condition=0.5).fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="singular at the last point"), pytest.warns(UserWarning, match="still inf"):
        RegularizedDiscriminantAnalysis(grid=[0.0]).fit(X_HAND, Y_HAND)
    with pytest.warns(UserWarning, match="condition number is still 999"):
        model = RegularizedDiscriminantAnalysis(max_condition=2, grid=[0.0, 0.001]).fit(X_HAND, Y_HAND)
    np.testing.assert_allclose(model.lambdas_, [0.001, 0.001])


# RegularizedDiscriminantAnalysis() passes scikit-learn's checks in
# tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator); the other schedule here
@parametrize_with_checks([RegularizedDiscriminantAnalysis(schedule="lambda_first")])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
