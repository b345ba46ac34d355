"""Result store: Parquet part files under ``<exp_dir>/store``, one row per finished trial.

Every file is written under a temporary name in the same folder and then renamed with
``os.replace``, so a reader (or a killed writer) never sees a partial file. Parts are merged by
:func:`compact` (the merged part is written before the old ones are removed). Rows are
deduplicated by ``trial_id`` on read, keeping the latest ``finished_at``, so a crash between
writing and removing parts can never produce duplicates.

A part that cannot be read (truncated by a full disk or a killed copy) makes every read raise
:class:`DamagedStoreError`, naming the file; :func:`quarantine_damaged` moves such parts to
``<exp_dir>/quarantine/`` (the runner does this first, then recomputes their trials).

**The plan.** Before any trial runs, a run records what it was asked to run beside the parts:
``plan-<key>.parquet``, one row per planned trial key (``PLAN_COLUMNS``: trial_id, config_hash,
dataset, trial, method, params), where ``key`` is csrepro.config.plan_key of the experiment's
settings (its ``exp`` node but paper and report). ``python -m csrepro.run`` also records the plan
of the experiment file without overrides (the full-scale plan a reduced run is measured against),
under that plan's key. A rerun of the same settings rewrites the same file with the same rows, so
a resumed run adds nothing, and the jobs of a sweep never write one file with different rows.
The store's plan (:func:`read_plan`) is the union of its plan files: every trial any run of the
store planned (the union of what was asked, not the latest request), so a reduced run followed by
the full one (or a run with another override, or the jobs of a sweep) leaves every plan, and rows
of old settings stay planned under their old keys, as their trials stay stored. The report reads
from that union the trials its config asks for (csrepro.trials.asked_for), once the plan of that config or
of its experiment file is among the recorded keys; it never plans. Plan files are not parts: :func:`read_store`, :func:`compact` and
:func:`delete_trials` read only ``part-*.parquet``. A store written before plans were recorded
has none; rerunning its command (it resumes, running no stored trial) records it.

**The lock.** A run holds ``<exp_dir>/run.lock`` (:func:`store_lock`: an exclusive ``flock``, with the
holder's pid written in the file) from before it records its plan until its last write; a second run
into the same folder stops with :class:`StoreLockedError` naming that pid. The kernel releases the
lock when its holder dies, so the file of a killed run (a stale lock) is simply taken over.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
import uuid
from pathlib import Path

import pandas as pd
import pyarrow as pa

STORE_DIR = "store"
QUARANTINE_DIR = "quarantine"
FAILURES = "failures.csv"  # beside the store: the trials that failed, until a run retries them (csrepro.runner)
PART_GLOB = "part-*.parquet"
PLAN_GLOB = "plan-*.parquet"
PLAN_COLUMNS = ("trial_id", "config_hash", "dataset", "trial", "method", "params")
LOCK_FILE = "run.lock"
_READ_ATTEMPTS = 5


class DamagedStoreError(ValueError):
    """A store part that cannot be read; ``paths`` lists the damaged files."""

    def __init__(self, message: str, paths: list[Path]):
        super().__init__(message)
        self.paths = paths


class StoreLockedError(RuntimeError):
    """Another live process holds the store's lock (module docstring, "The lock"); ``pid`` is its pid."""

    def __init__(self, message: str, pid: int | None):
        super().__init__(message)
        self.pid = pid


def store_dir(exp_dir) -> Path:
    """The store folder of an experiment folder."""
    return Path(exp_dir) / STORE_DIR


def folder_problem(path) -> str | None:
    """Why files cannot be written into the folder ``path`` (None: they can; it need not exist yet): it,
    or the nearest existing folder above it, is a file, or that folder is not writable. Nothing is left
    behind (writability is probed by making and removing a folder: access bits do not bind root)."""
    path = Path(path).expanduser().absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    try:
        with tempfile.TemporaryDirectory(dir=existing, prefix=".csrepro-probe-"):
            pass
    except OSError as err:
        return f"{existing} is not writable ({err.strerror})"
    return None


