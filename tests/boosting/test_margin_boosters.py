"""Canonical GradientBoost (Alg. 1), SavageBoost (Alg. 2), TangentBoost (Alg. 3): hand cases, weights, sklearn API."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from csrepro.boosting.margin import (
    CANONICAL_GRADIENTBOOST_LOSSES,
    CanonicalGradientBoostClassifier,
    SavageBoostClassifier,
    TangentBoostClassifier,
)
from csrepro.methods import get_method, make_estimator
from csrepro.weak.histograms import HistogramLearner
from csrepro.weak.lines import LineLearner

TINY_X = np.array([[0.0], [1.0], [2.0], [3.0]])
TINY_Y = np.array([0, 0, 1, 1])
LOG3 = np.log(3.0)


class Spy:
    """A weak learner recording the per-sample weights (channel row sums of class/WLS channels) it is given."""

    def __init__(self, inner, wls=False):
        self.inner, self.wls, self.weights = inner, wls, []

    def fit(self, data, channels, criterion):
        self.weights.append(channels[:, 0].copy() if self.wls else channels.sum(axis=1))
        return self.inner.fit(data, channels, criterion)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[::3], y[::3]


def _diagonal_toy(n=120, seed=0):
    """Separable by x1 + x2 = 0 with a gap, but by no single axis-aligned split."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(4 * n, 2))
    s = X.sum(axis=1)
    keep = np.abs(s) > 0.2
    return X[keep][:n], (s[keep][:n] > 0).astype(int)


# ------------------------------------------------------------------ hand-computed iterations


@pytest.mark.parametrize("m", [1, 2, 3])
def test_canonical_gradientboost_hand_iterations(m):
    """Weights 1 - [f*]^{-1}(0) = 1/2 (III.57); bins {0,1},{2,3}: W+ = 0, W- = 1, e = 1/2, P_w = 1/4,
    step 1/2 log(1/3); by symmetry every later step is the same, so F = -+ m/2 log 3."""
    clf = CanonicalGradientBoostClassifier(n_estimators=m, hist_bins=2).fit(TINY_X, TINY_Y)
    np.testing.assert_allclose(clf.decision_function(TINY_X), m / 2 * LOG3 * np.array([-1, -1, 1, 1]))
    np.testing.assert_allclose(clf.predict_proba(TINY_X)[:, 1], 1 / (1 + np.exp(-clf.decision_function(TINY_X))))
    link = CanonicalGradientBoostClassifier(a=2.0, output="link", n_estimators=m, hist_bins=2).fit(TINY_X, TINY_Y)
    # output f*(P_w) = logit(1/4) / a
    np.testing.assert_allclose(link.decision_function(TINY_X), m * LOG3 / 2.0 * np.array([-1, -1, 1, 1]))


def test_canonical_laplacian_hand_iteration():
    clf = CanonicalGradientBoostClassifier(loss="canonical_laplacian", a=2.0, output="link", n_estimators=1,
                                           hist_bins=2).fit(TINY_X, TINY_Y)
    # f*(1/4) = -a sign(-1/2) log(1 - 1/2) = 2 log(1/2)   (III.46)
    np.testing.assert_allclose(clf.decision_function(TINY_X), 2 * np.log(0.5) * np.array([1, 1, -1, -1]))


def test_savageboost_hand_iterations():
    """Weights -phi'(0) = 4 (1/2)^2 (1/2) = 1/2; step (IV.18) 1/2 log(1/3); then -phi'(1/2 log 3) = 3/16 for all."""
    spy = Spy(HistogramLearner(2))
    clf = SavageBoostClassifier(n_estimators=2, weak_learner=spy).fit(TINY_X, TINY_Y)
    np.testing.assert_allclose(spy.weights[0], 0.5)
    np.testing.assert_allclose(spy.weights[1], 3 / 16)
    np.testing.assert_allclose(clf.decision_function(TINY_X), LOG3 * np.array([-1, -1, 1, 1]))
    np.testing.assert_allclose(clf.predict_proba(TINY_X)[:, 1], 1 / (1 + np.exp(-2 * clf.decision_function(TINY_X))))


