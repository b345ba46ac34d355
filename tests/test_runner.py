"""run_experiment without Hydra: contract rows, seeds, determinism across backends, resume, failures, checks."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from csrepro import methods, runner, scoring
from csrepro.config import ConfigError, plan_key, validate_config
from csrepro.costs import make_cost_matrix
from csrepro.data.loaders import Dataset, load_dataset
from csrepro.data.protocols import make_splits
from csrepro.seeding import derive_seed
from csrepro.store import PLAN_COLUMNS, plan_path, read_plan, read_store
from csrepro.trials import plan_trials

# Any method ids of the registry that fit in milliseconds; the tests do not depend on which.
METHODS = {"mcboost": {"n_estimators": 3}, "gll_mcboost": {"n_estimators": 3}}
DATASETS = ["sk_iris", "sk_wine"]  # bundled with scikit-learn: no data directory needed
CONTRACT_COLUMNS = ["trial_id", "config_hash", "exp", "paper", "dataset", "trial", "split_seed", "cost_seed",
                    "model_seed", "method", "params", "risk", "error", "fit_seconds", "predict_seconds", "n_train",
                    "n_test", "n_classes", "versions", "git_commit", "finished_at"]
VOLATILE = ["finished_at", "fit_seconds", "predict_seconds"]


def config(root, runner_=None, **exp):
    base = {"name": "t", "paper": "p", "datasets": DATASETS, "n_trials": 2,
            "protocol": {"name": "holdout", "test_size": 0.3},
            "cost": {"kind": "random_symmetric", "low": 1, "high": 10},
            "preprocessing": {"standardize": True}, "methods": METHODS, "metrics": ["risk", "error"]}
    return {"exp": {**base, **exp}, "runner": {"progress": False, **(runner_ or {})}, "results": {"root": str(root)}}


def stable(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.drop(columns=VOLATILE).sort_values("trial_id").reset_index(drop=True)


def clear_worker_caches():
    runner._dataset.cache_clear()
    runner._splits.cache_clear()


@pytest.fixture(autouse=True)
def fresh_caches():
    clear_worker_caches()
    yield
    clear_worker_caches()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Rows of a 3-trial experiment run sequentially in this process."""
    clear_worker_caches()
    return runner.run_experiment(config(tmp_path_factory.mktemp("ref"), n_trials=3))


@pytest.fixture
def count_fits(monkeypatch):
    """Methods of the trials fitted by the runner (in-process runs only)."""
    fitted = []
    real = runner.fit_and_score

    def counting(trial, *args, **kwargs):
        fitted.append(trial.method)
        return real(trial, *args, **kwargs)

    monkeypatch.setattr(runner, "fit_and_score", counting)
    return fitted


def test_rows_follow_the_contract_and_recompute_by_hand(tmp_path):
    rows = runner.run_experiment(config(tmp_path, metrics=["risk", "error", "gmean", "confusion_norm", "mauc"]))
    assert set(CONTRACT_COLUMNS) <= set(rows.columns) and {"gmean", "confusion_norm", "mauc"} <= set(rows.columns)
    assert len(rows) == len(DATASETS) * 2 * len(METHODS) and rows["trial_id"].is_unique
    for r in rows.itertuples():
        assert r.split_seed == derive_seed("t", r.dataset, r.trial, "split")
        assert r.cost_seed == derive_seed("t", r.dataset, r.trial, "cost")
        assert r.model_seed == derive_seed("t", r.dataset, r.trial, r.method, "model")
        assert json.loads(r.params) == METHODS[r.method]
    assert (rows.groupby(["dataset", "trial"])[["split_seed", "cost_seed", "n_train"]].nunique() == 1).all().all()
    assert (rows["mauc"].between(0, 1) & rows["gmean"].between(0, 1) & rows["error"].between(0, 1)).all()

    r = rows[(rows["dataset"] == "sk_wine") & (rows["trial"] == 1)].iloc[0]
    data = load_dataset("sk_wine")
    classes = np.unique(data.y)
    train, test = make_splits(data.y, "holdout", random_state=r.split_seed, test_size=0.3)[0]
    mean, std = data.X[train].mean(axis=0), data.X[train].std(axis=0)
    C = make_cost_matrix("random_symmetric", len(classes), random_state=r.cost_seed, low=1, high=10)
    est = methods.make_estimator(r.method, cost_matrix=C, random_state=r.model_seed, **METHODS[r.method])
    est.fit((data.X[train] - mean) / std, data.y[train])
    pred = np.searchsorted(classes, est.predict((data.X[test] - mean) / std))
    true = np.searchsorted(classes, data.y[test])
    assert (r.n_train, r.n_test, r.n_classes) == (len(train), len(test), 3)
    assert r.risk == pytest.approx(C[true, pred].mean()) and r.error == pytest.approx(np.mean(true != pred))


