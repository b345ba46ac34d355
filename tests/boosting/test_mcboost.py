"""CD-MCBoost (Algorithm 1): codewords, kernels vs reference, descent, decisions, sklearn API."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.codewords import simplex_codewords
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.decision.rules import decide
from csrepro.methods import make_estimator, method_names

LOSSES = ["mcboost", "gel", "gll", "ls", "lt"]


@pytest.mark.parametrize("M", [2, 3, 4, 7, 15])
def test_simplex_codewords(M):
    Y = simplex_codewords(M)
    assert Y.shape == (M, M - 1)
    np.testing.assert_allclose(np.linalg.norm(Y, axis=1), 1.0)
    np.testing.assert_allclose(Y.sum(axis=0), 0.0, atol=1e-12)
    G = Y @ Y.T
    np.testing.assert_allclose(G[~np.eye(M, dtype=bool)], -1.0 / (M - 1))


def _sym_costs(M, seed):
    rng = np.random.default_rng(seed)
    C = np.zeros((M, M))
    iu = np.triu_indices(M, 1)
    C[iu] = rng.uniform(1, 10, len(iu[0]))
    return C + C.T


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


@pytest.mark.parametrize("loss", LOSSES)
def test_cython_path_equals_numpy_reference(iris, loss):
    X, y = iris
    C = _sym_costs(3, 0)
    # a tight line search: rounding may change where it stops, within its tolerance
    a = MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=15, line_search_tol=1e-11).fit(X, y)
    with use_backend("numpy"):
        b = MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=15, line_search_tol=1e-11).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(a.train_loss_, b.train_loss_, rtol=1e-9)


@pytest.mark.parametrize("loss", LOSSES)
def test_training_loss_decreases(iris, loss):
    X, y = iris
    clf = MCBoostClassifier(loss=loss, cost_matrix=_sym_costs(3, 1), n_estimators=30).fit(X, y)
    assert np.all(np.diff(clf.train_loss_) <= 1e-9 * clf.train_loss_[:-1])
    assert clf.score(X, y) > 0.7


def test_p_mcboost_uses_bayes_rule_on_posteriors(iris):
    X, y = iris
    C = np.array([[0, 1, 10], [1, 0, 1], [10, 1, 0]], float)
    clf = MCBoostClassifier(loss="mcboost", cost_matrix=C, decision="bayes", n_estimators=10).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[decide(P, C)])
    # posteriors (33) are softmax(<y_j, f>) = softmax(2 S_j)
    S = clf.decision_function(X)
    E = np.exp(2 * S - (2 * S).max(1, keepdims=True))
    np.testing.assert_allclose(P, E / E.sum(1, keepdims=True))


def test_mcboost_ignores_costs_gll_does_not(iris):
    X, y = iris
    C = np.array([[0, 1, 10], [1, 0, 1], [10, 1, 0]], float)
    a = MCBoostClassifier(loss="mcboost", cost_matrix=C, n_estimators=10).fit(X, y)
    b = MCBoostClassifier(loss="mcboost", n_estimators=10).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_)
    c = MCBoostClassifier(loss="gll", cost_matrix=C, n_estimators=10).fit(X, y)
    d = MCBoostClassifier(loss="gll", n_estimators=10).fit(X, y)
    assert not np.allclose(c.coef_, d.coef_)


def test_string_labels_and_cost_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    y = np.array(["b", "a", "c"])[np.argmax(X, axis=1)]
    clf = MCBoostClassifier(loss="gll", cost_matrix=_sym_costs(3, 2), n_estimators=20).fit(X, y)
    assert set(clf.predict(X)) <= {"a", "b", "c"}
    assert clf.score(X, y) > 0.8


def test_bad_inputs_name_the_problem(iris):
    X, y = iris
    with pytest.raises(ValueError, match="2 classes"):
        MCBoostClassifier().fit(X[:10], np.zeros(10))
    with pytest.raises(ValueError):
        MCBoostClassifier(cost_matrix=np.ones((2, 2))).fit(X, y)
    with pytest.raises(ValueError, match="'loss' parameter of MCBoostClassifier.*Got 'hinge'"):
        MCBoostClassifier(loss="hinge").fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MCBoostClassifier().fit(Xn, y)


def test_ecosystem(iris):
    X, y = iris
    pipe = make_pipeline(StandardScaler(), MCBoostClassifier(n_estimators=5))
    assert pipe.fit(X, y).score(X, y) > 0.7
    gs = GridSearchCV(MCBoostClassifier(), {"n_estimators": [2, 5]}, cv=3).fit(X, y)
    assert gs.best_params_["n_estimators"] in (2, 5)
    c = clone(MCBoostClassifier(loss="lt", n_estimators=3))
    assert c.get_params()["loss"] == "lt"



def test_registry_methods_build():
    mcboost_ids = [n for n in method_names() if n.endswith("mcboost")]
    assert len(mcboost_ids) == 6
    for name in mcboost_ids:
        costs = _sym_costs(3, 3) if name != "mcboost" else None  # mcboost is cost-blind (argmax of eq. 22)
        est = make_estimator(name, cost_matrix=costs, random_state=0, n_estimators=2)
        assert isinstance(est, MCBoostClassifier)
    with pytest.raises(ValueError, match="fixes"):
        make_estimator("gll_mcboost", loss="gel")


def test_cost_free_training_is_shared(iris):
    """MCBoost ignores costs and the decision rule in training: one training serves all."""
    from csrepro.boosting import mcboost

    X, y = iris
    mcboost.FITS.clear()
    a = MCBoostClassifier(loss="mcboost", cost_matrix=_sym_costs(3, 7), n_estimators=4).fit(X, y)
    b = MCBoostClassifier(loss="mcboost", cost_matrix=_sym_costs(3, 8), decision="bayes", n_estimators=4).fit(X, y)
    assert len(mcboost.FITS) == 1
    np.testing.assert_array_equal(a.coef_, b.coef_)
    MCBoostClassifier(loss="gll", cost_matrix=_sym_costs(3, 7), n_estimators=4).fit(X, y)
    MCBoostClassifier(loss="gll", cost_matrix=_sym_costs(3, 8), n_estimators=4).fit(X, y)
    assert len(mcboost.FITS) == 3  # GLL uses the costs: two trainings


def test_labels_cover_classes_missing_from_training(iris):
    """A split without class 2 still yields a 3-class cost-sensitive model over all labels."""
    X, y = iris
    keep = y < 2
    C = np.array([[0, 1, 10], [1, 0, 1], [10, 1, 0]], float)
    clf = MCBoostClassifier(loss="gll", cost_matrix=C, labels=[0, 1, 2], n_estimators=5).fit(X[keep], y[keep])
    assert clf.classes_.tolist() == [0, 1, 2] and clf.coef_.shape == (2, 4)
    assert clf.predict_proba(X).shape == (150, 3)
    with pytest.raises(ValueError, match="not in labels"):
        MCBoostClassifier(labels=[0, 1]).fit(X, y)


@pytest.fixture(scope="module")
def digits():
    """Integer features with at most 17 values: the line searches run on cells (feature_cells)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(n_class=5, return_X_y=True)
    return X[:500], y[:500]


