"""Which published Table VI.1 cells can any classifier reach?  (Masnadi-Shirazi thesis, Sec. VI.E.2.)

For each of the ten UCI sets and each choice of the detected class (the thesis does not say which
class is "positive"), two bounds on a cell (errors averaged over the target detection rates
85%-95%):

* an **oracle floor**: the errors of strong reference classifiers (logistic regression, RBF SVM,
  random forest, histogram gradient boosting; 10-fold out-of-fold scores) when each rate's
  threshold is chosen on those same test scores (:func:`csrepro.metrics.detection_at_rate`), i.e.
  with no error from transferring a threshold.  The least over the four models is reported; a
  published cell far below it is out of reach of an honest protocol on these files.
* a **ceiling** for a detector that meets its target rate r on the test examples:
  (1 - r) n_pos misses plus at most n_neg false positives, averaged over the rates.  A published
  cell above it needs test detection rates well below the targets.

Writes results/cs_boost_feasibility/FEASIBILITY.md (and .csv).  Run:
``python experiments/cs_boost/cs_boost_feasibility.py`` (a few minutes on two cores).

``--cells`` (seconds, no fitting) applies the stored bounds (results/cs_boost_feasibility/feasibility.csv;
the floor and ceiling are properties of a data set and its detected class, not of the weak learner) to
every published error cell of Tables VI.1 and VI.3 (:func:`outside_bounds`), and writes the cells outside
[floor, ceiling] of each detected class, marking the class our tables detect (the minority class), to
results/alt/cs_boost_feasibility_cells/outside_bounds.csv and .md (issue 31 ledger).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from csrepro.data.loaders import load_dataset
from csrepro.metrics import detection_at_rate

ROOT = Path(__file__).resolve().parents[2]
RATES = (0.85, 0.875, 0.9, 0.925, 0.95)
TABLES = ("Table VI.1", "Table VI.3")
CELLS_DIR = ROOT / "results" / "alt" / "cs_boost_feasibility_cells"
DATASETS = ("pima", "bupa", "wdbc", "sonar", "wpbc", "breastw", "echocardiogram", "cleveland_binary",
            "tictactoe", "haberman")


def reference_models():
    return {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "svm_rbf": make_pipeline(StandardScaler(), SVC()),
        "random_forest": RandomForestClassifier(n_estimators=200, random_state=0),
        "hist_gb": HistGradientBoostingClassifier(learning_rate=0.05, random_state=0),
    }


def oracle_errors(X, y01, model) -> float:
    """Errors averaged over RATES with each threshold chosen on the pooled out-of-fold test scores."""
    method = "decision_function" if hasattr(model, "decision_function") else "predict_proba"
    s = cross_val_predict(model, X, y01, cv=StratifiedKFold(10, shuffle=True, random_state=0), method=method)
    s = s[:, 1] if s.ndim == 2 else s
    errors = [np.sum((s >= detection_at_rate(y01, s, r, pos_label=1).threshold) != (y01 == 1)) for r in RATES]
    return float(np.mean(errors))


def markdown(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def outside_bounds(bounds: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Published error cells (table, row = data set, column, value) outside [oracle_floor, ceiling] of each
    detected class of ``bounds`` (feasibility.csv rows): table, row, column, detected_class, ours (the class
    our tables detect: the minority class, ties the last), published, side ("below floor" / "above
    ceiling"), bound."""
    tie_last = (bounds["n_pos"] == bounds["n_neg"]) & (bounds["orientation"] == "last")
    b = bounds.assign(ours=(bounds["n_pos"] < bounds["n_neg"]) | tie_last)
    cells = published.merge(b, left_on="row", right_on="dataset")
    below = cells[cells["value"] < cells["oracle_floor"]].assign(side="below floor", bound=lambda f: f["oracle_floor"])
    above = cells[cells["value"] > cells["ceiling"]].assign(side="above ceiling", bound=lambda f: f["ceiling"])
    out = pd.concat([below, above]).rename(columns={"value": "published"})
    out["detected_class"] = out["detected_class"].astype(str)
    return out[["table", "row", "column", "detected_class", "ours", "published", "side", "bound"]].sort_values(
        ["table", "row", "detected_class", "column"]).reset_index(drop=True)


