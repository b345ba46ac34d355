"""Suite-wide settings: the hypothesis profile, the order in which pytest-xdist hands out the test modules, and the
``entry_point`` fixture (a command-line entry point run in the test's process).

``make test`` runs the suite with ``pytest -n auto --dist loadfile --no-loadscope-reorder``: each module stays on one
worker (so a module fixture is built once, and a module's tests keep their order), and the workers take modules in
collection order (without ``--no-loadscope-reorder``, pytest-xdist >= 3.8 hands out the modules with most tests first,
so that the long modules with few tests -- the site's browser test, the reduced runs -- came last).
"""

import logging
import os
import sys

import pytest
from hypothesis import settings

# No per-example deadline: under a second xdist worker (or a shared machine) an example may take longer than
# hypothesis' 200 ms default without the test being wrong, and a test must never depend on timing.  The example
# budgets stay each test's own.  HYPOTHESIS_PROFILE=default restores hypothesis' own settings.
settings.register_profile("csrepro", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "csrepro"))

#: the modules that take longest, longest first (each module's summed test times in a --junitxml run of the suite,
#: 29 Nov 2026; modules over 3 s), moved to the front of the collection so that no worker starts a long one while
#: the other has nothing left; the rest keep pytest's order
LONGEST_FIRST = ("test_readme.py", "test_estimators.py", "test_site_browser.py", "test_leaderboard_run.py",
                 "test_obrien_regression.py", "test_report_cli.py", "test_run_cli.py", "test_report_safety.py",
                 "test_combo_regression.py", "test_bad_inputs.py", "test_guess_averse_regression.py", "test_peers.py",
                 "test_cs_svm_regression.py", "test_loaders.py", "test_rebel.py", "test_partition.py",
                 "test_runner.py", "test_cs_boost_uci.py", "test_site.py", "test_paper_folders.py",
                 "test_multiclass_baselines.py", "test_thesis_uci_margin.py", "test_cost_sensitive_steps.py",
                 "test_histogram.py", "test_binary_losses.py", "test_combo.py", "test_metacost.py",
                 "test_experiment_options.py", "test_cwboost.py", "test_thesis_outliers.py", "test_metrics.py",
                 "test_thesis_letter1.py", "test_ordinal_variants.py", "test_rounds_stopping.py", "test_mcboost.py",
                 "test_orientation.py")


def pytest_collection_modifyitems(config, items):
    """Move the items of the LONGEST_FIRST modules (matched by file name) to the front, in that order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture
def entry_point(monkeypatch, capsys):
    """``entry_point(module, *args, cwd=None, env=None)`` -> (exit status, stdout, stderr) of ``python -m
    csrepro.<module> ARGS`` (``run`` or ``report``) run through its entry point in this process, from ``cwd`` with
    ``env`` set (an interpreter start-up per command would cost seconds).  ``sys.argv``, the working directory, the
    environment, Hydra's global state and the root logger's handlers and level (a run's job configures them) are
    restored after the call."""
    from hydra.core.global_hydra import GlobalHydra

    from csrepro import run
    from csrepro.report.__main__ import main as report_main

    def call(module, *args, cwd=None, env=None):
        logger = logging.getLogger()
        handlers, level = logger.handlers[:], logger.level
        with monkeypatch.context() as patch:
            if cwd is not None:
                patch.chdir(cwd)
            for key, value in (env or {}).items():
                patch.setenv(key, value)
            patch.setattr(sys, "argv", [f"csrepro.{module}", *args])
            try:
                status = run.main() if module == "run" else report_main(list(args))
            except SystemExit as stop:
                status = stop.code
            finally:
                GlobalHydra.instance().clear()
                for handler in set(logger.handlers) - set(handlers):
                    logger.removeHandler(handler)
                    handler.close()
                logger.setLevel(level)
        out, err = capsys.readouterr()
        return status or 0, out, err

    return call
