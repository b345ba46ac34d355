"""Eq. (1), Properties 1-7 (Sec. 4) and Mossman's rule (3)/(13) of O'Brien, Gupta & Gray 2008.

Matrices in the tests follow the paper where named ``c`` (c[i, j] = c_{i|j}: assign i, true j) and the project
where named ``C`` (C[j, k]: predict k, true j); c = C.T.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from csrepro.costs import zero_one
from csrepro.decision.rules import (
    decide,
    equal_risk_point,
    expected_costs,
    mossman_partition_matrix,
    mossman_rule,
)

SEEDS = st.integers(0, 2**32 - 1)
CLASSES = st.integers(2, 5)


def _paper_cost(rng, K):
    """Random paper-orientation c with c_{j|j} < c_{i|j} (i != j), diagonal not necessarily zero."""
    c = rng.uniform(0.5, 10.0, (K, K))
    c[np.diag_indices(K)] = rng.uniform(0.0, 0.45, K)
    return c


def _simplex(rng, n, K):
    return rng.dirichlet(np.ones(K), size=n)


def _g(P, c):
    """Eq. (1) straight from the paper: argmin_i sum_j c_{i|j} p_j (explicit loops over i and j)."""
    K = c.shape[0]
    r = np.array([[sum(c[i, j] * p[j] for j in range(K)) for i in range(K)] for p in P])
    return np.argmin(r, axis=1)


def _margin(P, c):
    """Gap between the best and second-best expected cost per sample (assignments with a tiny gap may flip
    by rounding under an exact transformation)."""
    r = np.sort(P @ c.T, axis=1)
    return r[:, 1] - r[:, 0]


# ----------------------------------------------------------------------------- eq. (1) and orientation


def test_orientation_project_matrix_is_the_transpose_of_the_papers():
    # true class 0 predicted as 1 costs 10; true class 1 predicted as 0 costs 1 (project orientation)
    C = np.array([[0.0, 10.0], [1.0, 0.0]])
    P = np.array([[0.5, 0.5], [0.05, 0.95]])
    # predicting 0 risks p1 * C[1, 0] = 0.5, predicting 1 risks p0 * C[0, 1] = 5: class 0
    assert decide(P, C).tolist() == [0, 1]
    assert decide(P, C.T).tolist() == [1, 1]  # the transposed reading gives another class at p = (.5, .5)
    assert np.array_equal(decide(P, C), _g(P, C.T))  # c = C.T in eq. (1)
    assert np.allclose(expected_costs(P, C), [[0.5, 5.0], [0.95, 0.5]])


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=CLASSES)
def test_decide_is_eq1(seed, K):
    rng = np.random.default_rng(seed)
    c = _paper_cost(rng, K)
    c[np.diag_indices(K)] = 0.0
    P = _simplex(rng, 30, K)
    assert np.array_equal(decide(P, c.T), _g(P, c))
    neg = c.T - 20.0  # negative entries (an unbounded partition matrix) are accepted
    assert np.array_equal(decide(P, neg), _g(P, neg.T))


def test_decide_hand():
    C = np.array([[0, 1, 10], [1, 0, 1], [10, 1, 0]], float)
    P = np.array([[0.5, 0.5, 0.0], [0.6, 0.3, 0.1], [0.0, 0.0, 1.0], [0.5, 0.0, 0.5]])
    # expected costs per predicted class: [0.5, 0.5, 5.5] (tie -> 0), [1.3, 0.7, 6.3], [10, 1, 0], [5, 1, 5]
    np.testing.assert_array_equal(decide(P, C), [0, 1, 2, 1])
    np.testing.assert_array_equal(decide(np.full((2, 3), 1 / 3), zero_one(3)), [0, 0])


@settings(max_examples=80, deadline=None)
@given(data=st.data(), K=st.integers(2, 6), n=st.integers(1, 20))
def test_decide_brute_force(data, K, n):
    """Small integers keep every sum exact, so ties are real and must go to the lowest index."""
    C = data.draw(arrays(np.int64, (K, K), elements=st.integers(1, 4))) * (1 - np.eye(K, dtype=np.int64))
    P = data.draw(arrays(np.int64, (n, K), elements=st.integers(0, 3)))
    expected = [
        min(range(K), key=lambda k: (sum(int(P[i, j]) * int(C[j, k]) for j in range(K)), k)) for i in range(n)
    ]
    np.testing.assert_array_equal(decide(P, C), expected)


def test_decide_rejects_bad_probabilities():
    with pytest.raises(ValueError, match=r"2-D"):
        decide(np.ones(3), zero_one(3))
    with pytest.raises(ValueError, match=r"nan or inf"):
        decide(np.array([[np.nan, 1.0]]), zero_one(2))


def test_decide_rejects_bad_shapes():
    with pytest.raises(ValueError, match="square"):
        decide(np.ones((2, 3)) / 3, np.ones((3, 2)))
    with pytest.raises(ValueError, match="P has 3 columns"):
        decide(np.ones((2, 3)) / 3, np.ones((2, 2)))
    with pytest.raises(ValueError, match="nan"):
        decide(np.ones((2, 2)) / 2, [[0, np.nan], [1, 0]])


# ----------------------------------------------------------------------------- Properties 1-7


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=CLASSES, alpha=st.floats(1e-3, 1e3))
def test_property1_scaling_keeps_every_assignment(seed, K, alpha):
    rng = np.random.default_rng(seed)
    c, P = _paper_cost(rng, K), _simplex(rng, 50, K)
    keep = _margin(P, c) > 1e-9
    assert np.array_equal(decide(P, (alpha * c).T)[keep], decide(P, c.T)[keep])


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=CLASSES)
def test_property2_equal_risk_point(seed, K):
    rng = np.random.default_rng(seed)
    c = _paper_cost(rng, K)
    e = equal_risk_point(c.T)
    ci1 = np.linalg.solve(c, np.ones(K))
    if abs(ci1.sum()) < 1e-6 * np.abs(ci1).sum():
        return  # near "at infinity"; covered below
    assert np.allclose(e, ci1 / ci1.sum())  # e = c^-1 1 / (1^T c^-1 1)
    r = c @ e  # every class's expected cost at e
    assert np.allclose(r, r[0]) and np.isclose(e.sum(), 1.0)


def test_property2_at_infinity_and_not_unique():
    # full rank, 1^T c^-1 1 = 0: r_1 = p_1, r_2 = -p_2 are equal only where p_1 + p_2 = 0
    assert equal_risk_point(np.array([[1.0, 0.0], [0.0, -1.0]])) is None
    # rank 1: every class costs sum(p), so all of the plane sum(p) = 1 is equal-risk
    with pytest.raises(ValueError, match="not a unique point"):
        equal_risk_point(np.ones((3, 3)))
    # singular c with a unique point (the bordered system of Property 2 is full rank)
    c = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [1.0, 1.0, 3.0]])  # row 3 = row 1 + row 2: rank 2
    assert np.linalg.matrix_rank(c) == 2
    e = equal_risk_point(c.T)
    assert np.allclose(e, [0.5, 1.0, -0.5]) and np.allclose(c @ e, 0.0)  # equal (zero) costs, outside the simplex


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=CLASSES)
def test_property3_adding_to_a_true_class_column_keeps_assignments(seed, K):
    rng = np.random.default_rng(seed)
    c, P = _paper_cost(rng, K), _simplex(rng, 50, K)
    shifted = c + rng.uniform(-5, 5, K)[None, :]  # column j (true class j) + delta_j
    keep = _margin(P, c) > 1e-9
    assert np.array_equal(decide(P, shifted.T)[keep], decide(P, c.T)[keep])


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=CLASSES)
def test_property4_zero_diagonal_positive_equivalent(seed, K):
    rng = np.random.default_rng(seed)
    c, P = _paper_cost(rng, K), _simplex(rng, 50, K)
    tilde = c - np.diag(c)[None, :]  # Property 3 with delta_j = -c_{j|j}
    off = ~np.eye(K, dtype=bool)
    assert np.all(np.diag(tilde) == 0) and np.all(tilde[off] > 0)
    keep = _margin(P, c) > 1e-9
    assert np.array_equal(decide(P, tilde.T)[keep], decide(P, c.T)[keep])


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=CLASSES, delta=st.floats(-5, 5))
def test_property5_row_shift_gives_parallel_boundaries(seed, K, delta):
    rng = np.random.default_rng(seed)
    c, P = _paper_cost(rng, K), _simplex(rng, 50, K)
    i = int(rng.integers(K))
    shifted = c.copy()
    shifted[i] += delta
    for k in range(K):
        if k == i:
            continue
        # boundary (6) between i and k: normal c_i - c_k; the new one differs by delta * 1 (no change of
        # direction on the plane sum(p) = 1) and its value on the simplex by exactly delta
        assert np.allclose((shifted[i] - shifted[k]) - (c[i] - c[k]), delta)
        assert np.allclose(P @ (shifted[i] - shifted[k]), P @ (c[i] - c[k]) + delta)
        for m in range(K):  # boundaries not involving i are unchanged
            if m not in (i, k):
                assert np.array_equal(shifted[k] - shifted[m], c[k] - c[m])
    # the stated range keeps c_{j|j} < c_{i|j}
    lo = max(c[k, k] - c[i, k] for k in range(K) if k != i)
    hi = min(c[k, i] - c[i, i] for k in range(K) if k != i)
    for d, ok in ((0.5 * (lo + hi), True), (lo - 1e-6, False), (hi + 1e-6, False)):
        s = c.copy()
        s[i] += d
        assert ok == all(s[j, j] < s[m, j] for j in range(K) for m in range(K) if m != j)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=st.integers(3, 5), alpha=st.floats(0.2, 5.0))
def test_property6_column_multiply_moves_e_towards_the_corner(seed, K, alpha):
    rng = np.random.default_rng(seed)
    c = _paper_cost(rng, K)
    c[np.diag_indices(K)] = 0.0
    ell = int(rng.integers(K))
    scaled = c.copy()
    scaled[:, ell] *= alpha
    e, et = equal_risk_point(c.T), equal_risk_point(scaled.T)
    if e is None or et is None or abs(e[ell] - 1) < 1e-6 or np.abs(e).max() > 1e6 or np.abs(et).max() > 1e6:
        return
    corner = np.eye(K)[ell]
    gamma = (et[ell] - 1) / (e[ell] - 1)  # eq. (7): e~ = gamma e + (1 - gamma) delta_ell
    assert np.allclose(et, gamma * e + (1 - gamma) * corner, atol=1e-7 * max(1, np.abs(e).max()))
    # the boundaries' intersections with the face p_ell = 0 do not move
    P = _simplex(rng, 50, K)
    P[:, ell] = 0.0
    P /= P.sum(axis=1, keepdims=True)
    assert np.array_equal(decide(P, scaled.T), decide(P, c.T))


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, K=st.integers(3, 5), alpha=st.floats(0.2, 5.0))
def test_property7_row_multiply_moves_e_along_the_others_equal_risk_set(seed, K, alpha):
    rng = np.random.default_rng(seed)
    c = _paper_cost(rng, K)
    c[np.diag_indices(K)] = 0.0
    i = int(rng.integers(K))
    scaled = c.copy()
    scaled[i] *= alpha
    et = equal_risk_point(scaled.T)
    if et is None or np.abs(et).max() > 1e6:
        return
    r = np.delete(c @ et, i)  # under the original c, all classes but i are equally costly at e~
    assert np.allclose(r, r[0], atol=1e-8 * max(1.0, np.abs(r).max()))


# ----------------------------------------------------------------------------- Mossman (3) and (13)


def test_mossman_rule_cases():
    P = np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.4, 0.4, 0.2]])
    assert mossman_rule(P, 0.5, 0.0).tolist() == [0, 1, 2, 0]  # p2 - p1 <= theta2 -> class 1 (index 0)
    assert mossman_rule(P, 0.25, 0.0).tolist() == [0, 2, 2, 0]
    assert mossman_rule(P, 0.5, -0.25).tolist() == [1, 1, 2, 1]
    with pytest.raises(ValueError, match="3 classes"):
        mossman_rule(np.ones((2, 4)) / 4, 0.5, 0.0)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, theta1=st.floats(0.05, 0.95), theta2=st.floats(-0.9, 0.9),
       L=st.sampled_from([1.0, 10.0, 1e3, 1e6]))
def test_mossman_partition_matrix_reproduces_rule3(seed, theta1, theta2, L):
    rng = np.random.default_rng(seed)
    P = _simplex(rng, 400, 3)
    A = mossman_partition_matrix(theta1, theta2, L)
    off = ~np.eye(3, dtype=bool)
    assert np.all(np.diag(A) == 0) and np.all(A[off] > 0)
    d = P[:, 1] - P[:, 0] - theta2
    r = expected_costs(P, A)
    assert np.allclose(r[:, 0] - r[:, 1], d)  # the 1|2 boundary of (3) exactly
    # rule (3) outside the band theta1 < p3 <= theta1 + (1 - theta1)|d|/(2L) (and away from rounding ties)
    band = (P[:, 2] > theta1) & (P[:, 2] <= theta1 + (1 - theta1) * np.abs(d) / (2 * L) + 1e-9)
    clear = ~band & (np.abs(d) > 1e-9) & (np.abs(P[:, 2] - theta1) > 1e-9)
    assert np.array_equal(decide(P, A)[clear], mossman_rule(P, theta1, theta2)[clear])
    assert np.all(decide(P, A)[band] != 2)  # inside the band the matrix keeps class 1 or 2


def test_mossman_partition_matrix_large_L_agrees_almost_everywhere():
    rng = np.random.default_rng(0)
    P = _simplex(rng, 20000, 3)
    A = mossman_partition_matrix(0.4, 0.1, L=1e8)
    assert np.mean(decide(P, A) != mossman_rule(P, 0.4, 0.1)) < 1e-4
    with pytest.raises(ValueError, match="theta1"):
        mossman_partition_matrix(1.2, 0.0)
