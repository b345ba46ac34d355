"""Reduced-scale run of the leaderboard (conf/exp/leaderboard.yaml) through the real runner and report: every
method on four small problems (two datasets under two cost families each), two splits each, every cap of the rounds
lowered to :data:`CAP` and every patience to :data:`PATIENCE` (the rules are those of the default scale).

It checks the protocol the statistics rely on -- the same split for every method of a problem and for every cost
family of a dataset, one cost matrix per (problem, split) -- the data rule of issue 30 -- the same validation rows
for every method of a split, the choice stored for every method, refitted on the training part, rounds up to the
cap -- and that the report writes the leaderboard's tables and figures with every method ranked.
"""

import functools
import json

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from csrepro.config import compose
from csrepro.report.figures import paper_module

PROBLEMS = ["newthyroid__guess_averse", "newthyroid__zero_one", "balance__frequency", "balance__zero_one"]
N_TRIALS = 2
#: the reduced run's cap of the rounds and patience (the default scale's: 500 and 20, conf/exp/leaderboard.yaml)
CAP, PATIENCE = 10, 3


@functools.cache
def planned():
    """conf/exp/leaderboard.yaml's ``exp`` as composed (not validated: the run validates it)."""
    return compose("leaderboard").exp


def planned_methods():
    return list(planned().methods)


def reduced_rounds() -> list[str]:
    """Overrides lowering the budget every entry interpolates (``exp.vars``): the cap of the rounds to CAP and the
    patience to PATIENCE."""
    return [f"exp.vars.rounds_cap={CAP}", f"exp.vars.patience={PATIENCE}"]


def test_the_cluster_scale_has_the_default_scales_rules():
    """leaderboard_full differs from leaderboard only in its name, its splits and its budget (``vars``): given the
    cluster budget, the default scale composes to the same problems, methods, protocol and statistics."""
    full = compose("leaderboard_full").exp
    budget = OmegaConf.to_container(full.vars)
    overrides = [f"exp.vars.{k}={v}" for k, v in budget.items() if not isinstance(v, dict)]
    overrides += [f"exp.vars.{k}.{d}={f}" for k, v in budget.items() if isinstance(v, dict) for d, f in v.items()]
    small = compose("leaderboard", overrides).exp
    assert (full.n_trials, small.n_trials) == (20, 3)
    assert budget["rounds_cap"] > planned().vars.rounds_cap

    def rules(exp):
        return {k: v for k, v in OmegaConf.to_container(exp, resolve=True).items() if k not in {"name", "n_trials"}}

    assert rules(full) == rules(small)


@pytest.fixture(scope="module")
def run(run_reduced):
    pytest.importorskip("lightgbm")
    pytest.importorskip("xgboost")
    rows, _, exp_dir = run_reduced("leaderboard", [f"exp.n_trials={N_TRIALS}", f"exp.datasets=[{','.join(PROBLEMS)}]",
                                                   *reduced_rounds()], needs=["newthyroid", "balance"])
    return rows, exp_dir / "figures"


def test_every_method_ran_on_every_split(run):
    rows, _ = run
    methods = planned_methods()
    assert len(rows) == len(PROBLEMS) * N_TRIALS * len(methods)
    assert rows["risk"].notna().all() and (rows["risk"] >= 0).all()
    assert set(rows["method"]) == set(methods)


def test_every_method_of_the_leaderboard_has_a_group():
    lb = paper_module("leaderboard")
    assert set(planned_methods()) == set(lb.GROUPS)


def test_splits_are_shared_by_methods_and_cost_families(run):
    rows, _ = run
    rows = rows.assign(source=rows["dataset"].str.partition("__")[0])
    per_split = rows.groupby(["source", "trial"])[["split_seed", "n_train", "n_test"]].nunique()
    assert (per_split == 1).all().all()
    assert rows.groupby(["dataset", "trial"])["cost_seed"].nunique().eq(1).all()


def test_zero_one_cost_is_the_error(run):
    rows, _ = run
    zo = rows[rows["dataset"].str.endswith("__zero_one")]
    np.testing.assert_allclose(zo["risk"], zo["error"])


def test_the_leaderboard_ranks_every_method(run):
    _, figures = run
    board = pd.read_csv(figures / "leaderboard.csv")
    assert set(board["method"]) == set(planned_methods())
    assert (board["n_problems"] == len(PROBLEMS)).all()
    # ranks over the problems average to (M + 1) / 2
    assert board["average_rank"].mean() == pytest.approx((len(board) + 1) / 2)
    reference = planned().report.reference  # named before the run
    assert set(board["reference"]) == {reference} and reference in set(board["method"])
    compared = board[board["method"] != reference]
    assert ((compared["wins"] + compared["ties"] + compared["losses"]) == len(PROBLEMS)).all()
    for name in ("families.csv", "problems.csv", "cost_vs_time.png", f"relative_cost_vs_{reference}.png"):
        assert (figures / name).is_file(), name
    # datasets are the Friedman test's units: two datasets are too few for one (hand-built stores test it)
    assert pd.read_csv(figures / "friedman.csv").empty and not (figures / "cd_diagram.png").exists()
    report = (figures.parent / "REPORT.md").read_text()
    assert f"figures/relative_cost_vs_{reference}.png" in report
    # REPORT.md states the reference from the config, the data rule and the budget (issue 30), no absolute path
    assert f"- **Reference:** `{reference}` (`report.reference`)" in report
    assert "`protocol.selection_seed: trial`" in report and f"`rounds_cap` = {CAP}" in report
    assert str(figures.parent.parent) not in report and "no experiments/leaderboard/published.csv" in report


