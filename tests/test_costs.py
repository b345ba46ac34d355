"""Cost matrices: validation, generators (papers' conventions), dispatcher, cost of guessing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from csrepro.costs import (
    COST_KINDS,
    CostMatrixError,
    binary,
    check_cost_matrix_for_labels,
    class_frequency,
    expected_guessing_cost,
    hierarchy_distance,
    make_cost_matrix,
    random_symmetric,
    rebel_random,
    validate_cost_matrix,
    zero_one,
)
from csrepro.decision.rules import decide
from csrepro.metrics import error_confusion, per_class_recall, risk

SEEDS = st.integers(0, 2**32 - 1)
SIZES = st.integers(2, 12)


# ----------------------------------------------------------------------------- validation


def test_validate_returns_float64_copy():
    C = [[0, 1], [2, 0]]
    out = validate_cost_matrix(C, n_classes=2)
    assert out.dtype == np.float64 and out.tolist() == [[0.0, 1.0], [2.0, 0.0]]
    arr = np.array(C, dtype=float)
    assert validate_cost_matrix(arr) is not arr


@pytest.mark.parametrize(
    "C, n_classes, match",
    [
        ([[0, "a"], [1, 0]], None, r"numeric array"),
        ([0, 1, 1, 0], None, r"2-D"),
        ([[0, 1, 1], [1, 0, 1]], None, r"square"),
        ([[0.0]], None, r"K >= 2"),
        ([[0, 1], [1, 0]], 3, r"2x2 but there are 3 classes"),
        ([[0, np.inf], [1, 0]], None, r"C\[0, 1\] = inf is not finite"),
        ([[0, np.nan], [1, 0]], None, r"not finite"),
        ([[0, 1], [-2, 0]], None, r"C\[1, 0\] = -2 is negative"),
        ([[0, 1], [1, 0.5]], None, r"diagonal C\[1, 1\] = 0.5 is not zero.*set the diagonal to 0"),
        (
            [[0, 1, 1], [1, 0, 1], [0, 0, 0]],
            None,
            r"row 2 \(true class 2\) has no positive entry: every class needs at least one costly mistake",
        ),
    ],
)
def test_validate_errors(C, n_classes, match):
    with pytest.raises(CostMatrixError, match=match):
        validate_cost_matrix(C, n_classes)


def test_cost_matrix_error_is_value_error():
    assert issubclass(CostMatrixError, ValueError)


def test_check_for_labels():
    np.testing.assert_array_equal(check_cost_matrix_for_labels(None, np.array(["a", "b", "c"])), 1 - np.eye(3))
    C = [[0, 2], [3, 0]]
    np.testing.assert_array_equal(check_cost_matrix_for_labels(C, np.array([-1, 1])), C)
    with pytest.raises(CostMatrixError, match=r"2x2 but there are 3 classes \(labels \['a', 'b', 'c'\]\)"):
        check_cost_matrix_for_labels(C, np.array(["a", "b", "c"]))
    with pytest.raises(CostMatrixError, match=r"row 1 \(true class 'y'\) has no positive entry"):
        check_cost_matrix_for_labels([[0, 1], [0, 0]], np.array(["x", "y"]))


# ----------------------------------------------------------------------------- generators


def test_zero_one():
    np.testing.assert_array_equal(zero_one(3), [[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    with pytest.raises(CostMatrixError, match="n_classes must be an integer >= 2"):
        zero_one(1)


def test_random_symmetric_fill_order():
    u = np.random.default_rng(7).uniform(1, 10, size=3)
    C = random_symmetric(3, random_state=7)
    np.testing.assert_array_equal(C, [[0, u[0], u[1]], [u[0], 0, u[2]], [u[1], u[2], 0]])


@settings(max_examples=60, deadline=None)
@given(K=SIZES, seed=SEEDS)
def test_random_symmetric_properties(K, seed):
    C = random_symmetric(K, random_state=seed)
    np.testing.assert_array_equal(C, C.T)
    np.testing.assert_array_equal(np.diag(C), 0)
    off = C[~np.eye(K, dtype=bool)]
    assert off.min() >= 1 and off.max() <= 10
    np.testing.assert_array_equal(C, random_symmetric(K, random_state=np.random.default_rng(seed)))
    validate_cost_matrix(C, K)


def test_random_symmetric_bounds():
    C = random_symmetric(4, random_state=0, low=2, high=3)
    off = C[~np.eye(4, dtype=bool)]
    assert off.min() >= 2 and off.max() <= 3
    with pytest.raises(CostMatrixError, match=r"0 <= low <= high"):
        random_symmetric(3, 0, low=5, high=2)
    with pytest.raises(CostMatrixError, match=r"parameter high must be > 0"):
        random_symmetric(3, 0, low=0, high=0)
    with pytest.raises(CostMatrixError, match=r"parameter low must be a number"):
        random_symmetric(3, 0, low="1")


@settings(max_examples=60, deadline=None)
@given(K=SIZES, seed=SEEDS)
def test_rebel_random_unit_guessing_cost(K, seed):
    C = rebel_random(K, random_state=seed)
    # Appel et al. 2016, Sec. 5: random classification (uniform guess, uniform classes) costs 1
    assert C.sum() / K**2 == pytest.approx(1.0)
    assert expected_guessing_cost(C) == pytest.approx(1.0)
    off = ~np.eye(K, dtype=bool)
    assert np.all(C[off] > 0) and np.all(np.diag(C) == 0)
    # the off-diagonal entries are |N(0,1)| draws (row-major) times one common factor
    draws = np.abs(np.random.default_rng(seed).standard_normal(K * (K - 1)))
    np.testing.assert_allclose(C[off], draws * K**2 / draws.sum())


def test_binary_thesis_convention():
    C = binary(C1=5, C2=2)
    # sorted labels [neg, pos]: missing a positive costs C1, a false positive costs C2 (thesis VI.2)
    np.testing.assert_array_equal(C, [[0, 2], [5, 0]])
    # Bayes rule predicts positive iff eta > C2 / (C1 + C2) (thesis VI.3 and VI.54)
    eta = np.array([0.2, 2 / 7 - 1e-9, 2 / 7 + 1e-9, 0.9])
    P = np.column_stack([1 - eta, eta])
    np.testing.assert_array_equal(decide(P, C), [0, 0, 1, 1])
    with pytest.raises(CostMatrixError, match=r"parameter C1 must be > 0"):
        binary(0, 1)
    with pytest.raises(CostMatrixError, match=r"parameter C2 must be finite"):
        binary(1, np.inf)


TREE_NESTED = [[0, 1], [2, [3, 4]]]
# the same tree as a parent array: root 0; inner 1 = {0, 1}, 2 = {2, {3, 4}}, 5 = {3, 4};
# leaves (classes in increasing node id) 3, 4, 6, 7, 8 -> classes 0, 1, 2, 3, 4
TREE_PARENTS = [-1, 0, 0, 1, 1, 2, 2, 5, 5]
PATH_COSTS = [
    [0, 2, 4, 5, 5],
    [2, 0, 4, 5, 5],
    [4, 4, 0, 3, 3],
    [5, 5, 3, 0, 2],
    [5, 5, 3, 2, 0],
]
LCA_COSTS = [
    [0, 1, 2, 3, 3],
    [1, 0, 2, 3, 3],
    [2, 2, 0, 2, 2],
    [3, 3, 2, 0, 1],
    [3, 3, 2, 1, 0],
]


def test_hierarchy_hand_computed():
    np.testing.assert_array_equal(hierarchy_distance(nested=TREE_NESTED), PATH_COSTS)
    np.testing.assert_array_equal(hierarchy_distance(parents=TREE_PARENTS), PATH_COSTS)
    np.testing.assert_array_equal(hierarchy_distance(nested=TREE_NESTED, variant="lca_height"), LCA_COSTS)
    np.testing.assert_array_equal(hierarchy_distance(parents=TREE_PARENTS, variant="lca_height"), LCA_COSTS)


def test_hierarchy_balanced_lca_is_half_path():
    nested = [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    path = hierarchy_distance(nested=nested)
    np.testing.assert_array_equal(hierarchy_distance(nested=nested, variant="lca_height"), path / 2)
    assert path[0, 1] == 2 and path[0, 2] == 4 and path[0, 7] == 6


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({}, r"exactly one of parents=\.\.\. or nested=\.\.\."),
        ({"parents": [-1, 0, 0], "nested": [0, 1]}, r"exactly one of"),
        ({"nested": [0, 1], "variant": "depth"}, r"variant='depth' is not valid; choose one of \('path', 'lca_height'\)"),
        ({"nested": [[0, 1], [1, 2]]}, r"lists class 1 twice"),
        ({"nested": [[0, 1], [3]]}, r"class indices 0\.\.2 once each"),
        ({"nested": [[0, 1], []]}, r"empty subtree"),
        ({"nested": [[0, "b"]]}, r"leaves must be integer class indices"),
        ({"parents": [-1, 0, -1]}, r"exactly one root"),
        ({"parents": [-1, 0, 5]}, r"parents\[2\] = 5 is not a node id"),
        ({"parents": [-1, 0, 3, 2, 2]}, r"cycle"),
        ({"parents": [0.5, 1]}, r"flat sequence of integers"),
        ({"parents": [-1, 0]}, r"1 leaf"),
        ({"nested": [0, 1, 2], "n_classes": 4}, r"3 leaves but n_classes=4"),
    ],
)
def test_hierarchy_errors(kwargs, match):
    with pytest.raises(CostMatrixError, match=match):
        hierarchy_distance(**kwargs)


def test_class_frequency_hand():
    y = np.array(["b", "a", "a", "a", "c", "b"])  # sorted classes a, b, c; m = 3, 2, 1; n = 6
    expected = np.array([[0, 2 / 3, 2 / 3], [1, 0, 1], [2, 2, 0]])
    np.testing.assert_allclose(class_frequency(y), expected)
    np.testing.assert_allclose(class_frequency(class_counts=[3, 2, 1]), expected)
    np.testing.assert_array_equal(class_frequency(class_counts=[4, 4, 4]), zero_one(3))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), K=st.integers(2, 6))
def test_class_frequency_risk_is_balanced_error(data, K):
    """Risk (5) under n/(K m_j) costs = (1/K) sum of Koço & Capponi's eq. (6) terms = balanced error."""
    n = data.draw(st.integers(K, 40))
    y = np.concatenate([np.arange(K), data.draw(arrays(np.int64, n - K, elements=st.integers(0, K - 1)))])
    pred = data.draw(arrays(np.int64, n, elements=st.integers(0, K - 1)))
    C = class_frequency(y)
    r = risk(y, pred, C)
    assert r == pytest.approx(error_confusion(y, pred, K).sum() / K)
    assert r == pytest.approx(1 - per_class_recall(y, pred, K).mean())


