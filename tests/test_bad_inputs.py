"""The bad-input catalogue: what a new user may type on the command line, and what each must do.

``CATALOGUE`` holds one row per bad input: the arguments (after ``+exp=smoke results.root=<root>``
for ``python -m csrepro.run``, or the whole argument list of ``python -m csrepro.report``), the
one-line message it must print (a regex searched in the line) and its exit status (2: stopped
before any work). Each row runs the real entry point in this process (every row stops before
Hydra starts a job, so no process is needed) and asserts the status, that stderr is one line
without a traceback, that stdout is empty, that the smoke store of ``root`` is byte-identical and
that nothing was written elsewhere. The cases after the catalogue (failed trials, exit 1; ``--debug``; a sweep
error; a locked store; a report error) run in this process too; one config error runs in a fresh process; Ctrl-C
and the store lock of another process are in tests/test_run_cli.py. For the whole module, the committed results/
are byte-identical.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from joblib import cpu_count

from csrepro import run, runner
from csrepro.config import MAX_PLANNED_TRIALS, ConfigError, compose
from csrepro.data.loaders import resolve_data_root
from csrepro.report.__main__ import main as report_main
from csrepro.store import read_store, store_dir, store_lock

REPO = Path(__file__).resolve().parents[1]
SMOKE = ("+exp=smoke", "runner.progress=false")


def digest(folder: Path) -> dict[str, str]:
    """sha256 of every file below ``folder`` (hidden Hydra folders aside), by relative path."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and ".hydra" not in p.parts}


