"""REBEL's layer-wise trees: one by-node histogram per layer gives the trees of the per-leaf search, the Cython and
NumPy backends give the same trees, and the REBEL models they train agree, on data with sparse features."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.boosting.rebel import REBELClassifier
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete
from csrepro.weak.splits import discrete_scores, first_min, scan_node
from csrepro.weak.trees import RTOL
from csrepro.weak.vector import ExpVector, LayerTreeLearner

FIXED_A = Discrete(lambda pos, neg: pos[:, 0] + neg[:, 1])  # channels (loss if +1, loss if -1): the labels' losses


def per_leaf_tree(data, channels, depth):
    """The layer-wise tree searched leaf by leaf (one histogram of each leaf's rows, the shared scan of
    csrepro.weak.splits): (split rules per layer, final leaf of each row, leaf labels)."""
    crit = ExpVector()
    hist = data.histogram(channels)
    m = data.mapper
    best, best_j, best_b = np.inf, -1, -1
    for j in range(data.n_features):
        cum = np.cumsum(hist[m.offsets[j]:m.offsets[j] + m.n_bins[j]], axis=0)
        for b in range(m.n_bins[j] - 1):
            s = crit.score(cum[-1] - cum[b], cum[b])
            if s < best * (1 - 1e-12):
                best, best_j, best_b = s, j, b
    left = data.codes[:, best_j] <= best_b
    leaves = [(np.flatnonzero(left), -1.0), (np.flatnonzero(~left), 1.0)]
    rules = [[(best_j, best_b)]]
    a = crit.step(channels[~left].sum(0), channels[left].sum(0))
    for _ in range(depth - 1):
        fixed = np.column_stack([crit.fixed_channels(channels, a), np.ones(len(channels))])
        grown, layer = [], []
        for rows, label in leaves:
            scan = scan_node(data, data.histogram(fixed, rows), counted=True)
            scores = discrete_scores(scan, FIXED_A)
            c2 = first_min(scores)
            keep = fixed[rows, 0].sum() if label > 0 else fixed[rows, 1].sum()
            if not scores[c2] < keep - RTOL * abs(keep):
                grown.append((rows, label))
                layer.append(None)
                continue
            c, flip = divmod(c2, 2)
            _, feature, b = data.candidates
            j, b = int(feature[c]), int(b[c])
            goes_left = data.codes[rows, j] <= b
            lab = 1.0 if flip else -1.0
            grown += [(rows[goes_left], lab), (rows[~goes_left], -lab)]
            layer.append((j, b))
        leaves = grown
        rules.append(layer)
        values = np.array([lab for _, lab in leaves])
        sums = np.array([channels[rows].sum(0) for rows, _ in leaves])
        a = crit.step(sums[values > 0].sum(0), sums[values < 0].sum(0))
    leaf = np.empty(len(channels), dtype=np.intp)
    for i, (rows, _) in enumerate(leaves):
        leaf[rows] = i
    return rules, leaf, np.array([lab for _, lab in leaves])


def sparse_problem(seed, n=300, d=12, K=4):
    """Features mostly 0 (MNIST-like: read sparsely), a few dense ones; REBEL-like channels [w+ | w-]."""
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < rng.uniform(0.3, 0.95, d), 0.0, rng.uniform(0, 255, (n, d)))
    y = (X[:, :3].sum(1) > 150).astype(int) + 2 * (rng.random(n) < 0.3)
    w = rng.exponential(size=(n, K))
    onehot = np.eye(K)[y]
    return X, y, np.ascontiguousarray(np.hstack([w * (1 - onehot), w * onehot]))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("backend", BACKENDS)
def test_one_histogram_per_layer_grows_the_per_leaf_tree(seed, backend):
    X, _, channels = sparse_problem(seed)
    with use_backend(backend):
        data = BinnedData(X, 20, spacing="uniform")  # keeps the backend's kernels
    assert (data.layout.default >= 0).sum() > 0
    tree = LayerTreeLearner(4).fit(data, channels, ExpVector())
    rules, leaf, values = per_leaf_tree(data, channels, 4)
    assert_array_equal(tree.values[tree.apply(X)], values[leaf])
    internal = tree.feature[tree.feature >= 0]
    assert sorted(internal) == sorted(j for layer in rules for r in layer if r is not None for j in [r[0]])
    assert_allclose(tree.cell_sums, [channels[tree.apply(X) == c].sum(0) for c in range(len(tree.values))],
                    rtol=1e-12)


@pytest.mark.parametrize("depth", [2, 4])
def test_backends_grow_the_same_tree(depth):
    for seed in range(5):
        X, _, channels = sparse_problem(10 + seed)
        trees = []
        for b in BACKENDS:
            with use_backend(b):
                trees.append(LayerTreeLearner(depth).fit(BinnedData(X, 30, spacing="uniform"), channels, ExpVector()))
        for name in ("feature", "threshold", "left", "right", "leaf", "values", "cell_sums"):
            assert_array_equal(getattr(trees[0], name), getattr(trees[1], name), err_msg=name)
        assert trees[0].score == pytest.approx(trees[1].score, rel=1e-13)


@pytest.mark.parametrize("depth", [1, 4])
def test_rebel_backends_give_the_same_predictions_on_sparse_features(depth):
    X, y, _ = sparse_problem(20, n=400, d=20)
    fits = []
    for b in BACKENDS:
        with use_backend(b):
            fits.append(REBELClassifier(n_estimators=12, max_depth=depth, n_bins=50).fit(X, y))
    assert_allclose(fits[0].estimator_weights_, fits[1].estimator_weights_, rtol=1e-9)
    assert_array_equal(fits[0].predict(X), fits[1].predict(X))
    assert_allclose(fits[0].train_loss_, fits[1].train_loss_, rtol=1e-12)


@pytest.mark.parametrize("depth", [1, 2, 4])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n_bins", [20, 300])  # 300: more than 256 bins, int32 codes and NumPy routing
def test_training_cells_are_the_cells_of_the_raw_features(depth, backend, n_bins):
    """fit_cells' training-row cells (read off the bin codes while growing) are h.apply / the stump's side on X."""
    for seed in range(4):
        X, _, channels = sparse_problem(20 + seed, n=400)
        X[:, 5] = np.random.default_rng(seed).normal(size=len(X))  # a dense feature with many distinct values
        with use_backend(backend):
            h, cells = LayerTreeLearner(depth).fit_cells(BinnedData(X, n_bins, spacing="uniform"), channels,
                                                         ExpVector())
        want = h.apply(X) if depth > 1 else (X[:, h.feature] > h.threshold).astype(int)
        assert_array_equal(cells, want)
        assert_array_equal(h.values[cells], h.predict(X))
