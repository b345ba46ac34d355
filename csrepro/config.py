"""Experiment configuration: composition, the structured schema and the checks run before any work.

:func:`compose` is the one composition of ``conf/config.yaml`` with an experiment and overrides
(Hydra's compose API), used by ``python -m csrepro.run`` (its checks before Hydra starts) and by
``python -m csrepro.report``. The schema (``Config``) is registered with Hydra as ``csrepro_schema``
and also applied by :func:`validate_config` to plain dicts, so a config is checked the same way from
the CLI and from ``run_experiment``. Every error names the bad field or value and lists the valid
choices. :func:`dataset_settings` and :func:`config_hash` say what an experiment runs on each dataset
(csrepro.trials enumerates its trials from them; the report selects the run's plan by them) and
:func:`plan_key` names an experiment's plan in the store (csrepro.store).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import inspect
import itertools
import json
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hydra
import numpy as np
from hydra import initialize_config_dir
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.config_store import ConfigStore
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.plugins import Plugins
from hydra.errors import HydraException, OverrideParseException
from hydra.plugins.search_path_plugin import SearchPathPlugin
from joblib import cpu_count
from omegaconf import MISSING, DictConfig, OmegaConf
from omegaconf.errors import ConfigKeyError, OmegaConfBaseException
from sklearn.model_selection import ParameterGrid
from sklearn.utils._param_validation import Interval

from csrepro import costs, methods
from csrepro.cache import fingerprint, named_cache
from csrepro.data.protocols import PROTOCOLS, SIZE_KEYS, TRAINING_OPTIONS, SizeError, holdout_sizes
from csrepro.data.registry import get_spec, list_datasets
from csrepro.data.synthetic import LABEL_NOISE_DRAWS
from csrepro.scoring import METRICS

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"
BACKENDS = ("loky", "dask")
#: the most trials one experiment may plan (the largest experiment plans about 310,000)
MAX_PLANNED_TRIALS = 1_000_000
#: ``protocol.selection_seed`` (issue 30): whose seed the validation parts and inner folds of a trial's methods use --
#: each method's own model seed ("method", the default) or one per (dataset, trial) shared by its methods ("trial",
#: csrepro.trials); not a splitting option, so the runner leaves it out of the splits
SELECTION_SEEDS = ("method", "trial")


class ConfigError(ValueError):
    """An experiment config that cannot run; the message names the field and the fix."""


@dataclass
class PreprocessingConf:
    """Feature preprocessing fitted on the training part of each split."""

    standardize: bool = False


@dataclass
class DatasetOverrides:
    """Settings that replace the experiment's for one dataset (a new ``name``/``kind`` replaces all keys).

    ``dataset`` makes the key an alias: an id that is not in the registry, naming the registry
    dataset it loads (e.g. ``bupa_o40: {dataset: bupa, protocol: {label_noise: 0.4}}``).
    ``n_trials`` replaces ``exp.n_trials`` (e.g. the number of examples for leave-one-out).
    ``method_params`` are added to (or replace) every method's parameters on this dataset, e.g.
    ``{positive: minority}``: the class a detector detects (:func:`dataset_entries`).
    """

    dataset: str | None = None
    protocol: dict[str, Any] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)
    n_trials: int | None = None
    method_params: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExpConf:
    """One experiment (CONTRACT.md, "Experiment semantics")."""

    name: str = MISSING
    paper: str = ""
    datasets: list[str] = field(default_factory=list)
    n_trials: int = 1
    protocol: dict[str, Any] = field(default_factory=lambda: {"name": "predefined_or_holdout"})
    cost: dict[str, Any] = field(default_factory=lambda: {"kind": "zero_one"})
    preprocessing: PreprocessingConf = field(default_factory=PreprocessingConf)
    methods: dict[str, dict[str, Any]] = field(default_factory=dict)
    metrics: list[str] = field(default_factory=lambda: ["risk", "error"])
    # values are DatasetOverrides, checked by validate_config: typed as Any so that Hydra can add one
    # key at a time (``+exp.per_dataset.<id>.n_trials=1``), which a typed dict value refuses
    per_dataset: dict[str, Any] = field(default_factory=dict, metadata={"schema": DatasetOverrides})
    report: dict[str, Any] = field(default_factory=dict)
    # named values that other fields take by interpolation (``${exp.vars.rounds_cap}``), e.g. what differs between
    # a default and a cluster scale that share one suite; used by nothing else, so they enter no hash by themselves
    vars: dict[str, Any] = field(default_factory=dict)


@dataclass
class DaskConf:
    """Dask cluster: a running scheduler at ``address``, else a LocalCluster built with ``local_cluster``."""

    address: str | None = None
    local_cluster: dict[str, Any] = field(default_factory=lambda: {
        "n_workers": 1, "threads_per_worker": 1, "processes": False, "dashboard_address": None})


@dataclass
class RunnerConf:
    """How trials are executed; none of it changes a number in the store."""

    backend: str = "loky"
    n_jobs: int = 1  # >= 1 tasks at once; -1: one per core; -k: all cores but k - 1 (joblib's), at least one left
    resume: bool = True
    progress: bool = True
    dask: DaskConf = field(default_factory=DaskConf)


@dataclass
class ResultsConf:
    """Where stores go: ``<root>/<exp.name>/store``; a relative root is taken from the launch directory."""

    root: str = "results"


@dataclass
class DataConf:
    """Dataset sources, passed to ``csrepro.data.loaders.load_dataset``."""

    root: str | None = None
    download: bool = True


@dataclass
class Config:
    """The whole config: ``conf/config.yaml`` with an experiment under ``exp``."""

    exp: ExpConf = field(default_factory=ExpConf)
    runner: RunnerConf = field(default_factory=RunnerConf)
    results: ResultsConf = field(default_factory=ResultsConf)
    data: DataConf = field(default_factory=DataConf)


ConfigStore.instance().store(name="csrepro_schema", node=Config)


def config_dirs(conf_dir=None) -> list[Path]:
    """The config search path of ``conf_dir`` (default: the repository's conf/, the groups papers share):
    ``conf_dir``, then every paper's ``experiments/<paper>/conf`` beside it (its experiments, ``exp/*.yaml``)."""
    conf_dir = Path(conf_dir or CONF_DIR).resolve()
    return [conf_dir, *sorted((conf_dir.parent / "experiments").glob("*/conf"))]


class PaperConfigs(SearchPathPlugin):
    """Hydra's search path plugin: after the primary config folder, the paper folders :func:`config_dirs` finds
    beside it, so ``+exp=<name>`` finds ``experiments/<paper>/conf/exp/<name>.yaml`` (a new paper: no list to edit)."""

    def manipulate_search_path(self, search_path) -> None:
        main = next((e.path for e in search_path.get_path() if e.provider == "main"), None)
        if main and Path(main.removeprefix("file://")).is_absolute():
            for folder in config_dirs(main.removeprefix("file://"))[1:]:
                search_path.append("csrepro-papers", f"file://{folder}")


Plugins.instance().register(PaperConfigs)


def experiment_path(exp: str, conf_dir=None) -> Path | None:
    """The file ``<dir>/exp/<exp>.yaml`` of the first folder of :func:`config_dirs` that has it (None: none has)."""
    return next((d / "exp" / f"{exp}.yaml" for d in config_dirs(conf_dir) if (d / "exp" / f"{exp}.yaml").is_file()),
                None)


def experiment_names(conf_dir=None) -> list[str]:
    """The experiments on the search path of ``conf_dir`` (:func:`config_dirs`; default: the repository's)."""
    return sorted({p.stem for d in config_dirs(conf_dir) for p in (d / "exp").glob("*.yaml")})


def compose(exp: str, overrides=(), *, conf_dir=None, metric_names=None) -> DictConfig:
    """``<conf_dir>/config.yaml`` with exp/<exp>.yaml (:func:`experiment_path`) under ``exp`` and ``overrides`` (Hydra's
    override syntax, e.g. ``exp.n_trials=2``, ``+exp.cost.lo=1``), composed as ``python -m csrepro.run
    +exp=<exp> [overrides]`` composes it; validated (:func:`validate_config`) when ``metric_names``
    is given (csrepro.scoring.METRICS), else as composed. Raises ConfigError naming the problem.
    """
    if experiment_path(exp, conf_dir) is None:
        raise ConfigError(f"no experiment config {exp}.yaml in {Path(conf_dir or CONF_DIR) / 'exp'} or "
                          f"experiments/*/conf/exp; known experiments: {experiment_names(conf_dir)}")
    cfg = compose_overrides([f"+exp={exp}", *overrides], conf_dir=conf_dir)
    return cfg if metric_names is None else validate_config(cfg, metric_names)


def compose_overrides(overrides, conf_dir=None) -> DictConfig:
    """``<conf_dir>/config.yaml`` composed by Hydra with the command-line ``overrides`` (the experiment
    selected by one of them, ``+exp=<name>``), without the ``hydra`` node and not validated.

    Overrides of unknown fields raise ConfigError listing the valid ones (:func:`check_overrides`),
    so do values that cannot mean what they say (:func:`check_override_values`) and overrides of
    datasets the experiment does not run; Hydra's errors are turned into a ConfigError of one line
    (:func:`hydra_message`). Inside a running Hydra app (a job of ``python -m csrepro.run``) the
    app's config search path is used; outside, the composition of the config groups the overrides
    choose is made once per process (:func:`_compose`).
    """
    conf_dir = Path(conf_dir or CONF_DIR).resolve()
    overrides = list(overrides)
    check_overrides(overrides, conf_dir)
    check_override_values(overrides)
    try:
        if GlobalHydra.instance().is_initialized():
            cfg = hydra.compose(config_name="config", overrides=overrides)
        else:
            cfg = _compose(overrides, conf_dir)
    except HydraException as err:
        raise ConfigError(hydra_message(err)) from None
    _check_per_dataset_targets(overrides, cfg)
    return cfg


def _compose(overrides: list[str], conf_dir: Path) -> DictConfig:
    """What ``hydra.compose`` gives for ``overrides`` with ``conf_dir`` as the primary config folder, made
    as Hydra makes it in two steps: the defaults (config.yaml with the config groups the overrides
    choose, e.g. ``+exp=smoke``), composed by Hydra and kept while no config file changes
    (:func:`_compose_groups`), then a copy with the other overrides applied by Hydra's own
    ConfigLoaderImpl._apply_overrides_to_config (what Hydra does after composing the defaults). Sweeps and
    ``hydra.*`` overrides go to Hydra whole."""
    parsed = OverridesParser.create().parse_overrides(overrides)
    files = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size)
                  for root in config_dirs(conf_dir) for f in sorted(root.rglob("*.yaml")))
    if any(o.is_sweep_override() or o.is_hydra_override() for o in parsed):
        return _compose_groups(tuple(overrides), conf_dir, files)
    groups = {d.relative_to(root).as_posix() for root in config_dirs(conf_dir) for d in root.rglob("*") if d.is_dir()}
    # Hydra's split (hydra._internal.defaults_list.Overrides): a dict value or a key that is no group is a value
    chosen = [not isinstance(o.value(), dict) and o.key_or_group in groups for o in parsed]
    cfg = copy.deepcopy(_compose_groups(tuple(o.input_line for o, c in zip(parsed, chosen) if c), conf_dir, files))
    ConfigLoaderImpl._apply_overrides_to_config([o for o, c in zip(parsed, chosen) if not c], cfg)
    return cfg