def cli(*args):
    """``python -m csrepro.run ARGS`` in a fresh process, from the repository."""
    return subprocess.run([sys.executable, "-m", "csrepro.run", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300)


def committed(folder: Path) -> dict[str, str]:
    """sha256 of the files of ``folder`` that git tracks (stores are not tracked), by path."""
    tracked = subprocess.run(["git", "ls-files", "-z", "--", str(folder)], cwd=REPO, capture_output=True, text=True)
    paths = [REPO / p for p in tracked.stdout.split("\0") if p] if tracked.returncode == 0 else []
    return {p.as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file()}


@pytest.fixture(scope="module", autouse=True)
def committed_reports_unchanged():
    """The committed results/ (reports, comparison.csv, FIDELITY.md) are byte-identical after the catalogue."""
    before = committed(REPO / "results")
    yield
    assert committed(REPO / "results") == before


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A results root holding the smoke experiment's finished store (run in this process)."""
    path = tmp_path_factory.mktemp("results")
    rows = runner.run_experiment(compose("smoke", [f"results.root={path}", "runner.progress=false"]))
    assert len(rows) == 8
    return path


@pytest.fixture(scope="module")
def places(tmp_path_factory, root):
    """The paths rows name: ``{root}``, a file, a folder whose store is a file, a mirror with a damaged
    and a truncated glass file, an empty results root."""
    tmp = tmp_path_factory.mktemp("places")
    (tmp / "file").write_text("not a folder\n")
    (tmp / "store_file" / "smoke").mkdir(parents=True)
    (tmp / "store_file" / "smoke" / "store").write_text("not a folder\n")
    (tmp / "exp_file").mkdir()
    (tmp / "exp_file" / "smoke").write_text("not a folder\n")
    (tmp / "empty").mkdir()
    mirror = resolve_data_root()
    if mirror is not None:
        good = (mirror / "glass" / "glass.data").read_bytes()
        for name, content in (("damaged", good.replace(b"1.52101", b"1.52102", 1)), ("truncated", good[:3000])):
            (tmp / name / "glass").mkdir(parents=True)
            (tmp / name / "glass" / "glass.data").write_bytes(content)
    return {"root": str(root), "tmp": str(tmp), "file": str(tmp / "file"), "store_file": str(tmp / "store_file"),
            "exp_file": str(tmp / "exp_file"), "empty": str(tmp / "empty"), "mirror": mirror,
            "damaged": str(tmp / "damaged"), "truncated": str(tmp / "truncated")}


@dataclass(frozen=True)
class Case:
    """``args`` ({root}, {file}, ... are filled from the ``places`` fixture), the message (regex) and exit status."""

    id: str
    args: tuple[str, ...]
    message: str
    status: int = 2
    command: str = "run"  # "run": python -m csrepro.run +exp=smoke results.root={root} ARGS; "bare": run ARGS;
    # "report": python -m csrepro.report ARGS


def R(id, *args, message, status=2):  # noqa: N802 -- a report row
    return Case(id, args, message, status, "report")


NO_CORE = -(cpu_count() + 1)  # runner.n_jobs that leaves no core on this machine (joblib: -k = all but k - 1)
CATALOGUE = [
    # --- method parameters (scikit-learn constraints, checked on the estimator before any fit)
    Case("negative-n-estimators", ("exp.methods.mcboost.n_estimators=-5",), r"'n_estimators' parameter"),
    Case("zero-n-estimators", ("exp.methods.mcboost.n_estimators=0",), r"'n_estimators' parameter"),
    Case("text-n-estimators", ("exp.methods.mcboost.n_estimators=abc",), r"'n_estimators' parameter"),
    Case("float-n-estimators", ("exp.methods.mcboost.n_estimators=1.5",), r"'n_estimators' parameter"),
    Case("bool-n-estimators", ("exp.methods.mcboost.n_estimators=true",),
         r"exp\.methods\.mcboost\.n_estimators=true is a bool, but n_estimators is a number \(its default is \d+\)"),
    Case("bool-false-n-estimators", ("exp.methods.gll_mcboost.n_estimators=false",),
         r"exp\.methods\.gll_mcboost\.n_estimators=false is a bool, but n_estimators is a number"),
    Case("decision-typo", ("+exp.methods.mcboost.decision=bays",), r"'decision' parameter"),
    Case("loss-typo", ("+exp.methods.mcboost.loss=foo",), r"exp\.methods\.mcboost"),
    Case("inner-cv-bad-value", ("+exp.methods.gll_mcboost.inner_cv={param: n_estimators, values: [0, 5]}",
                                "~exp.methods.gll_mcboost.n_estimators"), r"inner_cv value \{'n_estimators': 0\}"),
    Case("inner-cv-no-values", ("+exp.methods.mcboost.inner_cv={param: n_estimators}",),
         r"exp\.methods\.mcboost\.inner_cv must be \{param: <name>, values: \[\.\.\.\]"),
    Case("inner-cv-one-fold", ("+exp.methods.mcboost.inner_cv={param: max_depth, values: [1], folds: 1}",),
         r"inner_cv\.folds must be an int >= 2, got 1"),
    Case("grid-empty-list", ("+exp.methods.mcboost.grid={max_depth: []}",),
         r"exp\.methods\.mcboost\.grid must map parameter names to non-empty lists"),
    Case("grid-clashes-with-fixed", ("+exp.methods.mcboost.grid={n_estimators: [1, 2]}",),
         r"\['n_estimators'\] given both as a fixed value and in grid; keep one"),
    Case("rounds-val-size-count", ("+exp.methods.mcboost.rounds_on_validation={val_size: 2}",),
         r"rounds_on_validation\.val_size must be a fraction in \(0, 1\), got 2"),
    Case("rounds-criterion-typo", ("+exp.methods.mcboost.rounds_on_validation={criterion: costs}",),
         r"rounds_on_validation\.criterion must be 'error' or 'cost', got 'costs'"),
    Case("binary-only-on-multiclass", ("+exp.methods.adaboost={}",), r"binary-only, but dataset 'sk_iris' has 3"),
    Case("unknown-method", ("+exp.methods.nope={}",), r"unknown \['nope'\]"),
    Case("alias-of-unknown-method", ("+exp.methods.x={method: nope}",), r"exp\.methods: unknown \['nope'\]"),
    Case("unknown-method-param", ("+exp.methods.mcboost.foo=1",), r"unknown parameter\(s\) \['foo'\]"),
    Case("missing-key-without-plus", ("exp.methods.mcboost.loss=foo",), r"\+exp\.methods\.mcboost\.loss=foo"),
    # --- accepted and meaningless (issue 28): one line naming the key and the fix
    Case("empty-methods", ("exp.methods={}",),
         r"'exp\.methods=\{\}' changes nothing: a mapping given on the command line is merged into exp\.methods"),
    Case("empty-method-params", ("exp.methods.mcboost={}",), r"'exp\.methods\.mcboost=\{\}' changes nothing"),
    Case("empty-cost", ("exp.cost={}",), r"'exp\.cost=\{\}' changes nothing.*'~exp\.cost\.<name>'"),
    Case("empty-protocol", ("exp.protocol={}",), r"'exp\.protocol=\{\}' changes nothing"),
    Case("empty-report", ("exp.report={}",), r"'exp\.report=\{\}' changes nothing"),
    Case("empty-metrics", ("exp.metrics=[]",), r"exp\.metrics is empty, so trials would store no score; list some"),
    Case("empty-results-root", ("results.root=",), r"results\.root is empty; give the folder for results"),
    Case("empty-data-root", ("data.root=",), r"data\.root is empty; give the dataset mirror's folder"),
    Case("per-dataset-not-in-experiment", ("+exp.per_dataset.sk_digits.n_trials=1",),
         r"\+exp\.per_dataset\.sk_digits\.n_trials=1: 'sk_digits' is not in exp\.datasets \['sk_iris', 'sk_wine'\], "
         r"so the override would be ignored"),
    Case("per-dataset-protocol-not-in-experiment", ("+exp.per_dataset.glass.protocol.test_size=0.5",),
         r"'glass' is not in exp\.datasets"),
    Case("per-dataset-after-shrinking-datasets", ("exp.datasets=[sk_iris]", "+exp.per_dataset.sk_wine.n_trials=1"),
         r"'sk_wine' is not in exp\.datasets \['sk_iris'\]"),
    Case("resume-two", ("runner.resume=2",), r"runner\.resume=2: runner\.resume is true or false; write "
                                             r"runner\.resume=true or runner\.resume=false"),
    Case("resume-zero", ("runner.resume=0",), r"runner\.resume=0: runner\.resume is true or false"),
    Case("resume-yes", ("runner.resume=yes",), r"runner\.resume=yes: runner\.resume is true or false"),
    Case("progress-one", ("runner.progress=1",), r"runner\.progress=1: runner\.progress is true or false"),
    Case("standardize-one", ("exp.preprocessing.standardize=1",), r"exp\.preprocessing\.standardize is true or false"),
    Case("standardize-maybe", ("exp.preprocessing.standardize=maybe",),
         r"exp\.preprocessing\.standardize is true or false"),
    Case("download-maybe", ("data.download=maybe",), r"data\.download=maybe: data\.download is true or false"),
    Case("jobs-zero", ("runner.n_jobs=0",), r"runner\.n_jobs=0 runs nothing; give a number of parallel tasks >= 1, "
                                            r"or -1 for one per core"),
    Case("jobs-below-cores", (f"runner.n_jobs={NO_CORE}",),
         rf"runner\.n_jobs={NO_CORE} leaves no core of this machine's {cpu_count()}"),
    Case("jobs-far-below", ("runner.n_jobs=-1000",), r"runner\.n_jobs=-1000 leaves no core"),
    Case("jobs-negative-on-dask", ("runner=dask", "runner.n_jobs=-2"),
         r"runner\.n_jobs=-2 is not defined for runner\.backend=dask; give a number >= 1, or -1"),
    Case("jobs-bool", ("runner.n_jobs=true",), r"runner\.n_jobs=true.*could not be converted to Integer"),
    Case("jobs-float", ("runner.n_jobs=2.5",), r"could not be converted to Integer"),
    Case("jobs-text", ("runner.n_jobs=abc",), r"could not be converted to Integer"),
    Case("trials-huge", ("exp.n_trials=100000000",),
         rf"the experiment plans 400,000,000 trials .*more than the {MAX_PLANNED_TRIALS:,} a run may plan; "
         r"lower exp\.n_trials"),
    Case("per-dataset-trials-huge", ("+exp.per_dataset.sk_iris.n_trials=100000000",),
         r"plans 200,000,004 trials"),
    Case("per-dataset-trials-bool", ("+exp.per_dataset.sk_iris.n_trials=true",),
         r"'exp\.per_dataset\.sk_iris\.n_trials': Value 'True' of type 'bool' could not be converted to Integer$"),
    Case("exp-name-empty", ("exp.name=",), r"exp\.name='' cannot name the results folder"),
    Case("exp-name-escapes", ("exp.name=../elsewhere",), r"exp\.name='\.\./elsewhere' cannot name the results folder"),
    # --- test sizes: a fraction (test_size) or a count (test_count), never a value that could be both
    Case("test-size-one", ("exp.protocol.test_size=1",),
         r"protocol for 'sk_iris' \(exp\.protocol\.test_size\): test_size=1 is ambiguous \(one row, or every row\?\); "
         r"give a fraction in \(0, 1\), e.g\. test_size=0\.2, or a number of rows >= 2 as test_count"),
    Case("test-size-one-point-zero", ("exp.protocol.test_size=1.0",), r"test_size=1\.0 is ambiguous"),
    Case("test-size-zero", ("exp.protocol.test_size=0",), r"test_size must be a fraction in \(0, 1\), got 0"),
    Case("test-size-negative", ("exp.protocol.test_size=-0.2",), r"test_size must be a fraction in \(0, 1\), got -0\.2"),
    Case("test-size-above-one", ("exp.protocol.test_size=1.5",), r"test_size must be a fraction in \(0, 1\), got 1\.5"),
    Case("test-size-count", ("exp.protocol.test_size=30",),
         r"test_size=30 is not a fraction in \(0, 1\); for 30 rows write test_count=30 \(and remove test_size\)"),
    Case("test-size-bool", ("exp.protocol.test_size=true",), r"test_size must be a fraction in \(0, 1\), got True"),
    Case("test-size-text", ("exp.protocol.test_size=abc",), r"test_size must be a fraction in \(0, 1\), got 'abc'"),
    Case("test-size-and-count", ("+exp.protocol.test_count=30",),
         r"test_size=0\.3 and test_count=30 both size the test part; keep one .*'~exp\.protocol\.test_size'"),
    Case("test-count-one", ("~exp.protocol.test_size", "+exp.protocol.test_count=1"),
         r"\(exp\.protocol\.test_count\): test_count must be a number of rows, an int >= 2, got 1"),
    Case("test-count-fraction", ("~exp.protocol.test_size", "+exp.protocol.test_count=0.3"),
         r"test_count=0\.3 is a number of rows; for a fraction write test_size=0\.3"),
    Case("test-count-negative", ("~exp.protocol.test_size", "+exp.protocol.test_count=-5"),
         r"test_count must be a number of rows, an int >= 2, got -5"),
    Case("test-count-all-rows", ("~exp.protocol.test_size", "+exp.protocol.test_count=150"),
         r"on 'sk_iris' .*test_count=150 rows, but the data has 150 rows; give a number below 150"),
    Case("test-count-too-many-to-stratify", ("~exp.protocol.test_size", "+exp.protocol.test_count=149"),
         r"cannot take 149 of 150 rows and keep every class \(3\) in training"),
    Case("test-size-leaves-no-class", ("exp.protocol.test_size=0.99",), r"keep every class"),
    Case("val-size-count", ("+exp.protocol.val_size=2",), r"val_size=2 is not a fraction in \(0, 1\); for 2 rows "
                                                          r"write val_count=2"),
    Case("val-count-one", ("+exp.protocol.val_count=1",), r"val_count must be a number of rows, an int >= 2, got 1"),
    Case("val-takes-the-rest", ("+exp.protocol.val_size=0.7",), r"test_size and val_size take 150 of the 150 rows"),
    Case("per-dataset-test-size-one", ("+exp.per_dataset.sk_iris.protocol.test_size=1",),
         r"\(exp\.per_dataset\.sk_iris\.protocol\.test_size\): test_size=1 is ambiguous"),
    # --- other protocol settings
    Case("loo-beyond-n", ("exp.protocol.name=loo", "~exp.protocol.test_size", "~exp.protocol.stratify",
                          "exp.n_trials=1000"), r"leave-one-out has only 150 splits"),
    Case("kfold-one-fold", ("protocol@exp.protocol=kfold", "~exp.protocol.test_size", "exp.protocol.n_splits=1"),
         r"n_splits must be an int in \[2, 150\], got 1"),
    Case("kfold-more-folds-than-rows", ("protocol@exp.protocol=kfold", "~exp.protocol.test_size",
                                       "exp.protocol.n_splits=1000"), r"n_splits must be an int in \[2, 150\], got 1000"),
    Case("repeats-zero", ("protocol@exp.protocol=repeated_kfold", "~exp.protocol.test_size",
                          "exp.protocol.n_repeats=0"), r"n_repeats must be an int in \[1, inf\], got 0"),
    Case("stratify-text", ("exp.protocol.stratify=maybe",), r"stratify must be True or False, got 'maybe'"),
    Case("predefined-without-split", ("exp.protocol.name=predefined", "~exp.protocol.test_size",
                                      "~exp.protocol.stratify"), r"protocol 'predefined' needs predefined_test"),
    Case("label-noise-above-one", ("+exp.protocol.label_noise=1.5",), r"label_noise must be a fraction"),
    Case("label-noise-text", ("+exp.protocol.label_noise=abc",), r"label_noise must be a fraction .* got 'abc'"),
    Case("train-size-negative", ("+exp.protocol.train_size=-1",), r"train_size must be"),
    Case("train-size-beyond-class", ("+exp.protocol.train_size=1000",),
         r"train_size=1000 rows per class, but the training part has fewer"),
    Case("protocol-leftover-key", ("protocol@exp.protocol=kfold",), r"'~exp\.protocol\.test_size'"),
    Case("protocol-key-typo", ("+exp.protocol.test_sise=0.3",), r"takes no parameter\(s\) \['test_sise'\]"),
    Case("unknown-protocol", ("exp.protocol.name=nope",), r"name='nope' is not valid"),
    Case("unknown-protocol-file", ("protocol@exp.protocol=nope",), r"Could not find 'protocol/nope'"),
    # --- costs and metrics
    Case("unknown-cost-kind", ("exp.cost.kind=nope",), r"kind='nope' is not valid"),
    Case("unknown-cost-param", ("+exp.cost.lo=1",), r"unknown parameter\(s\) \['lo'\]"),
    Case("unknown-cost-file", ("cost@exp.cost=nope",), r"Could not find 'cost/nope'"),
    Case("unknown-metric", ("exp.metrics=[risk,foo]",), r"unknown \['foo'\]"),
    Case("metric-class-beyond", ("exp.metrics=[confusion_5_0]",), r"confusion_5_0 names class index 5"),
    Case("metrics-not-a-list", ("exp.metrics=risk",), r"exp\.metrics"),
    # --- experiment, datasets and field names
    Case("zero-trials", ("exp.n_trials=0",), r"exp\.n_trials must be >= 1"),
    Case("negative-trials", ("exp.n_trials=-1",), r"exp\.n_trials must be >= 1, got -1"),
    Case("text-trials", ("exp.n_trials=abc",), r"could not be converted to Integer"),
    Case("bool-trials", ("exp.n_trials=true",), r"exp\.n_trials=true.*could not be converted to Integer"),
    Case("float-trials", ("exp.n_trials=2.5",), r"could not be converted to Integer"),
    Case("no-datasets", ("exp.datasets=[]",), r"exp\.datasets is empty"),
    Case("unknown-dataset", ("exp.datasets=[sk_iris,glass2]",), r"unknown dataset\(s\) \['glass2'\]"),
    Case("dataset-twice", ("exp.datasets=[sk_iris,sk_iris]",), r"lists a dataset twice"),
    Case("datasets-not-a-list", ("exp.datasets=sk_iris",), r"exp\.datasets"),
    Case("field-typo", ("exp.n_trial=5",), r"exp has no 'n_trial'"),
    Case("runner-field-typo", ("runner.n_job=2",), r"runner has no 'n_job'"),
    Case("dask-field-typo", ("runner.dask.adress=x",), r"runner\.dask has no 'adress'"),
    Case("results-field-typo", ("results.rot=x",), r"results has no 'rot'"),
    Case("per-dataset-field-typo", ("+exp.per_dataset.sk_iris.n_trial=1",), r"sk_iris has no 'n_trial'"),
    Case("per-dataset-unknown-id", ("exp.datasets=[sk_iris,nope]", "+exp.per_dataset.nope.n_trials=1"),
         r"unknown dataset\(s\) \['nope'\]"),
    Case("per-dataset-zero-trials", ("+exp.per_dataset.sk_iris.n_trials=0",), r"n_trials must be >= 1"),
    Case("alias-of-registry-id", ("+exp.per_dataset.sk_iris.dataset=sk_wine",), r"cannot be an alias"),
    Case("alias-of-unknown-dataset", ("exp.datasets=[sk_iris,x]", "+exp.per_dataset.x.dataset=nope"),
         r"exp\.per_dataset\.x\.dataset: unknown dataset 'nope'"),
    Case("bad-bool", ("exp.preprocessing.standardize=yes_please",), r"is true or false"),
    Case("override-syntax", ("exp.datasets=[sk_iris,",), r"no viable alternative"),
    Case("delete-missing-key", ("~exp.nothing",), r"'exp\.nothing' does not exist"),
    Case("unknown-backend", ("runner.backend=spark",), r"runner\.backend='spark' is not valid"),
    Case("unknown-runner-file", ("runner=nope",), r"Could not find 'runner/nope'"),
    # --- folders and data
    Case("data-root-missing", ("data.root=/nonexistent/csrepro",), r"data\.root=/nonexistent/csrepro is not a directory"),
    Case("data-root-is-a-file", ("data.root={file}",), r"data\.root=.*/file is not a directory"),
    Case("results-root-under-a-file", ("results.root=/dev/null/x",),
         r"cannot write results in /dev/null/x/smoke: /dev/null is a file, not a folder"),
    Case("results-root-is-a-file", ("results.root={file}",), r"cannot write results in .*/file/smoke: .*/file is a file"),
    Case("results-exp-folder-is-a-file", ("results.root={exp_file}",), r"/exp_file/smoke is a file, not a folder"),
    Case("results-store-is-a-file", ("results.root={store_file}",), r"/store_file/smoke/store is a file, not a folder"),
    Case("results-root-unwritable", ("results.root=/sys/csrepro",),
         r"cannot write results in /sys/csrepro/smoke: /sys is not writable"),
    Case("data-file-damaged", ("exp.datasets=[glass]", "data.root={damaged}", "data.download=false"),
         r"^data error: glass: file\(s\) differ from the registered checksums \(.*glass\.data: expected sha256 \w+, "
         r"got \w+\) and do not parse to the registered table \(the parsed table's fingerprint is \w+.*\)\. Fix: "
         r"replace the file\(s\) with the mirror's copies .*point data\.root \(data_root= in load_dataset\)"),
    Case("data-file-truncated", ("exp.datasets=[glass]", "data.root={truncated}", "data.download=false"),
         r"^data error: glass: .*\(parsed 55 rows, .* the registry expects 214 rows.*\)\. Fix: .*data\.root"),
    Case("data-file-missing", ("exp.datasets=[glass]", "data.root={empty}", "data.download=false", "runner.n_jobs=2"),
         r"^data error: dataset 'glass' not found\..*CSREPRO_DATA_DIR.*data\.root.*data\.download=true"),
    # --- sweeps (-m): every job is checked before the first runs; nothing is written
    Case("sweep-later-job-bad", ("-m", "exp.methods.mcboost.n_estimators=3,-5"),
         r"^config error: sweep job exp\.methods\.mcboost\.n_estimators=-5: exp\.methods\.mcboost: "),
    Case("sweep-bad-value-type", ("-m", "exp.n_trials=1,2", "runner.n_jobs=2,x"),
         r"sweep job exp\.n_trials=1 runner\.n_jobs=x: Error merging override runner\.n_jobs=x"),
    Case("sweep-ambiguous-size", ("-m", "exp.protocol.test_size=0.3,1"), r"sweep job exp\.protocol\.test_size=1: .*"
                                                                         r"test_size=1 is ambiguous"),
    Case("sweep-too-many-jobs", ("-m", "exp.n_trials=range(1,1000)", "exp.datasets=[sk_iris],[sk_wine]"),
         r"the sweep has 1,998 jobs .*more than the 200 a sweep may have"),
    Case("sweep-interval", ("-m", "exp.n_trials=interval(1,2)"), r"Can only enumerate CHOICE and RANGE sweeps"),
    Case("sweep-without-m", ("exp.n_trials=1,2",), r"exp\.n_trials=1,2 gives several values \(a sweep\); add -m"),
    Case("no-experiment-in-sweep", ("-m", "exp.n_trials=1,2", "~exp"), r"exp"),
    # --- no experiment
    Case("unknown-experiment", ("+exp=nope",), r"Could not find 'exp/nope'", command="bare"),
    Case("no-experiment", ("exp.n_trials=5",), r"no experiment selected; pass \+exp=<name>, one of \[.*'smoke'",
         command="bare"),
    # --- the report command
    R("report-out-is-a-file", "smoke", "results.root={root}", "--out", "{file}",
      message=r"^report error: --out .*/file: .*/file is a file, not a folder; give a writable folder"),
    R("report-out-under-a-file", "smoke", "results.root={root}", "--out", "{file}/sub",
      message=r"--out .*/file/sub: .*/file is a file, not a folder"),
    R("report-out-unwritable", "smoke", "results.root={root}", "--out", "/sys/csrepro",
      message=r"--out /sys/csrepro: /sys is not writable"),
    R("report-root-is-a-file", "smoke", "results.root={store_file}/smoke/store",
      message=r"cannot write the report in .*/store/smoke: .*/store_file/smoke/store is a file, not a folder; pass "
              r"--out DIR"),
    R("report-unknown-option", "smoke", "--outt", "x", message=r"^report error: unrecognized arguments: --outt"),
    R("report-unknown-experiment", "nope", message=r"^report error: no experiment config nope\.yaml"),
    R("report-zero-trials", "smoke", "results.root={root}", "exp.n_trials=0", message=r"exp\.n_trials must be >= 1"),
    R("report-zero-trials-of-a-paper", "guess_averse_uci", "exp.n_trials=0", "results.root={empty}",
      message=r"^report error: exp\.n_trials must be >= 1"),
    R("report-empty-metrics", "smoke", "results.root={root}", "exp.metrics=[]", message=r"exp\.metrics is empty"),
    R("report-empty-methods", "smoke", "results.root={root}", "exp.methods={}",
      message=r"'exp\.methods=\{\}' changes nothing"),
    R("report-per-dataset-unused", "smoke", "results.root={root}", "+exp.per_dataset.sk_digits.n_trials=1",
      message=r"'sk_digits' is not in exp\.datasets"),
    R("report-test-size-one", "smoke", "results.root={root}", "exp.protocol.test_size=1",
      message=r"test_size=1 is ambiguous"),
    R("report-no-arguments", message=r"give exactly one experiment name, --all, --fidelity or --site"),
    R("report-two-modes", "--all", "--fidelity", message=r"give exactly one experiment name"),
    R("report-no-store", "guess_averse_uci", "results.root={empty}",
      message=r"report error: guess_averse_uci: no results to report: there is no store", status=1),
    R("report-reduced-no-store", "cs_boost_uci_trees_loo", "exp.n_trials=2", "results.root={empty}",
      message=r"no results to report", status=1),
    R("report-all-without-stores", "--all", "results.root={empty}", message=r"^report error: no experiment was reported",
      status=1),
    R("report-fidelity-without-comparisons", "--fidelity", "results.root={empty}",
      message=r"no comparison\.csv under", status=1),
]


def filled(args, places) -> list[str]:
    """``args`` with {root}, {file}, ... replaced by the paths of ``places`` (other braces are Hydra's)."""
    out = []
    for arg in args:
        for key, value in places.items():
            arg = arg.replace(f"{{{key}}}", str(value))
        out.append(arg)
    return out


def test_the_catalogue_is_large_and_its_ids_unique():
    assert len(CATALOGUE) >= 100 and len({c.id for c in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize("case", CATALOGUE, ids=[c.id for c in CATALOGUE])
def test_bad_input(case, root, places, entry_point, capsys):
    if "{damaged}" in "".join(case.args) and places["mirror"] is None:
        pytest.skip("no dataset mirror to damage a copy of: set CSREPRO_DATA_DIR")
    before, tmp_before = digest(root), sorted(Path(places["tmp"]).rglob("*"))
    if case.command != "report":
        prefix = [*SMOKE, f"results.root={root}"] if case.command == "run" else []
        status, out, err = entry_point("run", *prefix, *filled(case.args, places))
    else:
        try:
            status = report_main(filled(case.args, places))
        except SystemExit as stop:  # argparse's usage errors
            status = stop.code
        out, err = capsys.readouterr()
        out = ""  # the report prints what it skips on stdout; the error is the line on stderr
    assert status == case.status, err
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert re.search(case.message, err), err
    assert digest(root) == before
    assert sorted(Path(places["tmp"]).rglob("*")) == tmp_before  # nothing written elsewhere


def test_a_bad_input_stops_the_same_in_a_fresh_process(root):
    before = digest(root)
    proc = cli(*SMOKE, f"results.root={root}", "exp.protocol.test_size=1")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("config error: protocol for 'sk_iris' (exp.protocol.test_size): test_size=1 is "
                                  "ambiguous") and proc.stderr.count("\n") == 1
    assert digest(root) == before


def test_a_sweep_error_writes_nothing(tmp_path, entry_point):
    """Each job of a sweep is checked first: a bad later value stops it before the first job (no multirun.yaml)."""
    status, _, err = entry_point("run", "-m", *SMOKE, f"results.root={tmp_path}", "exp.n_trials=1,0")
    assert status == 2 and err == "config error: sweep job exp.n_trials=0: exp.n_trials must be >= 1, got 0\n"
    assert list(tmp_path.iterdir()) == []


def test_debug_flag_shows_the_traceback(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["csrepro.run", *SMOKE, f"results.root={tmp_path}",
                                      "exp.methods.mcboost.n_estimators=-5", "--debug"])
    monkeypatch.setenv("HYDRA_FULL_ERROR", "0")  # restored (removed) after the test: main sets it to 1
    with pytest.raises(ConfigError, match="n_estimators"):  # not turned into one line
        run.main()


def test_failed_trials_exit_1_with_a_summary(tmp_path, entry_point):
    """Two training rows of 150 (stratify off) leave one class in some training parts: those trials fail."""
    status, _, err = entry_point("run", *SMOKE, f"results.root={tmp_path}", "exp.datasets=[sk_iris]",
                                  "~exp.protocol.test_size", "+exp.protocol.test_count=148",
                                  "exp.protocol.stratify=false")
    assert status == 1 and "Traceback" not in err
    summary = err.strip().splitlines()[-1]
    assert re.match(r"error: smoke: \d of the 4 trials run failed \(first: sk_iris trial \d ", summary), summary
    assert "needs at least 2 classes" in summary and str(tmp_path / "smoke" / runner.FAILURES) in summary
    failed = pd.read_csv(tmp_path / "smoke" / runner.FAILURES)
    assert len(failed) + len(read_store(tmp_path / "smoke")) == 4


def test_a_locked_store_stops_a_second_run(root, entry_point):
    """While a run holds the store (here: this process), another run into it stops before any work."""
    import os

    before = digest(root)
    with store_lock(root / "smoke"):
        status, out, err = entry_point("run", *SMOKE, f"results.root={root}")
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"store error: the results folder {root / 'smoke'} is in use by a run (pid {os.getpid()});")
    assert digest(root) == before and not (root / "smoke" / "run.lock").exists()


def test_missing_data_leaves_no_results_folder(tmp_path, entry_point):
    (tmp_path / "empty").mkdir()
    status, _, err = entry_point("run", *SMOKE, f"results.root={tmp_path / 'r'}", "exp.datasets=[glass]",
                                  f"data.root={tmp_path / 'empty'}", "data.download=false")
    assert status == 2 and err.startswith("data error: dataset 'glass' not found")
    assert not (tmp_path / "r").exists()


def test_report_of_a_damaged_store_names_the_file_and_the_repair(tmp_path, capsys):
    damaged = tmp_path / "thesis_letter1" / "store"
    damaged.mkdir(parents=True)
    (damaged / "part-bad.parquet").write_bytes(b"PAR1 truncated")
    assert report_main(["thesis_letter1", f"results.root={tmp_path}"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "part-bad.parquet" in err and "python -m csrepro.run +exp=thesis_letter1" in err
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["part-bad.parquet"]
    assert not store_dir(tmp_path / "smoke").exists()