def test_tangentboost_hand_iterations():
    """Iteration 1: eta = 1/2, w = 1/4, z = +-1/2 (IV.37)-(IV.38): WLS line z = 0.4 x - 0.6.
    Iteration 2: eta = 1/2 + arctan F clipped, so x = 0 and 3 (|F| = 0.6 > tan 1/2) get weight 0 and
    the line passes through (1, -eta_1 (1 + F_1^2)) and (2, (1 - eta_2)(1 + F_2^2))."""
    one = TangentBoostClassifier(n_estimators=1).fit(TINY_X, TINY_Y)
    F1 = np.array([-0.6, -0.2, 0.2, 0.6])
    np.testing.assert_allclose(one.decision_function(TINY_X), F1, atol=1e-12)
    spy = Spy(LineLearner(), wls=True)
    two = TangentBoostClassifier(n_estimators=2, weak_learner=spy).fit(TINY_X, TINY_Y)
    eta = np.clip(0.5 + np.arctan(F1), 0, 1)
    np.testing.assert_allclose(spy.weights[1], eta * (1 - eta), atol=1e-15)
    assert spy.weights[1][0] == 0 and spy.weights[1][3] == 0
    z1, z2 = -eta[1] * (1 + F1[1] ** 2), (1 - eta[2]) * (1 + F1[2] ** 2)
    slope = z2 - z1
    expected = F1 + slope * TINY_X[:, 0] + (z1 - slope)
    np.testing.assert_allclose(two.decision_function(TINY_X), expected, atol=1e-12)


# ------------------------------------------------------------------ weights


def test_canonical_logistic_a1_has_logitboost_weights(cancer):
    """(III.57) with a = 1: w = 1 - 1/(1 + e^{-yF}) = 1/(1 + e^{yF}) at every iteration."""
    X, y = cancer
    spy = Spy(HistogramLearner(8))
    clf = CanonicalGradientBoostClassifier(n_estimators=6, weak_learner=spy).fit(X, y)
    ypm = np.where(y == clf.classes_[1], 1.0, -1.0)
    previous = [np.zeros(len(y))] + list(clf.staged_decision_function(X))[:-1]
    for w, F in zip(spy.weights, previous):
        np.testing.assert_allclose(w, 1 / (1 + np.exp(ypm * F)), rtol=1e-12)


@pytest.mark.parametrize("loss", CANONICAL_GRADIENTBOOST_LOSSES)
def test_canonical_weights_are_one_minus_inverse_link(cancer, loss):
    X, y = cancer
    spy = Spy(HistogramLearner(8))
    clf = CanonicalGradientBoostClassifier(loss=loss, n_estimators=4, weak_learner=spy).fit(X, y)
    ypm = np.where(y == clf.classes_[1], 1.0, -1.0)
    F = list(clf.staged_decision_function(X))[-2]
    np.testing.assert_allclose(spy.weights[-1], 1 - clf.loss_.inverse_link(ypm * F), rtol=1e-12)
    np.testing.assert_allclose(spy.weights[-1], clf.loss_.weight(ypm * F), rtol=1e-9, atol=1e-15)  # (III.56)


