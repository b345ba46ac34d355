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
``python scripts/cs_boost_feasibility.py`` (a few minutes on two cores).
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

ROOT = Path(__file__).resolve().parents[1]
RATES = (0.85, 0.875, 0.9, 0.925, 0.95)
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
    n_pos = int(y01.sum())
    errors = []
    for r in RATES:
        op = detection_at_rate(y01, s, r, pos_label=1)
        errors.append(n_pos - round(op.detection_rate * n_pos) + op.false_positives)
    return float(np.mean(errors))


def markdown(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


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
        "Generated by `python scripts/cs_boost_feasibility.py` (see its docstring).  Errors are averaged over the "
        "detection rates 85%-95%.  `orientation` last = the class we detect (`classes_[1]`), first = the other "
        "class.  oracle_floor: the fewest errors of four strong reference classifiers (10-fold out-of-fold "
        "scores) with every threshold chosen on the test scores themselves; ceiling: (1 - r) n_pos + n_neg, "
        "the most errors of a detector that meets its rate on the test examples.\n\n"
        + markdown(table[cols]) + "\nPer-model oracle errors: feasibility.csv.\n")
    print(f"wrote {out / 'FEASIBILITY.md'}")


if __name__ == "__main__":
    main()