def test_feature_cells_only_for_few_distinct_values():
    from csrepro.boosting.mcboost import feature_cells

    cols = np.array([np.repeat([0.5, -1.0, 2.0], 20), np.arange(60.0)])
    cells = feature_cells(cols, 3)
    codes, values = cells[0]
    np.testing.assert_array_equal(values[codes], cols[0])
    assert cells[1] is None  # 60 values x 3 offsets > 60 / 4
    assert feature_cells(cols, 6)[0] is None  # 3 values x 6 offsets > 60 / 4


@pytest.mark.parametrize("loss", LOSSES)
def test_cell_line_search_equals_per_sample(digits, loss, monkeypatch):
    """Line searches on cells (per-cell factors; identity outer: per-cell sums) train the same
    model as per-sample factors; for GLL (log1p outer) bit for bit, since the factors are."""
    from csrepro.boosting import mcboost

    X, y = digits
    C = _sym_costs(5, 3)
    assert any(c is not None for c in mcboost.feature_cells(np.ascontiguousarray(X.T), 3))

    def fit():
        return MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=10, line_search_tol=1e-11).fit(X, y)

    cells = fit()
    with use_backend("numpy"):
        cells_ref = fit()
    monkeypatch.setattr(mcboost, "feature_cells", lambda columns, n_offsets: [None] * len(columns))
    mcboost.FITS.clear()
    plain = fit()
    for other in (plain, cells_ref):
        np.testing.assert_allclose(cells.coef_, other.coef_, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(cells.train_loss_, other.train_loss_, rtol=1e-9)
    if loss == "gll":
        np.testing.assert_array_equal(cells.coef_, plain.coef_)


@pytest.mark.parametrize("loss, decision", [("mcboost", "argmax"), ("gll", "argmax"), ("mcboost", "bayes")])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_staged_final_stage_is_the_prediction_exactly(iris, loss, decision, n_classes):
    """One stage per iteration; the last equals predict / decision_function / predict_proba bit for bit, and a
    model trained for t iterations predicts what stage t does (so rounds can be chosen on validation)."""
    X, y = iris
    keep = y < n_classes
    X, y = X[keep], y[keep]
    C = _sym_costs(n_classes, 3)
    est = MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=6, decision=decision).fit(X, y)
    stages = list(est.staged_predict(X))
    assert len(stages) == 6
    np.testing.assert_array_equal(stages[-1], est.predict(X))
    np.testing.assert_array_equal(list(est.staged_decision_function(X))[-1], est.decision_function(X))
    np.testing.assert_array_equal(list(est.staged_predict_proba(X))[-1], est.predict_proba(X))
    short = MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=3, decision=decision).fit(X, y)
    np.testing.assert_allclose(list(est.staged_decision_function(X))[2], short.decision_function(X), atol=1e-12)
    np.testing.assert_array_equal(stages[2], short.predict(X))


