"""Experiment options for the thesis configs: method aliases and grids, inner-CV selection, dataset aliases,
training-part subsampling (train_size) and training-label contamination (label_noise)."""

import ast
import json
from numbers import Real

import numpy as np
import pytest
from omegaconf import OmegaConf
from sklearn.base import BaseEstimator, ClassifierMixin

from csrepro import config as config_module
from csrepro import methods, runner, scoring
from csrepro.cache import clear_caches
from csrepro.config import ConfigError, method_entries, validate_config
from csrepro.data.loaders import load_dataset
from csrepro.data.protocols import subsample_train
from csrepro.trials import plan_trials

FITTED = []  # (params, y_train) of each Recorder fit in this process


class Recorder(ClassifierMixin, BaseEstimator):
    """Predicts the training majority class and records what it was trained on."""

    # every registered method declares scikit-learn's constraints: the config check runs them
    _parameter_constraints = {"cost_matrix": ["array-like", None], "random_state": ["random_state"],
                              "a": [Real], "best": [Real]}

    def __init__(self, cost_matrix=None, random_state=None, a=1.0, best=1.0):
        self.cost_matrix, self.random_state, self.a, self.best = cost_matrix, random_state, a, best

    def fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        FITTED.append(({"a": self.a}, np.asarray(y).copy()))
        return self

    def predict(self, X):
        # accuracy is best when a == best: predict the majority class then, the other class otherwise
        other = self.classes_[self.classes_ != self.majority_][0]
        return np.full(len(X), self.majority_ if self.a == self.best else other)


@pytest.fixture(autouse=True)
def recorder(monkeypatch):
    monkeypatch.setitem(methods.METHODS, "recorder", methods.MethodSpec(Recorder))
    FITTED.clear()
    runner._dataset.cache_clear()
    runner._splits.cache_clear()
    yield
    runner._dataset.cache_clear()
    runner._splits.cache_clear()


def config(root, **exp):
    base = {"name": "t", "paper": "p", "datasets": ["sk_breast_cancer"], "n_trials": 1,
            "protocol": {"name": "kfold", "n_splits": 5}, "cost": {"kind": "zero_one"},
            "methods": {"recorder": {}}, "metrics": ["error", "errors"]}
    return {"exp": {**base, **exp}, "runner": {"progress": False}, "results": {"root": str(root)}}


def test_grid_expands_to_one_id_per_value_and_aliases_name_their_method():
    entries = method_entries({"rec": {"method": "recorder", "grid": {"a": [0.1, 1.0, 10]}},
                              "mine": {"method": "recorder", "a": 2.0}, "recorder": {"a": 3.0}})
    assert [e.id for e in entries] == ["rec[a=0.1]", "rec[a=1]", "rec[a=10]", "mine", "recorder"]
    assert [e.params for e in entries] == [{"a": 0.1}, {"a": 1.0}, {"a": 10}, {"a": 2.0}, {"a": 3.0}]
    assert {e.method for e in entries} == {"recorder"} and entries[0].key == "rec" and entries[1].grid == {"a": 1.0}
    # a plain entry's trial key holds just its params (existing experiments keep their trial ids)
    assert entries[-1].params_json == '{"a":3.0}'
    assert json.loads(entries[0].params_json) == {"a": 0.1, "method": "recorder"}
    two = method_entries({"r": {"method": "recorder", "grid": {"a": [1, 2], "best": [0.5]}}})
    assert [e.id for e in two] == ["r[a=1,best=0.5]", "r[a=2,best=0.5]"]


@pytest.mark.parametrize("methods_cfg, expected", [
    ({"nope": {}}, ["unknown ['nope']", "`method: <registry id>`", "recorder"]),
    ({"x": {"method": "nope"}}, ["unknown ['nope']", "recorder"]),
    ({"x": {"method": "recorder", "grid": {"a": []}}}, ["x.grid", "non-empty lists"]),
    ({"x": {"method": "recorder", "a": 1, "grid": {"a": [1, 2]}}}, ["['a'] given both"]),
    ({"x": {"method": "recorder", "grid": {"a": [1]}}, "x[a=1]": {"method": "recorder"}}, ["'[' or ']'"]),
    ({"x": {"method": "recorder", "inner_cv": {"param": "a"}}}, ["x.inner_cv must be"]),
    ({"x": {"method": "recorder", "inner_cv": {"param": "a", "values": [1], "folds": 1}}}, ["folds must be an int >= 2"]),
    ({"x": {"method": "recorder", "a": 1, "inner_cv": {"param": "a", "values": [1]}}}, ["both fixed"]),
])
def test_method_entry_errors(methods_cfg, expected):
    with pytest.raises(ConfigError) as err:
        method_entries(methods_cfg)
    for text in expected:
        assert text in str(err.value)


