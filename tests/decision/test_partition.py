"""Partition-matrix learning (O'Brien, Gupta & Gray 2008, Sec. 5): exact search, greedy passes, LF, Mossman,
and the estimators."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro.costs import CostMatrixError, zero_one
from csrepro.decision import (
    LachicheFlachClassifier,
    MossmanClassifier,
    PartitionMatrixClassifier,
    decide,
    learn_lf_weights,
    learn_mossman_thresholds,
    learn_partition,
    line_search,
    mossman_rule,
    nstar,
    training_cost,
    update_partition,
)
from csrepro.decision.partition import EXPECTED_FAILED_CHECKS, FORMS

SEEDS = st.integers(0, 2**32 - 1)


def _problem(seed, N=60, K=3, discrete=False, smooth=0.5):
    """Oversmoothed probability estimates of labels drawn from the true ones, and random costs U[1, 10]."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(K, 0.7), size=N)
    y = (P.cumsum(axis=1) > rng.uniform(size=(N, 1))).argmax(axis=1)
    P = (1 - smooth) * P + smooth / K
    if discrete:  # coarse values: many equal changepoints and exact ties
        P = np.round(P * 5) / 5 + 1e-3
        P /= P.sum(axis=1, keepdims=True)
    C = rng.uniform(1, 10, (K, K))
    np.fill_diagonal(C, 0)
    return P, y, C


def _direct(P, y, C, A):
    return float(C[y, decide(P, A)].sum())


def _indices(form, K):
    return [(j, i) for i in range(K) for j in range(K) if j != i] if form == "full" else list(range(K))


# ----------------------------------------------------------------------------- the exact search


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, K=st.integers(2, 4), form=st.sampled_from(FORMS), bounded=st.booleans(),
       discrete=st.booleans())
def test_line_search_matches_brute_force(seed, K, form, bounded, discrete):
    """Every interval's swept cost equals the direct eq.-(1) cost at its midpoint; the choice is the least."""
    P, y, C = _problem(seed, N=40, K=K, discrete=discrete)
    rng = np.random.default_rng(seed + 1)
    A = C * rng.uniform(0.5, 1.5, C.shape)  # a current matrix other than c
    for index in _indices(form, K):
        res = line_search(P, y, C, A, form, index, bounded=bounded)
        bp, costs = res.breakpoints, res.interval_costs
        assert res.cost0 == pytest.approx(_direct(P, y, C, A))
        edges = np.r_[bp[0] - 1.0, bp, bp[-1] + 1.0] if bp.size else np.array([-1.0, 1.0]) + res.theta0
        for m in range(len(costs)):
            lo, hi = edges[m], edges[m + 1]
            if hi - lo < 1e-9 * max(1.0, abs(lo)):
                continue
            theta = 0.5 * (lo + hi)
            assert costs[m] == pytest.approx(_direct(P, y, C, update_partition(A, form, index, theta)), abs=1e-9)
        # the chosen value: its direct cost is the least over the admissible intervals, never above cost0
        chosen = _direct(P, y, C, update_partition(A, form, index, res.theta))
        assert chosen == pytest.approx(res.cost, abs=1e-9) and chosen <= res.cost0 + 1e-9
        lo = np.maximum(np.r_[-np.inf, bp], res.lower)
        hi = np.minimum(np.r_[bp, np.inf], res.upper)
        assert chosen <= costs[lo < hi].min() + 1e-9 if (lo < hi).any() else chosen == res.cost0
        assert res.lower <= res.theta <= res.upper


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, K=st.integers(2, 4), form=st.sampled_from(FORMS))
def test_line_search_beats_any_grid_value(seed, K, form):
    P, y, C = _problem(seed, N=50, K=K)
    for index in _indices(form, K)[:3]:
        res = line_search(P, y, C, C, form, index, bounded=False)
        theta0 = res.theta0
        grid = theta0 + np.linspace(-3, 3, 61) * (np.abs(C).max() if form in ("parallel", "full") else 1.0)
        best_grid = min(_direct(P, y, C, update_partition(C, form, index, t)) for t in grid)
        assert _direct(P, y, C, update_partition(C, form, index, res.theta)) <= best_grid + 1e-9


