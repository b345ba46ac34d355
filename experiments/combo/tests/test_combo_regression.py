"""Reduced-scale regression of Koço & Capponi 2013 (CoMBo) through the real runner and report.

conf/exp/combo_uci.yaml on New-Thyroid and Balance (one 5-fold pass; CoMBo and AdaBoost.MM at the paper's
T = 200, our SAMME and SMOTEBoost, which have no published cell there, at T = 50) and conf/exp/combo_connect4.yaml
on a tenth of each Connect-4 training part (2 folds, T = 100): the Table 2 / Table 3 cells against
experiments/combo/published.csv with the shared tolerance rule, the paper's findings that hold at this scale
(CoMBo raises Balance's G-mean and lowers its norm; on Connect-4 it lowers the draw class's error and raises the
win class's), and the per-row tables (Table 4, Sec. 5.3 text) computed from the confusion_<i>_<j> /
class_error_<i> columns.  The paper's lower loss-class error for CoMBo is not asserted: at full scale our CoMBo
errs more there (NOTES.md, claim 6; figures/claims_connect4.csv), on a tenth of the data less.
"""

import numpy as np
import pandas as pd
import pytest

SETS = ["newthyroid", "balance"]
N_TRIALS = 5
METHODS = ["combo", "adaboost_mm", "samme", "smoteboost"]
C4_TRIALS = 2
#: Connect-4 class index (sorted labels) -> label
CONNECT4 = {0: "draw", 1: "loss", 2: "win"}
MIN_WITHIN = 0.9  # share of the 20 compared cells within tolerance (measured: 20 of 20)


@pytest.fixture(scope="module")
def uci(run_reduced):
    return run_reduced("combo_uci", [f"exp.n_trials={N_TRIALS}", f"exp.datasets=[{','.join(SETS)}]",
                                     "exp.methods.samme.n_estimators=50", "exp.methods.smoteboost.n_estimators=50"],
                       needs=SETS)


@pytest.fixture(scope="module")
def connect4(run_reduced):
    return run_reduced("combo_connect4", [f"exp.n_trials={C4_TRIALS}", "+exp.protocol.train_size=0.1",
                                          "exp.methods.combo.n_estimators=100", "exp.methods.adaboost_mm.n_estimators=100"],
                       needs=["connect4"])


def test_every_trial_ran(uci):
    rows, _, exp_dir = uci
    assert len(rows) == len(SETS) * N_TRIALS * len(METHODS)
    assert rows[["gmean", "mauc", "confusion_norm", "accuracy"]].notna().all().all()
    assert (exp_dir / "REPORT.md").is_file() and (exp_dir / "figures" / "claims.csv").is_file()


def test_reduced_cells_within_tolerance(uci):
    """The paper's CoMBo and AdaBoost.MM cells of New-Thyroid and Balance (Tables 2 and 3)."""
    _, comparison, _ = uci
    cells = comparison[comparison.index.get_level_values("row").isin(SETS)
                       & comparison.index.get_level_values("column").isin(["combo", "adaboost_mm"])]
    assert len(cells) == 2 * 2 + 2 * 4 * 2  # Table 2 (combo: G-mean, MAUC) + Table 3 (4 measures, 2 methods)
    assert (cells["n_trials"] == N_TRIALS).all() and cells["reproduced"].notna().all()
    share = cells["within"].astype(bool).mean()
    assert share >= MIN_WITHIN, cells[~cells["within"].astype(bool)].to_string()
    # published-only columns (copied from Wang & Yao 2012) have no reproduced value and no planned trial
    copied = comparison[comparison.index.get_level_values("column").str.endswith("_published")]
    assert copied["reproduced"].isna().all() and (copied["n_planned"] == 0).all()


def test_combo_evens_out_balance(uci):
    """Table 3, Balance: CoMBo's G-mean above AdaBoost.MM's (0.675 vs 0.566) and its norm below (0.460 vs 0.559)."""
    rows, _, _ = uci
    means = rows[rows["dataset"] == "balance"].groupby("method")[["gmean", "confusion_norm"]].mean()
    assert means.loc["combo", "gmean"] > means.loc["adaboost_mm", "gmean"]
    assert means.loc["combo", "confusion_norm"] < means.loc["adaboost_mm", "confusion_norm"]


def test_claims_table(uci):
    _, _, exp_dir = uci
    claims = pd.read_csv(exp_dir / "figures" / "claims.csv")
    assert {1, 2, 3, 4, 5}.issubset(set(claims["claim"])) and set(claims["basis"]) == {"reproduced", "published"}
    published = claims[claims["basis"] == "published"].set_index(["claim", "quantity"])
    # as transcribed (NOTES.md): Spearman of the ratio and CoMBo's G-mean margin is -0.02, the norm is not smaller
    # on New-Thyroid, CoMBo's accuracy is never above AdaMM's
    rho = published.loc[(2, "G-mean: Spearman rho(imbalance ratio, CoMBo margin) over 8 sets"), "value"]
    assert rho == pytest.approx(-0.024, abs=0.01)
    norm = published.xs(3, level="claim").iloc[0]
    assert norm["value"] == 1 and norm["detail"] == "newthyroid"
    assert published.xs(4, level="claim").iloc[0]["value"] == 0


def _class_errors(rows):
    """method x class label -> mean error on the class (1 - recall)."""
    means = rows.groupby("method").mean(numeric_only=True)
    return pd.DataFrame({label: means[f"class_error_{i}"] for i, label in CONNECT4.items()})


def test_connect4_per_class_errors(connect4):
    """Sec. 5.3 (line 391): CoMBo lowers the error on the minority class draw (31.5 vs 83.5 %) and raises the one on
    the majority class win (20.2 vs 6.6 %); every per-class error is the row sum of Table 4's matrix, in both the
    store and the report's two per-row tables."""
    rows, comparison, exp_dir = connect4
    assert len(rows) == 2 * C4_TRIALS
    means = rows.groupby("method").mean(numeric_only=True)
    for i in CONNECT4:
        row_sum = sum(means[f"confusion_{i}_{j}"] for j in CONNECT4 if j != i)
        np.testing.assert_allclose(row_sum, means[f"class_error_{i}"], atol=1e-12)
    errors = _class_errors(rows)
    assert errors.loc["combo", "draw"] < errors.loc["adaboost_mm", "draw"]
    assert errors.loc["combo", "win"] > errors.loc["adaboost_mm", "win"]
    table4 = comparison.xs("Table 4", level="table")
    text = comparison.xs("Sec. 5.3 text", level="table")
    assert len(table4) == 12 and len(text) == 6
    assert (table4["n_trials"] == C4_TRIALS).all() and (table4["n_planned"] == C4_TRIALS).all()
    for method in ("combo", "adaboost_mm"):
        for label in CONNECT4.values():
            entries = [table4.loc[(f"connect4_{label}_{other}", method), "reproduced"]
                       for other in CONNECT4.values() if other != label]
            assert text.loc[(f"connect4_{label}", method), "reproduced"] == pytest.approx(100 * sum(entries))
    claims = pd.read_csv(exp_dir / "figures" / "claims_connect4.csv")
    assert len(claims) == 4 and claims["claim"].eq(6).all()
    assert (exp_dir / "tables" / "table_4.md").is_file() and (exp_dir / "tables" / "sec_5_3_text.md").is_file()