def test_config_checks_grid_params_and_inner_cv_param(tmp_path):
    with pytest.raises(ConfigError, match=r"exp.methods.x: unknown parameter\(s\) \['b'\]"):
        validate_config(config(tmp_path, methods={"x": {"method": "recorder", "grid": {"b": [1]}}}), scoring.METRICS)
    with pytest.raises(ConfigError, match=r"x.inner_cv.param: recorder has no parameter 'c'"):
        validate_config(config(tmp_path, methods={"x": {"method": "recorder", "inner_cv": {"param": "c", "values": [1]}}}),
                        scoring.METRICS)


def test_a_method_check_that_passed_is_not_run_again_and_one_that_failed_is(tmp_path, monkeypatch):
    """validate_config keeps the method checks that passed (config.PASSED_METHOD_CHECKS): a second validation of
    the same entries runs none; a changed entry, a re-registered method or a failed check runs again."""
    calls = []

    def counted(entry, C, dataset, n_classes):
        calls.append(entry.id)
        return check(entry, C, dataset, n_classes)

    check = config_module._check_method
    monkeypatch.setattr(config_module, "_check_method", counted)
    clear_caches("method_checks")
    good = config(tmp_path, methods={"recorder": {}, "y": {"method": "recorder", "a": 2.0}})
    validate_config(good, scoring.METRICS)
    assert sorted(calls) == ["recorder", "y"]
    validate_config(good, scoring.METRICS)
    assert len(calls) == 2
    validate_config(config(tmp_path, methods={"y": {"method": "recorder", "a": 3.0}}), scoring.METRICS)
    assert calls[2:] == ["y"]
    monkeypatch.setitem(methods.METHODS, "recorder", methods.MethodSpec(Recorder, {"best": 2.0}))
    validate_config(good, scoring.METRICS)
    assert sorted(calls[3:]) == ["recorder", "y"]
    bad = config(tmp_path, methods={"x": {"method": "recorder", "a": "high"}})
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"exp.methods.x"):
            validate_config(bad, scoring.METRICS)
    assert calls[5:] == ["x", "x"]
    # a plan read but not run (build_methods=False) builds no estimator, and still checks the rest
    clear_caches("method_checks")
    validate_config(bad, scoring.METRICS, build_methods=False)
    assert calls[7:] == []
    with pytest.raises(ConfigError, match=r"n_trials must be >= 1"):
        validate_config(config(tmp_path, methods={"recorder": {}}, n_trials=0), scoring.METRICS, build_methods=False)


def test_config_names_only_the_misspelt_keyword_of_a_factory_method(tmp_path):
    """A ``_dr`` id passes keywords on to its booster: a typo among them is the only one named, and the
    valid list holds the names it takes (not ``estimator__n_estimators``, nor the runner's cost_matrix)."""
    cfg = config(tmp_path, methods={"x": {"method": "cs_adaboost_dr", "n_estimators": 3, "weak_learner": "stump",
                                          "n_estimator": 3}})
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, scoring.METRICS)
    text = str(err.value)
    assert "exp.methods.x: unknown parameter(s) ['n_estimator']; valid: " in text
    valid = ast.literal_eval(text.split("valid: ")[1])
    assert {"n_estimators", "weak_learner", "C1", "target_detection_rate", "param_grid"} <= set(valid)
    assert not {"estimator__n_estimators", "cost_matrix", "random_state", "estimator"} & set(valid)