@functools.lru_cache(maxsize=64)
def _compose_groups(overrides: tuple[str, ...], conf_dir: Path, files: tuple) -> DictConfig:
    """``hydra.compose`` of ``overrides`` with the primary config folder ``conf_dir``, cached by the
    config files' (path, mtime, size) ``files`` as well (never modify the result)."""
    with initialize_config_dir(config_dir=str(conf_dir), version_base="1.3", job_name="csrepro"):
        return hydra.compose(config_name="config", overrides=list(overrides))


def _parsed(overrides) -> list:
    """The ``key=value`` overrides parsed by Hydra (none when Hydra cannot parse them: it reports that)."""
    try:
        return OverridesParser.create().parse_overrides([a for a in overrides if "=" in a and not a.startswith("-")])
    except OverrideParseException:
        return []


def check_override_values(overrides) -> None:
    """Raise ConfigError for an override Hydra would accept but that cannot mean what it says: an empty
    mapping (``exp.methods={}``: merged into the node, it changes nothing) or a value other than true/false
    for a bool field (``runner.resume=2``, which OmegaConf would read as true)."""
    for o in _parsed(overrides):
        if o.is_delete() or o.is_sweep_override() or o.is_hydra_override():
            continue
        key, value = o.key_or_group, o.value()
        if value == {} and not (o.is_add() or o.is_force_add()):
            raise ConfigError(f"'{o.input_line}' changes nothing: a mapping given on the command line is merged into "
                              f"{key}, not put in its place; drop entries with '~{key}.<name>' (add them with "
                              f"'+{key}.<name>=...')")
        if _field_type(key) is bool and not isinstance(value, bool):
            raise ConfigError(f"{o.input_line}: {key} is true or false; write {key}=true or {key}=false")


