"""Run an experiment's trials in parallel (joblib/loky or Dask) and store one row per finished trial.

``run_experiment(cfg)`` is the whole pipeline without Hydra: validate the config, plan the
trials (csrepro.trials), skip those already in the store (``runner.resume``), run the rest grouped
by (dataset, trial index) and write each group's rows as a store part as soon as it finishes.
A trial whose estimator fails (e.g. a single-class training part) is not stored: it is listed
in ``<exp_dir>/failures.csv`` and reported, and is retried by the next run.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import json
import logging
import platform
import shlex
import sys
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
from hydra.core.hydra_config import HydraConfig
from joblib import Parallel, delayed, parallel_config
from omegaconf import DictConfig
from tqdm.auto import tqdm

from csrepro import methods, metrics
from csrepro.config import validate_config
from csrepro.costs import make_cost_matrix, resolve_counts
from csrepro.data.loaders import load_dataset
from csrepro.data.protocols import TRAINING_OPTIONS, make_splits, subsample_train
from csrepro.data.synthetic import contaminate_labels
from csrepro.model_selection import inner_cv
from csrepro.report.provenance import RUN_INFO, git_commit
from csrepro.seeding import derive_seed
from csrepro.store import atomic_write, compact, delete_trials, read_store, write_part
from csrepro.trials import (
    DatasetPlan,
    Task,
    Trial,
    canonical_json,
    group_tasks,
    plan_trials,
    split_seed,
)

log = logging.getLogger(__name__)
FAILURES = "failures.csv"
VERSIONED = ("csrepro", "numpy", "scipy", "scikit-learn", "pandas", "joblib")


@dataclass
class Predictions:
    """One fitted estimator's test predictions, as class indices of the full dataset."""

    y_true: np.ndarray
    y_pred: np.ndarray
    C: np.ndarray
    estimator: object
    X_test: np.ndarray
    classes: np.ndarray

    @property
    def positive(self) -> int:
        """Index of the detected class of a binary problem: the estimator's ``pos_label_`` (detectors,
        csrepro.detection_rate), else ``classes[1]``."""
        label = getattr(self.estimator, "pos_label_", self.classes[-1])
        return int(np.searchsorted(self.classes, label))

    @functools.cached_property
    def proba(self) -> np.ndarray:
        """predict_proba spread over all dataset classes (zero for classes the estimator never saw)."""
        P = np.zeros((len(self.y_true), len(self.classes)))
        P[:, np.searchsorted(self.classes, self.estimator.classes_)] = self.estimator.predict_proba(self.X_test)
        return P


METRICS = {
    "risk": lambda p: metrics.risk(p.y_true, p.y_pred, p.C),
    "error": lambda p: metrics.error(p.y_true, p.y_pred),
    "accuracy": lambda p: 1.0 - metrics.error(p.y_true, p.y_pred),
    "gmean": lambda p: metrics.g_mean(p.y_true, p.y_pred, len(p.classes)),
    "confusion_norm": lambda p: metrics.confusion_norm(p.y_true, p.y_pred, len(p.classes)),
    "mauc": lambda p: metrics.mauc(p.y_true, p.proba),
    "errors": lambda p: int(np.sum(p.y_true != p.y_pred)),
    "false_positives": lambda p: int(np.sum((p.y_true != p.positive) & (p.y_pred == p.positive))),
    "misses": lambda p: int(np.sum((p.y_true == p.positive) & (p.y_pred != p.positive))),
    "cost_total": lambda p: float(np.sum(p.C[p.y_true, p.y_pred])),
    "zero_crossing": lambda p: metrics.zero_crossing(p.estimator),  # one-feature binary problems (Figure VI.2)
}


def launch_path(path) -> Path:
    """``path``, a relative one taken from the directory the command was launched in (not Hydra's run dir)."""
    path = Path(path).expanduser()
    launch_dir = Path(HydraConfig.get().runtime.cwd) if HydraConfig.initialized() else Path.cwd()
    return path if path.is_absolute() else launch_dir / path