def test_grid_members_and_inner_cv_run_through_the_runner(tmp_path):
    cv = {"param": "a", "values": [0.5, 2.0, 3.0], "folds": 3}
    rows = runner.run_experiment(config(tmp_path, methods={
        "rec": {"method": "recorder", "best": 2.0, "grid": {"a": [0.5, 2.0]}},
        "rec_cv": {"method": "recorder", "best": 2.0, "inner_cv": cv}}))
    by = rows.set_index("method")
    assert list(by.index) == ["rec[a=0.5]", "rec[a=2]", "rec_cv"]
    assert by.loc["rec[a=2]", "error"] < by.loc["rec[a=0.5]", "error"]
    assert json.loads(by.loc["rec_cv", "selected"]) == {"a": 2.0}  # chosen on the training part only
    assert by.loc["rec_cv", "error"] == by.loc["rec[a=2]", "error"]
    assert json.loads(by.loc["rec_cv", "params"]) == {"best": 2.0, "method": "recorder", "inner_cv": cv}
    n_train = by.loc["rec_cv", "n_train"]
    inner = [len(y) for p, y in FITTED if len(y) < n_train]
    assert len(inner) == 3 * 3 and sum(inner) == 2 * 3 * n_train  # 3 values x 3 folds, each row trained twice per value
    assert by["model_seed"].is_unique


def test_dataset_alias_label_noise_flips_training_labels_only(tmp_path):
    per = {"bc_o40": {"dataset": "sk_breast_cancer", "protocol": {"label_noise": 0.4}}}
    rows = runner.run_experiment(config(tmp_path, datasets=["sk_breast_cancer", "bc_o40"], per_dataset=per,
                                        protocol={"name": "holdout", "test_size": 0.5}))
    clean, noisy = rows.set_index("dataset").loc[["sk_breast_cancer", "bc_o40"], "split_seed"]
    assert clean == noisy  # aliases share the registry dataset's splits
    data = load_dataset("sk_breast_cancer")
    (_, y_clean), (_, y_noisy) = FITTED
    assert len(y_clean) == len(y_noisy) == rows["n_train"].iloc[0]
    assert np.mean(y_clean != y_noisy) == pytest.approx(0.4, abs=1 / len(y_clean))
    assert rows["n_test"].tolist() == [len(data.y) - len(y_clean)] * 2
    with pytest.raises(ConfigError, match="label_noise must be a fraction"):
        validate_config(config(tmp_path, protocol={"name": "kfold", "label_noise": 1.5}), scoring.METRICS)


def test_label_noise_draw_any_redraws_the_same_rows(tmp_path):
    """``protocol.label_noise_draw: any`` re-draws the chosen training labels over both classes: the rows the
    default flips (the same alias, trial and seed), of which about half keep their label; the same splits."""
    def fit(noise, draw):
        per = {"bc_o40": {"dataset": "sk_breast_cancer", "protocol": {"label_noise": noise, "label_noise_draw": draw}}}
        rows = runner.run_experiment(config(tmp_path / f"{noise}{draw}", datasets=["bc_o40"], per_dataset=per,
                                            protocol={"name": "holdout", "test_size": 0.5}))
        return rows["split_seed"].iloc[0], FITTED[-1][1]

    (seed, clean), (seed_o, flipped), (seed_a, redrawn) = fit(0.0, "other"), fit(0.4, "other"), fit(0.4, "any")
    assert seed == seed_o == seed_a and len(clean) == len(flipped) == len(redrawn)
    chosen = flipped != clean
    assert chosen.sum() == round(0.4 * len(clean))
    assert not (redrawn != clean)[~chosen].any()  # only the chosen rows can change
    assert 0.3 < (redrawn != clean)[chosen].mean() < 0.7  # about half of them do (114 rows: SD 0.05)
    with pytest.raises(ConfigError, match=r"label_noise_draw\): 'flip' is not valid; choose one of \['other', 'any'\]"):
        validate_config(config(tmp_path, protocol={"name": "kfold", "label_noise": 0.1, "label_noise_draw": "flip"}),
                        scoring.METRICS)