def _check_per_dataset_targets(overrides, cfg: DictConfig) -> None:
    """Raise ConfigError for an override of ``exp.per_dataset.<id>`` whose id is not in the composed
    ``exp.datasets`` (it would be ignored)."""
    datasets = OmegaConf.select(cfg, "exp.datasets", default=None)
    if datasets is None:
        return
    for o in _parsed(overrides):
        parts = o.key_or_group.split(".")
        if o.is_delete() or o.is_sweep_override() or parts[:2] != ["exp", "per_dataset"]:
            continue
        value = o.value()
        ids = parts[2:3] or (list(value) if isinstance(value, Mapping) else [])
        missing = [i for i in ids if i not in datasets]
        if missing:
            raise ConfigError(f"{o.input_line}: {missing[0]!r} is not in exp.datasets {list(datasets)}, so the override "
                              f"would be ignored; add it to exp.datasets or drop the override")


def _field_type(dotted: str):
    """The schema type of the field ``dotted`` (e.g. ``runner.resume`` -> bool); None when it is no
    schema field (a free key, e.g. a method parameter)."""
    node = Config
    for part in dotted.split("."):
        if not dataclasses.is_dataclass(node) or part not in {f.name for f in dataclasses.fields(node)}:
            return None
        node = typing.get_type_hints(node)[part]
    return node


def check_overrides(overrides, conf_dir=None) -> None:
    """Raise ConfigError for an override of an unknown field (e.g. ``exp.n_trial=5``), listing the valid ones.

    Appended keys (``+key=value``), deletions, packages, config groups and ``hydra.*`` are left to
    Hydra and to the schema check of :func:`validate_config`; overrides Hydra cannot parse are left
    to Hydra to report.
    """
    groups = {p.name for d in config_dirs(conf_dir) for p in d.iterdir() if p.is_dir()}
    tokens = [a for a in overrides if "=" in a and not a.startswith("-")]
    try:
        parsed = OverridesParser.create().parse_overrides(tokens)
    except OverrideParseException:
        return  # Hydra reports the syntax error
    for o in parsed:
        plain = not (o.is_add() or o.is_force_add() or o.is_delete() or o.package is not None)
        if plain and not o.is_hydra_override() and o.key_or_group not in groups:
            check_key(o.key_or_group)


def hydra_message(err: HydraException) -> str:
    """Hydra's multi-line error (with its cause) as one line: the search path left out, options listed."""
    lines, options = [], []
    for line in str(err).split("Config search path:")[0].splitlines():
        if line.startswith("\t"):
            options.append(line.strip())
        elif line.strip():
            lines.append(line.strip())
    message = " ".join(lines) + (f" {', '.join(options)}" if options else "")
    if err.__cause__ is not None:
        message += f" ({str(err.__cause__).splitlines()[0]})"
    return message


def check_key(dotted: str) -> None:
    """Raise ConfigError when ``dotted`` (e.g. ``exp.n_trial``) is no field of the schema, listing the valid ones."""
    node, path, parts = Config, [], dotted.split(".")
    while parts:
        part = parts.pop(0)
        fields = {f.name: f for f in dataclasses.fields(node)}
        if part not in fields:
            where = ".".join(path) or "the top level"
            raise ConfigError(f"unknown config field {dotted!r}: {where} has no {part!r}; valid fields: {list(fields)}")
        path.append(part)
        node = typing.get_type_hints(node)[part]
        if typing.get_origin(node) is dict and parts:  # a free key (e.g. a dataset id), then its value's type
            path.append(parts.pop(0))
            node = fields[part].metadata.get("schema", typing.get_args(node)[1])
        if not dataclasses.is_dataclass(node):
            return


def select(cfg: DictConfig, *keys: str, default=None):
    """Plain-container value of the first of ``keys`` set in ``cfg`` (e.g. "exp.paper", then "paper"), else
    ``default``."""
    for key in keys:
        value = OmegaConf.select(cfg, key)
        if value is not None:
            return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value
    return default


