"""Command line: ``python -m csrepro.run +exp=<name> [key=value ...]``; ``-m`` runs a Hydra sweep.

Any config field can be overridden (``exp.n_trials=5 runner.n_jobs=2 results.root=/tmp/r``).
Before Hydra starts, the overrides are composed (csrepro.config.compose_overrides, the composition
the report uses too) and the run is checked as far as it can be without running a trial (config,
results folder and its lock, data, protocols: csrepro.runner.preflight; for ``-m``, every
combination of the sweep, at most MAX_SWEEP_JOBS); an error prints one line and exits 2, with nothing
written. Each job records in the store the plan of its config and of its experiment file without
overrides (csrepro.store, "The plan"), which the report reads. A run in which trials failed exits 1
after a one-line summary; a run into a results folder that another run holds (csrepro.store, "The
lock") exits 2 naming that run's pid; Ctrl-C prints how many trials are stored and exits 130 (the
same command resumes). ``--debug`` (or HYDRA_FULL_ERROR=1) shows the traceback instead.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import shlex
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException, OverrideParseException
from omegaconf import DictConfig

from csrepro import config
from csrepro.config import CONF_DIR, ConfigError, compose_overrides, experiment_names, hydra_message
from csrepro.data.loaders import DataError
from csrepro.runner import Interrupted, TrialsFailed, preflight, run_experiment
from csrepro.store import DamagedStoreError, StoreLockedError

_SWEEP_FLAGS = ("-m", "--multirun")
DEBUG_FLAG = "--debug"
#: the most jobs a sweep (``-m``) may have: each is checked before any runs
MAX_SWEEP_JOBS = 200
#: expected errors: one line with this prefix, exit status 2 (nothing ran); failed trials exit 1
_PREFIXES = {ConfigError: "config error", DataError: "data error", DamagedStoreError: "store error",
             StoreLockedError: "store error"}


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def _run(cfg: DictConfig) -> None:
    hydra_cfg = HydraConfig.get()
    overrides, exp = hydra_cfg.overrides.task, hydra_cfg.runtime.choices.get("exp")
    with one_line_errors():
        full = compose_overrides([f"+exp={exp}"]) if exp else None  # the experiment file without overrides
        run_experiment(cfg, command=shlex.join(["python", "-m", "csrepro.run", *overrides]), strict=True, full=full)


@contextlib.contextmanager
def one_line_errors():
    """Turn the expected errors into one line on stderr and an exit status (2; 1 for failed trials; 130
    for Ctrl-C), unless debugging (``--debug`` or HYDRA_FULL_ERROR=1), when they propagate with their traceback."""
    if os.environ.get("HYDRA_FULL_ERROR") == "1":
        yield
        return
    try:
        yield
    except Interrupted as err:
        _exit(str(err), 130)
    except KeyboardInterrupt:
        _exit("interrupted: the trials finished so far are stored; the same command resumes", 130)
    except TrialsFailed as err:
        _exit(f"error: {err}", 1)
    except tuple(_PREFIXES) as err:
        prefix = next(p for cls, p in _PREFIXES.items() if isinstance(err, cls))
        _exit(f"{prefix}: {err}", 2)
    except HydraException as err:
        _exit(f"config error: {hydra_message(err)}", 2)


def _exit(message: str, status: int):
    print(message, file=sys.stderr)
    sys.exit(status)


def check_overrides(args: list[str]) -> None:
    """Raise ConfigError for an override of an unknown field (csrepro.config.check_overrides), or when
    no ``+exp=<name>`` is given.

    Any flag other than ``-m`` (``--help``, ``--cfg``...) lifts the experiment requirement.
    Overrides Hydra cannot parse are left to Hydra to report.
    """
    config.check_overrides(args)
    tokens = [a for a in args if "=" in a and not a.startswith("-")]
    try:
        overrides = OverridesParser.create().parse_overrides(tokens)
    except OverrideParseException:
        return  # Hydra reports the syntax error
    flags = [a for a in args if a.startswith("-") and a not in _SWEEP_FLAGS]
    if not flags and not any(o.key_or_group == "exp" for o in overrides):
        raise ConfigError(f"no experiment selected; pass +exp=<name>, one of {experiment_names()}")


def check_run(args: list[str]) -> None:
    """Compose the config of ``args`` (csrepro.config.compose_overrides) and run csrepro.runner.preflight;
    with ``-m``, for every combination of the sweep (at most MAX_SWEEP_JOBS), so that a bad value stops
    the sweep before its first job. A sweep value (``a=1,2``) without ``-m`` is an error.

    Skipped when ``args`` hold a flag other than ``-m`` (``--cfg``, ``--help``, ...: Hydra's).
    """
    if any(a.startswith("-") and a not in _SWEEP_FLAGS for a in args):
        return
    overrides = OverridesParser.create().parse_overrides([a for a in args if a not in _SWEEP_FLAGS])
    sweeps = [o for o in overrides if o.is_sweep_override()]
    if sweeps and not any(a in _SWEEP_FLAGS for a in args):
        raise ConfigError(f"{sweeps[0].input_line} gives several values (a sweep); add -m to run one job per "
                          "value, or give one value")
    choices = []
    for o in overrides:
        if not o.is_sweep_override():
            choices.append([o.input_line])
            continue
        try:
            choices.append([f"{o.get_key_element()}={v}" for v in o.sweep_string_iterator()])
        except HydraException as err:
            raise ConfigError(f"{o.input_line}: {hydra_message(err)}") from None
    jobs = math.prod(len(c) for c in choices)
    if jobs > MAX_SWEEP_JOBS:
        raise ConfigError(f"the sweep has {jobs:,} jobs (the product of its {len(sweeps)} swept values), more "
                          f"than the {MAX_SWEEP_JOBS} a sweep may have; sweep fewer values, or run the sweep in parts")
    for job in itertools.product(*choices):
        try:
            preflight(compose_overrides(job))
        except (ConfigError, DataError, StoreLockedError) as err:
            if jobs > 1:  # name the job by its swept values
                err.args = (f"sweep job {' '.join(v for v, c in zip(job, choices) if len(c) > 1)}: {err}",)
            raise


def main() -> None:
    """Entry point: check the overrides and the run (one line and exit 2 on an error), then hand over to Hydra."""
    if DEBUG_FLAG in sys.argv:
        sys.argv.remove(DEBUG_FLAG)
        os.environ["HYDRA_FULL_ERROR"] = "1"
    with one_line_errors():
        check_overrides(sys.argv[1:])
        check_run(sys.argv[1:])
    _run()


if __name__ == "__main__":
    main()
