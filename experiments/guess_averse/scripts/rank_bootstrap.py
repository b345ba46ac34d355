"""Claim 1 of Beijbom et al. 2014 ("GLL-MCBoost ... achieves the best average rank", Table 2) under a paired
bootstrap over the trials (issue 31).

Reads the trials of a stored full run of conf/exp/guess_averse_uci.yaml (default
results/alt/guess_averse_rerun/guess_averse_uci/store; its Table 2 means are compared with the committed
results/guess_averse_uci/comparison.csv and any cell that differs is named).  Each draw resamples, per data set, its trials with
replacement, the same trials for all six methods (every method of a trial shares its split and cost matrix, so
the pairing is kept), takes each method's mean risk, ranks the methods per set (1 = lowest, ties averaged) and
averages the ranks over the ten sets.  Reports over 10,000 seeded draws: each method's average rank (mean and
2.5 / 97.5 % quantiles), the share of draws in which GLL's average rank is below P-MCBoost's, and the share in
which GLL's is the lowest.  Rule (fixed before the run): the claim holds if GLL is first in at least 95 % of
draws, does not hold if it is first in at most 5 %, and is undecided otherwise.  Writes rank_bootstrap.csv
beside the store's experiment folder.  Run from the repository root:

    .venv/bin/python experiments/guess_averse/scripts/rank_bootstrap.py [--store DIR]
"""

from __future__ import annotations

import argparse
import glob
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import rankdata

DRAWS, SEED = 10_000, 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", default="results/alt/guess_averse_rerun/guess_averse_uci/store")
    args = ap.parse_args()
    trials = pd.concat(pd.read_parquet(f, columns=["dataset", "trial", "method", "risk"])
                       for f in glob.glob(f"{args.store}/part-*.parquet"))
    risk = trials.pivot_table(index=["dataset", "trial"], columns="method", values="risk")
    committed = pd.read_csv("results/guess_averse_uci/comparison.csv")
    committed = committed[(committed["table"] == "Table 2") & (committed["row"] != "avg_rank")]
    means = risk.groupby(level="dataset").mean()
    got = np.array([means.loc[r, c] for r, c in zip(committed["row"], committed["column"], strict=True)])
    # comparison.csv keeps 10 significant digits: a cell that differs by more than that rounding is named
    rel = np.abs(got / committed["reproduced"].to_numpy() - 1)
    for (_, cell), r in zip(committed.iterrows(), rel, strict=True):
        if r > 1e-9:
            print(f"differs from the committed run: {cell['row']} {cell['column']} (relative {r:.1e})")
    methods = list(risk.columns)
    rng = np.random.default_rng(SEED)
    ranks = np.zeros((DRAWS, len(methods)))
    sets = sorted(means.index)
    for d in sets:
        block = risk.loc[d].to_numpy()  # trials x methods
        idx = rng.integers(0, len(block), size=(DRAWS, len(block)))
        ranks += rankdata(block[idx].mean(axis=1), axis=1)
    ranks /= len(sets)
    g, p = methods.index("gll_mcboost"), methods.index("p_mcboost")
    out = pd.DataFrame({"method": methods, "avg_rank_observed": rankdata(means.to_numpy(), axis=1).mean(axis=0),
                        "avg_rank_mean": ranks.mean(axis=0), "q025": np.quantile(ranks, 0.025, axis=0),
                        "q975": np.quantile(ranks, 0.975, axis=0),
                        "share_first": (ranks.argmin(axis=1)[:, None] == np.arange(len(methods))).mean(axis=0)})
    out["share_gll_below_p_mcboost"] = float((ranks[:, g] < ranks[:, p]).mean())
    path = Path(args.store).parent / "rank_bootstrap.csv"
    out.round(4).to_csv(path, index=False)
    print(out.round(3).to_string(index=False))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