def test_ties_keep_the_current_value():
    # perfectly separated one-hot probabilities: c already has zero cost, nothing moves
    P = np.eye(3)[[0, 1, 2, 0, 1]]
    y = np.array([0, 1, 2, 0, 1])
    C = 1 - np.eye(3)
    for form in FORMS:
        A, info = learn_partition(P, y, C, form=form)
        assert np.array_equal(A, C) and info["train_cost"] == [0.0]


def test_nearest_least_cost_interval_and_end_margin():
    # one class-0 sample with changepoint beta = 0.2 (its best other class is 1) and cost 5 if kept at 0
    P = np.array([[0.6, 0.4]])
    C = np.array([[0.0, 1.0], [1.0, 0.0]])
    res = line_search(P, np.array([1]), C, C, "parallel", 0, bounded=False)
    # class 0 costs 0.4 + beta, class 1 costs 0.6 - ... (common term removed): changepoint at beta = 0.2
    assert np.allclose(res.breakpoints, [0.2])
    assert res.interval_costs.tolist() == [1.0, 0.0]
    # least cost above the changepoint, unbounded: the end + END_MARGIN * max(spread 0, unit 1) = 0.7
    assert res.theta == pytest.approx(0.7)
    bounded = line_search(P, np.array([1]), C, C, "parallel", 0, bounded=True)
    assert bounded.upper == pytest.approx(1 - 1e-3) and bounded.theta == pytest.approx(0.5 * (0.2 + 1 - 1e-3))


# ----------------------------------------------------------------------------- the paper's N* rule


@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, K=st.integers(2, 4))
def test_nstar_reconstruction_against_brute_force(seed, K):
    """The corrected N* rule (descending changepoints, class i for n <= N') gives every gap's direct cost; the
    printed pairing (g^i for n <= N') does not."""
    P, y, C = _problem(seed, N=30, K=K)
    i = int(np.random.default_rng(seed).integers(K))
    R = P @ C
    others = R.copy()
    others[:, i] = np.inf
    g = others.argmin(axis=1)
    beta_n = others.min(axis=1) - R[:, i]  # sum_j a_{g|j} p_j = sum_j (a_{i|j} + beta_in) p_j
    n_star, costs, order = nstar(beta_n, C[y, i], C[y, g])
    b = np.sort(beta_n)[::-1]
    if np.any(np.diff(b) == 0):
        return
    gaps = np.r_[b[0] + 1.0, 0.5 * (b[:-1] + b[1:]), b[-1] - 1.0]  # N' = 0 .. N
    direct = [_direct(P, y, C, update_partition(C, "parallel", i, beta)) for beta in gaps]
    assert np.allclose(costs, direct)
    assert costs[n_star] == pytest.approx(line_search(P, y, C, C, "parallel", i, bounded=False).interval_costs.min())
    printed = np.r_[0.0, np.cumsum(C[y, g][order])] + (C[y, i].sum() - np.r_[0.0, np.cumsum(C[y, i][order])])
    if not np.allclose(C[y, g], C[y, i]):
        assert not np.allclose(printed, direct)


# ----------------------------------------------------------------------------- greedy learning


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, K=st.integers(2, 5), form=st.sampled_from(FORMS), bounded=st.booleans(),
       order=st.sampled_from(["frequency", "index", "random"]), discrete=st.booleans())
