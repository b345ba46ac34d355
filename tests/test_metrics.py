"""Metrics: hand-computed cases, paper identities (Koço & Capponi 2013, Hand & Till 2001), properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from csrepro.costs import CostMatrixError, random_symmetric, zero_one
from csrepro.metrics import (
    DetectionResult,
    average_rank,
    best_set,
    confusion_norm,
    detection_at_rate,
    detection_stats,
    error,
    error_confusion,
    g_mean,
    mauc,
    mean_se,
    paired_ttest,
    per_class_recall,
    probabilistic_confusion,
    ranks,
    risk,
    significant_best,
)


@st.composite
def predictions(draw, min_classes=2, max_classes=6):
    """(y_true, y_pred, K) with every class present in y_true."""
    K = draw(st.integers(min_classes, max_classes))
    extra = draw(arrays(np.int64, draw(st.integers(0, 30)), elements=st.integers(0, K - 1)))
    y = np.concatenate([np.arange(K), extra])
    pred = draw(arrays(np.int64, len(y), elements=st.integers(0, K - 1)))
    return y, pred, K


# ----------------------------------------------------------------------------- risk and error


def test_risk_and_error_hand():
    C = np.array([[0, 2, 4], [3, 0, 0], [1, 1, 0]], float)
    y, pred = np.array([0, 1, 2, 0]), np.array([2, 0, 1, 0])
    assert risk(y, pred, C) == pytest.approx((4 + 3 + 1 + 0) / 4)
    assert error(y, pred) == pytest.approx(3 / 4)


@settings(max_examples=60, deadline=None)
@given(pp=predictions(), seed=st.integers(0, 2**32 - 1))
def test_risk_properties(pp, seed):
    y, pred, K = pp
    C = random_symmetric(K, seed)
    assert risk(y, y, C) == 0.0
    assert risk(y, pred, zero_one(K)) == pytest.approx(error(y, pred))
    assert risk(y, pred, C) == pytest.approx(np.mean([C[a, b] for a, b in zip(y, pred)]))


@pytest.mark.parametrize(
    "y, pred, match",
    [
        ([0, 1], [0], r"y_true has 2 entries but y_pred has 1"),
        ([0, 3], [0, 1], r"y_true has class index 3 outside \[0, 3\)"),
        ([0, 1], [0, -1], r"y_pred has class index -1 outside"),
        ([0.0, 1.0], [0, 1], r"integer class indices.*np.searchsorted"),
        (["a", "b"], [0, 1], r"integer class indices"),
        ([[0, 1]], [[0, 1]], r"must be 1-D"),
        (np.array([], dtype=int), np.array([], dtype=int), r"empty"),
    ],
)
def test_label_validation(y, pred, match):
    with pytest.raises(ValueError, match=match):
        risk(y, pred, zero_one(3))


def test_risk_validates_cost_matrix():
    with pytest.raises(CostMatrixError, match=r"diagonal"):
        risk([0, 1], [1, 0], [[1, 1], [1, 0]])


# ----------------------------------------------------------------------------- confusion-based metrics

Y_CONF = np.array([0, 0, 0, 0, 1, 1, 2])
P_CONF = np.array([0, 1, 1, 2, 1, 1, 2])


def test_confusion_hand():
    A = probabilistic_confusion(Y_CONF, P_CONF)
    np.testing.assert_allclose(A, [[0.25, 0.5, 0.25], [0, 1, 0], [0, 0, 1]])
    CS = error_confusion(Y_CONF, P_CONF)
    np.testing.assert_allclose(CS, [[0, 0.5, 0.25], [0, 0, 0], [0, 0, 0]])
    # rank one: ||C_S|| = ||(0, .5, .25)||_2 = sqrt(0.3125)
    assert confusion_norm(Y_CONF, P_CONF) == pytest.approx(np.sqrt(0.3125))
    np.testing.assert_allclose(per_class_recall(Y_CONF, P_CONF), [0.25, 1, 1])
    assert g_mean(Y_CONF, P_CONF) == pytest.approx(0.25 ** (1 / 3))


def test_confusion_norm_is_spectral_not_frobenius():
    y, pred = np.array([0, 0, 1, 1]), np.array([1, 0, 0, 1])  # C_S = [[0, .5], [.5, 0]]
    assert confusion_norm(y, pred) == pytest.approx(0.5)  # Frobenius would be sqrt(0.5)


def test_absent_classes():
    recall = per_class_recall(Y_CONF, P_CONF, n_classes=4)
    np.testing.assert_allclose(recall[:3], [0.25, 1, 1])
    assert np.isnan(recall[3])
    np.testing.assert_array_equal(probabilistic_confusion(Y_CONF, P_CONF, n_classes=4)[3], 0)
    assert g_mean(Y_CONF, P_CONF, n_classes=4) == pytest.approx(0.25 ** (1 / 3))
    assert g_mean([0, 0, 1], [1, 1, 1]) == 0.0


@settings(max_examples=60, deadline=None)
@given(pp=predictions())
def test_confusion_identities(pp):
    y, pred, K = pp
    A = probabilistic_confusion(y, pred, K)
    np.testing.assert_allclose(A.sum(axis=1), 1.0)  # Definition 1: rows sum to 1
    np.testing.assert_allclose(np.diag(A), per_class_recall(y, pred, K))
    CS = error_confusion(y, pred, K)
    priors = np.bincount(y, minlength=K) / len(y)
    assert error(y, pred) == pytest.approx(np.abs(priors @ CS).sum())  # eq. (2): R(h) = ||p C||_1
    norm = confusion_norm(y, pred, K)
    assert error(y, pred) <= np.sqrt(K) * norm + 1e-12  # eq. (3)
    assert norm == pytest.approx(np.sqrt(np.linalg.eigvalsh(CS.T @ CS).max()))  # Sec. 2.1 definition
    assert g_mean(y, pred, K) == pytest.approx(stats.gmean(np.diag(A)) if np.diag(A).min() > 0 else 0.0)


# ----------------------------------------------------------------------------- MAUC

Y_AUC = np.array([0, 0, 1, 1, 2, 2])
P_AUC = np.array(
    [[0.6, 0.3, 0.1], [0.4, 0.4, 0.2], [0.3, 0.5, 0.2], [0.5, 0.2, 0.3], [0.2, 0.3, 0.5], [0.4, 0.4, 0.2]]
)


def test_mauc_hand():
    # A(0|1)=3/4, A(1|0)=2/4; A(0|2)=3.5/4, A(2|0)=3.5/4; A(1|2)=2/4, A(2|1)=2.5/4 (ties count 1/2)
    expected = ((0.75 + 0.5) / 2 + 0.875 + (0.5 + 0.625) / 2) / 3
    assert mauc(Y_AUC, P_AUC) == pytest.approx(expected)
    assert expected == pytest.approx(0.6875)
    # only classes 0 and 2 present: the single pair A(0, 2)
    keep = Y_AUC != 1
    assert mauc(Y_AUC[keep], P_AUC[keep]) == pytest.approx(0.875)


def _hand_till(y, P):
    """Brute-force Hand & Till (2001): mean over class pairs of (A(i|j) + A(j|i)) / 2."""
    def a(i, j):
        si, sj = P[y == i, i], P[y == j, i]
        return np.mean([(u > v) + 0.5 * (u == v) for u in si for v in sj])

    present = np.unique(y)
    return np.mean([(a(i, j) + a(j, i)) / 2 for n, i in enumerate(present) for j in present[n + 1:]])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), pp=predictions(max_classes=5))
def test_mauc_matches_hand_till(data, pp):
    y, _, K = pp
    drop = data.draw(st.sampled_from([None] + list(range(K)))) if K > 2 else None
    if drop is not None:
        y = y[y != drop]
    raw = data.draw(arrays(np.int64, (len(y), K), elements=st.integers(1, 4))).astype(float)
    P = raw / raw.sum(axis=1, keepdims=True)
    assert mauc(y, P) == pytest.approx(_hand_till(y, P))


def test_mauc_binary_is_auc():
    y = np.array([0, 0, 1, 1, 1])
    p1 = np.array([0.2, 0.6, 0.6, 0.9, 0.4])
    # positives {.6, .9, .4} vs negatives {.2, .6}: (1 + .5) + (1 + 1) + (1 + 0) = 4.5 of 6
    assert mauc(y, np.column_stack([1 - p1, p1])) == pytest.approx(4.5 / 6)


def test_mauc_errors():
    with pytest.raises(ValueError, match=r"summing to 1"):
        mauc(Y_AUC, P_AUC * 2)
    with pytest.raises(ValueError, match=r">= 2 classes in y_true"):
        mauc(np.zeros(3, dtype=int), np.full((3, 2), 0.5))
    with pytest.raises(ValueError, match=r"6 entries but P has 5 rows"):
        mauc(Y_AUC, P_AUC[:5])
    with pytest.raises(ValueError, match=r"class index 3 outside \[0, 3\)"):
        mauc(np.array([0, 3]), P_AUC[:2])


# ----------------------------------------------------------------------------- detection

Y_DET = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0])
S_DET = np.array([0.9, 0.7, 0.5, 0.3, 0.8, 0.5, 0.2, 0.1, 0.6])


@pytest.mark.parametrize(
    "target, expected",
    [
        (0.5, DetectionResult(0.7, 0.5, 1, 0.2)),
        (0.6, DetectionResult(0.5, 0.75, 3, 0.6)),  # ceil(2.4) = 3 positives; the tied negative at .5 is an FP
        (0.75, DetectionResult(0.5, 0.75, 3, 0.6)),
        (1.0, DetectionResult(0.3, 1.0, 3, 0.6)),
        (0.01, DetectionResult(0.9, 0.25, 0, 0.0)),
    ],
)
def test_detection_at_rate_hand(target, expected):
    got = detection_at_rate(Y_DET, S_DET, target)
    assert tuple(got) == pytest.approx(tuple(expected))
    assert got.detection_rate >= target


def test_detection_ties_and_float_guard():
    # tied positives at the threshold all count as detections
    got = detection_at_rate(Y_DET, np.array([0.9, 0.5, 0.5, 0.3, 0.8, 0.4, 0.2, 0.1, 0.6]), 0.5)
    assert tuple(got) == pytest.approx((0.5, 0.75, 2, 0.4))
    # 0.7 * 10 = 7.000000000000001 in floats, but 7 of 10 positives already meet the target
    y = np.r_[np.ones(10, int), np.zeros(3, int)]
    s = np.r_[np.arange(10, 0, -1), [2.5, 3.5, 20]].astype(float)
    got = detection_at_rate(y, s, 0.7)
    assert got.threshold == 4 and got.detection_rate == pytest.approx(0.7) and got.false_positives == 1


def test_detection_labels():
    y = np.where(Y_DET == 1, "face", "background")  # sorted: background < face -> face is positive
    assert detection_at_rate(y, S_DET, 0.5) == detection_at_rate(Y_DET, S_DET, 0.5)
    flipped = detection_at_rate(Y_DET, -S_DET, 0.4, pos_label=0)
    assert tuple(flipped) == pytest.approx((-0.2, 0.4, 0, 0.0))
    assert tuple(detection_stats(Y_DET * 2 - 1, S_DET, 0.65)) == pytest.approx((0.65, 0.5, 1, 0.2))


@pytest.mark.parametrize(
    "y, s, target, match",
    [
        (Y_DET, S_DET, 0.0, r"target detection rate must be a number in \(0, 1\]"),
        (Y_DET, S_DET, 1.5, r"in \(0, 1\]"),
        (Y_DET, S_DET[:5], 0.5, r"1-D of equal length"),
        (np.r_[Y_DET[:-1], 2], S_DET, 0.5, r"exactly 2 labels"),
        (np.ones(4, int), S_DET[:4], 0.5, r"exactly 2 labels"),
        (Y_DET, np.r_[S_DET[:-1], np.nan], 0.5, r"scores contains nan"),
    ],
)
def test_detection_errors(y, s, target, match):
    with pytest.raises(ValueError, match=match):
        detection_at_rate(y, s, target)


def test_detection_needs_positives():
    with pytest.raises(ValueError, match=r"needs both positives \(label 7\) and negatives"):
        detection_stats(Y_DET, S_DET, 0.5, pos_label=7)


# ----------------------------------------------------------------------------- summaries and tests


def test_mean_se_hand():
    m, se = mean_se([1, 2, 3, 4])
    assert m == 2.5 and se == pytest.approx(np.sqrt(5 / 3) / 2)
    m, se = mean_se([3.0])
    assert m == 3.0 and np.isnan(se)
    with pytest.raises(ValueError, match=r"nan or inf"):
        mean_se([1.0, np.nan])
    with pytest.raises(ValueError, match=r"non-empty 1-D"):
        mean_se([])


def test_paired_ttest_hand():
    a, b = np.array([1.0, 2, 3, 5]), np.ones(4)
    t = 1.75 / (np.sqrt(8.75 / 3) / 2)  # mean(d) / (sd(d) / sqrt(n)), d = [0, 1, 2, 4]
    assert paired_ttest(a, b) == pytest.approx(2 * stats.t.sf(t, df=3))
    assert paired_ttest(b, a) == pytest.approx(paired_ttest(a, b))
    assert paired_ttest(a, a) == 1.0
    assert paired_ttest(a + 2, a) == 0.0
    with pytest.raises(ValueError, match=r"equal length >= 2, got 4 and 3"):
        paired_ttest(a, b[:3])
    with pytest.raises(ValueError, match=r"equal length >= 2, got 1 and 1"):
        paired_ttest([1.0], [2.0])


def test_ranks_hand():
    scores = np.array([[0.3, 0.1, 0.2], [0.5, 0.5, 0.1]])
    np.testing.assert_array_equal(ranks(scores), [[3, 1, 2], [2.5, 2.5, 1]])
    np.testing.assert_array_equal(average_rank(scores), [2.75, 1.75, 1.5])
    np.testing.assert_array_equal(ranks(scores, higher_is_better=True), [[1, 3, 2], [1.5, 1.5, 3]])
    with pytest.raises(ValueError, match=r"non-empty 2-D"):
        ranks([0.1, 0.2])


@settings(max_examples=60, deadline=None)
@given(
    scores=arrays(
        np.float64, st.tuples(st.integers(1, 8), st.integers(1, 7)), elements=st.sampled_from([0.1, 0.2, 0.5, 1.0])
    )
)
def test_ranks_rows_sum(scores):
    K = scores.shape[1]
    r = ranks(scores)
    np.testing.assert_allclose(r.sum(axis=1), K * (K + 1) / 2)
    np.testing.assert_allclose(ranks(scores, higher_is_better=True), K + 1 - r)
    assert average_rank(scores).mean() == pytest.approx((K + 1) / 2)


def test_best_set_hand():
    a = np.arange(1.0, 6.0)
    values = np.column_stack([a, a + [0.1, -0.1, 0.2, -0.2, 0.05], a + [1, 1.1, 0.9, 1, 1.05]])
    np.testing.assert_array_equal(best_set(values), [True, True, False])
    np.testing.assert_array_equal(best_set(values, higher_is_better=True), [False, False, True])
    assert best_set({"gll": values[:, 0], "gel": values[:, 1], "ls": values[:, 2]}) == ["gll", "gel"]
    # alpha large enough to reject the noisy near-tie too
    p = paired_ttest(values[:, 1], values[:, 0])
    np.testing.assert_array_equal(best_set(values, alpha=min(0.99, p + 0.01)), [True, False, False])


def test_significant_best_hand():
    """One bold at most: the best mean, when its paired t-test beats every other method at alpha."""
    a = np.arange(1.0, 6.0)
    near_tie = np.column_stack([a, a + [0.1, -0.1, 0.2, -0.2, 0.05], a + [1, 1.1, 0.9, 1, 1.05]])
    np.testing.assert_array_equal(significant_best(near_tie), [False, False, False])  # 0 and 1 not separated
    np.testing.assert_array_equal(significant_best(near_tie, higher_is_better=True), [False, False, True])
    assert significant_best({"x": near_tie[:, 0], "y": near_tie[:, 2]}) == ["x"]
    p = paired_ttest(near_tie[:, 1], near_tie[:, 0])
    assert significant_best(near_tie, alpha=min(0.99, p + 0.01)).tolist() == [True, False, False]


def test_best_set_errors():
    with pytest.raises(ValueError, match=r"equal lengths"):
        best_set({"a": [1.0, 2.0], "b": [1.0]})
    with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\)"):
        best_set(np.ones((3, 2)), alpha=0)
    with pytest.raises(ValueError, match=r"equal length >= 2"):
        best_set(np.array([[1.0, 2.0]]))


def test_cost_scorer_is_the_negative_mean_cost_in_labels_order():
    """make_cost_scorer (issue 28): rows true, columns predicted, in ``labels`` order as given; greater is better."""
    from sklearn.dummy import DummyClassifier

    from csrepro.metrics import make_cost_scorer

    C = np.array([[0.0, 1.0, 20.0], [2.0, 0.0, 1.0], [10.0, 3.0, 0.0]])  # labels cat, dog, bird
    X, y = np.zeros((4, 1)), np.array(["cat", "cat", "dog", "bird"])
    always_bird = DummyClassifier(strategy="constant", constant="bird").fit(X, y)
    scorer = make_cost_scorer(C, labels=["cat", "dog", "bird"])
    assert scorer(always_bird, X, y) == pytest.approx(-(20.0 + 20.0 + 1.0 + 0.0) / 4)
    assert make_cost_scorer(C, labels=["bird", "cat", "dog"])(always_bird, X, y) == pytest.approx(-(2 + 2 + 10) / 4)
    with pytest.raises(ValueError, match=r"true labels \['cat'\] are not in labels=\['dog', 'bird'\]"):
        make_cost_scorer(C[1:, 1:], labels=["dog", "bird"])(always_bird, X, y)
    with pytest.raises(ValueError, match="labels has duplicates"):
        make_cost_scorer(C, labels=["cat", "cat", "bird"])
    with pytest.raises(CostMatrixError, match="cost matrix is 3x3 but there are 2 classes"):
        make_cost_scorer(C, labels=["cat", "dog"])
    with pytest.raises(ValueError, match="needs labels"):
        make_cost_scorer(C, labels=None)


def test_cost_scorer_selects_by_cost_in_grid_search():
    """GridSearchCV with the cost scorer picks the grid point of least cross-validated cost, which differs from the
    accuracy choice when one mistake is very costly."""
    from sklearn.datasets import make_classification
    from sklearn.model_selection import GridSearchCV, cross_val_predict

    from csrepro.decision.bayes_rule import BayesRuleClassifier
    from csrepro.metrics import make_cost_scorer
    from csrepro.probability.naive_bayes import QuantizedNaiveBayes

    X, y = make_classification(n_samples=150, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, flip_y=0.2, random_state=1)
    C = np.array([[0.0, 1.0, 1.0], [50.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    grid = {"cost_matrix": [None, C]}
    search = GridSearchCV(BayesRuleClassifier(QuantizedNaiveBayes()), grid, cv=3,
                          scoring=make_cost_scorer(C, labels=[0, 1, 2])).fit(X, y)
    assert search.best_params_["cost_matrix"] is C
    from sklearn.model_selection import StratifiedKFold

    costs = []
    for point in search.cv_results_["params"]:
        per_fold = []
        for train, test in StratifiedKFold(3).split(X, y):
            pred = BayesRuleClassifier(QuantizedNaiveBayes(), **point).fit(X[train], y[train]).predict(X[test])
            per_fold.append(C[y[test], pred].mean())
        costs.append(-np.mean(per_fold))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], costs)
