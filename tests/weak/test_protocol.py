"""Every weak learner of csrepro.weak follows the protocol of csrepro.weak.base; cells may hold K-vectors."""

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import csrepro.weak
from csrepro._kernels import linear_scan, linear_scan_ref
from csrepro._kernels.backend import BACKENDS, use_backend
from csrepro.weak.base import WeakHypothesis, WeakLearner
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import (
    Cells,
    Discrete,
    LeastSquares,
    SignRegression,
    class_channels,
    posterior_cells,
    wls_channels,
)
from csrepro.weak.histograms import HistogramLearner
from csrepro.weak.lines import LineLearner
from csrepro.weak.stumps import StumpLearner
from csrepro.weak.trees import TreeLearner
from csrepro.weak.vector import ExpVector, LayerTreeLearner, VectorStumpLearner

WEIGHTED_ERROR = Discrete(lambda pos, neg: pos[:, 1] + neg[:, 0])


def _learner_classes():
    """Every class named *Learner defined in a module of csrepro.weak."""
    found = set()
    for info in pkgutil.iter_modules(csrepro.weak.__path__):
        module = importlib.import_module(f"csrepro.weak.{info.name}")
        found |= {c for name, c in vars(module).items()
                  if inspect.isclass(c) and name.endswith("Learner") and c.__module__ == module.__name__
                  and c is not WeakLearner}
    return sorted(found, key=lambda c: c.__name__)


