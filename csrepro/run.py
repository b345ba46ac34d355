"""Command line: ``python -m csrepro.run +exp=<name> [key=value ...]``; ``-m`` runs a Hydra sweep.

Any config field can be overridden (``exp.n_trials=5 runner.n_jobs=2 results.root=/tmp/r``);
unknown fields and missing experiments fail before Hydra starts, listing the valid choices.
"""

from __future__ import annotations

import shlex
import sys

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import OverrideParseException
from omegaconf import DictConfig

from csrepro.config import CONF_DIR, ConfigError, check_key, experiment_names
from csrepro.runner import run_experiment

GROUPS = sorted(p.name for p in CONF_DIR.iterdir() if p.is_dir())
_SWEEP_FLAGS = ("-m", "--multirun")


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def _run(cfg: DictConfig) -> None:
    overrides = HydraConfig.get().overrides.task
    try:
        run_experiment(cfg, command=shlex.join(["python", "-m", "csrepro.run", *overrides]))
    except ConfigError as err:
        sys.exit(f"config error: {err}")


def check_overrides(args: list[str]) -> None:
    """Raise ConfigError for an override of an unknown field, or when no ``+exp=<name>`` is given.

    Appended keys (``+key=value``), deletions, packages, config groups and ``hydra.*`` are left to
    Hydra and to the schema check of ``run_experiment``; any other flag (``--help``, ``--cfg``...)
    lifts the experiment requirement. Overrides Hydra cannot parse are left to Hydra to report.
    """
    tokens = [a for a in args if "=" in a and not a.startswith("-")]
    try:
        overrides = OverridesParser.create().parse_overrides(tokens)
    except OverrideParseException:
        return  # Hydra reports the syntax error
    for o in overrides:
        plain = not (o.is_add() or o.is_force_add() or o.is_delete() or o.package is not None)
        if plain and not o.is_hydra_override() and o.key_or_group not in GROUPS:
            check_key(o.key_or_group)
    flags = [a for a in args if a.startswith("-") and a not in _SWEEP_FLAGS]
    if not flags and not any(o.key_or_group == "exp" for o in overrides):
        raise ConfigError(f"no experiment selected; pass +exp=<name>, one of {experiment_names()}")


def main() -> None:
    """Entry point: check the overrides, then hand over to Hydra."""
    try:
        check_overrides(sys.argv[1:])
    except ConfigError as err:
        sys.exit(f"config error: {err}")
    _run()


if __name__ == "__main__":
    main()
