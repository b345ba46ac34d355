"""Shared fixture of the papers' reduced-scale regression tests (experiments/<paper>/tests): run a config through
the runner and the report."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from csrepro.data.loaders import resolve_data_root
from csrepro.provenance import Provenance
from csrepro.report.build import report_experiment
from csrepro.runner import run_experiment

ROOT = Path(__file__).resolve().parents[1]


def _mirror_has(datasets) -> bool:
    """True when the data mirror holds every one of ``datasets`` (registry ids = mirror folders)."""
    try:
        root = resolve_data_root(None)
    except Exception:
        return False
    return root is not None and all((Path(root) / d).is_dir() for d in datasets)


@pytest.fixture(scope="module")
def run_reduced(tmp_path_factory):
    """``run_reduced(exp, overrides, needs)`` -> (store rows, comparison.csv rows by cell, results dir) of a
    reduced run; skips the module when the data mirror lacks one of the ``needs`` folders.  The trials run in this
    process (``runner.n_jobs=1``): under ``make test`` the pytest-xdist workers already fill the cores, and a loky
    pool would import the library twice more (same numbers for any n_jobs: tests/test_runner.py)."""
    def run(exp, overrides, needs=()):
        if not _mirror_has(needs):
            pytest.skip(f"data mirror with {list(needs)} not found")
        out = tmp_path_factory.mktemp(exp)
        args = [f"+exp={exp}", f"results.root={out}", "runner.n_jobs=1", "runner.progress=false", *overrides]
        with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
            cfg = compose("config", overrides=args)
        rows = run_experiment(cfg, command=f"pytest reduced {exp}")
        fid = report_experiment(exp, cfg, ROOT / "experiments", Provenance("pytest", "test", "test"))
        return rows, fid.comparison.set_index(["table", "row", "column"]), out / exp
    return run
