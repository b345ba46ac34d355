"""Binary boosting engine and AdaBoost / RealBoost / LogitBoost: hand-computed runs, invariants, sklearn API."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import csrepro

from csrepro._kernels.backend import use_backend
from csrepro.boosting.binary import (
    AdaBoostClassifier,
    LogitBoostClassifier,
    RealBoostClassifier,
    _BinaryBoost,
    logistic_inverse_link,
)
from csrepro.methods import get_method, make_estimator
from csrepro.weak.trees import TreeLearner

BOOSTERS = {AdaBoostClassifier: ("stump", "tree4"), RealBoostClassifier: ("histogram", "stump", "tree4"),
            LogitBoostClassifier: ("stump", "tree4", "histogram", "line")}
CASES = [(cls, wl) for cls, wls in BOOSTERS.items() for wl in wls]


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[::3], y[::3]


def test_adaboost_two_iterations_by_hand():
    # x = 1..5, y = + + - + -, uniform weights.  Iteration 1: "+1 iff x <= 2.5" and "+1 iff x <= 4.5"
    # both err 0.2; the lower threshold wins: alpha_1 = 1/2 log(0.8/0.2) = log 2.  Reweighting gives
    # w = (1/8, 1/8, 1/8, 1/2, 1/8), and "+1 iff x <= 4.5" has err 1/8: alpha_2 = 1/2 log 7.
    X = np.arange(1.0, 6.0)[:, None]
    y = np.array([1, 1, 0, 1, 0])
    clf = AdaBoostClassifier(n_estimators=2).fit(X, y)
    np.testing.assert_allclose(clf.estimator_weights_, [np.log(2), 0.5 * np.log(7)])
    assert [h.threshold for h in clf.estimators_] == [2.5, 4.5]
    a1, a2 = clf.estimator_weights_
    np.testing.assert_allclose(clf.decision_function(X), [a1 + a2, a1 + a2, a2 - a1, a2 - a1, -a1 - a2])
    np.testing.assert_array_equal(clf.predict(X), [1, 1, 1, 1, 0])
    staged = list(clf.staged_decision_function(X))
    np.testing.assert_allclose(staged[0], [a1, a1, -a1, -a1, -a1])
    np.testing.assert_allclose(staged[1], clf.decision_function(X))


def test_adaboost_stops_on_perfect_weak_learner():
    X = np.arange(6.0)[:, None]
    clf = AdaBoostClassifier(n_estimators=10).fit(X, [0, 0, 0, 1, 1, 1])
    assert clf.n_estimators_ == 1 and np.isfinite(clf.estimator_weights_[0])
    np.testing.assert_array_equal(clf.predict(X), [0, 0, 0, 1, 1, 1])


def test_logitboost_first_step_by_hand():
    # F = 0: p = 1/2, w = 1/4, z = +-2; the regression stump fits side means of z and F = f / 2.
    X = np.arange(1.0, 6.0)[:, None]
    y = np.array([1, 1, 0, 1, 0])
    clf = LogitBoostClassifier(n_estimators=1).fit(X, y)
    z = np.where(y == 1, 2.0, -2.0)
    best = min((np.sum((z[X[:, 0] <= t] - z[X[:, 0] <= t].mean()) ** 2)
                + np.sum((z[X[:, 0] > t] - z[X[:, 0] > t].mean()) ** 2), t) for t in [1.5, 2.5, 3.5, 4.5])
    left = X[:, 0] <= best[1]
    want = np.where(left, z[left].mean(), z[~left].mean()) / 2
    np.testing.assert_allclose(clf.decision_function(X), want)
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], 1 / (1 + np.exp(-2 * want)))


@pytest.mark.parametrize("cls, wl", CASES)
def test_training_loss_decreases_and_backends_agree(cancer, cls, wl):
    X, y = cancer
    a = cls(n_estimators=15, weak_learner=wl, max_bins=64).fit(X, y)
    with use_backend("numpy"):
        b = cls(n_estimators=15, weak_learner=wl, max_bins=64).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-9)
    ypm = np.where(y == a.classes_[1], 1.0, -1.0)
    losses = [np.mean(np.log1p(np.exp(-2 * ypm * F))) if cls is LogitBoostClassifier else np.mean(np.exp(-ypm * F))
              for F in a.staged_decision_function(X)]
    if cls is LogitBoostClassifier:  # Newton steps: the deviance falls, not necessarily at every step
        assert np.all(np.diff(losses[:5]) < 0) and losses[-1] < 0.5 * losses[0], losses
    else:  # each step multiplies the exponential loss by Z_m < 1
        assert np.all(np.diff(losses) <= 1e-12 * np.array(losses[:-1])), losses
    assert a.score(X, y) > 0.9


@pytest.mark.parametrize("cls", list(BOOSTERS))
@pytest.mark.parametrize("wl", ["stump", "tree4"])
def test_all_bins_backends_agree_bit_for_bit(cls, wl):
    """Every distinct value its own bin (up to ~540 per feature: uint16 feature-major codes): the Cython engine
    (histogram_fm, node_scan, best_score) gives its NumPy references' bits -- the same additions in the same order."""
    X, y = load_breast_cancer(return_X_y=True)
    a = cls(n_estimators=8, weak_learner=wl).fit(X, y)
    with use_backend("numpy"):
        b = cls(n_estimators=8, weak_learner=wl).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert [h.score for h in a.estimators_] == [h.score for h in b.estimators_]


