"""The fidelity ledger (issue 31): every published cell outside tolerance or without a reproduced value has
a cause from the vocabulary with evidence that exists, and every claim of claims.csv is well formed.

Reads the committed files only: experiments/<paper>/{published,deviations,owners,claims}.csv, NOTES.md and
results/<exp>/comparison.csv (no stores, no runs).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from csrepro.config import compose, experiment_names
from csrepro.report.fidelity import (
    CAUSES,
    VERDICTS,
    ExperimentFidelity,
    _test_names,
    ledger,
    load_claims,
    load_ledger,
    load_rank_spread,
    missing_evidence,
    rank_se,
    rank_spread_causes,
)

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = REPO / "experiments"
PAPERS = sorted(p.parent.name for p in EXPERIMENTS.glob("*/published.csv"))
CLAIM_PAPERS = sorted(p.parent.name for p in EXPERIMENTS.glob("*/claims.csv"))


@pytest.fixture(scope="module")
def cells():
    results = []
    for name in experiment_names():
        cfg = compose(name)
        exp_name, paper = cfg.exp.get("name", name), cfg.exp.get("paper")
        path = REPO / "results" / exp_name / "comparison.csv"
        if paper and path.is_file():
            results.append(ExperimentFidelity(exp_name, paper, pd.read_csv(path)))
    return ledger(EXPERIMENTS, results)


@pytest.fixture(scope="module")
def tests():
    return _test_names(REPO)


def test_every_miss_has_a_cause(cells):
    missed = cells[cells["status"] != "within"]
    uncaused = missed[~missed["cause"].isin(CAUSES)]
    assert uncaused.empty, f"cells outside tolerance or missing without a cause:\n{uncaused[['paper', 'table', 'row', 'column']]}"


def test_every_paper_with_published_cells_has_a_ledger():
    assert PAPERS and all((EXPERIMENTS / p / "deviations.csv").is_file() for p in PAPERS)


@pytest.mark.parametrize("paper", PAPERS)
def test_ledger_evidence_exists(paper, tests):
    led = load_ledger(EXPERIMENTS / paper)
    assert set(led["cause"]) <= set(CAUSES)
    bad = {r: m for r, e in zip(led.index, led["evidence"], strict=True)
           if (m := missing_evidence(e, EXPERIMENTS / paper, REPO, tests))}
    assert not bad, f"{paper}/deviations.csv rows whose evidence does not exist: {bad}"
    assert (led["detail"].str.len() > 0).all(), "each ledger row says in one line what its evidence shows"
    assert not led["detail"].str.contains("\n").any() and not led["evidence"].str.contains("\n").any()


@pytest.mark.parametrize("paper", PAPERS)
def test_ledger_rows_name_published_cells(paper):
    """A ledger row names a table, row and column of published.csv (or "*"): no stale or misspelt keys."""
    pub = pd.read_csv(EXPERIMENTS / paper / "published.csv", dtype=str, keep_default_na=False)
    led = load_ledger(EXPERIMENTS / paper)
    for key in ("table", "row", "column"):
        stale = set(led[key]) - set(pub[key]) - {"*"}
        assert not stale, f"{paper}/deviations.csv: unknown {key} {sorted(stale)}"


@pytest.mark.parametrize("paper", PAPERS)
def test_rank_spread_rows_name_tables_and_evidence(paper, tests):
    """rank_spread.csv names a published rank table and a published error table, with evidence that exists."""
    spread = load_rank_spread(EXPERIMENTS / paper)
    tables = set(pd.read_csv(EXPERIMENTS / paper / "published.csv", dtype=str)["table"])
    assert set(spread["table"]) | set(spread["source"]) <= tables
    assert all(not missing_evidence(e, EXPERIMENTS / paper, REPO, tests) for e in spread["evidence"])


def test_rank_se_matches_the_two_method_hand_case():
    """Two methods on one set, cells 0 and 1, SE 1 each: they swap with p = Phi(-1/sqrt(2)) = 0.2398, so the
    first method's rank is 1 + Bernoulli(p), SD sqrt(p (1 - p)) = 0.4270; cells 10 SE apart never swap; and
    over two sets the average rank's SD halves the variance: sqrt(p (1 - p) / 2) = 0.3019."""
    p = norm.cdf(-1 / np.sqrt(2))
    one = rank_se(pd.DataFrame({"a": [0.0], "b": [1.0]}), pd.DataFrame({"a": [1.0], "b": [1.0]}), n_draws=20000)
    assert one["a"] == pytest.approx(np.sqrt(p * (1 - p)), abs=0.01) and one["b"] == pytest.approx(one["a"])
    far = rank_se(pd.DataFrame({"a": [0.0], "b": [20.0]}), pd.DataFrame({"a": [1.0], "b": [1.0]}))
    assert far.tolist() == [0.0, 0.0]
    two = rank_se(pd.DataFrame({"a": [0.0, 0.0], "b": [1.0, 1.0]}), pd.DataFrame({"a": [1.0, 1.0], "b": [1.0, 1.0]}),
                  n_draws=20000)
    assert two["a"] == pytest.approx(np.sqrt(p * (1 - p) / 2), abs=0.01)
    exact = rank_se(pd.DataFrame({"a": [0.0], "b": [1.0]}), pd.DataFrame({"a": [np.nan], "b": [0.0]}))
    assert exact.tolist() == [0.0, 0.0]  # no SE: the ranks are what the cells say
    # #wins of a over b on that set: a win with probability 1 - p, the same SD
    wins = rank_se(pd.DataFrame({"a": [0.0], "b": [1.0]}), pd.DataFrame({"a": [1.0], "b": [1.0]}), n_draws=20000,
                   wins_over=["b"])
    assert wins["a"] == pytest.approx(np.sqrt(p * (1 - p)), abs=0.01)


