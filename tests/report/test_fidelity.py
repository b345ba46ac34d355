"""FIDELITY.md's rules: a published SD over n values enters as an SE, each cell is counted once, causes resolve."""

import numpy as np
import pandas as pd
import pytest

from csrepro.report.compare import published_se, rejudge
from csrepro.report.fidelity import ExperimentFidelity, ledger_counts, owned_cells, render_fidelity, resolve_causes


def _pub(rows, n=None):
    df = pd.DataFrame(rows, columns=["table", "row", "column", "value", "spread", "spread_kind"])
    return df if n is None else df.assign(spread_n=n)


def test_std_over_n_runs_becomes_the_standard_error_of_the_mean():
    # CoMBo-like: 0.088 std over 10 x 5-fold = 50 values -> SE 0.088 / sqrt(50) = 0.012445
    pub = _pub([("T", "a", "m", 0.675, 0.088, "std"), ("T", "b", "m", 1.0, 0.06, "se"),
                ("T", "c", "m", 1.0, 0.5, "std"), ("T", "d", "m", 1.0, np.nan, "")], n=[50, np.nan, np.nan, np.nan])
    se = published_se(pub)
    assert se[0] == pytest.approx(0.088 / np.sqrt(50)) and se[0] == pytest.approx(0.0124451, abs=1e-7)
    assert se[1] == 0.06  # an SE stays an SE
    assert np.isnan(se[2]) and np.isnan(se[3])  # an SD without n gives no SE
    # the cell: |0.70 - 0.80| = 0.10 > 10% of 0.80; with the SD used as an SE the tolerance would be
    # 2*sqrt(0.088^2 + 0.02^2) = 0.180 (within), with the SE of the mean 2*sqrt(0.012445^2 + 0.02^2) = 0.0471
    cmp = pd.DataFrame({"table": ["T"], "row": ["a"], "column": ["m"], "published": [0.80], "reproduced": [0.70],
                        "reproduced_se": [0.02], "tolerance": [9.9], "within": [True]})
    got = rejudge(cmp, _pub([("T", "a", "m", 0.80, 0.088, "std")], n=[50]))
    assert got["tolerance"].iloc[0] == pytest.approx(0.08)  # max(0.0471, 10% of 0.80)
    assert not got["within"].iloc[0]
    # a larger SD over fewer values: SE 0.2 / sqrt(10) = 0.0632, tolerance 2*sqrt(0.004 + 0.0004) = 0.1327 >= 0.10
    wide = rejudge(cmp, _pub([("T", "a", "m", 0.80, 0.2, "std")], n=[10]))
    assert wide["tolerance"].iloc[0] == pytest.approx(2 * np.sqrt(0.2 ** 2 / 10 + 0.02 ** 2))
    assert wide["within"].iloc[0]


def _cmp(rows, planned=None):
    df = pd.DataFrame(rows, columns=["table", "row", "column", "published", "reproduced", "reproduced_se",
                                     "tolerance", "within"])
    return df if planned is None else df.assign(n_trials=planned, n_planned=planned)


def test_a_cell_two_experiments_compare_counts_once_from_its_owner():
    pub = _pub([("T", "a", "m", 1.0, np.nan, ""), ("T", "b", "m", 1.0, np.nan, ""), ("U", "a", "m", 1.0, np.nan, "")])
    one = _cmp([("T", "a", "m", 1.0, 1.0, 0.0, 0.1, True), ("T", "b", "m", 1.0, np.nan, np.nan, 0.1, pd.NA)], [5, 0])
    two = _cmp([("T", "a", "m", 1.0, np.nan, np.nan, 0.1, pd.NA), ("T", "b", "m", 1.0, 2.0, 0.0, 0.1, False)], [0, 5])
    res = [ExperimentFidelity("one", "p", one), ExperimentFidelity("two", "p", two)]
    cells = owned_cells("p", pub, res, {})
    assert len(cells) == 3  # U's cell: no experiment compares it, still counted (missing)
    assert cells["owner"].tolist() == ["one", "two", ""]
    assert cells["status"].tolist() == ["within", "outside", "missing"]
    # both plan T, only one has a value for (T, b): that one owns it
    planned = [ExperimentFidelity("one", "p", one.assign(n_planned=5)), ExperimentFidelity("two", "p", two.assign(n_planned=5))]
    assert owned_cells("p", pub, planned, {})["owner"].tolist() == ["one", "two", ""]
    # both plan and have values: the owners file decides, and without it the error names the fix
    both = [planned[0], ExperimentFidelity("two", "p", two.assign(n_planned=5, reproduced=[1.5, 2.0]))]
    with pytest.raises(ValueError, match="owners.csv"):
        owned_cells("p", pub, both, {})
    assert owned_cells("p", pub, both, {"T": "two"})["status"].tolist() == ["outside", "outside", "missing"]


def test_causes_resolve_to_the_most_specific_rule_and_the_total_line():
    cells = pd.DataFrame({"table": ["T", "T", "T", "U"], "row": ["a", "b", "c", "a"], "column": ["m"] * 4})
    led = pd.DataFrame([("T", "*", "*", "unexplained", "e", "d"), ("T", "b", "m", "tolerance", "e", "d"),
                        ("T", "c", "*", "published_only", "e", "d")],
                       columns=["table", "row", "column", "cause", "evidence", "detail"])
    got = resolve_causes(cells, led)
    assert got["cause"].tolist() == ["unexplained", "tolerance", "published_only", ""]
    with pytest.raises(ValueError, match="equally specific"):
        resolve_causes(cells, pd.concat([led, led.iloc[[1]]]))
    got["status"] = ["outside", "outside", "missing", "missing"]
    c = ledger_counts(pd.concat([got, got.iloc[[0]].assign(status="within")]))
    assert (c["published"], c["within"], c["named"], c["unexplained"], c["published_only"]) == (5, 1, 1, 2, 1)


def test_fidelity_ends_with_the_total_line(tmp_path):
    paper = tmp_path / "p"
    paper.mkdir()
    pd.DataFrame([("T", "a", "m", 1.0, "", "", "u", "s", "A", "M")],
                 columns=["table", "row", "column", "value", "spread", "spread_kind", "unit", "source", "row_label",
                          "column_label"]).to_csv(paper / "published.csv", index=False)
    (paper / "deviations.csv").write_text("table,row,column,cause,evidence,detail\nT,*,*,tolerance,NOTES.md#X,why\n")
    res = [ExperimentFidelity("e", "p", _cmp([("T", "a", "m", 1.0, 1.5, 0.0, 0.1, False)]))]
    text = render_fidelity(res, "prov", tmp_path)
    assert text.splitlines()[-1] == ("Total: 0 of 1 published cells within tolerance, 1 outside with a named cause, "
                                     "0 unexplained, 0 published only.")
    assert "| p | T | e | 1 | 0 | 1 | tolerance 1 | 0 | 0 |" in text