def test_same_numbers_for_any_n_jobs(tmp_path, reference):
    rows = runner.run_experiment(config(tmp_path, {"n_jobs": 2}, n_trials=3))
    pd.testing.assert_frame_equal(stable(rows), stable(reference))


def test_dask_backend_gives_the_loky_rows(tmp_path, reference):
    pytest.importorskip("dask.distributed", reason="dask/distributed (dev extra) not installed")
    cluster = {"n_workers": 1, "threads_per_worker": 2, "processes": False, "dashboard_address": None}
    rows = runner.run_experiment(config(tmp_path, {"backend": "dask", "n_jobs": -1,
                                                   "dask": {"local_cluster": cluster}}, n_trials=3))
    pd.testing.assert_frame_equal(stable(rows), stable(reference))


def test_resume_skips_finished_trials_and_growing_reuses_them(tmp_path, count_fits):
    first = runner.run_experiment(config(tmp_path, n_trials=1, datasets=["sk_iris"]))
    assert len(count_fits) == 2
    grown = runner.run_experiment(config(tmp_path, n_trials=2))
    assert len(count_fits) == 2 + 6 and len(grown) == 8
    kept = grown.set_index("trial_id").loc[first["trial_id"]]
    assert list(kept["finished_at"]) == list(first["finished_at"])
    again = runner.run_experiment(config(tmp_path, n_trials=2))
    assert len(count_fits) == 8
    pd.testing.assert_frame_equal(again, grown)
    info = json.loads((tmp_path / "t" / "run_info.json").read_text())
    assert (info["trials"], info["resumed"], info["ran"], info["failed"]) == (8, 8, 0, 0)


def test_resume_false_recomputes_without_duplicates(tmp_path, count_fits):
    first = runner.run_experiment(config(tmp_path, n_trials=1))
    again = runner.run_experiment(config(tmp_path, {"resume": False}, n_trials=1))
    assert len(count_fits) == 8
    assert (again["finished_at"].to_numpy() > first["finished_at"].to_numpy()).all()
    pd.testing.assert_frame_equal(stable(again), stable(first))
    assert len(read_store(tmp_path / "t")) == 4


def test_config_hash_covers_only_settings_that_change_numbers(tmp_path):
    def ids(cfg):
        planned = plan_trials(validate_config(cfg, scoring.METRICS).exp)[1]
        return {(t.dataset, t.trial, t.method): t.trial_id for t in planned}

    base = ids(config(tmp_path))
    grown = ids(config(tmp_path, {"n_jobs": 4, "resume": False}, n_trials=3, datasets=DATASETS + ["sk_digits"],
                       methods={**METHODS, "ls_mcboost": {}}))
    assert all(grown[k] == v for k, v in base.items())
    for changed in [{"cost": {"kind": "random_symmetric", "low": 1, "high": 5}},
                    {"protocol": {"name": "holdout", "test_size": 0.25}},
                    {"preprocessing": {"standardize": False}}, {"metrics": ["risk"]}, {"name": "u"}]:
        assert set(ids(config(tmp_path, **changed)).values()).isdisjoint(base.values()), changed
    tweaked = ids(config(tmp_path, methods={**METHODS, "mcboost": {"n_estimators": 4}}))
    assert [k for k in base if tweaked[k] != base[k]] == [k for k in base if k[2] == "mcboost"]