def validate_config(cfg, metric_names=METRICS, *, build_methods: bool = True) -> DictConfig:
    """``cfg`` (DictConfig or dict) merged onto the schema and checked against the registries.

    Checks: field names and types, the experiment's name, datasets and per-dataset override ids
    (registry; overrides of datasets not in ``exp.datasets`` are unused), n_trials, methods and
    their parameters (method registry), metrics (``metric_names``, by default csrepro.scoring.METRICS), protocol and cost (built once
    per dataset) and runner settings. Returns a read-only DictConfig.  ``build_methods=False`` leaves out
    building each method's estimator for each dataset's cost (the slow check: seconds for the leaderboard's
    problems), for a config whose plan is read but not run (the experiment file behind a run with overrides).
    """
    try:
        merged = OmegaConf.merge(OmegaConf.structured(Config), cfg)
        OmegaConf.to_container(merged, resolve=True, throw_on_missing=True)
    except ConfigKeyError as err:
        check_key(err.full_key)
        raise ConfigError(f"invalid config: {err.msg}") from None
    except OmegaConfBaseException as err:
        if err.full_key == "exp.name":
            raise ConfigError(f"no experiment selected; pass +exp=<name>, one of {experiment_names()}") from None
        raise ConfigError(f"invalid config value at {err.full_key!r}: {str(err.msg).splitlines()[0]}") from None
    _check_bools(cfg if not OmegaConf.is_config(cfg) else OmegaConf.to_container(cfg), Config)
    merged.exp.per_dataset = {key: _dataset_overrides(key, value) for key, value in merged.exp.per_dataset.items()}
    exp, runner = merged.exp, merged.runner
    if not str(merged.results.root).strip():
        raise ConfigError("results.root is empty; give the folder for results, e.g. results.root=results "
                          "(the default)")
    if merged.data.root is not None and not str(merged.data.root).strip():
        raise ConfigError("data.root is empty; give the dataset mirror's folder, or leave data.root out (null: "
                          "$CSREPRO_DATA_DIR, else ../shared/datasets)")
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", exp.name):
        raise ConfigError(f"exp.name={exp.name!r} cannot name the results folder <results.root>/<exp.name>; use "
                          "letters, digits, '_', '-' and '.' (not first), e.g. exp.name=smoke_small")
    if not exp.datasets:
        raise ConfigError("exp.datasets is empty; list registry ids, e.g. 'exp.datasets=[sk_iris,sk_wine]'")
    aliases = _dataset_aliases(exp)
    unknown = sorted(set(exp.datasets) - set(list_datasets()) - set(aliases))
    if unknown:
        raise ConfigError(f"exp.datasets: unknown dataset(s) {unknown}; valid: {list_datasets()} or an alias "
                          "defined in exp.per_dataset with a `dataset: <registry id>` key")
    if len(set(exp.datasets)) != len(exp.datasets):
        raise ConfigError(f"exp.datasets lists a dataset twice: {list(exp.datasets)}; list each once")
    if exp.n_trials < 1:
        raise ConfigError(f"exp.n_trials must be >= 1, got {exp.n_trials}")
    for dataset, over in exp.per_dataset.items():
        if over.n_trials is not None and over.n_trials < 1:
            raise ConfigError(f"exp.per_dataset.{dataset}.n_trials must be >= 1 (or left out for exp.n_trials), "
                              f"got {over.n_trials}")
    if not exp.metrics:
        raise ConfigError(f"exp.metrics is empty, so trials would store no score; list some, e.g. "
                          f"'exp.metrics=[risk,error]'; valid: {sorted(metric_names)}")
    _check_metrics(exp.metrics, metric_names)
    if not exp.methods:
        raise ConfigError(f"exp.methods is empty; add e.g. 'exp.methods={{mcboost: {{}}}}'; "
                          f"valid methods: {methods.method_names()}")
    entries = method_entries(exp.methods)
    unknown = sorted(set(exp.per_dataset) - set(list_datasets()) - set(aliases))
    if unknown:
        raise ConfigError(f"exp.per_dataset: unknown dataset(s) {unknown}; valid: {list_datasets()}, or give "
                          "an alias a `dataset: <registry id>` key")
    for dataset in exp.datasets:
        n_classes = get_spec(source_dataset(exp, dataset)).n_classes
        _check_metric_classes(exp.metrics, metric_names, dataset, n_classes)
        _check_protocol(exp, dataset, dataset_setting(exp, dataset, "protocol"))
        C = _check_cost(dataset, dataset_setting(exp, dataset, "cost"), n_classes)
        extended = dataset_entries(exp, dataset, entries)
        for entry in extended if build_methods else ():
            try:
                _check_method_once(entry, C, dataset, n_classes)  # once per (entry, C, n_classes) and process
            except ConfigError as err:
                if extended is entries:
                    raise
                raise ConfigError(f"{err} (dataset {dataset}, with exp.per_dataset.{dataset}.method_params)") from None
    if runner.backend not in BACKENDS:
        raise ConfigError(f"runner.backend={runner.backend!r} is not valid; choose one of {list(BACKENDS)}")
    _check_n_jobs(runner)
    planned = sum(s.n_trials * len(s.methods) for s in dataset_settings(exp).values())
    if planned > MAX_PLANNED_TRIALS:
        raise ConfigError(f"the experiment plans {planned:,} trials (exp.n_trials={exp.n_trials} x datasets x "
                          f"methods), more than the {MAX_PLANNED_TRIALS:,} a run may plan; lower exp.n_trials "
                          "(or exp.per_dataset.<id>.n_trials), or run fewer datasets or methods at a time")
    OmegaConf.set_readonly(merged, True)
    return merged


def _check_bools(given, node) -> None:
    """A bool field of the schema ``node`` given in the plain container ``given`` holds True or False
    (OmegaConf would read 2, "yes" or "0" as a bool)."""
    if not isinstance(given, Mapping) or not dataclasses.is_dataclass(node):
        return
    hints = typing.get_type_hints(node)
    for f in dataclasses.fields(node):
        if f.name not in given:
            continue
        if hints[f.name] is bool and not isinstance(given[f.name], bool):
            raise ConfigError(f"{_path_of(node)}{f.name}={given[f.name]!r}: {f.name} is true or false")
        _check_bools(given[f.name], hints[f.name])


def _path_of(node) -> str:
    """The dotted prefix of a schema section (``runner.``, ``exp.preprocessing.``) for messages."""
    paths = {RunnerConf: "runner.", DataConf: "data.", PreprocessingConf: "exp.preprocessing.", ExpConf: "exp.",
             ResultsConf: "results.", DaskConf: "runner.dask."}
    return paths.get(node, "")


def _check_n_jobs(runner: DictConfig) -> None:
    """runner.n_jobs: >= 1, or negative as joblib reads it (-1 all cores, -2 all but one, ...) with at
    least one worker left on this machine (for Dask: -1 only, the cluster's worker threads)."""
    n, cores = runner.n_jobs, cpu_count()
    usage = (f"give a number of parallel tasks >= 1, or -1 for one per core (this machine has {cores}; -k means "
             "all cores but k - 1)")
    if n == 0:
        raise ConfigError(f"runner.n_jobs=0 runs nothing; {usage}")
    if n < -1 and runner.backend == "dask":
        raise ConfigError(f"runner.n_jobs={n} is not defined for runner.backend=dask; give a number >= 1, or -1 "
                          "for as many tasks as the cluster has worker threads")
    if n < 0 and cores + 1 + n < 1:
        raise ConfigError(f"runner.n_jobs={n} leaves no core of this machine's {cores} (-k means all cores but "
                          f"k - 1); {usage}")


