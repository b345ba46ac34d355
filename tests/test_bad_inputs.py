"""The bad-input catalogue: what a new user may type, and what each must do.

Every case runs the real command in a fresh process and asserts its exit status (2: stopped before
any work; 1: trials failed), its message (one line on stderr, no traceback), that no stored row
changed, and, for the whole module, that the committed reports under results/ are byte-identical.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from csrepro import run, runner
from csrepro.store import PART_GLOB, QUARANTINE_DIR, read_store, store_dir

REPO = Path(__file__).resolve().parents[1]
SMOKE = ("+exp=smoke", "runner.progress=false")


def digest(folder: Path) -> dict[str, str]:
    """sha256 of every file below ``folder`` (hidden Hydra folders aside), by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".hydra" not in p.parts}


def cli(*args, module="csrepro.run", cwd=REPO):
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module", autouse=True)
def committed_reports_unchanged():
    """The committed results/ (reports, comparison.csv, FIDELITY.md) are byte-identical after the catalogue."""
    before = digest(REPO / "results")
    yield
    assert digest(REPO / "results") == before


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A results root holding the smoke experiment's finished store."""
    path = tmp_path_factory.mktemp("results")
    proc = cli(*SMOKE, f"results.root={path}")
    assert proc.returncode == 0, proc.stderr
    return path


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    message: str


def empty_dir(tmp: Path) -> str:
    (tmp / "empty").mkdir(exist_ok=True)
    return str(tmp / "empty")


# Stopped before any work (exit status 2): config, data and protocol errors.
BEFORE_WORK = [
    Case("negative-n-estimators", ("exp.methods.mcboost.n_estimators=-5",), "'n_estimators' parameter"),
    Case("zero-n-estimators", ("exp.methods.mcboost.n_estimators=0",), "'n_estimators' parameter"),
    Case("text-n-estimators", ("exp.methods.mcboost.n_estimators=abc",), "'n_estimators' parameter"),
    Case("decision-typo", ("+exp.methods.mcboost.decision=bays",), "'decision' parameter"),
    Case("loss-typo", ("+exp.methods.mcboost.loss=foo",), "exp.methods.mcboost"),
    Case("inner-cv-bad-value", ("+exp.methods.gll_mcboost.inner_cv={param: n_estimators, values: [0, 5]}",
                                "~exp.methods.gll_mcboost.n_estimators"), "inner_cv value {'n_estimators': 0}"),
    Case("binary-only-on-multiclass", ("+exp.methods.adaboost={}",), "binary-only, but dataset 'sk_iris' has 3"),
    Case("unknown-method", ("+exp.methods.nope={}",), "unknown ['nope']"),
    Case("unknown-method-param", ("+exp.methods.mcboost.foo=1",), "unknown parameter(s) ['foo']"),
    Case("test-size-above-one", ("exp.protocol.test_size=1.5",), "test_size must be a fraction"),
    Case("loo-beyond-n", ("exp.protocol.name=loo", "~exp.protocol.test_size", "~exp.protocol.stratify",
                          "exp.n_trials=1000"), "leave-one-out has only 150 splits"),
    Case("label-noise-above-one", ("+exp.protocol.label_noise=1.5",), "label_noise must be a fraction"),
    Case("train-size-negative", ("+exp.protocol.train_size=-1",), "train_size must be"),
    Case("protocol-leftover-key", ("protocol@exp.protocol=kfold",), "'~exp.protocol.test_size'"),
    Case("unknown-protocol", ("exp.protocol.name=nope",), "name='nope' is not valid"),
    Case("unknown-protocol-file", ("protocol@exp.protocol=nope",), "Could not find 'protocol/nope'"),
    Case("unknown-cost-kind", ("exp.cost.kind=nope",), "kind='nope' is not valid"),
    Case("unknown-cost-param", ("+exp.cost.lo=1",), "unknown parameter(s) ['lo']"),
    Case("zero-trials", ("exp.n_trials=0",), "exp.n_trials must be >= 1"),
    Case("text-trials", ("exp.n_trials=abc",), "could not be converted to Integer"),
    Case("no-datasets", ("exp.datasets=[]",), "exp.datasets is empty"),
    Case("unknown-dataset", ("exp.datasets=[sk_iris,glass2]",), "unknown dataset(s) ['glass2']"),
    Case("dataset-twice", ("exp.datasets=[sk_iris,sk_iris]",), "lists a dataset twice"),
    Case("unknown-metric", ("exp.metrics=[risk,foo]",), "unknown ['foo']"),
    Case("field-typo", ("exp.n_trial=5",), "exp has no 'n_trial'"),
    Case("per-dataset-field-typo", ("+exp.per_dataset.sk_iris.n_trial=1",), "sk_iris has no 'n_trial'"),
    Case("per-dataset-unknown-id", ("+exp.per_dataset.nope.n_trials=1",), "exp.per_dataset: unknown dataset(s)"),
    Case("per-dataset-zero-trials", ("+exp.per_dataset.sk_iris.n_trials=0",), "n_trials must be >= 1"),
    Case("alias-of-registry-id", ("+exp.per_dataset.sk_iris.dataset=sk_wine",), "cannot be an alias"),
    Case("missing-key-without-plus", ("exp.methods.mcboost.loss=foo",), "+exp.methods.mcboost.loss=foo"),
    Case("bad-bool", ("exp.preprocessing.standardize=maybe",), "not a valid bool"),
    Case("override-syntax", ("exp.datasets=[sk_iris,",), "no viable alternative"),
    Case("delete-missing-key", ("~exp.nothing",), "'exp.nothing' does not exist"),
    Case("zero-jobs", ("runner.n_jobs=0",), "runner.n_jobs must be"),
    Case("text-jobs", ("runner.n_jobs=abc",), "could not be converted to Integer"),
    Case("unknown-backend", ("runner.backend=spark",), "runner.backend='spark' is not valid"),
    Case("unknown-runner-file", ("runner=nope",), "Could not find 'runner/nope'"),
    Case("data-root-missing", ("data.root=/nonexistent/csrepro",), "data.root=/nonexistent/csrepro is not a directory"),
    Case("results-root-unwritable", ("results.root=/dev/null/x",), "cannot create the results folder"),
]