def test_class_frequency_errors():
    with pytest.raises(CostMatrixError, match=r"exactly one of y=\.\.\. \(labels\) or class_counts"):
        class_frequency()
    with pytest.raises(CostMatrixError, match=r"positive counts"):
        class_frequency(class_counts=[3, 0, 2])
    with pytest.raises(CostMatrixError, match=r"positive counts"):
        class_frequency(class_counts=["a", "b"])
    with pytest.raises(CostMatrixError, match=r"needs >= 2 classes"):
        class_frequency(y=[1, 1, 1])
    with pytest.raises(CostMatrixError, match=r"cover 2 classes but n_classes=3"):
        class_frequency(y=[0, 1, 1], n_classes=3)


# ----------------------------------------------------------------------------- dispatcher


def test_make_cost_matrix_every_kind():
    assert sorted(COST_KINDS) == sorted(
        ["zero_one", "random_symmetric", "rebel_random", "binary", "hierarchy", "class_frequency"]
    )
    np.testing.assert_array_equal(make_cost_matrix("zero_one", 3), zero_one(3))
    np.testing.assert_array_equal(make_cost_matrix("random_symmetric", 4, 11), random_symmetric(4, 11))
    np.testing.assert_array_equal(
        make_cost_matrix("random_symmetric", 4, 11, low=2, high=5), random_symmetric(4, 11, 2, 5)
    )
    np.testing.assert_array_equal(make_cost_matrix("rebel_random", 5, 3), rebel_random(5, 3))
    np.testing.assert_array_equal(make_cost_matrix("binary", 2, C1=4, C2=1), [[0, 1], [4, 0]])
    np.testing.assert_array_equal(make_cost_matrix("hierarchy", 5, nested=TREE_NESTED), PATH_COSTS)
    np.testing.assert_array_equal(
        make_cost_matrix("hierarchy", 5, parents=TREE_PARENTS, variant="lca_height"), LCA_COSTS
    )
    np.testing.assert_allclose(make_cost_matrix("class_frequency", 3, class_counts=[3, 2, 1])[2], [2, 2, 0])
    np.testing.assert_array_equal(make_cost_matrix("class_frequency", 2, y=[5, 7, 7, 5]), zero_one(2))


