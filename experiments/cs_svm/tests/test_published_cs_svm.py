"""experiments/cs_svm/published.csv against the thesis text (Masnadi-Shirazi 2011, Tables V.1 and V.2)."""

import re
from pathlib import Path

import numpy as np
import pytest

from csrepro.data.registry import list_datasets
from csrepro.methods import method_names
from csrepro.report.compare import load_published

ROOT = Path(__file__).resolve().parents[3]
THESIS = ROOT.parent / "shared" / "papers" / "masnadi_shirazi2011_thesis_bayes_consistent_losses.md"
DATASETS = ["haberman", "bupa", "echocardiogram", "pima", "breastw", "tictactoe", "cleveland_binary", "wdbc", "wpbc",
            "sonar"]
V2_ROWS = {"CS-SVM": "cs_svm", "BP-SVM": "bp_svm", "BM-SVM": "bm_svm"}


@pytest.fixture(scope="module")
def pub():
    return load_published(ROOT / "experiments" / "cs_svm" / "published.csv")


def test_cells_and_ids(pub):
    assert len(pub) == 3 + 10 * 3
    assert set(pub["row"]) <= set(list_datasets()) and set(pub["column"]) <= set(method_names())
    v2 = pub[pub["table"] == "Table V.2"]
    assert list(dict.fromkeys(v2["row"])) == DATASETS and (v2["unit"] == "errors").all()
    v1 = pub[pub["table"] == "Table V.1"]
    assert list(v1["column"]) == ["cs_svm", "bp_svm", "svm"] and (v1["unit"] == "cost_total").all()
    assert np.isfinite(pub["value"]).all() and pub["spread"].isna().all()


@pytest.mark.skipif(not THESIS.is_file(), reason=f"{THESIS} not found")
def test_values_match_the_thesis_text(pub):
    lines = THESIS.read_text(encoding="utf-8").splitlines()
    start = lines.index("Table V.2 mean error for each UCI data set and cost sensitive SVM method.")
    table = {row[0]: [float(v) for v in row[1:]] for row in (ln.split("\t") for ln in lines[start + 1:start + 6])
             if row[0] in V2_ROWS}
    assert set(table) == set(V2_ROWS)
    header = lines[start + 2].split("\t")[1:]
    v2_labels = pub[pub["table"] == "Table V.2"].drop_duplicates("row")["row_label"].tolist()
    assert header == v2_labels == ["Survive", "Liver", "Echo", "Pima", "Wisc", "Tic", "Heart", "Diag", "Prag", "Sonar"]
    v2 = pub[pub["table"] == "Table V.2"].set_index(["row", "column"])["value"]
    for label, method in V2_ROWS.items():
        assert [v2[(d, method)] for d in DATASETS] == table[label]
    loss = next(ln for ln in lines if ln.startswith("Loss \\$"))
    published = [float(v) for v in re.findall(r"(\d+)\\\$", loss)]
    v1 = pub[pub["table"] == "Table V.1"]["value"].tolist()
    assert v1 == published == [550.0, 878.0, 878.0]
    assert (878 - 550) / 878 == pytest.approx(0.3736, abs=1e-4)  # "a substantial reduction of cost by 37.36%"
