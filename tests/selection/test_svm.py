"""DetectionRateSVC (thesis Sec. V.E): detection-rate model selection, and the count metrics."""

import numpy as np
import pytest

from csrepro import methods
from csrepro.metrics import detection_at_rate, detection_stats
from csrepro.scoring import METRICS, Predictions
from csrepro.selection import svm as selection
from csrepro.selection.svm import CostRatioSVC, DetectionRateSVC, cost_grid
from csrepro.svm import CostSensitiveSVC


def _problem(n=80, seed=0):
    """Two overlapping Gaussian classes in 2-D, labels "a" (negative) and "b" (positive)."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.4, "b", "a")
    X = rng.normal(size=(n, 2)) + np.where(y == "b", 1.0, -0.5)[:, None]
    return X, y


def test_cost_grid_respects_cs_constraints():
    grid = cost_grid("cs", [1.0], [1.0, 2.0, 4.0], [1.0, 2.0, 3.0])
    assert [(c1, cm1) for _, c1, cm1 in grid] == [(1.0, 1.0), (2.0, 1.0), (4.0, 1.0), (4.0, 2.0)]
    assert len(cost_grid("bp", [1.0, 2.0], [1.0, 2.0], [1.0, 3.0])) == 8
    assert cost_grid("svm", [0.5], [9.0], [9.0]) == [(0.5, 1.0, 1.0)]
    with pytest.raises(ValueError, match="CS-SVM constraints"):
        cost_grid("cs", [1.0], [1.0], [2.0])
    with pytest.raises(ValueError, match="C_grid"):
        cost_grid("cs", [], [1.0], [1.0])


@pytest.mark.parametrize("cv", ["loo", 4])
@pytest.mark.parametrize("variant", ["cs", "bp", "svm"])
def test_cv_detection_rate_is_met_and_reproducible(variant, cv):
    X, y = _problem()
    sel = DetectionRateSVC(variant=variant, target_detection_rate=0.9, C_grid=[0.1, 1.0], C1_grid=[1.0, 3.0],
                           C_minus1_grid=[1.0], kernel="rbf", cv=cv, random_state=3).fit(X, y)
    assert sel.cv_detection_rate_ >= 0.9
    best = min(r["false_positives"] for r in sel.cv_results_)
    assert sel.cv_false_positives_ == best
    assert len(sel.cv_results_) == len(cost_grid(variant, [0.1, 1.0], [1.0, 3.0], [1.0]))
    # the refitted model predicts positive exactly where f >= the cross-validated threshold
    f = sel.best_estimator_.decision_function(X) - sel.best_estimator_.threshold
    np.testing.assert_array_equal(sel.predict(X) == "b", f >= sel.threshold_)
    again = DetectionRateSVC(**sel.get_params()).fit(X, y)
    assert again.best_params_ == sel.best_params_ and again.threshold_ == sel.threshold_


def test_out_of_fold_scores_match_independent_fits():
    """The warm-started LOO scores equal those of SVMs fitted from scratch without each point."""
    X, y = _problem(n=30, seed=1)
    sel = DetectionRateSVC(variant="bp", target_detection_rate=0.8, C_grid=[1.0], C1_grid=[2.0], C_minus1_grid=[1.0],
                           cv="loo", tol=1e-6).fit(X, y)
    scores = np.empty(len(y))
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        svc = CostSensitiveSVC(variant="bp", C=1.0, C1=2.0, C_minus1=1.0, gamma=sel.best_estimator_.gamma_,
                               tol=1e-6).fit(X[keep], y[keep])
        scores[i] = svc.decision_function(X[i:i + 1])[0]
    point = detection_at_rate(y, scores, 0.8, pos_label="b")
    assert sel.threshold_ == pytest.approx(point.threshold, abs=1e-4)
    assert sel.cv_false_positives_ == point.false_positives


def test_fewer_false_positives_than_plain_svm_at_same_rate():
    """Selecting over the grid can only lower the CV false positives of the grid's plain-SVM point."""
    X, y = _problem(n=90, seed=2)
    kw = {"target_detection_rate": 0.9, "C_grid": [1.0], "cv": 5, "random_state": 0}
    plain = DetectionRateSVC(variant="svm", **kw).fit(X, y)
    bp = DetectionRateSVC(variant="bp", C1_grid=[1.0, 2.0, 4.0, 8.0], C_minus1_grid=[1.0], **kw).fit(X, y)
    same = next(r for r in bp.cv_results_ if r["C1"] == 1.0)
    assert same["false_positives"] == plain.cv_false_positives_  # identical SVM and folds
    assert bp.cv_false_positives_ <= plain.cv_false_positives_


