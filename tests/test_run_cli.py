"""`python -m csrepro.run`: override checks, a killed run resumed, Ctrl-C, two runs into one store, multirun sweeps,
results.root, what users type, the composition, the report of smoke.

The entry point runs in the test's process (``cli``) except where a test needs a process of its own: one to
kill (SIGKILL, its lock left behind), one to interrupt (SIGINT to its process group), one whose pid the second run
names."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import hydra
import pandas as pd
import pytest
from hydra import initialize_config_dir
from omegaconf import OmegaConf

from csrepro import run, runner
from csrepro.config import CONF_DIR, ConfigError, compose, compose_overrides
from csrepro.report.__main__ import main as report_main
from csrepro.run import check_overrides
from csrepro.store import PART_GLOB, read_store, store_dir

REPO = Path(__file__).resolve().parents[1]
# Any method ids of the registry that fit in milliseconds; the tests do not depend on which.
METHODS = {"mcboost": {"n_estimators": 3}, "gll_mcboost": {"n_estimators": 3}}
VOLATILE = ["finished_at", "fit_seconds", "predict_seconds"]
SMOKE_METHODS = len(compose("smoke").exp.methods)  # the fits of one stored part (a dataset and trial) of smoke
SMOKE_TRIALS = 2 * 2 * SMOKE_METHODS  # conf/exp/smoke.yaml: datasets x n_trials x methods

# The start of the fresh-process scripts below: after ``free`` fits, every fit waits until the process is killed or
# interrupted, so that the test acts on a run that is certainly still going, with a known number of stored parts (a
# part per (dataset, trial) group, one fit per method: runner.n_jobs=1, the fits run in the process, where the patch
# is), whatever the machine's speed.
GATE = """
import sys, time
from csrepro import methods

real, fits = methods.make_estimator, [0]

def gated(free):
    def make(*args, **kwargs):
        est = real(*args, **kwargs)
        fit = est.fit

        def waiting(X, y, **kw):
            fits[0] += 1
            while fits[0] > free:
                time.sleep(0.01)
            return fit(X, y, **kw)

        est.fit = waiting
        return est

    methods.make_estimator = make
"""

# run_experiment(argv[1], a json config) in a fresh process, its fits gated after argv[2]
SLOW_RUN = GATE + """
import json
from csrepro import runner

