"""Result store: atomic part files, dedupe on read, compaction, deletion, concurrent compaction, the lock."""

import os
import subprocess
import sys

import pandas as pd
import pytest

from csrepro import store


def rows(ids, finished="2025-01-01T00:00:00", risk=1.0):
    return [{"trial_id": i, "risk": risk, "finished_at": finished} for i in ids]


def parts(exp_dir):
    return sorted(store.store_dir(exp_dir).glob(store.PART_GLOB))


def test_empty_store_reads_as_empty_frame(tmp_path):
    assert store.read_store(tmp_path / "nothing").empty
    assert store.write_part(tmp_path, []) is None
    assert store.compact(tmp_path) is None
    assert store.delete_trials(tmp_path, ["a"]) == 0


def test_parts_round_trip_and_leave_no_temporary_files(tmp_path):
    store.write_part(tmp_path, rows(["a", "b"]))
    store.write_part(tmp_path, pd.DataFrame(rows(["c"])))
    assert len(parts(tmp_path)) == 2
    assert sorted(store.read_store(tmp_path)["trial_id"]) == ["a", "b", "c"]
    assert [p.name for p in store.store_dir(tmp_path).iterdir() if not p.name.startswith("part-")] == []


def test_read_ignores_partial_files_of_a_killed_writer(tmp_path):
    store.write_part(tmp_path, rows(["a"]))
    (store.store_dir(tmp_path) / ".part-x.parquet.123.tmp").write_bytes(b"PAR1 truncated")
    assert list(store.read_store(tmp_path)["trial_id"]) == ["a"]


def test_duplicates_keep_the_latest_finished_row(tmp_path):
    store.write_part(tmp_path, rows(["a", "b"], "2025-01-02T00:00:00", risk=2.0))
    store.write_part(tmp_path, rows(["a"], "2025-01-01T00:00:00", risk=1.0))
    store.write_part(tmp_path, rows(["b"], "2025-01-03T00:00:00", risk=3.0))
    got = store.read_store(tmp_path)
    assert sorted(zip(got["trial_id"], got["risk"])) == [("a", 2.0), ("b", 3.0)]


def test_compact_merges_parts_into_one_with_the_same_rows(tmp_path):
    for i in range(4):
        store.write_part(tmp_path, rows([f"t{i}", "dup"], f"2025-01-0{i + 1}T00:00:00", risk=float(i)))
    before = store.read_store(tmp_path).sort_values("trial_id").reset_index(drop=True)
    merged = store.compact(tmp_path)
    assert parts(tmp_path) == [merged]
    after = store.read_store(tmp_path).sort_values("trial_id").reset_index(drop=True)
    pd.testing.assert_frame_equal(before, after)
    assert len(after) == 5 and after.set_index("trial_id").loc["dup", "risk"] == 3.0
    assert store.compact(tmp_path) is None


def test_delete_trials_removes_only_those_rows(tmp_path):
    store.write_part(tmp_path, rows(["a", "b"]))
    store.write_part(tmp_path, rows(["c"]))
    assert store.delete_trials(tmp_path, {"a", "c", "zz"}) == 2
    assert list(store.read_store(tmp_path)["trial_id"]) == ["b"]
    assert store.delete_trials(tmp_path, ["b"]) == 1
    assert store.read_store(tmp_path).empty and parts(tmp_path) == []


def test_read_restarts_when_a_concurrent_compaction_removes_a_part(tmp_path, monkeypatch):
    for i in range(3):
        store.write_part(tmp_path, rows([f"t{i}"]))
    real_read = pd.read_parquet
    calls = []

    def read_after_another_process_compacted(path, *args, **kwargs):
        if not calls:
            monkeypatch.setattr(store.pd, "read_parquet", real_read)
            store.compact(tmp_path)  # the "other process": writes the merged part, removes the old ones
        calls.append(path)
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(store.pd, "read_parquet", read_after_another_process_compacted)
    assert sorted(store.read_store(tmp_path)["trial_id"]) == ["t0", "t1", "t2"]
    assert len(parts(tmp_path)) == 1


def test_read_gives_up_on_a_store_that_keeps_changing(tmp_path, monkeypatch):
    store.write_part(tmp_path, rows(["a"]))

    def vanished(path, *args, **kwargs):
        raise FileNotFoundError(path)

    monkeypatch.setattr(store.pd, "read_parquet", vanished)
    with pytest.raises(RuntimeError, match="kept changing"):
        store.read_store(tmp_path)


def test_atomic_write_replaces_whole_files(tmp_path):
    path = store.atomic_write(tmp_path / "sub" / "info.json", "old")
    store.atomic_write(path, b"new")
    assert path.read_text() == "new" and [p.name for p in path.parent.iterdir()] == ["info.json"]


