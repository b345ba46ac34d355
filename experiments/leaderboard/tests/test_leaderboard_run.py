"""Reduced-scale run of the leaderboard (conf/exp/leaderboard.yaml) through the real runner and report: every
method on five small problems (two datasets under several cost families), two splits each.

It checks the protocol the statistics rely on -- the same split for every method of a problem and for every cost
family of a dataset, one cost matrix per (problem, split) -- and that the report writes the leaderboard's tables
and figures with every method ranked.
"""

import json

import numpy as np
import pandas as pd
import pytest

from csrepro.config import compose
from csrepro.report.figures import paper_module
from csrepro.scoring import METRICS

PROBLEMS = ["newthyroid__guess_averse", "newthyroid__rebel", "newthyroid__zero_one", "balance__frequency",
            "balance__zero_one"]
N_TRIALS = 2


@pytest.fixture(scope="module")
def run(run_reduced):
    pytest.importorskip("lightgbm")
    pytest.importorskip("xgboost")
    rows, _, exp_dir = run_reduced("leaderboard", [f"exp.n_trials={N_TRIALS}", f"exp.datasets=[{','.join(PROBLEMS)}]"],
                                   needs=["newthyroid", "balance"])
    return rows, exp_dir / "figures"


def planned_methods():
    return list(compose("leaderboard", metric_names=METRICS).exp.methods)


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
    # ranks over 5 problems average to (M + 1) / 2
    assert board["average_rank"].mean() == pytest.approx((len(board) + 1) / 2)
    reference = compose("leaderboard", metric_names=METRICS).exp.report.reference  # named before the run
    assert set(board["reference"]) == {reference} and reference in set(board["method"])
    compared = board[board["method"] != reference]
    assert ((compared["wins"] + compared["ties"] + compared["losses"]) == len(PROBLEMS)).all()
    for name in ("families.csv", "problems.csv", "cost_vs_time.png", f"relative_cost_vs_{reference}.png"):
        assert (figures / name).is_file(), name
    # datasets are the Friedman test's units: two datasets are too few for one (hand-built stores test it)
    assert pd.read_csv(figures / "friedman.csv").empty and not (figures / "cd_diagram.png").exists()
    assert f"figures/relative_cost_vs_{reference}.png" in (figures.parent / "REPORT.md").read_text()


def test_tuned_boosters_record_their_choice(run):
    rows, _ = run
    chosen = rows[rows["method"] == "rebel"]["selected"].map(json.loads)
    assert all(c["max_depth"] in (1, 2, 4) and 1 <= c["n_estimators"] <= 200 for c in chosen)
