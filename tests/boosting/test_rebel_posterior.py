"""REBEL's posterior for 0-1-trained models and the Bayes-rule wrapper (the Fig. 3 standard approach)."""

import numpy as np
import pytest
from sklearn.datasets import load_wine

from csrepro import methods
from csrepro.boosting.rebel import REBELClassifier
from csrepro.decision.bayes_rule import BayesRuleClassifier
from csrepro.costs import rebel_random
from csrepro.decision.rules import decide
from csrepro.data.synthetic import rebel_mixture_2d


def _data(seed=0):
    X, y, mask = rebel_mixture_2d(n_train=600, n_test=300, random_state=seed)
    return X[~mask], y[~mask], X[mask], y[mask]


def test_posterior_is_normalised_sigmoid_of_2h_and_argmax_is_predict():
    X, y, Xt, _ = _data()
    m = REBELClassifier(n_estimators=30).fit(X, y)
    P = m.predict_proba(Xt)
    H = m.decision_function(Xt)
    S = 1.0 / (1.0 + np.exp(-2.0 * H))
    np.testing.assert_allclose(P, S / S.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(m.classes_[P.argmax(axis=1)], m.predict(Xt))
    staged = list(m.staged_predict_proba(Xt))
    assert len(staged) == 30
    np.testing.assert_allclose(staged[-1], P)


def test_posterior_minimises_the_per_class_population_loss():
    # (1 - p) e^H + p e^{-H} is minimal at H = 1/2 ln(p / (1 - p)), so sigmoid(2 H) recovers p
    p = np.linspace(0.05, 0.95, 19)
    grid = np.linspace(-3, 3, 600001)
    H = np.array([grid[np.argmin((1 - q) * np.exp(grid) + q * np.exp(-grid))] for q in p])
    np.testing.assert_allclose(1 / (1 + np.exp(-2 * H)), p, atol=1e-5)


def test_two_class_posterior_needs_no_normalisation():
    X, y, Xt, _ = _data(1)
    two = y < 2
    m = REBELClassifier(n_estimators=20).fit(X[two], y[two])
    H1_minus_H0 = m.decision_function(Xt)
    np.testing.assert_allclose(m.predict_proba(Xt)[:, 1], 1 / (1 + np.exp(-H1_minus_H0)), rtol=1e-10)


def test_predict_proba_exists_only_for_zero_one_costs():
    """``available_if`` (issue 28): 0-1 costs up to scale and row shifts have ``predict_proba``, other costs have
    none, before and after fit; a fitted model follows the costs it was trained with."""
    X, y, Xt, _ = _data(2)
    K = len(np.unique(y))
    scaled = REBELClassifier(cost_matrix=3.0 * (1 - np.eye(K)), n_estimators=5)
    assert hasattr(scaled, "predict_proba") and hasattr(scaled, "staged_predict_proba")
    scaled.fit(X, y)
    np.testing.assert_allclose(scaled.predict_proba(Xt), REBELClassifier(n_estimators=5).fit(X, y).predict_proba(Xt))
    costly = REBELClassifier(cost_matrix=rebel_random(K, random_state=0), n_estimators=5)
    assert not hasattr(costly, "predict_proba") and not hasattr(costly, "staged_predict_proba")
    costly.fit(X, y)
    assert not hasattr(costly, "predict_proba") and not hasattr(costly, "staged_predict_proba")
    with pytest.raises(AttributeError, match="predict_proba"):
        costly.predict_proba(Xt)
    assert not hasattr(REBELClassifier(cost_matrix=[[0, 1], [np.nan, 0]]), "predict_proba")
    neutral = REBELClassifier(n_estimators=2).fit(X, y)
    assert hasattr(neutral.set_params(cost_matrix=rebel_random(K, random_state=0)), "predict_proba")  # as fitted


def test_bayes_rule_wrapper_and_rebel_standard():
    X, y, Xt, yt = _data(3)
    K = len(np.unique(y))
    C = rebel_random(K, random_state=4)
    w = BayesRuleClassifier(REBELClassifier(n_estimators=25), cost_matrix=C).fit(X, y)
    neutral = REBELClassifier(n_estimators=25).fit(X, y)
    np.testing.assert_array_equal(w.predict(Xt), neutral.classes_[decide(neutral.predict_proba(Xt), C)])
    zero_one = BayesRuleClassifier(REBELClassifier(n_estimators=25)).fit(X, y)
    np.testing.assert_array_equal(zero_one.predict(Xt), neutral.predict(Xt))
    std = methods.make_estimator("rebel_standard", cost_matrix=C, random_state=0, n_estimators=25).fit(X, y)
    np.testing.assert_array_equal(std.predict(Xt), w.predict(Xt))
    assert methods.get_method("rebel_standard").predict_proba
    assert "n_estimators" in methods.method_params("rebel_standard")
    with pytest.raises(ValueError, match="cost"):
        BayesRuleClassifier(REBELClassifier(n_estimators=3), cost_matrix=np.ones((2, 2))).fit(X, y)


def test_bayes_rule_stages_follow_the_posteriors_of_each_round():
    X, y = load_wine(return_X_y=True)
    C = rebel_random(3, random_state=1)
    model = BayesRuleClassifier(REBELClassifier(n_estimators=6), cost_matrix=C).fit(X, y)
    stages = list(model.staged_predict(X))
    assert len(stages) == 6
    assert np.array_equal(stages[-1], model.predict(X))
    for t, pred in enumerate(stages, start=1):
        P = REBELClassifier(n_estimators=t).fit(X, y).predict_proba(X)
        assert np.array_equal(pred, model.classes_[decide(P, C)])
    assert not hasattr(BayesRuleClassifier(GaussianNBLike()), "staged_predict")


class GaussianNBLike:
    """A probabilistic estimator without stages."""

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        return np.full((len(X), 2), 0.5)
