"""Figure VI.2 (conf/exp/cs_boost_synthetic.yaml) through the runner and the report: zero crossings of
CS-Ada/Real/Logit on the scalar two-Gaussian problem against the optimum x* = 1/2 log(C2/C1)."""

import numpy as np
import pandas as pd
import pytest

from csrepro.metrics import zero_crossing
from csrepro.report.figures import paper_module


class _Step:
    """F(x) = x - t with a wiggle of sign errors near -2."""

    def __init__(self, t):
        self.t = t

    def decision_function(self, X):
        x = X[:, 0]
        return np.where((x > -2.05) & (x < -2.0), 1.0, x - self.t)


def test_zero_crossing_of_a_known_predictor():
    assert zero_crossing(_Step(0.7)) == pytest.approx(0.7, abs=1e-3)


def test_crossings_from_store_by_hand():
    store = pd.DataFrame({"method": ["cs_ada[C1=2]", "cs_real[C1=1]", "other"], "zero_crossing": [-0.3, 0.1, np.nan],
                          "params": ['{"C1": 2.0}', '{"C1": 1.0}', "{}"]})
    c = paper_module("cs_boost").crossings_from_store(store).set_index("method")
    assert c.loc["cs_ada", "x_opt"] == pytest.approx(0.5 * np.log(0.5))
    assert c.loc["cs_ada", "deviation"] == pytest.approx(-0.3 - 0.5 * np.log(0.5))
    assert c.loc["cs_real", "posterior_target"] == pytest.approx(0.5) and len(c) == 2


@pytest.fixture(scope="module")
def figure(run_reduced):
    """The full experiment (51 fits of 5 iterations, about 2 s) and its report."""
    rows, _, out = run_reduced("cs_boost_synthetic", [])
    return rows, out


def test_real_and_logit_are_near_optimal_ada_less_so(figure):
    """The thesis: "Both Real and LogitBoost produce near optimal cost-sensitive detectors" (Sec. VI.E.1)."""
    rows, out = figure
    assert len(rows) == 3 * 17 and rows["zero_crossing"].notna().all()
    crossings = pd.read_csv(out / "figures" / "figure_vi2_zero_crossings.csv")
    dev = paper_module("cs_boost").summarise(crossings)["mean_abs_deviation"]
    assert dev["cs_real"] < 0.15 and dev["cs_logit"] < 0.15
    assert dev["cs_ada"] > dev["cs_real"]
    one = crossings[np.isclose(crossings["C1"], 1.0)]
    assert (one["x_star"].abs() < 0.1).all()  # C1 = C2: the cost-insensitive boundary x = 0
    assert (out / "figures" / "figure_vi2.png").is_file()
