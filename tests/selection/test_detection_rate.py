"""The generic detection-rate model selection (thesis Sec. VI.E): hand cases, ties, cache sharing, errors."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from csrepro.metrics import detection_stats
from csrepro.selection.detection_rate import CROSS_VALIDATIONS, DetectionRateClassifier


class FeatureScore(ClassifierMixin, BaseEstimator):
    """Scores sign * x[:, 0]; counts its fits."""

    fits = 0

    def __init__(self, sign=1.0):
        self.sign = sign

    def fit(self, X, y):
        type(self).fits += 1
        self.classes_ = np.unique(y)
        return self

    def decision_function(self, X):
        return self.sign * np.asarray(X)[:, 0]


X_HAND = np.array([[5.0], [4.0], [3.0], [2.0], [3.5], [1.0], [0.0], [-1.0]])
Y_HAND = np.array([1, 1, 1, 1, 0, 0, 0, 0])


def test_hand_case():
    """75% of 4 positives = 3: threshold = 3rd largest positive score; sign -1 would give 4 false positives."""
    CROSS_VALIDATIONS.clear()
    sel = DetectionRateClassifier(FeatureScore(), {"sign": [-1.0, 1.0]}, target_detection_rate=0.75, cv=2).fit(
        X_HAND, Y_HAND)
    assert sel.best_params_ == {"sign": 1.0} and sel.threshold_ == 3.0
    assert sel.cv_false_positives_ == 1 and sel.cv_detection_rate_ == 0.75
    assert [r["false_positives"] for r in sel.cv_results_] == [4, 1]
    np.testing.assert_array_equal(sel.predict(X_HAND), [1, 1, 1, 0, 1, 0, 0, 0])
    np.testing.assert_allclose(sel.decision_function(X_HAND), X_HAND[:, 0] - 3.0, atol=1e-15)


@pytest.mark.parametrize("positive, detected", [("last", 1), ("minority", 0), ("first", 0)])
def test_a_score_equal_to_the_threshold_is_detected_by_predict_and_decision_function(positive, detected):
    """The third row scores exactly the threshold 3: detected, and decision_function > 0 exactly where predict
    gives classes_[1] (it was 0 there, i.e. classes_[0], while predict said classes_[1])."""
    y = Y_HAND if detected == 1 else np.array([0, 0, 0, 1, 1, 1, 1, 1])
    sel = DetectionRateClassifier(FeatureScore(), target_detection_rate=0.75, positive=positive, cv=2).fit(X_HAND, y)
    assert sel.pos_label_ == detected and sel.threshold_ == 3.0
    assert sel.predict(X_HAND)[2] == detected
    np.testing.assert_array_equal(sel.predict(X_HAND) == 1, sel.decision_function(X_HAND) > 0)


def test_minority_class_can_be_the_detected_one():
    """'b' = classes_[1] is the minority: detected either way; relabelled, the minority 'a' = classes_[0] is;
    "first" detects classes_[0] whether it is the minority or not."""
    X = np.array([[5.0], [4.0], [3.0], [-1.0], [0.5], [1.0], [0.0], [2.5]])
    y = np.array(["b", "b", "b", "a", "a", "a", "a", "a"])
    sel = DetectionRateClassifier(FeatureScore(), target_detection_rate=1.0, positive="minority", cv=2).fit(X, y)
    assert sel.pos_label_ == "b" and sel.threshold_ == 3.0
    swapped = np.where(y == "b", "a", "b")  # 'a' (3 rows) is now the minority and classes_[0]
    sel = DetectionRateClassifier(FeatureScore(), target_detection_rate=1.0, positive="minority", cv=2).fit(X, swapped)
    assert sel.pos_label_ == "a" and sel.threshold_ == 3.0
    np.testing.assert_array_equal(sel.predict(X), ["a", "a", "a", "b", "b", "b", "b", "b"])
    np.testing.assert_array_equal(sel.predict(X) == "b", sel.decision_function(X) > 0)
    first = DetectionRateClassifier(FeatureScore(), target_detection_rate=1.0, positive="first", cv=2).fit(X, swapped)
    assert first.pos_label_ == "a"  # classes_[0], minority or not
    first = DetectionRateClassifier(FeatureScore(), target_detection_rate=1.0, positive="first", cv=2).fit(X, y)
    assert first.pos_label_ == "a"  # the majority here: "first" follows the label order only
    with pytest.raises(ValueError, match="'positive' parameter of DetectionRateClassifier"):
        DetectionRateClassifier(FeatureScore(), positive="majority", cv=2).fit(X, y)


def test_rates_share_one_cross_validation():
    """Five rates on the same training data: the grid is cross-validated once (2 points x 2 folds + refit)."""
    CROSS_VALIDATIONS.clear()
    FeatureScore.fits = 0
    for rate in (0.5, 0.75, 1.0):
        DetectionRateClassifier(FeatureScore(), {"sign": [-1.0, 1.0]}, target_detection_rate=rate, cv=2,
                                random_state=int(rate * 100)).fit(X_HAND, Y_HAND)
    assert FeatureScore.fits == 2 * 2 + 1


class NegatedScore(FeatureScore):
    """Same parameters as FeatureScore, opposite scores: must not share its cache entry."""

    def decision_function(self, X):
        return -super().decision_function(X)


def test_cache_tells_estimator_classes_apart():
    CROSS_VALIDATIONS.clear()
    a = DetectionRateClassifier(FeatureScore(), target_detection_rate=0.75, cv=2).fit(X_HAND, Y_HAND)
    b = DetectionRateClassifier(NegatedScore(), target_detection_rate=0.75, cv=2).fit(X_HAND, Y_HAND)
    assert (a.threshold_, b.threshold_) == (3.0, -4.0)


def test_out_of_fold_rate_is_met():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=60) > 0.3).astype(int)
    for rate, cv in ((0.9, 5), (0.85, "loo")):
        sel = DetectionRateClassifier(LogisticRegression(), {"C": [0.1, 1.0]}, target_detection_rate=rate,
                                      cv=cv).fit(X, y)
        assert sel.cv_detection_rate_ >= rate
        train = detection_stats(y, sel.best_estimator_.decision_function(X), sel.threshold_, pos_label=1)
        assert train.detection_rate >= 0.75  # the refit at the cross-validated threshold
        assert sel.cv_false_positives_ == min(r["false_positives"] for r in sel.cv_results_)


def test_bad_inputs_name_the_fix():
    with pytest.raises(ValueError, match="target_detection_rate"):
        DetectionRateClassifier(FeatureScore(), target_detection_rate=0.0).fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="lower cv"):
        DetectionRateClassifier(FeatureScore(), cv=5).fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="'estimator' parameter of DetectionRateClassifier.*Got None"):
        DetectionRateClassifier().fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="exactly two classes"):
        DetectionRateClassifier(FeatureScore(), cv=2).fit(np.zeros((6, 1)), [0, 1, 2, 0, 1, 2])
