"""CSB0-2, AdaC1-3, AdaCost, Platt baselines and the Ch. VI method ids: hand-computed steps, reductions, checks."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from csrepro import methods
from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.cost_sensitive_baselines import (
    AdaC1Classifier,
    AdaC2Classifier,
    AdaC3Classifier,
    AdaCostClassifier,
    CSB0Classifier,
    CSB1Classifier,
    CSB2Classifier,
)
from csrepro.probability.calibration import PlattCalibrated

BASELINES = [CSB0Classifier, CSB1Classifier, CSB2Classifier, AdaC1Classifier, AdaC2Classifier, AdaC3Classifier,
             AdaCostClassifier]


def _problem(n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.7 * rng.normal(size=n) > 0.3).astype(int)


def _first_step(cls, C1, C2, X, y):
    """(alpha_1 of the fit, the same from the paper's formula on h_1 and the initial distribution)."""
    m = cls(C1=C1, C2=C2, n_estimators=1).fit(X, y)
    ys = np.where(y == 1, 1.0, -1.0)
    ok = m.estimators_[0].predict(X) == ys
    cost = np.where(ys > 0, C1, C2)
    if cls in (AdaC1Classifier, AdaC2Classifier, AdaC3Classifier):
        c, D = cost / max(C1, C2), np.full(len(y), 1 / len(y))
        if cls is AdaC1Classifier:
            s = np.sum(np.where(ok, c, -c) * D)
            expect = 0.5 * np.log((1 + s) / (1 - s))
        elif cls is AdaC2Classifier:
            expect = 0.5 * np.log((c * D)[ok].sum() / (c * D)[~ok].sum())
        else:
            q = np.sum(np.where(ok, c * c, -c * c) * D)
            expect = 0.5 * np.log((np.sum(c * D) + q) / (np.sum(c * D) - q))
    elif cls is AdaCostClassifier:
        c = cost / (C1 + C2)
        D = c / c.sum()
        r = np.sum(D * np.where(ok, 0.5 * (1 - c), -0.5 * (1 + c)))
        expect = 0.5 * np.log((1 + r) / (1 - r))
    else:  # CSB: cost-proportional start, AdaBoost's alpha
        D = cost / cost.sum()
        err = D[~ok].sum()
        expect = 0.5 * np.log((1 - err) / err)
    return m.estimator_weights_[0], expect


@pytest.mark.parametrize("cls", BASELINES)
def test_first_step_is_the_papers_alpha(cls):
    X, y = _problem()
    got, expect = _first_step(cls, 3.0, 1.0, X, y)
    assert got == pytest.approx(expect, rel=1e-12)


def test_second_weights_follow_the_update_rules():
    """After one step of known alpha, the next weak learner is fitted on the paper's distribution."""
    X, y = _problem(seed=1)
    ys = np.where(y == 1, 1.0, -1.0)
    for cls, rule in [
        (CSB0Classifier, lambda w, c, ok, g: w * np.where(ok, 1.0, c)),
        (CSB1Classifier, lambda w, c, ok, g: w * np.where(ok, np.exp(-1.0), c * np.e)),
        (CSB2Classifier, lambda w, c, ok, g: c * w * np.exp(-ys * g)),
    ]:
        m = cls(C1=2.0, C2=1.0, n_estimators=2).fit(X, y)
        h = m.estimators_[0].predict(X)
        c = np.where(ys > 0, 2.0, 1.0)
        w = rule(c / c.sum(), c, h == ys, m.estimator_weights_[0] * h)
        w /= w.sum()
        h2 = m.estimators_[1].predict(X)
        err = w[h2 != ys].sum()  # the chosen second learner has the smallest error under w among stumps
        assert m.estimator_weights_[1] == pytest.approx(0.5 * np.log((1 - err) / err), rel=1e-10)


@pytest.mark.parametrize("cls", [CSB2Classifier, AdaC1Classifier, AdaC2Classifier, AdaC3Classifier])
def test_equal_costs_reduce_to_adaboost(cls):
    X, y = _problem(seed=2)
    a = cls(C1=1.0, C2=1.0, n_estimators=10).fit(X, y).decision_function(X)
    np.testing.assert_allclose(a, AdaBoostClassifier(n_estimators=10).fit(X, y).decision_function(X), rtol=1e-10,
                               atol=1e-10)



def test_platt_threshold_is_the_cost_sensitive_bayes_rule():
    X, y = _problem(seed=3)
    m = PlattCalibrated(AdaBoostClassifier(n_estimators=10), C1=3.0, C2=1.0).fit(X, y)
    p = m.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(m.predict(X) == 1, p > 0.25)


def test_method_ids_build_and_fit():
    X, y = _problem(seed=4)
    for name in ("cs_adaboost", "csb2", "adacost", "realboost_platt", "svm_linear_platt", "rforest_platt"):
        est = methods.make_estimator(name, cost_matrix=np.array([[0.0, 1.0], [2.0, 0.0]]), random_state=0)
        assert set(np.unique(est.fit(X, y).predict(X))) <= {0, 1}
    dr = methods.make_estimator("cs_realboost_dr", random_state=5, target_detection_rate=0.9,
                                param_grid={"C1": [1.0, 4.0]}, n_estimators=5)
    assert dr.fit(X, y).cv_detection_rate_ >= 0.9 and dr.best_params_["C1"] in (1.0, 4.0)


def test_adacost_without_a_first_step_warns_and_is_constant():
    """At equal costs c = 1/2, so r = 1/4 (1 - err) - 3/4 err = 1/4 - err: when every stump errs on more than a
    quarter of the (uniform) weight, AdaCost stops before its first learner, with a warning."""
    X = np.linspace(-1, 1, 40)[:, None]
    y = (X[:, 0] > 0).astype(int)
    y[::3] ^= 1  # 14 of 40 labels flipped
    errors = [np.mean((X[:, 0] > t) != y) for t in np.r_[-2, X[:, 0]]]
    assert min(min(errors), 1 - max(errors)) > 0.25  # every stump, either way round, by brute force
    with pytest.warns(ConvergenceWarning, match="AdaCostClassifier stopped before its first weak learner: r <= 0"):
        m = AdaCostClassifier(C1=1.0, C2=1.0, n_estimators=5).fit(X, y)
    assert m.n_estimators_ == 0
    assert np.all(m.decision_function(X) == 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        separable = AdaCostClassifier(C1=1.0, C2=1.0, n_estimators=5).fit(X, (X[:, 0] > 0).astype(int))
    assert separable.n_estimators_ >= 1


def test_adacost_excess_cost_scale_by_hand():
    """cost_scale="excess": c = 1 - min(C1, C2)/cost (0 on the cheaper class), the start still proportional to the
    costs; the first alpha is Fan et al.'s formula with those c; with equal costs r = 1/2 - err, so the noisy line
    of the test above (every stump errs on more than 1/4) now fits."""
    X, y = _problem()
    m = AdaCostClassifier(C1=3.0, C2=1.0, n_estimators=1, cost_scale="excess").fit(X, y)
    ys = np.where(y == 1, 1.0, -1.0)
    ok = m.estimators_[0].predict(X) == ys
    cost = np.where(ys > 0, 3.0, 1.0)
    c, D = np.where(ys > 0, 2.0 / 3.0, 0.0), cost / cost.sum()
    r = np.sum(D * np.where(ok, 0.5 * (1 - c), -0.5 * (1 + c)))
    assert m.estimator_weights_[0] == pytest.approx(0.5 * np.log((1 + r) / (1 - r)), rel=1e-12)
    X1 = np.linspace(-1, 1, 40)[:, None]
    y1 = (X1[:, 0] > 0).astype(int)
    y1[::3] ^= 1
    equal = AdaCostClassifier(C1=1.0, C2=1.0, n_estimators=1, cost_scale="excess").fit(X1, y1)
    err = np.mean(equal.estimators_[0].predict(X1) != np.where(y1 == 1, 1.0, -1.0))
    r = 0.5 - err
    assert equal.estimator_weights_[0] == pytest.approx(0.5 * np.log((1 + r) / (1 - r)), rel=1e-12)
