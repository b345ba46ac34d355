"""Check that a refactoring changes no result: every experiment at a reduced scale, before and after.

    python scripts/move_check.py run OUT          # run + report every experiment into OUT (minutes)
    python scripts/move_check.py compare OLD NEW  # stored rows bit for bit (timings aside), comparison.csv bytes

Run ``run`` from a checkout of the old commit (``git worktree add``) and from the new one, then
``compare``.  Each experiment's reduced scale is in its paper's experiments/<paper>/paper.yaml (``reduced``):
it keeps the experiment's shape (its protocol, costs, every method id, per-dataset overrides) on a few trials and
datasets; the short experiments run in full.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]


def reduced() -> dict[str, list[str]]:
    """Experiment -> overrides of its reduced run ([]: the full experiment, seconds), from every
    experiments/<paper>/paper.yaml (``reduced``)."""
    scales = {}
    for path in sorted((REPO / "experiments").glob("*/paper.yaml")):
        scales.update(yaml.safe_load(path.read_text()).get("reduced") or {})
    return scales


UNREPORTED = {"smoke"}  # no paper, so no report
# columns that differ between two runs of the same trials
VOLATILE = {"fit_seconds", "predict_seconds", "finished_at", "started_at", "git_commit", "versions", "run_id", "host"}


def run(out: Path) -> None:
    """Run and report every experiment (experiments/*/conf/exp) at its reduced scale into ``out``; stops at the
    first failure."""
    exps = sorted(p.stem for p in (REPO / "experiments").glob("*/conf/exp/*.yaml"))
    scales = reduced()
    missing = sorted(set(exps) - set(scales))
    if missing:
        sys.exit(f"no reduced scale for {missing}; add them under `reduced:` in their experiments/<paper>/paper.yaml")
    for exp in exps:
        over = scales[exp] + [f"results.root={out / 'results'}"]
        py = [sys.executable, "-m"]
        subprocess.run(py + ["csrepro.run", f"+exp={exp}", "runner.progress=false", *over], cwd=REPO, check=True)
        if exp not in UNREPORTED:
            subprocess.run(py + ["csrepro.report", exp, *over[:-1], f"results.root={out / 'results'}",
                                 "--out", str(out / "reports")], cwd=REPO, check=True)


def _rows(folder: Path) -> pd.DataFrame:
    frame = pd.concat([pd.read_parquet(p) for p in sorted((folder / "store").glob("part-*.parquet"))],
                      ignore_index=True)
    keep = [c for c in frame.columns if c not in VOLATILE]
    return frame[keep].sort_values("trial_id", kind="stable").reset_index(drop=True)


def _same(a: pd.Series, b: pd.Series) -> bool:
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        x, y = a.to_numpy(), b.to_numpy()
        return x.shape == y.shape and np.array_equal(x.view(np.uint64), y.view(np.uint64))
    return a.astype(str).tolist() == b.astype(str).tolist()


def compare(old: Path, new: Path) -> int:
    """Print one line per experiment; returns the number of experiments that differ."""
    bad = 0
    for folder in sorted((old / "results").iterdir()):
        if not (folder / "store").is_dir():
            continue
        exp = folder.name
        a, b = _rows(folder), _rows(new / "results" / exp)
        problems = []
        if set(a.columns) != set(b.columns):
            problems.append(f"columns differ: only old {sorted(set(a.columns) - set(b.columns))}, "
                            f"only new {sorted(set(b.columns) - set(a.columns))}")
        elif len(a) != len(b) or not a["trial_id"].equals(b["trial_id"]):
            problems.append(f"trial ids differ ({len(a)} vs {len(b)} rows)")
        else:
            problems += [f"column {c} differs" for c in a.columns if not _same(a[c], b[c])]
        for path in sorted((old / "reports" / exp).rglob("comparison.csv")):
            other = new / "reports" / exp / path.relative_to(old / "reports" / exp)
            if not other.exists() or other.read_bytes() != path.read_bytes():
                problems.append(f"{path.relative_to(old)} differs")
        bad += bool(problems)
        print(f"{exp}: {len(a)} rows, " + ("; ".join(problems) if problems else "identical"))
    return bad


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        run(Path(sys.argv[2]).resolve())
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(1 if compare(Path(sys.argv[2]), Path(sys.argv[3])) else 0)
    else:
        sys.exit(__doc__)
