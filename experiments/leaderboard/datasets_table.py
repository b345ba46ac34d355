"""The leaderboard's datasets (issue 30, "Power"): one row per dataset with its size, number of classes and
imbalance ratio, and the rows each split gives to training and test (the large sets are subsampled:
conf/dataset/leaderboard.yaml), read from the experiment's config and the data, never typed.

``datasets_table()`` returns the table (a DataFrame); ``python experiments/leaderboard/datasets_table.py [exp]``
prints it as CSV.  Columns:

* ``dataset``: the name in the problem ids (``<dataset>__<family>``); ``source``: its registry id;
* ``rows``, ``features`` (after the registry's encoding, e.g. one-hot columns), ``classes`` (K): the whole dataset;
* ``imbalance_ratio``: the largest class count over the smallest, on the whole dataset;
* ``n_train``, ``n_test``: the rows of a split's training and test parts (a stratified holdout keeps every class's
  share, so every split has the same counts), after the protocol's ``train_size`` subsample;
* ``subsampled``: whether the split uses fewer rows than the dataset has; ``protocol``: the dataset's protocol keys
  that differ from the experiment's.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from csrepro.config import compose
from csrepro.data.loaders import load_dataset
from csrepro.runner import trial_split
from csrepro.scoring import METRICS
from csrepro.trials import plan_trials

COLUMNS = ("dataset", "source", "rows", "features", "classes", "imbalance_ratio", "n_train", "n_test", "subsampled",
           "protocol")


def datasets_table(exp_name: str = "leaderboard", data_root=None, download: bool = False) -> pd.DataFrame:
    """One row per dataset of experiment ``exp_name`` (module docstring), in the config's order."""
    exp = compose(exp_name, metric_names=METRICS).exp
    plans, _ = plan_trials(exp)
    base = dict(exp.protocol)
    rows, seen = [], set()
    for alias, plan in plans.items():
        name = alias.partition("__")[0]
        if name in seen:
            continue
        seen.add(name)
        data = load_dataset(plan.source, data_root=data_root, download=download)
        counts = np.unique(data.y, return_counts=True)[1]
        _, _, train, test = trial_split(plan, 0, data_root, download)
        own = {k: v for k, v in plan.protocol.items() if base.get(k) != v}
        rows.append({"dataset": name, "source": plan.source, "rows": len(data.y), "features": data.X.shape[1],
                     "classes": len(counts), "imbalance_ratio": round(float(counts.max() / counts.min()), 1),
                     "n_train": len(train), "n_test": len(test), "subsampled": len(train) + len(test) < len(data.y),
                     "protocol": ", ".join(f"{k}={v}" for k, v in sorted(own.items()))})
    return pd.DataFrame(rows, columns=list(COLUMNS))


if __name__ == "__main__":
    print(datasets_table(*sys.argv[1:2]).to_csv(index=False), end="")