@pytest.mark.parametrize("labels", [("a", "b"), (3, 7), (-1, 1)])
def test_any_two_labels(cancer, labels):
    X, y = cancer
    yl = np.where(y == 1, labels[1], labels[0])
    for cls in BOOSTERS:
        clf = cls(n_estimators=5).fit(X, yl)
        assert list(clf.classes_) == list(labels)
        assert set(clf.predict(X)) <= set(labels)
        ref = cls(n_estimators=5).fit(X, y)  # positive class = classes_[1] in both
        np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X))
        P = clf.predict_proba(X)
        np.testing.assert_allclose(P.sum(1), 1.0)
        np.testing.assert_allclose(P[:, 1], logistic_inverse_link(clf.decision_function(X)))
        np.testing.assert_allclose(list(clf.staged_predict_proba(X))[-1], P)
        np.testing.assert_array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))


def test_bad_inputs_name_the_problem(cancer):
    X, y = cancer
    Xn = X.copy()
    Xn[0, 0] = np.nan
    for cls in BOOSTERS:
        with pytest.raises(ValueError, match="NaN"):
            cls().fit(Xn, y)
        Xi = X.copy()
        Xi[1, 1] = np.inf
        with pytest.raises(ValueError, match="infinity"):
            cls().fit(Xi, y)
        with pytest.raises(ValueError, match="only 1 class"):
            cls().fit(X[:5], np.zeros(5))
        with pytest.raises(ValueError, match="Only binary"):
            cls().fit(X[:6], [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="'weak_learner' parameter of AdaBoostClassifier.*Got 'histogram'"):
        AdaBoostClassifier(weak_learner="histogram").fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        RealBoostClassifier(n_estimators=-1).fit(X, y)
    with pytest.raises(ValueError, match="z_max"):
        LogitBoostClassifier(z_max=0).fit(X, y)
    with pytest.raises(NotImplementedError):
        _BinaryBoost().fit(X, y)


def test_learner_objects_and_ecosystem(cancer):
    X, y = cancer
    clf = RealBoostClassifier(n_estimators=5, weak_learner=TreeLearner(max_leaves=8)).fit(X, y)
    assert max(len(h.values) for h in clf.estimators_) <= 8
    assert clone(clf).get_params()["weak_learner"].max_leaves == 8
    pipe = make_pipeline(StandardScaler(), LogitBoostClassifier(n_estimators=5, weak_learner="line"))
    assert pipe.fit(X, y).score(X, y) > 0.85
    gs = GridSearchCV(AdaBoostClassifier(), {"n_estimators": [2, 5]}, cv=3).fit(X, y)
    assert gs.best_params_["n_estimators"] in (2, 5)


def test_registry():
    for name, cls in (("adaboost", AdaBoostClassifier), ("realboost", RealBoostClassifier),
                      ("logitboost", LogitBoostClassifier)):
        assert not get_method(name).cost_sensitive
        est = make_estimator(name, cost_matrix=None, random_state=0, n_estimators=3, weak_learner="stump")
        assert isinstance(est, cls) and est.n_estimators == 3


def _weighted_and_repeated(n=60, seed=0, n_classes=2):
    """(X, y, integer weights in 0..3, X and y with each row repeated its weight times); few distinct feature
    values, so that repeating rows adds no threshold."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 3)).astype(float)
    y = (X[:, 0] + rng.integers(0, 3, size=n)) % n_classes
    w = rng.integers(0, 4, size=n)
    w[:n_classes] = 1  # every class keeps a weighted row
    return X, y, w, np.repeat(X, w, axis=0), np.repeat(y, w)


@pytest.mark.parametrize("make", [
    lambda: AdaBoostClassifier(n_estimators=8),
    lambda: LogitBoostClassifier(n_estimators=8),
    lambda: csrepro.CSAdaBoostClassifier(C1=3.0, n_estimators=8),
    lambda: csrepro.CSLogitBoostClassifier(C1=3.0, n_estimators=8),
    lambda: csrepro.AdaC2Classifier(C1=3.0, n_estimators=8),
    lambda: csrepro.CSB0Classifier(C1=3.0, n_estimators=8),
    lambda: csrepro.AdaCostClassifier(C1=3.0, n_estimators=8),
    lambda: csrepro.TangentBoostClassifier(n_estimators=8),
], ids=["AdaBoost", "LogitBoost", "CSAdaBoost", "CSLogitBoost", "AdaC2", "CSB0", "AdaCost", "TangentBoost"])
def test_integer_sample_weights_equal_repeated_rows(make):
    """Issue 28: the boosters take ``sample_weight`` as the initial distribution D_1 (normalised; weights they
    recompute from F are multiplied by it), so integer weights act as repeated rows and zero as a removed row."""
    X, y, w, Xr, yr = _weighted_and_repeated()
    weighted, repeated = make().fit(X, y, sample_weight=w), make().fit(Xr, yr)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-9, atol=1e-12)
    ones = make().fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(ones.decision_function(X), make().fit(X, y).decision_function(X))