def test_invalid_parameters_name_the_fix():
    X, y = _problem()
    with pytest.raises(ValueError, match="target_detection_rate"):
        DetectionRateSVC(target_detection_rate=1.5).fit(X, y)
    with pytest.raises(ValueError, match="'cv' parameter of DetectionRateSVC"):
        DetectionRateSVC(cv=1).fit(X, y)
    with pytest.raises(ValueError, match="exactly two classes"):
        DetectionRateSVC().fit(X, np.where(np.arange(len(y)) % 3 == 0, "c", y))


def test_rate_method_ids():
    est = methods.make_estimator("cs_svm_dr_82_5", cost_matrix=None, random_state=0)
    assert (est.variant, est.target_detection_rate) == ("cs", 0.825)
    assert methods.make_estimator("svm_dr_95").variant == "svm"
    with pytest.raises(ValueError, match="fixes"):
        methods.make_estimator("bp_svm_dr_90", target_detection_rate=0.5)


def test_count_metrics_by_hand():
    y_true = np.array([0, 0, 0, 1, 1, 1, 1])
    y_pred = np.array([0, 1, 1, 1, 0, 1, 1])  # 2 false positives, 1 miss
    C = np.array([[0.0, 1.0], [5.0, 0.0]])
    p = Predictions(y_true, y_pred, C, None, None, np.array([0, 1]))
    assert METRICS["errors"](p) == 3
    assert METRICS["false_positives"](p) == 2
    assert METRICS["misses"](p) == 1
    assert METRICS["cost_total"](p) == 7.0
    assert detection_stats(y_true, y_pred, 1).false_positives == 2


COST = np.array([[0.0, 1.0], [5.0, 0.0]])  # German Credit costs: a miss costs 5, a false positive 1


@pytest.mark.parametrize("variant", ["cs", "bp", "bm", "svm"])
def test_cost_ratio_grid_and_choice(variant):
    X, y = _problem(n=70, seed=4)
    sel = CostRatioSVC(variant=variant, cost_matrix=COST, C_grid=[0.5, 2.0], C_minus1_grid=[0.5, 1.0, 3.0], cv=5,
                       random_state=1).fit(X, y)
    pairs = {(r["C1"], r["C_minus1"]) for r in sel.cv_results_}
    expected = {"cs": {(5.0, 1.0), (15.0, 3.0)}, "bp": {(2.5, 0.5), (5.0, 1.0), (15.0, 3.0)},
                "bm": {(5.0, 1.0)}, "svm": {(5.0, 1.0)}}[variant]  # cs drops C_-1 = 0.5 < 1
    assert pairs == expected
    assert sel.cv_cost_ == min(r["cost"] for r in sel.cv_results_)
    est = sel.best_estimator_
    assert (est.C, est.C1, est.C_minus1) == (sel.best_params_["C"], sel.best_params_["C1"], sel.best_params_["C_minus1"])
    np.testing.assert_array_equal(sel.predict(X), sel.classes_[est.predict(X)])  # est: 1 = pos_label_ = classes_[1]


def test_cost_ratio_cost_is_the_out_of_fold_cost():
    """With one grid point, cv_cost_ is 5 x misses + false positives of independent per-fold fits."""
    X, y = _problem(n=40, seed=5)
    sel = CostRatioSVC(variant="cs", cost_matrix=COST, C_grid=[1.0], C_minus1_grid=[2.0], cv="loo", tol=1e-6).fit(X, y)
    cost = 0.0
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        svc = CostSensitiveSVC(variant="cs", C=1.0, C1=10.0, C_minus1=2.0, gamma=sel.best_estimator_.gamma_,
                               tol=1e-6).fit(X[keep], y[keep])
        pred = svc.predict(X[i:i + 1])[0]
        cost += 5.0 * (y[i] == "b" and pred == "a") + 1.0 * (y[i] == "a" and pred == "b")
    assert sel.cv_cost_ == cost


def test_cost_ratio_needs_a_cost_matrix_and_feasible_scales():
    X, y = _problem()
    with pytest.raises(ValueError, match="'cost_matrix' parameter of CostRatioSVC must be an array-like. Got None"):
        CostRatioSVC().fit(X, y)
    with pytest.raises(ValueError, match="CS-SVM constraints"):
        CostRatioSVC(cost_matrix=COST, C_minus1_grid=[0.5]).fit(X, y)
    assert methods.make_estimator("cs_svm_cv", cost_matrix=COST).variant == "cs"


