"""The rtsafe safeguard of newton_line_search (29 Nov 2026) on real fits: every search done both ways.

Runs conf/exp/guess_averse_uci.yaml with ``--trials`` trials per set twice (one job each) into ``--out``: run
``after`` with the current code, in a subprocess; then run ``before`` in this process with MCBoost's line search
replaced by the pre-fix search (loaded from commit ``--before``'s csrepro/boosting/line_search.py via ``git show``),
which also calls the current search on the same objective and records whether its alpha differs and by how much.
Writes ``line_search_ab.json`` in ``--out``: the number of searches, evaluations of each version (histogram),
searches ending at max_iter, searches whose alpha differs (and the largest relative difference
|a_after - a_before| / (1 + |a_before|)), and the trials whose test risk or error differ between the two stores.
Run from the repository root:

    .venv/bin/python experiments/guess_averse/scripts/line_search_ab.py [--trials 8] [--out results/alt/line_search_ab]
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import types
from pathlib import Path

from csrepro.boosting import line_search, mcboost
from csrepro.run import main as run_main
from csrepro.store import read_store


def load_before(commit: str):
    """The pre-fix ``newton_line_search``, from ``commit``'s source."""
    module = types.ModuleType("line_search_before")
    exec(subprocess.check_output(["git", "show", f"{commit}:csrepro/boosting/line_search.py"], text=True),
         module.__dict__)
    return module.newton_line_search


def overrides(out: Path, trials: int) -> list[str]:
    """The run's command-line overrides: one job, ``trials`` trials per set, results under ``out``."""
    return ["+exp=guess_averse_uci", "runner.n_jobs=1", "runner.progress=false", f"exp.n_trials={trials}",
            f"results.root={out}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=8)
    ap.add_argument("--before", default="3fe2e7a")
    ap.add_argument("--out", default="results/alt/line_search_ab")
    args = ap.parse_args()
    out = Path(args.out)
    before, current = load_before(args.before), line_search.newton_line_search
    stats = collections.Counter()
    evaluations = {"before": collections.Counter(), "after": collections.Counter()}
    worst = 0.0

    def both(derivatives, tol=1e-8, max_iter=100, **kw):
        nonlocal worst
        a, n = before(derivatives, tol=tol, max_iter=max_iter, **kw)
        b, m = current(derivatives, tol=tol, max_iter=max_iter, **kw)
        stats["searches"] += 1
        stats["before_max_iter"] += n >= max_iter
        stats["after_max_iter"] += m >= max_iter
        evaluations["before"][n] += 1
        evaluations["after"][m] += 1
        if a != b:
            stats["alpha_differs"] += 1
            worst = max(worst, abs(b - a) / (1.0 + abs(a)))
        return a, n

    subprocess.run([sys.executable, "-m", "csrepro.run", *overrides(out / "after", args.trials)], check=True)
    mcboost.newton_line_search = both
    sys.argv = ["csrepro.run", *overrides(out / "before", args.trials)]
    try:
        run_main()
    except SystemExit as stop:  # Hydra's main may end with sys.exit(0)
        if stop.code:
            raise
    key = ["dataset", "trial", "method"]
    merged = read_store(out / "before" / "guess_averse_uci").merge(read_store(out / "after" / "guess_averse_uci"),
                                                                    on=key, suffixes=("_before", "_after"))
    differ = merged[(merged["risk_before"] != merged["risk_after"]) | (merged["error_before"] != merged["error_after"])]
    report = {"commit_before": args.before, "trials_per_set": args.trials, **stats,
              "largest_relative_alpha_difference": worst,
              "evaluations": {k: dict(sorted(v.items())) for k, v in evaluations.items()},
              "trials_compared": len(merged), "trials_whose_risk_or_error_differ": differ[key].to_dict("records")}
    (out / "line_search_ab.json").write_text(json.dumps(report, indent=1, default=int) + "\n")
    print(json.dumps({k: v for k, v in report.items() if k != "evaluations"}, indent=1, default=int))


if __name__ == "__main__":
    main()
