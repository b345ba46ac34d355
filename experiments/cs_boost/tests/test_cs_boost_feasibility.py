"""experiments/cs_boost/cs_boost_feasibility.py: the oracle floor on a toy problem with a known answer."""

import importlib.util
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

SCRIPT = Path(__file__).resolve().parents[1] / "cs_boost_feasibility.py"


def _module():
    spec = importlib.util.spec_from_file_location("cs_boost_feasibility", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_oracle_floor_of_separable_classes_counts_only_the_undetected():
    """Separable classes: the oracle threshold keeps every false positive out, so the errors are the
    positives left undetected at each rate, n_pos - ceil(r n_pos), averaged over the rates."""
    mod = _module()
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-5, 1, (60, 2)), rng.normal(5, 1, (40, 2))]
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    want = np.mean([40 - np.ceil(r * 40 - 1e-9) for r in mod.RATES])
    assert mod.oracle_errors(X, y, LogisticRegression()) == want


def test_markdown_has_one_row_per_frame_row():
    import pandas as pd

    text = _module().markdown(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
    assert text.splitlines() == ["| a | b |", "|---|---|", "| 1 | x |", "| 2 | y |"]


def test_outside_bounds_by_hand():
    """One set, two detected classes: a cell below the minority class's floor and one above the other
    class's ceiling are listed with their side and bound; a cell between the bounds is not."""
    import pandas as pd

    bounds = pd.DataFrame({"dataset": ["s", "s"], "detected_class": ["a", "b"], "orientation": ["first", "last"],
                           "n_pos": [30, 70], "n_neg": [70, 30], "oracle_floor": [10.0, 5.0],
                           "ceiling": [80.0, 40.0]})
    pub = pd.DataFrame({"table": ["T"] * 3, "row": ["s"] * 3, "column": ["low", "mid", "high"],
                        "value": [8.0, 30.0, 50.0]})
    got = _module().outside_bounds(bounds, pub)
    assert got[["column", "detected_class", "ours", "side", "bound"]].values.tolist() == [
        ["low", "a", True, "below floor", 10.0], ["high", "b", False, "above ceiling", 40.0]]


def _ledger_and_bounds():
    import pandas as pd

    mod = _module()
    bounds = pd.read_csv(mod.ROOT / "results" / "cs_boost_feasibility" / "feasibility.csv",
                         dtype={"detected_class": str})
    pub = pd.read_csv(mod.ROOT / "experiments" / "cs_boost" / "published.csv", dtype={"row": str, "column": str})
    cells = mod.outside_bounds(bounds, pub[pub["table"].isin(mod.TABLES) & pub["row"].isin(mod.DATASETS)])
    ledger = pd.read_csv(SCRIPT.parent / "deviations.csv", dtype=str, keep_default_na=False)
    return ledger, cells


def test_unreachable_cells_are_below_the_floor_of_our_detected_class():
    """Every `unreachable` cell of deviations.csv is, computed from the stored bounds, below the oracle floor
    of the class our tables detect, and its detail quotes that cell and floor."""
    ledger, cells = _ledger_and_bounds()
    ours = cells[cells["ours"] & (cells["side"] == "below floor")]
    listed = set(zip(ours["table"], ours["row"], ours["column"], strict=True))
    rows = ledger[ledger["cause"] == "unreachable"]
    assert len(rows) > 0
    for _, r in rows.iterrows():
        assert (r["table"], r["row"], r["column"]) in listed, r.tolist()
        cell = ours[(ours["table"] == r["table"]) & (ours["row"] == r["row"]) & (ours["column"] == r["column"])].iloc[0]
        assert f"published {cell['published']:g} below the oracle floor {cell['bound']:g}" in r["detail"]


def test_whole_rows_marked_data_differs_by_the_bounds_meet_the_rule():
    """A row deviations.csv marks `data_differs` on the bounds' evidence has at least three cells outside the
    bounds of our detected class and at least one outside those of the other class (NOTES *Rows no detected
    class admits*)."""
    ledger, cells = _ledger_and_bounds()
    rows = ledger[(ledger["cause"] == "data_differs") & (ledger["column"] == "*")
                  & ledger["evidence"].str.contains("feasibility")]
    assert len(rows) == 4
    for _, r in rows.iterrows():
        here = cells[(cells["table"] == r["table"]) & (cells["row"] == r["row"])]
        assert here["ours"].sum() >= 3 and (~here["ours"]).sum() >= 1, r.tolist()
