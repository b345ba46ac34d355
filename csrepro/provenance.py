"""Where a run came from: the git commit of the code and the file name of the runner's run record.

results/<exp>/run_info.json is written by the runner at the end of a run, a JSON object with
  command       the command line that ran the experiment (str)
  started       ISO 8601 start time (str)
  finished      ISO 8601 end time (str)
  wall_seconds  wall-clock seconds of the whole run (number)
  git_commit    commit of the code that ran (str)
and the trial counts (trials, resumed, ran, failed).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
RUN_INFO = "run_info.json"
RUN_INFO_KEYS = ("command", "started", "finished", "wall_seconds", "git_commit")
#: paths whose changes do not make the code "dirty": what runs and reports write into the tree
GENERATED = ("results",)


def git_commit(repo=REPO_ROOT) -> str:
    """Short HEAD commit of ``repo``, suffixed "-dirty" when tracked files outside GENERATED changed;
    "unknown" outside git."""
    def git(*args):
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".",
                    *(f":(top,exclude){path}" for path in GENERATED)).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if dirty else "")
