"""Tables III.4/III.5 fixed-a cells with 4-bin histograms (issue 31 ledger; see experiments/thesis/NOTES.md,
*Histogram resolution*).

The run (its store is not committed; the command re-creates it, about 20 s on one core):
    python -m csrepro.run +exp=thesis_uci_margin results.root=results/alt/thesis_hist4 \\
        'exp.methods.clog.grid.a=[0.2,1.0]' 'exp.methods.cboost.grid.a=[0.2,1.0]' \\
        'exp.methods.cgauss.grid.a=[1.0,8.0]' 'exp.methods.claplace.grid.a=[1.0,8.0]' \\
        +exp.methods.clog.hist_bins=4 +exp.methods.cboost.hist_bins=4 +exp.methods.cgauss.hist_bins=4 \\
        +exp.methods.claplace.hist_bins=4 '~exp.methods.clog_cv' '~exp.methods.cboost_cv' \\
        '~exp.methods.cgauss_cv' '~exp.methods.claplace_cv' '~exp.methods.adaboost' '~exp.methods.logitboost'
(the report does not take '~' deletions, so this script computes the cells from the store with the
same aggregation as results/alt/thesis_uniform_bins/uniform_bins.py: 5-fold mean errors, their SE,
the project's rule, beside the committed value).  Writes uci_cells.csv beside itself.
"""

from __future__ import annotations

import glob
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "thesis_uniform_bins"))
from uniform_bins import uci_cells  # noqa: E402

from csrepro.report.compare import load_published  # noqa: E402


def main() -> None:
    store = pd.concat(pd.read_parquet(f) for f in sorted(glob.glob(f"{HERE}/thesis_uci_margin/store/part-*.parquet")))
    cells = uci_cells(store[["dataset", "trial", "method", "errors"]], load_published("experiments/thesis/published.csv"),
                      pd.read_csv("results/thesis_uci_margin/comparison.csv"))
    cells.to_csv(HERE / "uci_cells.csv", index=False)
    print(cells.to_string())


if __name__ == "__main__":
    main()
