"""The modern peers of issue 20: cost-sensitive reductions (csrepro.baselines.reductions) and calibrated
probabilities + eq. (1) (csrepro.decision.bayes_rule).

``"wap"`` and ``"csoaa"`` need the optional package costsensitive (the ``peers`` extra); their tests skip without
it, so the core suite runs on ``.[dev]`` alone.  ``"filter_tree"`` and CalibratedBayesClassifier need nothing extra.
"""

import subprocess
import sys

import numpy as np
import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro.costs import CostMatrixError, zero_one
from csrepro.baselines.reductions import CostSensitiveReduction, _balanced_tree, example_costs
from csrepro.decision.bayes_rule import CalibratedBayesClassifier

PACKAGE_REDUCTIONS = ("wap", "csoaa")


def _needs_package(reduction):
    if reduction in PACKAGE_REDUCTIONS:
        pytest.importorskip("costsensitive")


# CostSensitiveReduction(reduction="filter_tree") and CalibratedBayesClassifier (cv=2, isotonic and sigmoid) pass
# scikit-learn's checks in tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator); the
# reductions of the optional package, here
@parametrize_with_checks([CostSensitiveReduction(reduction=r) for r in PACKAGE_REDUCTIONS])
def test_sklearn_estimator_checks_of_the_package_reductions(estimator, check):
    pytest.importorskip("costsensitive")
    check(estimator)


def test_example_costs_are_the_rows_of_the_true_classes():
    C = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 3.0], [5.0, 6.0, 0.0]])  # C[j, k]: truth j, prediction k
    E = example_costs(C, [2, 0, 1, 0])
    np.testing.assert_array_equal(E, [[5, 6, 0], [0, 1, 4], [2, 0, 3], [0, 1, 4]])
    assert E.flags.c_contiguous and E.dtype == np.float64


def test_balanced_tree_has_each_class_once_and_children_first():
    for K in range(2, 12):
        nodes = _balanced_tree(K)
        assert len(nodes) == K - 1
        children = [c for node in nodes for c in node]
        assert sorted(-c - 1 for c in children if c < 0) == list(range(K))
        assert sorted(c for c in children if c >= 0) == list(range(K - 2))  # every node but the root is a child
        assert all(c < i for i, node in enumerate(nodes) for c in node)


def _uninformative(counts, labels=None):
    """A constant feature and labels with the given class counts: every model can only learn the priors."""
    y = np.repeat(np.arange(len(counts)) if labels is None else labels, counts)
    return np.zeros((len(y), 1)), y


# priors (.6, .3, .1) and C[j, k] (truth j, prediction k): expected costs sum_j p_j C[j, k] = (4, 1.6, .9) -> class 2;
# read as O'Brien's c_{k|j} (the transpose) they are (.4, 6.1, 9) -> class 0.  Two classes: priors (.7, .3),
# costs (1.5, .7) -> class 1; transposed (.3, 3.5) -> class 0.
ORIENTATION = [((60, 30, 10), [[0, 1, 1], [10, 0, 1], [10, 10, 0]], 2, 0),
               ((70, 30), [[0, 1], [5, 0]], 1, 0)]
PEERS = [("wap", None), ("filter_tree", None), ("csoaa", None), (None, "isotonic"), (None, "sigmoid")]


def _peer(reduction, method, **kw):
    if reduction is None:
        return CalibratedBayesClassifier(method=method, **kw)
    _needs_package(reduction)
    return CostSensitiveReduction(reduction=reduction, **kw)


@pytest.mark.parametrize("reduction, method", PEERS)
@pytest.mark.parametrize("counts, C, expected, transposed", ORIENTATION)
def test_orientation_row_is_the_truth(reduction, method, counts, C, expected, transposed):
    X, y = _uninformative(counts)
    C = np.array(C, dtype=float)
    assert expected != transposed
    for cost, want in ((C, expected), (C.T, transposed)):
        pred = _peer(reduction, method, cost_matrix=cost).fit(X, y).predict(X)
        np.testing.assert_array_equal(pred, want)