def test_the_plan_is_recorded_before_any_trial_runs(tmp_path, monkeypatch):
    """The run records its planned trial keys (and, given ``full``, the full config's) in the store
    before the first trial; a rerun of the same settings rewrites the same plan file."""
    recorded = []

    def no_trials(task, context):
        recorded.append(read_plan(tmp_path / "t"))
        raise RuntimeError("stop after the plan")

    monkeypatch.setattr(runner, "run_task", no_trials)
    reduced, full = config(tmp_path, n_trials=1, datasets=["sk_iris"]), config(tmp_path)
    with pytest.raises(RuntimeError, match="stop after the plan"):
        runner.run_experiment(reduced, full=full)
    keys, plan = recorded[0]
    want = {name: validate_config(c, scoring.METRICS).exp for name, c in (("reduced", reduced), ("full", full))}
    assert keys == {plan_key(exp) for exp in want.values()}
    trials = plan_trials(want["full"])[1]
    assert len(plan) == len(trials) == 8 and list(plan.columns) == list(PLAN_COLUMNS)
    assert sorted(zip(plan["trial_id"], plan["config_hash"], plan["dataset"], plan["trial"], plan["method"],
                      plan["params"])) == sorted((t.trial_id, t.config_hash, t.dataset, t.trial, t.method,
                                                  t.params_json) for t in trials)
    reduced_file = pd.read_parquet(plan_path(tmp_path / "t", plan_key(want["reduced"])))
    assert sorted(reduced_file["trial_id"]) == sorted(t.trial_id for t in plan_trials(want["reduced"])[1])
    monkeypatch.undo()
    runner.run_experiment(full)
    runner.run_experiment(full)
    assert read_plan(tmp_path / "t")[0] == keys and len(list((tmp_path / "t" / "store").glob("plan-*"))) == 2


def fake_data(name, train_labels, test_labels):
    y = np.array(train_labels + test_labels)
    X = np.random.default_rng(0).normal(size=(len(y), 2)) + (y == "b")[:, None]
    mask = np.array([False] * len(train_labels) + [True] * len(test_labels))
    return Dataset(name, X, y, ["x0", "x1"], mask)


def test_failed_trials_are_recorded_then_retried(tmp_path, monkeypatch):
    data = {"sk_iris": fake_data("sk_iris", ["a"] * 6, ["a", "b"]),                       # one training class
            "sk_wine": fake_data("sk_wine", ["a", "b"] * 4, ["a", "b", "c", "c"])}     # test class unseen in training
    monkeypatch.setattr(runner, "load_dataset", lambda name, **kw: data[name])
    cfg = config(tmp_path, n_trials=1, protocol={"name": "predefined"})
    rows = runner.run_experiment(cfg)
    assert list(rows["dataset"].unique()) == ["sk_wine"] and (rows["n_classes"] == 3).all()
    failures = pd.read_csv(tmp_path / "t" / runner.FAILURES)
    assert sorted(failures["method"]) == sorted(METHODS) and (failures["dataset"] == "sk_iris").all()
    assert failures["error"].str.len().gt(0).all() and failures["traceback"].str.contains("fit").all()
    assert json.loads((tmp_path / "t" / "run_info.json").read_text())["failed"] == len(METHODS)

    data["sk_iris"] = fake_data("sk_iris", ["a", "b"] * 3, ["a", "b"])
    clear_worker_caches()
    rows = runner.run_experiment(cfg)
    assert len(rows) == 2 * len(METHODS) and not (tmp_path / "t" / runner.FAILURES).exists()


