"""experiments/cs_boost/cs_boost_feasibility.py: the oracle floor on a toy problem with a known answer."""

import importlib.util
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

SCRIPT = Path(__file__).resolve().parents[1] / "cs_boost_feasibility.py"


def _module():
    spec = importlib.util.spec_from_file_location("cs_boost_feasibility", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_oracle_floor_of_separable_classes_counts_only_the_undetected():
    """Separable classes: the oracle threshold keeps every false positive out, so the errors are the
    positives left undetected at each rate, n_pos - ceil(r n_pos), averaged over the rates."""
    mod = _module()
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(-5, 1, (60, 2)), rng.normal(5, 1, (40, 2))]
    y = np.r_[np.zeros(60, int), np.ones(40, int)]
    want = np.mean([40 - np.ceil(r * 40 - 1e-9) for r in mod.RATES])
    assert mod.oracle_errors(X, y, LogisticRegression()) == want


def test_markdown_has_one_row_per_frame_row():
    import pandas as pd

    text = _module().markdown(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
    assert text.splitlines() == ["| a | b |", "|---|---|", "| 1 | x |", "| 2 | y |"]