@pytest.mark.parametrize("reduction, method", PEERS)
def test_absent_class_in_labels_can_be_predicted_as_a_cheap_hedge(reduction, method):
    """labels [0, 1, 2], y only 0 and 1 (equal counts): class 2's column (cost 1 for either truth) enters the example
    costs and the Bayes rule, beating 0 and 1 (expected cost 5 each)."""
    X, y = _uninformative((50, 50))
    C = [[0, 10, 1], [10, 0, 1], [1, 1, 0]]
    model = _peer(reduction, method, cost_matrix=C, labels=[0, 1, 2]).fit(X, y)
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    np.testing.assert_array_equal(model.predict(X), 2)
    if reduction is None:
        P = model.predict_proba(X)
        assert P.shape == (100, 3) and np.all(P[:, 2] == 0)


@pytest.mark.parametrize("method", ["isotonic", "sigmoid"])
def test_zero_one_costs_give_the_argmax_of_the_calibrated_probabilities(method):
    X, y = make_blobs(300, centers=3, cluster_std=3.0, random_state=0)
    y = np.array(["setosa", "versicolor", "virginica"])[y]
    reference = CalibratedClassifierCV(LogisticRegression(max_iter=1000), method=method, cv=5, ensemble=True).fit(X, y)
    for cost in (None, zero_one(3)):
        model = CalibratedBayesClassifier(cost_matrix=cost, method=method).fit(X, y)
        P = model.predict_proba(X)
        np.testing.assert_allclose(P, reference.predict_proba(X))
        np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(P, axis=1)])
        np.testing.assert_array_equal(model.predict(X), reference.predict(X))


def test_cost_sensitive_bayes_rule_is_applied_to_the_calibrated_probabilities():
    X, y = make_blobs(300, centers=3, cluster_std=3.0, random_state=0)
    C = np.array([[0, 1, 8], [3, 0, 2], [9, 4, 0]], dtype=float)
    model = CalibratedBayesClassifier(cost_matrix=C).fit(X, y)
    P = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), np.argmin(P @ C, axis=1))
    assert not np.array_equal(model.predict(X), np.argmax(P, axis=1))  # the costs change some decisions


@pytest.mark.parametrize("reduction", ["wap", "filter_tree", "csoaa"])
def test_reductions_fit_separable_data_with_zero_one_and_random_costs(reduction):
    """Noisy one-hot codes of 5 classes (every class subset linearly separable, every example cost linear in x):
    the reductions predict the true class whatever the costs (costsensitive's own FilterTree fails to fit with 0-1
    costs: its root gets no examples)."""
    _needs_package(reduction)
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(5), 80)
    X = 5.0 * np.eye(5)[y] + rng.normal(scale=0.3, size=(len(y), 5))
    C = rng.uniform(1, 10, (5, 5))
    np.fill_diagonal(C, 0)
    for cost in (None, C):
        model = CostSensitiveReduction(cost_matrix=cost, reduction=reduction).fit(X, y)
        assert np.mean(model.predict(X) == y) >= 0.99
        np.testing.assert_array_equal(model.predict(X[:1]), y[:1])  # a single row predicts too


@pytest.mark.parametrize("reduction", ["wap", "filter_tree", "csoaa"])
def test_reductions_map_predictions_back_to_the_labels(reduction):
    _needs_package(reduction)
    X, y = make_blobs(200, centers=4, random_state=1)
    names = np.array(["d", "b", "a", "c"])[y]
    model = CostSensitiveReduction(reduction=reduction).fit(X, names)
    np.testing.assert_array_equal(model.classes_, ["a", "b", "c", "d"])
    codes = CostSensitiveReduction(reduction=reduction).fit(X, np.searchsorted(model.classes_, names)).predict(X)
    np.testing.assert_array_equal(model.predict(X), model.classes_[codes])


