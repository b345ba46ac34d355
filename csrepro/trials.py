"""An experiment's trials: keys, seeds and ids, all independent of execution order.

What each dataset runs, and its config hash, comes from csrepro.config.dataset_settings; the trial
keys planned here are recorded in the store by the runner (csrepro.store, "The plan"), where the
report reads those a config asks for (:func:`asked_for`).

A trial is (experiment, dataset, trial index t, method, params). Seeds (CONTRACT.md):
cost = derive_seed(exp, dataset, t, "cost"), model = derive_seed(exp, dataset, t, method, "model"),
selection = derive_seed(exp, source, t, "selection") under ``protocol.selection_seed: trial`` (else none: each
method's validation part is seeded by its model seed, as before issue 30),
split = derive_seed(exp, dataset, draw, "split"), where a protocol's draw gives L splits
(1 for holdouts, n_splits for k-fold, n_splits * n_repeats for repeated k-fold, n for loo) and
trial t uses split ``t % L`` of draw ``t // L``. For single-split protocols draw = t; k-fold
experiments enumerate (repeat, fold) as t = repeat * n_splits + fold.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
from omegaconf import DictConfig

from csrepro.config import dataset_settings
from csrepro.seeding import derive_seed


@dataclass(frozen=True)
class DatasetPlan:
    """Settings shared by all trials of one dataset in an experiment.

    ``source`` is the registry id the data comes from: ``dataset`` itself, or the id an
    ``exp.per_dataset`` alias names (split seeds derive from ``source``, so aliases of one dataset
    share their splits).
    """

    exp: str
    paper: str
    dataset: str
    protocol: dict
    cost: dict
    standardize: bool
    metrics: tuple[str, ...]
    config_hash: str
    source: str


@dataclass(frozen=True)
class Trial:
    """One trial; ``params_json`` is the canonical JSON of the method's params.  ``selection_seed``: the seed of the
    validation split and inner folds of every method of the trial's (dataset, t) under ``protocol.selection_seed:
    trial`` (derived from the dataset's ``source``, so the cost families of a dataset share it as they share the
    splits); None under ``method`` (the default), where each method's selection is seeded by its ``model_seed``."""

    dataset: str
    trial: int
    method: str
    params_json: str
    config_hash: str
    trial_id: str
    cost_seed: int
    model_seed: int
    selection_seed: int | None = None


@dataclass(frozen=True)
class Task:
    """The trials of one (dataset, trial index) run together: one split, one cost matrix, all methods."""

    plan: DatasetPlan
    trial: int
    trials: tuple[Trial, ...]


def trial_id(chash: str, dataset: str, t: int, method: str, params_json: str) -> str:
    """Hex id of a trial's key, config hash ``chash`` included (changed settings give new ids)."""
    return hashlib.sha256(repr((chash, dataset, t, method, params_json)).encode()).hexdigest()[:20]


def split_seed(exp: str, dataset: str, draw: int) -> int:
    """Seed of draw ``draw`` of the protocol's splits."""
    return derive_seed(exp, dataset, draw, "split")


def plan_trials(exp: DictConfig) -> tuple[dict[str, DatasetPlan], list[Trial]]:
    """Per-dataset plans and every trial of a validated experiment, in (dataset, t, method) order.

    A trial's ``method`` is its method id (csrepro.config.MethodEntry: a registry id, an alias or
    a grid member) and ``params_json`` the entry's params, with ``method`` and ``cv`` for aliases;
    what each dataset runs comes from csrepro.config.dataset_settings (its ``config_hash`` too:
    csrepro.config.config_hash).
    """
    plans, trials = {}, []
    name = exp.name  # a plain value: the loop below runs once per trial
    for dataset, s in dataset_settings(exp).items():
        chash = s.config_hash
        plans[dataset] = DatasetPlan(name, exp.paper, dataset, s.protocol, s.cost, s.standardize, s.metrics, chash,
                                     s.source)
        shared = s.protocol.get("selection_seed", "method") == "trial"
        for t in range(s.n_trials):
            cost_seed = derive_seed(name, dataset, t, "cost")
            selection_seed = derive_seed(name, s.source, t, "selection") if shared else None
            for method, params_json in s.methods:
                trials.append(Trial(
                    dataset=dataset, trial=t, method=method, params_json=params_json, config_hash=chash,
                    trial_id=trial_id(chash, dataset, t, method, params_json), cost_seed=cost_seed,
                    model_seed=derive_seed(name, dataset, t, method, "model"), selection_seed=selection_seed))
    return plans, trials


def group_tasks(plans: dict[str, DatasetPlan], trials: list[Trial]) -> list[Task]:
    """``trials`` grouped by (dataset, trial index), in first-seen order."""
    groups: dict[tuple[str, int], list[Trial]] = {}
    for trial in trials:
        groups.setdefault((trial.dataset, trial.trial), []).append(trial)
    return [Task(plans[dataset], t, tuple(members)) for (dataset, t), members in groups.items()]


def asked_for(planned: pd.DataFrame, exp: DictConfig) -> pd.Series:
    """Which rows of a store's plan (csrepro.store.read_plan) the validated ``exp`` asks for: its datasets, trial
    indices below their n_trials and method ids with their params, under its settings' config hash
    (csrepro.config.dataset_settings). Boolean, aligned with ``planned``."""
    wanted = {(s.dataset, s.config_hash, method, params): s.n_trials
              for s in dataset_settings(exp).values() for method, params in s.methods}
    keys = zip(planned["dataset"], planned["config_hash"], planned["method"], planned["params"])
    return pd.Series([t < wanted.get(key, 0) for key, t in zip(keys, planned["trial"])], index=planned.index,
                     dtype=bool)
