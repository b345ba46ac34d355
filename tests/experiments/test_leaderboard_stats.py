"""The leaderboard's statistics (experiments/leaderboard/figures.py) on hand-built stores: ranks, the best
baseline, relative cost, wins / ties / losses, the latest row of a re-run trial, and the files it writes."""

import numpy as np
import pandas as pd
import pytest

from csrepro.report.figures import paper_module

lb = paper_module("leaderboard")


def store_of(costs: dict, seconds=None) -> pd.DataFrame:
    """Store rows from {problem: {method: per-split costs}}."""
    rows = []
    for problem, by_method in costs.items():
        for method, values in by_method.items():
            for t, v in enumerate(values):
                rows.append({"dataset": problem, "method": method, "trial": t, "risk": v, "params": "{}",
                             "fit_seconds": (seconds or {}).get(method, 1.0), "finished_at": "2026-01-01"})
    return pd.DataFrame(rows)


HAND = {"a__rebel": {"rebel": [1, 1, 1], "logistic": [2, 2, 2], "wap": [3, 3, 3]},
        "b__rebel": {"rebel": [2, 2, 2], "logistic": [1, 1, 1], "wap": [3, 3, 3]}}


def test_hand_case_ranks_relative_cost_and_wins():
    problems, methods, cube = lb.cost_cube(store_of(HAND))
    assert problems == ["a__rebel", "b__rebel"] and methods == ["rebel", "logistic", "wap"]
    board = lb.summarise(problems, methods, cube, n_boot=200).set_index("method")
    # ranks: a: rebel 1, logistic 2, wap 3; b: logistic 1, rebel 2, wap 3
    assert board.loc["rebel", "average_rank"] == 1.5 and board.loc["wap", "average_rank"] == 3.0
    assert set(board["best_baseline"]) == {"logistic"}  # the baseline of least average rank (wap: 3)
    # per-problem scale 2: normalised rebel (0.5 + 1) / 2 = logistic's 0.75, wap 1.5 / 0.75 - 1 = 1
    assert board.loc["rebel", "relative_cost"] == pytest.approx(0.0)
    assert board.loc["wap", "relative_cost"] == pytest.approx(1.0)
    assert board.loc["wap", "relative_low"] == pytest.approx(1.0)  # constant splits: a zero-width interval
    assert tuple(board.loc["rebel", ["wins", "ties", "losses"]]) == (1, 0, 1)
    assert tuple(board.loc["wap", ["wins", "ties", "losses"]]) == (0, 0, 2)
    assert tuple(board.loc["logistic", ["wins", "ties", "losses"]]) == (0, 2, 0)


def test_noisy_equal_methods_tie():
    rng = np.random.default_rng(0)
    x = rng.random(5)
    costs = {"a__zero_one": {"rebel": x, "logistic": x[::-1]}}
    problems, methods, cube = lb.cost_cube(store_of(costs))
    board = lb.summarise(problems, methods, cube, n_boot=500).set_index("method")
    assert tuple(board.loc["rebel", ["wins", "ties", "losses"]]) == (0, 1, 0)
    assert board.loc["rebel", "relative_low"] < board.loc["rebel", "relative_cost"] < board.loc["rebel", "relative_high"]


def test_the_latest_row_of_a_rerun_trial_counts():
    store = store_of(HAND)
    rerun = store.iloc[[0]].assign(risk=10.0, finished_at="2026-02-01")
    _, _, cube = lb.cost_cube(pd.concat([store, rerun], ignore_index=True))
    assert cube[0, 0, 0] == 10.0 and cube[0, 0, 1] == 1.0


def test_family_of_an_alias():
    assert lb.family_of("glass__guess_averse") == "guess_averse"
    assert lb.family_of("glass") == ""


def test_incomplete_problems_are_left_out_of_the_ranks():
    costs = {**HAND, "c__rebel": {"rebel": [1, 1, 1], "logistic": [1, 1], "wap": [1, 1, 1]}}
    problems, methods, cube = lb.cost_cube(store_of(costs))
    kept, sub = lb._complete(problems, cube)
    assert kept == ["a__rebel", "b__rebel"] and sub.shape == (2, 3, 3)


def test_plot_leaderboard_writes_every_table_and_figure(tmp_path):
    rng = np.random.default_rng(3)
    methods = ["gll_mcboost", "rebel", "combo", "partition", "lightgbm_calibrated", "logistic", "wap"]
    costs = {f"{d}__{f}": {m: rng.random(4) + 0.1 * i for i, m in enumerate(methods)}
             for d in ["d1", "d2", "d3", "d4", "d5"] for f in ("rebel", "zero_one")}
    paths = lb.plot_leaderboard(tmp_path, store_of(costs, {m: 0.1 * (i + 1) for i, m in enumerate(methods)}))
    names = {p.name for p in paths}
    assert {"leaderboard.csv", "families.csv", "problems.csv", "friedman.csv", "cd_diagram.png",
            "cd_rebel.png", "cd_zero_one.png", "relative_cost.png", "cost_vs_time.png"} <= names
    assert all(p.is_file() for p in paths)
    board = pd.read_csv(tmp_path / "leaderboard.csv")
    assert list(board["average_rank"]) == sorted(board["average_rank"])
    assert set(board["method"]) == set(methods) and (board["n_problems"] == 10).all()
    fams = pd.read_csv(tmp_path / "families.csv")
    assert set(fams["family"]) == {"rebel", "zero_one"} and (fams["n_problems"] == 5).all()
    problems = pd.read_csv(tmp_path / "problems.csv")
    assert len(problems) == 10 * len(methods)
    assert (problems["ci_low"] <= problems["mean_cost"] + 1e-12).all()
    assert (problems["mean_cost"] <= problems["ci_high"] + 1e-12).all()
    friedman = pd.read_csv(tmp_path / "friedman.csv")
    assert list(friedman["scope"]) == ["all problems", "rebel", "zero_one"]
    assert (friedman["test"] == "friedman").all() and friedman["p_value"].between(0, 1).all()