def test_rank_cells_take_tolerance_only_where_their_rank_se_admits_them():
    """Ranks of a and b over two sets with cells 0 vs 1 (SE 1): rank SE 0.30, so a published rank 2.0 against
    our 1.5 (|0.5| <= 2 x 0.30) is tolerance; against a third method c whose cells are far from both, the
    published 2.0 against our 3.0 stays unexplained; a cell with a named cause keeps it."""
    comp = pd.DataFrame({"table": ["E"] * 6 + ["R"] * 3, "row": ["s1", "s1", "s1", "s2", "s2", "s2", "avg", "avg", "avg"],
                         "column": ["a", "b", "c"] * 3,
                         "published": np.nan, "reproduced": [0, 1, 50, 0, 1, 50, 1.5, 1.5, 3.0],
                         "reproduced_se": [1, 1, 1, 1, 1, 1, np.nan, np.nan, np.nan]})
    cells = pd.DataFrame({"table": "R", "row": "avg", "column": ["a", "b", "c"], "owner": "e", "published": 2.0,
                          "reproduced": [1.5, 1.5, 3.0], "status": "outside", "cause": ["unexplained", "data_differs", ""],
                          "evidence": ["x", "y", ""], "detail": ["d", "d", ""]})
    spread = pd.DataFrame([("R", "*", "E", "avg", "lower", "", "ev", "why")],
                          columns=["table", "row", "source", "exclude_rows", "better", "wins_over", "evidence", "detail"])
    got = rank_spread_causes(cells, [ExperimentFidelity("e", "p", comp)], "p", spread)
    assert got["cause"].tolist() == ["tolerance", "data_differs", ""]
    assert got["evidence"].tolist() == ["ev", "y", ""]
    assert "rank SE 0.30" in got["detail"][0] and "outside even with rank SE 0.00" in got["detail"][2]


def test_missing_evidence_rejects_what_does_not_exist(tmp_path):
    (tmp_path / "NOTES.md").write_text("# Title\n\n## A section\ntext\n")
    (tmp_path / "f.md").write_text("## Other\n")
    names = {"test_real"}
    assert missing_evidence("NOTES.md#A section", tmp_path, tmp_path, names) == []
    assert missing_evidence("NOTES.md#No such section", tmp_path, tmp_path, names) == ["NOTES.md#No such section"]
    assert missing_evidence("test:test_real + f.md#Other", tmp_path, tmp_path, names) == []
    assert missing_evidence("test:test_gone + f.md", tmp_path, tmp_path, names) == ["test:test_gone"]
    assert missing_evidence("nowhere.csv", tmp_path, tmp_path, names) == ["nowhere.csv"]
    assert missing_evidence("", tmp_path, tmp_path, names) == ["(empty)"]


def test_claims_files_exist_for_every_paper():
    papers = {p.parent.name for p in EXPERIMENTS.glob("*/NOTES.md")} - {"leaderboard", "smoke"}
    assert papers <= set(CLAIM_PAPERS), f"papers without claims.csv: {sorted(papers - set(CLAIM_PAPERS))}"


@pytest.mark.parametrize("paper", CLAIM_PAPERS)
def test_claims_are_well_formed(paper, tests):
    claims = load_claims(EXPERIMENTS / paper)
    assert len(claims) and claims["id"].is_unique
    assert set(claims["verdict"]) <= set(VERDICTS)
    for col in ("claim", "location", "check", "evidence"):
        assert (claims[col].str.strip().str.len() > 0).all(), f"{paper}/claims.csv: empty {col}"
    undecided = claims[claims["verdict"] == "undecided"]
    assert undecided["detail"].str.contains("decide", case=False).all(), \
        f"{paper}: an undecided claim says what run would decide it (detail: 'decide: ...')"
    bad = {i: m for i, e in zip(claims["id"], claims["evidence"], strict=True)
           if (m := missing_evidence(e, EXPERIMENTS / paper, REPO, tests))}
    assert not bad, f"{paper}/claims.csv claims whose evidence does not exist: {bad}"
