"""Experiment configuration: the structured schema and the checks run before any work.

The schema (``Config``) is registered with Hydra as ``csrepro_schema`` and also applied by
:func:`validate_config` to plain dicts, so a config is checked the same way from the CLI and from
``run_experiment``. Every error names the bad field or value and lists the valid choices.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, DictConfig, OmegaConf
from omegaconf.errors import ConfigKeyError, OmegaConfBaseException

from csrepro import costs, methods
from csrepro.data.protocols import PROTOCOLS
from csrepro.data.registry import get_spec, list_datasets

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"
BACKENDS = ("loky", "dask")


class ConfigError(ValueError):
    """An experiment config that cannot run; the message names the field and the fix."""


@dataclass
class PreprocessingConf:
    """Feature preprocessing fitted on the training part of each split."""

    standardize: bool = False


@dataclass
class DatasetOverrides:
    """Settings that replace the experiment's for one dataset (a new ``name``/``kind`` replaces all keys)."""

    protocol: dict[str, Any] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)


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
    per_dataset: dict[str, DatasetOverrides] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)


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
    n_jobs: int = 1
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


def experiment_names() -> list[str]:
    """The experiments defined in ``conf/exp``."""
    return sorted(p.stem for p in (CONF_DIR / "exp").glob("*.yaml"))


def check_key(dotted: str) -> None:
    """Raise ConfigError when ``dotted`` (e.g. ``exp.n_trial``) is no field of the schema, listing the valid ones."""
    node, path, parts = Config, [], dotted.split(".")
    while parts:
        part = parts.pop(0)
        names = [f.name for f in dataclasses.fields(node)]
        if part not in names:
            where = ".".join(path) or "the top level"
            raise ConfigError(f"unknown config field {dotted!r}: {where} has no {part!r}; valid fields: {names}")
        path.append(part)
        node = typing.get_type_hints(node)[part]
        if typing.get_origin(node) is dict and parts:  # a free key (e.g. a dataset id), then its value's type
            path.append(parts.pop(0))
            node = typing.get_args(node)[1]
        if not dataclasses.is_dataclass(node):
            return


def validate_config(cfg, metric_names) -> DictConfig:
    """``cfg`` (DictConfig or dict) merged onto the schema and checked against the registries.

    Checks: field names and types, the experiment's name, datasets and per-dataset override ids
    (registry; overrides of datasets not in ``exp.datasets`` are unused), n_trials, methods and
    their parameters (method registry), metrics (``metric_names``), protocol and cost (built once
    per dataset) and runner settings. Returns a read-only DictConfig.
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
        raise ConfigError(f"invalid config value at {err.full_key!r}: {err.msg}") from None
    exp, runner = merged.exp, merged.runner
    if not exp.datasets:
        raise ConfigError("exp.datasets is empty; list registry ids, e.g. 'exp.datasets=[sk_iris,sk_wine]'")
    unknown = sorted(set(exp.datasets) - set(list_datasets()))
    if unknown:
        raise ConfigError(f"exp.datasets: unknown dataset(s) {unknown}; valid: {list_datasets()}")
    if len(set(exp.datasets)) != len(exp.datasets):
        raise ConfigError(f"exp.datasets lists a dataset twice: {list(exp.datasets)}; list each once")
    if exp.n_trials < 1:
        raise ConfigError(f"exp.n_trials must be >= 1, got {exp.n_trials}")
    _check_choices("exp.metrics", exp.metrics, metric_names)
    if not exp.methods:
        raise ConfigError(f"exp.methods is empty; add e.g. 'exp.methods={{mcboost: {{}}}}'; "
                          f"valid methods: {methods.method_names()}")
    _check_choices("exp.methods", list(exp.methods), methods.method_names())
    unknown = sorted(set(exp.per_dataset) - set(list_datasets()))
    if unknown:
        raise ConfigError(f"exp.per_dataset: unknown dataset(s) {unknown}; valid: {list_datasets()}")
    for dataset in exp.datasets:
        n_classes = get_spec(dataset).n_classes
        _check_protocol(dataset, dataset_setting(exp, dataset, "protocol"))
        C = _check_cost(dataset, dataset_setting(exp, dataset, "cost"), n_classes)
        for method, params in exp.methods.items():
            _check_method(method, OmegaConf.to_container(params, resolve=True), C)
    if runner.backend not in BACKENDS:
        raise ConfigError(f"runner.backend={runner.backend!r} is not valid; choose one of {list(BACKENDS)}")
    if runner.n_jobs == 0:
        raise ConfigError("runner.n_jobs must be a positive number of workers or negative (-1 = all cores), not 0")
    OmegaConf.set_readonly(merged, True)
    return merged


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
    return {**base, **over}


def _check_choices(what: str, given, valid) -> None:
    unknown = sorted(set(given) - set(valid))
    if unknown:
        raise ConfigError(f"{what}: unknown {unknown}; valid: {sorted(valid)}")


def _check_protocol(dataset: str, protocol: dict) -> None:
    params = dict(protocol)
    name = params.pop("name", None)
    if name not in PROTOCOLS:
        raise ConfigError(f"protocol for {dataset!r}: name={name!r} is not valid; "
                          f"set exp.protocol.name to one of {sorted(PROTOCOLS)}")
    unknown = sorted(set(params) - set(PROTOCOLS[name]))
    if unknown:
        raise ConfigError(f"protocol {name!r} for {dataset!r} takes no parameter(s) {unknown}; "
                          f"valid: {sorted(PROTOCOLS[name]) or 'none'}")


def _check_cost(dataset: str, cost: dict, n_classes: int):
    params = dict(cost)
    kind = params.pop("kind", None)
    if kind not in costs.COST_KINDS:
        raise ConfigError(f"cost for {dataset!r}: kind={kind!r} is not valid; "
                          f"set exp.cost.kind to one of {sorted(costs.COST_KINDS)}")
    try:
        return costs.make_cost_matrix(kind, n_classes, random_state=0, **params)
    except ValueError as err:
        raise ConfigError(f"cost for {dataset!r} ({n_classes} classes): {err}") from None


def _check_method(method: str, params: dict, C) -> None:
    try:
        methods.make_estimator(method, cost_matrix=C, random_state=0, **params)
    except TypeError:
        valid = methods.make_estimator(method, cost_matrix=C, random_state=0).get_params()
        unknown = sorted(set(params) - set(valid))
        if not unknown:
            raise
        raise ConfigError(f"exp.methods.{method}: unknown parameter(s) {unknown}; valid: {sorted(valid)}") from None
    except ValueError as err:
        raise ConfigError(f"exp.methods.{method}: {err}") from None
