"""What a report says of its results: the runner's run_info.json (csrepro.provenance.read_run_info), the store's
compute time and the failed trials."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from csrepro.provenance import RUN_INFO, RUN_INFO_KEYS
from csrepro.store import FAILURES


def results_lines(store: pd.DataFrame, run_info: dict | None) -> list[str]:
    """Markdown bullets naming the run (command, dates, wall time, commit) and the store's compute time."""
    if run_info is None:
        lines = [f"- Run: no {RUN_INFO} (written by the runner at the end of a run)"]
    else:
        get = {k: run_info.get(k, "?") for k in RUN_INFO_KEYS}
        wall = get["wall_seconds"]
        wall = f"{wall:.1f} s" if isinstance(wall, (int, float)) else wall
        lines = [f"- Run: `{get['command']}` from {get['started']} to {get['finished']}, wall time {wall}, "
                 f"git commit {get['git_commit']}"]
    if store.empty:
        return lines + ["- Store: no finished trials"]
    seconds = sum(store[c].sum() for c in ("fit_seconds", "predict_seconds") if c in store.columns)
    commits = ", ".join(sorted(map(str, store["git_commit"].dropna().unique()))) if "git_commit" in store else "?"
    span = (f", finished {store['finished_at'].min()} to {store['finished_at'].max()}"
            if "finished_at" in store.columns else "")
    return lines + [f"- Store: {len(store)} trials, fit + predict time {seconds:.1f} s, git commit(s) {commits}{span}"]


def failure_lines(exp_dir, trial_ids) -> list[str]:
    """Markdown bullets listing the failed trials among ``trial_ids`` (results/<exp>/failures.csv) by error."""
    path = Path(exp_dir) / FAILURES
    if not path.is_file():
        return []
    failed = pd.read_csv(path, dtype=str, keep_default_na=False)
    failed = failed[failed["trial_id"].isin(trial_ids)]
    if failed.empty:
        return []
    counts = failed.groupby(["dataset", "method", "error"]).size()
    return [f"- Failed: {len(failed)} trials not stored (tracebacks in {FAILURES}; rerunning the experiment "
            "retries them)", *[f"  - {dataset}, {method}: {n} x {error[:200]}"
                               for (dataset, method, error), n in counts.items()]]
