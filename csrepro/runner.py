"""Run an experiment's trials in parallel (joblib/loky or Dask) and store one row per finished trial.

``run_experiment(cfg)`` is the whole pipeline without Hydra: validate the config, plan the
trials (csrepro.trials) and record the plan in the store (csrepro.store, "The plan"), skip those
already in the store (``runner.resume``; without it the new rows supersede the stored ones as they
are written), run the rest grouped
by (dataset, trial index) and write each group's rows as a store part as soon as it finishes.
A trial whose estimator fails (e.g. a single-class training part) is not stored: it is listed
in ``<exp_dir>/failures.csv`` and reported, and is retried by the next run. A run holds the store's
lock (csrepro.store, "The lock") while it writes; a run interrupted (Ctrl-C) raises :class:`Interrupted`
after the parts it finished, which the same command resumes.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import inspect
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

from csrepro import methods
from csrepro.config import ConfigError, canonical_json, method_cost, plan_key, validate_config
from csrepro.costs import cost_matrix_of
from csrepro.data.loaders import load_dataset
from csrepro.data.protocols import TRAINING_OPTIONS, make_splits, subsample_train
from csrepro.data.synthetic import contaminate_labels
from csrepro.provenance import RUN_INFO, git_commit
from csrepro.scoring import Predictions, score
from csrepro.seeding import derive_seed
from csrepro.selection.inner_cv import inner_cv
from csrepro.selection.rounds import RoundsOnValidation
from csrepro.store import (
    FAILURES,
    PLAN_COLUMNS,
    STORE_DIR,
    atomic_write,
    check_unlocked,
    compact,
    folder_problem,
    quarantine_damaged,
    read_store,
    store_lock,
    write_part,
    write_plan,
)
from csrepro.trials import (
    DatasetPlan,
    Task,
    Trial,
    group_tasks,
    plan_trials,
    split_seed,
)

log = logging.getLogger(__name__)
VERSIONED = ("csrepro", "numpy", "scipy", "scikit-learn", "pandas", "joblib")


def launch_path(path) -> Path:
    """``path``, a relative one taken from the directory the command was launched in (not Hydra's run dir)."""
    path = Path(path).expanduser()
    launch_dir = Path(HydraConfig.get().runtime.cwd) if HydraConfig.initialized() else Path.cwd()
    return path if path.is_absolute() else launch_dir / path


class TrialsFailed(RuntimeError):
    """Raised by ``run_experiment(..., strict=True)`` after a run in which trials failed; ``rows`` as returned."""

    def __init__(self, message: str, rows: pd.DataFrame):
        super().__init__(message)
        self.rows = rows


class Interrupted(RuntimeError):
    """A run stopped by KeyboardInterrupt (Ctrl-C): ``stored`` of the ``planned`` trials are in the store."""

    def __init__(self, stored: int, planned: int):
        super().__init__(f"interrupted: {stored} of {planned} trials stored; the same command resumes")
        self.stored, self.planned = stored, planned


def run_experiment(cfg, command: str | None = None, strict: bool = False, full=None) -> pd.DataFrame:
    """Run every unfinished trial of ``cfg`` (DictConfig or dict, schema in csrepro.config).

    Before any trial: the config is validated (csrepro.config), every dataset is loaded and split
    once (:func:`check_data`), unreadable store parts are moved to quarantine (their trials are
    recomputed) and the plan is recorded in the store (:func:`record_plan`: ``cfg``'s and, given
    ``full``, the experiment file's without overrides, which a report of a reduced run counts
    against; ``python -m csrepro.run`` passes it). Work is ordered by trial index, then dataset,
    so that progress (and the ETA) is uniform across datasets. Returns the store rows of all the
    experiment's trials (finished now or before), sorted by dataset, trial, method. Next to the store it updates
    ``failures.csv`` (the trials that failed, until a run retries them) and writes
    ``run_info.json``, which records ``command``. With ``strict``, failed trials raise
    TrialsFailed (after all of this is written) with a one-line summary. From the quarantine on, the
    run holds the store's lock (csrepro.store.store_lock: another run into the folder raises
    StoreLockedError); a KeyboardInterrupt raises :class:`Interrupted` counting the stored trials.
    """
    started, clock = datetime.now(timezone.utc), time.perf_counter()
    cfg, plans, trials = preflight(cfg)
    exp_dir = launch_path(cfg.results.root) / cfg.exp.name
    try:
        with store_lock(exp_dir):
            return _run_trials(cfg, plans, trials, exp_dir, command, strict, full, started, clock)
    except KeyboardInterrupt:
        stored = read_store(exp_dir)
        wanted = {t.trial_id for t in trials}
        raise Interrupted(0 if stored.empty else int(stored["trial_id"].isin(wanted).sum()), len(trials)) from None


def _run_trials(cfg: DictConfig, plans, trials: list[Trial], exp_dir: Path, command, strict: bool, full, started,
                clock) -> pd.DataFrame:
    """:func:`run_experiment` after its preflight, holding the store's lock."""
    context = {"data_root": _data_root(cfg), "download": cfg.data.download, "git_commit": git_commit(),
               "versions": package_versions()}
    quarantined = quarantine_damaged(exp_dir)
    if quarantined:
        log.warning("%s: moved %d unreadable store part(s) to %s; their trials are recomputed", cfg.exp.name,
                    len(quarantined), quarantined[0].parent)
    record_plan(exp_dir, cfg, trials, full)
    wanted = {t.trial_id for t in trials}
    stored = read_store(exp_dir) if cfg.runner.resume else pd.DataFrame()
    done = set(stored["trial_id"]) & wanted if not stored.empty else set()  # resume=false: new rows supersede old
    pending = [t for t in trials if t.trial_id not in done]
    units = split_units(sorted(group_tasks(plans, pending), key=lambda task: task.trial))  # stable: datasets in turn
    log.info("%s: %d trials, %d already in %s, running %d", cfg.exp.name, len(trials), len(done), exp_dir, len(pending))
    failures = []
    with _parallel(cfg.runner) as parallel, tqdm(total=len(pending), disable=not cfg.runner.progress, smoothing=0,
                                                 desc=cfg.exp.name, unit="trial") as bar:
        for rows, failed in parallel(delayed(run_unit)(unit, context) for unit in units):
            write_part(exp_dir, rows)
            failures += failed
            bar.update(len(rows) + len(failed))
            if failures:
                bar.set_postfix(failed=len(failures))
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
    rows = stored if stored.empty else stored[stored["trial_id"].isin(wanted)].sort_values(
        ["dataset", "trial", "method"], kind="stable").reset_index(drop=True)
    if strict and failures:
        first = failures[0]
        raise TrialsFailed(f"{cfg.exp.name}: {len(failures)} of the {len(pending)} trials run failed (first: "
                           f"{first['dataset']} trial {first['trial']} {first['method']}: {first['error']}); "
                           f"tracebacks in {exp_dir / FAILURES}; the same command retries them", rows)
    return rows


def preflight(cfg) -> tuple[DictConfig, dict[str, DatasetPlan], list[Trial]]:
    """Every check that needs no trial, in order: the config (csrepro.config.validate_config), the
    results folder (:func:`check_results_folder`; nothing is created) and its lock
    (csrepro.store.check_unlocked), the data and protocols (:func:`check_data`). Returns the validated
    config and its plan; raises ConfigError, StoreLockedError or the loader's DataError with a
    one-line message.
    """
    cfg = validate_config(cfg)
    exp_dir = launch_path(cfg.results.root) / cfg.exp.name
    check_results_folder(exp_dir)
    check_unlocked(exp_dir)
    plans, trials = plan_trials(cfg.exp)
    check_data(plans, trials, _data_root(cfg), cfg.data.download)
    return cfg, plans, trials


def check_results_folder(exp_dir: Path) -> None:
    """ConfigError unless ``exp_dir`` and its store are folders this user can write in, or can create
    (csrepro.store.folder_problem; nothing is created)."""
    for path in (exp_dir, exp_dir / STORE_DIR):
        if why := folder_problem(path):
            raise ConfigError(f"cannot write results in {path}: {why}; set results.root to a writable folder "
                              "(or move the file away)")


def record_plan(exp_dir: Path, cfg: DictConfig, trials: list[Trial], full=None) -> None:
    """Write the plan of the validated ``cfg`` (its ``trials``) into the store (csrepro.store, "The
    plan"), and, when ``full`` (the experiment file composed without overrides) has other settings,
    the plan of ``full`` too (validated without building its methods: it is not run); a ``full`` that does not
    validate is left out with a warning."""
    key = plan_key(cfg.exp)
    write_plan(exp_dir, key, plan_rows(trials))
    if full is None:
        return
    try:
        full = validate_config(full, build_methods=False)
    except ConfigError as err:
        log.warning("%s: the plan of the experiment file without overrides is not recorded: %s", cfg.exp.name, err)
        return
    if plan_key(full.exp) != key:
        write_plan(exp_dir, plan_key(full.exp), plan_rows(plan_trials(full.exp)[1]))


def plan_rows(trials: list[Trial]) -> pd.DataFrame:
    """The store's plan rows (csrepro.store.PLAN_COLUMNS) of ``trials``."""
    return pd.DataFrame([(t.trial_id, t.config_hash, t.dataset, t.trial, t.method, t.params_json) for t in trials],
                        columns=list(PLAN_COLUMNS))


def _data_root(cfg: DictConfig) -> str | None:
    return cfg.data.root and str(launch_path(cfg.data.root))


def check_data(plans: dict[str, DatasetPlan], trials: list[Trial], data_root, download: bool) -> None:
    """Load every dataset and draw the splits of its first and last trial, before any trial runs.

    A missing or damaged data file raises the loader's DataError; a protocol the data cannot
    satisfy (e.g. ``test_size=1.5``, more folds than examples, leave-one-out trials beyond n)
    raises ConfigError naming the setting.
    """
    if data_root is not None and not Path(data_root).is_dir():
        raise ConfigError(f"data.root={data_root} is not a directory; point it at the dataset mirror "
                          "(a folder of <dataset>/ folders) or leave it out")
    last = {}
    for trial in trials:
        last[trial.dataset] = max(last.get(trial.dataset, 0), trial.trial)
    for dataset, t in last.items():
        plan = plans[dataset]
        try:
            for index in sorted({0, t}):
                trial_split(plan, index, data_root, download)
        except ValueError as err:
            where = f"exp.protocol or exp.per_dataset.{dataset}.protocol"
            raise ConfigError(f"protocol {plan.protocol} on {dataset!r} ({where}): {err}") from None


def split_units(tasks: list[Task]) -> list[tuple[Task, ...]]:
    """``tasks`` grouped into the units a worker runs in one process: the tasks that share a split -- the same
    source dataset, protocol, standardisation and trial index, e.g. the cost families of a leaderboard dataset
    (``<dataset>__<family>`` aliases) -- in their given order, units in order of their first task.  A unit's tasks
    then find each other's cost-free fits in the process's caches (csrepro.cache; e.g. the probability model that
    the decision rules of every family learn on, csrepro.probability.shared); caches never change a result, so the
    grouping changes no number, only the time."""
    units: dict[tuple, list[Task]] = {}
    for task in tasks:
        plan = task.plan
        key = (plan.source, canonical_json(plan.protocol), plan.standardize, task.trial)
        units.setdefault(key, []).append(task)
    return [tuple(unit) for unit in units.values()]


def run_unit(unit: tuple[Task, ...], context: dict) -> tuple[list[dict], list[dict]]:
    """:func:`run_task` for each task of ``unit`` (:func:`split_units`), in one process: their rows and failures."""
    rows, failed = [], []
    for task in unit:
        task_rows, task_failed = run_task(task, context)
        rows += task_rows
        failed += task_failed
    return rows, failed


def run_task(task: Task, context: dict) -> tuple[list[dict], list[dict]]:
    """Run one (dataset, trial index): returns store rows of the finished trials and records of the failed ones.

    ``context``: data_root, download, git_commit, versions (JSON). An error while preparing the
    task's data, split or cost matrix (e.g. class_frequency costs on a training part that misses a
    class) fails all its trials; an estimator's error fails its trial only.
    """
    plan = task.plan
    try:
        part, task_error = _prepare(task, context), None
    except Exception as err:  # noqa: BLE001 -- recorded for each of the task's trials
        part, task_error = None, err
    rows, failed = [], []
    for trial in task.trials:
        key = {"trial_id": trial.trial_id, "config_hash": trial.config_hash, "exp": plan.exp, "paper": plan.paper,
               "dataset": trial.dataset, "trial": trial.trial, "method": trial.method, "params": trial.params_json}
        try:
            if task_error is not None:
                raise task_error
            scores = fit_and_score(trial, plan.metrics, part.C, part.classes, part.X_train, part.y_train,
                                   part.X_test, part.z_test)
        except Exception as err:  # recorded per trial (failures.csv) so the other trials still run
            failed.append({**key, "error": f"{type(err).__name__}: {err}", "traceback": "".join(
                traceback.format_exception(err)), "failed_at": datetime.now(timezone.utc).isoformat(timespec="seconds")})
            continue
        rows.append({**key, "split_index": part.index, "split_seed": part.seed, "cost_seed": part.cost_seed,
                     "model_seed": trial.model_seed, **scores, "n_train": len(part.y_train),
                     "n_test": len(part.z_test), "n_classes": len(part.classes), "versions": context["versions"],
                     "git_commit": context["git_commit"],
                     "finished_at": datetime.now(timezone.utc).isoformat(timespec="microseconds")})
    return rows, failed


@dataclass
class _Part:
    """A task's data: its split (index in its draw, seed), train and test parts, classes and cost matrix."""

    index: int
    seed: int
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    z_test: np.ndarray
    classes: np.ndarray
    C: np.ndarray
    cost_seed: int


def _prepare(task: Task, context: dict) -> _Part:
    """Load, split, standardize and cost one (dataset, trial index) (see :func:`run_task`)."""
    plan = task.plan
    data = _dataset(plan.source, context["data_root"], context["download"])
    classes = np.unique(data.y)
    index, seed, train, test = trial_split(plan, task.trial, context["data_root"], context["download"])
    X_train, X_test = standardize(data.X[train], data.X[test]) if plan.standardize else (data.X[train], data.X[test])
    y_train = training_labels(plan, task.trial, data.y[train], classes)
    cost_seed = task.trials[0].cost_seed  # the same for all trials of a (dataset, trial index)
    C = cost_matrix_of(plan.cost, len(classes), np.searchsorted(classes, y_train), random_state=cost_seed)
    return _Part(index, seed, X_train, y_train, X_test, np.searchsorted(classes, data.y[test]), classes, C, cost_seed)


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
    """``y_train`` with the protocol's ``label_noise`` fraction given new labels, drawn as its ``label_noise_draw``
    says (default ``other``: flipped to another class; csrepro.data.synthetic.contaminate_labels); test labels stay
    clean.

    The chosen rows depend on derive_seed(exp, dataset, t, "label_noise"): the same for all methods of a trial.
    """
    noise = plan.protocol.get("label_noise", 0.0)
    if not noise:
        return y_train
    seed = derive_seed(plan.exp, plan.dataset, t, "label_noise")
    return contaminate_labels(y_train, noise, random_state=seed, classes=classes,
                              draw=plan.protocol.get("label_noise_draw", TRAINING_OPTIONS["label_noise_draw"]))[0]


def fit_and_score(trial: Trial, metric_names, C, classes, X_train, y_train, X_test, z_test) -> dict:
    """Fit the trial's estimator on the training labels and score its test predictions (indices ``z_test``).

    A cost-blind method is built without ``C`` (csrepro.config.method_cost); every method is scored
    with it. Estimators with a ``labels`` parameter get all dataset classes, so the cost matrix matches
    even when the training part misses a class.  An entry with ``inner_cv`` is wrapped in an inner
    cross-validated search (csrepro.selection.inner_cv), one with ``rounds_on_validation`` in
    csrepro.selection.rounds.RoundsOnValidation (its ``patience`` and ``refit`` too).

    Seeds: the model by ``trial.model_seed``; the validation split, inner folds and the decision rules' inner folds
    by ``trial.selection_seed`` when the protocol shares one per trial (csrepro.trials; a factory with a
    ``selection_seed`` parameter gets it), else by the model seed.  The choice is stored as ``selected`` (JSON): an
    estimator's ``selected_params_`` (the convention of every estimator that tunes itself, e.g.
    RoundsOnValidation and the leaderboard's baselines), else an ``inner_cv`` search's ``best_params_``, else, for
    a meta-estimator whose fitted ``estimator_`` (or its ``estimator_``, ...) tuned itself (e.g. a decision rule
    over a tuned probability model), that one's as ``{"model": ...}``; with a shared seed, every method stores it
    there as ``selection_seed`` ({} and the seed for a method that chooses nothing).
    """
    params = json.loads(trial.params_json)
    method, cv = params.pop("method", trial.method), params.pop("inner_cv", None)
    rounds = params.pop("rounds_on_validation", None)
    shared = trial.selection_seed is not None
    seed = trial.selection_seed if shared else trial.model_seed  # of the validation rows and inner folds
    if shared and "selection_seed" in inspect.signature(methods.get_method(method).factory).parameters:
        params["selection_seed"] = trial.selection_seed
    estimator = methods.make_estimator(method, cost_matrix=method_cost(method, C), random_state=trial.model_seed,
                                       **params)
    if "labels" in estimator.get_params() and estimator.get_params()["labels"] is None:
        estimator.set_params(labels=classes)
    if cv:
        estimator = inner_cv(estimator, cv, random_state=seed)
    if rounds:  # number of weak learners on a validation part of the training part (csrepro.selection.rounds)
        estimator = RoundsOnValidation(estimator, val_size=rounds["val_size"], criterion=rounds["criterion"],
                                       cost_matrix=C, param_grid=rounds.get("grid"), random_state=seed,
                                       patience=rounds.get("patience"), refit=rounds.get("refit", False))
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
    chosen = getattr(estimator, "selected_params_", estimator.best_params_ if cv else None)
    inner = getattr(estimator, "estimator_", None)
    while inner is not None and not hasattr(inner, "selected_params_"):  # through wrappers (e.g. a shared fit)
        inner = getattr(inner, "estimator_", None)
    if chosen is None and inner is not None:
        chosen = {"model": inner.selected_params_}
    if shared:
        chosen = {**(chosen or {}), "selection_seed": trial.selection_seed}
    selected = {} if chosen is None else {"selected": canonical_json(chosen)}
    return {**score(p, metric_names), **selected,
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


@functools.lru_cache(maxsize=32)
def _dataset(name: str, data_root, download: bool):
    """The dataset, loaded once per worker process."""
    return load_dataset(name, data_root=data_root, download=download)


@functools.lru_cache(maxsize=32)
def _splits(name: str, data_root, download: bool, protocol_json: str, seed: int) -> list:
    """One draw of the protocol's splits of a dataset (cached per worker process)."""
    data = _dataset(name, data_root, download)
    params = json.loads(protocol_json)
    options = {k: params.pop(k, default) for k, default in TRAINING_OPTIONS.items()}
    params.pop("selection_seed", None)  # not a splitting option (csrepro.config.SELECTION_SEEDS)
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