def atomic_write(path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` via a temporary file in the same folder and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def lock_holder(exp_dir) -> int | None:
    """The pid of the live process holding the lock of ``exp_dir`` (None: nobody; nothing is created)."""
    path = Path(exp_dir) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _pid_in(fd) or -1
    finally:
        os.close(fd)  # closing releases a shared lock taken just to probe
    return None


def check_unlocked(exp_dir) -> None:
    """Raise StoreLockedError when another process holds the lock of ``exp_dir``."""
    pid = lock_holder(exp_dir)
    if pid is not None:
        raise _locked(exp_dir, pid)


@contextlib.contextmanager
def store_lock(exp_dir):
    """Hold the lock of ``exp_dir`` (created with its folder) for the ``with`` block; StoreLockedError when
    another live process holds it. The file is removed on exit (module docstring, "The lock")."""
    path = Path(exp_dir) / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(fd)
            os.close(fd)
            raise _locked(exp_dir, pid or -1) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:  # else the holder removed the file between our open and our flock: open the new one
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        path.unlink(missing_ok=True)  # before unlocking, so that a waiting opener sees a new file
        os.close(fd)


def _pid_in(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 32, 0).decode().strip() or 0) or None
    except (OSError, ValueError):
        return None


def _locked(exp_dir, pid: int) -> StoreLockedError:
    who = f"pid {pid}" if pid > 0 else "another process"
    return StoreLockedError(f"the results folder {exp_dir} is in use by a run ({who}); wait for it to finish "
                            "(this command then resumes its trials) or set another results.root", pid)


def write_part(exp_dir, rows) -> Path | None:
    """Add ``rows`` (list of dicts or DataFrame) to the store as a new part; None when there are no rows."""
    frame = pd.DataFrame(rows)
    if frame.empty:
        return None
    return atomic_write(store_dir(exp_dir) / f"part-{uuid.uuid4().hex}.parquet", frame.to_parquet(index=False))


def plan_path(exp_dir, key: str) -> Path:
    """The plan file of the settings with plan key ``key`` (csrepro.config.plan_key)."""
    return store_dir(exp_dir) / f"plan-{key}.parquet"


def write_plan(exp_dir, key: str, rows) -> Path:
    """Record the planned trial keys ``rows`` (dicts or DataFrame with PLAN_COLUMNS) of the settings ``key``."""
    frame = pd.DataFrame(rows, columns=list(PLAN_COLUMNS))
    return atomic_write(plan_path(exp_dir, key), frame.to_parquet(index=False))


def read_plan(exp_dir) -> tuple[set[str], pd.DataFrame]:
    """The keys of the recorded plans and the union of their rows (one per ``trial_id``); an empty
    set and DataFrame for a store without a plan. An unreadable plan file raises DamagedStoreError."""
    read = [(p, _read_part(p)) for p in sorted(store_dir(exp_dir).glob(PLAN_GLOB))]
    paths, frames = [p for p, f in read if f is not _VANISHED], [f for _, f in read if f is not _VANISHED]
    damaged = [p for p, f in zip(paths, frames) if f is None]
    if damaged:
        raise DamagedStoreError(
            f"unreadable plan file(s) {', '.join(map(str, damaged))}; delete them and rerun the experiment "
            f"(python -m csrepro.run +exp={Path(exp_dir).name} with the same overrides: it resumes and records "
            "the plan again)", damaged)
    keys = {p.name[len("plan-"):-len(".parquet")] for p in paths}
    if not frames:
        return keys, pd.DataFrame(columns=list(PLAN_COLUMNS))
    frame = pd.concat(frames, ignore_index=True).drop_duplicates("trial_id").reset_index(drop=True)
    return keys, frame


def read_store(exp_dir) -> pd.DataFrame:
    """All finished trials of ``exp_dir`` (one row per ``trial_id``); an empty DataFrame when there are none."""
    return _read_parts(exp_dir)[1]


def compact(exp_dir) -> Path | None:
    """Merge the parts into one; returns the merged part, or None when there was nothing to merge."""
    paths, frame = _read_parts(exp_dir)
    if len(paths) < 2:
        return None
    merged = write_part(exp_dir, frame)
    _remove(paths)
    return merged


def delete_trials(exp_dir, trial_ids) -> int:
    """Remove the rows of ``trial_ids`` from the store; returns how many were removed."""
    paths, frame = _read_parts(exp_dir)
    if frame.empty:
        return 0
    drop = frame["trial_id"].isin(set(trial_ids))
    if drop.any():
        write_part(exp_dir, frame[~drop])
        _remove(paths)
    return int(drop.sum())


def quarantine_damaged(exp_dir) -> list[Path]:
    """Move the unreadable parts of the store to ``<exp_dir>/quarantine/``; returns their new paths."""
    moved = []
    for path in sorted(store_dir(exp_dir).glob(PART_GLOB)):
        if _read_part(path) is None:
            target = Path(exp_dir) / QUARANTINE_DIR / path.name
            target.parent.mkdir(exist_ok=True)
            os.replace(path, target)
            moved.append(target)
    return moved


def _read_part(path):
    """A part's rows; None when it is unreadable; ``_VANISHED`` when a concurrent compact removed it."""
    try:
        return pd.read_parquet(path)
    except FileNotFoundError:
        return _VANISHED
    except (pa.ArrowException, OSError):
        return None


_VANISHED = object()


def _read_parts(exp_dir) -> tuple[list[Path], pd.DataFrame]:
    """The part files and their deduplicated rows.

    A part removed by a concurrent :func:`compact` (which first wrote its rows to a new part)
    makes the read start over with a fresh listing; unreadable parts raise DamagedStoreError.
    """
    folder = store_dir(exp_dir)
    for _ in range(_READ_ATTEMPTS):
        paths = sorted(folder.glob(PART_GLOB))
        frames = [_read_part(p) for p in paths]
        if any(f is _VANISHED for f in frames):
            continue
        damaged = [p for p, f in zip(paths, frames) if f is None]
        if damaged:
            raise DamagedStoreError(
                f"unreadable store part(s) {', '.join(map(str, damaged))} (truncated by a full disk or a killed "
                f"copy?); rerun the experiment (python -m csrepro.run +exp={Path(exp_dir).name} with the same "
                f"overrides) to move them to {Path(exp_dir) / QUARANTINE_DIR} and recompute their trials", damaged)
        return paths, _dedupe(frames)
    raise RuntimeError(f"the parts of {folder} kept changing while being read ({_READ_ATTEMPTS} attempts); "
                       "wait for the other process writing this store to finish and read again")


def _dedupe(frames: list[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame()
    frame = pd.concat(frames, ignore_index=True).sort_values("finished_at", kind="stable")
    return frame.drop_duplicates("trial_id", keep="last").reset_index(drop=True)


def _remove(paths) -> None:
    for path in paths:
        Path(path).unlink(missing_ok=True)
