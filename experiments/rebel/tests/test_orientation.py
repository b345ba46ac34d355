"""End-to-end orientation of the cost matrix (issue 31): ``C[y, k]`` is the cost of predicting k when the truth is y.

One feature, classes of unit-variance Gaussians with equal priors, built through the method registry as the runner
builds them (:func:`csrepro.methods.make_estimator`).  Hand-reasoned Bayes boundaries:

* Two classes, means -1 and +1: log P(1|x)/P(0|x) = 2x.  Predicting 1 costs p0 C[0, 1], predicting 0 costs
  p1 C[1, 0], so class 1 is predicted where 2x > ln(C[0, 1] / C[1, 0]).  0-1 costs: x > 0.  With C[0, 1] = 5,
  C[1, 0] = 1 (calling a 0 a 1 is expensive) the boundary moves right, to ln(5)/2 = 0.80; with the transpose
  C[1, 0] = 5 it moves left, to -0.80.
* Three classes, means -2, 0, 2, all off-diagonal costs 1 but C[0, 1] = 5: near the 0|1 boundary (p2 negligible)
  predicting 0 costs p1, predicting 1 costs 5 p0, and log p1/p0 = 2x + 2, so the boundary moves from -1 to
  (ln 5 - 2)/2 = -0.20; with the transpose (C[1, 0] = 5) to (-ln 5 - 2)/2 = -1.80.  The 1|2 boundary stays at +1.

A boundary is read off a fine grid on [-L, L] as -L + 2L x (share of the grid predicted as the classes left of it),
exact for a step function and robust to a stray grid point.  REBEL (cost-trained), the standard approach
(``rebel_standard``: cost-neutral REBEL + posteriors + Bayes rule) and GLL-MCBoost (Beijbom et al. 2014) as a
cross-check must all move the boundary the hand-reasoned way (by more than SHIFT); the two Bayes-consistent REBEL
methods must also land near the Bayes boundary (GLL-MCBoost, not Bayes consistent, moves it less: about +-0.29 in the
two-class case).
"""

import numpy as np
import pytest

from csrepro.methods import make_estimator

N_PER_CLASS = 3000
GRID = np.linspace(-3.0, 3.0, 6001)
METHODS = {  # id -> params: few rounds keep the test fast; enough for a 1-D step
    "rebel": {"n_estimators": 60},
    "rebel_standard": {"n_estimators": 60},
    "gll_mcboost": {"n_estimators": 30},
}
BAYES_CONSISTENT = {"rebel", "rebel_standard"}
SHIFT = 0.15  # the least move counted as a move (sampling noise of a boundary here: a few hundredths)


def gaussians(means, seed=0):
    """(X (n, 1), y): N_PER_CLASS rows of N(means[c], 1) per class c."""
    rng = np.random.default_rng(seed)
    X = np.concatenate([m + rng.standard_normal(N_PER_CLASS) for m in means])[:, None]
    y = np.repeat(np.arange(len(means)), N_PER_CLASS)
    return X, y


def boundary(method, X, y, C, below=(0,), labels=None):
    """Where ``method`` trained with ``C`` stops predicting the classes ``below`` (left of the boundary) on GRID."""
    params = dict(METHODS[method], **({"labels": labels} if labels is not None else {}))
    model = make_estimator(method, cost_matrix=C, random_state=0, **params).fit(X, y)
    share = np.isin(model.predict(GRID[:, None]), below).mean()
    return GRID[0] + (GRID[-1] - GRID[0]) * share


def two_class_costs(c01=1.0, c10=1.0):
    return np.array([[0.0, c01], [c10, 0.0]])


@pytest.fixture(scope="module")
def two():
    return gaussians([-1.0, 1.0])


@pytest.fixture(scope="module")
def three():
    return gaussians([-2.0, 0.0, 2.0])


@pytest.mark.parametrize("method", list(METHODS))
def test_two_classes_a_costly_false_1_moves_the_boundary_right_and_its_transpose_left(method, two):
    X, y = two
    neutral = boundary(method, X, y, two_class_costs())
    right = boundary(method, X, y, two_class_costs(c01=5.0))
    left = boundary(method, X, y, two_class_costs(c10=5.0))
    assert abs(neutral) < 0.25, neutral
    assert right > neutral + SHIFT and left < neutral - SHIFT, (left, neutral, right)
    if method in BAYES_CONSISTENT:
        bayes = np.log(5.0) / 2
        assert right == pytest.approx(bayes, abs=0.25) and left == pytest.approx(-bayes, abs=0.25), (left, right)


@pytest.mark.parametrize("method", ["rebel", "rebel_standard"])
def test_two_classes_the_cost_matrix_follows_the_labels_order(method, two):
    # labels [1, 0]: row / column 0 is class 1, so [[0, 1], [5, 0]] makes C[true 0, predicted 1] = 5: boundary right
    X, y = two
    swapped = boundary(method, X, y, np.array([[0.0, 1.0], [5.0, 0.0]]), labels=[1, 0])
    assert swapped == pytest.approx(np.log(5.0) / 2, abs=0.25)


@pytest.mark.parametrize("method", list(METHODS))
def test_three_classes_only_the_boundary_between_0_and_1_moves(method, three):
    X, y = three
    C = 1.0 - np.eye(3)
    Ct = C.copy()
    C[0, 1] = 5.0   # predicting 1 for a true 0 is expensive: class 0 keeps more of the line
    Ct[1, 0] = 5.0  # the transpose: predicting 0 for a true 1 is expensive
    b01 = {name: boundary(method, X, y, M) for name, M in [("neutral", 1.0 - np.eye(3)), ("C", C), ("Ct", Ct)]}
    b12 = {name: boundary(method, X, y, M, below=(0, 1)) for name, M in [("neutral", 1.0 - np.eye(3)), ("C", C),
                                                                          ("Ct", Ct)]}
    assert b01["C"] > b01["neutral"] + SHIFT and b01["Ct"] < b01["neutral"] - SHIFT, b01
    if method in BAYES_CONSISTENT:
        assert b01["neutral"] == pytest.approx(-1.0, abs=0.25)
        assert b01["C"] == pytest.approx((np.log(5.0) - 2) / 2, abs=0.3)
        assert b01["Ct"] == pytest.approx((-np.log(5.0) - 2) / 2, abs=0.3)
        assert all(b == pytest.approx(1.0, abs=0.3) for b in b12.values()), b12
