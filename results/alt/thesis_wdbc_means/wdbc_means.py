"""Wisconsin diagnostic's ten mean features (thesis Ch. III; issue 31 ledger, reading W).

Sec. III.G.2 names the set "breast cancer diagnostic" without saying which of wdbc.data's 30 attributes (mean,
standard error and worst value of ten nucleus measurements) the learners saw.  Reading W, stated before this
script was run (experiments/thesis/NOTES.md, *Wisconsin diagnostic's ten mean features*): the ten means only, the
first ten columns of the registry's wdbc.  Every committed wdbc trial of ``thesis_uci_margin`` (all 84 methods:
the 76 fixed-a columns, the four nested-CV columns, AdaBoost, LogitBoost) is refitted through the runner's own
``fit_and_score`` on the committed splits, seeds and costs with those ten columns; first, the untransformed refits
of AdaBoost and of the canonical logistic loss at a = 1 are checked against their committed Table III.4 cells
(the same five trials each).

Run from the repository root (one core; about a minute):
    CSREPRO_DATA_DIR=/work/shared/datasets python results/alt/thesis_wdbc_means/wdbc_means.py [--reuse]
Writes trials.csv (test errors of every refitted trial) and cells.csv (the wdbc cells of Tables III.3-III.5 with
the committed value, the reading-W value and both verdicts) beside this file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from csrepro.config import compose_overrides
from csrepro.costs import cost_matrix_of
from csrepro.data.loaders import load_dataset
from csrepro.report.compare import load_published, within
from csrepro.runner import fit_and_score, preflight, training_labels, trial_split

HERE = Path(__file__).resolve().parent
EXP, DATASET, N_MEANS = "thesis_uci_margin", "wdbc", 10
FAMILIES = ("clog", "cboost", "cgauss", "claplace")
CHECKED = ("adaboost", "clog[a=1]")  # refitted on all 30 columns first: their committed Table III.4 cells


def refit(data_root: str, committed: pd.DataFrame) -> pd.DataFrame:
    """Test errors of every wdbc trial with the first N_MEANS columns (after the check of CHECKED)."""
    _, plans, trials = preflight(compose_overrides([f"+exp={EXP}", f"results.root=/tmp/{EXP}_wdbc_means",
                                                    f"exp.datasets=[{DATASET}]"]))
    plan, data = plans[DATASET], load_dataset(DATASET, data_root=data_root)
    classes = np.unique(data.y)

    def errors(t, cols):
        _, _, train, test = trial_split(plan, t.trial, data_root, False)
        y_train = training_labels(plan, t.trial, data.y[train], classes)
        C = cost_matrix_of(plan.cost, len(classes), np.searchsorted(classes, y_train), random_state=t.cost_seed)
        z_test = np.searchsorted(classes, data.y[test])
        X = data.X[:, cols]
        return int(fit_and_score(t, ["errors"], C, classes, X[train], y_train, X[test], z_test)["errors"])

    cell = committed.set_index(["table", "row", "column"])["reproduced"]
    for method in CHECKED:  # the same trials as the committed run
        refitted = np.mean([errors(t, slice(None)) for t in trials if t.method == method])
        if not np.isclose(refitted, cell["Table III.4", DATASET, method], rtol=0, atol=1e-9):
            raise SystemExit(f"{method}: untransformed refit {refitted} differs from the committed cell")
    out = pd.DataFrame([{"trial": t.trial, "method": t.method, "errors": errors(t, slice(0, N_MEANS))}
                        for t in trials])
    out.to_csv(HERE / "trials.csv", index=False)
    return out


def cells(trials: pd.DataFrame, published: pd.DataFrame, committed: pd.DataFrame) -> pd.DataFrame:
    """wdbc cells of Tables III.4/III.5 (5-fold mean errors, SE over the folds) and III.3 (a of the least mean
    error per family, ties to the smaller a), beside the committed values and verdicts."""
    g = trials.groupby("method")["errors"]
    mean, se = g.mean(), g.std(ddof=1) / np.sqrt(g.count())
    argmin = {}
    for fam in FAMILIES:
        by_a = {float(m.split("=")[1].rstrip("]")): v for m, v in mean.items() if m.startswith(f"{fam}[a=")}
        argmin[fam] = min(sorted(by_a), key=lambda a: by_a[a])
    out = []
    for _, c in published[published["row"] == DATASET].iterrows():
        if c["table"] == "Table III.3":
            r, s = argmin[c["column"]], np.nan
        elif c["table"] in ("Table III.4", "Table III.5"):
            r, s = mean[c["column"]], se[c["column"]]
        else:
            continue
        out.append({"table": c["table"], "row": DATASET, "column": c["column"], "published": c["value"],
                    "reproduced": r, "reproduced_se": s, "within": bool(within(c["value"], r, np.nan, s))})
    com = committed.set_index(["table", "row", "column"])[["reproduced", "within"]]
    com.columns = ["committed", "committed_within"]
    return pd.DataFrame(out).join(com, on=["table", "row", "column"])


def main() -> None:
    reuse = "--reuse" in sys.argv  # recompute cells.csv from the trials.csv already written
    committed = pd.read_csv(f"results/{EXP}/comparison.csv")
    trials = pd.read_csv(HERE / "trials.csv") if reuse else refit(os.environ["CSREPRO_DATA_DIR"], committed)
    out = cells(trials, load_published("experiments/thesis/published.csv"), committed)
    out.to_csv(HERE / "cells.csv", index=False)
    pd.set_option("display.width", 200)
    print(out.to_string())
    moved_in, moved_out = ~out["committed_within"] & out["within"], out["committed_within"] & ~out["within"]
    print(f"within: {int(out['within'].sum())} of {len(out)} (committed {int(out['committed_within'].sum())}); "
          f"outside -> within: {int(moved_in.sum())}; within -> outside: {int(moved_out.sum())}")


if __name__ == "__main__":
    main()