# ----- sample weights: the weighted risk sum_i s_i L_i / sum_i s_i (8) -------------------------------------------
def _weighted_problems():
    from sklearn.datasets import load_digits

    Xi, yi = load_iris(return_X_y=True)
    Xd, yd = load_digits(n_class=5, return_X_y=True)
    return {"iris": (Xi, yi), "digits": (Xd[:200], yd[:200])}  # digits: line searches on cells


WEIGHTED = _weighted_problems()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data", sorted(WEIGHTED))
@pytest.mark.parametrize("loss", LOSSES)
def test_integer_weights_equal_repeated_rows(loss, data, backend):
    """sample_weight k_i (0 to 3) trains the model of the data with row i repeated k_i times (0: dropped): the same
    weak learners in the same order, the coefficients and the risk to 1e-8 relative (the sums run in another order:
    w k_i once vs k_i terms w, and the standardisation and the cells differ; measured ~1e-12)."""
    X, y = WEIGHTED[data]
    M = len(np.unique(y))
    k = np.random.default_rng(1).integers(0, 4, len(y))
    rep = np.repeat(np.arange(len(y)), k)
    kw = dict(loss=loss, cost_matrix=_sym_costs(M, 4), n_estimators=8, line_search_tol=1e-11)
    with use_backend(backend):
        weighted = MCBoostClassifier(**kw).fit(X, y, sample_weight=k)
        repeated = MCBoostClassifier(**kw).fit(X[rep], y[rep])
        unweighted = MCBoostClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(weighted.steps_[:, :3], repeated.steps_[:, :3])  # iteration, coordinate, feature
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8, atol=1e-8 * np.abs(repeated.coef_).max())
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(weighted.train_loss_, repeated.train_loss_, rtol=1e-9)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    assert not np.allclose(weighted.coef_, unweighted.coef_)  # the weights matter


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("data", sorted(WEIGHTED))
@pytest.mark.parametrize("loss", LOSSES)
def test_unit_weights_are_the_unweighted_fit_bit_for_bit(loss, data, backend):
    """sample_weight of all ones (or any constant: scaled to mean 1) runs the weighted path to the same bits."""
    from csrepro.boosting import mcboost

    X, y = WEIGHTED[data]
    kw = dict(loss=loss, cost_matrix=_sym_costs(len(np.unique(y)), 5), n_estimators=6)
    with use_backend(backend):
        plain = MCBoostClassifier(**kw).fit(X, y)
    for sw in (np.ones(len(y)), np.full(len(y), 2.5)):
        mcboost.FITS.clear()  # a fresh training, not the cached one
        with use_backend(backend):
            weighted = MCBoostClassifier(**kw).fit(X, y, sample_weight=sw)
        for a in ("coef_", "intercept_", "train_loss_", "steps_"):
            np.testing.assert_array_equal(getattr(weighted, a), getattr(plain, a))