def _dataset_overrides(key: str, value) -> DictConfig:
    """``exp.per_dataset.<key>`` merged onto the DatasetOverrides schema; errors name the field."""
    try:
        return OmegaConf.merge(OmegaConf.structured(DatasetOverrides), value)
    except ConfigKeyError as err:
        check_key(f"exp.per_dataset.{key}.{err.full_key}")
        raise ConfigError(f"invalid config at exp.per_dataset.{key}: {str(err.msg).splitlines()[0]}") from None
    except OmegaConfBaseException as err:
        raise ConfigError(f"invalid config value at 'exp.per_dataset.{key}.{err.full_key}': "
                          f"{str(err.msg).splitlines()[0]}") from None


def _dataset_aliases(exp: DictConfig) -> dict[str, str]:
    """Alias id -> registry id of the ``exp.per_dataset`` entries that name a ``dataset``."""
    aliases = {}
    for alias, over in exp.per_dataset.items():
        if over.dataset is None:
            continue
        if alias in list_datasets():
            raise ConfigError(f"exp.per_dataset.{alias}.dataset: {alias!r} is a registry id, so it cannot be an "
                              "alias; give the alias another name")
        if over.dataset not in list_datasets():
            raise ConfigError(f"exp.per_dataset.{alias}.dataset: unknown dataset {over.dataset!r}; "
                              f"valid: {list_datasets()}")
        aliases[alias] = over.dataset
    return aliases


def source_dataset(exp: DictConfig, dataset: str) -> str:
    """The registry id that ``dataset`` (a registry id or an ``exp.per_dataset`` alias) loads."""
    over = exp.per_dataset[dataset] if dataset in exp.per_dataset else None
    return over.dataset if over is not None and over.dataset is not None else dataset


@dataclass(frozen=True)
class MethodEntry:
    """One method id of an experiment (a store ``method`` value) and how to build its estimator.

    ``exp.methods`` keys are registry ids (``adaboost: {n_estimators: 50}``) or aliases naming one
    (``clog_a1: {method: canonical_gradientboost, loss: canonical_logistic, a: 1}``).  ``grid:
    {p: [v1, v2, ...]}`` expands a key into one id per combination, ``key[p=v1]`` (several params:
    ``key[p=v1,q=w1]`` in the grid's order).  ``inner_cv: {param, values, folds}`` selects ``param``
    among ``values`` by stratified inner ``folds``-fold cross-validation on each training part
    (named so as not to clash with estimators' own ``cv`` parameters).
    """

    id: str
    method: str
    params: dict
    cv: dict | None
    key: str
    grid: dict
    rounds: dict | None = None  # ``rounds_on_validation: {val_size, criterion[, grid]}`` (csrepro.selection.rounds)

    @property
    def params_json(self) -> str:
        """Canonical JSON of the entry as the trial key holds it: params, plus ``method``, ``inner_cv`` and
        ``rounds_on_validation`` when given (so entries without them keep their trial ids)."""
        extra = {"method": self.method} if self.method != self.id or self.grid else {}
        rounds = {"rounds_on_validation": self.rounds} if self.rounds else {}
        return json.dumps({**self.params, **extra, **({"inner_cv": self.cv} if self.cv else {}), **rounds},
                          sort_keys=True, separators=(",", ":"))


def dataset_entries(exp, dataset: str, entries: list[MethodEntry]) -> list[MethodEntry]:
    """``entries`` with ``exp.per_dataset.<dataset>.method_params`` merged into their params (unchanged
    without them, so other datasets keep their trial ids)."""
    over = exp.per_dataset[dataset] if dataset in exp.per_dataset else None
    extra = OmegaConf.to_container(over.method_params, resolve=True) if over is not None else {}
    return [dataclasses.replace(e, params={**e.params, **extra}) for e in entries] if extra else entries


def method_entries(methods_cfg, registered: bool = True) -> list[MethodEntry]:
    """The experiment's method ids in config order, grids expanded (see :class:`MethodEntry`); checked.

    ``registered=False`` skips the check that each entry names a registered method (reports).
    """
    out = []
    for key, value in methods_cfg.items():
        entry = OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else dict(value or {})
        where = f"exp.methods.{key}"
        if "[" in key or "]" in key:
            raise ConfigError(f"{where}: method ids cannot contain '[' or ']' (they mark grid members); rename it")
        method = entry.pop("method", key)
        if registered and method not in methods.method_names():
            hint = "" if "method" in dict(value or {}) else " (or give the alias a `method: <registry id>` key)"
            raise ConfigError(f"exp.methods: unknown [{method!r}]{hint}; valid: {methods.method_names()}")
        grid, cv = entry.pop("grid", None) or {}, entry.pop("inner_cv", None)
        rounds = _check_rounds(where, entry.pop("rounds_on_validation", None))
        if not isinstance(grid, Mapping) or any(not isinstance(v, list) or not v for v in grid.values()):
            raise ConfigError(f"{where}.grid must map parameter names to non-empty lists of values, got {grid!r}")
        clash = sorted(set(grid) & set(entry))
        if clash:
            raise ConfigError(f"{where}: {clash} given both as a fixed value and in grid; keep one")
        if cv is not None:
            cv = _check_cv(where, cv, set(entry) | set(grid))
        for combo in itertools.product(*grid.values()):
            values = dict(zip(grid, combo))
            label = ",".join(f"{p}={_format_value(v)}" for p, v in values.items())
            out.append(MethodEntry(f"{key}[{label}]" if grid else key, method, {**entry, **values}, cv, key, values,
                                   rounds))
    ids = [e.id for e in out]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ConfigError(f"exp.methods: the ids {dup} are defined twice (a grid member clashes with a key); rename")
    return out


