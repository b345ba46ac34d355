"""The leaderboard's statistics (experiments/leaderboard/figures.py) on hand-built stores: the reference from the
config, ranks, the geometric relative cost and its hierarchical interval, wins / ties / losses by the corrected
t-test, Friedman / Nemenyi with datasets as the units, the latest row of a re-run trial, and the files it writes."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from csrepro.report.figures import paper_module

lb = paper_module("leaderboard")


def store_of(costs: dict, seconds=None, n_train=30, n_test=10) -> pd.DataFrame:
    """Store rows from {problem: {method: per-split costs}}."""
    rows = []
    for problem, by_method in costs.items():
        for method, values in by_method.items():
            for t, v in enumerate(values):
                rows.append({"dataset": problem, "method": method, "trial": t, "risk": v, "params": "{}",
                             "fit_seconds": (seconds or {}).get(method, 1.0), "finished_at": "2026-01-01",
                             "n_train": n_train, "n_test": n_test})
    return pd.DataFrame(rows)


def cfg_of(reference):
    return {"exp": {"paper": "leaderboard", "report": {"figures": ["leaderboard"], "reference": reference}}}


# two datasets a and b under one family; the reference (logistic) costs 2 on a and 1 on b, on every split
HAND = {"a__rebel": {"rebel": [1, 1, 1], "logistic": [2, 2, 2], "wap": [3, 3, 3]},
        "b__rebel": {"rebel": [2, 2, 2], "logistic": [1, 1, 1], "wap": [3, 3, 3]}}


def summary(costs, reference="logistic", **kw):
    store = store_of(costs)
    problems, methods, cube = lb.cost_cube(store)
    return lb.summarise(problems, methods, cube, lb.split_ratio(store, problems), reference, **kw).set_index("method")


def test_hand_case_ranks_relative_cost_and_wins():
    board = summary(HAND, n_boot=2000)
    # ranks: a: rebel 1, logistic 2, wap 3; b: logistic 1, rebel 2, wap 3
    assert board.loc["rebel", "average_rank"] == 1.5 and board.loc["wap", "average_rank"] == 3.0
    assert set(board["reference"]) == {"logistic"}
    # geometric means of the ratios: rebel sqrt(1/2 * 2) = 1, wap sqrt(3/2 * 3) = sqrt(4.5)
    assert board.loc["rebel", "relative_cost"] == pytest.approx(0.0)
    assert board.loc["wap", "relative_cost"] == pytest.approx(np.sqrt(4.5) - 1)
    # constant splits, so only the datasets vary: wap's replicates are 3/2 (aa), sqrt(4.5) (ab), 3 (bb), each end
    # drawn with probability 1/4, so the 2.5 and 97.5 percentiles are exactly the ends
    assert board.loc["wap", ["relative_low", "relative_high"]].tolist() == pytest.approx([0.5, 2.0])
    assert board.loc["rebel", ["relative_low", "relative_high"]].tolist() == pytest.approx([-0.5, 1.0])
    assert board.loc["wap", "verdict"] == "costlier" and board.loc["rebel", "verdict"] == "no difference"
    # constant differences: the corrected t-test is certain (t = +-inf)
    assert tuple(board.loc["rebel", ["wins", "ties", "losses"]]) == (1, 0, 1)
    assert tuple(board.loc["wap", ["wins", "ties", "losses"]]) == (0, 0, 2)
    # the reference is not compared with itself
    ref = board.loc["logistic"]
    assert ref["relative_cost"] == 0.0 and ref["verdict"] == "reference"
    assert ref[["relative_low", "relative_high", "wins", "ties", "losses"]].isna().all()
    assert (board["n_datasets"] == 2).all() and (board["n_problems"] == 2).all()


def test_the_relative_cost_does_not_depend_on_the_pool():
    rng = np.random.default_rng(0)
    costs = {f"d{i}__zero_one": {m: rng.random(5) + 0.1 for m in ("rebel", "combo", "logistic")} for i in range(4)}
    base = summary(costs, n_boot=300)
    weak = {p: {**by, "csoaa": 50 * by["rebel"]} for p, by in costs.items()}
    more = summary(weak, n_boot=300)
    cols = ["relative_cost", "wins", "ties", "losses"]
    pd.testing.assert_frame_equal(base.loc[["rebel", "combo"], cols], more.loc[["rebel", "combo"], cols])


def test_wins_follow_the_corrected_ttest():
    # one problem, 5 splits, n_test / n_train = 1/3: a difference the naive paired t-test calls significant
    # (p ~ 0.025) is a tie once corrected (p ~ 0.1); a larger one stays a win
    ref = np.array([0.30, 0.32, 0.28, 0.31, 0.29])
    small = ref + np.array([-0.02, -0.005, -0.035, -0.01, -0.03])
    large = ref - 0.1 + np.array([0.001, -0.001, 0.002, 0.0, -0.002])
    costs = {"a__zero_one": {"rebel": small, "combo": large, "logistic": ref}}
    assert stats.ttest_rel(small, ref).pvalue < 0.05
    board = summary(costs, n_boot=100)
    assert tuple(board.loc["rebel", ["wins", "ties", "losses"]]) == (0, 1, 0)
    assert tuple(board.loc["combo", ["wins", "ties", "losses"]]) == (1, 0, 0)


def test_split_ratio_comes_from_the_store():
    store = store_of(HAND, n_train=75, n_test=25)
    assert lb.split_ratio(store, ["a__rebel", "b__rebel"]) == pytest.approx([1 / 3, 1 / 3])
    with pytest.raises(ValueError, match="n_test"):
        lb.split_ratio(store.drop(columns="n_test"), ["a__rebel"])


def test_the_reference_comes_from_the_config(tmp_path):
    store = store_of(HAND)
    with pytest.raises(ValueError, match="report.reference"):
        lb.plot_leaderboard(tmp_path, store, {"exp": {"report": {"figures": ["leaderboard"]}}})
    with pytest.raises(ValueError, match="no trial in the store"):
        lb.plot_leaderboard(tmp_path, store, cfg_of("hgb_calibrated"))
    assert not any(tmp_path.iterdir())  # refused before writing anything


def test_the_latest_row_of_a_rerun_trial_counts():
    store = store_of(HAND)
    rerun = store.iloc[[0]].assign(risk=10.0, finished_at="2026-02-01")
    _, _, cube = lb.cost_cube(pd.concat([store, rerun], ignore_index=True))
    assert cube[0, 0, 0] == 10.0 and cube[0, 0, 1] == 1.0


def test_family_and_dataset_of_an_alias():
    assert lb.family_of("glass__guess_averse") == "guess_averse" and lb.dataset_of("glass__guess_averse") == "glass"
    assert lb.family_of("glass") == ""


def test_incomplete_problems_are_left_out_of_the_ranks():
    costs = {**HAND, "c__rebel": {"rebel": [1, 1, 1], "logistic": [1, 1], "wap": [1, 1, 1]}}
    problems, methods, cube = lb.cost_cube(store_of(costs))
    kept, sub, ratio = lb._complete(problems, cube, np.arange(3.0))
    assert kept == ["a__rebel", "b__rebel"] and sub.shape == (2, 3, 3) and list(ratio) == [0.0, 1.0]


def test_dataset_ranks_average_each_datasets_families():
    # dataset a: rebel first under one family, last under the other -> mean rank 2 of 3 (logistic 1.5, wap 2.5)
    costs = {"a__rebel": {"rebel": [1, 1], "logistic": [2, 2], "wap": [3, 3]},
             "a__zero_one": {"rebel": [3, 3], "logistic": [1, 1], "wap": [2, 2]},
             "b__rebel": {"rebel": [1, 1], "logistic": [2, 2], "wap": [3, 3]},
             "b__zero_one": {"rebel": [1, 1], "logistic": [2, 2], "wap": [3, 3]}}
    problems, methods, cube = lb.cost_cube(store_of(costs))
    table = lb.dataset_ranks(problems, methods, cube)
    assert list(table.index) == ["a", "b"]
    assert table.loc["a"].tolist() == [2.0, 1.5, 2.5] and table.loc["b"].tolist() == [1.0, 2.0, 3.0]


def test_plot_leaderboard_writes_every_table_and_figure(tmp_path):
    rng = np.random.default_rng(3)
    methods = ["gll_mcboost", "rebel", "combo", "partition", "lightgbm_calibrated", "logistic", "wap"]
    datasets = ["d1", "d2", "d3", "d4", "d5"]
    costs = {f"{d}__{f}": {m: rng.random(4) + 0.1 * i for i, m in enumerate(methods)}
             for d in datasets for f in ("rebel", "zero_one")}
    paths = lb.plot_leaderboard(tmp_path, store_of(costs, {m: 0.1 * (i + 1) for i, m in enumerate(methods)}),
                                cfg_of("lightgbm_calibrated"))
    names = {p.name for p in paths}
    assert {"leaderboard.csv", "families.csv", "problems.csv", "friedman.csv", "cd_diagram.png",
            "cd_rebel.png", "cd_zero_one.png", "relative_cost_vs_lightgbm_calibrated.png",
            "cost_vs_time.png"} <= names
    assert all(p.is_file() for p in paths)
    board = pd.read_csv(tmp_path / "leaderboard.csv")
    assert list(board["average_rank"]) == sorted(board["average_rank"])
    assert set(board["method"]) == set(methods) and (board["n_problems"] == 10).all()
    assert (board["n_datasets"] == 5).all() and set(board["reference"]) == {"lightgbm_calibrated"}
    other = board[board["method"] != "lightgbm_calibrated"]
    assert (other["relative_low"] <= other["relative_cost"] + 1e-12).all()
    assert (other["relative_cost"] <= other["relative_high"] + 1e-12).all()
    assert (other[["wins", "ties", "losses"]].sum(axis=1) == 10).all()
    fams = pd.read_csv(tmp_path / "families.csv")
    assert set(fams["family"]) == {"rebel", "zero_one"} and (fams["n_problems"] == 5).all()
    problems = pd.read_csv(tmp_path / "problems.csv")
    assert len(problems) == 10 * len(methods)
    assert (problems["ci_low"] <= problems["mean_cost"] + 1e-12).all()
    assert (problems["mean_cost"] <= problems["ci_high"] + 1e-12).all()
    assert set(problems["outcome"]) <= {"win", "tie", "loss", "reference"}
    assert (problems.loc[problems["method"] == "lightgbm_calibrated", "outcome"] == "reference").all()
    # W/T/L in leaderboard.csv are the per-problem outcomes counted
    counts = problems[problems["outcome"] == "win"].groupby("method").size()
    assert board.set_index("method")["wins"].drop("lightgbm_calibrated").fillna(0).astype(int).to_dict() == \
        counts.reindex(other["method"], fill_value=0).to_dict()
    friedman = pd.read_csv(tmp_path / "friedman.csv")
    assert list(friedman["scope"]) == ["all families", "rebel", "zero_one"]
    assert (friedman["n_datasets"] == 5).all()  # datasets are the units, overall too
    assert (friedman["test"] == "friedman").all() and friedman["p_value"].between(0, 1).all()
    k, n = len(methods), 5
    q = stats.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2)
    assert friedman["critical_difference"].to_numpy() == pytest.approx(q * np.sqrt(k * (k + 1) / (6 * n)), rel=1e-3)


def test_fit_seconds_count_a_shared_fit_once_for_every_method_that_uses_it():
    """Per (dataset, split) the longest fit among the cost families (and among the methods on one shared model)
    is the from-scratch time: a later family or a second rule that found the fitted model takes it too."""
    rows = []
    for t, paid in enumerate((10.0, 30.0)):  # split 0: the first family pays 10 s; split 1: 30 s
        for family, first in (("rebel", True), ("zero_one", False)):
            for method, seconds in (("partition_hgb", paid if first else 1.0), ("lachiche_flach_hgb", 1.0),
                                    ("wap", 2.0 + t + (family == "rebel"))):
                rows.append({"dataset": f"a__{family}", "method": method, "trial": t, "fit_seconds": seconds,
                             "finished_at": "2026-01-01"})
    model = {"model": "hgb", "model_params": {"n_estimators": 5}}
    cfg = {"exp": {"methods": {"partition_hgb": {"method": "partition_matrix", **model},
                               "lachiche_flach_hgb": model, "wap": {"method": "cs_reduction"}}}}
    got = lb.fit_seconds(pd.DataFrame(rows), cfg)
    assert got.to_dict() == {"lachiche_flach_hgb": 20.0, "partition_hgb": 20.0, "wap": 3.5}
    alone = lb.fit_seconds(pd.DataFrame(rows))  # no config: no shared model, the families still share
    assert alone["lachiche_flach_hgb"] == 1.0 and alone["partition_hgb"] == 20.0
