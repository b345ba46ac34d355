"""The safeguarded Newton line search on hand-made convex functions."""

import math

import pytest

from csrepro.boosting.line_search import newton_line_search


@pytest.mark.parametrize("target", [-3.0, 0.5, 40.0])
def test_quadratic_one_step(target):
    a, it = newton_line_search(lambda x: (2 * (x - target), 2.0))
    assert a == pytest.approx(target) and it <= 2


def test_exponential_overflowing_trials():
    """f = e^{50 x} + e^{-x}: plain Newton from 0 overshoots into overflow; the bracket copes."""
    def d(x):
        try:
            e = math.exp(50 * x)
        except OverflowError:
            return math.inf, math.inf
        return 50 * e - math.exp(-x), 2500 * e + math.exp(-x)

    a, _ = newton_line_search(d, tol=1e-12)
    assert a == pytest.approx(-math.log(50) / 51, rel=1e-9)


def test_unbounded_decrease_stops():
    """f = e^{-x} has no minimiser: Newton moves +1 per step until max_iter or max_step."""
    assert newton_line_search(lambda x: (-math.exp(-x), math.exp(-x)), max_iter=20) == (20.0, 20)
    assert newton_line_search(lambda x: (-math.exp(-x), math.exp(-x)), max_step=5.5)[0] == 5.5


def test_flat_start_returns_zero():
    assert newton_line_search(lambda x: (0.0, 1.0)) == (0.0, 0)
