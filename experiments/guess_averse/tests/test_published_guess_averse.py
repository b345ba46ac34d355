"""Integrity of experiments/guess_averse/published.csv (Beijbom et al. 2014, Table 2)."""

import re
from pathlib import Path

import numpy as np
import pytest

from csrepro.metrics import average_rank
from csrepro.report.compare import load_published

ROOT = Path(__file__).resolve().parents[3]
PAPER = ROOT.parent / "shared" / "papers" / "beijbom2014_guess_averse_mcboost.md"
DATASETS = ["breasttissue", "ecoli", "segmentation", "libras", "vertebral", "vehicle", "shuttle", "pendigits",
            "satimage", "optdigits"]
METHODS = ["mcboost", "p_mcboost", "gel_mcboost", "gll_mcboost", "ls_mcboost", "lt_mcboost"]


@pytest.fixture(scope="module")
def pub():
    return load_published(ROOT / "experiments" / "guess_averse" / "published.csv")


def test_every_cell_of_table2_once(pub):
    assert len(pub) == 10 * 6 + 6
    assert set(pub["table"]) == {"Table 2"}
    assert list(dict.fromkeys(pub["row"])) == DATASETS + ["avg_rank"]
    assert list(dict.fromkeys(pub["column"])) == METHODS
    cells = {(r, c) for r in DATASETS + ["avg_rank"] for c in METHODS}
    assert set(zip(pub["row"], pub["column"], strict=True)) == cells
    assert set(pub["source"]) == {"Beijbom et al. 2014 (ICML), Table 2, p. 7"}
    assert (pub["row_label"].str.len() > 0).all() and (pub["column_label"].str.len() > 0).all()


def test_values_and_spreads(pub):
    risk = pub[pub["row"] != "avg_rank"]
    rank = pub[pub["row"] == "avg_rank"]
    assert np.isfinite(pub["value"]).all() and (pub["value"] > 0).all()
    assert (risk["unit"] == "risk").all() and (risk["spread_kind"] == "se").all()
    assert np.isfinite(risk["spread"]).all() and (risk["spread"] >= 0).all()
    assert (rank["unit"] == "rank").all() and rank["spread"].isna().all() and (rank["spread_kind"] == "").all()
    assert rank["value"].between(1, 6).all()


def test_avg_rank_row_matches_the_printed_means(pub):
    """Ranks recomputed from the (rounded) printed means agree with the printed row to 0.05."""
    means = pub[pub["row"] != "avg_rank"].pivot(index="row", columns="column", values="value")
    recomputed = average_rank(means.loc[DATASETS, METHODS].to_numpy())
    printed = pub[pub["row"] == "avg_rank"].set_index("column").loc[METHODS, "value"].to_numpy()
    np.testing.assert_allclose(recomputed, printed, atol=0.05 + 1e-9)


@pytest.mark.skipif(not PAPER.is_file(), reason="paper markdown not in ../shared/papers")
def test_matches_paper_markdown(pub):
    lines = PAPER.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Dataset\tMCBoost"))
    cells = pub.set_index(["row", "column"])
    for row, line in zip(DATASETS + ["avg_rank"], lines[start + 1:start + 12], strict=True):
        label, *printed = line.split("\t")
        for col, text in zip(METHODS, printed, strict=True):
            c = cells.loc[(row, col)]
            numbers = [float(x) for x in re.findall(r"\d+\.\d+", text)]
            assert c["row_label"] == label
            assert c["value"] == numbers[0], (row, col)
            assert c["spread"] == numbers[1] if len(numbers) == 2 else np.isnan(c["spread"]), (row, col)
            assert c["bold"] == ("boldsymbol" in text), (row, col)
