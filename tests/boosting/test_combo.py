"""AdaBoost.MM and CoMBo (Koço & Capponi 2013, Sec. 2.2 and Algorithm 1): a round by hand, Lemma 5's bound,
the loss decrease, the weak learners, and the estimator contract."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro._kernels.backend import use_backend
from csrepro.boosting.combo import (
    AdaBoostMMClassifier,
    CoMBoClassifier,
    class_weights,
    exact_step,
    lemma5_factor,
    mm_cost_matrix,
    mm_edge,
    mm_loss,
    weak_learning_condition,
)
from csrepro.metrics import confusion_norm, mauc

BOOSTERS = (AdaBoostMMClassifier, CoMBoClassifier)

# y = (0, 0, 1, 1, 2, 0) at x = 0..5: m = (3, 2, 1).  Both boosters' best stumps are unique (no ties).
X6 = np.arange(6.0)[:, None]
Y6 = np.array([0, 0, 1, 1, 2, 0])
R3 = np.sqrt(3.0)


def _round_one(cls, step):
    return cls(n_estimators=1, max_depth=1, step=step, max_bins=None).fit(X6, Y6)


@pytest.mark.parametrize("step", ["approx", "exact"])
def test_adaboost_mm_one_round_by_hand(step):
    """D_1 = 1 off the label, -(K-1) on it; the stump x <= 1.5 predicts 0 | 1 (cell cost n_cell - 3 max count:
    -4 + -2); D . 1_h = -4*2 + 1 + 1 = -6, L_0 = 12, delta = 1/2; alpha = 1/2 ln 3 (exact: A+ = 8, A- = 2, ln 2)."""
    D1 = mm_cost_matrix(np.zeros((6, 3)), Y6)
    np.testing.assert_array_equal(D1, [[-2, 1, 1], [-2, 1, 1], [1, -2, 1], [1, -2, 1], [1, 1, -2], [-2, 1, 1]])
    clf = _round_one(AdaBoostMMClassifier, step)
    h = clf.estimators_[0].predict(X6).argmax(1)
    np.testing.assert_array_equal(h, [0, 0, 1, 1, 1, 1])
    assert clf.edges_[0] == pytest.approx(0.5, rel=1e-12) and mm_edge(D1, Y6, h) == pytest.approx(0.5, rel=1e-12)
    alpha = 0.5 * np.log(3.0) if step == "approx" else np.log(2.0)
    assert clf.alphas_[0] == pytest.approx(alpha, rel=1e-12)
    e = np.exp(alpha)
    F = clf.decision_function(X6)  # f_2(i, h(x_i)) = alpha
    np.testing.assert_array_equal(F, alpha * np.eye(3)[h])
    D2 = [[-2 / e, 1 / e, 1 / e], [-2 / e, 1 / e, 1 / e], [1 / e, -2 / e, 1 / e], [1 / e, -2 / e, 1 / e],
          [1, e, -1 - e], [-1 - e, e, 1]]
    np.testing.assert_allclose(mm_cost_matrix(F, Y6), D2, rtol=1e-12)
    np.testing.assert_allclose(clf.losses_, [12.0, 8 / e + 2 * e + 2], rtol=1e-12)  # A+ e^-a + A- e^a + (L_0 - A+ - A-)


@pytest.mark.parametrize("step", ["approx", "exact"])
def test_combo_one_round_by_hand(step):
    """D_1 = 1/m_y off the label, -(K-1)/m_y on it (Algorithm 1); L_0 = K(K-1) = 6.  The stump x <= 3.5
    predicts 1 | 2 (cell costs -4/3 and -5/3: class 2's single example gets its own leaf, unlike AdaBoost.MM);
    delta = 3/6; A+ = 1 + 1 + 2, A- = 1/3 * 3; alpha = 1/2 ln 3 (exact: ln 2)."""
    w = class_weights(Y6, 3)
    np.testing.assert_allclose(w, [1 / 3, 1 / 3, 1 / 2, 1 / 2, 1, 1 / 3])
    D1 = mm_cost_matrix(np.zeros((6, 3)), Y6, w)
    np.testing.assert_allclose(D1, [[-2 / 3, 1 / 3, 1 / 3]] * 2 + [[1 / 2, -1, 1 / 2]] * 2 + [[1, 1, -2],
                                                                                            [-2 / 3, 1 / 3, 1 / 3]])
    clf = _round_one(CoMBoClassifier, step)
    h = clf.estimators_[0].predict(X6).argmax(1)
    np.testing.assert_array_equal(h, [1, 1, 1, 1, 2, 2])
    assert clf.edges_[0] == pytest.approx(0.5, rel=1e-12)
    assert weak_learning_condition(D1, Y6, h, 0.5 - 1e-9) and not weak_learning_condition(D1, Y6, h, 0.5 + 1e-9)
    alpha = 0.5 * np.log(3.0) if step == "approx" else np.log(2.0)
    assert clf.alphas_[0] == pytest.approx(alpha, rel=1e-12)
    assert exact_step(D1, Y6, h) == pytest.approx(np.log(2.0), rel=1e-12)
    e = np.exp(alpha)
    F = clf.decision_function(X6)
    D2 = [[-(e + 1) / 3, e / 3, 1 / 3]] * 2 + [[1 / (2 * e), -1 / e, 1 / (2 * e)]] * 2 + [
        [1 / e, 1 / e, -2 / e], [-(1 + e) / 3, 1 / 3, e / 3]]
    np.testing.assert_allclose(mm_cost_matrix(F, Y6, w), D2, rtol=1e-12)
    np.testing.assert_allclose(clf.losses_, [6.0, 4 / e + 1 * e + 1], rtol=1e-12)  # A+ e^-a + A- e^a + (L_0 - A+ - A-)
    if step == "approx":  # eq. (18) at alpha_t of Algorithm 1: the factor sqrt(1 - delta^2)
        assert lemma5_factor(alpha, 0.5) == pytest.approx(np.sqrt(0.75), rel=1e-12)
        assert clf.losses_[1] <= np.sqrt(0.75) * 6.0


def _noisy(seed=0, n=300, K=4):
    """Overlapping classes of sizes about 4:2:1:1/2 (imbalanced), 5 features."""
    rng = np.random.default_rng(seed)
    z = rng.choice(K, size=n, p=np.array([8, 4, 2, 1][:K]) / sum([8, 4, 2, 1][:K]))
    X = np.round(rng.normal(size=(n, 5)) + 0.8 * z[:, None] * (np.arange(5) < 2), 2)
    return X, z


def _replay(clf, X, z):
    """(F_{t-1}, h_t) of every round, from the staged scores (bit-identical to the training scores)."""
    stages = [np.zeros((len(X), len(clf.classes_)))] + list(clf.staged_decision_function(X))
    preds = [tree.predict(X).argmax(1) for tree in clf.estimators_]
    return stages, preds


@pytest.mark.parametrize("weak_learner", ["cost_tree", "weighted"])
@pytest.mark.parametrize("step", ["approx", "exact"])
def test_combo_lemma5_bound_and_loss_decrease_every_round(weak_learner, step):
    """Each round: the edge and loss match the paper's formulas at the scores; h_t meets the weak-learning
    condition (15) with gamma = delta_t > 0; L_{t-1} - L_t >= (e^a - e^-a)/2 delta L_{t-1} - (e^a + e^-a - 2)/2
    L_{t-1} (Lemma 5); so L_t < L_{t-1}; at Algorithm 1's alpha L_t <= sqrt(1 - delta^2) L_{t-1} (eq. (18)) and
    L_T <= K(K-1) prod sqrt(1 - delta_t^2) (Theorem 6); ||C_S||^2 <= L_t (eqs. (5)-(7))."""
    X, z = _noisy()
    K = 4
    clf = CoMBoClassifier(n_estimators=25, max_depth=2, weak_learner=weak_learner, step=step).fit(X, z)
    assert clf.n_estimators_ == 25
    w = class_weights(z, K)
    L, a, d = clf.losses_, clf.alphas_, clf.edges_
    assert L[0] == pytest.approx(K * (K - 1), rel=1e-12)
    stages, preds = _replay(clf, X, z)
    for t in range(clf.n_estimators_):
        D = mm_cost_matrix(stages[t], z, w)
        assert mm_loss(stages[t], z, w) == pytest.approx(L[t], rel=1e-10)
        assert mm_edge(D, z, preds[t]) == pytest.approx(d[t], rel=1e-10)
        assert d[t] > 0 and weak_learning_condition(D, z, preds[t], d[t] * (1 - 1e-9))
        drop = np.sinh(a[t]) * d[t] * L[t] - (np.cosh(a[t]) - 1) * L[t]
        assert L[t] - L[t + 1] >= drop - 1e-10 * L[t]
        assert L[t + 1] <= lemma5_factor(a[t], d[t]) * L[t] * (1 + 1e-10)
        assert L[t + 1] < L[t]
        if step == "approx":
            assert L[t + 1] <= np.sqrt(1 - d[t] ** 2) * L[t] * (1 + 1e-10)
        assert confusion_norm(z, stages[t + 1].argmax(1), K) ** 2 <= L[t + 1]
    if step == "approx":
        assert L[-1] <= K * (K - 1) * np.prod(np.sqrt(1 - d ** 2)) * (1 + 1e-9)


@pytest.mark.parametrize("weak_learner", ["cost_tree", "weighted"])
def test_adaboost_mm_training_loss_decreases_every_round(weak_learner):
    X, z = _noisy(1)
    clf = AdaBoostMMClassifier(n_estimators=25, max_depth=3, weak_learner=weak_learner).fit(X, z)
    L = clf.losses_
    assert L[0] == pytest.approx(len(z) * 3) and np.all(np.diff(L) < 0)
    stages, _ = _replay(clf, X, z)
    np.testing.assert_allclose([mm_loss(F, z) for F in stages], L, rtol=1e-10)
    assert np.all(L[1:] <= np.sqrt(1 - clf.edges_ ** 2) * L[:-1] * (1 + 1e-10))


def test_cost_tree_maximises_the_edge_among_stumps():
    """Depth 1: the cost stump minimises D . 1_h, so its edge is the largest of all stumps and labellings."""
    X, z = _noisy(2, n=60, K=3)
    X = X[:, :2]
    clf = AdaBoostMMClassifier(n_estimators=1, max_depth=1, max_bins=None).fit(X, z)
    D = mm_cost_matrix(np.zeros((60, 3)), z)
    best = max(mm_edge(D, z, np.where(X[:, j] <= t, a, b)) for j in range(2) for t in np.unique(X[:, j])[:-1]
               for a in range(3) for b in range(3))
    assert clf.edges_[0] == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("combo", [False, True])
def test_weighted_learner_matches_sample_weighted_sklearn_trees(combo):
    """The ``weighted`` learner round by round against AdaBoost.MM / CoMBo written with scikit-learn's
    DecisionTreeClassifier(max_depth) and sample weights -D(i, y_i) / sum_j -D(j, y_j) (one-view MuMBo's
    weights); distinct feature values, so no tied splits."""
    X, z = _noisy(3, n=200, K=3)
    X = X + np.arange(200)[:, None] * 1e-6  # distinct values: no tied thresholds
    K, m, rows = 3, 200, np.arange(200)
    cls = CoMBoClassifier if combo else AdaBoostMMClassifier
    clf = cls(n_estimators=12, max_depth=2, weak_learner="weighted", max_bins=None).fit(X, z)
    assert clf.n_estimators_ == 12
    w = class_weights(z, K) if combo else np.ones(m)
    F = np.zeros((m, K))
    for t in range(clf.n_estimators_):
        D = mm_cost_matrix(F, z, w)
        tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, z, sample_weight=-D[rows, z])
        h = tree.predict(X)
        np.testing.assert_array_equal(clf.estimators_[t].predict(X).argmax(1), h)
        delta = mm_edge(D, z, h)
        alpha = 0.5 * np.log((1 + delta) / (1 - delta))
        assert clf.alphas_[t] == pytest.approx(alpha, rel=1e-9)
        F[rows, h] += alpha


@pytest.mark.parametrize("cls", BOOSTERS)
def test_tree_depth_respected(cls):
    X, z = _noisy(4)
    for depth in (1, 2, 3):
        clf = cls(n_estimators=5, max_depth=depth).fit(X, z)
        for tree in clf.estimators_:
            depth_of = np.zeros(len(tree.feature), dtype=int)
            for v in np.flatnonzero(tree.feature >= 0):
                depth_of[tree.left[v]] = depth_of[tree.right[v]] = depth_of[v] + 1
            assert depth_of.max() <= depth and len(tree.values) <= 2 ** depth


@pytest.mark.parametrize("cls", BOOSTERS)
@pytest.mark.parametrize("weak_learner", ["cost_tree", "weighted"])
def test_staged_outputs_equal_refits(cls, weak_learner):
    X, z = _noisy(5)
    full = cls(n_estimators=8, weak_learner=weak_learner).fit(X, z)
    staged = list(full.staged_decision_function(X))
    proba = list(full.staged_predict_proba(X))
    preds = list(full.staged_predict(X))
    assert len(staged) == 8
    for t in (1, 4, 8):
        part = cls(n_estimators=t, weak_learner=weak_learner).fit(X, z)
        np.testing.assert_array_equal(part.decision_function(X), staged[t - 1])
        np.testing.assert_array_equal(part.predict_proba(X), proba[t - 1])
        np.testing.assert_array_equal(part.predict(X), preds[t - 1])
        np.testing.assert_array_equal(part.losses_, full.losses_[:t + 1])


@pytest.mark.parametrize("cls", BOOSTERS)
def test_deterministic_and_backends_identical(cls):
    X, z = _noisy(6)
    fits = []
    for b, s in (("cython", 0), ("cython", 1), ("numpy", 0)):
        with use_backend(b):
            fits.append(cls(n_estimators=10, step="exact", random_state=s).fit(X, z))
    for other in fits[1:]:
        for name in ("alphas_", "edges_", "losses_"):
            np.testing.assert_array_equal(getattr(fits[0], name), getattr(other, name))
        np.testing.assert_array_equal(fits[0].decision_function(X), other.decision_function(X))


@pytest.mark.parametrize("cls", BOOSTERS)
def test_predict_proba_vote_fractions(cls, digits):
    X, y = digits
    clf = cls(n_estimators=10, max_depth=2).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(1), 1.0)
    np.testing.assert_array_equal(clf.classes_[P.argmax(1)], clf.predict(X))
    np.testing.assert_allclose(P, clf.decision_function(X) / clf.alphas_.sum())
    assert mauc(np.searchsorted(clf.classes_, y), P) > 0.9


def test_binary_labels_and_absent_class(noisy_binary):
    X, y = noisy_binary()
    clf = CoMBoClassifier(n_estimators=5).fit(X, y)
    assert clf.decision_function(X).shape == (len(X),) and set(clf.predict(X)) <= {"a", "b"}
    clf = AdaBoostMMClassifier(n_estimators=5, labels=["a", "b", "c"]).fit(X, y)
    assert clf.predict_proba(X).shape == (len(X), 3) and "c" not in clf.predict(X)


def test_perfect_round_stops_with_a_finite_step():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 2])
    clf = CoMBoClassifier(n_estimators=10, max_depth=2).fit(X, y)
    assert clf.n_estimators_ == 1 and clf.edges_[0] == pytest.approx(1.0)
    assert np.isfinite(clf.alphas_[0]) and clf.alphas_[0] > 10
    np.testing.assert_array_equal(clf.predict(X), y)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_bad_inputs(cls):
    X = np.arange(10.0)[:, None]
    with pytest.raises(ValueError, match="at least 2 classes"):
        cls().fit(X, np.zeros(10))
    for bad in ({"max_depth": 0}, {"weak_learner": "stump"}, {"step": "line"}, {"n_estimators": 0},
                {"max_bins": 1}):
        with pytest.raises(InvalidParameterError):
            cls(**bad).fit(X, np.arange(10) % 2)
    with pytest.raises(ValueError):
        cls().fit(np.array([[np.nan], [1.0]]), [0, 1])
    clf = cls(n_estimators=3).fit(np.zeros((6, 2)), [0, 1, 2, 0, 1, 2])  # constant features: no rounds
    assert clf.n_estimators_ == 0
    np.testing.assert_allclose(clf.predict_proba(np.zeros((2, 2))), 1 / 3)


# AdaBoostMMClassifier and CoMBoClassifier (n_estimators=5) pass scikit-learn's checks in
# tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator); CoMBo's other settings here
@parametrize_with_checks([CoMBoClassifier(n_estimators=5, weak_learner="weighted", step="exact")])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", BOOSTERS)
def test_sample_weight_enters_through_d1_as_repeated_rows(cls):
    """Issue 28: ``sample_weight`` multiplies w_i (CoMBo: m_y counted in weight), so integer weights act as
    repeated rows (the same trees, steps and votes) and weights of one change nothing."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(60, 3)).astype(float)
    y = (X[:, 0] + rng.integers(0, 3, size=60)) % 3
    w = rng.integers(0, 4, size=60)
    w[:3] = 1
    weighted = cls(n_estimators=6, max_depth=2).fit(X, y, sample_weight=w)
    repeated = cls(n_estimators=6, max_depth=2).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9)
    np.testing.assert_allclose(weighted.alphas_, repeated.alphas_, rtol=1e-9)
    ones = cls(n_estimators=6, max_depth=2).fit(X, y, sample_weight=np.ones(60))
    np.testing.assert_array_equal(ones.alphas_, cls(n_estimators=6, max_depth=2).fit(X, y).alphas_)