gated(int(sys.argv[2]))
runner.run_experiment(json.loads(sys.argv[1]))
"""


def cli(entry_point, *args, cwd=REPO, check=True) -> tuple[int, str, str]:
    """``python -m csrepro.run ARGS`` from ``cwd``, in this process (tests/conftest.py): exit status, stdout, stderr."""
    status, out, err = entry_point("run", *args, cwd=cwd)
    if check:
        assert status == 0, out + err
    return status, out, err


def stable(rows):
    return rows.drop(columns=VOLATILE).sort_values("trial_id").reset_index(drop=True)


def test_override_check_lists_valid_fields():
    with pytest.raises(ConfigError, match=r"exp has no 'n_trial'; valid fields: \[.*'n_trials'"):
        check_overrides(["+exp=smoke", "exp.n_trial=5"])
    with pytest.raises(ConfigError, match=r"runner.dask has no 'adress'.*'address'"):
        check_overrides(["+exp=smoke", "runner.dask.adress=x"])
    with pytest.raises(ConfigError, match=r"pass \+exp=<name>, one of \[.*'guess_averse_uci'.*'smoke'.*\]"):
        check_overrides(["exp.n_trials=5"])
    check_overrides(["-m", "+exp=smoke", "exp.n_trials=1,2", "runner=dask", "cost@exp.cost=zero_one",
                     "+exp.methods.ls_mcboost={}", "hydra.verbose=true", "exp.protocol.test_size=0.5"])
    check_overrides(["--cfg", "job"])


def test_cli_typo_fails_fast_with_choices(tmp_path, monkeypatch, capsys):
    """The entry point in this process (it stops before Hydra starts a job; the same stop in a fresh process:
    tests/test_bad_inputs.py::test_a_bad_input_stops_the_same_in_a_fresh_process)."""
    def stderr_of(*args):
        monkeypatch.setattr(sys, "argv", ["csrepro.run", *args])
        with pytest.raises(SystemExit) as stop:
            run.main()
        assert stop.value.code != 0
        return capsys.readouterr().err

    err = stderr_of("+exp=smoke", "exp.n_trial=5", f"results.root={tmp_path}")
    assert "valid fields" in err and "'n_trials'" in err
    err = stderr_of("+exp=smoke", "exp.datasets=[sk_iris,glass2]", f"results.root={tmp_path}")
    assert "unknown dataset(s) ['glass2']" in err and "'sk_wine'" in err
    assert not store_dir(tmp_path / "smoke").exists()


def test_multirun_with_relative_results_root(tmp_path, entry_point):
    _, out, err = cli(entry_point, "-m", "+exp=smoke", "exp.n_trials=1,2", "results.root=rel/res",
                      "runner.progress=false", cwd=tmp_path)
    assert "#1 : +exp=smoke exp.n_trials=2" in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel"]
    rows = read_store(tmp_path / "rel" / "res" / "smoke")
    assert len(rows) == SMOKE_TRIALS and sorted(rows["trial"].unique()) == [0, 1]
    info = json.loads((tmp_path / "rel" / "res" / "smoke" / "run_info.json").read_text())
    assert info["command"].startswith("python -m csrepro.run +exp=smoke exp.n_trials=2")
    assert (info["resumed"], info["ran"]) == (SMOKE_TRIALS // 2, SMOKE_TRIALS // 2)


def test_killed_run_resumes_to_the_rows_of_an_uninterrupted_run(tmp_path):
    cfg = {"exp": {"name": "k", "datasets": ["sk_iris", "sk_wine"], "n_trials": 8, "methods": METHODS,
                   "protocol": {"name": "holdout", "test_size": 0.3},
                   "cost": {"kind": "random_symmetric", "low": 1, "high": 10}, "preprocessing": {"standardize": True}},
           "runner": {"progress": False}, "results": {"root": str(tmp_path / "killed")}}
    total = 2 * 8 * len(METHODS)
    script = tmp_path / "slow_run.py"
    script.write_text(SLOW_RUN)
    proc = subprocess.Popen([sys.executable, str(script), json.dumps(cfg), str(3 * len(METHODS))], cwd=tmp_path)
    parts = store_dir(tmp_path / "killed" / "k")
    deadline = time.monotonic() + 60
    while len(list(parts.glob(PART_GLOB))) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"  # it waits after 3 parts' fits
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = read_store(tmp_path / "killed" / "k")
    assert len(partial) == 3 * len(METHODS) < total

    runner.run_experiment(cfg)  # the script's run without its gate, in this process
    resumed = read_store(tmp_path / "killed" / "k")
    assert len(resumed) == total and resumed["trial_id"].is_unique
    kept = resumed.set_index("trial_id").loc[partial["trial_id"], "finished_at"]
    assert list(kept) == list(partial["finished_at"])

    clean = runner.run_experiment({**cfg, "results": {"root": str(tmp_path / "clean")}})
    pd.testing.assert_frame_equal(stable(resumed), stable(clean))


# `python -m csrepro.run ARGS` (argv[2:]) in a fresh process, its fits gated after argv[1]
SLOW_CLI = GATE + """
import signal
from csrepro import run

