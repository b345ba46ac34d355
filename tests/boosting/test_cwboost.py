"""CW-Boost (Shen & Hao, CVPR 2011): the primal, its gradient and KKT conditions, the column-generation step (the
most violated dual constraint over every stump and class), and the estimator's staged outputs.

scikit-learn's estimator checks: tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator).
"""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.cwboost import (
    CWBoostClassifier,
    Primal,
    best_column,
    class_scores,
    edge_channels,
    pair_weights,
    primal,
)
from csrepro.weak.binning import BinnedData


def _problem(seed, n=40, t=7, K=4, absent=None):
    """Random columns Hc (n, t) in {-1, +1} with classes, labels z, the pair mask, weights w > 0."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, K, n)
    if absent is not None:
        z[z == absent] = (absent + 1) % K
    present = np.bincount(z, minlength=K) > 0
    pairs = np.broadcast_to(present, (n, K)).astype(float)
    pairs[np.arange(n), z] = 0.0
    Hc = rng.choice([-1.0, 1.0], size=(n, t))
    classes = rng.integers(0, K, t)
    classes[0] = 0
    return Hc, classes, z, pairs, rng.uniform(0.05, 0.8, t)


def _training_pairs(model, y):
    z = np.searchsorted(model.classes_, y)
    pairs = np.broadcast_to(model.present_, (len(y), len(model.classes_))).astype(float)
    pairs[np.arange(len(y)), z] = 0.0
    return z, pairs


# ------------------------------------------------------------------ the primal

@pytest.mark.parametrize("loss", ["exp", "logistic"])
@pytest.mark.parametrize("absent", [None, 2])
def test_primal_is_the_pair_averaged_loss_plus_l1(loss, absent):
    """P(w) = (1/m) sum_{i, r != y_i, r present} l(F_{y_i}(x_i) - F_r(x_i)) + nu sum_j w_j, by explicit loops."""
    Hc, classes, z, pairs, w = _problem(0, absent=absent)
    nu, K = 0.03, pairs.shape[1]
    F = np.zeros((len(z), K))
    for j, c in enumerate(classes):
        F[:, c] += w[j] * Hc[:, j]
    ell = (lambda r: np.exp(-r)) if loss == "exp" else (lambda r: np.log1p(np.exp(-r)))
    terms = [ell(F[i, z[i]] - F[i, r]) for i in range(len(z)) for r in range(K)
             if r != z[i] and (absent is None or r != absent)]
    value, grad = primal(w, Hc, classes, z, pairs, nu, loss)
    assert value == pytest.approx(np.mean(terms) + nu * w.sum(), rel=1e-12)
    assert_allclose(Primal(Hc, classes, z, pairs, nu, loss).scores(w), F, rtol=1e-12, atol=1e-14)
    onehot = np.eye(K)[classes]
    assert_allclose(class_scores(Hc, w, onehot), F, rtol=1e-12, atol=1e-14)
    assert grad.shape == w.shape


@pytest.mark.parametrize("loss", ["exp", "logistic"])
@pytest.mark.parametrize("seed", [0, 1])
def test_primal_gradient_matches_central_differences(loss, seed):
    Hc, classes, z, pairs, w = _problem(seed, absent=1 if seed else None)
    nu = 0.02
    _, grad = primal(w, Hc, classes, z, pairs, nu, loss)
    eps = 1e-6
    fd = np.array([(primal(w + eps * e, Hc, classes, z, pairs, nu, loss)[0]
                    - primal(w - eps * e, Hc, classes, z, pairs, nu, loss)[0]) / (2 * eps) for e in np.eye(len(w))])
    assert_allclose(grad, fd, rtol=1e-6, atol=1e-9)
    assert np.abs(grad - nu).max() > 1e-3  # the test has teeth: the loss part of the gradient is not negligible


@pytest.mark.parametrize("loss", ["exp", "logistic"])
def test_dual_weights_are_minus_the_loss_derivative_and_edges_sum_them(loss):
    """u_ir = -l'(rho_ir) / m on the pairs, 0 elsewhere; g's row i is -u_i. except +sum_r u_ir at y_i, so every
    row of g sums to 0 and the edge of the constant h = 1 is 0 for every class... up to the pairs of absent rows."""
    Hc, classes, z, pairs, w = _problem(3)
    F = Primal(Hc, classes, z, pairs, 0.1, loss).scores(w)
    _, U = pair_weights(F, z, pairs, loss)
    rho = F[np.arange(len(z)), z][:, None] - F
    d = np.exp(-rho) if loss == "exp" else 1.0 / (1.0 + np.exp(rho))
    assert_allclose(U, d * pairs / pairs.sum(), rtol=1e-12)
    g = edge_channels(U, z)
    assert_allclose(g.sum(axis=1), 0.0, atol=1e-15)
    assert_allclose(g[np.arange(len(z)), z], U.sum(axis=1))


# ------------------------------------------------------------------ column generation

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_best_column_is_the_brute_force_max_edge_over_stumps_polarities_and_classes(backend, seed):
    rng = np.random.default_rng(seed)
    n, d, K, n_bins = 50, 3, 4, 6
    X = rng.normal(size=(n, d))
    X[:, 1] = rng.integers(0, 3, n)  # ties and empty uniform bins: equal edges at neighbouring thresholds
    z = rng.integers(0, K, n)
    U = rng.random((n, K))
    U[np.arange(n), z] = 0.0
    U /= U.sum()
    g = edge_channels(U, z)
    with use_backend(backend):
        data = BinnedData(X, n_bins, spacing="uniform")
        col = best_column(data, g)
    brute = []  # (edge, feature, threshold, class, left value) in the scan's order
    for j in range(d):
        for t in data.mapper.thresholds[j]:
            h = np.where(X[:, j] <= t, -1.0, 1.0)
            for r in range(K):
                e = h @ g[:, r]
                brute.append((abs(e), j, t, r, -np.sign(e)))
    best = max(b[0] for b in brute)
    first = next(b for b in brute if b[0] >= best * (1 - 1e-12))
    assert col.edge == pytest.approx(best, rel=1e-10)
    assert (col.stump.feature, col.stump.threshold, col.klass) == first[1:4]
    assert col.stump.values[0] == first[4] and col.stump.values[1] == -first[4]
    assert col.stump.predict(X) @ g[:, col.klass] == pytest.approx(col.edge, rel=1e-10)


def test_best_column_of_constant_features_is_none():
    with use_backend("numpy"):
        data = BinnedData(np.ones((6, 2)), 5, spacing="uniform")
        assert best_column(data, np.zeros((6, 3))) is None


def test_chosen_edge_is_minus_the_primal_gradient_of_the_new_column(digits):
    """Adding the column at w = 0: dP/dw_new = nu - edge, so a column enters iff its edge exceeds nu."""
    X, y = digits
    model = CWBoostClassifier(n_estimators=6, nu=1e-3).fit(X, y)
    Hc = model._column_outputs(X)
    z, pairs = _training_pairs(model, y)
    for t in range(1, 6):
        w0 = np.append(model.coef_path_[t - 1, :t], 0.0)
        value, grad = primal(w0, Hc[:, :t + 1], model.estimator_classes_[:t + 1], z, pairs, model.nu)
        assert grad[-1] == pytest.approx(model.nu - model.edges_[t], rel=1e-9)
        assert value == pytest.approx(model.objectives_[t - 1], rel=1e-12)  # the warm start: the previous optimum


# ------------------------------------------------------------------ the solved primal

@pytest.mark.parametrize("loss", ["exp", "logistic"])
def test_kkt_conditions_hold_at_every_round(loss, digits):
    """For every round t, at w_t over columns 1..t: dP/dw_j = 0 where w_j > 0 and >= 0 where w_j = 0, within
    tolerance x nu (the dual constraints edge_j <= nu hold on the chosen columns, with equality on active ones)."""
    X, y = digits
    model = CWBoostClassifier(n_estimators=25, nu=1e-3, loss=loss, tolerance=1e-4).fit(X, y)
    assert model.n_estimators_ == 25 and np.all(model.n_iter_ < model.max_iter)
    Hc = model._column_outputs(X)
    z, pairs = _training_pairs(model, y)
    tol = model.tolerance * model.nu
    active_seen = 0
    for t in range(1, 26):
        w = model.coef_path_[t - 1, :t]
        assert np.all(w >= 0) and np.all(model.coef_path_[t - 1, t:] == 0)
        value, grad = primal(w, Hc[:, :t], model.estimator_classes_[:t], z, pairs, model.nu, loss)
        active = w > 0
        assert np.all(np.abs(grad[active]) <= tol), (t, np.abs(grad[active]).max())
        assert np.all(grad[~active] >= -tol)
        assert value == pytest.approx(model.objectives_[t - 1], rel=1e-12)
        active_seen += active.sum()
    assert active_seen > 25


def test_primal_objective_never_increases_and_edges_exceed_nu(digits):
    X, y = digits
    model = CWBoostClassifier(n_estimators=30, nu=1e-3).fit(X, y)
    P = model.objectives_
    assert P[0] < 1.0 + 1e-12  # P(0) = 1 for the exp loss
    assert np.all(np.diff(P) < 0)
    assert np.all(model.edges_ > model.nu * (1 + model.tolerance))
    assert not model.converged_


def test_column_generation_stops_when_no_stump_violates_the_dual(digits):
    """A large nu: the fit stops early with max edge <= nu (1 + tol) over every stump and class, i.e. the final w
    solves the primal over all stumps."""
    X, y = digits
    model = CWBoostClassifier(n_estimators=200, nu=0.05).fit(X, y)
    assert model.converged_ and 0 < model.n_estimators_ < 200
    assert len(list(model.staged_predict(X))) == model.n_estimators_
    z, pairs = _training_pairs(model, y)
    F = Primal(model._column_outputs(X), model.estimator_classes_, z, pairs, model.nu).scores(model.coef_)
    _, U = pair_weights(F, z, pairs)
    with use_backend("numpy"):
        col = best_column(BinnedData(X, model.n_bins, spacing="uniform"), edge_channels(U, z))
    assert col.edge <= model.nu * (1 + model.tolerance)
    # nu above every edge at w = 0: no column at all, every score 0, the first class predicted
    empty = CWBoostClassifier(nu=10.0).fit(X, y)
    assert empty.converged_ and empty.n_estimators_ == 0 and empty.coef_.shape == (0,)
    assert_array_equal(empty.decision_function(X), 0.0)
    assert_array_equal(empty.predict(X), empty.classes_[0])


# ------------------------------------------------------------------ the estimator

def test_scores_are_the_weighted_class_wise_stumps(digits):
    X, y = digits
    model = CWBoostClassifier(n_estimators=20).fit(X, y)
    F = np.zeros((len(X), 10))
    for h, c, w in zip(model.estimators_, model.estimator_classes_, model.coef_, strict=True):
        assert set(h.values) == {-1.0, 1.0}
        F[:, c] += w * h.predict(X)
    assert_allclose(model.decision_function(X), F, rtol=1e-12, atol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(F, axis=1)])
    assert (model.predict(X) == y).mean() > 0.8  # 2 stumps per class


def test_staged_outputs_equal_refits_with_fewer_rounds(digits):
    X, y = digits
    full = CWBoostClassifier(n_estimators=12).fit(X, y)
    staged_d, staged_p = list(full.staged_decision_function(X)), list(full.staged_predict(X))
    assert len(staged_d) == len(staged_p) == 12
    for T in (1, 5, 12):
        refit = CWBoostClassifier(n_estimators=T).fit(X, y)
        assert_array_equal(refit.coef_, full.coef_path_[T - 1, :T])
        assert_array_equal(staged_d[T - 1], refit.decision_function(X))
        assert_array_equal(staged_p[T - 1], refit.predict(X))


def test_fit_is_deterministic_and_ignores_random_state(digits):
    X, y = digits
    a = CWBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    b = CWBoostClassifier(n_estimators=10, random_state=5).fit(X, y)
    assert_array_equal(a.coef_path_, b.coef_path_)
    assert_array_equal(a.estimator_classes_, b.estimator_classes_)
    assert [(h.feature, h.threshold) for h in a.estimators_] == [(h.feature, h.threshold) for h in b.estimators_]


def test_cython_and_numpy_backends_fit_the_same_model(digits):
    X, y = digits
    fits = []
    for b in BACKENDS:
        with use_backend(b):
            fits.append(CWBoostClassifier(n_estimators=15).fit(X, y))
    assert [(h.feature, h.threshold, tuple(h.values)) for h in fits[0].estimators_] == \
           [(h.feature, h.threshold, tuple(h.values)) for h in fits[1].estimators_]
    assert_array_equal(fits[0].estimator_classes_, fits[1].estimator_classes_)
    assert_allclose(fits[0].coef_path_, fits[1].coef_path_, rtol=1e-9, atol=1e-12)
    assert_array_equal(fits[0].predict(X), fits[1].predict(X))


def test_labels_absent_from_training(digits):
    X, y = digits
    keep = y != 9
    model = CWBoostClassifier(n_estimators=10, labels=np.arange(10)).fit(X[keep], y[keep])
    F = model.decision_function(X)
    assert F.shape == (len(X), 10) and np.all(F[:, 9] == -np.inf) and np.all(np.isfinite(F[:, :9]))
    assert 9 not in model.estimator_classes_ and 9 not in model.predict(X)


def test_bad_inputs(noisy_binary):
    X, y = noisy_binary(n=40)
    with pytest.raises(ValueError, match="only 1 class"):
        CWBoostClassifier().fit(X, np.full(len(X), "a"))
    with pytest.raises(ValueError, match=r"training labels \['b'\] are not in labels=\['a', 'c'\]"):
        CWBoostClassifier(labels=["a", "c"]).fit(X, y)
    for params in ({"nu": 0.0}, {"nu": -1.0}, {"loss": "hinge"}, {"tolerance": 0}, {"max_iter": 0},
                   {"n_estimators": 0}, {"n_bins": 1}):
        with pytest.raises(ValueError):
            CWBoostClassifier(**params).fit(X, y)
    with pytest.raises(ValueError):
        CWBoostClassifier(n_estimators=2).fit(np.where(X > 5, np.nan, X), y)


def test_solver_cap_warns(noisy_binary):
    X, y = noisy_binary()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = CWBoostClassifier(n_estimators=5, max_iter=1).fit(X, y)
    assert np.all(model.n_iter_ == 1)


def test_two_classes(noisy_binary):
    X, y = noisy_binary()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = CWBoostClassifier(n_estimators=20).fit(X, y)
    F = model._scores(X)
    assert_allclose(model.decision_function(X), F[:, 1] - F[:, 0])
    assert (model.predict(X) == y).mean() > 0.7
