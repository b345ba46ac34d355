"""Fig. 4's vowel row with the speaker and sex columns kept as features (issue 31).

Appel et al. do not say which copy of the vowel data they used.  The UCI file (vowel-context.data) has, before
the ten features and the label, a train/test flag, the speaker (0-14) and the speaker's sex (0/1); our registry
drops all three (csrepro/data/registry.py, ``vowel``), as the LIBSVM copy does, while OpenML's ``vowel`` (id 307)
keeps speaker and sex as features.  This script runs every Fig. 4 method of conf/exp/rebel_uci.yaml on the
config's five vowel splits (the same rows: the loader keeps the file's row order, checked) with the speaker and sex
appended as two more features, through the runner's own ``fit_and_score`` (the same seeds, number of weak learners
on validation, percent test error).  Writes ``vowel_speaker_sex.csv`` (every trial) and prints each method's mean
and SE beside the configured run's (results/rebel_uci/comparison.csv) and the published value.  Run from the
repository root (CSREPRO_DATA_DIR set):

    .venv/bin/python experiments/rebel/scripts/vowel_speaker_sex.py [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from csrepro.config import compose
from csrepro.runner import _dataset, fit_and_score, trial_split
from csrepro.scoring import METRICS
from csrepro.trials import plan_trials

ROOT = Path(__file__).resolve().parents[3]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "results" / "alt" / "rebel_vowel_speaker_sex"))
    args = ap.parse_args(argv)
    root = os.environ.get("CSREPRO_DATA_DIR")
    cfg = compose("rebel_uci", ["exp.datasets=[vowel]"], metric_names=METRICS).exp
    plans, trials = plan_trials(cfg)
    plan, data = plans["vowel"], _dataset("vowel", root, False)
    raw = pd.read_csv(Path(root) / "vowel" / "vowel-context.data", sep=r"\s+", header=None).to_numpy(float)
    assert np.array_equal(raw[:, 3:13], data.X) and np.array_equal(raw[:, 13].astype(int), data.y), "row order differs"
    X = np.hstack([data.X, raw[:, 1:3]])  # + speaker, sex
    classes = np.unique(data.y)
    C = 1.0 - np.eye(len(classes))
    rows, start = [], time.process_time()
    for trial in trials:
        _, seed, train, test = trial_split(plan, trial.trial, root, False)
        scored = fit_and_score(trial, plan.metrics, C, classes, X[train], data.y[train], X[test],
                               np.searchsorted(classes, data.y[test]))
        rows.append({"trial": trial.trial, "split_seed": seed, "method": trial.method,
                     "error_pct": 100 * scored["error"], "selected": scored.get("selected", "")})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df = pd.DataFrame(rows)
    df.to_csv(out / "vowel_speaker_sex.csv", index=False)
    committed = pd.read_csv(ROOT / "results" / "rebel_uci" / "comparison.csv").query("row == 'vowel'")
    summary = df.groupby("method")["error_pct"].agg(["mean", "sem", "count"]).join(
        committed.set_index("column")[["published", "reproduced", "reproduced_se"]])
    summary.round(2).to_csv(out / "summary.csv")
    print(summary.round(2).to_string())
    print(f"{len(df)} fits, {time.process_time() - start:.0f} s CPU")


if __name__ == "__main__":
    main()
