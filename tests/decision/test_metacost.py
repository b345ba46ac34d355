"""MetaCostClassifier (Domingos 1999): bagged probabilities, relabelling by minimum expected cost, retraining."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro.costs import CostMatrixError
from csrepro.decision.rules import decide
from csrepro.cache import clear_caches
from csrepro.decision.metacost import BAGS, MetaCostClassifier, _spread
from csrepro.probability import QuantizedNaiveBayes, RegularizedDiscriminantAnalysis


def _three_cells():
    """One categorical feature v: v = 0 holds 30 of class 0 and 20 of class 1, v = 1 holds 2 and 48, v = 2 holds
    50 and 1."""
    v = np.repeat([0, 0, 1, 1, 2, 2], [30, 20, 2, 48, 50, 1])
    y = np.repeat([0, 1, 0, 1, 0, 1], [30, 20, 2, 48, 50, 1])
    return v[:, None].astype(float), y


def test_cost_driven_relabel_and_the_orientation():
    """C[1, 0] = 10 (a true 1 called 0) and C[0, 1] = 1.  Naive Bayes gives P(1 | v) ~ 0.40, 0.94, 0.04 for
    v = 0, 1, 2: at v = 0 calling 0 costs ~4 and calling 1 ~0.6, so the class-0 examples there become 1 (also at
    v = 1); at v = 2 calling 0 costs ~0.4 against ~0.96, so the one class-1 example becomes 0.  The transposed
    matrix (the paper's c_{i|j} = C[j, i] read as ours) makes calling 1 the expensive mistake: only v = 1
    (calling 1 costs ~0.6 against ~0.94) stays 1."""
    X, y = _three_cells()
    v = X[:, 0]
    C = np.array([[0.0, 1.0], [10.0, 0.0]])
    for include_sample in (True, False):
        model = MetaCostClassifier(QuantizedNaiveBayes(), cost_matrix=C, n_resamples=20,
                                   include_sample=include_sample, random_state=0).fit(X, y)
        np.testing.assert_array_equal(model.y_relabelled_, np.where(v == 2, 0, 1))
        np.testing.assert_array_equal(model.relabelled_, model.y_relabelled_ != y)
        assert model.relabelled_.sum() == 30 + 2 + 1
        np.testing.assert_array_equal(model.predict([[0.0], [1.0], [2.0]]), [1, 1, 0])
        np.testing.assert_array_equal(model.y_relabelled_, decide(model.train_proba_, C))
    transposed = MetaCostClassifier(QuantizedNaiveBayes(), cost_matrix=C.T, n_resamples=20, random_state=0).fit(X, y)
    np.testing.assert_array_equal(transposed.y_relabelled_, np.where(v == 1, 1, 0))


def test_zero_one_costs_relabel_to_the_most_probable_class():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = np.array(["x", "y", "z"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5)]
    model = MetaCostClassifier(QuantizedNaiveBayes(), n_resamples=10, random_state=1).fit(X, y)
    np.testing.assert_allclose(model.train_proba_.sum(axis=1), 1)
    np.testing.assert_array_equal(model.y_relabelled_, model.classes_[np.argmax(model.train_proba_, axis=1)])
    np.testing.assert_allclose(model.cost_matrix_, 1 - np.eye(3))


class _Memorizer(ClassifierMixin, BaseEstimator):
    """Feature 0 is an example id: P = one-hot of the stored label for an id seen in training, else uniform."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.seen_ = dict(zip(X[:, 0].astype(int), np.searchsorted(self.classes_, y)))
        return self

    def predict_proba(self, X):
        P = np.full((len(X), len(self.classes_)), 1.0 / len(self.classes_))
        for row, key in enumerate(X[:, 0].astype(int)):
            if key in self.seen_:
                P[row] = 0.0
                P[row, self.seen_[key]] = 1.0
        return P

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _ids(n=40):
    return np.arange(n, dtype=float)[:, None], np.arange(n) % 2


def test_excluding_the_sample_uses_only_models_that_did_not_see_it():
    """With the memoriser, a model that saw x_n says its label with certainty and one that did not says 1/2:
    excluding the sample gives exactly 1/2; including it gives (c + (R - c)/2) / R for c models that saw it."""
    X, y = _ids()
    R = 30
    excluded = MetaCostClassifier(_Memorizer(), n_resamples=R, include_sample=False, random_state=3).fit(X, y)
    assert excluded.n_fallback_ == 0 and np.all(excluded.n_out_of_bag_ > 0)
    np.testing.assert_allclose(excluded.train_proba_, 0.5)
    included = MetaCostClassifier(_Memorizer(), n_resamples=R, include_sample=True, random_state=3).fit(X, y)
    np.testing.assert_array_equal(included.n_out_of_bag_, excluded.n_out_of_bag_)  # the same resamples
    seen = R - included.n_out_of_bag_
    np.testing.assert_allclose(included.train_proba_[np.arange(40), y], (seen + (R - seen) / 2) / R)
    np.testing.assert_array_equal(included.y_relabelled_, y)


def test_no_out_of_bag_model_falls_back_to_all_models():
    """One resample: an example inside it has no model without it, so it gets the (only) model's one-hot."""
    X, y = _ids()
    model = MetaCostClassifier(_Memorizer(), n_resamples=1, include_sample=False, random_state=0).fit(X, y)
    in_bag = model.n_out_of_bag_ == 0
    assert model.n_fallback_ == in_bag.sum() > 0
    np.testing.assert_allclose(model.train_proba_[in_bag, :][np.arange(in_bag.sum()), y[in_bag]], 1.0)
    np.testing.assert_allclose(model.train_proba_[~in_bag], 0.5)


def test_resamples_missing_a_class_are_spread_onto_all_classes():
    """Class 2 has one example, absent from most resamples; LogisticRegression has no ``labels``, so its columns
    are placed by its own classes_ (zero for class 2 where it was absent)."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 3, [[10.0, -10.0]]])
    y = np.array([0] * 20 + [1] * 20 + [2])
    model = MetaCostClassifier(LogisticRegression(), n_resamples=8, random_state=0).fit(X, y)
    assert model.train_proba_.shape == (41, 3)
    np.testing.assert_allclose(model.train_proba_.sum(axis=1), 1)
    assert model.predict_proba(X).shape == (41, 3)
    partial = LogisticRegression().fit(X[:40], y[:40])
    spread = _spread(partial, X, model.classes_)
    np.testing.assert_allclose(spread[:, :2], partial.predict_proba(X))
    np.testing.assert_array_equal(spread[:, 2], 0)


def test_labels_cover_classes_absent_from_y_and_the_inner_labels_are_set():
    X, y = _three_cells()
    model = MetaCostClassifier(QuantizedNaiveBayes(), cost_matrix=[[0, 1, 1], [10, 0, 1], [1, 1, 0]],
                               labels=[0, 1, 2], n_resamples=5, random_state=0).fit(X, y)
    assert model.classes_.tolist() == [0, 1, 2] and model.train_proba_.shape == (len(y), 3)
    assert model.estimator_.get_params()["labels"].tolist() == [0, 1, 2]
    assert model.predict_proba(X).shape == (len(y), 3)


def test_a_single_relabelled_class_gives_a_constant_final_model():
    """Calling 0 is ruinous (C[1, 0] = 1000): everything becomes 1 and the final model is a prior-only dummy."""
    X, y = _three_cells()
    model = MetaCostClassifier(LogisticRegression(), cost_matrix=[[0, 1], [1000, 0]], n_resamples=5,
                               random_state=0).fit(X, y)
    assert np.all(model.y_relabelled_ == 1)
    assert isinstance(model.estimator_, DummyClassifier)
    np.testing.assert_array_equal(model.predict(X), 1)
    np.testing.assert_array_equal(model.predict_proba(X[:2]), [[0.0, 1.0], [0.0, 1.0]])


def test_seeded_and_independent_of_n_jobs():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int) + (X[:, 1] > 1)
    C = [[0, 2, 5], [1, 0, 3], [8, 1, 0]]
    tree = DecisionTreeClassifier(max_features=1, max_depth=3)  # random: its seed comes from random_state

    def fitted(**kwargs):
        return MetaCostClassifier(tree, cost_matrix=C, n_resamples=6, **kwargs).fit(X, y)

    first, again, parallel = fitted(random_state=7), fitted(random_state=7), fitted(random_state=7, n_jobs=2)
    for other in (again, parallel):
        np.testing.assert_array_equal(first.train_proba_, other.train_proba_)
        np.testing.assert_array_equal(first.predict(X), other.predict(X))
    assert not np.array_equal(first.train_proba_, fitted(random_state=8).train_proba_)
    assert first.estimator_.random_state is not None and tree.random_state is None


def test_the_bag_is_shared_across_cost_matrices_and_changes_nothing():
    """Steps 1-2 do not involve the costs: a second fit on the same rows with the same integer seed and another
    cost matrix reuses the bagged sums (a BAGS hit) and gives exactly what a fit without the cache gives; another
    seed is another bag; an unseeded fit is never kept."""
    X, y = _three_cells()
    costs = (np.array([[0.0, 1.0], [10.0, 0.0]]), np.array([[0.0, 5.0], [1.0, 0.0]]))

    def fit(C, seed=3):
        return MetaCostClassifier(QuantizedNaiveBayes(), cost_matrix=C, n_resamples=7, include_sample=False,
                                  random_state=seed).fit(X, y)

    clear_caches("metacost_bags")
    fresh = []
    for C in costs:
        fresh.append(fit(C))
        clear_caches("metacost_bags")
    first = fit(costs[0])
    hits = BAGS.hits
    second = fit(costs[1])
    assert BAGS.hits == hits + 1
    for a, b in zip(fresh, (first, second)):
        np.testing.assert_array_equal(a.train_proba_, b.train_proba_)
        np.testing.assert_array_equal(a.y_relabelled_, b.y_relabelled_)
        np.testing.assert_array_equal(a.n_out_of_bag_, b.n_out_of_bag_)
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(first.y_relabelled_, second.y_relabelled_)  # the costs still decide
    misses = BAGS.misses
    fit(costs[0], seed=4)
    fit(costs[0], seed=None)
    assert BAGS.misses == misses + 1


def test_bad_inputs():
    X, y = _three_cells()
    nb = QuantizedNaiveBayes()
    with pytest.raises(ValueError, match="NaN"):
        MetaCostClassifier(nb, n_resamples=2).fit(np.vstack([X[:-1], [[np.nan]]]), y)
    with pytest.raises(CostMatrixError, match="cost matrix is 3x3 but there are 2 classes"):
        MetaCostClassifier(nb, cost_matrix=np.ones((3, 3)) - np.eye(3), n_resamples=2).fit(X, y)
    with pytest.raises(CostMatrixError, match="negative"):
        MetaCostClassifier(nb, cost_matrix=[[0, -1], [1, 0]], n_resamples=2).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'estimator' parameter .* 'predict_proba'"):
        MetaCostClassifier(SVC(), n_resamples=2).fit(X, y)
    with pytest.raises(InvalidParameterError, match="'estimator' parameter"):
        MetaCostClassifier(n_resamples=2).fit(X, y)
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        MetaCostClassifier(nb, n_resamples=0).fit(X, y)
    with pytest.raises(ValueError, match="needs at least 2 classes"):
        MetaCostClassifier(nb, n_resamples=2).fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match=r"training labels \[1\] are not in labels"):
        MetaCostClassifier(nb, n_resamples=2, labels=[0, 2]).fit(X, y)


# MetaCostClassifier(QuantizedNaiveBayes(), n_resamples=3, random_state=0) passes scikit-learn's checks in
# tests/test_estimators.py::test_sklearn_estimator_checks (every public estimator); other models and settings here
@parametrize_with_checks([MetaCostClassifier(RegularizedDiscriminantAnalysis(), n_resamples=3, include_sample=False,
                                             random_state=0),
                          MetaCostClassifier(LogisticRegression(), n_resamples=2, random_state=0)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