def _weighted_risk(loss, S, z, C, sw):
    """The weighted empirical risk (8), sum_i s_i L[C, z_i, S_i] / sum_i s_i, from the loss objects."""
    return np.sum(sw * loss.value(S, z, C)) / np.sum(sw)


@pytest.mark.parametrize("loss_name", LOSSES)
def test_weighted_boosting_weights_are_the_weighted_risks_gradient(iris, loss_name):
    """At a fitted f, the boosting weights w^r(x_i) of a weighted fit are the derivatives of sum_i s_i L_i (s: the
    weights scaled to mean 1; n times the weighted risk (8)) with respect to f_r(x_i), by central differences of
    the loss objects (each sample's loss moves alone), and the recorded train_loss_ is that risk."""
    from csrepro._kernels import exp_losses
    from csrepro.boosting.mcboost import _CoordinateStep, _LossState
    from csrepro.losses.multiclass import get_loss

    X, y = iris
    sw = np.random.default_rng(2).uniform(0.2, 3.0, len(y))
    C = _sym_costs(3, 6)
    est = MCBoostClassifier(loss=loss_name, cost_matrix=C, n_estimators=3).fit(X, y, sample_weight=sw)
    loss, s = get_loss(loss_name), sw * len(sw) / sw.sum()  # the estimator's weights: mean 1
    F, Y = est.predictor(X), est.codewords_
    S = 0.5 * F @ Y.T
    assert est.train_loss_[-1] == pytest.approx(_weighted_risk(loss, S, y, C, s), rel=1e-10)
    kC = loss.kernel_costs(C)
    family, outer = exp_losses.FAMILIES[loss.family], exp_losses.OUTERS[loss.outer]
    state = _LossState(exp_losses, y.astype(np.intp), kC, 3, family, outer, s)
    exp_losses.load_state(S, state.z, kC, family, outer, state.P, state.Q, state.scale)
    h = 1e-3
    for r in range(2):
        v = np.ascontiguousarray(0.5 * Y[:, r])
        shared = _CoordinateStep.shared_buffers(len(y), 3)
        _CoordinateStep(exp_losses, v, state.z, family, shared).prepare(state)
        w = shared[0][0]
        # the weighted losses at f_r(x_i) + e h for every i at once (fourth-order central differences)
        L = {e: s * loss.value(S + e * h * np.outer(np.ones(len(y)), v), y, C) for e in (-2, -1, 1, 2)}
        fd = (L[-2] - 8 * L[-1] + 8 * L[1] - L[2]) / (12 * h)
        np.testing.assert_allclose(w, fd, rtol=1e-7, atol=1e-10 * np.abs(L[1]).max())


@pytest.mark.parametrize("loss_name", ["gll", "lt"])
def test_weighted_line_search_minimises_the_weighted_risk(iris, loss_name):
    """Each step alpha of a weighted fit minimises the weighted risk (8) along its weak learner (31): the risk's
    derivative in the step's scale beta (beta = 1: the step taken) vanishes at the last step, by central differences
    of the loss objects; the unweighted risk's does not."""
    from csrepro.losses.multiclass import get_loss

    X, y = iris
    sw = np.where(y == 1, 5.0, 1.0)
    C = _sym_costs(3, 7)
    est = MCBoostClassifier(loss=loss_name, cost_matrix=C, n_estimators=4, line_search_tol=1e-12).fit(
        X, y, sample_weight=sw)
    loss, Y = get_loss(loss_name), est.codewords_
    mu, sd = est._scaling
    _, r, j, da, db = est.steps_[-1]
    g = da * (X[:, int(j)] - mu[int(j)]) / sd[int(j)] + db  # the last step, alpha g, on the training rows
    F = est.predictor(X)

    def risk(beta, weights):
        Fb = F.copy()
        Fb[:, int(r)] += (beta - 1.0) * g
        return _weighted_risk(loss, 0.5 * Fb @ Y.T, y, C, weights)

    h = 1e-5
    slope = lambda weights: (risk(1 + h, weights) - risk(1 - h, weights)) / (2 * h)  # noqa: E731
    curvature = (risk(1 + h, sw) - 2 * risk(1, sw) + risk(1 - h, sw)) / h**2
    assert abs(slope(sw)) <= 1e-5 * curvature
    assert abs(slope(np.ones(len(y)))) > 1e-3 * curvature