def test_learned_partition_never_costs_more_than_c(seed, K, form, bounded, order, discrete):
    P, y, C = _problem(seed, N=80, K=K, discrete=discrete)
    A, info = learn_partition(P, y, C, form=form, n_passes=2, order=order, bounded=bounded, random_state=seed)
    start = training_cost(P, y, C)
    assert info["initial_cost"] == pytest.approx(start)
    assert training_cost(P, y, C, A) == pytest.approx(info["train_cost"][-1])
    steps = np.r_[start, info["step_costs"]]
    assert np.all(np.diff(steps) <= 1e-12)  # no step, hence no pass, increases the training cost
    assert info["train_cost"][1] <= info["train_cost"][0] <= start
    one, _ = learn_partition(P, y, C, form=form, n_passes=1, order=order, bounded=bounded, random_state=seed)
    assert training_cost(P, y, C, A) <= training_cost(P, y, C, one) + 1e-12  # two passes never worse than one
    assert np.all(np.diag(A) == 0)
    if bounded:
        assert np.all(A[~np.eye(K, dtype=bool)] > 0)


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, K=st.integers(2, 5))
def test_parameterisations(seed, K):
    P, y, C = _problem(seed, N=60, K=K)
    A, info = learn_partition(P, y, C, form="parallel", bounded=False)
    beta = info["beta"]
    assert np.allclose(A, C + beta[None, :] - beta[:, None])  # a_{i|j} = c_{i|j} + beta_i - beta_j
    A, info = learn_partition(P, y, C, form="row")
    assert np.allclose(A, C * info["factors"][None, :])  # paper row i (project column i) times r_i
    A, info = learn_partition(P, y, C, form="column")
    assert np.allclose(A, C * info["factors"][:, None])  # paper column l (project row l) times w_l


def test_frequency_order_and_explicit_permutation():
    P, y, C = _problem(3, N=60, K=3)
    y = np.array([2] * 30 + [0] * 20 + [1] * 10)
    _, info = learn_partition(P, y, C)
    assert info["order"] == [2, 0, 1]
    _, info = learn_partition(P, y, C, order=[1, 2, 0])
    assert info["order"] == [1, 2, 0]
    with pytest.raises(ValueError, match="permutation"):
        learn_partition(P, y, C, order=[0, 0, 1])
    with pytest.raises(ValueError, match="form"):
        learn_partition(P, y, C, form="diagonal")


@settings(max_examples=25, deadline=None)
@given(seed=SEEDS, bounded=st.booleans())
def test_two_classes_reduce_to_the_best_roc_threshold(seed, bounded):
    rng = np.random.default_rng(seed)
    N = 60
    p1 = rng.uniform(0.01, 0.99, N)
    y = (rng.uniform(size=N) < p1 ** 2).astype(int)  # miscalibrated: P(y = 1) = p1^2
    P = np.c_[1 - p1, p1]
    C = np.array([[0.0, rng.uniform(1, 5)], [rng.uniform(1, 5), 0.0]])
    A, info = learn_partition(P, y, C, bounded=bounded)
    pred = decide(P, A)
    # the learned partition is a threshold on p1 ...
    assert not np.any((pred[:, None] == 0) & (pred[None, :] == 1) & (p1[:, None] > p1[None, :]))
    # ... and the best one: exhaustive ROC-style search over every threshold between sorted p1 values
    s = np.sort(p1)
    thresholds = np.r_[0.0, 0.5 * (s[:-1] + s[1:]), 1.0]
    best = min(C[y, (p1 > t).astype(int)].mean() for t in thresholds)
    assert info["train_cost"][0] == pytest.approx(best)


# ----------------------------------------------------------------------------- LF and Mossman


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, K=st.integers(2, 5))
def test_lf_weights(seed, K):
    P, y, C = _problem(seed, N=80, K=K)
    w, info = learn_lf_weights(P, y, C, n_passes=2)
    assert w[info["order"][0]] == 1.0 and np.all(w > 0)
    assert np.array_equal(decide(P, info["partition_matrix"]), np.argmax(P * w, axis=1))  # eq. (4)
    assert np.allclose(info["partition_matrix"], w[:, None] * zero_one(K))  # Sec. 5: column-multiply of 0-1
    assert info["initial_cost"] == pytest.approx(C[y, P.argmax(axis=1)].mean())
    assert info["train_cost"][-1] <= info["train_cost"][0] <= info["initial_cost"]
    # the last weight set is exactly optimal along its coordinate (any other value costs no less)
    last = info["order"][-1]
    if last != info["order"][0]:
        for f in np.r_[np.geomspace(0.01, 100, 41)]:
            v = w.copy()
            v[last] *= f
            assert C[y, np.argmax(P * v, axis=1)].mean() >= info["train_cost"][-1] - 1e-12