@pytest.mark.parametrize("reduction, method", PEERS)
def test_deterministic_for_a_fixed_random_state(reduction, method):
    X, y = make_blobs(240, centers=3, cluster_std=4.0, random_state=2)
    C = [[0, 2, 7], [1, 0, 3], [6, 2, 0]]
    if reduction == "csoaa":
        base = DecisionTreeRegressor(max_depth=3, max_features=1)
    else:
        base = DecisionTreeClassifier(max_depth=3, max_features=1)  # randomised: one random feature per split
    runs = [_peer(reduction, method, estimator=base, cost_matrix=C, random_state=7).fit(X, y).predict(X)
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    assert base.random_state is None  # the estimator given is not modified


@pytest.mark.parametrize("reduction, method", [("filter_tree", None), (None, "isotonic")])
@pytest.mark.parametrize("cost, match", [
    ([[0, 1], [1, 0]], "cost matrix is 2x2 but there are 3 classes"),
    ([[0, 1, 1], [1, 0, 1]], "must be square"),
    ([[0, 1, 1], [1, 0, -1], [1, 1, 0]], r"C\[1, 2\] = -1 is negative"),
    ([[0, 1, np.nan], [1, 0, 1], [1, 1, 0]], r"C\[0, 2\] = nan is not finite"),
    ([[0, 1, 1], [1, 0, 1], [0, 0, 0]], "row 2 .* has no positive entry"),
])
def test_bad_cost_matrix_is_a_clear_error(reduction, method, cost, match):
    X, y = make_blobs(60, centers=3, random_state=0)
    with pytest.raises(CostMatrixError, match=match):
        _peer(reduction, method, cost_matrix=cost).fit(X, y)


def test_other_bad_inputs():
    X, y = make_blobs(60, centers=3, random_state=0)
    with pytest.raises(InvalidParameterError, match="reduction"):
        CostSensitiveReduction(reduction="ova").fit(X, y)
    with pytest.raises(InvalidParameterError, match="method"):
        CalibratedBayesClassifier(method="beta").fit(X, y)
    with pytest.raises(ValueError, match="needs a regressor"):
        CostSensitiveReduction(reduction="csoaa", estimator=LogisticRegression()).fit(X, y)
    with pytest.raises(ValueError, match="needs a classifier accepting sample_weight"):
        CostSensitiveReduction(reduction="filter_tree", estimator=DecisionTreeRegressor()).fit(X, y)
    for model in (CostSensitiveReduction(reduction="filter_tree", labels=[0, 1]), CalibratedBayesClassifier(labels=[0, 1])):
        with pytest.raises(ValueError, match=r"training labels \[2\] are not in labels=\[0, 1\]"):
            model.fit(X, y)
        with pytest.raises(ValueError, match="only 1 class"):
            model.fit(X, np.zeros(60))


def test_missing_package_is_a_one_line_import_error_naming_the_fix(monkeypatch):
    monkeypatch.setitem(sys.modules, "costsensitive", None)  # import costsensitive -> ImportError
    X, y = make_blobs(60, centers=3, random_state=0)
    for reduction in PACKAGE_REDUCTIONS:
        with pytest.raises(ImportError, match=r"needs the optional package costsensitive; install it with: "
                                              r"pip install -e '\.\[peers\]'"):
            CostSensitiveReduction(reduction=reduction).fit(X, y)
    CostSensitiveReduction(reduction="filter_tree").fit(X, y)  # the filter tree is ours: no package needed


def test_importing_csrepro_does_not_import_the_package():
    code = "import sys, csrepro, csrepro.baselines.reductions; print('costsensitive' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("rare", [1, 3])
def test_calibration_takes_fewer_folds_for_a_rare_class(rare):
    """A class with fewer members than cv (yeast's ERL: 5, 4 of them in a 10-fold training part) still fits."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (40, 2)), rng.normal(3, 1, (40, 2)), rng.normal((0, 4), 1, (rare, 2))])
    y = np.r_[np.zeros(40, int), np.ones(40, int), np.full(rare, 2)]
    clf = CalibratedBayesClassifier(cv=5).fit(X, y)
    P = clf.predict_proba(X)
    assert P.shape == (len(y), 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
