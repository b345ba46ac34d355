"""Integrity of experiments/rebel/published.csv (Appel, Burgos-Artizzu & Perona 2016, Fig. 4 and Fig. 3).

The text extraction of Fig. 4 gives each dataset's bar labels in legend order with the best one starred;
the legend gives each method's count of 1st/2nd/3rd places.  These tests check, from the transcribed
numbers alone, that the transcription reproduces those counts, the stars and the claims of Sec. 5.1
(experiments/rebel/NOTES.md, "Fig. 4 transcription", explains the assignment and what stays uncertain).
"""

from pathlib import Path

import numpy as np
import pytest

from csrepro.report.compare import load_published

ROOT = Path(__file__).resolve().parents[3]
PAPER = ROOT.parent / "shared" / "papers" / "appel2016_rebel.txt"
DATASETS = ["glass", "vowel", "satimage", "pendigits", "mnist"]
#: legend order of Fig. 4 (appel2016_rebel.txt lines 1861-1896)
METHODS = ["ova_adaboost", "adaboost_mh", "adaboost_ecc", "struct_boost", "cw_boost", "aoso_logitboost", "rebel"]
#: the Fig. 4 legend's [#1st #2nd #3rd] per method, appel2016_rebel.txt lines 1861-1896
#: ("[ 0 1 1 ] Ada 1vsAll", "[ 0 0 2 ] Ada.MH", ..., "[ 3 2 0 ] REBEL"); caption lines 1903-1911
LEGEND_PLACES = {
    "ova_adaboost": (0, 1, 1),     # "Ada 1vsAll"
    "adaboost_mh": (0, 0, 2),      # "Ada.MH"
    "adaboost_ecc": (0, 0, 0),     # "Ada.ECC"
    "struct_boost": (0, 1, 2),     # "Struct-Boost"
    "cw_boost": (2, 1, 0),         # "CW-Boost"
    "aoso_logitboost": (0, 0, 0),  # "A0S0-Logit"
    "rebel": (3, 2, 0),            # "REBEL"
}
#: legend labels as extracted, in the same order as METHODS
LEGEND_LABELS = ["Ada 1vsAll", "Ada.MH", "Ada.ECC", "Struct-Boost", "CW-Boost", "A0S0-Logit", "REBEL"]


@pytest.fixture(scope="module")
def pub():
    return load_published(ROOT / "experiments" / "rebel" / "published.csv")


@pytest.fixture(scope="module")
def fig4(pub):
    """Fig. 4 means as a datasets x methods frame (percent error)."""
    cells = pub[pub["table"] == "Fig. 4"]
    return cells.pivot(index="row", columns="column", values="value").loc[DATASETS, METHODS]


def places(errors: np.ndarray) -> np.ndarray:
    """Competition place of each entry of one dataset's means: 1 + the number of strictly smaller means."""
    return 1 + (errors[None, :] < errors[:, None]).sum(axis=1)


def test_every_cell_once(pub):
    fig4_cells = pub[pub["table"] == "Fig. 4"]
    assert set(pub["table"]) == {"Fig. 4", "Fig. 3"}
    assert len(fig4_cells) == len(DATASETS) * len(METHODS)
    assert set(zip(fig4_cells["row"], fig4_cells["column"], strict=True)) == {
        (d, m) for d in DATASETS for m in METHODS}
    assert (fig4_cells["unit"] == "error_pct").all()
    assert fig4_cells["value"].between(0, 100).all()
    # the text gives no std (the caps are drawn only): no spread is transcribed
    assert fig4_cells["spread"].isna().all() and (fig4_cells["spread_kind"] == "").all()
    assert (pub["row_label"].str.len() > 0).all() and (pub["column_label"].str.len() > 0).all()


def test_fig3_claim(pub):
    """Sec. 5, line 1706-1709: "REBEL outperforms the standard method in 90% of the trials"."""
    cell = pub[pub["table"] == "Fig. 3"]
    assert len(cell) == 1
    row = cell.iloc[0]
    assert (row["row"], row["column"], row["value"], row["unit"]) == ("synthetic", "rebel", 90.0, "win_pct")