def test_dataset_alias_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"unknown dataset\(s\) \['x'\].*alias"):
        validate_config(config(tmp_path, datasets=["x"]), scoring.METRICS)
    with pytest.raises(ConfigError, match="unknown dataset 'nope'"):
        validate_config(config(tmp_path, datasets=["x"], per_dataset={"x": {"dataset": "nope"}}), scoring.METRICS)
    with pytest.raises(ConfigError, match="'sk_iris' is a registry id"):
        validate_config(config(tmp_path, per_dataset={"sk_iris": {"dataset": "sk_wine"}}), scoring.METRICS)


def test_per_dataset_n_trials_runs_a_whole_leave_one_out_pass(tmp_path):
    """``per_dataset.<id>.n_trials`` with a loo protocol: every example tested once; one trial more is an error."""
    per = {"iris_loo": {"dataset": "sk_iris", "protocol": {"name": "loo"}, "n_trials": 150}}
    rows = runner.run_experiment(config(tmp_path, datasets=["sk_iris", "iris_loo"], per_dataset=per))
    loo = rows[rows["dataset"] == "iris_loo"]
    assert len(loo) == 150 and set(loo["n_test"]) == {1} and set(loo["n_train"]) == {149}
    assert (rows["dataset"] == "sk_iris").sum() == 1  # exp.n_trials for the others
    assert loo["errors"].sum() == 150  # the majority of 149 rows is never the left-out example's class
    with pytest.raises(ConfigError, match=r"per_dataset.iris_loo.n_trials must be >= 1"):
        validate_config(config(tmp_path, datasets=["iris_loo"], per_dataset={"iris_loo": {**per["iris_loo"], "n_trials": 0}}),
                        scoring.METRICS)
    per["iris_loo"]["n_trials"] = 151
    with pytest.raises(ValueError, match=r"leave-one-out has only 150 splits.*n_trials\) to 150"):
        runner.run_experiment(config(tmp_path / "more", datasets=["iris_loo"], per_dataset=per))


def test_train_size_subsamples_training_parts_per_trial(tmp_path):
    per = {"bc_half": {"dataset": "sk_breast_cancer", "protocol": {"train_size": 0.5}},
           "bc_10": {"dataset": "sk_breast_cancer", "protocol": {"train_size": 10}}}
    rows = runner.run_experiment(config(tmp_path, datasets=["sk_breast_cancer", "bc_half", "bc_10"], per_dataset=per,
                                        n_trials=2))
    n = rows.pivot(index="trial", columns="dataset", values="n_train")
    assert (n["bc_10"] == 20).all() and (abs(n["bc_half"] - n["sk_breast_cancer"] / 2) <= 1).all()
    assert (rows.groupby("trial")["n_test"].nunique() == 1).all()  # test parts untouched
    plans = plan_trials(validate_config(config(tmp_path, datasets=["bc_10"], per_dataset=per), scoring.METRICS).exp)[0]
    assert plans["bc_10"].source == "sk_breast_cancer" and plans["bc_10"].protocol["train_size"] == 10


def test_subsample_train_is_stratified_and_checks_sizes():
    y = np.array([0] * 30 + [1] * 10)
    train = np.arange(0, 40, 1)
    half = subsample_train(y, train, 0.5, random_state=0)
    assert np.bincount(y[half]).tolist() == [15, 5] and np.all(np.diff(half) > 0)
    five = subsample_train(y, train, 5, random_state=1)
    assert np.bincount(y[five]).tolist() == [5, 5]
    assert not np.array_equal(five, subsample_train(y, train, 5, random_state=2))
    with pytest.raises(ValueError, match=r"fewer of class\(es\) \[1\]"):
        subsample_train(y, train, 11)
    with pytest.raises(ValueError, match="fraction in"):
        subsample_train(y, train, 1.5)


