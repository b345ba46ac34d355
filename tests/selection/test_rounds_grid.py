"""RoundsOnValidation with a parameter grid: one rule for rounds and tree size (or any parameter) on validation."""

import json

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from csrepro.baselines import GradientBoostingPeer
from csrepro.data.protocols import holdout
from csrepro.data.synthetic import gaussian_mixture_2d
from csrepro.selection.rounds import RoundsOnValidation, staged_scores

#: 3 balanced classes; a constant prediction k costs the mean of column k: 2, 2/3, 4 (val part: 3 rows per class)
C = np.array([[0.0, 1.0, 6.0], [3.0, 0.0, 6.0], [3.0, 1.0, 0.0]])
X0, Y0 = np.zeros((30, 1)), np.repeat([0, 1, 2], 10)


class _Planned(ClassifierMixin, BaseEstimator):
    """Stage t predicts the class ``plans[max_depth][t]`` for every row: validation costs set by hand."""

    def __init__(self, max_depth=1, plans=None, labels=None):
        self.max_depth = max_depth
        self.plans = plans
        self.labels = labels

    def fit(self, X, y):
        self.classes_ = np.unique(y) if self.labels is None else np.asarray(self.labels)
        return self

    def staged_predict(self, X):
        for label in self.plans[self.max_depth]:
            yield np.full(len(X), label)


class _Constant(ClassifierMixin, BaseEstimator):
    """No staged_predict: always predicts ``label``."""

    def __init__(self, label=0):
        self.label = label

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


def _fit(plans, grid, **kw):
    return RoundsOnValidation(_Planned(plans=plans), val_size=9, criterion="cost", cost_matrix=C, param_grid=grid,
                              random_state=0, **kw).fit(X0, Y0)


def test_the_grid_point_and_round_of_least_validation_cost_are_chosen():
    plans = {1: [2, 0], 2: [2, 0, 1], 4: [2, 2]}  # costs [4, 2], [4, 2, 2/3], [4, 4]
    w = _fit(plans, {"max_depth": [1, 2, 4]})
    assert w.best_params_ == {"max_depth": 2} and w.best_n_estimators_ == 3
    assert w.estimator_.max_depth == 2
    for scores, expected in zip(w.validation_scores_, ([4, 2], [4, 2, 2 / 3], [4, 4])):
        np.testing.assert_allclose(scores, expected)
    np.testing.assert_array_equal(w.predict(X0[:4]), [1, 1, 1, 1])


def test_ties_go_to_the_earlier_grid_point_then_the_fewest_rounds():
    plans = {1: [2, 2, 1, 1], 2: [1], 4: [0, 1]}  # each reaches 2/3: depth 1 (listed first) at its round 3
    w = _fit(plans, {"max_depth": [1, 2, 4]})
    assert w.best_params_ == {"max_depth": 1} and w.best_n_estimators_ == 3
    w = _fit(plans, {"max_depth": [4, 2, 1]})  # ParameterGrid keeps the list's order
    assert w.best_params_ == {"max_depth": 4} and w.best_n_estimators_ == 2


def test_without_a_grid_the_estimator_is_one_point():
    w = _fit({1: [2, 0, 1, 1]}, None)
    assert w.best_params_ == {} and w.best_n_estimators_ == 3
    assert isinstance(w.validation_scores_, np.ndarray)
    np.testing.assert_allclose(w.validation_scores_, [4, 2, 2 / 3, 2 / 3])


def test_an_estimator_without_staged_predict_is_one_stage():
    w = RoundsOnValidation(_Constant(), val_size=9, criterion="cost", cost_matrix=C, param_grid={"label": [0, 1, 2]},
                           random_state=0).fit(X0, Y0)
    assert w.best_params_ == {"label": 1} and w.best_n_estimators_ is None
    for scores, expected in zip(w.validation_scores_, (2, 2 / 3, 4)):
        np.testing.assert_allclose(scores, [expected])
    np.testing.assert_array_equal(w.predict(X0[:2]), [1, 1])
    assert not hasattr(w, "predict_proba")  # _Constant has none
    np.testing.assert_allclose(staged_scores(_Constant(2).fit(X0, Y0), X0, Y0, "cost", C), [4])


