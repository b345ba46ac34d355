"""Issue 21's modern baselines (csrepro.baselines) and their registry ids: hand-checkable cases."""

import importlib

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from csrepro import methods
from csrepro.baselines import gbdt
from csrepro.baselines import (
    GradientBoostingPeer,
    MultinomialLogisticRegression,
    TunedCalibratedBayesClassifier,
    cost_weights,
)
from csrepro.decision.rules import decide
from csrepro.selection.rounds import RoundsOnValidation

LIBRARIES = ["sklearn", "lightgbm", "xgboost"]


def _needs(library):
    if library != "sklearn":
        pytest.importorskip(library)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


#: a skewed cost matrix: calling a class-2 flower anything else costs 20
SKEWED = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [20.0, 20.0, 0.0]])


def test_cost_weights_by_hand():
    C = np.array([[0.0, 2.0, 4.0], [1.0, 0.0, 1.0], [3.0, 3.0, 0.0]])  # class means 3, 1, 3
    w = cost_weights(C, [0, 1, 2, 2])  # 3, 1, 3, 3 with mean 2.5
    np.testing.assert_allclose(w, [1.2, 0.4, 1.2, 1.2])
    with pytest.raises(ValueError, match="zero misclassification cost"):
        cost_weights(np.zeros((2, 2)), [0, 1])


def test_weighting_cost_fits_the_library_with_those_weights(iris):
    X, y = iris
    peer = GradientBoostingPeer(n_estimators=5, max_depth=2, cost_matrix=SKEWED, weighting="cost",
                                random_state=0).fit(X, y)
    ref = HistGradientBoostingClassifier(max_iter=5, max_depth=2, max_leaf_nodes=4, early_stopping=False,
                                         random_state=0).fit(X, y, sample_weight=cost_weights(SKEWED, y))
    np.testing.assert_allclose(peer.predict_proba(X), ref.predict_proba(X))
    np.testing.assert_array_equal(peer.predict(X), np.argmax(peer.predict_proba(X), axis=1))  # argmax, not Bayes


@pytest.mark.parametrize("library", LIBRARIES)
def test_weighting_none_predicts_by_the_minimum_expected_cost_rule(iris, library):
    _needs(library)
    X, y = iris
    peer = GradientBoostingPeer(library, n_estimators=3, max_depth=1, cost_matrix=SKEWED, random_state=0).fit(X, y)
    P = peer.predict_proba(X)
    np.testing.assert_array_equal(peer.predict(X), decide(P, SKEWED))
    assert (peer.predict(X) != np.argmax(P, axis=1)).any()  # the costs move some decisions to class 2
    blind = GradientBoostingPeer(library, n_estimators=3, max_depth=1, random_state=0).fit(X, y)
    np.testing.assert_array_equal(blind.predict(X), np.argmax(blind.predict_proba(X), axis=1))


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_stages_end_at_predict_proba_and_follow_the_library(iris, library, n_classes):
    _needs(library)
    X, y = iris
    keep = y < n_classes
    X, y = X[keep], y[keep]
    peer = GradientBoostingPeer(library, n_estimators=8, max_depth=2, random_state=0).fit(X, y)
    stages = list(peer.staged_predict_proba(X))
    assert len(stages) == peer.n_iter_ and peer.n_iter_ <= 8
    np.testing.assert_array_equal(stages[-1], peer.predict_proba(X))
    np.testing.assert_array_equal(list(peer.staged_predict(X))[-1], peer.predict(X))
    assert stages[-1].shape == (len(X), n_classes)
    t = len(stages) // 2  # an earlier stage is the library's own prediction with t rounds
    if library == "sklearn":
        ref = list(peer.model_.staged_predict_proba(X))[t - 1]
    elif library == "lightgbm":
        ref = peer.model_.predict_proba(X, num_iteration=t)
    else:
        ref = peer.model_.predict_proba(X, iteration_range=(0, t))
    np.testing.assert_allclose(stages[t - 1], ref, atol=1e-6)  # XGBoost predicts in float32


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_class_absent_from_training_has_probability_zero_and_stays_predictable(iris, library):
    _needs(library)
    X, y = iris
    C = np.ones((4, 4)) - np.eye(4)
    C[:, 3] = 0.05  # class 3: a cheap hedge, never in the training labels
    C[3, 3] = 0.0
    peer = GradientBoostingPeer(library, n_estimators=4, max_depth=1, cost_matrix=C, labels=[0, 1, 2, 3],
                                random_state=0).fit(X, y)
    np.testing.assert_array_equal(peer.classes_, [0, 1, 2, 3])
    P = peer.predict_proba(X)
    assert P.shape == (150, 4) and (P[:, 3] == 0).all()
    pred = peer.predict(X)
    np.testing.assert_array_equal(pred, decide(P, C))
    assert (pred == 3).any()
    assert all((s[:, 3] == 0).all() for s in peer.staged_predict_proba(X))


