"""Every command the README shows runs, at reduced scale, so the README cannot drift from the code.

Commands are read from README.md (code blocks and inline code): ``python -m csrepro.run`` commands
run with one trial of their smallest dataset (training parts of sets over 400 rows subsampled to a
quarter) into a temporary results root, then the ``python -m csrepro.report`` commands report from
it, in README order; ``make`` targets must exist, and one reproduce target runs end to end.

The run and report commands go through their entry points in this process (the ``entry_point`` fixture of
tests/conftest.py), with the command's argv and environment (an interpreter start-up per command was most of this
file's time); the end-to-end reproduce target runs both in fresh processes, through ``make``, as users do.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.override_parser.overrides_parser import OverridesParser

from csrepro.config import CONF_DIR
from csrepro.data.loaders import resolve_data_root
from csrepro.data.registry import get_spec

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
PYTHON_COMMAND = re.compile(r"^(?:CSREPRO_DATA_DIR=\S+ )?python -m csrepro\.(run|report)\b")


def readme_commands() -> list[str]:
    """Shell commands of README.md: indented and fenced code lines (continuations joined), inline code."""
    lines, fenced = [], False
    for line in README.replace("\\\n", " ").splitlines():
        if line.startswith("```"):
            fenced = not fenced and line.strip() == "```"  # python blocks are estimator examples, not commands
            continue
        if fenced or line.startswith("    "):
            lines.append(line.split("  #")[0].strip())
    inline = re.findall(r"`((?:python -m csrepro|make )[^`]*)`", README)
    commands = []
    for command in [*lines, *inline]:
        command = re.sub(r"\s+", " ", command).strip()
        placeholder = "<" in command or len(command.split()) < (2 if command.startswith("make ") else 4)
        if (PYTHON_COMMAND.match(command) or command.startswith("make ")) and not placeholder:
            commands += [c for c in expand_braces(command) if c not in commands]
    return commands


def expand_braces(command: str) -> list[str]:
    """``make reproduce-cs-boost-{stumps,trees}`` -> one command per alternative."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", command)
    if match is None:
        return [command]
    return [c for alt in match[1].split(",") for c in expand_braces(command[:match.start()] + alt + command[match.end():])]


COMMANDS = readme_commands()
RUNS = [c for c in COMMANDS if PYTHON_COMMAND.match(c) and "csrepro.run" in c]
REPORTS = [c for c in COMMANDS if PYTHON_COMMAND.match(c) and "csrepro.report" in c]
MAKES = sorted({m for c in COMMANDS if c.startswith("make ") for m in re.findall(r"make ([\w-]+)", c)})


def data_root() -> str:
    try:
        root = resolve_data_root()
    except Exception:  # noqa: BLE001 -- any reason there is no mirror
        root = None
    if root is None:
        pytest.skip("no dataset mirror: set CSREPRO_DATA_DIR")
    return str(root)


def experiment_datasets(args: list[str]) -> list[str]:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return list(compose("config", overrides=[a for a in args if a.startswith("+exp=")]).exp.datasets)


def reduced(args: list[str], root: Path) -> list[str]:
    """``args`` of a run command at reduced scale, writing under ``root``."""
    overrides = OverridesParser.create().parse_overrides([a for a in args if "=" in a and not a.startswith("-")])
    keys = {o.get_key_element().lstrip("+~") for o in overrides}
    datasets = experiment_datasets(args)
    if "exp.datasets" in keys:  # a sweep over dataset lists: keep its first list
        given = next(o for o in overrides if o.get_key_element() == "exp.datasets")
        first = next(iter(given.sweep_string_iterator())) if given.is_sweep_override() else given.value()
        datasets = first.strip("[]").split(",") if isinstance(first, str) else list(first)
    smallest = min(datasets, key=lambda d: get_spec(d).n_rows)
    drop = ("exp.n_trials", "exp.datasets", "results.root", "data.root", "runner.n_jobs", "hydra/launcher", "hydra.")
    kept = [a for a in args if not a.lstrip("+~'").startswith(drop)]
    extra = ["exp.n_trials=1", f"exp.datasets=[{smallest}]", f"results.root={root}", "runner.progress=false"]
    if get_spec(smallest).n_rows > 400:
        extra.append("++exp.protocol.train_size=0.25")
    if "data.root" in keys:
        extra.append(f"data.root={data_root()}")
    return kept + extra


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return tmp_path_factory.mktemp("readme")


def test_commands_were_found():
    assert len(RUNS) >= 8 and len(REPORTS) >= 4 and "test" in MAKES and "reproduce-guess-averse" in MAKES


@pytest.mark.parametrize("command", RUNS)
def test_run_command(command, root, entry_point):
    words = shlex.split(command)
    env = {}
    if words[0].startswith("CSREPRO_DATA_DIR="):
        env["CSREPRO_DATA_DIR"] = data_root()
        words = words[1:]
    if "hydra/launcher=submitit_slurm" in words:
        pytest.importorskip("hydra_plugins.hydra_submitit_launcher", reason="the [slurm] extra is not installed")
    args = words[3:]
    if "--cfg" not in args:
        args = reduced(args, root)
    if any(get_spec(d).reader == "csv" for d in experiment_datasets(args)):
        env.setdefault("CSREPRO_DATA_DIR", data_root())  # skips without a mirror
    status, out, err = entry_point("run", *args, cwd=REPO, env=env)
    assert status == 0, f"{command}\n{out[-2000:]}\n{err[-3000:]}"


@pytest.mark.parametrize("command", REPORTS)
def test_report_command(command, root, entry_point):
    """After the run commands (README order), each report command writes into the same reduced root."""
    args = [a for a in shlex.split(command)[3:] if not a.startswith("results.root=")]
    if "--out" in args:
        args[args.index("--out") + 1] = str(root / "out")
    status, out, err = entry_point("report", *args, f"results.root={root}", cwd=REPO)
    assert status == 0, f"{command}\n{out[-2000:]}\n{err[-3000:]}"


@pytest.mark.parametrize("target", MAKES)
def test_make_target_exists(target):
    proc = subprocess.run(["make", "-n", "-o", ".venv/.installed", target], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_reproduce_target_runs_end_to_end(tmp_path):
    """``make reproduce-guess-averse`` with RUN_ARGS/REPORT_ARGS at reduced scale: run, report, FIDELITY.md."""
    run_args = f"exp.n_trials=1 'exp.datasets=[breasttissue]' results.root={tmp_path} runner.progress=false"
    proc = subprocess.run(["make", "-o", ".venv/.installed", "reproduce-guess-averse", "N_JOBS=1",
                           f"RUN_ARGS={run_args}", f"REPORT_ARGS=results.root={tmp_path}",
                           f"PYTHON={sys.executable}", f"BIN={Path(sys.executable).parent}"],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "CSREPRO_DATA_DIR": data_root()})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (tmp_path / "guess_averse_uci" / "REPORT.md").is_file() and (tmp_path / "FIDELITY.md").is_file()


def test_first_screen_quotes_the_site_summary():
    """README's first screen (its first 15 lines) quotes the results website's summary sentence word for word
    (results/site/summary.txt, written by ``python -m csrepro.report --site``) and links the site."""
    summary = (REPO / "results" / "site" / "summary.txt").read_text(encoding="utf-8").strip()
    first_screen = "\n".join(README.splitlines()[:15])
    assert f"> {summary}" in first_screen, "rebuild the site (make site) and paste results/site/summary.txt"
    assert "(results/site/index.html)" in first_screen