@settings(max_examples=20, deadline=None)
@given(seed=SEEDS, discrete=st.booleans())
def test_mossman_thresholds_exact(seed, discrete):
    P, y, C = _problem(seed, N=30, K=3, discrete=discrete, smooth=0.3)
    theta1, theta2, cost = learn_mossman_thresholds(P, y, C, block=7)
    assert cost == pytest.approx(C[y, mossman_rule(P, theta1, theta2)].mean())
    s, d = np.unique(P[:, 2]), np.unique(P[:, 1] - P[:, 0])
    t1, t2 = np.r_[s[0] - 1, s], np.r_[d[0] - 1, d]  # rules "value <= t": these realise every partition
    brute = min(C[y, mossman_rule(P, a, b)].mean() for a in t1 for b in t2)
    assert cost == pytest.approx(brute)
    t, u, cost2 = learn_mossman_thresholds(P[:, :2] / P[:, :2].sum(1, keepdims=True), np.minimum(y, 1), C[:2, :2])
    assert t == 1.0


def test_mossman_thresholds_reject_other_class_counts():
    P, y, C = _problem(0, K=4)
    with pytest.raises(ValueError, match="3 classes"):
        learn_mossman_thresholds(P, y, C)


# ----------------------------------------------------------------------------- estimators


class _NoProba(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        return self


# the forms and settings beyond those of tests/test_estimators.py::test_sklearn_estimator_checks (every public
# estimator: PartitionMatrixClassifier, LachicheFlachClassifier and MossmanClassifier with cv=3)
@parametrize_with_checks(
    [PartitionMatrixClassifier(form="column", cv=2, n_passes=2),
     PartitionMatrixClassifier(form="full", bounded=False, cv=2), PartitionMatrixClassifier(form="row", cv=2),
     MossmanClassifier(cv=2)],
    expected_failed_checks=lambda est: type(est)._expected_failed_checks,
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_expected_failed_checks_are_documented():
    assert set(EXPECTED_FAILED_CHECKS) == {"check_classifiers_train"}
    assert set(MossmanClassifier._expected_failed_checks) == {"check_classifiers_train", "check_dtype_object"}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=240, n_features=6, n_informative=4, n_classes=3, random_state=0)
    return X, np.array(["a", "b", "c"])[y]


COSTS = np.array([[0.0, 1.0, 8.0], [2.0, 0.0, 1.0], [6.0, 3.0, 0.0]])


@pytest.mark.parametrize("make", [lambda: PartitionMatrixClassifier(cost_matrix=COSTS, random_state=0),
                                  lambda: LachicheFlachClassifier(cost_matrix=COSTS, random_state=0),
                                  lambda: MossmanClassifier(cost_matrix=COSTS, random_state=0)])
def test_estimator_fit_predict(data, make):
    X, y = data
    clf = make().fit(X, y)
    assert clf.classes_.tolist() == ["a", "b", "c"]
    P = clf.predict_proba(X)
    assert np.allclose(P, clf.estimator_.predict_proba(X))  # passes the refitted estimator's through
    assert set(clf.predict(X)) <= set(clf.classes_)
    assert clf.train_cost_[-1] <= getattr(clf, "initial_cost_", np.inf)
    assert clf.train_cost_[-1] >= 0


def test_partition_classifier_attributes_and_orientation(data):
    X, y = data
    clf = PartitionMatrixClassifier(cost_matrix=COSTS, n_passes=2, random_state=0).fit(X, y)
    assert len(clf.train_cost_) == 2 and clf.train_cost_[1] <= clf.train_cost_[0] <= clf.initial_cost_
    A = clf.partition_matrix_
    D = A - COSTS  # parallel form: D[j, k] = beta_k - beta_j = D[0, k] + D[j, 0]
    assert np.allclose(D, D[0][None, :] + D[:, 0][:, None]) and not np.allclose(D, 0)
    P = clf.predict_proba(X)
    assert np.array_equal(clf.predict(X), clf.classes_[np.argmin(P @ A, axis=1)])  # project orientation
    lf = LachicheFlachClassifier(cost_matrix=COSTS, random_state=0).fit(X, y)
    assert np.array_equal(lf.predict(X), lf.classes_[np.argmax(P * lf.weights_, axis=1)])
    mo = MossmanClassifier(cost_matrix=COSTS, random_state=0).fit(X, y)
    assert np.array_equal(mo.predict(X), mo.classes_[mossman_rule(P, *mo.thresholds_)])


def test_default_cost_is_zero_one_and_fixed_seed_is_reproducible(data):
    X, y = data
    a = PartitionMatrixClassifier(random_state=1).fit(X, y)
    b = PartitionMatrixClassifier(cost_matrix=zero_one(3), random_state=1).fit(X, y)
    assert np.array_equal(a.partition_matrix_, b.partition_matrix_)
    assert np.array_equal(a.cost_matrix_, zero_one(3))


def test_tiny_class_and_custom_folds(data):
    X, y = data
    y = y.copy()
    y[0] = "z"  # a class with one member: 2 folds, it is missing from one training part
    with pytest.warns(UserWarning, match="least populated class"):
        clf = PartitionMatrixClassifier(cv=9, random_state=0).fit(X, y)
    assert clf.classes_.tolist() == ["a", "b", "c", "z"]
    clf = PartitionMatrixClassifier(cv=KFold(4, shuffle=True, random_state=0), random_state=0).fit(X[1:], y[1:])
    assert clf.partition_matrix_.shape == (3, 3)


def test_labels_cover_an_absent_class(data):
    X, y = data
    clf = PartitionMatrixClassifier(labels=["a", "b", "c", "d"], cost_matrix=1 - np.eye(4), random_state=0)
    clf.fit(X, y)
    assert clf.classes_.tolist() == ["a", "b", "c", "d"]
    assert np.all(clf.predict_proba(X)[:, 3] == 0)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"cost_matrix": np.ones((2, 2)) - np.eye(2)}, CostMatrixError, "2x2 but there are 3 classes"),
    ({"cost_matrix": [[0, -1, 1], [1, 0, 1], [1, 1, 0]]}, CostMatrixError, "negative"),
    ({"cost_matrix": [[0, np.nan, 1], [1, 0, 1], [1, 1, 0]]}, CostMatrixError, "not finite"),
    ({"cost_matrix": np.ones(3)}, CostMatrixError, "2-D"),
    ({"estimator": LinearSVC()}, ValueError, "predict_proba"),
    ({"estimator": _NoProba()}, ValueError, "predict_proba"),
    ({"labels": ["a", "b", "c", "d"]}, CostMatrixError, "3x3 but there are 4 classes"),
    ({"labels": ["a", "b"]}, ValueError, "not in labels"),
    ({"form": "diagonal"}, ValueError, "form"),
])
def test_bad_inputs_give_one_clear_error(data, kwargs, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        PartitionMatrixClassifier(**{"cost_matrix": COSTS, **kwargs}).fit(X, y)


def test_mossman_needs_three_classes():
    X, y = make_classification(n_samples=120, n_features=6, n_informative=4, n_classes=4, random_state=0)
    with pytest.raises(ValueError, match="3-class rule .* 4 classes; use PartitionMatrixClassifier"):
        MossmanClassifier().fit(X, y)


def test_estimator_with_labels_and_other_models(data):
    X, y = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = PartitionMatrixClassifier(LogisticRegression(max_iter=200), cost_matrix=COSTS, cv=3,
                                        random_state=0).fit(X, y)
    assert clf.predict(X[:5]).shape == (5,)


def test_far_changepoints_leave_the_chosen_value_finite():
    """Near-zero slopes give changepoints like +-1e300 (or +-inf): they count as never / always crossed, and the
    chosen value stays finite (a finite end margin), where a spread of 2e300 would overflow to inf."""
    from csrepro.decision.partition import _sweep

    t = np.array([-1e300, -np.inf, 0.5, 1e300, np.inf])
    d = np.array([1.0, 1.0, -5.0, 3.0, 3.0])  # the cost falls by 5 above 0.5: the best interval is (0.5, +far)
    res = _sweep(10.0, t, d, 0.0, 12.0, -np.inf, np.inf, 1.0, 1e-12)
    assert np.isfinite(res.theta) and res.theta > 0.5
    assert res.cost == pytest.approx(10.0 + 2.0 - 5.0)
