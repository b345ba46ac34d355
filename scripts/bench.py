"""Speed of CD-MCBoost (issue 3): Cython kernels vs their NumPy references vs one LightGBM round.

Prints, for shuttle and pendigits (training files), seconds per boosting iteration (all M-1
coordinate steps) for each loss on both backends and their ratio, the ratio of the Cython
iteration to one LightGBM multiclass round of comparable work (K depth-1 trees, 200 bins,
one thread like our kernels), and the recorded wall time of ``make reproduce-guess-averse``.
Writes the same table to results/BENCH.md.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np

from csrepro.boosting import mcboost
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.costs import random_symmetric
from csrepro.data.loaders import load_dataset

ROOT = Path(__file__).resolve().parents[1]
LOSSES = ["gll", "gel", "mcboost", "ls", "lt"]
ITERS = {"cython": 20, "numpy": 3}


def per_iteration(X, y, C, loss, backend):
    """Seconds per boosting iteration (median of 3 fits of ITERS[backend] iterations)."""
    T = ITERS[backend]
    times = []
    for _ in range(3):
        mcboost._FITS.clear()  # time real trainings, not the memo of a previous fit
        t = time.perf_counter()
        MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=T, backend=backend).fit(X, y)
        times.append((time.perf_counter() - t) / T)
    return float(np.median(times))


def lightgbm_round(X, y):
    """Seconds per LightGBM multiclass round with depth-1 trees and 200 bins, one thread."""
    import lightgbm as lgb

    def fit(rounds):
        t = time.perf_counter()
        lgb.LGBMClassifier(objective="multiclass", n_estimators=rounds, max_depth=1, num_leaves=2,
                           max_bin=200, min_child_samples=1, n_jobs=1, verbose=-1).fit(X, y)
        return time.perf_counter() - t

    return float(np.median([(fit(41) - fit(1)) / 40 for _ in range(3)]))


def main():
    lines = ["# Benchmark: CD-MCBoost iteration time", "",
             f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
             f"single-threaded kernels; date {time.strftime('%Y-%m-%d')}.", "",
             "| dataset | n x d, K | loss | Cython s/iter | NumPy s/iter | NumPy/Cython | LightGBM s/round | Cython/LightGBM |",
             "|---|---|---|---|---|---|---|---|"]
    for name in ["shuttle", "pendigits"]:
        ds = load_dataset(name)
        train = ~ds.predefined_test
        X, y = ds.X[train], ds.y[train]
        K = len(np.unique(y))
        C = random_symmetric(K, random_state=0)
        lgbm = lightgbm_round(X, y)
        for loss in LOSSES:
            cy, ref = per_iteration(X, y, C, loss, "cython"), per_iteration(X, y, C, loss, "numpy")
            row = (f"| {name} | {X.shape[0]} x {X.shape[1]}, {K} | {loss} | {cy:.4f} | {ref:.4f} | "
                   f"{ref / cy:.1f}x | {lgbm:.4f} | {cy / lgbm:.1f}x |")
            print(row, flush=True)
            lines.append(row)
    info = ROOT / "results" / "guess_averse_uci" / "run_info.json"
    if info.exists():
        run = json.loads(info.read_text())
        msg = f"Full `make reproduce-guess-averse` wall time: {run.get('wall_seconds', float('nan')):.0f} s ({run.get('finished', '?')})."
    else:
        msg = "Full `make reproduce-guess-averse` wall time: not recorded yet (results/guess_averse_uci/run_info.json missing)."
    print(msg)
    lines += ["", msg, ""]
    (ROOT / "results" / "BENCH.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