def _problem(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).round(1)
    y = np.where(X[:, 1] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    w = rng.uniform(0.1, 1.0, n)
    return X, y, w / w.sum()


def _fits(learner_class, X, y, w):
    """(channels, criterion) pairs the learner can fit, and the criteria it must refuse with TypeError."""
    ch, wls = class_channels(w, y), wls_channels(w, y)
    real = posterior_cells(lambda p, q: 0.5 * np.log(p / q), lambda p, q, f: p * np.exp(-f) + q * np.exp(f), ch)
    table = {
        StumpLearner: ([(ch, WEIGHTED_ERROR), (wls, LeastSquares()), (ch, real)], [SignRegression()]),
        TreeLearner: ([(ch, WEIGHTED_ERROR), (wls, LeastSquares()), (ch, real)], [SignRegression()]),
        HistogramLearner: ([(ch, real), (wls, LeastSquares())], [WEIGHTED_ERROR, SignRegression()]),
        LineLearner: ([(wls, LeastSquares()), (w[:, None] * -y[:, None], SignRegression())], [WEIGHTED_ERROR, real]),
        VectorStumpLearner: ([(np.c_[ch, ch[:, ::-1]], ExpVector())], [WEIGHTED_ERROR, SignRegression(), real]),
        LayerTreeLearner: ([(np.c_[ch, ch[:, ::-1]], ExpVector())], [WEIGHTED_ERROR, SignRegression(), real]),
    }
    assert learner_class in table, f"{learner_class.__name__}: add it to this protocol test"
    return table[learner_class]


LEARNERS = _learner_classes()


def test_learners_are_found():
    assert {c.__name__ for c in LEARNERS} == {"HistogramLearner", "LayerTreeLearner", "LineLearner", "StumpLearner",
                                              "TreeLearner", "VectorStumpLearner"}


@pytest.mark.parametrize("learner_class", LEARNERS, ids=lambda c: c.__name__)
def test_every_learner_follows_the_protocol(learner_class):
    X, y, w = _problem()
    learner = learner_class()
    assert isinstance(learner, WeakLearner)
    assert list(inspect.signature(learner.fit).parameters) == ["data", "channels", "criterion"]
    good, refused = _fits(learner_class, X, y, w)
    data, Xnew = BinnedData(X), np.random.default_rng(1).normal(size=(7, 3))
    for channels, criterion in good:
        h = learner.fit(data, channels, criterion)
        assert isinstance(h, WeakHypothesis)
        assert h.predict(Xnew).shape == (7,) and h.predict(X).shape == (len(X),)
        assert np.isfinite(h.score)
    for criterion in refused:
        with pytest.raises(TypeError):
            learner.fit(data, good[0][0], criterion)


@pytest.mark.parametrize("learner_class", LEARNERS, ids=lambda c: c.__name__)
def test_none_when_nothing_can_be_fitted(learner_class):
    """Stumps and trees: every feature constant; lines: all weights zero; histograms always fit (one bin)."""
    X, y, w = _problem()
    good, _ = _fits(learner_class, X, y, w)
    learner = learner_class()
    if learner_class is LineLearner:
        for channels, criterion in good:
            assert learner.fit(BinnedData(X), np.zeros_like(channels), criterion) is None
        return
    constant = BinnedData(np.ones_like(X))
    for channels, criterion in good:
        h = learner.fit(constant, channels, criterion)
        if learner_class is HistogramLearner:
            assert np.ptp(h.predict(X)) == 0.0  # one bin per feature: a constant output
        else:
            assert h is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_sign_regression_is_mcboosts_scan_and_never_bins(backend):
    """MCBoost's eq. 30 through the protocol: the kernel's (j, a, b, derivative), which are also the
    LeastSquares line on wls_channels(|w|, -sign(w)) (same maths, other arithmetic)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 5)) * rng.uniform(0.5, 3, 5)
    w = rng.normal(size=80)
    with use_backend(backend):
        data = BinnedData(X)
    assert data.backend == backend  # kept: the fits below, outside the block, still run its kernels
    g = LineLearner().fit(data, w[:, None], SignRegression())
    j, a, b, dd = {"cython": linear_scan, "numpy": linear_scan_ref}[backend].wls_scan(data.X, w)
    assert (g.feature, g.a, g.b, g.score) == (j, a, b, dd)
    assert "_binned" not in vars(data)
    ls = LineLearner().fit(BinnedData(X), wls_channels(np.abs(w), -np.sign(w)), LeastSquares())
    assert ls.feature == g.feature
    np.testing.assert_allclose([ls.a, ls.b, ls.score], [g.a, g.b, g.score], rtol=1e-9)
    np.testing.assert_allclose(g.score, np.sum(w * g.predict(X)), rtol=1e-9)  # the directional derivative (27)
    assert LineLearner().fit(data, np.zeros((80, 1)), SignRegression()) is None
    with pytest.raises(ValueError, match="one channel"):
        LineLearner().fit(data, np.c_[w, w], SignRegression())


def _gini():
    """Toy K-vector criterion on K = 3 class-weight channels: a cell outputs its class proportions
    (a 3-vector); its loss is the weighted Gini impurity sum_k S_k (1 - p_k)."""

    def value(S):
        total = S.sum(-1, keepdims=True)
        return np.divide(S, total, out=np.full(S.shape, 1 / 3), where=total > 0)

    return Cells(value, lambda S, p: (S * (1.0 - p)).sum(-1))


def test_cells_holding_k_vectors():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 2)).round(1)
    label = np.digitize(X[:, 0] + 0.3 * rng.normal(size=60), [-0.5, 0.5])  # 3 classes along feature 0
    w = rng.uniform(0.5, 1.5, 60)
    channels = np.zeros((60, 3))
    channels[np.arange(60), label] = w
    data, crit = BinnedData(X), _gini()

    h = StumpLearner().fit(data, channels, crit)
    assert h.values.shape == (2, 3) and h.predict(X).shape == (60, 3)
    left = X[:, h.feature] <= h.threshold
    for side, rows in ((0, left), (1, ~left)):  # each cell holds its class proportions
        np.testing.assert_allclose(h.values[side], np.bincount(label[rows], w[rows], 3) / w[rows].sum())
        np.testing.assert_array_equal(h.predict(X)[rows], np.tile(h.values[side], (rows.sum(), 1)))
    best = min(  # brute force over every split
        sum(float(crit.loss(S, crit.value(S))) for S in (channels[s].sum(0), channels[~s].sum(0)))
        for j in range(2) for t in np.unique(X[:, j])[:-1] for s in [X[:, j] <= t])
    assert h.score == pytest.approx(best, rel=1e-12)

    tree = TreeLearner(4).fit(data, channels, crit)
    assert tree.values.shape[1] == 3 and tree.predict(X).shape == (60, 3)
    assert tree.score <= h.score + 1e-12
    hist = HistogramLearner(4).fit(data, channels, crit)
    assert hist.values.shape[1] == 3 and hist.predict(X).shape == (60, 3)
