"""Reduced Figure VI.2 (conf/exp/cs_boost_synthetic.yaml): zero crossings of CS-Ada/Real/Logit vs the optimum."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from csrepro.boosting.cs_figures import (
    plot_figure_vi2,
    summarise,
    zero_crossing,
    zero_crossings,
)

ROOT = Path(__file__).resolve().parents[2]


class _Step:
    """F(x) = x - t with a wiggle of sign errors near -2."""

    def __init__(self, t):
        self.t = t

    def decision_function(self, X):
        x = X[:, 0]
        return np.where((x > -2.05) & (x < -2.0), 1.0, x - self.t)


def test_zero_crossing_of_a_known_predictor():
    assert zero_crossing(_Step(0.7)) == pytest.approx(0.7, abs=1e-3)


@pytest.fixture(scope="module")
def crossings():
    return zero_crossings({"n_per_class": 3000, "log_C1": [-2.0, 2.0, 5]})


def test_real_and_logit_are_near_optimal_ada_less_so(crossings):
    """The thesis: "Both Real and LogitBoost produce near optimal cost-sensitive detectors" (Sec. VI.E.1)."""
    dev = summarise(crossings)["mean_abs_deviation"]
    assert dev["cs_realboost"] < 0.15 and dev["cs_logitboost"] < 0.15
    assert dev["cs_adaboost"] > dev["cs_realboost"]
    one = crossings[np.isclose(crossings["C1"], 1.0)]
    assert (one["x_star"].abs() < 0.1).all()  # C1 = C2: the cost-insensitive boundary x = 0


def test_figure_through_the_report_config(tmp_path):
    cfg = OmegaConf.create({"exp": OmegaConf.load(ROOT / "conf" / "exp" / "cs_boost_synthetic.yaml")})
    cfg.exp.report.figure_vi2.n_per_class = 500
    cfg.exp.report.figure_vi2.log_C1 = [-1.0, 1.0, 3]
    paths = plot_figure_vi2(tmp_path, pd.DataFrame(), cfg)
    assert [p.name for p in paths] == ["figure_vi2.png"]
    table = pd.read_csv(tmp_path / "figure_vi2_zero_crossings.csv")
    assert len(table) == 3 * 3 and set(table["method"]) == {"cs_adaboost", "cs_realboost", "cs_logitboost"}
