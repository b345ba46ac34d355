"""A boosting fit that stops before its first weak learner is a constant model: it warns, naming why."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import csrepro

#: boosters whose weak learners need a split: on constant features they fit none (the others fit one-cell
#: learners, i.e. the class priors, and are not constant for want of a learner)
NEED_A_SPLIT = ["AOSOLogitBoostClassifier", "AdaBoostClassifier", "AdaBoostECCClassifier", "AdaBoostMHClassifier",
                "AdaBoostMMClassifier", "AdaC1Classifier", "AdaC2Classifier", "AdaC3Classifier", "AdaCostClassifier",
                "CSAdaBoostClassifier", "CSB0Classifier", "CSB1Classifier", "CSB2Classifier", "CWBoostClassifier",
                "CoMBoClassifier", "LogitBoostClassifier", "REBELClassifier", "SMOTEBoostClassifier"]
BINARY = {"AdaBoostClassifier", "AdaC1Classifier", "AdaC2Classifier", "AdaC3Classifier", "AdaCostClassifier",
          "CSAdaBoostClassifier", "CSB0Classifier", "CSB1Classifier", "CSB2Classifier", "LogitBoostClassifier"}


@pytest.mark.parametrize("name", NEED_A_SPLIT)
def test_a_fit_without_a_weak_learner_warns_and_is_constant(name):
    X = np.zeros((30, 2))
    y = np.repeat([0, 1], 15) if name in BINARY else np.repeat([0, 1, 2], 10)
    est = getattr(csrepro, name)(n_estimators=5)
    with pytest.warns(ConvergenceWarning, match=f"^{name} stopped before its first weak learner: [a-z]"):
        est.fit(X, y)
    assert est.n_estimators_ == 0 if hasattr(est, "n_estimators_") else len(est.estimators_) == 0
    assert len(np.unique(est.predict(np.random.default_rng(0).normal(size=(20, 2))))) == 1


@pytest.mark.parametrize("name", ["AdaBoostClassifier", "AdaBoostMMClassifier", "REBELClassifier"])
def test_a_fit_that_learns_does_not_warn(name):
    X = np.linspace(-1, 1, 60)[:, None]
    y = (X[:, 0] > 0).astype(int) if name == "AdaBoostClassifier" else np.digitize(X[:, 0], [-0.3, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = getattr(csrepro, name)(n_estimators=3).fit(X, y)
    assert len(est.estimators_) >= 1
