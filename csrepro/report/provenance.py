"""Where reports and results came from: git commit, the runner's run_info.json, compute time in the store.

results/<exp>/run_info.json is written by the runner at the end of a run, a JSON object with
  command       the command line that ran the experiment (str)
  started       ISO 8601 start time (str)
  finished      ISO 8601 end time (str)
  wall_seconds  wall-clock seconds of the whole run (number)
  git_commit    commit of the code that ran (str)
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd

REPO_ROOT = Path(__file__).resolve().parents[2]
RUN_INFO = "run_info.json"
RUN_INFO_KEYS = ("command", "started", "finished", "wall_seconds", "git_commit")


def git_commit(repo=REPO_ROOT) -> str:
    """Short HEAD commit of ``repo``, suffixed "-dirty" when tracked files changed; "unknown" outside git."""
    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        dirty = git("status", "--porcelain", "--untracked-files=no").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")


def read_run_info(exp_dir) -> dict | None:
    """The run's results/<exp>/run_info.json (keys RUN_INFO_KEYS), or None when the runner wrote none."""
    path = Path(exp_dir) / RUN_INFO
    if not path.is_file():
        return None
    try:
        info = json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not valid JSON ({err}); delete it or re-run the experiment") from err
    if not isinstance(info, dict):
        raise ValueError(f"{path} must hold a JSON object with keys {RUN_INFO_KEYS}; delete it or re-run")
    return info


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
