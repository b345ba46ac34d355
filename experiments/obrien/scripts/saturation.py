"""Saturation of RDA's probabilities on the O'Brien sets (issue 31): the share of rows whose largest class
probability exceeds 0.999, where the parallel partition (an additive shift of each class's expected cost,
eq. 12) cannot move the decision while Lachiche-Flach's multiplicative column weights (eqs. 4-5) still can.

For each set of conf/exp/obrien_rda_zero_one.yaml: the first training part of the experiment's protocol
(stratified 10-fold, seeded as below, not the runner's seed), features standardised on it as the suite does,
and the rules' input, 9-fold out-of-fold probabilities of :class:`csrepro.RegularizedDiscriminantAnalysis`
on it (seeded stratified folds, as ``cv=9`` in Sec. 6); then the test part's probabilities from RDA refitted on
the whole training part.  Reports both shares (max p > 0.999, and > 0.99 for scale), the out-of-fold error of argmax p and the share of
those errors made on saturated rows (where no shift of the costs can correct them but a large weight can), and the
partition-vs-Lachiche-Flach outcomes stored in results/obrien_rda_*/figures/wins.csv (paired t-test over
20 trials at 5 %, win = the partition's).  Writes results/alt/obrien_saturation/saturation.csv.
Run from the repository root (about a minute):

    CSREPRO_DATA_DIR=/work/shared/datasets .venv/bin/python experiments/obrien/scripts/saturation.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.preprocessing import StandardScaler

from csrepro import RegularizedDiscriminantAnalysis
from csrepro.config import compose
from csrepro.data.loaders import load_dataset

REPO = Path(__file__).resolve().parents[3]
OUT = REPO / "results" / "alt" / "obrien_saturation"
SEED = 0
COST_FAMILIES = ("zero_one", "frequency", "random")


def shares(p: np.ndarray) -> tuple[float, float]:
    """Share of rows with max_k p_k > 0.999 and > 0.99."""
    top = p.max(axis=1)
    return float((top > 0.999).mean()), float((top > 0.99).mean())


def outcomes(dataset: str) -> str:
    """The stored partition-vs-Lachiche-Flach outcome under each cost family, e.g. 'zero_one loss, ...'."""
    out = []
    for fam in COST_FAMILIES:
        wins = REPO / "results" / f"obrien_rda_{fam}" / "figures" / "wins.csv"
        if wins.is_file():
            w = pd.read_csv(wins)
            row = w[(w["dataset"] == dataset) & (w["other"] == "lachiche_flach")]
            out += [f"{fam} {o}" for o in row["outcome"]]
    return ", ".join(out)


def main() -> None:
    rows = []
    for name in compose("obrien_rda_zero_one").exp.datasets:
        ds = load_dataset(name)
        X, y = np.asarray(ds.X, float), np.asarray(ds.y)
        train, test = next(StratifiedKFold(10, shuffle=True, random_state=SEED).split(X, y))
        scaler = StandardScaler().fit(X[train])
        Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
        n_inner = max(2, min(9, int(np.bincount(pd.factorize(y[train])[0]).min())))
        inner = StratifiedKFold(n_inner, shuffle=True, random_state=SEED)
        oof = cross_val_predict(RegularizedDiscriminantAnalysis(), Xtr, y[train], cv=inner, method="predict_proba")
        test_p = RegularizedDiscriminantAnalysis().fit(Xtr, y[train]).predict_proba(Xte)
        s_oof, s_oof99 = shares(oof)
        s_test, _ = shares(test_p)
        wrong = np.asarray(RegularizedDiscriminantAnalysis().fit(Xtr, y[train]).classes_)[oof.argmax(1)] != y[train]
        sat = oof.max(axis=1) > 0.999
        rows.append({"dataset": name, "n_train": len(train), "classes": len(np.unique(y)),
                     "oof_share_gt_0.999": round(s_oof, 3), "oof_share_gt_0.99": round(s_oof99, 3),
                     "test_share_gt_0.999": round(s_test, 3), "oof_error": round(float(wrong.mean()), 3),
                     "share_of_errors_saturated": round(float((wrong & sat).sum() / max(wrong.sum(), 1)), 3),
                     "partition_vs_lf": outcomes(name)})
        print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / "saturation.csv", index=False)


if __name__ == "__main__":
    main()