def test_kfold_trials_enumerate_repeat_and_fold(tmp_path):
    kfold = {"name": "kfold", "n_splits": 3}
    rows = runner.run_experiment(config(tmp_path, datasets=["sk_iris"], n_trials=6, protocol=kfold,
                                        methods={"mcboost": {"n_estimators": 1}}))
    assert list(rows["split_index"]) == [0, 1, 2, 0, 1, 2]
    assert list(rows["split_seed"]) == [derive_seed("t", "sk_iris", t // 3, "split") for t in range(6)]
    assert rows[rows["trial"] < 3]["n_test"].sum() == 150 and (rows["n_train"] + rows["n_test"] == 150).all()


def test_per_dataset_overrides(tmp_path):
    rows = runner.run_experiment(config(tmp_path, n_trials=1, per_dataset={
        "sk_iris": {"protocol": {"test_count": 30}},
        "sk_wine": {"cost": {"kind": "zero_one"}},
        "sk_digits": {"protocol": {"name": "nope"}}}))  # not in exp.datasets: unused
    n_test = rows.groupby("dataset")["n_test"].first()
    assert n_test["sk_iris"] == 30 and n_test["sk_wine"] == math.ceil(0.3 * 178)
    wine = rows[rows["dataset"] == "sk_wine"]
    assert np.allclose(wine["risk"], wine["error"])


def test_class_frequency_costs_count_each_training_part(tmp_path):
    """cost {kind: class_frequency, counts: train}: C from the training labels of each trial (Koco & Capponi eq. 6)."""
    rows = runner.run_experiment(config(tmp_path, n_trials=1, cost={"kind": "class_frequency", "counts": "train"}))
    r = rows[rows["dataset"] == "sk_wine"].iloc[0]
    data = load_dataset("sk_wine")
    classes = np.unique(data.y)
    train, test = make_splits(data.y, "holdout", random_state=r.split_seed, test_size=0.3)[0]
    mean, std = data.X[train].mean(axis=0), data.X[train].std(axis=0)
    C = make_cost_matrix("class_frequency", 3, class_counts=np.bincount(np.searchsorted(classes, data.y[train])))
    est = methods.make_estimator(r.method, cost_matrix=C, random_state=r.model_seed, **METHODS[r.method])
    est.fit((data.X[train] - mean) / std, data.y[train])
    pred = np.searchsorted(classes, est.predict((data.X[test] - mean) / std))
    true = np.searchsorted(classes, data.y[test])
    assert r.risk == pytest.approx(C[true, pred].mean()) and not np.allclose(C, 1 - np.eye(3))
    with pytest.raises(ConfigError, match="counts='test' is not valid; use counts: train"):
        runner.run_experiment(config(tmp_path / "bad", cost={"kind": "class_frequency", "counts": "test"}))
    with pytest.raises(ConfigError, match="set `counts: train`"):
        runner.run_experiment(config(tmp_path / "bad", cost={"kind": "class_frequency"}))


@pytest.mark.parametrize("change, expected", [
    ({"n_trial": 5}, ["'exp.n_trial'", "n_trials"]),
    ({"datasets": ["sk_iris", "nope"]}, ["unknown dataset(s) ['nope']", "sk_wine"]),
    ({"methods": {"nope": {}}}, ["unknown ['nope']", "gll_mcboost"]),
    ({"methods": {"mcboost": {"n_estimatorz": 3}}}, ["n_estimatorz", "n_estimators"]),
    ({"metrics": ["risk", "auc"]}, ["unknown ['auc']", "mauc"]),
    ({"cost": {"kind": "nope"}}, ["kind='nope'", "random_symmetric"]),
    ({"cost": {"kind": "random_symmetric", "lo": 1}}, ["'lo'", "low"]),
    ({"protocol": {"name": "nope"}}, ["name='nope'", "kfold"]),
    ({"protocol": {"name": "holdout", "test_sise": 0.3}}, ["test_sise", "test_size"]),
    ({"per_dataset": {"sk_iriss": {"protocol": {"test_size": 3}}}}, ["unknown dataset(s) ['sk_iriss']", "sk_iris"]),
    ({"preprocessing": {"standardise": True}}, ["standardise", "standardize"]),
    ({"per_dataset": {"sk_iris": {"protocl": {}}}}, ["exp.per_dataset.sk_iris has no 'protocl'", "'protocol'"]),
    ({"n_trials": 0}, [">= 1"]),
    ({"name": "???"}, ["+exp=<name>", "smoke"]),
])
def test_config_errors_fail_before_any_work_listing_choices(tmp_path, change, expected):
    with pytest.raises(ConfigError) as err:
        runner.run_experiment(config(tmp_path, **change))
    for text in expected:
        assert text in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_runner_setting_errors(tmp_path):
    with pytest.raises(ConfigError, match=r"'ray'.*\['loky', 'dask'\]"):
        runner.run_experiment(config(tmp_path, {"backend": "ray"}))
    with pytest.raises(ConfigError, match="runner has no 'n_job'"):
        runner.run_experiment(config(tmp_path, {"n_job": 2}))


def test_standardize_uses_training_statistics_and_keeps_constant_features():
    X_train = np.array([[1.0, 5.0], [3.0, 5.0]])
    X_test = np.array([[2.0, 7.0], [5.0, 5.0]])
    Z_train, Z_test = runner.standardize(X_train, X_test)
    np.testing.assert_allclose(Z_train, [[-1.0, 0.0], [1.0, 0.0]])
    np.testing.assert_allclose(Z_test, [[0.0, 2.0], [3.0, 0.0]])


def test_work_is_dealt_by_trial_index_then_dataset(tmp_path):
    """Every prefix of the work holds the datasets in turn, so the progress rate (and ETA) is representative."""
    rows = runner.run_experiment(config(tmp_path, n_trials=3, methods={"mcboost": {"n_estimators": 1}}))
    done = rows.sort_values("finished_at")
    assert list(zip(done["trial"], done["dataset"])) == [(t, d) for t in range(3) for d in DATASETS]


def test_strict_run_raises_after_writing_everything(tmp_path, monkeypatch):
    data = {"sk_iris": fake_data("sk_iris", ["a"] * 6, ["a", "b"]),
            "sk_wine": fake_data("sk_wine", ["a", "b"] * 4, ["a", "b", "c", "c"])}
    monkeypatch.setattr(runner, "load_dataset", lambda name, **kw: data[name])
    with pytest.raises(runner.TrialsFailed, match=r"^t: 2 of the 4 trials run failed \(first: sk_iris trial 0 ") as err:
        runner.run_experiment(config(tmp_path, n_trials=1, protocol={"name": "predefined"}), strict=True)
    assert list(err.value.rows["dataset"].unique()) == ["sk_wine"]
    assert json.loads((tmp_path / "t" / "run_info.json").read_text())["failed"] == 2


def test_rerun_without_resume_keeps_the_old_rows_until_new_ones_replace_them(tmp_path, monkeypatch):
    cfg = config(tmp_path, n_trials=1)
    first = runner.run_experiment(cfg)
    monkeypatch.setattr(runner, "fit_and_score", lambda *a, **k: 1 / 0)
    runner.run_experiment({**cfg, "runner": {"progress": False, "resume": False}})
    kept = read_store(tmp_path / "t").sort_values("trial_id", ignore_index=True)
    pd.testing.assert_frame_equal(kept, first.sort_values("trial_id", ignore_index=True))  # all failed: none lost


# ----- parametrised metrics: confusion_<i>_<j>, class_error_<i> (Koço & Capponi 2013, Table 4 and Sec. 5.3) -----
def _predictions(y_true, y_pred, K=3):
    return scoring.Predictions(np.array(y_true), np.array(y_pred), 1 - np.eye(K), None, None, np.arange(K))


def test_parametrised_metric_names_parse():
    table = scoring.METRICS
    assert table.parse("confusion_2_0") == ("confusion", (2, 0))
    assert table.parse("class_error_11") == ("class_error", (11,))
    for bad in ("confusion_0", "confusion_a_b", "confusion_1_2_3", "class_error_", "class_error_-1", "Confusion_1_2",
                "confusion_1_2 ", "class_error_1_pct"):
        assert table.parse(bad) is None and bad not in table
    assert "confusion_0_1" in table and "class_error_0" in table and "gmean" in table
    assert table.classes_needed("confusion_4_1") == 5 and table.classes_needed("class_error_2") == 3
    assert table.classes_needed("gmean") == 0
    with pytest.raises(KeyError):
        table["confusion_0"]
    assert set(table) == set(dict(table))  # iteration: the fixed names only


def test_parametrised_metric_values_by_hand():
    """y_true (0, 0, 0, 0, 1, 1, 2) predicted (0, 1, 1, 2, 1, 0, 2): class 0 has 4 examples, 2 predicted 1 and 1
    predicted 2 -> C_S row 0 = (0, 1/2, 1/4), error 3/4; class 1: one of 2 predicted 0 -> (1/2, 0, 0), error
    1/2; class 2 right -> (0, 0, 0), error 0."""
    p = _predictions([0, 0, 0, 0, 1, 1, 2], [0, 1, 1, 2, 1, 0, 2])
    want = {(0, 1): 0.5, (0, 2): 0.25, (1, 0): 0.5, (1, 2): 0.0, (2, 0): 0.0, (2, 1): 0.0, (0, 0): 0.0}
    for (i, j), value in want.items():
        assert scoring.METRICS[f"confusion_{i}_{j}"](p) == pytest.approx(value)
    for i, value in enumerate([0.75, 0.5, 0.0]):
        assert scoring.METRICS[f"class_error_{i}"](p) == pytest.approx(value)
        row = sum(scoring.METRICS[f"confusion_{i}_{j}"](p) for j in range(3))
        assert row == pytest.approx(value)  # a class's error is its C_S row sum


def test_parametrised_metrics_of_a_class_missing_from_the_test_part_are_nan():
    p = _predictions([0, 0, 1], [0, 2, 1])
    assert math.isnan(scoring.METRICS["confusion_2_0"](p)) and math.isnan(scoring.METRICS["class_error_2"](p))
    assert scoring.METRICS["confusion_0_2"](p) == pytest.approx(0.5)


@pytest.mark.parametrize("metric, expected", [
    ("confusion_0", ["unknown ['confusion_0']", "confusion_<i>_<j>", "class_error_<i>"]),
    ("class_error_x", ["unknown ['class_error_x']", "integer class indices"]),
    ("confusion_3_0", ["confusion_3_0 names class index 3", "'sk_iris' has 3 classes", "0..2"]),
    ("class_error_3", ["class_error_3 names class index 3"]),
])
def test_parametrised_metric_errors_are_one_line(tmp_path, metric, expected):
    with pytest.raises(ConfigError) as err:
        runner.run_experiment(config(tmp_path, metrics=["risk", metric]))
    assert "\n" not in str(err.value)
    for text in expected:
        assert text in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_parametrised_metrics_are_stored(tmp_path):
    """A run with confusion_<i>_<j> and class_error_<i> stores them, equal to the entries of the trial's C_S."""
    metrics_ = ["error", "confusion_0_1", "confusion_2_1", "class_error_1"]
    rows = runner.run_experiment(config(tmp_path, datasets=["sk_iris"], n_trials=1, metrics=metrics_))
    assert set(metrics_) <= set(rows.columns) and len(rows) == 2
    for col in metrics_:
        assert rows[col].between(0, 1).all()


def test_tasks_sharing_a_split_run_as_one_unit():
    """Aliases of one source dataset with the same protocol and trial index (a leaderboard dataset's cost
    families) form one unit, in their order; another trial index, protocol or source is another unit; a run over
    such aliases stores the same rows as runs of each alias alone (caches shared inside a unit change no number)."""
    per = {f"iris_{f}": {"dataset": "sk_iris", "cost": {"kind": kind}} for f, kind in
           (("a", "zero_one"), ("b", "random_symmetric"))}
    per["iris_small"] = {"dataset": "sk_iris", "protocol": {"test_size": 0.5}}
    cfg = validate_config(config("unused", datasets=[*per, "sk_wine"], per_dataset=per), scoring.METRICS)
    plans, trials = plan_trials(cfg.exp)
    units = runner.split_units(sorted(runner.group_tasks(plans, trials), key=lambda task: task.trial))
    assert [[(task.plan.dataset, task.trial) for task in unit] for unit in units] == [
        [("iris_a", 0), ("iris_b", 0)], [("iris_small", 0)], [("sk_wine", 0)],
        [("iris_a", 1), ("iris_b", 1)], [("iris_small", 1)], [("sk_wine", 1)]]


def test_a_unit_stores_what_its_tasks_store_alone(tmp_path):
    per = {f"iris_{f}": {"dataset": "sk_iris", "cost": {"kind": kind}} for f, kind in
           (("a", "zero_one"), ("b", "random_symmetric"))}
    together = runner.run_experiment(config(tmp_path / "u", datasets=list(per), per_dataset=per))
    alone = pd.concat([runner.run_experiment(config(tmp_path / name, datasets=[name], per_dataset=per))
                       for name in per])
    assert len(together) == 2 * 2 * len(METHODS)
    pd.testing.assert_frame_equal(stable(together), stable(alone))
