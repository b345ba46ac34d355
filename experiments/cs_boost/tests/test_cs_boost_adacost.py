"""results/alt/cs_boost_adacost: the numbers the ledger's AdaCost and CSB1 rows quote are those of the stored check
(computed, not typed in)."""

import re
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
CHECK = ROOT / "results" / "alt" / "cs_boost_adacost" / "adacost_check.csv"


def _rows(evidence: str) -> pd.DataFrame:
    ledger = pd.read_csv(HERE / "deviations.csv", dtype=str, keep_default_na=False)
    return ledger[ledger["evidence"].str.contains(evidence, regex=False)]


def test_adacost_and_csb1_details_quote_the_stored_check():
    """bupa's AdaCost fits no weak learner at any C1, by ours and by the independent loop; cleveland's only at C1 = 1;
    bupa's CSB1 training AUCs lie in the ranges its row quotes, for both implementations."""
    check = pd.read_csv(CHECK)
    rows = _rows("results/alt/cs_boost_adacost/adacost_check.csv")
    assert set(zip(rows["row"], rows["column"])) == {("bupa", "adacost"), ("cleveland_binary", "adacost"),
                                                     ("bupa", "csb1")}
    bupa = check[(check["set"] == "bupa") & (check["method"] == "adacost")]
    assert len(bupa) == 4 and (bupa["rounds_ours"] == 0).all() and (bupa["rounds_indep"] == 0).all()
    cleveland = check[(check["set"] == "cleveland_binary") & (check["method"] == "adacost")]
    assert cleveland.loc[cleveland["rounds_ours"] > 0, "C1"].tolist() == [1.0]
    csb1 = check[(check["set"] == "bupa") & (check["method"] == "csb1")]
    detail = rows[(rows["row"] == "bupa") & (rows["column"] == "csb1")]["detail"].iloc[0]
    quoted = [tuple(map(float, m)) for m in re.findall(r"(0\.\d+)-(0\.\d+)", detail)]
    assert quoted == [(round(csb1[c].min(), 2), round(csb1[c].max(), 2)) for c in ("train_auc_ours", "train_auc_indep")]
    assert (csb1[["train_auc_ours", "train_auc_indep"]] < 0.5).all().all()  # ranks backwards at every C1