def test_logistic_regression_c_is_chosen_by_the_same_rule():
    X, y = gaussian_mixture_2d(240, n_classes=3, n_clusters_per_class=1, random_state=0)
    grid = {"C": [1e-4, 1.0]}
    w = RoundsOnValidation(LogisticRegression(), param_grid=grid, random_state=1).fit(X, y)
    train, val = holdout(y, test_size=1 / 3, random_state=1)
    errors = [np.mean(LogisticRegression(C=c).fit(X[train], y[train]).predict(X[val]) != y[val]) for c in grid["C"]]
    np.testing.assert_allclose([s[0] for s in w.validation_scores_], errors)
    assert w.best_params_ == {"C": grid["C"][int(np.argmin(errors))]}
    np.testing.assert_allclose(w.predict_proba(X), w.estimator_.predict_proba(X))  # unstaged: its own method


def test_grid_scores_are_those_of_separately_fitted_boosters():
    X, y = gaussian_mixture_2d(300, n_classes=3, n_clusters_per_class=2, random_state=2)
    w = RoundsOnValidation(GradientBoostingPeer(n_estimators=15, random_state=0), param_grid={"max_depth": [1, 3]},
                           random_state=5).fit(X, y)
    train, val = holdout(y, test_size=1 / 3, random_state=5)
    expected = [staged_scores(GradientBoostingPeer(n_estimators=15, max_depth=d, random_state=0)
                              .fit(X[train], y[train]), X[val], y[val]) for d in (1, 3)]
    for got, want in zip(w.validation_scores_, expected):
        np.testing.assert_array_equal(got, want)
    i = int(np.argmin([s.min() for s in expected]))
    assert w.best_params_ == {"max_depth": (1, 3)[i]}
    assert w.best_n_estimators_ == int(np.argmin(expected[i])) + 1
    truncated = GradientBoostingPeer(n_estimators=w.best_n_estimators_, max_depth=(1, 3)[i], random_state=0)
    np.testing.assert_allclose(w.predict_proba(X), truncated.fit(X[train], y[train]).predict_proba(X), atol=1e-12)


def test_labels_index_the_cost_matrix_when_y_lacks_a_class():
    C4 = np.pad(C, ((0, 1), (0, 1)), constant_values=5.0)
    C4[3, 3] = 0.0
    w = RoundsOnValidation(_Planned(plans={1: [2, 3, 1]}), val_size=9, criterion="cost", cost_matrix=C4,
                           labels=[0, 1, 2, 3], random_state=0).fit(X0, Y0)  # class 3 absent from y, predictable
    np.testing.assert_array_equal(w.classes_, [0, 1, 2, 3])  # the estimator was given the labels
    np.testing.assert_allclose(w.validation_scores_, [4, 5, 2 / 3])
    assert w.best_n_estimators_ == 3
    with pytest.raises(ValueError, match="cost matrix is 3x3 but there are 4 classes"):
        _fit({1: [2]}, None, labels=[0, 1, 2, 3])


# ----- the experiment key `rounds_on_validation.grid` (csrepro.config, csrepro.runner) --------------------------
def _config(root, methods_cfg, datasets=("sk_wine",)):
    exp = {"name": "t_rounds_grid", "paper": "p", "datasets": list(datasets), "n_trials": 1,
           "protocol": {"name": "holdout", "test_size": 0.25}, "cost": {"kind": "rebel_random"},
           "methods": methods_cfg, "metrics": ["error", "risk"], "preprocessing": {"standardize": True}}
    return {"exp": exp, "runner": {"progress": False}, "results": {"root": str(root)}}