def _format_value(value) -> str:
    """Short text of a grid value: 0.1 -> '0.1', 1.0 -> '1', 'x' -> 'x'."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _check_cv(where: str, cv, fixed: set) -> dict:
    if not isinstance(cv, Mapping) or set(cv) - {"param", "values", "folds"} or not {"param", "values"} <= set(cv):
        raise ConfigError(f"{where}.inner_cv must be {{param: <name>, values: [...], folds: <int, default 5>}}, "
                          f"got {cv!r}")
    cv = {"folds": 5, **cv}
    if not isinstance(cv["values"], list) or not cv["values"]:
        raise ConfigError(f"{where}.inner_cv.values must be a non-empty list, got {cv['values']!r}")
    if isinstance(cv["folds"], bool) or not isinstance(cv["folds"], int) or cv["folds"] < 2:
        raise ConfigError(f"{where}.inner_cv.folds must be an int >= 2, got {cv['folds']!r}")
    if cv["param"] in fixed:
        raise ConfigError(f"{where}: {cv['param']!r} is both fixed (or in grid) and selected by inner_cv; keep one")
    return cv


def _check_rounds(where: str, rounds) -> dict | None:
    """``rounds_on_validation: {val_size: <fraction in (0, 1), default 1/3>, criterion: error | cost,
    grid: {param: [values]}, patience: int >= 1, refit: bool (all three optional)}``, checked.  ``grid``,
    ``patience`` and ``refit`` are kept only when given, so entries without them keep their ``params_json`` (and
    trial ids)."""
    if rounds is None:
        return None
    usage = ("{val_size: <fraction in (0, 1), default 0.3333>, criterion: <error (default) or cost>, "
             "grid: <optional {param: [values]}>, patience: <optional int >= 1>, refit: <optional bool>}")
    if not isinstance(rounds, Mapping) or set(rounds) - {"val_size", "criterion", "grid", "patience", "refit"}:
        raise ConfigError(f"{where}.rounds_on_validation must be {usage}, got {rounds!r}")
    if "grid" in rounds:
        grid = rounds["grid"]
        if not isinstance(grid, Mapping) or not grid or any(
                not isinstance(k, str) or not isinstance(v, list) or not v for k, v in grid.items()):
            raise ConfigError(f"{where}.rounds_on_validation.grid must map parameter names to non-empty lists of "
                              f"values, e.g. {{max_depth: [1, 2, 4]}}, got {grid!r}")
        bad = [k for k in grid if k == "n_estimators" or k.endswith("__n_estimators")]
        if bad:
            raise ConfigError(f"{where}.rounds_on_validation.grid: {bad} is the number of rounds, which is chosen "
                              "on validation anyway; give its maximum as a fixed parameter instead")
    rounds = {"val_size": 0.3333, "criterion": "error", **rounds}
    size = rounds["val_size"]
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 0 < size < 1:
        raise ConfigError(f"{where}.rounds_on_validation.val_size must be a fraction in (0, 1), got {size!r}")
    if rounds["criterion"] not in ("error", "cost"):
        raise ConfigError(f"{where}.rounds_on_validation.criterion must be 'error' or 'cost', got {rounds['criterion']!r}")
    patience = rounds.get("patience")
    if patience is not None and (isinstance(patience, bool) or not isinstance(patience, int) or patience < 1):
        raise ConfigError(f"{where}.rounds_on_validation.patience must be an int >= 1 (rounds without improvement "
                          f"before stopping), got {patience!r}")
    if not isinstance(rounds.get("refit", False), bool):
        raise ConfigError(f"{where}.rounds_on_validation.refit must be true or false, got {rounds['refit']!r}")
    return rounds


def dataset_setting(exp: DictConfig, dataset: str, key: str) -> dict:
    """``exp.protocol`` or ``exp.cost`` for ``dataset`` with its ``exp.per_dataset`` override applied.

    An override naming another protocol ``name`` or cost ``kind`` replaces the whole setting;
    otherwise its keys update the experiment's.
    """
    base = OmegaConf.to_container(exp[key], resolve=True)
    over = OmegaConf.to_container(exp.per_dataset[dataset][key], resolve=True) if dataset in exp.per_dataset else {}
    selector = "name" if key == "protocol" else "kind"
    if selector in over and over[selector] != base.get(selector):
        return over
    if key == "protocol":  # a part's size given per dataset replaces the experiment's in the other form
        base = {k: v for k, v in base.items() if SIZE_KEYS.get(k) not in over}
    return {**base, **over}


def canonical_json(value) -> str:
    """JSON with sorted keys and no spaces (stable across runs)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def hashed_protocol(protocol: dict) -> dict:
    """``protocol`` as hashes see it: a count (``test_count``, ``val_count``) under its fraction's key, as
    stores written before the two keys were told apart hold it (an int there, which a config can no
    longer give: no two settings share a hash), so those stores keep their trial ids."""
    return {("test_size" if k == "test_count" else "val_size" if k == "val_count" else k): v
            for k, v in protocol.items()}


def config_hash(exp: str, protocol: dict, cost: dict, standardize: bool, metrics) -> str:
    """Hash of the settings that change a dataset's numbers (the protocol as :func:`hashed_protocol`).

    Not hashed: n_trials, the dataset list, the methods (their params are in the trial key),
    paper, report and all runner settings, so growing an experiment reuses finished trials.
    """
    key = {"exp": exp, "protocol": hashed_protocol(protocol), "cost": cost, "standardize": standardize,
           "metrics": sorted(metrics)}
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class DatasetSettings:
    """What a validated experiment runs on one dataset: the settings its numbers depend on (hashed
    into ``config_hash``), its number of trials and its method ids with their params JSON, in
    config order (:class:`MethodEntry`). ``source`` is the registry id the data comes from."""

    dataset: str
    source: str
    protocol: dict
    cost: dict
    standardize: bool
    metrics: tuple[str, ...]
    config_hash: str
    n_trials: int
    methods: tuple[tuple[str, str], ...]


