"""RoundsOnValidation: the number of weak learners chosen on a stratified validation part, no refit."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from csrepro.boosting.rebel import REBELClassifier
from csrepro.data.protocols import holdout
from csrepro.data.synthetic import gaussian_mixture_2d
from csrepro.selection.rounds import RoundsOnValidation, staged_scores


class _Scripted(ClassifierMixin, BaseEstimator):
    """Stage t predicts ``plan[t]`` (a label for every row): validation scores set by hand."""

    def __init__(self, plan=None, labels=None):
        self.plan = plan
        self.labels = labels

    def fit(self, X, y):
        self.classes_ = np.unique(y) if self.labels is None else np.asarray(self.labels)
        return self

    def staged_predict(self, X):
        for row in self.plan:
            yield np.asarray(row(len(X)) if callable(row) else np.full(len(X), row))


def _data(seed=0, n=300):
    return gaussian_mixture_2d(n, n_classes=3, n_clusters_per_class=2, random_state=seed)


def test_chosen_count_is_the_validation_argmin_and_the_model_is_not_refitted():
    X, y = _data()
    wrapper = RoundsOnValidation(REBELClassifier(n_estimators=40), val_size=1 / 3, random_state=7).fit(X, y)
    train, val = holdout(y, test_size=1 / 3, random_state=7)
    full = REBELClassifier(n_estimators=40, labels=np.unique(y)).fit(X[train], y[train])
    errors = np.array([np.mean(p != y[val]) for p in full.staged_predict(X[val])])
    np.testing.assert_array_equal(wrapper.validation_scores_, errors)
    assert wrapper.best_n_estimators_ == int(np.argmin(errors)) + 1
    assert errors[wrapper.best_n_estimators_ - 1] == errors.min()
    assert (errors[: wrapper.best_n_estimators_ - 1] > errors.min()).all()  # fewest rounds among ties
    truncated = REBELClassifier(n_estimators=wrapper.best_n_estimators_, labels=np.unique(y)).fit(X[train], y[train])
    np.testing.assert_array_equal(wrapper.predict(X), truncated.predict(X))
    np.testing.assert_allclose(wrapper.decision_function(X), truncated.decision_function(X))
    assert len(wrapper.estimator_.estimators_) == 40  # trained once, all rounds kept; no refit on train + val


def test_split_is_stratified_and_seeded():
    X, y = _data(1)
    a = RoundsOnValidation(REBELClassifier(n_estimators=10), random_state=3).fit(X, y)
    b = RoundsOnValidation(REBELClassifier(n_estimators=10), random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.validation_scores_, b.validation_scores_)
    train, val = holdout(y, test_size=1 / 3, random_state=3)
    assert len(val) == 100 and abs(np.bincount(y[val]) - np.bincount(y) / 3).max() <= 1


def test_ties_go_to_the_fewest_rounds():
    X, y = np.zeros((30, 1)), np.repeat([0, 1, 2], 10)
    plan = [0, 1, 0, 2, 1]  # every stage predicts one class: error 2/3 at every stage
    w = RoundsOnValidation(_Scripted(plan), val_size=9, random_state=0).fit(X, y)
    assert w.best_n_estimators_ == 1
    np.testing.assert_allclose(w.validation_scores_, 2 / 3)


def test_cost_criterion_uses_the_cost_matrix():
    X, y = np.zeros((30, 1)), np.repeat([0, 1, 2], 10)
    C = np.array([[0.0, 1.0, 10.0], [1.0, 0.0, 10.0], [1.0, 1.0, 0.0]])
    plan = [2, 0]  # same error (2/3); costs (10 + 10 + 0)/3 and (0 + 1 + 1)/3
    by_error = RoundsOnValidation(_Scripted(plan), val_size=9, criterion="error", random_state=0).fit(X, y)
    by_cost = RoundsOnValidation(_Scripted(plan), val_size=9, criterion="cost", cost_matrix=C, random_state=0).fit(X, y)
    assert by_error.best_n_estimators_ == 1 and by_cost.best_n_estimators_ == 2
    np.testing.assert_allclose(by_cost.validation_scores_, [20 / 3, 2 / 3])
    est = _Scripted(plan).fit(X, y)
    np.testing.assert_allclose(staged_scores(est, X, y, "cost", C), [20 / 3, 2 / 3])


def test_bad_settings_raise_clear_errors():
    X, y = _data(2, 60)
    with pytest.raises(ValueError, match="needs a cost_matrix"):
        RoundsOnValidation(REBELClassifier(n_estimators=3), criterion="cost").fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        RoundsOnValidation(REBELClassifier(n_estimators=3), criterion="loss").fit(X, y)
    with pytest.raises(ValueError, match="estimator"):
        RoundsOnValidation(object()).fit(X, y)
    with pytest.raises(ValueError, match="val_size"):
        RoundsOnValidation(REBELClassifier(n_estimators=3), val_size=1.5).fit(X, y)


# ----- the experiment key `rounds_on_validation` (csrepro.config, csrepro.runner) -------------------------------
def _config(root, methods_cfg, datasets=("sk_wine",)):
    exp = {"name": "t_rounds", "paper": "p", "datasets": list(datasets), "n_trials": 1,
           "protocol": {"name": "holdout", "test_size": 0.25}, "cost": {"kind": "rebel_random"},
           "methods": methods_cfg, "metrics": ["error", "risk"]}
    return {"exp": exp, "runner": {"progress": False}, "results": {"root": str(root)}}


def test_entries_without_the_key_keep_their_params_json():
    from csrepro.config import method_entries

    plain, = method_entries({"rebel": {"n_estimators": 20}})
    assert plain.params_json == '{"n_estimators":20}' and plain.rounds is None
    chosen, = method_entries({"rebel": {"n_estimators": 20, "rounds_on_validation": {"criterion": "cost"}}})
    assert chosen.rounds == {"val_size": 0.3333, "criterion": "cost"}
    assert chosen.params == {"n_estimators": 20}
    assert '"rounds_on_validation":{"criterion":"cost","val_size":0.3333}' in chosen.params_json


@pytest.mark.parametrize("value, message", [
    ({"val_size": 1.5}, "rounds_on_validation.val_size must be a fraction"),
    ({"criterion": "loss"}, "rounds_on_validation.criterion must be 'error' or 'cost'"),
    ({"folds": 3}, "rounds_on_validation must be"),
])
def test_bad_key_values_are_config_errors(value, message):
    from csrepro.config import ConfigError, method_entries

    with pytest.raises(ConfigError, match=message):
        method_entries({"rebel": {"rounds_on_validation": value}})


def test_a_method_without_staged_predict_is_a_one_line_config_error(tmp_path):
    from csrepro.config import ConfigError, validate_config
    from csrepro.scoring import METRICS

    cfg = _config(tmp_path, {"svm": {"rounds_on_validation": {"val_size": 0.3}}}, datasets=("sk_breast_cancer",))
    with pytest.raises(ConfigError, match=r"exp.methods.svm.rounds_on_validation: svm \(CostSensitiveSVC\) has no "
                                          r"staged_predict.*remove the key") as err:
        validate_config(cfg, METRICS)
    assert "\n" not in str(err.value)


def test_the_runner_applies_the_key_and_stores_the_chosen_count(tmp_path):
    import json

    from csrepro.runner import run_experiment

    cfg = _config(tmp_path, {"rebel": {"n_estimators": 30, "rounds_on_validation": {"val_size": 0.3333}},
                             "rebel_all": {"method": "rebel", "n_estimators": 30}})
    rows = run_experiment(cfg).set_index("method")
    chosen = json.loads(rows.loc["rebel", "selected"])["n_estimators"]
    assert 1 <= chosen <= 30
    assert "selected" not in rows or not isinstance(rows.loc["rebel_all", "selected"], str)  # no selection