def test_savage_weights_are_bounded_and_ignore_outliers():
    """w = -phi'(yF) <= max_s 4 s^2 (1 - s) = 16/27; a far mislabeled point ends with a vanishing weight."""
    X, y = _diagonal_toy()
    X = np.vstack([X, [[0.9, 0.9]]])
    y = np.r_[y, 0]  # an outlier deep in the positive region
    spy = Spy(HistogramLearner(8))
    clf = SavageBoostClassifier(n_estimators=20, weak_learner=spy).fit(X, y)
    W = np.array(spy.weights)
    assert W.max() <= 16 / 27 + 1e-12 and W.min() >= 0
    ypm = np.where(y == 1, 1.0, -1.0)
    F = clf.decision_function(X)
    np.testing.assert_allclose(W[-1], clf.loss_.weight(ypm * list(clf.staged_decision_function(X))[-2]))
    assert ypm[-1] * F[-1] < -1 and W[-1, -1] < 0.05 * W[-1].max()
    exp_spy = Spy(HistogramLearner(8))
    SavageBoostClassifier(n_estimators=20, weak_learner=exp_spy, weighting="exponential").fit(X, y)
    assert exp_spy.weights[-1][-1] == pytest.approx(1.0)  # e^{-v}: the outlier has the largest weight


