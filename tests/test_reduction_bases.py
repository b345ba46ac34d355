"""The reductions' bases of issue 30 (csrepro.baselines.reductions: _WeightedPipeline, few_valued_columns,
reduction_base; the registry's cs_reduction): weights reach the model through the pipeline, one-hot coding of the
few-valued attributes, a tree base, a validation grid over the base's parameters, and the default base unchanged.

``"wap"`` and ``"csoaa"`` need the optional package costsensitive (the ``peers`` extra); their tests skip without it.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from csrepro.baselines.reductions import (CostSensitiveReduction, _WeightedPipeline, few_valued_columns,
                                         reduction_base)
from csrepro.methods import make_estimator
from csrepro.selection.rounds import RoundsOnValidation

REDUCTIONS = ("wap", "filter_tree", "csoaa")


def _needs_package(reduction):
    if reduction in ("wap", "csoaa"):
        pytest.importorskip("costsensitive")


def _mixed(n=90, seed=0):
    """A 5-valued attribute (1..5), a continuous one and a two-valued one; labels depend on the first two."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(1, 6, n), rng.normal(size=n), rng.integers(0, 2, n)]).astype(float)
    y = ((X[:, 0] >= 3).astype(int) + (X[:, 1] > 0.5)).astype(int)
    return X, y


def test_few_valued_columns_by_hand():
    X = np.array([[1, 0.1, 0, 7], [2, 0.2, 1, 7], [3, 0.3, 0, 7], [1, 0.4, 1, 7], [2, 0.5, 0, 7]], dtype=float)
    # column 0: 3 values; column 1: 5 values; column 2: 2 values (its own code); column 3: constant
    assert few_valued_columns(X, 3) == [0]
    assert few_valued_columns(X, 5) == [0, 1]
    assert few_valued_columns(X, 10) == [0, 1]


def test_weighted_fit_equals_repeated_rows_linear():
    X, y = _mixed()
    w = np.random.default_rng(1).integers(1, 4, len(y))
    base = reduction_base("wap", "linear", onehot_max_values=5)
    weighted = clone(base).fit(X, y > 0, sample_weight=w)
    repeated = clone(base).fit(np.repeat(X, w, axis=0), np.repeat(y > 0, w))
    np.testing.assert_allclose(weighted[-1].coef_, repeated[-1].coef_, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(weighted[-1].intercept_, repeated[-1].intercept_, rtol=1e-4, atol=1e-6)
    unweighted = clone(base).fit(X, y > 0)
    assert not np.allclose(weighted[-1].coef_, unweighted[-1].coef_, rtol=1e-3)  # the weights were used


def test_weighted_fit_equals_repeated_rows_tree():
    X, y = _mixed()
    w = np.random.default_rng(2).integers(1, 4, len(y))
    base = reduction_base("filter_tree", "tree", onehot_max_values=5, random_state=0)
    weighted = clone(base).fit(X, y, sample_weight=w)
    repeated = clone(base).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    a, b = weighted[-1].tree_, repeated[-1].tree_
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_allclose(a.threshold, b.threshold)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


def test_a_plain_pipeline_would_refuse_the_weights():
    X, y = _mixed()
    with pytest.raises((TypeError, ValueError)):
        Pipeline([("model", LogisticRegression())]).fit(X, y, sample_weight=np.ones(len(y)))
    _WeightedPipeline([("model", LogisticRegression())]).fit(X, y, sample_weight=np.ones(len(y)))


def test_onehot_codes_the_few_valued_attributes_only():
    X, y = _mixed()
    Z = reduction_base("wap", onehot_max_values=5).fit(X, y > 0)[0].transform(X)
    # the 5-valued column becomes 5 indicators; the continuous and the two-valued columns pass through
    assert Z.shape == (len(X), 5 + 2)
    np.testing.assert_array_equal(Z[:, :5], (X[:, [0]] == np.arange(1, 6)).astype(float))
    np.testing.assert_array_equal(Z[:, 5:], X[:, 1:])
    # a value unseen in training is coded all-zero
    assert reduction_base("wap", onehot_max_values=5).fit(X, y > 0)[0].transform([[9.0, 0.0, 1.0]])[0, :5].sum() == 0
    assert reduction_base("wap").fit(X, y > 0)[0] == "passthrough"


def test_bases_by_reduction():
    assert isinstance(reduction_base("wap")[-1], LogisticRegression)
    assert isinstance(reduction_base("filter_tree", "tree")[-1], DecisionTreeClassifier)
    tree = reduction_base("csoaa", "tree", random_state=3)[-1]
    assert isinstance(tree, DecisionTreeRegressor) and tree.max_depth == 4 and tree.random_state is not None
    assert reduction_base("csoaa", "tree", random_state=3)[-1].random_state == tree.random_state
    for bad in ({"base": "forest"}, {"onehot_max_values": 2}, {"onehot_max_values": True}, {"onehot_max_values": 4.0}):
        with pytest.raises(ValueError):
            reduction_base("wap", **bad)
    with pytest.raises(ValueError):
        reduction_base("ova")


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_default_base_gives_the_former_default(reduction):
    """cs_reduction with the default linear base and no one-hot predicts as CostSensitiveReduction's own default
    (logistic regression C=1 / ridge alpha=1), so experiments that do not name a base keep their numbers."""
    _needs_package(reduction)
    X, y = make_blobs(150, centers=4, cluster_std=3.0, random_state=0)
    C = np.random.default_rng(0).uniform(1, 10, (4, 4))
    np.fill_diagonal(C, 0)
    new = make_estimator("cs_reduction", cost_matrix=C, random_state=0, reduction=reduction).fit(X, y)
    old = CostSensitiveReduction(cost_matrix=C, reduction=reduction, random_state=0).fit(X, y)
    np.testing.assert_array_equal(new.predict(X), old.predict(X))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weights_reach_the_model_inside_the_reduction(reduction):
    """The importance-weighted subproblems fit the pipeline's model as they fit the bare model."""
    _needs_package(reduction)
    X, y = make_blobs(150, centers=3, cluster_std=3.0, random_state=1)
    C = np.array([[0, 1, 8], [2, 0, 1], [9, 3, 0]], dtype=float)
    bare = DecisionTreeRegressor(max_depth=4, random_state=5) if reduction == "csoaa" else \
        DecisionTreeClassifier(max_depth=4, random_state=5)
    piped = reduction_base(reduction, "tree")
    piped[-1].set_params(random_state=5)
    a = CostSensitiveReduction(bare, cost_matrix=C, reduction=reduction).fit(X, y).predict(X)
    b = CostSensitiveReduction(piped, cost_matrix=C, reduction=reduction).fit(X, y).predict(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("reduction, name, values", [("filter_tree", "estimator__model__C", [0.001, 100.0]),
                                                      ("csoaa", "estimator__model__alpha", [500.0, 0.005]),
                                                      ("wap", "estimator__model__max_depth", [1, 4])])
def test_validation_grid_over_the_base(reduction, name, values):
    _needs_package(reduction)
    X, y = _mixed(150)
    C = np.array([[0, 1, 4], [2, 0, 1], [5, 3, 0]], dtype=float)
    base = "tree" if "depth" in name else "linear"
    model = make_estimator("cs_reduction", cost_matrix=C, random_state=0, reduction=reduction, base=base,
                           onehot_max_values=5)
    tuned = RoundsOnValidation(model, criterion="cost", cost_matrix=C, param_grid={name: values},
                               random_state=0).fit(X, y)
    assert tuned.best_params_[name] in values and len(tuned.validation_scores_) == len(values)
    assert set(tuned.predict(X)) <= {0, 1, 2}
