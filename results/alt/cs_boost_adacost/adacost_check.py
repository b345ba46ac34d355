"""AdaCost and CSB1 on the ten sets of thesis Tables VI.1-VI.2, against an independent implementation.

Why (experiments/cs_boost/NOTES.md, *AdaCost fits no weak learner; CSB1 ranks backwards*): our AdaCost cells of
bupa, wpbc and tic-tac-toe equal the number of negatives at every rate, i.e. detectors that flag every example,
and CSB1's are near it.  This script checks that this is the algorithms under our reading (Fan et al.'s alpha and
beta with costs c_i = cost_i / (C1 + C2) and a cost-proportional start; Ting's CSB1 with confidence 1; discrete
stumps; stop when alpha <= 0), not a bug of ours: each set's whole data (the detected class: the minority), for
C1 in {1, 2, 4, 8} (our grid, C2 = 1), 50 rounds, by

* ours: ``AdaCostClassifier`` / ``CSB1Classifier`` (stumps over every distinct value);
* an independent loop written here from the papers' formulas, with scikit-learn's depth-1
  ``DecisionTreeClassifier`` (Gini, sample weights) as the stump: it does not share a line with ours.

Columns of adacost_check.csv: set, method, C1, rounds (weak learners fitted), first_r (AdaCost: r of the first
stump of the independent loop; CSB1: its weighted error), train_auc (AUC of the decision function on the training
data itself), for ``ours`` and ``indep``; and flags_all_cv5, the share of the five rates at which the method's
errors in the ``cv5`` run (results/alt/cs_boost_readings/stumps_cv5_folds.csv), summed over its outer folds, equal
the set's negatives (every fold's detector flags every example).

    CSREPRO_DATA_DIR=... python results/alt/cs_boost_adacost/adacost_check.py    # about 1 min
"""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.tree import DecisionTreeClassifier

from csrepro import AdaCostClassifier, CSB1Classifier
from csrepro.data.loaders import load_dataset

HERE = Path(__file__).resolve().parent
SETS = ["pima", "bupa", "wdbc", "sonar", "wpbc", "breastw", "echocardiogram", "cleveland_binary", "tictactoe",
        "haberman"]
GRID, ROUNDS = (1.0, 2.0, 4.0, 8.0), 50


def _stump(X, y01, w):
    h = DecisionTreeClassifier(max_depth=1).fit(X, y01, sample_weight=w)
    return h, np.where(h.predict(X) == 1, 1.0, -1.0)


def independent(method, X, y01, C1, C2=1.0):
    """(rounds, first_r, F on X) of AdaCost (Fan et al. 1999) or CSB1 (Ting 2000) from the formulas."""
    y = np.where(y01 == 1, 1.0, -1.0)
    cost = np.where(y > 0, C1, C2)
    c = cost / (C1 + C2) if method == "adacost" else cost
    w = c / c.sum()
    F, rounds, first = np.zeros(len(y)), 0, None
    for _ in range(ROUNDS):
        h, hx = _stump(X, y01, w)
        correct = hx == y
        if method == "adacost":
            beta = np.where(correct, 0.5 * (1 - c), 0.5 * (1 + c))
            stat = float(np.sum(w * y * hx * beta))  # r
            alpha = 0.5 * np.log((1 + stat) / (1 - stat))
        else:
            stat = float(w[~correct].sum())  # weighted error
            alpha = 0.5 * np.log((1 - stat) / stat) if 0 < stat < 0.5 else -1.0
        first = stat if first is None else first
        if alpha <= 0:
            break
        F += alpha * hx
        rounds += 1
        w = w * (np.exp(-alpha * y * hx * beta) if method == "adacost" else np.where(correct, np.exp(-1.0), c * np.e))
        w /= w.sum()
    return rounds, first, F


def flags_all(method: str) -> pd.Series:
    """Per set: the share of the five rates at which ``method``'s errors, summed over the cv5 run's outer folds,
    equal the set's negatives (the majority class): every fold's detector flags every example."""
    folds = pd.read_csv(HERE.parent / "cs_boost_readings" / "stumps_cv5_folds.csv")
    totals = folds[folds.column == method].groupby(["dataset", "rate"]).errors.sum()
    negatives = {name: int(np.unique(load_dataset(name).y, return_counts=True)[1].max())
                 for name in totals.index.get_level_values(0).unique()}
    return pd.Series({name: float(np.mean(t.to_numpy() == negatives[name]))
                      for name, t in totals.groupby(level=0)})


def main():
    rows = []
    for name in SETS:
        d = load_dataset(name)
        vals, cnt = np.unique(d.y, return_counts=True)
        y01 = (d.y == vals[np.argmin(cnt)]).astype(int)
        for method, cls in [("adacost", AdaCostClassifier), ("csb1", CSB1Classifier)]:
            for C1 in GRID:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours = cls(C1=C1, C2=1.0, n_estimators=ROUNDS, weak_learner="stump").fit(d.X, y01)
                rounds, first, F = independent(method, d.X, y01, C1)
                rows.append({"set": name, "method": method, "C1": C1,
                             "rounds_ours": ours.n_estimators_, "rounds_indep": rounds, "first_r": round(first, 4),
                             "train_auc_ours": round(roc_auc_score(y01, ours.decision_function(d.X)), 3),
                             "train_auc_indep": round(roc_auc_score(y01, F), 3)})
    table = pd.DataFrame(rows)
    for method in ("adacost", "csb1"):
        share = flags_all(method)
        table.loc[table.method == method, "flags_all_cv5"] = table.loc[table.method == method, "set"].map(share)
    table.to_csv(HERE / "adacost_check.csv", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