def run_experiment(cfg, command: str | None = None) -> pd.DataFrame:
    """Run every unfinished trial of ``cfg`` (DictConfig or dict, schema in csrepro.config).

    Returns the store rows of all the experiment's trials (finished now or before), sorted by
    dataset, trial, method. Next to the store it updates ``failures.csv`` (the trials that failed,
    until a run retries them) and writes ``run_info.json``, which records ``command``.
    """
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    cfg = validate_config(cfg, METRICS)
    exp_dir = launch_path(cfg.results.root) / cfg.exp.name
    plans, trials = plan_trials(cfg.exp)
    wanted = {t.trial_id for t in trials}
    if cfg.runner.resume:
        stored = read_store(exp_dir)
        done = set(stored["trial_id"]) & wanted if not stored.empty else set()
    else:
        delete_trials(exp_dir, wanted)
        done = set()
    pending = [t for t in trials if t.trial_id not in done]
    tasks = group_tasks(plans, pending)
    log.info("%s: %d trials, %d already in %s, running %d", cfg.exp.name, len(trials), len(done), exp_dir, len(pending))
    context = {"data_root": cfg.data.root and str(launch_path(cfg.data.root)), "download": cfg.data.download,
               "git_commit": git_commit(), "versions": package_versions()}
    failures = []
    with _parallel(cfg.runner) as parallel, tqdm(total=len(pending), disable=not cfg.runner.progress,
                                                 desc=cfg.exp.name, unit="trial") as bar:
        for rows, failed in parallel(delayed(run_task)(task, context) for task in tasks):
            write_part(exp_dir, rows)
            failures += failed
            bar.update(len(rows) + len(failed))
    compact(exp_dir)
    _update_failures(exp_dir, {t.trial_id for t in pending}, failures)
    finished = datetime.now(timezone.utc)
    info = {"command": command or shlex.join(sys.argv), "started": started.isoformat(timespec="seconds"),
            "finished": finished.isoformat(timespec="seconds"), "wall_seconds": round(time.perf_counter() - clock, 3),
            "git_commit": context["git_commit"], "trials": len(trials), "resumed": len(done),
            "ran": len(pending) - len(failures), "failed": len(failures)}
    atomic_write(exp_dir / RUN_INFO, json.dumps(info, indent=2) + "\n")
    log.info("%s: ran %d, failed %d, resumed %d trials; store %s", cfg.exp.name, info["ran"], info["failed"],
             info["resumed"], exp_dir / "store")
    stored = read_store(exp_dir)
    if stored.empty:
        return stored
    rows = stored[stored["trial_id"].isin(wanted)]
    return rows.sort_values(["dataset", "trial", "method"], kind="stable").reset_index(drop=True)