def test_rates_and_variants_share_solves_without_changing_results():
    """Fits at every rate after a cached first fit equal fits from an empty cache, in any order."""
    X, y = _problem(n=60, seed=6)
    kw = {"C_grid": [0.5, 2.0], "C1_grid": [1.0, 4.0], "C_minus1_grid": [1.0, 2.0], "cv": "loo"}

    def fit_all(order):
        out = {}
        for variant, rate in order:
            sel = DetectionRateSVC(variant=variant, target_detection_rate=rate, **kw).fit(X, y)
            out[variant, rate] = (sel.best_params_, sel.threshold_, sel.decision_function(X))
        return out

    order = [(v, r) for v in ("cs", "bp", "bm") for r in (0.8, 0.9)]
    selection.PATHS.clear()
    shared = fit_all(order)
    n_paths = len(selection.PATHS)  # bp: 4 weight pairs; cs adds (4, 3) at C' = 1.5 C; bm none
    assert n_paths == 5
    for key in order:
        selection.PATHS.clear()
        alone = fit_all([key])[key]
        assert alone[0] == shared[key][0] and alone[1] == shared[key][1]
        np.testing.assert_array_equal(alone[2], shared[key][2])


def test_cs_with_unit_costs_is_the_plain_svm_point():
    """CS-SVM at C_-1 = 1, BP-SVM at C1 = C_-1 = 1 and BM-SVM share one problem: equal CV results."""
    X, y = _problem(n=50, seed=7)
    kw = {"target_detection_rate": 0.85, "C_grid": [1.0], "C1_grid": [1.0], "C_minus1_grid": [1.0], "cv": "loo"}
    results = [DetectionRateSVC(variant=v, **kw).fit(X, y).cv_results_ for v in ("cs", "bp", "bm")]
    assert results[0] == results[1] == results[2]


def test_k_fold_seed_shared_across_method_seeds():
    X, y = _problem(n=60, seed=8)
    kw = {"variant": "bp", "C_grid": [1.0], "C1_grid": [1.0, 2.0], "C_minus1_grid": [1.0], "cv": 5, "cv_seed": 0}
    a = DetectionRateSVC(random_state=1, **kw).fit(X, y)
    b = DetectionRateSVC(random_state=2, **kw).fit(X, y)
    assert a.cv_results_ == b.cv_results_


@pytest.mark.parametrize("variant", ["cs", "bm"])
def test_minority_detection_is_the_last_class_detection_of_swapped_labels(variant):
    """``positive="minority"`` detects "b" (40 %) whichever label it carries: relabelling b as the first
    class in sorted order gives the same choice, threshold and predictions; false positives and
    misses count the detected class."""
    X, y = _problem()
    params = {"variant": variant, "target_detection_rate": 0.85, "C_grid": [0.1, 1.0], "C1_grid": [1.0, 3.0],
              "C_minus1_grid": [1.0], "cv": 4, "cv_seed": 0}
    last = DetectionRateSVC(**params).fit(X, y)
    swapped = np.where(y == "b", "0b", "a")  # "0b" sorts first: the minority is classes_[0]
    minority = DetectionRateSVC(**params, positive="minority").fit(X, swapped)
    assert minority.pos_label_ == "0b" and last.pos_label_ == "b"
    assert minority.best_params_ == last.best_params_ and minority.threshold_ == last.threshold_
    np.testing.assert_array_equal(minority.predict(X) == "0b", last.predict(X) == "b")
    np.testing.assert_allclose(minority.decision_function(X), -last.decision_function(X))
    z = np.searchsorted(minority.classes_, swapped)
    p = Predictions(z, np.searchsorted(minority.classes_, minority.predict(X)), np.ones((2, 2)) - np.eye(2),
                    minority, X, minority.classes_)
    q = Predictions(np.searchsorted(last.classes_, y), np.searchsorted(last.classes_, last.predict(X)),
                    np.ones((2, 2)) - np.eye(2), last, X, last.classes_)
    assert (METRICS["false_positives"](p), METRICS["misses"](p)) == (METRICS["false_positives"](q),
                                                                      METRICS["misses"](q))
    with pytest.raises(ValueError, match="'positive' parameter of DetectionRateSVC"):
        DetectionRateSVC(**params, positive="majority").fit(X, y)
