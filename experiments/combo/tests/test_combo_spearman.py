"""experiments/combo/figures.py's exact Spearman test: the vectorised rank correlation it permutes equals scipy's
spearmanr, ties included, and the exact p of a perfect order of five sets is 2/120 (two-sided)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from csrepro.report.figures import paper_module

figures = paper_module("combo")


@pytest.mark.parametrize("n", [3, 5, 8])
def test_rank_corr_is_spearmans_rho_with_ties(n):
    rng = np.random.default_rng(n)
    u = rng.integers(0, 4, size=(50, n)).astype(float)  # many ties
    u[:, 0], u[:, 1] = 0.0, 3.0  # no constant row (rho undefined)
    b = rng.integers(0, 3, size=n).astype(float)
    b[:3] = [0.0, 1.0, 2.0]  # never constant
    got = figures._rank_corr(u, b, axis=-1)
    want = [stats.spearmanr(row, b).statistic for row in u]
    np.testing.assert_allclose(got, want)


def test_exact_p_of_a_perfect_order():
    rho, p, n = figures._spearman(pd.Series([1.0, 2, 3, 4, 5]), pd.Series([10.0, 20, 30, 40, 50]))
    assert rho == pytest.approx(1.0) and n == 5 and p == pytest.approx(2 / 120)