@pytest.mark.parametrize("weights", ["thesis", "gauss_newton"])
def test_tangent_weights(cancer, weights):
    X, y = cancer
    X = StandardScaler().fit_transform(X)
    spy = Spy(LineLearner(), wls=True)
    clf = TangentBoostClassifier(n_estimators=5, weights=weights, weak_learner=spy).fit(X, y)
    F = list(clf.staged_decision_function(X))[-2]
    eta = np.clip(0.5 + np.arctan(F), 0, 1)
    expected = eta * (1 - eta) if weights == "thesis" else 1 / (1 + F * F) ** 2
    np.testing.assert_allclose(spy.weights[-1], expected, rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------ behaviour


@pytest.mark.parametrize("clf", [CanonicalGradientBoostClassifier(n_estimators=40),
                                 CanonicalGradientBoostClassifier(loss="canonical_gaussian", a=2.0, n_estimators=40),
                                 SavageBoostClassifier(n_estimators=40),
                                 TangentBoostClassifier(n_estimators=40),
                                 TangentBoostClassifier(n_estimators=40, weights="gauss_newton")],
                         ids=["canonical_logistic", "canonical_gaussian", "savage", "tangent", "tangent_gn"])
def test_training_error_decreases_on_separable_toy(clf):
    X, y = _diagonal_toy()
    clf.fit(X, y)
    errors = [np.mean(p != y) for p in clf.staged_predict(X)]
    assert errors[-1] < errors[0] and errors[-1] <= 0.05


def test_link_output_makes_the_margin_parameter_inert(cancer):
    """Scale families: with output = f*(P_w), F scales as 1/a and predictions are unchanged (see the docstring)."""
    X, y = cancer
    a1 = CanonicalGradientBoostClassifier(output="link", n_estimators=10).fit(X, y)
    a3 = CanonicalGradientBoostClassifier(a=3.0, output="link", n_estimators=10).fit(X, y)
    np.testing.assert_allclose(3.0 * a3.decision_function(X), a1.decision_function(X), rtol=1e-9)
    r1 = CanonicalGradientBoostClassifier(n_estimators=10).fit(X, y)
    r3 = CanonicalGradientBoostClassifier(a=3.0, n_estimators=10).fit(X, y)
    assert np.any(np.sign(r1.decision_function(X)) != np.sign(r3.decision_function(X))) or \
        not np.allclose(3.0 * r3.decision_function(X), r1.decision_function(X))


@pytest.mark.parametrize("loss, scale", [("canonical_logistic", lambda a: a), ("canonical_gaussian", lambda a: 1 / a)])
def test_line_search_makes_the_margin_parameter_inert(cancer, loss, scale):
    """Scale families: the line search absorbs a, so G = aF (logistic) or F/a (Gaussian) is the same for every a."""
    X, y = cancer
    G = [scale(a) * CanonicalGradientBoostClassifier(loss=loss, a=a, step="line_search", n_estimators=8)
         .fit(X, y).decision_function(X) for a in (0.5, 1.0, 4.0)]
    np.testing.assert_allclose(G[0], G[1], rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(G[2], G[1], rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("loss", ["canonical_logistic", "canonical_boosting", "canonical_laplacian"])
def test_line_search_lowers_the_empirical_risk_every_step(cancer, loss):
    """rho minimises (III.53) along each weak learner, so the risk never rises, even where unit steps diverge."""
    X, y = cancer
    clf = CanonicalGradientBoostClassifier(loss=loss, a=8.0 if loss != "canonical_laplacian" else 0.1,
                                           step="line_search", n_estimators=15).fit(X, y)
    ys = np.where(y == clf.classes_[1], 1.0, -1.0)
    risks = [clf.loss_.value(ys * F).sum() for F in clf.staged_decision_function(X)]
    assert np.all(np.diff(risks) <= 1e-9 * risks[0])
    unit = CanonicalGradientBoostClassifier(loss=loss, a=clf.a, n_estimators=15).fit(X, y)
    assert clf.score(X, y) >= unit.score(X, y)


@pytest.mark.parametrize("clf", [CanonicalGradientBoostClassifier(loss="canonical_boosting", a=0.5, n_estimators=5),
                                 SavageBoostClassifier(n_estimators=5), TangentBoostClassifier(n_estimators=5)])
def test_predict_proba_is_the_inverse_link(cancer, clf):
    X, y = cancer
    clf.fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P[:, 1], clf.loss_.inverse_link(clf.decision_function(X)))
    assert np.all((P >= 0) & (P <= 1))


# ------------------------------------------------------------------ sklearn API and registry



def test_clone_pipeline_and_gridsearch_over_a(cancer):
    X, y = cancer
    clf = CanonicalGradientBoostClassifier(loss="canonical_laplacian", a=2.0, n_estimators=8)
    assert clone(clf).get_params() == clf.get_params()
    grid = GridSearchCV(make_pipeline(StandardScaler(), clf), {"canonicalgradientboostclassifier__a": [0.5, 2.0, 8.0]},
                        cv=3).fit(X, y)
    assert grid.best_params_["canonicalgradientboostclassifier__a"] in (0.5, 2.0, 8.0)
    assert grid.score(X, y) > 0.85


def test_bad_parameters_name_the_fix(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="'loss' parameter of CanonicalGradientBoostClassifier.*canonical_laplacian"):
        CanonicalGradientBoostClassifier(loss="exponential").fit(X, y)
    with pytest.raises(ValueError, match="no margin parameter"):
        CanonicalGradientBoostClassifier(loss="logistic", a=2.0).fit(X, y)
    with pytest.raises(ValueError, match="'step' parameter.*line_search.*Got 'x'"):
        CanonicalGradientBoostClassifier(step="x").fit(X, y)
    with pytest.raises(ValueError, match="'output' parameter.*realboost.*Got 'x'"):
        CanonicalGradientBoostClassifier(output="x").fit(X, y)
    with pytest.raises(ValueError, match="'weighting' parameter.*gradient.*Got 'x'"):
        SavageBoostClassifier(weighting="x").fit(X, y)
    with pytest.raises(ValueError, match="'weights' parameter.*gauss_newton.*Got 'x'"):
        TangentBoostClassifier(weights="x").fit(X, y)
    with pytest.raises(ValueError, match="'weak_learner' parameter of SavageBoostClassifier.*Got 'line'"):
        SavageBoostClassifier(weak_learner="line").fit(X, y)


def test_method_ids():
    clf = make_estimator("canonical_gradientboost", loss="canonical_gaussian", a=4.0, n_estimators=7)
    assert isinstance(clf, CanonicalGradientBoostClassifier) and (clf.loss, clf.a, clf.n_estimators) == \
        ("canonical_gaussian", 4.0, 7)
    assert isinstance(make_estimator("savageboost", random_state=0), SavageBoostClassifier)
    assert isinstance(make_estimator("tangentboost", weak_learner="stump"), TangentBoostClassifier)
    for name in ("canonical_gradientboost", "savageboost", "tangentboost"):
        assert not get_method(name).cost_sensitive