def dataset_settings(exp: DictConfig) -> dict[str, DatasetSettings]:
    """Dataset id -> its :class:`DatasetSettings`, for each of ``exp.datasets`` in order (``exp``: validated)."""
    out, metrics = {}, tuple(exp.metrics)
    entries = method_entries(exp.methods)
    standardize = bool(exp.preprocessing.standardize)
    for dataset in exp.datasets:
        protocol, cost = dataset_setting(exp, dataset, "protocol"), dataset_setting(exp, dataset, "cost")
        over = exp.per_dataset.get(dataset)
        n_trials = over.n_trials if over is not None and over.n_trials is not None else exp.n_trials
        out[dataset] = DatasetSettings(
            dataset, source_dataset(exp, dataset), protocol, cost, standardize, metrics,
            config_hash(exp.name, protocol, cost, standardize, metrics), n_trials,
            tuple((entry.id, entry.params_json) for entry in dataset_entries(exp, dataset, entries)))
    return out


def plan_key(exp: DictConfig) -> str:
    """Hex key of the trials a validated experiment plans: a hash of its ``exp`` settings but
    ``paper``, ``report`` and ``vars`` (whose values count where they are interpolated) (equal settings, equal
    key; the name of its plan in csrepro.store); protocols as :func:`hashed_protocol`."""
    settings = {k: v for k, v in OmegaConf.to_container(exp, resolve=True).items()
                if k not in ("paper", "report", "vars")}
    settings["protocol"] = hashed_protocol(settings["protocol"])
    for over in settings["per_dataset"].values():
        over["protocol"] = hashed_protocol(over["protocol"])
    return hashlib.sha256(canonical_json(settings).encode()).hexdigest()[:16]


def _check_metrics(given, valid) -> None:
    """Every name of ``exp.metrics`` is a metric of ``valid`` (csrepro.scoring.METRICS: ``in`` also takes its
    parametrised names, e.g. ``confusion_<i>_<j>``, listed by its ``patterns``)."""
    unknown = sorted(name for name in given if name not in valid)
    if unknown:
        patterns = list(getattr(valid, "patterns", []))
        more = f", or {' / '.join(patterns)} with integer class indices" if patterns else ""
        raise ConfigError(f"exp.metrics: unknown {unknown}; valid: {sorted(valid)}{more}")


def _check_metric_classes(given, valid, dataset: str, n_classes: int) -> None:
    """A parametrised metric's class indices exist on ``dataset`` (``valid.classes_needed``, if it has one)."""
    needed = getattr(valid, "classes_needed", None)
    for name in given if needed is not None else ():
        if needed(name) > n_classes:
            raise ConfigError(f"exp.metrics: {name} names class index {needed(name) - 1}, but dataset {dataset!r} "
                              f"has {n_classes} classes (indices 0..{n_classes - 1}, in sorted label order); "
                              "drop the metric or the dataset")


def _check_protocol(exp: DictConfig, dataset: str, protocol: dict) -> None:
    params = dict(protocol)
    name = params.pop("name", None)
    if name not in PROTOCOLS:
        raise ConfigError(f"protocol for {dataset!r}: name={name!r} is not valid; "
                          f"set exp.protocol.name to one of {sorted(PROTOCOLS)}")
    def where(key: str) -> str:
        own = dataset in exp.per_dataset and key in exp.per_dataset[dataset].protocol
        return f"exp.per_dataset.{dataset}.protocol" if own else "exp.protocol"

    selection = params.pop("selection_seed", "method")
    if selection not in SELECTION_SEEDS:
        raise ConfigError(f"protocol for {dataset!r} ({where('selection_seed')}.selection_seed): {selection!r} is not "
                          f"valid; choose one of {list(SELECTION_SEEDS)}")
    unknown = sorted(set(params) - set(PROTOCOLS[name]) - set(TRAINING_OPTIONS))
    if unknown:  # e.g. a holdout's test_size left by the experiment file after protocol@exp.protocol=kfold
        raise ConfigError(f"protocol {name!r} for {dataset!r} takes no parameter(s) {unknown}; "
                          f"valid: {sorted(PROTOCOLS[name]) + sorted(TRAINING_OPTIONS) + ['selection_seed']}; remove it from "
                          f"{where(unknown[0])} (on the command line: '~{where(unknown[0])}.{unknown[0]}')")
    if "test_size" in PROTOCOLS[name]:
        try:
            holdout_sizes(params)
        except SizeError as err:
            key, other = err.key, SIZE_KEYS[err.key]
            both = params.get(key) is not None and params.get(other) is not None
            fix = f" (on the command line: '~{where(key)}.{key}' or '~{where(other)}.{other}')" if both else ""
            raise ConfigError(f"protocol for {dataset!r} ({where(key)}.{key}): {err}{fix}") from None
    size, noise = params.get("train_size"), params.get("label_noise", 0.0)
    if size is not None and not (isinstance(size, int) and not isinstance(size, bool) and size >= 1
                                 or isinstance(size, float) and 0 < size <= 1):
        raise ConfigError(f"protocol for {dataset!r}: train_size must be a fraction in (0, 1] of each class "
                          f"or an int count per class, got {size!r}")
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0 <= noise < 1:
        raise ConfigError(f"protocol for {dataset!r}: label_noise must be a fraction in [0, 1) of the training "
                          f"labels to flip, got {noise!r}")
    draw = params.get("label_noise_draw", TRAINING_OPTIONS["label_noise_draw"])
    if draw not in LABEL_NOISE_DRAWS:
        raise ConfigError(f"protocol for {dataset!r} ({where('label_noise_draw')}.label_noise_draw): {draw!r} is not "
                          f"valid; choose one of {list(LABEL_NOISE_DRAWS)}")


def _check_cost(dataset: str, cost: dict, n_classes: int):
    """The dataset's cost matrix as the runner will build it (csrepro.costs.cost_matrix_of; every class counted
    once, seed 0), or one ConfigError line naming the problem."""
    kind = cost.get("kind")
    if kind not in costs.COST_KINDS:
        raise ConfigError(f"cost for {dataset!r}: kind={kind!r} is not valid; "
                          f"set exp.cost.kind to one of {sorted(costs.COST_KINDS)}")
    try:
        return costs.cost_matrix_of(cost, n_classes, random_state=0)
    except ValueError as err:
        raise ConfigError(f"cost for {dataset!r} ({n_classes} classes): {err}") from None


