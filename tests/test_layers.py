"""Imports run only downward: library < harness (config, scoring, trials, runner, store, provenance, seeding, run) < report,
where the report includes each paper's figure code (experiments/<paper>/figures.py); and no module imports
itself through a circle.

The library knows nothing of Hydra, matplotlib or the harness; the harness never imports the report.
"""

import ast
import graphlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "csrepro"
HARNESS = ("csrepro.config", "csrepro.scoring", "csrepro.trials", "csrepro.runner", "csrepro.store", "csrepro.provenance",
           "csrepro.seeding", "csrepro.run")
REPORT = ("csrepro.report", "experiments.")
HARNESS_ONLY = ("hydra", "omegaconf", "matplotlib")  # third-party packages the library must not import


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(name: str) -> int:
    """0 library, 1 harness, 2 report."""
    if name.startswith(REPORT):
        return 2
    return 1 if name.startswith(HARNESS) else 0


def imports(path: Path) -> list[str]:
    """Absolute module names imported by ``path`` (function-level imports included; ``from m import x`` gives
    both m and m.x, which may be a module)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return names


MODULES = sorted(PACKAGE.rglob("*.py")) + sorted((ROOT / "experiments").glob("*/figures.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_imports_run_downward(path):
    here = module_name(path)
    upward = [name for name in imports(path)
              if (name.startswith("csrepro.") and layer(name) > layer(here))
              or (layer(here) == 0 and name.split(".")[0] in HARNESS_ONLY)]
    assert not upward, f"{here} (layer {layer(here)}) imports {upward}"


def test_the_layers_are_recognised():
    assert layer("csrepro.boosting.mcboost") == 0 and layer("csrepro.runner") == 1 and layer("csrepro.report.tables") == 2
    assert layer("experiments.cs_boost.figures") == 2 and layer("csrepro.seeding") == 1
    assert "csrepro.report.figures" in imports(ROOT / "experiments" / "cs_boost" / "figures.py")


def test_no_import_circle():
    """The graph of csrepro-internal imports (function-level ones included) has no cycle."""
    names = {module_name(p) for p in MODULES}
    graph = {}
    for path in MODULES:
        here = module_name(path)
        targets = set()
        for name in imports(path):
            while name and name not in names:  # `from csrepro.x import y`: the module csrepro.x
                name = name.rpartition(".")[0]
            if name and name != here and not here.startswith(name + "."):  # a module's own package is no edge
                targets.add(name)
        graph[here] = targets
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as err:
        pytest.fail(f"import circle: {' -> '.join(err.args[1])}")


def defined_names(path: Path) -> set[str]:
    """Names that ``path`` binds at module level by a def, a class or an assignment (imports excluded)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def test_runner_defines_no_metric():
    """The metric registry and its predictions live in csrepro.scoring; the runner only imports them."""
    scoring = {"Predictions", "MetricTable", "METRICS", "score"}
    assert scoring <= defined_names(PACKAGE / "scoring.py")
    assert not scoring & defined_names(PACKAGE / "runner.py")
    assert "csrepro.scoring" in imports(PACKAGE / "runner.py") and "csrepro.runner" not in imports(PACKAGE / "config.py")
    assert layer("csrepro.scoring") == 1


def test_the_report_asks_the_harness_for_its_plan():
    """Which planned trials a config asks for is answered once, by csrepro.trials.asked_for; the report neither
    re-matches plans nor reads config values with helpers of its own (csrepro.config.select)."""
    assert "asked_for" in defined_names(PACKAGE / "trials.py") and "select" in defined_names(PACKAGE / "config.py")
    for path in sorted((PACKAGE / "report").glob("*.py")):
        assert not {"selects", "_select", "asked_for", "select"} & defined_names(path), path.name
