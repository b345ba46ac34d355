"""The safeguarded Newton line search on hand-made convex functions."""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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


@pytest.mark.parametrize("tol", [1e-3, 1e-6, 1e-10])
@pytest.mark.parametrize("shift", [0.3, 3.0, -7.0])
def test_halley_stop_within_tolerance(tol, shift):
    """f = cosh(x - shift) with its third derivative: wherever the search stops (a trial, or an
    unevaluated step from it), the result is within tol (1 + |alpha|) of the minimiser."""
    a, _ = newton_line_search(lambda x: (math.sinh(x - shift), math.cosh(x - shift), math.sinh(x - shift)), tol=tol)
    assert abs(a - shift) <= tol * (1.0 + abs(a))


def test_halley_skips_the_confirming_evaluation():
    """With d3, the last Newton-type step is taken without the evaluation that would only confirm it."""
    seen = []

    def d(x):
        seen.append(x)
        return math.sinh(x - 3.0), math.cosh(x - 3.0), math.sinh(x - 3.0)

    a, evaluations = newton_line_search(d, tol=1e-6)
    assert a not in seen and evaluations == len(seen) - 1  # derivatives(0) is the start, not counted
    assert a == pytest.approx(3.0, abs=1e-12)


def _exponential_sum(terms, slope):
    """Derivatives (d1, d2, d3) of f = sum_i a_i e^{b_i x} + slope x."""
    def d(x):
        e = [a * math.exp(b * x) for a, b in terms]
        return (sum(b * v for (_, b), v in zip(terms, e)) + slope, sum(b * b * v for (_, b), v in zip(terms, e)),
                sum(b ** 3 * v for (_, b), v in zip(terms, e)))
    return d


# derandomized: the same 200 examples every run, so the suite never passes or fails by the draw (a random draw found
# the counterexample of test_halley_overshoot_is_recovered on 28 Nov 2026)
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.floats(0.1, 10.0), st.floats(-3.0, 3.0)), min_size=2, max_size=6),
       st.floats(-5.0, 5.0), st.sampled_from([1e-4, 1e-6, 1e-9]))
def test_stop_is_within_tolerance_on_exponential_sums(terms, slope, tol):
    """f = sum_i a_i e^{b_i x} + slope x (convex, as the MCBoost line objectives): the result's
    first derivative is that of a point within tol (1 + |alpha|) of the minimiser."""
    d = _exponential_sum(terms, slope)
    lo_b, hi_b = min(b for _, b in terms), max(b for _, b in terms)
    assume(lo_b < -0.2 and hi_b > 0.2)  # a finite minimiser, not too far out
    a, evaluations = newton_line_search(d, tol=tol)
    root, _ = newton_line_search(lambda x: d(x)[:2], tol=1e-14)  # Newton to near machine precision
    assert abs(a - root) <= tol * (1.0 + abs(a))
    assert evaluations <= 60  # the default max_iter (100) never ends a search with a finite minimiser


def test_halley_overshoot_is_recovered():
    """A counterexample hypothesis found to the test above (28 Nov 2026): at alpha = 0 Halley's denominator
    2 d2^2 - d1 d3 is near 0 and its step lands at -851, where d1 = -1e108; Newton-type steps from there move about
    3.4 at a time (1 / 0.293, the tail's exponent), and before the rtsafe safeguard they crawled until max_iter (100)
    ended the search at -175.3.  The bracket [-851, 0] now halves at least every two evaluations."""
    d = _exponential_sum([(8.0, 0.0390625), (10.0, 0.046875), (1.875, -0.29296875), (4.15625, 1.0625)], 5.0)
    root, _ = newton_line_search(lambda x: d(x)[:2], tol=1e-14)
    assert abs(d(root)[0]) < 1e-9 and -8.0 < root < -7.8  # the minimiser: f' vanishes there
    a, evaluations = newton_line_search(d, tol=1e-4)
    assert abs(a - root) <= 1e-4 * (1.0 + abs(a))
    assert evaluations <= 2 * math.ceil(math.log2(851 / 1e-4)) + 2  # bisection's count from a bracket of width 851

