"""The claim checks of experiments/obrien/figures.py on hand-made stores: per-set outcomes by paired t-test, the
better MetaCost variant per set, and the summary over several experiments' wins.csv."""

import numpy as np
import pandas as pd

from csrepro.report.figures import paper_module

obrien = paper_module("obrien")


def store(costs):
    """Store rows from {(dataset, method): per-trial risks}."""
    return pd.DataFrame([{"dataset": d, "method": m, "trial": t, "risk": v}
                         for (d, m), vals in costs.items() for t, v in enumerate(vals)])


TRIALS = np.array([1.0, 1.2, 0.9, 1.1, 1.0, 1.05])
COSTS = {("a", "partition"): TRIALS, ("a", "bayes_rule"): TRIALS + 0.5 + 0.01 * np.arange(6),  # clear win
         ("a", "metacost_in"): TRIALS - 0.4 + 0.01 * np.arange(6), ("a", "metacost_out"): TRIALS + 1.0,
         ("b", "partition"): TRIALS, ("b", "bayes_rule"): TRIALS + [0.1, -0.1, 0.1, -0.1, 0.05, -0.05],  # tie
         ("b", "metacost_in"): TRIALS + 2.0, ("b", "metacost_out"): TRIALS + 1.0 + 0.01 * np.arange(6)}


def test_outcomes_and_the_better_metacost_variant_per_set():
    costs = obrien.trial_costs(store(COSTS))
    # metacost_best: metacost_in on "a" (lower mean), metacost_out on "b"
    np.testing.assert_allclose(costs.loc["a", "metacost_best"], COSTS[("a", "metacost_in")])
    np.testing.assert_allclose(costs.loc["b", "metacost_best"], COSTS[("b", "metacost_out")])
    res = obrien.outcomes(costs, "partition", "bayes_rule").set_index("dataset")
    assert res.loc["a", "outcome"] == "win" and res.loc["b", "outcome"] == "tie"
    res = obrien.outcomes(costs, "partition", "metacost_best").set_index("dataset")
    assert res.loc["a", "outcome"] == "loss" and res.loc["b", "outcome"] == "win"


def test_claims_table_counts_and_rules():
    claims, _ = obrien.claims_table(store(COSTS))
    assert set(claims["other"]) == {"bayes_rule", "metacost_best"}  # claims of methods not run are left out
    row = claims.set_index("other").loc["bayes_rule"]
    assert (row["wins"], row["ties"], row["losses"], bool(row["holds"])) == (1, 1, 0, True)
    row = claims.set_index("other").loc["metacost_best"]
    assert (row["wins"], row["ties"], row["losses"], bool(row["holds"])) == (1, 0, 1, False)


def test_summary_sums_every_experiments_cells(tmp_path):
    for exp in ("obrien_x", "obrien_y"):
        figures = tmp_path / exp / "figures"
        figures.mkdir(parents=True)
        obrien.claims_table(store(COSTS))[1].to_csv(figures / "wins.csv", index=False)
    (path,) = obrien.summarise_claims(tmp_path / "obrien_three_class" / "figures")
    row = pd.read_csv(path).set_index("other").loc["bayes_rule"]
    assert (row["n_sets"], row["wins"], row["ties"], row["losses"]) == (4, 2, 2, 0)
    assert "obrien_x, obrien_y" in row["detail"]

