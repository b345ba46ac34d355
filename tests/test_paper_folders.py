"""A paper is one folder (experiments/<paper>/): its paper.yaml agrees with README's paper table, with its
experiment configs and with the Makefile, and a new paper needs nothing outside its folder to run and report."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from csrepro.config import experiment_names
from csrepro.report.build import experiment_header

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = sorted(p.parent for p in (ROOT / "experiments").glob("*/paper.yaml"))
KEYS = {"title", "label", "authors", "year", "citation", "order", "readme", "make", "reduced"}


def meta(folder: Path) -> dict:
    return yaml.safe_load((folder / "paper.yaml").read_text())


def readme_rows() -> list[list[str]]:
    """The cells of README's paper table (the first table, headed ``| paper | methods | status |``)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = lines.index("| paper | methods | status |") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def test_every_folder_has_the_shape():
    """Every experiments/<paper>/ has paper.yaml (all keys), NOTES.md and conf/exp/*.yaml, and nothing else
    holds an experiment: conf/ keeps only what papers share."""
    assert {f.name for f in FOLDERS} >= {"guess_averse", "rebel", "thesis", "cs_svm", "cs_boost", "obrien", "combo",
                                          "leaderboard", "smoke"}
    for folder in FOLDERS:
        assert set(meta(folder)) == KEYS, folder.name
        assert (folder / "NOTES.md").is_file(), folder.name
        assert list((folder / "conf" / "exp").glob("*.yaml")), folder.name
    assert not list((ROOT / "conf").glob("exp/*.yaml")) and not list((ROOT / "conf").glob("model/*.yaml"))
    folders = {p.name for p in (ROOT / "experiments").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders == {f.name for f in FOLDERS}, "a folder under experiments/ without paper.yaml"


def test_experiments_name_their_folder_and_have_a_reduced_scale():
    """Each experiments/<paper>/conf/exp/<name>.yaml has ``name: <name>`` and ``paper: <paper>`` (smoke: no
    paper), read from the file and its defaults list (build.experiment_header, without Hydra; that these are the
    composed config's for every experiment: tests/report/test_report_safety.py::
    test_paper_and_name_read_from_the_files_are_the_composed_ones), and its paper.yaml gives exactly its
    experiments a reduced scale (scripts/move_check.py)."""
    for folder in FOLDERS:
        exps = sorted(p.stem for p in (folder / "conf" / "exp").glob("*.yaml"))
        assert sorted(meta(folder)["reduced"]) == exps, folder.name
        for exp in exps:
            assert experiment_header(exp) == ("" if folder.name == "smoke" else folder.name, exp), exp
    assert experiment_names() == sorted(p.stem for f in FOLDERS for p in (f / "conf" / "exp").glob("*.yaml"))


def test_readme_paper_table_agrees_with_the_folders():
    """README's paper table has one row per paper.yaml with a ``readme`` entry, in ``order``, and its paper and
    methods cells are the ones paper.yaml holds."""
    expected = sorted((meta(f)["order"], meta(f)["readme"]["paper"], meta(f)["readme"]["methods"])
                      for f in FOLDERS if meta(f)["readme"])
    assert [row[:2] for row in readme_rows()] == [[paper, methods] for _, paper, methods in expected]


def test_make_targets_exist():
    """Each make target a paper.yaml names is a Makefile rule, or reproduce-<paper> of the generic rule
    (the paper's experiments with ``paper: <paper>``)."""
    makefile = (ROOT / "Makefile").read_text()
    rules = set(re.findall(r"^([\w-]+):", makefile, flags=re.M))
    rules |= {f"reproduce-thesis-{t}" for t in re.search(r"^THESIS_ROBUST := (.*)$", makefile, re.M).group(1).split()}
    tables = re.search(r"^CS_BOOST_TABLES := (.*)$", makefile, re.M).group(1).split()
    rules |= {f"reproduce-cs-boost-{t}" for t in tables}
    for folder in FOLDERS:
        for target in meta(folder)["make"]:
            assert target in rules or target == f"reproduce-{folder.name.replace('_', '-')}", (folder.name, target)


MINI = {
    "paper.yaml": """title: A minimal paper
label: Minimal 2024
authors: [A. Author]
year: 2024
citation: A. Author. A minimal paper. 2024.
order: 99
readme: null
make: [reproduce-mini]
reduced:
  mini_demo: []
""",
    "NOTES.md": "# A minimal paper: notes\n",
    "conf/exp/mini_demo.yaml": """defaults:
  - /protocol: holdout
  - /cost: zero_one
  - _self_

name: mini_demo
paper: mini
datasets: [sk_iris]
n_trials: 2
protocol:
  test_size: 0.3
methods:
  mcboost: {n_estimators: 3}
metrics: [error]
report:
  tables:
    - {id: Table 1, metric: error}
""",
    "published.csv": "table,row,column,value,spread,spread_kind,unit,source,row_label,column_label,bold\n"
                     "Table 1,sk_iris,mcboost,0.05,,,error,\"A. Author 2024, Table 1\",Iris,MCBoost,false\n",
}


#: in the copy, one fresh process: which csrepro it imports, then ``python -m csrepro.run +exp=mini_demo`` and
#: ``python -m csrepro.report mini_demo`` (argv: the results root and the reports folder), Hydra's state cleared
#: between them
NEW_PAPER_RUN = """
import runpy, sys
import csrepro
from hydra.core.global_hydra import GlobalHydra

print(csrepro.__file__)
results, reports = sys.argv[1:]
sys.argv = ["csrepro.run", "+exp=mini_demo", f"results.root={results}", "runner.progress=false"]
runpy.run_module("csrepro.run", run_name="__main__", alter_sys=True)
GlobalHydra.instance().clear()
sys.argv = ["csrepro.report", "mini_demo", f"results.root={results}", "--out", reports]
runpy.run_module("csrepro.report", run_name="__main__", alter_sys=True)  # exits with the report's status
"""


def test_a_new_paper_needs_only_its_folder(tmp_path):
    """A copy of the repository's code and shared conf/ plus one new folder experiments/mini/ (one dataset, one
    method, one published cell) runs through ``python -m csrepro.run`` and is reported: nothing outside the
    folder was edited (the copy of everything else is the repository's)."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "csrepro", tree / "csrepro", ignore=shutil.ignore_patterns("__pycache__", "*.c", "*.html"))
    shutil.copytree(ROOT / "conf", tree / "conf")
    for name, text in MINI.items():
        (tree / "experiments" / "mini" / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / "experiments" / "mini" / name).write_text(text)
    assert "mini_demo" not in experiment_names()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HYDRA_FULL_ERROR")}
    results, reports = tmp_path / "results", tmp_path / "reports"
    done = subprocess.run([sys.executable, "-c", NEW_PAPER_RUN, str(results), str(reports)], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(str(tree))  # the copy's csrepro is the one imported, not the repository's
    comparison = pd.read_csv(next(reports.rglob("comparison.csv")))
    cell = comparison.set_index(["table", "row", "column"]).loc[("Table 1", "sk_iris", "mcboost")]
    assert cell["published"] == 0.05 and 0 <= cell["reproduced"] <= 1
