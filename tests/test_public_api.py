"""The public surface (issue 29): an estimator's parameters are its paper's, the kernels' backend is a private switch
(:mod:`csrepro._kernels.backend`), and the runner defines no metric (they live in :mod:`csrepro.scoring`)."""

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

import csrepro
from csrepro._kernels import backend
from csrepro.scoring import METRICS, MetricTable
from csrepro.weak.binning import BinnedData

RUNNER = Path(csrepro.__file__).with_name("runner.py")
ESTIMATORS = [name for name in csrepro.__all__
              if inspect.isclass(getattr(csrepro, name)) and hasattr(getattr(csrepro, name), "get_params")]
#: the metric registry of csrepro.scoring, its class and its parametrised families
REGISTRY = {"METRICS", "MetricTable", "families"}
#: the names of the metrics and of the families
METRIC_NAMES = {*dict(METRICS), *MetricTable.families}


def test_every_export_is_an_estimator_checked_here():
    assert len(ESTIMATORS) == len(csrepro.__all__) > 40


@pytest.mark.parametrize("name", ESTIMATORS)
def test_no_estimator_takes_a_backend(name):
    cls = getattr(csrepro, name)
    assert "backend" not in inspect.signature(cls).parameters
    assert "backend" not in cls._get_param_names()
    assert "backend" not in getattr(cls, "_parameter_constraints", {})


def test_the_switch_picks_the_kernels_and_restores_the_default():
    X = np.arange(12.0).reshape(6, 2)
    assert backend.current() == "cython" and BinnedData(X).backend == "cython"
    with backend.use_backend("numpy"):
        assert BinnedData(X).backend == "numpy" and BinnedData.memoised(X).backend == "numpy"
    assert BinnedData.memoised(X).backend == "cython"  # the memo is keyed on the backend
    with pytest.raises(RuntimeError), backend.use_backend("numpy"):
        raise RuntimeError
    assert backend.current() == "cython"
    with pytest.raises(ValueError, match=r"backend 'fortran' is not valid; choose one of \['cython', 'numpy'\]"):
        with backend.use_backend("fortran"):
            pass


def metric_definitions(source: str) -> list[str]:
    """What ``source`` defines or registers as a metric: functions and classes named as a metric or the registry
    (:data:`METRIC_NAMES`, :data:`REGISTRY`), assignments to the registry or its items (``METRICS[...] = ``), and
    calls of it or its methods (``METRICS.update``, a new :class:`~csrepro.scoring.MetricTable`)."""

    def registry(node) -> bool:
        return (isinstance(node, ast.Name) and node.id in REGISTRY) or (isinstance(node, ast.Attribute)
                                                                         and node.attr in REGISTRY)

    named = METRIC_NAMES | REGISTRY
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in named:
            found.append(f"line {node.lineno}: defines {node.name}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if registry(target) or (isinstance(target, ast.Subscript) and registry(target.value)):
                    found.append(f"line {node.lineno}: assigns {ast.unparse(target)}")
        elif isinstance(node, ast.Call) and (registry(node.func) or (isinstance(node.func, ast.Attribute)
                                                                     and registry(node.func.value))):
            found.append(f"line {node.lineno}: calls {ast.unparse(node.func)}")
    return found


def test_the_runner_defines_no_metric():
    assert metric_definitions(RUNNER.read_text()) == []


def test_a_metric_defined_or_registered_is_found():
    planted = ("def risk(p): pass\n"
               "METRICS['my_metric'] = lambda p: 0.0\n"
               "scoring.METRICS.update(other=len)\n"
               "table = MetricTable({})\n")
    found = sorted(line.split(":")[0] for line in metric_definitions(planted))
    assert found == ["line 1", "line 2", "line 3", "line 4"]