def run_main(args, monkeypatch, capsys) -> tuple[int, str]:
    """``python -m csrepro.run ARGS`` in this process (every case below stops before Hydra starts)."""
    monkeypatch.setattr(sys, "argv", ["csrepro.run", *args])
    with pytest.raises(SystemExit) as stop:
        run.main()
    out, err = capsys.readouterr()
    assert out == ""
    return stop.value.code, err


@pytest.mark.parametrize("case", BEFORE_WORK, ids=[c.id for c in BEFORE_WORK])
def test_stops_before_any_work(case, root, monkeypatch, capsys):
    before = digest(root)
    status, err = run_main([*SMOKE, f"results.root={root}", *case.args], monkeypatch, capsys)
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert case.message in err
    assert digest(root) == before


def test_a_bad_input_stops_the_same_in_a_fresh_process(root):
    before = digest(root)
    proc = cli(*SMOKE, f"results.root={root}", "exp.methods.mcboost.n_estimators=-5")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("config error: exp.methods.mcboost: The 'n_estimators' parameter")
    assert digest(root) == before


@pytest.mark.parametrize("args, message", [
    (("+exp=nope",), "Could not find 'exp/nope'"),
    (("exp.n_trials=5",), "no experiment selected; pass +exp=<name>"),
])
def test_experiment_selection_errors(args, message, tmp_path):
    proc = cli(*args, f"results.root={tmp_path}")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_missing_data_file_is_one_message_before_work(tmp_path):
    """Named once, first, with the fix (it was at the bottom of a traceback, twice with n_jobs=2)."""
    proc = cli(*SMOKE, f"results.root={tmp_path}", "exp.datasets=[glass]", f"data.root={empty_dir(tmp_path)}",
               "data.download=false", "runner.n_jobs=2")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("data error: dataset 'glass' not found") and "CSREPRO_DATA_DIR" in proc.stderr
    assert not store_dir(tmp_path / "smoke").exists()


def test_debug_flag_shows_the_traceback(tmp_path):
    proc = cli(*SMOKE, f"results.root={tmp_path}", "exp.methods.mcboost.n_estimators=-5", "--debug")
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "n_estimators" in proc.stderr


def test_a_later_sweep_job_with_a_bad_value_stops_with_one_line(tmp_path):
    proc = cli("-m", *SMOKE, f"results.root={tmp_path}", "exp.methods.mcboost.n_estimators=3,-5")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("config error: exp.methods.mcboost")


# What users type works (exit 0).
WORKS = [
    ("+exp.per_dataset.sk_iris.n_trials=1",),
    ("cost@exp.cost=zero_one",),
    ("protocol@exp.protocol=kfold", "~exp.protocol.test_size"),
    ("exp.methods.mcboost.n_estimators=1", "+exp.methods.mcboost.decision=bayes"),
]