@pytest.mark.parametrize(
    "args, params, match",
    [
        (("taxonomy", 3), {}, r"unknown cost kind 'taxonomy'; valid kinds: \['binary', 'class_frequency'"),
        (("zero_one", 3), {"low": 2}, r"'zero_one' got unknown parameter\(s\) \['low'\]; valid parameters: none"),
        (("random_symmetric", 3), {"hi": 2}, r"unknown parameter\(s\) \['hi'\]; valid parameters: \['low', 'high'\]"),
        (("binary", 2), {"C1": 1}, r"'binary' needs parameter\(s\) \['C2'\]"),
        (("binary", 3), {"C1": 1, "C2": 1}, r"builds a 2x2 matrix but n_classes=3"),
        (("hierarchy", 4), {"nested": TREE_NESTED}, r"5 leaves but n_classes=4"),
        (("class_frequency", 3), {"class_counts": [1, 2]}, r"cover 2 classes but n_classes=3"),
        (("zero_one", 1.5), {}, r"n_classes must be an integer >= 2, got 1.5"),
    ],
)
def test_make_cost_matrix_errors(args, params, match):
    with pytest.raises(CostMatrixError, match=match):
        make_cost_matrix(*args, **params)


@pytest.mark.parametrize("kind", ["random_symmetric", "rebel_random"])
def test_make_cost_matrix_seeded(kind):
    a = make_cost_matrix(kind, 4, random_state=123)
    np.testing.assert_array_equal(a, make_cost_matrix(kind, 4, random_state=123))
    assert not np.array_equal(a, make_cost_matrix(kind, 4, random_state=124))


