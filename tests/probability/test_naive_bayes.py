"""QuantizedNaiveBayes: Laplace-corrected categorical naive Bayes over quantised features (O'Brien et al. 2008,
Sec. 6)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.naive_bayes import CategoricalNB
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro.probability import QuantizedNaiveBayes
from csrepro.probability.naive_bayes import quantization_edges

# two binary features, classes "a" (2 examples) and "b" (3)
X_HAND = np.array([[0, 0], [0, 1], [1, 1], [1, 1], [1, 0]], dtype=float)
Y_HAND = np.array(["a", "a", "b", "b", "b"])


def test_two_feature_posterior_by_hand():
    """P(k) = (N_k + 1) / (N + K); P(v | k) = (N_kv + 1) / (N_k + m): for x = (0, 1),
    a: 3/7 * (2+1)/(2+2) * (1+1)/(2+2) = 9/56 and b: 4/7 * (0+1)/(3+2) * (2+1)/(3+2) = 12/175."""
    model = QuantizedNaiveBayes().fit(X_HAND, Y_HAND)
    a = Fraction(3, 7) * Fraction(3, 4) * Fraction(2, 4)
    b = Fraction(4, 7) * Fraction(1, 5) * Fraction(3, 5)
    assert (a, b) == (Fraction(9, 56), Fraction(12, 175))
    expected = np.array([float(a / (a + b)), float(b / (a + b))])
    np.testing.assert_allclose(model.predict_proba([[0, 1]])[0], expected, rtol=1e-12)
    assert model.predict([[0, 1]])[0] == "a"
    np.testing.assert_array_equal(model.class_count_, [2, 3])
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [3 / 7, 4 / 7])
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0]), [[3 / 4, 1 / 4], [1 / 5, 4 / 5]])
    assert not model.quantized_.any()


def test_unseen_category_gets_the_laplace_zero_count_factor():
    """Feature 0 = 7 was never seen: its factor is 1 / (N_k + m_0) per class (a: 1/4, b: 1/5), no error."""
    model = QuantizedNaiveBayes().fit(X_HAND, Y_HAND)
    a = Fraction(3, 7) * Fraction(1, 4) * Fraction(2, 4)
    b = Fraction(4, 7) * Fraction(1, 5) * Fraction(3, 5)
    np.testing.assert_allclose(model.predict_proba([[7, 1]])[0], [float(a / (a + b)), float(b / (a + b))],
                               rtol=1e-12)
    np.testing.assert_array_equal(model.encode([[7, 1], [1, 0]]), [[-1, 1], [1, 0]])


def test_absent_label_gets_the_laplace_prior_and_uniform_likelihoods():
    """labels adds "c" (no example): prior 1 / (5 + 3), likelihoods 1 / 2 in each binary feature."""
    model = QuantizedNaiveBayes(labels=["a", "b", "c"]).fit(X_HAND, Y_HAND)
    a = Fraction(3, 8) * Fraction(3, 4) * Fraction(2, 4)
    b = Fraction(4, 8) * Fraction(1, 5) * Fraction(3, 5)
    c = Fraction(1, 8) * Fraction(1, 2) * Fraction(1, 2)
    total = a + b + c
    np.testing.assert_allclose(model.predict_proba([[0, 1]])[0], [float(a / total), float(b / total),
                                                                  float(c / total)], rtol=1e-12)
    assert list(model.classes_) == ["a", "b", "c"]


def test_uniform_levels_of_a_known_column():
    """0..100 (101 distinct values > 21): width 100/21, level floor(21 x / 100), 100 and beyond in level 20,
    below 0 in level 0."""
    column = np.arange(101.0)
    np.testing.assert_allclose(quantization_edges(column, 21), 100 * np.arange(1, 21) / 21)
    X = column[:, None]
    model = QuantizedNaiveBayes().fit(X, (column > 50).astype(int))
    assert model.quantized_.tolist() == [True] and model.n_categories_.tolist() == [21]
    test = np.array([0, 4, 5, 9.6, 50, 99, 100, -3, 250])[:, None]
    np.testing.assert_array_equal(model.encode(test)[:, 0], [0, 0, 1, 2, 10, 20, 20, 0, 20])
    np.testing.assert_array_equal(model.encode(X)[:, 0], np.minimum(np.floor(21 * column / 100), 20))


def test_quantile_levels_of_a_known_column():
    """0..99 into 4 equal-frequency levels: edges 24.75, 49.5, 74.25, 25 values per level."""
    column = np.arange(100.0)
    np.testing.assert_allclose(quantization_edges(column, 4, "quantile"), [24.75, 49.5, 74.25])
    model = QuantizedNaiveBayes(n_values=4, quantize="quantile").fit(column[:, None], column % 2)
    np.testing.assert_array_equal(np.bincount(model.encode(column[:, None])[:, 0]), [25, 25, 25, 25])
    # heavy ties: 80 zeros; the quantiles at 0 are merged away, one edge left between the nonzero values
    tied = np.concatenate([np.zeros(80), np.arange(1.0, 21)])
    edges = quantization_edges(tied, 4, "quantile")
    assert np.all(edges > 0) and len(edges) < 3


def test_few_distinct_values_are_categories_many_are_quantised():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 21, 300), rng.normal(size=300), rng.choice([-1.5, 2.0, 10.0], 300)])
    X[:21, 0] = np.arange(21)  # all 21 values present: still categorical at n_values = 21
    model = QuantizedNaiveBayes().fit(X, rng.integers(0, 3, 300))
    assert model.quantized_.tolist() == [False, True, False]
    assert model.n_categories_.tolist() == [21, 21, 3]
    np.testing.assert_array_equal(model.categories_[2], [-1.5, 2.0, 10.0])
    assert model.bin_edges_[0] is None and len(model.bin_edges_[1]) == 20


def test_counts_equal_scikit_learn_categorical_nb_on_the_codes():
    """On the coded features, CategoricalNB(alpha=1, min_categories=m_j) with our Laplace prior gives the
    same posteriors (it does the same counting)."""
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=400), rng.integers(0, 5, 400), rng.exponential(size=400)])
    y = (X[:, 0] + 0.3 * X[:, 1] + rng.normal(size=400) > 0.5).astype(int) + (X[:, 2] > 1)
    for quantize in ("uniform", "quantile"):
        model = QuantizedNaiveBayes(quantize=quantize).fit(X, y)
        codes = model.encode(X)
        reference = CategoricalNB(alpha=1.0, min_categories=model.n_categories_,
                                  class_prior=np.exp(model.class_log_prior_)).fit(codes, y)
        np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(codes), rtol=1e-10)


@settings(max_examples=40, deadline=None)
@given(X=arrays(np.float64, (30, 3), elements=st.floats(-1e3, 1e3)), seed=st.integers(0, 2**16),
       quantize=st.sampled_from(["uniform", "quantile"]), n_values=st.integers(2, 25))
def test_posteriors_are_a_distribution(X, seed, quantize, n_values):
    y = np.random.default_rng(seed).integers(0, 3, len(X))
    model = QuantizedNaiveBayes(n_values=n_values, quantize=quantize).fit(X, y)
    test = np.vstack([X, 2 * X + 5])
    P = model.predict_proba(test)
    assert P.shape == (len(test), len(model.classes_))
    assert np.all(P >= 0) and np.allclose(P.sum(axis=1), 1)
    np.testing.assert_array_equal(model.predict(test), model.classes_[np.argmax(P, axis=1)])


@settings(max_examples=40, deadline=None)
@given(column=arrays(np.float64, 60, elements=st.floats(-1e6, 1e6), unique=True),
       test=arrays(np.float64, 40, elements=st.floats(-2e6, 2e6)), quantize=st.sampled_from(["uniform", "quantile"]))
def test_quantisation_is_monotone_and_in_range(column, test, quantize):
    model = QuantizedNaiveBayes(quantize=quantize).fit(column[:, None], np.arange(60) % 2)
    assert model.quantized_[0]
    test = np.sort(test)
    codes = model.encode(test[:, None])[:, 0]
    assert np.all(np.diff(codes) >= 0)
    assert codes.min() >= 0 and codes.max() < model.n_categories_[0]
    assert model.n_categories_[0] <= 21


def test_refit_is_deterministic_and_does_not_touch_the_input():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(100, 4)), rng.integers(0, 3, 100)
    X0 = X.copy()
    first = QuantizedNaiveBayes().fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(first, QuantizedNaiveBayes().fit(X, y).predict_proba(X))
    np.testing.assert_array_equal(X, X0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="NaN"):
        QuantizedNaiveBayes().fit([[0.0], [np.nan]], [0, 1])
    model = QuantizedNaiveBayes().fit(X_HAND, Y_HAND)
    with pytest.raises(ValueError, match="NaN"):
        model.predict_proba([[np.nan, 0.0]])
    with pytest.raises(ValueError, match=r"training labels \['b'\] are not in labels"):
        QuantizedNaiveBayes(labels=["a", "c"]).fit(X_HAND, Y_HAND)
    with pytest.raises(InvalidParameterError, match="alpha"):
        QuantizedNaiveBayes(alpha=0).fit(X_HAND, Y_HAND)
    with pytest.raises(InvalidParameterError, match="quantize"):
        QuantizedNaiveBayes(quantize="kmeans").fit(X_HAND, Y_HAND)


# QuantizedNaiveBayes() passes scikit-learn's checks in tests/test_estimators.py::test_sklearn_estimator_checks (every
# public estimator); quantile quantization with 5 values here
@parametrize_with_checks([QuantizedNaiveBayes(n_values=5, quantize="quantile")])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