def method_cost(method: str, C):
    """The cost matrix the harness builds method id ``method`` with: ``C`` when its predictions use the costs,
    None for a cost-blind id (csrepro.methods: it would not use it; the runner still scores it with ``C``)."""
    return C if methods.get_method(method).cost_sensitive else None


def _takes(method: str, C, name: str, value) -> bool:
    """Whether method id ``method`` accepts the keyword ``name`` (whatever it makes of ``value``; never
    ``cost_matrix``: the harness gives it)."""
    return name != "cost_matrix" and methods.accepts(method, name, value, cost_matrix=method_cost(method, C))


def _method_keywords(method: str, C) -> list[str]:
    """The keywords ``method`` accepts (the registry's config fields of the id, built with ``C``), but
    ``cost_matrix``, which the harness gives."""
    return [k for k in methods.method_params(method, cost_matrix=method_cost(method, C)) if k != "cost_matrix"]


def _number_default(estimator, name: str):
    """The default of ``estimator``'s parameter ``name`` when it is a number (not a bool), else None."""
    parameter = inspect.signature(type(estimator)).parameters.get(name)
    default = parameter.default if parameter is not None else None
    return default if isinstance(default, (int, float)) and not isinstance(default, bool) else None


def _takes_number(estimator, name: str) -> bool:
    """Whether ``estimator``'s parameter ``name`` is a number and not a bool: its default is an int or
    float, or its scikit-learn constraints are intervals without "boolean"."""
    if _number_default(estimator, name) is not None:
        return True
    constraints = getattr(estimator, "_parameter_constraints", {}).get(name) or []
    return any(isinstance(c, Interval) for c in constraints) and not any(
        c == "boolean" or c is bool for c in constraints)


#: the method checks passed in this process, by (entry, its registry spec, C, n_classes): a run validates its config
#: and then the experiment file without overrides, and its report both again, mostly the same checks (the leaderboard
#: file's 1,200 take seconds); a failed check is not kept, so it fails again with its message
PASSED_METHOD_CHECKS = named_cache("method_checks", maxsize=8192)


def _check_method_once(entry: MethodEntry, C, dataset: str, n_classes: int) -> None:
    """:func:`_check_method`, skipped where the same check passed before in this process."""
    spec = methods.METHODS.get(entry.method)
    key = fingerprint(repr(entry), repr(spec), np.asarray(C, dtype=np.float64), n_classes)
    PASSED_METHOD_CHECKS.get(key, lambda: _check_method(entry, C, dataset, n_classes))


def _check_method(entry: MethodEntry, C, dataset: str, n_classes: int) -> None:
    """Build the entry's estimator for ``dataset`` and run the parameter validation fit would run
    (each ``inner_cv`` value too); a binary-only method on a multiclass dataset is an error.  A function of
    ``entry``, ``C`` and ``n_classes`` (``dataset`` only names the dataset in its message)."""
    where = f"exp.methods.{entry.key}"
    try:
        estimator = methods.make_estimator(entry.method, cost_matrix=method_cost(entry.method, C), random_state=0,
                                           **entry.params)
    except TypeError as err:
        estimator, failure = None, err
    except ValueError as err:
        raise ConfigError(f"{where}: {err}") from None
    if estimator is None:  # outside the handler: inside it, CPython 3.11 raised KeyError for a repeated keyword
        unknown = sorted(name for name, value in entry.params.items() if not _takes(entry.method, C, name, value))
        if not unknown:
            raise failure
        raise ConfigError(f"{where}: unknown parameter(s) {unknown}; valid: {_method_keywords(entry.method, C)}")
    for name, value in entry.params.items():
        if isinstance(value, bool) and _takes_number(estimator, name):
            default = _number_default(estimator, name)
            example = f" (its default is {default})" if default is not None else ""
            raise ConfigError(f"{where}.{name}={str(value).lower()} is a bool, but {name} is a number{example}; "
                              f"give a number, e.g. {where}.{name}={default if default is not None else 1}")
    if entry.cv and entry.cv["param"] not in estimator.get_params():
        raise ConfigError(f"{where}.inner_cv.param: {entry.method} has no parameter {entry.cv['param']!r}; "
                          f"valid: {sorted(estimator.get_params())}")
    # without a grid, rounds_on_validation only chooses the number of weak learners: an estimator without
    # staged_predict would merely lose the validation rows, so that is refused; with a grid any estimator works
    # (its one final prediction is its one stage, e.g. a logistic regression's C chosen by the same rule)
    grid = (entry.rounds or {}).get("grid")
    if entry.rounds and not grid and not hasattr(estimator, "staged_predict"):
        raise ConfigError(f"{where}.rounds_on_validation: {entry.method} ({type(estimator).__name__}) has no "
                          "staged_predict, so its number of weak learners cannot be chosen on validation; remove "
                          "the key, give it a grid of other parameters, or use a boosting method (e.g. rebel)")
    if entry.rounds and entry.cv:
        raise ConfigError(f"{where}: give either inner_cv or rounds_on_validation, not both")
    if grid:
        unknown = sorted(set(grid) - set(estimator.get_params()))
        if unknown:
            raise ConfigError(f"{where}.rounds_on_validation.grid: {entry.method} has no parameter(s) {unknown}; "
                              f"valid: {sorted(estimator.get_params())}")
        clash = sorted(set(grid) & (set(entry.params) | set(entry.grid)))
        if clash:
            raise ConfigError(f"{where}: {clash} given both as a fixed value and in rounds_on_validation.grid; "
                              "keep one")
    candidates = [{entry.cv["param"]: value} for value in entry.cv["values"]] if entry.cv else \
        list(ParameterGrid(grid)) if grid else [{}]
    for values in candidates:
        try:
            methods.validate_params(estimator.set_params(**values))
        except (TypeError, ValueError) as err:
            chosen = f" ({'inner_cv' if entry.cv else 'rounds_on_validation.grid'} value {values})" if values else ""
            raise ConfigError(f"{where}{chosen}: {err}") from None
    if n_classes > 2 and not methods.supports_multiclass(estimator):
        raise ConfigError(f"{where}: {entry.method} ({type(estimator).__name__}) is binary-only, but dataset "
                          f"{dataset!r} has {n_classes} classes; drop the method or the dataset, or use a "
                          "two-class variant of the dataset")
