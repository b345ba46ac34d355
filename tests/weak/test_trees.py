"""Four-leaf trees against a brute-force best-first search on raw features (no bins, no histograms)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import (
    Discrete,
    LeastSquares,
    class_channels,
    posterior_cells,
    wls_channels,
)
from csrepro.weak.trees import TreeLearner

WEIGHTED_ERROR = Discrete(lambda pos, neg: pos[:, 1] + neg[:, 0])


def _score(leaves, labels, ch, crit):
    """Criterion of a tree given as (row sets, labels) -- labels ignored for Cells criteria."""
    sums = np.array([ch[r].sum(0) for r in leaves])
    if isinstance(crit, Discrete):
        lab = np.array(labels)
        return float(crit.score(sums[lab > 0].sum(0)[None], sums[lab < 0].sum(0)[None])[0])
    return float(crit.loss(sums, crit.value(sums)).sum())


def brute_force_tree(X, ch, crit, max_leaves):
    """Best-first growth by enumerating every leaf, feature, distinct-value threshold (and labelling)."""
    leaves, labels = [np.arange(len(X))], [0.0]
    current = np.inf
    while len(leaves) < max_leaves:
        best = None
        for i, rows in enumerate(leaves):
            for j in range(X.shape[1]):
                for t in np.unique(X[rows, j])[:-1]:
                    kids = [rows[X[rows, j] <= t], rows[X[rows, j] > t]]
                    pairs = [(-1.0, 1.0), (1.0, -1.0)] if isinstance(crit, Discrete) else [(0.0, 0.0)]
                    for pair in pairs:
                        cand = leaves[:i] + kids + leaves[i + 1:]
                        lab = labels[:i] + list(pair) + labels[i + 1:]
                        s = _score(cand, lab, ch, crit)
                        if best is None or s < best[0] - 1e-12:
                            best = (s, cand, lab)
        if best is None or not best[0] < current - 1e-12:
            break
        current, leaves, labels = best
    return current, leaves, labels


def _predictions(leaves, values, n):
    out = np.empty(n)
    for r, v in zip(leaves, values):
        out[r] = v
    return out


@st.composite
def problems(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d = draw(st.integers(6, 16)), draw(st.integers(1, 3))
    X = rng.integers(0, 5, (n, d)).astype(float)  # repeated values: thresholds between distinct values only
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, y, rng.uniform(0.1, 1.0, n), rng.normal(size=n)


@settings(max_examples=150, deadline=None)
@given(problems(), st.sampled_from(["error", "sse", "real"]), st.integers(2, 4))
def test_tree_equals_brute_force(problem, kind, max_leaves):
    X, y, w, z = problem
    ch = wls_channels(w, z) if kind == "sse" else class_channels(w, y)
    crit = {"error": WEIGHTED_ERROR, "sse": LeastSquares(),
            "real": posterior_cells(lambda p, q: 0.5 * np.log(p / q), lambda p, q, f: p * np.exp(-f) + q * np.exp(f),
                                    ch)}[kind]
    tree = TreeLearner(max_leaves).fit(BinnedData(X), ch, crit)
    if len(np.unique(X, axis=0)) == 1 or all(len(np.unique(c)) == 1 for c in X.T):
        assert tree is None
        return
    score, leaves, labels = brute_force_tree(X, ch, crit, max_leaves)
    assert tree.score == pytest.approx(score, rel=1e-9, abs=1e-12)
    assert len(tree.values) == len(leaves)
    if kind == "error":
        want = _predictions(leaves, labels, len(X))
    else:
        sums = np.array([ch[r].sum(0) for r in leaves])
        want = _predictions(leaves, crit.value(sums), len(X))
    if len(np.unique(np.round(want, 12))) == len(leaves):  # partition identifiable from the outputs
        np.testing.assert_allclose(tree.predict(X), want, rtol=1e-9)


def test_four_leaves_hand_case():
    """XOR-like quadrants: three splits recover the four cells; weighted SSE of the fit is 0."""
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 3, float)
    z = np.array([1.0, -1.0, -2.0, 2.0] * 3)
    tree = TreeLearner(4).fit(BinnedData(X), wls_channels(np.ones(12), z), LeastSquares())
    np.testing.assert_allclose(tree.predict(X), z)
    assert len(tree.values) == 4 and tree.score == pytest.approx(-np.sum(z * z))
    np.testing.assert_array_equal(np.bincount(tree.apply(X)), [3, 3, 3, 3])


def test_tree_stops_when_no_split_helps():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([-1, -1, 1, 1.0])
    tree = TreeLearner(4).fit(BinnedData(X), class_channels(np.full(4, 0.25), y), WEIGHTED_ERROR)
    assert len(tree.values) == 2 and tree.score == 0.0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_apply_walks_each_row_down_the_tree(seed, n_splits):
    """Tree.apply (a table of bit patterns up to 8 splits, node by node beyond) sends each row where a walk from
    the root does, NaN features included (x <= t false: right)."""
    from csrepro.weak.trees import Tree

    rng = np.random.default_rng(seed)
    feature, threshold, left, right = [-1], [np.nan], [-1], [-1]
    for _ in range(n_splits):  # split a random leaf; children get the next ids
        v = int(rng.choice([u for u in range(len(feature)) if feature[u] < 0]))
        feature[v], threshold[v], left[v], right[v] = int(rng.integers(0, 3)), float(rng.normal()), len(feature), \
            len(feature) + 1
        feature, threshold, left, right = feature + [-1, -1], threshold + [np.nan] * 2, left + [-1, -1], right + [-1, -1]
    leaf = np.full(len(feature), -1)
    leaf[np.array(feature) < 0] = rng.permutation(n_splits + 1)
    tree = Tree(np.array(feature), np.array(threshold), np.array(left), np.array(right), leaf,
                np.arange(n_splits + 1.0), np.zeros((n_splits + 1, 2)), 0.0)
    X = rng.normal(size=(200, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    want = []
    for x in X:
        v = 0
        while feature[v] >= 0:
            v = left[v] if x[feature[v]] <= threshold[v] else right[v]
        want.append(leaf[v])
    np.testing.assert_array_equal(tree.apply(X), want)


@settings(max_examples=80, deadline=None)
@given(problems(), st.sampled_from(["error", "error_form", "sse", "gini"]), st.integers(2, 6),
       st.sampled_from([None, 2]))
def test_fit_predict_is_fit_then_predict(problem, kind, max_leaves, max_depth):
    """fit_predict's tree is fit's (every node and cell, bit for bit) and its outputs are tree.predict(X), (n, K)
    vector cells included; a tree that stops early (or at the root) too."""
    from csrepro.weak.criteria import Gini, error_criterion, label_channels

    X, y, w, z = problem
    ch = {"sse": wls_channels(w, z), "gini": label_channels(w, (y > 0).astype(int), 2)}.get(kind, class_channels(w, y))
    crit = {"error": WEIGHTED_ERROR, "error_form": error_criterion(lambda b, d: d + b), "sse": LeastSquares(),
            "gini": Gini()}[kind]
    learner, data = TreeLearner(max_leaves, max_depth), BinnedData(X)
    tree, hx = learner.fit_predict(data, ch, crit)
    want = learner.fit(data, ch, crit)
    if want is None:
        assert tree is None and hx is None
        return
    for attr in ("feature", "threshold", "left", "right", "leaf", "values", "cell_sums", "score"):
        np.testing.assert_array_equal(getattr(tree, attr), getattr(want, attr))
    np.testing.assert_array_equal(hx, want.predict(X))
