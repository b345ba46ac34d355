"""Reduced-scale regression of thesis Sec. IV.E (Table IV.2, Figure IV.3) on three of the ten UCI sets.

Reduced: liver (bupa), Haberman and Pima at 0% and 40% flipped training labels, all five folds.
Checked: test labels stay clean and contamination raises every method's error; LogitBoost is
less hurt by 40% contamination than RealBoost on average ("LogitBoost is less sensitive to
outliers").  Not reproduced (NOTES.md): SavageBoost beating AdaBoost at 40% contamination.
"""

import pytest

DATASETS = ["bupa", "haberman", "pima"]
OVERRIDES = ["exp.datasets=[" + ",".join(DATASETS + [f"{d}_o40" for d in DATASETS]) + "]"]


@pytest.fixture(scope="module")
def reduced(run_reduced):
    rows, comparison, exp_dir = run_reduced("thesis_outliers", OVERRIDES, needs=DATASETS)
    rows = rows.assign(base=rows["dataset"].str.replace("_o40", ""), level=rows["dataset"].str.endswith("_o40"))
    return rows, comparison, exp_dir


def test_folds_are_shared_and_contamination_hurts(reduced):
    rows, _, exp_dir = reduced
    assert len(rows) == 6 * 5 * 4
    seeds = rows.groupby(["base", "trial"])["split_seed"].nunique()
    assert (seeds == 1).all()  # contaminated aliases use the clean dataset's folds
    means = rows.pivot_table(index=["base", "method"], columns="level", values="error")
    assert (means[True] > means[False]).all()
    assert (exp_dir / "figures" / "figure_iv3_liver_error_vs_contamination.png").is_file()


def test_logitboost_less_sensitive_than_realboost(reduced):
    rows, _, _ = reduced
    at40 = rows[rows["level"]].groupby("method")["error"].mean()
    assert at40["logitboost"] < at40["realboost"]


@pytest.mark.xfail(reason="SavageBoost is not more robust than AdaBoost under random label flips (NOTES.md)",
                   strict=True)
def test_savageboost_beats_adaboost_at_40_percent(reduced):
    rows, _, _ = reduced
    at40 = rows[rows["level"]].groupby("method")["error"].mean()
    assert at40["savageboost"] < at40["adaboost"]