def run_task(task: Task, context: dict) -> tuple[list[dict], list[dict]]:
    """Run one (dataset, trial index): returns store rows of the finished trials and records of the failed ones.

    ``context``: data_root, download, git_commit, versions (JSON).
    """
    plan = task.plan
    data = _dataset(plan.source, context["data_root"], context["download"])
    classes = np.unique(data.y)
    y = np.searchsorted(classes, data.y)
    index, seed, train, test = trial_split(plan, task.trial, context["data_root"], context["download"])
    X_train, X_test = standardize(data.X[train], data.X[test]) if plan.standardize else (data.X[train], data.X[test])
    y_train = training_labels(plan, task.trial, data.y[train], classes)
    cost = resolve_counts(plan.cost, np.searchsorted(classes, y_train), len(classes))
    cost_seed = task.trials[0].cost_seed  # the same for all trials of a (dataset, trial index)
    try:
        C, cost_error = make_cost_matrix(cost.pop("kind"), len(classes), random_state=cost_seed, **cost), None
    except ValueError as err:  # e.g. class_frequency on a training part that misses a class: all its trials fail
        C, cost_error = None, err
    rows, failed = [], []
    for trial in task.trials:
        key = {"trial_id": trial.trial_id, "config_hash": trial.config_hash, "exp": plan.exp, "paper": plan.paper,
               "dataset": trial.dataset, "trial": trial.trial, "method": trial.method, "params": trial.params_json}
        try:
            if cost_error is not None:
                raise cost_error
            scores = fit_and_score(trial, plan.metrics, C, classes, X_train, y_train, X_test, y[test])
        except Exception as err:  # recorded per trial (failures.csv) so the other trials still run
            failed.append({**key, "error": f"{type(err).__name__}: {err}", "traceback": traceback.format_exc(),
                           "failed_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
            continue
        rows.append({**key, "split_index": index, "split_seed": seed, "cost_seed": cost_seed,
                     "model_seed": trial.model_seed, **scores, "n_train": len(train), "n_test": len(test),
                     "n_classes": len(classes), "versions": context["versions"], "git_commit": context["git_commit"],
                     "finished_at": datetime.now(timezone.utc).isoformat(timespec="microseconds")})
    return rows, failed


def trial_split(plan: DatasetPlan, t: int, data_root, download: bool) -> tuple[int, int, np.ndarray, np.ndarray]:
    """(index in its draw, split seed, train rows, test rows) of trial ``t`` (draws: see csrepro.trials).

    The protocol's ``train_size`` subsamples each training part (seeded by the draw's split seed).
    Leave-one-out has a single draw: a trial beyond it is an error, not a repeat.
    """
    protocol = canonical_json(plan.protocol)
    first = _splits(plan.source, data_root, download, protocol, split_seed(plan.exp, plan.source, 0))
    draw, index = divmod(t, len(first))
    if draw and plan.protocol.get("name") == "loo":
        raise ValueError(f"{plan.dataset}: trial {t} but leave-one-out has only {len(first)} splits (one per "
                         f"example); set its n_trials (exp.per_dataset.{plan.dataset}.n_trials) to {len(first)}")
    seed = split_seed(plan.exp, plan.source, draw)
    split = _splits(plan.source, data_root, download, protocol, seed)[index]
    return index, seed, split[0], split[-1]


def training_labels(plan: DatasetPlan, t: int, y_train: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``y_train`` with the protocol's ``label_noise`` fraction flipped to another class (test labels stay clean).

    The flipped rows depend on derive_seed(exp, dataset, t, "label_noise"): the same for all methods of a trial.
    """
    noise = plan.protocol.get("label_noise", 0.0)
    if not noise:
        return y_train
    seed = derive_seed(plan.exp, plan.dataset, t, "label_noise")
    return contaminate_labels(y_train, noise, random_state=seed, classes=classes)[0]


def fit_and_score(trial: Trial, metric_names, C, classes, X_train, y_train, X_test, z_test) -> dict:
    """Fit the trial's estimator on the training labels and score its test predictions (indices ``z_test``).

    Estimators with a ``labels`` parameter get all dataset classes, so the cost matrix matches
    even when the training part misses a class.  An entry with ``inner_cv`` is wrapped in an inner
    cross-validated search (csrepro.model_selection.inner_cv); its choice is stored as ``selected``.
    """
    params = json.loads(trial.params_json)
    method, cv = params.pop("method", trial.method), params.pop("inner_cv", None)
    estimator = methods.make_estimator(method, cost_matrix=C, random_state=trial.model_seed, **params)
    if "labels" in estimator.get_params() and estimator.get_params()["labels"] is None:
        estimator.set_params(labels=classes)
    if cv:
        estimator = inner_cv(estimator, cv, random_state=trial.model_seed)
    start = time.perf_counter()
    estimator.fit(X_train, y_train)
    fitted = time.perf_counter()
    predicted = estimator.predict(X_test)
    done = time.perf_counter()
    unknown = np.setdiff1d(predicted, classes)
    if len(unknown):
        raise ValueError(f"{trial.method} predicted labels {unknown.tolist()} that are not dataset classes "
                         f"{classes.tolist()}; its predict must return labels seen in fit or given as `labels`")
    p = Predictions(z_test, np.searchsorted(classes, predicted), C, estimator, X_test, classes)
    selected = {"selected": canonical_json(estimator.best_params_)} if cv else {}
    return {**{name: METRICS[name](p) for name in metric_names}, **selected,
            "fit_seconds": fitted - start, "predict_seconds": done - fitted}


def standardize(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both parts z-scored with the training part's mean and std (std 1 for constant features)."""
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1.0
    return (X_train - mean) / std, (X_test - mean) / std


def package_versions() -> str:
    """JSON of the Python and key package versions."""
    versions = {name: importlib.metadata.version(name) for name in VERSIONED}
    return canonical_json({"python": platform.python_version(), **versions})


@functools.lru_cache(maxsize=8)
def _dataset(name: str, data_root, download: bool):
    """The dataset, loaded once per worker process."""
    return load_dataset(name, data_root=data_root, download=download)


@functools.lru_cache(maxsize=8)
def _splits(name: str, data_root, download: bool, protocol_json: str, seed: int) -> list:
    """One draw of the protocol's splits of a dataset (cached per worker process)."""
    data = _dataset(name, data_root, download)
    params = json.loads(protocol_json)
    options = {k: params.pop(k, default) for k, default in TRAINING_OPTIONS.items()}
    splits = make_splits(data.y, params.pop("name"), random_state=seed, predefined_test=data.predefined_test,
                         groups=data.meta.get("groups"), **params)
    if options["train_size"] is None:
        return splits
    rng = np.random.default_rng(derive_seed(seed, "train_size"))
    return [(subsample_train(data.y, split[0], options["train_size"], rng), *split[1:]) for split in splits]


@contextlib.contextmanager
def _parallel(runner: DictConfig):
    """A joblib Parallel yielding results as they finish, on loky or on a Dask cluster."""
    if runner.backend == "loky":
        with parallel_config(backend="loky", n_jobs=runner.n_jobs):
            yield Parallel(return_as="generator_unordered")
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ImportError("runner.backend=dask needs dask and distributed; pip install 'csrepro[dask]' "
                          "or use runner.backend=loky") from None
    with contextlib.ExitStack() as stack:
        if runner.dask.address:
            client = stack.enter_context(Client(runner.dask.address))
        else:
            cluster = stack.enter_context(LocalCluster(**runner.dask.local_cluster))
            client = stack.enter_context(Client(cluster))
        log.info("dask cluster: %s", client.dashboard_link)
        with parallel_config(backend="dask", n_jobs=runner.n_jobs):
            yield Parallel(return_as="generator_unordered")


def _update_failures(exp_dir: Path, attempted: set[str], failures: list[dict]) -> None:
    """Replace the failures.csv records of the ``attempted`` trials by this run's ``failures`` and report them.

    Records of trials other runs attempted are kept (sweep jobs share the file); the file is
    removed once no record is left.
    """
    path = exp_dir / FAILURES
    old = pd.read_csv(path, dtype=str, keep_default_na=False) if path.is_file() else pd.DataFrame()
    frames = [f for f in (old[~old["trial_id"].isin(attempted)] if not old.empty else old, pd.DataFrame(failures))
              if not f.empty]
    if not frames:
        path.unlink(missing_ok=True)
        return
    atomic_write(path, pd.concat(frames, ignore_index=True).to_csv(index=False))
    if failures:
        counts = pd.DataFrame(failures).groupby(["dataset", "method", "error"]).size().rename("trials")
        log.warning("%d trial(s) failed and were not stored; details in %s (a rerun retries them):\n%s",
                    len(failures), path, counts.reset_index().to_string(index=False))
