"""The O'Brien rule comparisons with every rule of a trial on the same out-of-fold probabilities (issue 31).

The committed claims (results/obrien_rda_*/figures/wins.csv) come from runs whose rules drew their 9 inner folds from
each method's own model seed (``protocol.selection_seed: method``), so the parallel partition and Lachiche-Flach of one
trial learned from different out-of-fold probabilities.  Under ``protocol.selection_seed: trial`` (csrepro.trials,
csrepro.methods.rule_on_model) every rule of a (dataset, split) uses one seed.  The rerun (rules only: under zero-one
costs eq. (1), the parallel partition, its column form, 2 passes, a random order and Lachiche-Flach on segmentation,
yeast and glass; under the frequency and random families eq. (1), the partition and Lachiche-Flach on the sets whose
committed partition-vs-Lachiche-Flach outcome is not a tie; all 20 trials):

    python -m csrepro.run +exp=<obrien_rda_zero_one|_frequency|_random> +exp.protocol.selection_seed=trial \\
        '~exp.methods.<every other method>' 'exp.datasets=[segmentation,yeast,glass]' results.root=/tmp/obrien_sel
    python -m csrepro.report <exp> <the same overrides>

This script puts each rerun's figures/wins.csv beside the committed one: per (family, dataset, other method) the
partition's mean cost and the other's, the paired p and the outcome under both seedings.  Writes summary.csv to
--out (default results/alt/obrien_selection_trial).  Run from the repository root:

    .venv/bin/python experiments/obrien/scripts/selection_trial_summary.py --rerun /tmp/obrien_sel
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[3]
FAMILIES = ("zero_one", "frequency", "random")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rerun", default="/tmp/obrien_sel")
    ap.add_argument("--out", default=str(ROOT / "results" / "alt" / "obrien_selection_trial"))
    args = ap.parse_args(argv)
    key = ["dataset", "reference", "other"]
    rows = []
    for family in FAMILIES:
        exp = f"obrien_rda_{family}"
        rerun = Path(args.rerun) / exp / "figures" / "wins.csv"
        if not rerun.is_file():
            continue
        new = pd.read_csv(rerun)
        old = pd.read_csv(ROOT / "results" / exp / "figures" / "wins.csv")
        both = new.merge(old, on=key, suffixes=("_trial_seed", "_method_seed"), how="left")
        rows.append(both.assign(family=family))
    out = pd.concat(rows, ignore_index=True)
    cols = ["family", *key] + [f"{c}_{s}" for s in ("method_seed", "trial_seed")
                               for c in ("cost_reference", "cost_other", "p", "outcome")]
    out = out[cols]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    out.to_csv(Path(args.out) / "summary.csv", index=False, float_format="%.6g")
    changed = out[out["outcome_method_seed"] != out["outcome_trial_seed"]]
    print(out.to_string(index=False, float_format="%.4g"))
    print(f"{len(changed)} of {len(out)} outcomes change")


if __name__ == "__main__":
    main()
