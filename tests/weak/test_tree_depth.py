"""Depth-limited trees (``TreeLearner(max_depth=d)``) and the K-vector label criteria LeastCost and Gini."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete, Gini, LeastCost, LeastSquares, class_channels, label_channels, wls_channels
from csrepro.weak.trees import TreeLearner


def _loss(crit, ch, rows):
    S = ch[rows].sum(0)
    return float(crit.loss(S, crit.value(S)))


def brute_force_levels(X, ch, crit, depth):
    """Level-by-level tree: every node above ``depth`` with two non-empty sides for some threshold takes its
    best split (lowest feature, then threshold, among equal losses) unless that raises its loss (zero gain
    splits, as scikit-learn's trees); returns the leaves' row sets."""
    def grow(rows, d):
        here = _loss(crit, ch, rows)
        best = None
        if d < depth:
            for j in range(X.shape[1]):
                for t in np.unique(X[rows, j])[:-1]:
                    kids = [rows[X[rows, j] <= t], rows[X[rows, j] > t]]
                    s = _loss(crit, ch, kids[0]) + _loss(crit, ch, kids[1])
                    if best is None or s < best[0] - 1e-12 * max(1.0, abs(s)):
                        best = (s, kids)
        if best is None or best[0] > here + 1e-12 * max(1.0, abs(here)):
            return [rows]
        return grow(best[1][0], d + 1) + grow(best[1][1], d + 1)
    return grow(np.arange(len(X)), 0)


def _leaf_depths(tree):
    depth = np.zeros(len(tree.feature), dtype=int)
    for v in np.flatnonzero(tree.feature >= 0):  # parents have lower ids than their children
        depth[tree.left[v]] = depth[tree.right[v]] = depth[v] + 1
    return depth[tree.leaf >= 0]


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d, K = draw(st.integers(6, 18)), draw(st.integers(1, 3)), draw(st.integers(2, 4))
    X = rng.integers(0, 5, (n, d)).astype(float)
    z = rng.integers(0, K, n)
    D = rng.exponential(size=(n, K))  # cost rows: least cost on the true label
    D[np.arange(n), z] = -D.sum(1)
    return X, z, K, D, rng.uniform(0.1, 1.0, n), rng.normal(size=n)


@settings(max_examples=120, deadline=None)
@given(problems(), st.sampled_from(["least_cost", "gini", "sse"]), st.integers(1, 3))
def test_depth_limited_tree_equals_level_by_level_growth(problem, kind, depth):
    X, z, K, D, w, r = problem
    ch, crit = {"least_cost": (D, LeastCost()), "gini": (label_channels(w, z, K), Gini()),
                "sse": (wls_channels(w, r), LeastSquares())}[kind]
    tree = TreeLearner(max_depth=depth).fit(BinnedData(X), ch, crit)
    if all(len(np.unique(c)) == 1 for c in X.T):
        assert tree is None
        return
    leaves = brute_force_levels(X, ch, crit, depth)
    score = sum(_loss(crit, ch, rows) for rows in leaves)
    assert tree.score == pytest.approx(score, rel=1e-9, abs=1e-12)
    assert len(tree.values) <= 2 ** depth and _leaf_depths(tree).max() <= depth
    cells = tree.apply(X)
    if kind != "sse":  # K-vector leaves: each predicts the one-hot value of its own sums
        for c in range(len(tree.values)):
            np.testing.assert_array_equal(tree.values[c], crit.value(ch[cells == c].sum(0)))


def test_depth_respected_and_full_tree_grown():
    """XOR on two features needs depth 2: depth 1 gives a stump, depth 2 the four cells, depth 3 nothing more."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, float)
    z = np.array([0, 1, 1, 0] * 3)
    ch = label_channels(np.ones(12), z, 2)
    for depth, leaves in ((1, 2), (2, 4), (3, 4)):
        tree = TreeLearner(max_depth=depth).fit(BinnedData(X), ch, Gini())
        assert len(tree.values) == leaves and _leaf_depths(tree).max() == min(depth, 2)
    np.testing.assert_array_equal(tree.predict(X).argmax(1), z)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    z = rng.integers(0, 3, 300)
    for depth in (1, 2, 3, 4):
        tree = TreeLearner(max_depth=depth).fit(BinnedData(X), label_channels(np.ones(300), z, 3), Gini())
        assert _leaf_depths(tree).max() == depth and len(tree.values) == 2 ** depth  # noisy labels: full tree


def test_zero_gain_split_lets_children_split():
    """Class 2 where x0 = 0, XOR of x1, x2 where x0 = 1: the XOR half's first split has no gain, and is made
    (as in scikit-learn) so that depth 3 separates every class; the leaf-count growth stops there."""
    cube = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)] * 2, float)
    z = np.where(cube[:, 0] == 0, 2, (cube[:, 1] != cube[:, 2]).astype(int))
    D = np.ones((16, 3))
    D[np.arange(16), z] = -2.0
    for ch, crit in ((label_channels(np.ones(16), z, 3), Gini()), (D, LeastCost())):
        tree = TreeLearner(max_depth=3).fit(BinnedData(cube), ch, crit)
        np.testing.assert_array_equal(tree.predict(cube).argmax(1), z)
        assert (tree.predict(cube).argmax(1) != z).sum() < (TreeLearner(8).fit(BinnedData(cube), ch, crit)
                                                          .predict(cube).argmax(1) != z).sum()