@pytest.mark.parametrize("args", WORKS, ids=[" ".join(a) for a in WORKS])
def test_documented_forms_work(args, tmp_path):
    proc = cli(*SMOKE, f"results.root={tmp_path}", "exp.n_trials=1", *args)
    assert proc.returncode == 0, proc.stderr
    assert not read_store(tmp_path / "smoke").empty


def test_per_dataset_n_trials_from_the_command_line(tmp_path):
    proc = cli(*SMOKE, f"results.root={tmp_path}", "+exp.per_dataset.sk_iris.n_trials=1")
    assert proc.returncode == 0, proc.stderr
    assert read_store(tmp_path / "smoke").groupby("dataset")["trial"].nunique().to_dict() == {"sk_iris": 1, "sk_wine": 2}


def test_failed_trials_exit_nonzero_with_a_summary_and_are_retried(tmp_path):
    """One training row (stratify off, 149 of 150 held out) leaves a single class: every trial fails."""
    args = (*SMOKE, f"results.root={tmp_path}", "exp.datasets=[sk_iris]", "exp.protocol.test_size=149",
            "exp.protocol.stratify=false")
    proc = cli(*args)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    summary = proc.stderr.strip().splitlines()[-1]
    assert summary.startswith("error: smoke: 4 of the 4 trials run failed (first: sk_iris trial 0 ")
    assert "needs at least 2 classes" in summary and str(tmp_path / "smoke" / runner.FAILURES) in summary
    assert len(pd.read_csv(tmp_path / "smoke" / runner.FAILURES)) == 4
    assert read_store(tmp_path / "smoke").empty
    again = cli(*args)
    assert again.returncode == 1 and "4 of the 4 trials run failed" in again.stderr  # retried, not skipped


def test_truncated_part_is_quarantined_and_its_trials_recomputed(tmp_path):
    args = (*SMOKE, f"results.root={tmp_path}")
    assert cli(*args).returncode == 0
    complete = read_store(tmp_path / "smoke")
    part, = store_dir(tmp_path / "smoke").glob(PART_GLOB)
    part.write_bytes(part.read_bytes()[:200])  # as a full disk or a killed copy leaves it
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    warning, = [line for line in (proc.stdout + proc.stderr).splitlines() if "unreadable" in line]
    assert f"moved 1 unreadable store part(s) to {tmp_path / 'smoke' / QUARANTINE_DIR}" in warning
    assert (tmp_path / "smoke" / QUARANTINE_DIR / part.name).is_file()
    recomputed = read_store(tmp_path / "smoke")
    assert sorted(recomputed["trial_id"]) == sorted(complete["trial_id"])
    volatile = ["finished_at", "fit_seconds", "predict_seconds"]
    pd.testing.assert_frame_equal(recomputed.drop(columns=volatile).sort_values("trial_id", ignore_index=True),
                                  complete.drop(columns=volatile).sort_values("trial_id", ignore_index=True))


# The report command on this repository's own committed results, as a fresh clone has them (no stores).
REPORT_CASES = [
    (("guess_averse_uci",), 1, "report error: guess_averse_uci: no results to report: there is no store"),
    (("cs_boost_uci_trees_loo", "exp.n_trials=2"), 1, "no results to report"),
    (("--all",), 1, "report error:"),
    (("nope",), 2, "report error: no experiment config"),
    (("guess_averse_uci", "exp.n_trials=0"), 2, "exp.n_trials must be >= 1"),
    ((), 2, "give exactly one experiment name, --all, --fidelity or --site"),
]


@pytest.mark.parametrize("args, status, message", REPORT_CASES, ids=[" ".join(c[0]) or "none" for c in REPORT_CASES])
def test_report_without_results_leaves_the_committed_reports(args, status, message):
    if any((REPO / "results").glob("*/store")):
        pytest.skip("this checkout holds result stores: the case is about a fresh clone")
    proc = cli(*args, module="csrepro.report")
    assert proc.returncode == status, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_report_of_a_damaged_store_names_the_file_and_the_repair(tmp_path):
    damaged = tmp_path / "thesis_letter1" / "store"
    damaged.mkdir(parents=True)
    (damaged / "part-bad.parquet").write_bytes(b"PAR1 truncated")
    proc = cli("thesis_letter1", f"results.root={tmp_path}", module="csrepro.report")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "part-bad.parquet" in proc.stderr and "python -m csrepro.run +exp=thesis_letter1" in proc.stderr
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["part-bad.parquet"]
