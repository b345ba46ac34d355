"""Synthetic generators: seeded determinism, shapes, and their documented distributions."""

import numpy as np
import pytest

from csrepro.data.synthetic import (
    contaminate_labels,
    gaussian_mixture_2d,
    two_gaussians,
    two_gaussians_bayes_error,
)


def test_two_gaussians_is_seeded_and_shaped():
    X, y = two_gaussians(50, random_state=3)
    X2, y2 = two_gaussians(50, random_state=3)
    assert X.shape == (100, 2) and np.array_equal(X, X2) and np.array_equal(y, y2)
    assert not np.array_equal(X, two_gaussians(50, random_state=4)[0])
    assert np.bincount(y == 1).tolist() == [50, 50]
    X, y = two_gaussians((30, 10), means=((-1,), (1,)), labels=("neg", "pos"), random_state=0)
    assert X.shape == (40, 1) and (y == "pos").sum() == 10


def test_two_gaussians_matches_the_thesis_problem():
    # means (0,0) and (0.7416,0.7416), identity covariance: Bayes error Phi(-1.04879/2) = 0.3000
    assert two_gaussians_bayes_error() == pytest.approx(0.30, abs=5e-4)
    X, y = two_gaussians(20000, random_state=1)
    assert X[y == 1].mean(axis=0) == pytest.approx([0.7416, 0.7416], abs=0.03)
    bayes_rule = np.where(X.sum(axis=1) > 0.7416, 1, -1)  # boundary x1 + x2 = 0.7416
    assert np.mean(bayes_rule != y) == pytest.approx(0.30, abs=0.01)
    cov = [[2.0, 0.0], [0.0, 0.5]]
    assert two_gaussians_bayes_error(((0, 0), (2, 0)), cov) == pytest.approx(0.2398, abs=1e-4)  # Phi(-sqrt(2)/2)


def test_gaussian_mixture_counts_and_labels():
    X, y = gaussian_mixture_2d(600, n_classes=3, n_clusters_per_class=2, random_state=7)
    assert X.shape == (600, 2) and np.bincount(y).tolist() == [200, 200, 200]
    X2, y2 = gaussian_mixture_2d(600, n_classes=3, n_clusters_per_class=2, random_state=7)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    _, y = gaussian_mixture_2d(7, n_classes=2, n_clusters_per_class=2, random_state=0)
    assert np.bincount(y).tolist() == [4, 3]  # clusters 0,1,2,3 get 2,2,2,1 rows; classes 0,1,0,1
    with pytest.raises(ValueError, match="at least one sample per cluster"):
        gaussian_mixture_2d(3, n_classes=2, n_clusters_per_class=2)


def test_contaminate_labels_flips_exactly_the_fraction():
    y = np.repeat(np.array(["a", "b", "c"]), 100)
    noisy, flipped = contaminate_labels(y, 0.4, random_state=2)
    assert flipped.sum() == 120
    assert np.all(noisy[flipped] != y[flipped]) and np.array_equal(noisy[~flipped], y[~flipped])
    again, _ = contaminate_labels(y, 0.4, random_state=2)
    assert np.array_equal(noisy, again)
    assert not contaminate_labels(y, 0.0, random_state=2)[1].any()
    binary, flipped = contaminate_labels(np.array([-1, 1] * 50), 0.1, random_state=0)
    assert flipped.sum() == 10 and set(binary) == {-1, 1}


def test_contaminate_labels_draws_other_classes_uniformly():
    y = np.zeros(30000, dtype=int)
    noisy, _ = contaminate_labels(y, 1.0, random_state=0, classes=[0, 1, 2, 3])
    assert np.bincount(noisy, minlength=4)[0] == 0
    assert np.bincount(noisy)[1:] / 30000 == pytest.approx([1 / 3] * 3, abs=0.01)


def test_contaminate_labels_redraw_over_every_class():
    """draw="any": the same chosen rows as draw="other", each re-drawn over all classes (its own included)."""
    y = np.repeat(np.arange(4), 10000)
    flipped_labels, chosen = contaminate_labels(y, 0.5, random_state=3, draw="other")
    redrawn, same_chosen = contaminate_labels(y, 0.5, random_state=3, draw="any")
    assert np.array_equal(chosen, same_chosen) and chosen.sum() == 20000
    assert np.array_equal(redrawn[~chosen], y[~chosen])
    changed = redrawn[chosen] != y[chosen]
    assert 0 < changed.mean() < 1  # some chosen labels stay: re-drawn, not flipped
    # each chosen row's new label is uniform over the four classes: 5,000 expected each, SD 61 (seed fixed)
    assert np.abs(np.bincount(redrawn[chosen], minlength=4) - 5000).max() < 300
    assert changed.mean() == pytest.approx(0.75, abs=0.015)  # 3/4 of uniform draws differ from the old label
    binary, chosen = contaminate_labels(np.array([-1, 1] * 5000), 0.4, random_state=0, draw="any")
    assert chosen.sum() == 4000 and set(binary) == {-1, 1}
    assert (binary != np.array([-1, 1] * 5000)).sum() == pytest.approx(2000, abs=150)  # half of the 40 %


def test_contaminate_labels_validates():
    with pytest.raises(ValueError, match="fraction"):
        contaminate_labels([0, 1], 1.5)
    with pytest.raises(ValueError, match="not in classes"):
        contaminate_labels([0, 5], 0.5, classes=[0, 1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        contaminate_labels([0, 0], 0.5)
    with pytest.raises(ValueError, match="draw must be one of"):
        contaminate_labels([0, 1], 0.5, draw="flip")