def test_the_grid_enters_params_json_only_when_given():
    from csrepro.config import method_entries

    plain, = method_entries({"rebel": {"n_estimators": 20, "rounds_on_validation": {"criterion": "cost"}}})
    assert plain.params_json == '{"n_estimators":20,"rounds_on_validation":{"criterion":"cost","val_size":0.3333}}'
    grid, = method_entries({"rebel": {"rounds_on_validation": {"criterion": "cost", "grid": {"max_depth": [1, 2]}}}})
    assert grid.rounds == {"val_size": 0.3333, "criterion": "cost", "grid": {"max_depth": [1, 2]}}
    assert '"grid":{"max_depth":[1,2]}' in grid.params_json


@pytest.mark.parametrize("grid, message", [
    ([1, 2], "rounds_on_validation.grid must map parameter names to non-empty lists"),
    ({"max_depth": []}, "rounds_on_validation.grid must map parameter names to non-empty lists"),
    ({"max_depth": 2}, "rounds_on_validation.grid must map parameter names to non-empty lists"),
    ({"n_estimators": [5, 10]}, "is the number of rounds"),
])
def test_bad_grids_are_one_line_config_errors(grid, message):
    from csrepro.config import ConfigError, method_entries

    with pytest.raises(ConfigError, match=message) as err:
        method_entries({"rebel": {"rounds_on_validation": {"grid": grid}}})
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("entry, message", [
    ({"rounds_on_validation": {"grid": {"depth": [1, 2]}}}, r"rebel has no parameter\(s\) \['depth'\]; valid:"),
    ({"max_depth": 2, "rounds_on_validation": {"grid": {"max_depth": [1, 2]}}}, "both as a fixed value and in "
                                                                                  "rounds_on_validation.grid"),
    ({"rounds_on_validation": {"grid": {"max_depth": [1, 0]}}}, r"rounds_on_validation.grid value \{'max_depth': 0\}"),
])
def test_grids_are_checked_against_the_method(tmp_path, entry, message):
    from csrepro.config import ConfigError, validate_config
    from csrepro.scoring import METRICS

    with pytest.raises(ConfigError, match=message) as err:
        validate_config(_config(tmp_path, {"rebel": entry}), METRICS)
    assert "\n" not in str(err.value)


def test_a_grid_admits_a_method_without_staged_predict(tmp_path):
    from csrepro.config import ConfigError, validate_config
    from csrepro.scoring import METRICS

    grid = {"method": "bayes_rule", "model": "lr", "rounds_on_validation": {"criterion": "cost",
                                                                           "grid": {"estimator__C": [0.1, 1.0]}}}
    validate_config(_config(tmp_path, {"lr_bayes": grid}), METRICS)
    with pytest.raises(ConfigError, match="has no staged_predict.*give it a grid"):
        validate_config(_config(tmp_path, {"lr_bayes": {"method": "bayes_rule", "model": "lr",
                                                        "rounds_on_validation": {"criterion": "cost"}}}), METRICS)


def test_the_runner_applies_the_grid_and_stores_the_choice(tmp_path):
    from csrepro.runner import run_experiment

    cfg = _config(tmp_path, {"rebel": {"n_estimators": 10, "rounds_on_validation": {"grid": {"max_depth": [1, 2]}}},
                             "lr_bayes": {"method": "bayes_rule", "model": "lr", "rounds_on_validation": {
                                 "criterion": "cost", "grid": {"estimator__C": [0.1, 1.0]}}}})
    rows = run_experiment(cfg).set_index("method")
    rebel = json.loads(rows.loc["rebel", "selected"])
    assert set(rebel) == {"max_depth", "n_estimators"} and rebel["max_depth"] in (1, 2)
    assert 1 <= rebel["n_estimators"] <= 10
    assert set(json.loads(rows.loc["lr_bayes", "selected"])) == {"estimator__C"}  # no rounds: one stage