def write_cells():
    """--cells: :func:`outside_bounds` of Tables VI.1 and VI.3 from the stored bounds."""
    bounds = pd.read_csv(ROOT / "results" / "cs_boost_feasibility" / "feasibility.csv", dtype={"detected_class": str})
    pub = pd.read_csv(ROOT / "experiments" / "cs_boost" / "published.csv", dtype={"row": str, "column": str})
    pub = pub[pub["table"].isin(TABLES) & pub["row"].isin(DATASETS)]
    cells = outside_bounds(bounds, pub)
    CELLS_DIR.mkdir(parents=True, exist_ok=True)
    cells.to_csv(CELLS_DIR / "outside_bounds.csv", index=False)
    (CELLS_DIR / "outside_bounds.md").write_text(
        "# Tables VI.1 and VI.3: published cells outside [oracle floor, ceiling]\n\n"
        "Generated by `python experiments/cs_boost/cs_boost_feasibility.py --cells` from "
        "results/cs_boost_feasibility/feasibility.csv (see the script's docstring).  `ours`: the class our "
        "tables detect (the minority class).\n\n" + markdown(cells))
    print(f"wrote {CELLS_DIR / 'outside_bounds.csv'} ({len(cells)} cells)")


def main():
    pub = pd.read_csv(ROOT / "experiments" / "cs_boost" / "published.csv")
    pub = pub[(pub.table == "Table VI.1") & pub.row.isin(DATASETS)]
    rows = []
    for name in DATASETS:
        ds = load_dataset(name)
        cells = pub[pub.row == name].set_index("column").value.astype(float)
        for k, label in enumerate(np.unique(ds.y)):
            y01 = (ds.y == label).astype(int)
            n_pos, n_neg = int(y01.sum()), int(len(y01) - y01.sum())
            floors = {m: oracle_errors(ds.X, y01, est) for m, est in reference_models().items()}
            floor = min(floors.values())
            ceiling = float(np.mean([(1 - r) * n_pos + n_neg for r in RATES]))
            rows.append({
                "dataset": name, "detected_class": str(label), "orientation": "last" if k == 1 else "first",
                "n_pos": n_pos, "n_neg": n_neg, **{f"oracle_{m}": round(v, 1) for m, v in floors.items()},
                "oracle_floor": round(floor, 1), "ceiling": round(ceiling, 1),
                "published_min": cells.min(), "published_max": cells.max(),
                "cells_below_floor": ", ".join(f"{c} {v:g}" for c, v in cells.items() if v < floor),
                "cells_above_ceiling": ", ".join(f"{c} {v:g}" for c, v in cells.items() if v > ceiling),
            })
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    out = ROOT / "results" / "cs_boost_feasibility"
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "feasibility.csv", index=False)
    cols = ["dataset", "detected_class", "orientation", "n_pos", "n_neg", "oracle_floor", "ceiling",
            "published_min", "published_max", "cells_below_floor", "cells_above_ceiling"]
    (out / "FEASIBILITY.md").write_text(
        "# Table VI.1: which published cells can a classifier reach?\n\n"
        "Generated by `python experiments/cs_boost/cs_boost_feasibility.py` (see its docstring).  Errors are averaged over the "
        "detection rates 85%-95%.  `orientation` last = the class we detect (`classes_[1]`), first = the other "
        "class.  oracle_floor: the fewest errors of four strong reference classifiers (10-fold out-of-fold "
        "scores) with every threshold chosen on the test scores themselves; ceiling: (1 - r) n_pos + n_neg, "
        "the most errors of a detector that meets its rate on the test examples.\n\n"
        + markdown(table[cols]) + "\nPer-model oracle errors: feasibility.csv.\n")
    print(f"wrote {out / 'FEASIBILITY.md'}")


if __name__ == "__main__":
    import sys

    write_cells() if sys.argv[1:] == ["--cells"] else main()