def test_max_leaves_defaults():
    assert TreeLearner().max_leaves == 4 and TreeLearner().max_depth is None
    assert TreeLearner(max_depth=3).max_leaves == 8
    assert TreeLearner(3, max_depth=3).max_leaves == 3
    for bad in ({"max_depth": 0}, {"max_depth": 1.5}, {"max_leaves": 1}):
        with pytest.raises(ValueError):
            TreeLearner(**bad)


def test_least_cost_leaves_minimise_summed_cost():
    """Brute force on a tiny set: the depth-1 cost tree is the stump and leaf labels of least total cost
    sum_i D(i, h(x_i)); each leaf's label is argmin_l of its summed cost rows."""
    rng = np.random.default_rng(3)
    X = np.arange(7.0)[:, None]
    D = rng.normal(size=(7, 3))
    stump = TreeLearner(max_depth=1).fit(BinnedData(X), D, LeastCost())
    best = min((D[:s, a].sum() + D[s:, b].sum(), s, a, b) for s in range(1, 7) for a in range(3) for b in range(3))
    h = stump.predict(X).argmax(1)
    assert stump.score == pytest.approx(best[0], rel=1e-12)
    np.testing.assert_array_equal(h, [best[2]] * best[1] + [best[3]] * (7 - best[1]))
    assert stump.score == pytest.approx(D[np.arange(7), h].sum(), rel=1e-12)
    S = np.array([[3.0, -1.0, -1.0], [0.0, 2.0, 1.0]])
    np.testing.assert_array_equal(LeastCost.value(S), [[0, 1, 0], [1, 0, 0]])  # ties: the lowest label
    np.testing.assert_array_equal(LeastCost.loss(S, LeastCost.value(S)), [-1.0, 0.0])


def test_gini_is_weighted_impurity():
    S = np.array([[2.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 3.0, 3.0]])
    np.testing.assert_allclose(Gini.loss(S), [4 * (1 - (0.25 + 1 / 16 + 1 / 16)), 0.0, 3.0])
    np.testing.assert_array_equal(Gini.value(S), [[1, 0, 0], [1, 0, 0], [0, 1, 0]])


def test_discrete_criterion_depth_limited():
    """Depth limits apply to {-1, +1} trees too: depth 2 has at most 4 leaves and scores no worse than a stump."""
    error = Discrete(lambda pos, neg: pos[:, 1] + neg[:, 0])
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=80) > 0, 1.0, -1.0)
    ch = class_channels(np.full(80, 1 / 80), y)
    stump = TreeLearner(max_depth=1).fit(BinnedData(X), ch, error)
    tree = TreeLearner(max_depth=2).fit(BinnedData(X), ch, error)
    assert len(stump.values) == 2 and len(tree.values) <= 4 and _leaf_depths(tree).max() <= 2
    assert tree.score <= stump.score + 1e-12
    np.testing.assert_allclose(tree.score, ch[:, 1][tree.predict(X) > 0].sum() + ch[:, 0][tree.predict(X) < 0].sum())