# Ctrl-C raises KeyboardInterrupt, as in a terminal's foreground job, even when the test's own process ignores
# SIGINT (pytest-xdist's workers do, and a child started with SIGINT ignored keeps ignoring it)
signal.signal(signal.SIGINT, signal.default_int_handler)
gated(int(sys.argv[1]))
sys.argv = ["csrepro.run", *sys.argv[2:]]
run.main()
"""


def slow_cli(tmp_path, *args, free):
    """The run of ``args`` in a fresh process whose fits wait after the first ``free`` (:data:`GATE`)."""
    script = tmp_path / "slow_cli.py"
    script.write_text(SLOW_CLI)
    return subprocess.Popen([sys.executable, "-W", "ignore", str(script), str(free), "+exp=smoke",
                             "runner.progress=false", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own process group, as a terminal's foreground job


def wait_for_parts(exp_dir, proc, n=1):
    deadline = time.monotonic() + 120
    while len(list(store_dir(exp_dir).glob(PART_GLOB))) < n and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before the test could act"


def test_ctrl_c_prints_one_line_exits_130_and_the_same_command_resumes(tmp_path, entry_point):
    args = (f"results.root={tmp_path / 'r'}", "exp.n_trials=5")
    planned = 2 * 5 * SMOKE_METHODS  # datasets x trials x methods
    proc = slow_cli(tmp_path, *args, free=SMOKE_METHODS)  # one part, then it waits
    wait_for_parts(tmp_path / "r" / "smoke", proc)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group (loky workers too)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and err.count("\n") == 1, err
    stored = len(read_store(tmp_path / "r" / "smoke"))
    assert err == f"interrupted: {stored} of {planned} trials stored; the same command resumes\n"
    assert stored == SMOKE_METHODS and not (tmp_path / "r" / "smoke" / "run.lock").exists()
    cli(entry_point, "+exp=smoke", "runner.progress=false", *args)  # in this process
    assert len(read_store(tmp_path / "r" / "smoke")) == planned


def test_a_second_run_into_the_same_store_stops_naming_the_first(tmp_path, entry_point):
    """Two runs, one results folder: the second (in this process) stops before any work naming the first's pid;
    after the first is killed (its lock file left behind), the same command takes the stale lock over and finishes
    the trials."""
    args = ("+exp=smoke", "runner.progress=false", f"results.root={tmp_path / 'r'}", "exp.n_trials=6")
    first = slow_cli(tmp_path, *args[2:], free=SMOKE_METHODS)  # one part, then it waits
    try:
        wait_for_parts(tmp_path / "r" / "smoke", first)
        parts = sorted(store_dir(tmp_path / "r" / "smoke").glob(PART_GLOB))
        status, out, err = cli(entry_point, *args, check=False)
        assert first.poll() is None, "the first run ended before the second checked the lock"
        assert status == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"store error: the results folder {tmp_path / 'r' / 'smoke'} is in use by a "
                              f"run (pid {first.pid}); wait for it to finish")
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    assert (tmp_path / "r" / "smoke" / "run.lock").exists()
    assert all(p in sorted(store_dir(tmp_path / "r" / "smoke").glob(PART_GLOB)) for p in parts)
    cli(entry_point, *args)
    assert len(read_store(tmp_path / "r" / "smoke")) == SMOKE_TRIALS * 3


# What users type works (composed as the command line composes it, run in this process).
WORKS = [
    ("+exp.per_dataset.sk_iris.n_trials=1",),
    ("cost@exp.cost=zero_one",),
    ("protocol@exp.protocol=kfold", "~exp.protocol.test_size"),
    ("exp.methods.mcboost.n_estimators=1", "+exp.methods.mcboost.decision=bayes"),
    ("~exp.protocol.test_size", "+exp.protocol.test_count=40"),
    ("runner.n_jobs=-1", "runner.resume=false"),
]


@pytest.mark.parametrize("args", WORKS, ids=[" ".join(a) for a in WORKS])
def test_documented_forms_work(args, tmp_path):
    rows = runner.run_experiment(compose("smoke", [f"results.root={tmp_path}", "runner.progress=false",
                                                   "exp.n_trials=1", *args]))
    assert not rows.empty and len(read_store(tmp_path / "smoke")) == len(rows)
    if "+exp.protocol.test_count=40" in args:
        assert set(rows["n_test"]) == {40}


def test_per_dataset_n_trials_from_the_command_line(tmp_path):
    runner.run_experiment(compose("smoke", [f"results.root={tmp_path}", "runner.progress=false",
                                            "+exp.per_dataset.sk_iris.n_trials=1"]))
    trials = read_store(tmp_path / "smoke").groupby("dataset")["trial"].nunique()
    assert trials.to_dict() == {"sk_iris": 1, "sk_wine": 2}


def test_failed_trials_are_retried_by_the_same_command(tmp_path):
    """One training row (stratify off, 149 of 150 held out) leaves a single class: every trial fails, every run."""
    cfg = compose("smoke", [f"results.root={tmp_path}", "runner.progress=false", "exp.datasets=[sk_iris]",
                            "~exp.protocol.test_size", "+exp.protocol.test_count=149", "exp.protocol.stratify=false"])
    for _ in range(2):
        with pytest.raises(runner.TrialsFailed, match=r"4 of the 4 trials run failed .*needs at least 2 classes"):
            runner.run_experiment(cfg, strict=True)
        assert len(pd.read_csv(tmp_path / "smoke" / runner.FAILURES)) == 4
    assert read_store(tmp_path / "smoke").empty


def test_truncated_part_is_quarantined_and_its_trials_recomputed(tmp_path, caplog):
    cfg = compose("smoke", [f"results.root={tmp_path}", "runner.progress=false"])
    complete = runner.run_experiment(cfg)
    part, = store_dir(tmp_path / "smoke").glob(PART_GLOB)
    part.write_bytes(part.read_bytes()[:200])  # as a full disk or a killed copy leaves it
    recomputed = runner.run_experiment(cfg)
    assert f"moved 1 unreadable store part(s) to {tmp_path / 'smoke' / 'quarantine'}" in caplog.text
    assert (tmp_path / "smoke" / "quarantine" / part.name).is_file()
    pd.testing.assert_frame_equal(stable(recomputed), stable(complete))


def test_the_smallest_experiment_is_reported(tmp_path, capsys):
    """smoke names no paper: its report has no published cells, and its tables all the same."""
    runner.run_experiment(compose("smoke", [f"results.root={tmp_path}", "runner.progress=false"]))
    assert report_main(["smoke", f"results.root={tmp_path}"]) == 0
    text = (tmp_path / "smoke" / "REPORT.md").read_text()
    assert text.startswith("# smoke: reproduced (no paper: no published cells)\n")
    assert "- Trials: 8 of 8 planned trials (complete)" in text and "## Mean risk" in text and "## Mean error" in text
    assert "| sk_iris | rep | 2 |" in text
    assert (tmp_path / "smoke" / "tables" / "mean_risk.md").is_file()


@pytest.mark.parametrize("overrides", [
    ["+exp=smoke"],
    ["+exp=guess_averse_uci", "exp.n_trials=2", "+exp.methods.mcboost.inner_cv={param: n_estimators, values: [1, 2]}"],
    ["+exp=smoke", "protocol@exp.protocol=kfold", "~exp.protocol.test_size", "exp.protocol.n_splits=3"],
    ["+exp=smoke", "cost@exp.cost=zero_one", "runner=dask", "+exp.methods.ls_mcboost={}", "results.root=/x"],
    ["+exp=leaderboard", "exp.datasets=[sk_iris]", "+exp.per_dataset.sk_iris.n_trials=1"],
])
def test_composition_is_hydras(overrides):
    """csrepro.config composes the config groups once per process and applies the other overrides as Hydra
    does: the result is Hydra's own composition, flags included."""
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3", job_name="csrepro"):
        expected = hydra.compose(config_name="config", overrides=overrides)
    for _ in range(2):  # the second from the cache
        got = compose_overrides(overrides)
        assert OmegaConf.to_yaml(got) == OmegaConf.to_yaml(expected)
        assert OmegaConf.is_struct(got) and OmegaConf.is_struct(expected)
    with pytest.raises(ConfigError, match=r"Could not override 'exp.methods'\. To append to your config use"):
        compose_overrides(["+exp=smoke", "exp.methods={ls_mcboost: {}}"])