def test_thesis_dataset_variants_have_the_thesis_sizes():
    """Sec. III.G.3: ADULT 30162 (7508 +) / 15060 (3700 +); LETTER 4000 / 16000; Sec. III.G.1: 10000 test rows."""
    def counts(name):
        d = load_dataset(name)
        return [np.unique(d.y[part], return_counts=True)[1].tolist() for part in (~d.predefined_test, d.predefined_test)]

    try:
        adult = counts("adult")
    except FileNotFoundError:
        pytest.skip("data mirror not found")
    assert adult == [[22654, 7508], [11360, 3700]]
    p1, p2 = counts("letter_p1"), counts("letter_p2")
    assert p1 == [[3851, 149], [15396, 604]]  # 753 letters O in the 20000 rows; the first 4000 rows train
    assert p2 == [[2055, 1945], [7885, 8115]]  # A-M: 9940, N-Z: 10060
    gauss = load_dataset("two_gaussians")
    assert counts("two_gaussians") == [[50000, 50000], [5000, 5000]]
    assert set(np.unique(gauss.y)) == {-1, 1}
    test_mean = gauss.X[gauss.predefined_test & (gauss.y == 1)].mean(axis=0)
    np.testing.assert_allclose(test_mean, [0.7416, 0.7416], atol=0.05)


def test_grid_config_from_yaml_text_keeps_float_ids():
    cfg = OmegaConf.create("m: {method: recorder, grid: {a: [0.1, 0.2, 1.0, 2.0, 10.0]}}")
    assert [e.id for e in method_entries(cfg)] == ["m[a=0.1]", "m[a=0.2]", "m[a=1]", "m[a=2]", "m[a=10]"]


def test_group_kfold_keeps_groups_in_one_fold():
    from csrepro.data.protocols import make_splits

    y = np.array([0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1])
    groups = np.array([1, 1, 2, 3, 3, 4, 5, 5, 6, 6, 7, 8])
    splits = make_splits(y, "group_kfold", random_state=0, groups=groups, n_splits=3)
    assert sorted(np.concatenate([te for _, te in splits]).tolist()) == list(range(12))
    assert all(not set(groups[tr]) & set(groups[te]) for tr, te in splits)
    with pytest.raises(ValueError, match="needs one group id per row"):
        make_splits(y, "group_kfold", random_state=0, n_splits=3)


def test_per_dataset_method_params_reach_that_dataset_only(tmp_path):
    """``per_dataset.<id>.method_params`` are merged into every method's params for that dataset (new trial ids
    there, unchanged ones elsewhere), and false positives / misses count the detector's detected class."""
    methods_cfg = {"ada": {"method": "adaboost_platt_dr", "n_estimators": 5, "cv": 3}}
    per = {"breast_minority": {"dataset": "sk_breast_cancer", "method_params": {"positive": "minority"}}}
    cfg = config(tmp_path, datasets=["sk_breast_cancer", "breast_minority"], per_dataset=per,
                 methods=methods_cfg, metrics=["errors", "false_positives", "misses"])
    plain = validate_config(config(tmp_path, methods=methods_cfg, metrics=["errors", "false_positives", "misses"]),
                            scoring.METRICS)
    _, trials = plan_trials(validate_config(cfg, scoring.METRICS).exp)
    params = {t.dataset: json.loads(t.params_json) for t in trials}
    assert params["breast_minority"]["positive"] == "minority" and "positive" not in params["sk_breast_cancer"]
    assert trials[0].trial_id == plan_trials(plain.exp)[1][0].trial_id
    rows = runner.run_experiment(cfg).set_index("dataset")
    # sk_breast_cancer: class 0 (malignant) is the minority, class 1 = classes_[1]
    labels = load_dataset("sk_breast_cancer").y
    share = np.array([np.mean(labels == c) for c in np.unique(labels)])
    assert share[0] < share[1]
    n_test = rows["n_test"]
    for name in rows.index:
        assert rows.loc[name, "errors"] == rows.loc[name, "false_positives"] + rows.loc[name, "misses"]
    # misses are counted on the detected class: fewer than half of its test examples, for either choice
    assert rows.loc["breast_minority", "misses"] <= 0.5 * share[0] * n_test["breast_minority"]
    assert rows.loc["sk_breast_cancer", "misses"] <= 0.5 * share[1] * n_test["sk_breast_cancer"]
    typo = {"breast_minority": {**per["breast_minority"], "method_params": {"positve": "minority"}}}
    with pytest.raises(ConfigError, match=r"unknown parameter\(s\) .*'positve'.*per_dataset.breast_minority.method_params"):
        validate_config(config(tmp_path, datasets=["breast_minority"], methods=methods_cfg, per_dataset=typo),
                        scoring.METRICS)