def test_legend_place_counts(fig4):
    """Each method's count of 1st/2nd/3rd places over the five datasets equals the legend's."""
    counts = {m: [0, 0, 0] for m in METHODS}
    for dataset in DATASETS:
        errors = fig4.loc[dataset].to_numpy()
        top3 = np.sort(errors)[:3]
        assert len(set(top3)) == 3, f"{dataset}: tie among the three best means"
        for method, place in zip(METHODS, places(errors), strict=True):
            if place <= 3:
                counts[method][place - 1] += 1
    assert {m: tuple(c) for m, c in counts.items()} == LEGEND_PLACES
    # each dataset contributes exactly one 1st, one 2nd and one 3rd place
    assert np.array(list(LEGEND_PLACES.values())).sum(axis=0).tolist() == [len(DATASETS)] * 3


def test_starred_value_is_the_unique_minimum(pub, fig4):
    cells = pub[pub["table"] == "Fig. 4"]
    starred = cells[cells["bold"]]
    assert sorted(starred["row"]) == sorted(DATASETS)  # one star per dataset
    for _, cell in starred.iterrows():
        errors = fig4.loc[cell["row"]]
        assert cell["value"] == errors.min()
        assert (errors == errors.min()).sum() == 1


def test_text_claims_of_sec_5_1(fig4):
    """Lines 1749-1751: "REBEL is the best performing method on three of these five datasets, and is second best
    to CW-Boost on the two remaining datasets."  Caption, lines 1912-1913: "REBEL consistently places in the top
    two on every dataset"."""
    best = fig4.idxmin(axis=1)
    assert (best == "rebel").sum() == 3
    for dataset in best[best != "rebel"].index:
        assert best[dataset] == "cw_boost"
        assert places(fig4.loc[dataset].to_numpy())[METHODS.index("rebel")] == 2
    assert all(places(fig4.loc[d].to_numpy())[METHODS.index("rebel")] <= 2 for d in DATASETS)


def _fig4_text_block(lines):
    """The 35 bar labels and the legend of Fig. 4 in the text extraction."""
    start = lines.index("Percent Error")
    assert lines[start - 5:start] == ["GLASS", "VOWEL", "LANDSAT", "PENDIGITS", "MNIST"]
    assert lines[start + 1:start + 7] == ["0", "10", "20", "30", "40", "50"]  # y-axis ticks
    labels = lines[start + 7:start + 7 + 35]
    legend, i = [], start + 7 + 35
    while len(legend) < len(METHODS):
        assert lines[i] == "["
        counts = tuple(int(v) for v in lines[i + 1:i + 4])
        name = lines[i + 4].lstrip("]").strip() or lines[i + 5].strip()
        legend.append((name, counts))
        i += 5 if lines[i + 4].strip() != "]" else 6
    return labels, legend


@pytest.mark.skipif(not PAPER.is_file(), reason="paper text not in ../shared/papers")
def test_matches_paper_text(pub, fig4):
    """The CSV equals the text read as five consecutive blocks of seven labels in legend order."""
    lines = [line.strip() for line in PAPER.read_text().splitlines()]
    labels, legend = _fig4_text_block(lines)
    assert legend == list(zip(LEGEND_LABELS, LEGEND_PLACES.values(), strict=True))
    cells = pub[pub["table"] == "Fig. 4"].set_index(["row", "column"])
    for k, text in enumerate(labels):
        dataset, method = DATASETS[k // len(METHODS)], METHODS[k % len(METHODS)]
        assert cells.loc[(dataset, method), "value"] == float(text.rstrip("*")), (dataset, method, text)
        assert bool(cells.loc[(dataset, method), "bold"]) == text.endswith("*"), (dataset, method, text)
    assert lines[1707] == "90%"  # line 1708, Sec. 5: "REBEL outperforms the standard method in 90% of the trials"
