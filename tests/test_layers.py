"""Imports run only downward: library < harness (config, trials, runner, store, provenance, run) < report.

The library knows nothing of Hydra, matplotlib or the harness; the harness never imports the report.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "csrepro"
HARNESS = ("csrepro.config", "csrepro.trials", "csrepro.runner", "csrepro.store", "csrepro.provenance", "csrepro.run")
REPORT = ("csrepro.report",)
HARNESS_ONLY = ("hydra", "omegaconf", "matplotlib")  # third-party packages the library must not import


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


def layer(name: str) -> int:
    """0 library, 1 harness, 2 report."""
    if name.startswith(REPORT):
        return 2
    return 1 if name.startswith(HARNESS) else 0


def imports(path: Path) -> list[str]:
    """Absolute module names imported by ``path`` (function-level imports included)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_imports_run_downward(path):
    here = module_name(path)
    upward = [name for name in imports(path)
              if (name.startswith("csrepro.") and layer(name) > layer(here))
              or (layer(here) == 0 and name.split(".")[0] in HARNESS_ONLY)]
    assert not upward, f"{here} (layer {layer(here)}) imports {upward}"


def test_the_layers_are_recognised():
    assert layer("csrepro.boosting.mcboost") == 0 and layer("csrepro.runner") == 1 and layer("csrepro.report.tables") == 2
    assert "csrepro.report.figures" in imports(PACKAGE / "report" / "cs_boost_figures.py")
