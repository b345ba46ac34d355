"""The fidelity ledger (issue 31): every published cell outside tolerance or without a reproduced value has
a cause from the vocabulary with evidence that exists, and every claim of claims.csv is well formed.

Reads the committed files only: experiments/<paper>/{published,deviations,owners,claims}.csv, NOTES.md and
results/<exp>/comparison.csv (no stores, no runs).
"""

from pathlib import Path

import pandas as pd
import pytest

from csrepro.config import compose, experiment_names
from csrepro.report.fidelity import (
    CAUSES,
    VERDICTS,
    ExperimentFidelity,
    _test_names,
    ledger,
    load_claims,
    load_ledger,
    missing_evidence,
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
