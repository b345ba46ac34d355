"""`python -m csrepro.run`: override checks, a killed run resumed, multirun sweeps, results.root."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from csrepro import runner
from csrepro.config import ConfigError
from csrepro.run import check_overrides
from csrepro.store import PART_GLOB, read_store, store_dir

REPO = Path(__file__).resolve().parents[1]
# Any method ids of the registry that fit in milliseconds; the tests do not depend on which.
METHODS = {"mcboost": {"n_estimators": 3}, "gll_mcboost": {"n_estimators": 3}}
VOLATILE = ["finished_at", "fit_seconds", "predict_seconds"]
SMOKE_TRIALS = 2 * 2 * 2  # conf/exp/smoke.yaml: datasets x n_trials x methods

# Runs run_experiment(json config) in a fresh process; fits sleep argv[2] seconds so it can be killed mid-way.
SLOW_RUN = """
import json, sys, time
from csrepro import methods, runner

real = methods.make_estimator

def make_slow(*args, **kwargs):
    est = real(*args, **kwargs)
    fit = est.fit
    est.fit = lambda X, y: (time.sleep(float(sys.argv[2])), fit(X, y))[1]
    return est

methods.make_estimator = make_slow
runner.run_experiment(json.loads(sys.argv[1]))
"""


def cli(*args, cwd=REPO, check=True):
    proc = subprocess.run([sys.executable, "-m", "csrepro.run", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


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


def test_cli_typo_fails_fast_with_choices(tmp_path):
    proc = cli("+exp=smoke", "exp.n_trial=5", f"results.root={tmp_path}", check=False)
    assert proc.returncode != 0 and "valid fields" in proc.stderr and "'n_trials'" in proc.stderr
    proc = cli("+exp=smoke", "exp.datasets=[sk_iris,glass2]", f"results.root={tmp_path}", check=False)
    assert proc.returncode != 0 and "unknown dataset(s) ['glass2']" in proc.stderr and "'sk_wine'" in proc.stderr
    assert not store_dir(tmp_path / "smoke").exists()


def test_multirun_with_relative_results_root(tmp_path):
    proc = cli("-m", "+exp=smoke", "exp.n_trials=1,2", "results.root=rel/res", "runner.progress=false", cwd=tmp_path)
    assert "#1 : +exp=smoke exp.n_trials=2" in proc.stdout + proc.stderr
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
    proc = subprocess.Popen([sys.executable, str(script), json.dumps(cfg), "0.1"], cwd=tmp_path)
    parts = store_dir(tmp_path / "killed" / "k")
    deadline = time.monotonic() + 60
    while len(list(parts.glob(PART_GLOB))) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = read_store(tmp_path / "killed" / "k")
    assert 0 < len(partial) < total

    subprocess.run([sys.executable, str(script), json.dumps(cfg), "0"], cwd=tmp_path, check=True, timeout=120)
    resumed = read_store(tmp_path / "killed" / "k")
    assert len(resumed) == total and resumed["trial_id"].is_unique
    kept = resumed.set_index("trial_id").loc[partial["trial_id"], "finished_at"]
    assert list(kept) == list(partial["finished_at"])

    clean = runner.run_experiment({**cfg, "results": {"root": str(tmp_path / "clean")}})
    pd.testing.assert_frame_equal(stable(resumed), stable(clean))