def test_tuned_boosters_record_their_choice(run):
    rows, _ = run
    chosen = rows[rows["method"] == "rebel"]["selected"].map(json.loads)
    assert all(c["max_depth"] in (1, 2, 4) and 1 <= c["n_estimators"] <= c["n_estimators_cap"] == CAP
               and c["patience"] == PATIENCE for c in chosen)
    budget = planned().vars  # the default scale's, which every early-stopped entry interpolates
    assert (budget.rounds_cap, budget.patience) == (500, 20)
    for method, entry in planned().methods.items():
        for node in (entry, entry.get("model_params") or {}, entry.get("rounds_on_validation") or {}):
            assert node.get("n_estimators", budget.rounds_cap) == budget.rounds_cap, method
            assert node.get("patience", budget.patience) == budget.patience, method


def _chosen(rows):
    assert rows["selected"].notna().all()  # every method of every trial stores its choice (issue 30)
    return rows.assign(chosen=rows["selected"].map(json.loads), source=rows["dataset"].str.partition("__")[0])


def test_every_method_of_a_split_validates_on_the_same_rows(run):
    rows, _ = run
    rows = _chosen(rows)
    seeds = rows.groupby(["source", "trial"])["chosen"].apply(lambda c: {s["selection_seed"] for s in c})
    assert seeds.map(len).eq(1).all()  # one seed per split, shared by every method and cost family
    assert len({next(iter(s)) for s in seeds}) == len(seeds)  # and a different one for each split
    assert (rows.groupby(["dataset", "trial"])["model_seed"].nunique() > 1).all()  # the models keep their own seeds


def test_every_tuned_method_refits_its_choice_on_the_training_part(run):
    rows, _ = run
    rows = _chosen(rows)
    entries = planned().methods
    tuned = [m for m, e in entries.items() if "rounds_on_validation" in e or "refit" in e]
    assert {"rebel", "p_mcboost", "hgb_calibrated", "xgboost_weighted", "logistic"} <= set(tuned)
    for method in tuned:
        chosen = rows[rows["method"] == method]["chosen"]
        assert all(c.get("refit") is True for c in chosen), method
    calibrated = rows[rows["method"] == "hgb_calibrated"]["chosen"]
    assert all(c["calibration"] == "sigmoid" and c["max_depth"] in (1, 2, 4) for c in calibrated)
    ruled = [m for m, e in entries.items() if "max_depth_grid" in (e.get("model_params") or {})]  # rules over HGB
    for method in ruled:  # the probability model's choice, under "model"
        assert all(c["model"]["max_depth"] in (1, 2, 4) and 1 <= c["model"]["n_estimators"] <= CAP
                   for c in rows[rows["method"] == method]["chosen"]), method


def test_the_report_lists_each_methods_search_space_and_cap_share(run):
    _, figures = run
    table = pd.read_csv(figures / "selection.csv").set_index("method")
    assert set(table.index) == set(planned_methods())
    assert table.loc["rebel", "n_candidates"] == 3 * CAP and table.loc["p_mcboost", "n_candidates"] == CAP
    assert table.loc["logistic", "n_candidates"] == 5 and table.loc["partition", "n_candidates"] == 1
    staged = table[table["cap"].notna()]
    assert staged["cap_share"].between(0, 1).all() and (staged["cap"] == CAP).all()
    assert "| `rebel` |" in (figures / "selection.md").read_text()


def test_the_report_lists_each_datasets_size_classes_and_imbalance(run):
    """datasets.csv against the UCI documentation: New-Thyroid 215 rows, 5 features, classes 150 / 35 / 30;
    Balance 625 rows, 4 features, classes 288 / 288 / 49; a 25 % stratified test part, no subsample."""
    _, figures = run
    table = pd.read_csv(figures / "datasets.csv").set_index("dataset")
    assert list(table.index) == ["newthyroid", "balance"]
    assert table.loc["newthyroid", ["rows", "features", "classes"]].tolist() == [215, 5, 3]
    assert table.loc["balance", ["rows", "features", "classes"]].tolist() == [625, 4, 3]
    assert table.loc["newthyroid", "imbalance_ratio"] == 5.0 and table.loc["balance", "imbalance_ratio"] == 5.9
    assert (table["n_train"] + table["n_test"] == table["rows"]).all() and not table["subsampled"].any()
    assert table.loc["balance", "n_train"] == 468 and table.loc["newthyroid", "n_train"] == 161