# ----------------------------------------------------------------------------- cost of guessing


def test_expected_guessing_cost():
    C = np.array([[0, 2, 4], [3, 0, 0], [1, 1, 0]], float)
    assert expected_guessing_cost(C) == pytest.approx(11 / 9)
    assert expected_guessing_cost(C, priors=[0.5, 0.5, 0]) == pytest.approx(0.5 * 2 + 0.5 * 1)
    assert expected_guessing_cost(zero_one(4)) == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match=r"3 non-negative numbers summing to 1"):
        expected_guessing_cost(C, priors=[0.5, 0.6, 0])


def test_resolve_counts_counts_the_training_codes():
    from csrepro.costs import resolve_counts

    got = resolve_counts({"kind": "class_frequency", "counts": "train"}, np.array([0, 0, 2, 2, 2]), 3)
    assert got["kind"] == "class_frequency" and got["class_counts"].tolist() == [2, 0, 3] and "counts" not in got
    assert resolve_counts({"counts": "train"}, None, 2)["class_counts"].tolist() == [1, 1]
    assert resolve_counts({"kind": "zero_one"}, None, 2) == {"kind": "zero_one"}
    with pytest.raises(CostMatrixError, match="a class with no examples"):
        class_frequency(class_counts=got["class_counts"])
    with pytest.raises(CostMatrixError, match="counts='all' is not valid"):
        resolve_counts({"counts": "all"}, None, 2)


def test_cost_matrix_of_builds_a_config_mapping_for_a_training_part():
    from csrepro.costs import cost_matrix_of

    spec = {"kind": "class_frequency", "counts": "train"}
    # counts 3, 1 of n = 4 rows, K = 2: C_01 = 4 / (2 * 3), C_10 = 4 / (2 * 1)
    C = cost_matrix_of(spec, 2, np.array([0, 0, 0, 1]))
    np.testing.assert_allclose(C, [[0, 2 / 3], [2, 0]])
    assert spec == {"kind": "class_frequency", "counts": "train"}  # the config mapping is not consumed
    np.testing.assert_array_equal(cost_matrix_of(spec, 3), [[0, 1, 1], [1, 0, 1], [1, 1, 0]])  # config check
    random = {"kind": "random_symmetric"}
    np.testing.assert_array_equal(cost_matrix_of(random, 4, random_state=7),
                                  make_cost_matrix("random_symmetric", 4, random_state=7))
    with pytest.raises(CostMatrixError, match="unknown cost kind None"):
        cost_matrix_of({}, 2)
