"""``labels`` defines the order of ``classes_`` and of the cost matrix's rows (true class) and columns (predicted
class) exactly as given (issue 28).  Every public estimator with a ``labels`` parameter, fitted with the non-sorted
``labels=["cat", "dog", "bird"]`` and an asymmetric cost matrix written in that order, must predict exactly what it
predicts on the same data with the labels renamed so that their sorted order is that order ("a_cat" < "b_dog" <
"c_bird") and the same matrix: the class indices inside are then the same, whatever the algorithm does with them
(several are not invariant to a permutation of the classes: MCBoost's codewords, the filter tree, Mossman's class 3).
Before the fix ``labels`` went through ``np.unique`` and the matrix's rows were applied to the wrong classes."""

import inspect

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

import csrepro
from csrepro.baselines import GradientBoostingPeer
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.boosting.rebel import REBELClassifier
from csrepro.probability.naive_bayes import QuantizedNaiveBayes
from csrepro.validation import classes_and_codes

X, _codes = make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                                n_clusters_per_class=1, random_state=0)
y = np.array(["bird", "cat", "dog"])[_codes]
ORDER = ["cat", "dog", "bird"]
C = np.array([[0.0, 1.0, 20.0],   # true cat: predicting bird is very costly
              [2.0, 0.0, 1.0],    # true dog
              [10.0, 3.0, 0.0]])  # true bird

#: constructor arguments of the tested instances (small and fast)
ARGS = {
    "AOSOLogitBoostClassifier": {"n_estimators": 5},
    "AdaBoostECCClassifier": {"n_estimators": 5, "random_state": 0},
    "AdaBoostMHClassifier": {"n_estimators": 5},
    "AdaBoostMMClassifier": {"n_estimators": 5},
    "BayesRuleClassifier": {"estimator": REBELClassifier(n_estimators=5)},
    "CWBoostClassifier": {"n_estimators": 5},
    "CalibratedBayesClassifier": {"estimator": LogisticRegression(), "cv": 3},
    "CoMBoClassifier": {"n_estimators": 5},
    "CostSensitiveReduction": {"reduction": "filter_tree"},
    "GradientBoostingPeer": {"n_estimators": 5, "random_state": 0},
    "LachicheFlachClassifier": {"cv": 3, "random_state": 0},
    "MCBoostClassifier": {"n_estimators": 5},
    "MetaCostClassifier": {"estimator": QuantizedNaiveBayes(), "n_resamples": 3, "random_state": 0},
    "MossmanClassifier": {"cv": 3, "random_state": 0},
    "MultinomialLogisticRegression": {},
    "OneVsAllAdaBoostClassifier": {"n_estimators": 5},
    "PartitionMatrixClassifier": {"cv": 3, "random_state": 0},
    "QuantizedNaiveBayes": {},
    "REBELClassifier": {"n_estimators": 5},
    "RegularizedDiscriminantAnalysis": {},
    "RoundsOnValidation": {"estimator": MCBoostClassifier(n_estimators=4), "criterion": "cost", "random_state": 0},
    "SMOTEBoostClassifier": {"n_estimators": 5, "random_state": 0},
    "TunedCalibratedBayesClassifier": {"estimator": GradientBoostingPeer(n_estimators=4),
                                       "param_grid": {"max_depth": [1, 2]}, "cv": 2, "random_state": 0},
}
WITH_LABELS = sorted(name for name in csrepro.__all__
                     if "labels" in inspect.signature(getattr(csrepro, name)).parameters)


RENAMED = {"cat": "a_cat", "dog": "b_dog", "bird": "c_bird"}


def _fit(name, labels, y):
    estimator = getattr(csrepro, name)(**ARGS[name], labels=labels)
    if "cost_matrix" in estimator.get_params(deep=False):
        estimator.set_params(cost_matrix=C)
    return estimator.fit(X, y)


def test_every_estimator_with_labels_is_tested():
    assert WITH_LABELS == sorted(ARGS)


@pytest.mark.parametrize("name", WITH_LABELS)
def test_labels_order_is_the_cost_matrix_order(name):
    given = _fit(name, ORDER, y)
    fitted = given.estimator_ if name == "RoundsOnValidation" else given
    assert fitted.classes_.tolist() == ORDER
    y_renamed = np.array([RENAMED[v] for v in y])
    reference = _fit(name, sorted(RENAMED.values()), y_renamed)
    assert [RENAMED[c] for c in fitted.classes_] == sorted(RENAMED.values())
    np.testing.assert_array_equal([RENAMED[v] for v in given.predict(X)], reference.predict(X))
    if hasattr(given, "predict_proba"):
        np.testing.assert_allclose(given.predict_proba(X), reference.predict_proba(X), atol=1e-9)


def test_hand_checked_costs_follow_labels_order():
    """BayesRuleClassifier on a model predicting P = (cat 0.6, dog 0.3, bird 0.1) everywhere: with ``C`` in ORDER
    the expected costs of predicting cat, dog, bird are (2*0.3 + 10*0.1, 0.6 + 3*0.1, 20*0.6 + 0.3) = (1.6, 0.9,
    12.3): dog.  Re-sorting the labels would apply cat's row to bird and predict otherwise."""
    from sklearn.dummy import DummyClassifier

    yy = np.array(["cat"] * 6 + ["dog"] * 3 + ["bird"])
    clf = csrepro.BayesRuleClassifier(DummyClassifier(strategy="prior"), cost_matrix=C, labels=ORDER).fit(
        np.zeros((10, 1)), yy)
    np.testing.assert_allclose(clf.predict_proba(np.zeros((1, 1))), [[0.6, 0.3, 0.1]])
    assert clf.predict(np.zeros((1, 1))).tolist() == ["dog"]
    mc = csrepro.MCBoostClassifier(cost_matrix=C, labels=ORDER, n_estimators=2).fit(X, y)
    np.testing.assert_array_equal(mc.cost_matrix_, C)


@pytest.mark.parametrize("labels, message", [
    (["cat", "dog", "cat"], r"labels has duplicates \['cat'\]"),
    (["cat", "dog"], r"training labels \['bird'\] are not in labels=\['cat', 'dog'\]"),
])
def test_duplicate_and_unknown_labels_are_refused(labels, message):
    with pytest.raises(ValueError, match=message):
        classes_and_codes(y, labels)
    with pytest.raises(ValueError, match=message):
        csrepro.MCBoostClassifier(labels=labels, n_estimators=1).fit(X, y)
