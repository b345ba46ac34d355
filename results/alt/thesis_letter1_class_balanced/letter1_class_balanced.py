"""Table IV.3 reading (issue 31, 28 Nov 2026): AdaBoost (stumps) and RealBoost (16-bin histograms) on LETTER.p1
started from class-balanced weights instead of uniform ones, 1000 iterations, the predefined 4000 / 16000 split.

The engine's CS-AdaBoost and CS-RealBoost at C1 = C2 = 1 are AdaBoost and RealBoost (tested to 1e-10 in
experiments/cs_boost); ``class_balanced`` switches the start.  Run from the repository root:
    python results/alt/thesis_letter1_class_balanced/letter1_class_balanced.py
Writes errors.csv beside this script (test errors of each booster and start)."""

from pathlib import Path

import numpy as np
import pandas as pd

from csrepro.boosting.cost_sensitive import CSAdaBoostClassifier, CSRealBoostClassifier
from csrepro.data.loaders import load_dataset

ds = load_dataset("letter_p1")
test = np.asarray(ds.predefined_test, dtype=bool)
rows = []
for name, cls, weak in (("adaboost", CSAdaBoostClassifier, "stump"), ("realboost", CSRealBoostClassifier, "histogram")):
    for balanced in (False, True):
        model = cls(C1=1.0, C2=1.0, n_estimators=1000, weak_learner=weak, class_balanced=balanced)
        model.fit(ds.X[~test], ds.y[~test])
        rows.append({"method": name, "start": "class-balanced" if balanced else "uniform",
                     "test_errors": int(np.sum(model.predict(ds.X[test]) != ds.y[test]))})
out = pd.DataFrame(rows)
out.to_csv(Path(__file__).with_name("errors.csv"), index=False)
print(out.to_string(index=False))