def test_an_unreadable_part_is_named_then_quarantined(tmp_path):
    store.write_part(tmp_path, rows(["a"]))
    bad = store.write_part(tmp_path, rows(["b"]))
    truncated = bad.read_bytes()[:100]  # as a full disk or a killed copy leaves it
    bad.write_bytes(truncated)
    with pytest.raises(store.DamagedStoreError, match=f"{bad.name}.*python -m csrepro.run \\+exp={tmp_path.name}") as err:
        store.read_store(tmp_path)
    assert err.value.paths == [bad]
    moved = store.quarantine_damaged(tmp_path)
    assert moved == [tmp_path / store.QUARANTINE_DIR / bad.name] and moved[0].read_bytes() == truncated
    assert list(store.read_store(tmp_path)["trial_id"]) == ["a"]
    assert store.quarantine_damaged(tmp_path) == []


def plan_rows(ids, dataset="d"):
    return [{"trial_id": i, "config_hash": "h", "dataset": dataset, "trial": t, "method": "m", "params": "{}"}
            for t, i in enumerate(ids)]


def test_plans_are_a_union_of_files_beside_the_parts_that_reads_ignore(tmp_path):
    """Plan files (one per plan key; rewriting a key replaces it) are read as the union of their rows;
    read_store, compact and delete_trials see only the parts."""
    keys, plan = store.read_plan(tmp_path)
    assert keys == set() and plan.empty and list(plan.columns) == list(store.PLAN_COLUMNS)
    store.write_part(tmp_path, rows(["a"]))
    store.write_plan(tmp_path, "k1", plan_rows(["a", "b"]))
    store.write_plan(tmp_path, "k2", pd.DataFrame(plan_rows(["a", "b", "c"])))
    store.write_plan(tmp_path, "k1", plan_rows(["a", "b"]))  # a rerun of the same settings: the same file
    keys, plan = store.read_plan(tmp_path)
    assert keys == {"k1", "k2"} and list(plan.columns) == list(store.PLAN_COLUMNS)
    assert sorted(plan["trial_id"]) == ["a", "b", "c"]
    assert list(store.read_store(tmp_path)["trial_id"]) == ["a"]
    store.write_part(tmp_path, rows(["b"]))
    store.compact(tmp_path)
    assert store.delete_trials(tmp_path, ["a"]) == 1
    assert len(parts(tmp_path)) == 1 and list(store.read_store(tmp_path)["trial_id"]) == ["b"]
    assert len(list(store.store_dir(tmp_path).glob(store.PLAN_GLOB))) == 2


def test_a_damaged_plan_file_is_named(tmp_path):
    store.write_plan(tmp_path, "k1", plan_rows(["a"]))
    bad = store.plan_path(tmp_path, "k2")
    bad.write_bytes(b"PAR1 truncated")
    with pytest.raises(store.DamagedStoreError, match="plan-k2.parquet") as err:
        store.read_plan(tmp_path)
    assert err.value.paths == [bad]


def test_the_lock_names_its_holder_and_is_removed_after(tmp_path):
    exp_dir = tmp_path / "e"
    assert store.lock_holder(exp_dir) is None and not exp_dir.exists()  # a probe creates nothing
    with store.store_lock(exp_dir) as path:
        assert path.read_text() == f"{os.getpid()}\n"
        assert store.lock_holder(exp_dir) == os.getpid()  # flock: another open file, even in this process
        with pytest.raises(store.StoreLockedError, match=rf"in use by a run \(pid {os.getpid()}\); wait for it"):
            with store.store_lock(exp_dir):
                pass
        with pytest.raises(store.StoreLockedError):
            store.check_unlocked(exp_dir)
    assert not path.exists() and store.lock_holder(exp_dir) is None
    store.check_unlocked(exp_dir)


def test_a_stale_lock_file_is_taken_over(tmp_path):
    """A lock file whose writer died holds no flock: the next run takes it (whatever pid it names)."""
    exp_dir = tmp_path / "e"
    exp_dir.mkdir()
    (exp_dir / store.LOCK_FILE).write_text("999999999\n")
    assert store.lock_holder(exp_dir) is None
    with store.store_lock(exp_dir) as path:
        assert path.read_text() == f"{os.getpid()}\n"


HOLD = """
import sys, time
from csrepro.store import store_lock
with store_lock(sys.argv[1]):
    print("held", flush=True)
    time.sleep(120)
"""


def test_two_processes_one_store(tmp_path):
    """A second process is refused while the first holds the lock, naming its pid; once the first is killed
    (its lock file left behind), the lock is taken over."""
    exp_dir = tmp_path / "e"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(exp_dir)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        assert store.lock_holder(exp_dir) == holder.pid
        with pytest.raises(store.StoreLockedError, match=rf"\(pid {holder.pid}\)") as err:
            with store.store_lock(exp_dir):
                pass
        assert err.value.pid == holder.pid
    finally:
        holder.kill()
        holder.wait()
    assert (exp_dir / store.LOCK_FILE).exists()  # killed: nothing removed it
    with store.store_lock(exp_dir):
        assert store.lock_holder(exp_dir) == os.getpid()


def test_folder_problems_are_named_and_nothing_is_created(tmp_path):
    (tmp_path / "file").write_text("x")
    assert store.folder_problem(tmp_path / "new" / "deeper") is None
    assert store.folder_problem(tmp_path / "file") == f"{tmp_path / 'file'} is a file, not a folder"
    assert store.folder_problem(tmp_path / "file" / "sub") == f"{tmp_path / 'file'} is a file, not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]