@pytest.mark.parametrize("library", ["lightgbm", "xgboost", "sklearn"])
def test_results_do_not_depend_on_the_thread_count(iris, library):
    """One thread inside the library: two fits, under different thread limits, give identical models."""
    _needs(library)
    X, y = iris
    a = GradientBoostingPeer(library, n_estimators=6, max_depth=3, random_state=1).fit(X, y)
    with threadpool_limits(limits=1):
        b = GradientBoostingPeer(library, n_estimators=6, max_depth=3, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    if library != "sklearn":
        assert a.model_.get_params()["n_jobs"] == 1


def test_a_missing_optional_library_names_the_fix(iris, monkeypatch):
    real = importlib.import_module

    def fake(name, *args):
        if name == "lightgbm":
            raise ImportError("No module named 'lightgbm'")
        return real(name, *args)

    monkeypatch.setattr(gbdt.importlib, "import_module", fake)
    with pytest.raises(ImportError, match=r"needs the optional package lightgbm; install it with: pip install -e "
                                          r"'\.\[bench\]'"):
        GradientBoostingPeer("lightgbm", n_estimators=2).fit(*iris)


def test_multinomial_logistic_regression_is_scikit_learns_with_labels(iris):
    X, y = iris
    ours = MultinomialLogisticRegression(C=0.5, labels=[0, 1, 2, 3]).fit(X, y)
    ref = LogisticRegression(C=0.5, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X)[:, :3], ref.predict_proba(X))
    assert (ours.predict_proba(X)[:, 3] == 0).all()
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_tuned_calibrated_tunes_once_then_calibrates_with_the_choice(iris):
    X, y = iris
    booster = GradientBoostingPeer(n_estimators=6, cost_matrix=SKEWED, random_state=0)
    grid = {"max_depth": [1, 2]}
    model = TunedCalibratedBayesClassifier(booster, param_grid=grid, cost_matrix=SKEWED, random_state=3).fit(X, y)
    tuner = RoundsOnValidation(booster, criterion="cost", cost_matrix=SKEWED, param_grid=grid, random_state=3).fit(X, y)
    assert model.best_params_ == {**tuner.best_params_, "n_estimators": tuner.best_n_estimators_}
    final = model.calibrated_.estimator
    assert final.max_depth == model.best_params_["max_depth"] and final.n_estimators == tuner.best_n_estimators_
    assert final.cost_matrix is None  # cost-blind probabilities; the costs enter through the rule
    P = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), decide(P, SKEWED))


# ----- registry ids ---------------------------------------------------------------------------------------------
def test_registry_ids_build_the_documented_estimators():
    C = SKEWED
    calibrated = methods.make_estimator("gbdt_calibrated", cost_matrix=C, random_state=0, library="xgboost")
    assert isinstance(calibrated, TunedCalibratedBayesClassifier)
    assert calibrated.param_grid == {"max_depth": [1, 3, 6]} and calibrated.method == "sigmoid" and calibrated.cv == 3
    assert calibrated.estimator.library == "xgboost" and calibrated.estimator.n_estimators == 200
    weighted = methods.make_estimator("gbdt_weighted", cost_matrix=C, random_state=0, library="lightgbm")
    assert isinstance(weighted, RoundsOnValidation) and weighted.criterion == "cost"
    assert weighted.estimator.weighting == "cost" and weighted.param_grid == {"max_depth": [1, 3, 6]}
    logistic = methods.make_estimator("logistic_bayes", cost_matrix=C, random_state=0)
    assert logistic.param_grid == {"estimator__C": [0.01, 0.1, 1.0, 10.0, 100.0]}
    assert isinstance(logistic.estimator.estimator, MultinomialLogisticRegression)
    for name in ("gbdt_calibrated", "gbdt_weighted", "logistic_bayes"):
        assert methods.get_method(name).multiclass and methods.get_method(name).cost_sensitive
    assert isinstance(methods.rule_on_model("partition_matrix", model="lr").estimator, MultinomialLogisticRegression)


@pytest.mark.parametrize("name, params", [("gbdt_calibrated", {"library": "sklearn"}),
                                          ("gbdt_weighted", {"library": "sklearn"}), ("logistic_bayes", {}),
                                          ("bayes_rule", {"model": "lr"})])
def test_registry_ids_fit_with_all_labels(iris, name, params):
    X, y = iris
    keep = y < 3
    C4 = np.ones((4, 4)) - np.eye(4)  # the runner's labels: a fourth class absent from the training part
    small = {"n_estimators": 5, "max_depth_grid": [1, 2]} if name.startswith("gbdt") else {}
    est = methods.make_estimator(name, cost_matrix=C4, random_state=0, **params, **small)
    est.set_params(labels=np.arange(4))
    est.fit(X[keep], y[keep])
    np.testing.assert_array_equal(est.classes_, np.arange(4))
    assert set(est.predict(X)) <= {0, 1, 2, 3} and np.mean(est.predict(X) == y) > 0.8
