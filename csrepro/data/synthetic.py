"""Seeded synthetic data: two Gaussian classes, planar Gaussian mixtures, label contamination."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm


def two_gaussians(n_per_class, means=((0.0, 0.0), (0.7416, 0.7416)), cov=None, labels=(-1, 1),
                  random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Two Gaussian classes with a shared covariance (default identity), rows shuffled.

    The defaults are the thesis' 2-D problem (Masnadi-Shirazi 2011, Sec. III.G.1) with Bayes error 0.30;
    ``means=((-1,), (1,))`` gives its scalar problem (Sec. VI.E.1). ``n_per_class`` is an int or a pair
    (count of ``labels[0]``, count of ``labels[1]``).
    """
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    if means.shape[0] != 2:
        raise ValueError(f"means must hold 2 class means, got shape {means.shape}")
    d = means.shape[1]
    chol = np.linalg.cholesky(np.eye(d) if cov is None else np.asarray(cov, dtype=np.float64))
    counts = np.broadcast_to(np.asarray(n_per_class, dtype=np.int64), (2,))
    rng = np.random.default_rng(random_state)
    X = np.concatenate([m + rng.standard_normal((k, d)) @ chol.T for m, k in zip(means, counts)])
    y = np.repeat(np.asarray(labels), counts)
    order = rng.permutation(len(y))
    return np.ascontiguousarray(X[order]), y[order]


def two_gaussians_bayes_error(means=((0.0, 0.0), (0.7416, 0.7416)), cov=None) -> float:
    """Bayes error of ``two_gaussians`` with equal class priors: Phi(-Mahalanobis distance / 2)."""
    means = np.atleast_2d(np.asarray(means, dtype=np.float64))
    diff = means[1] - means[0]
    cov = np.eye(len(diff)) if cov is None else np.asarray(cov, dtype=np.float64)
    return float(norm.cdf(-np.sqrt(diff @ np.linalg.solve(cov, diff)) / 2))


def gaussian_mixture_2d(n_samples: int, n_classes: int = 3, n_clusters_per_class: int = 2, cluster_std: float = 1.0,
                        box: float = 10.0, random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Planar data from ``n_classes * n_clusters_per_class`` isotropic Gaussian clusters, rows shuffled.

    Cluster centres are uniform in ``[-box/2, box/2]^2``; cluster ``j`` belongs to class ``j % n_classes``
    (labels 0..n_classes-1); the ``n_samples`` rows are shared between clusters as evenly as possible.
    """
    if n_classes < 2 or n_clusters_per_class < 1 or n_samples < n_classes * n_clusters_per_class:
        raise ValueError("need n_classes >= 2, n_clusters_per_class >= 1 and at least one sample per cluster")
    rng = np.random.default_rng(random_state)
    m = n_classes * n_clusters_per_class
    centres = rng.uniform(-box / 2, box / 2, size=(m, 2))
    counts = np.full(m, n_samples // m) + (np.arange(m) < n_samples % m)
    cluster = np.repeat(np.arange(m), counts)
    X = centres[cluster] + cluster_std * rng.standard_normal((n_samples, 2))
    order = rng.permutation(n_samples)
    return np.ascontiguousarray(X[order]), (cluster % n_classes)[order]


#: how a contaminated row gets its new label: ``other`` -- another class, uniformly (every chosen label changes);
#: ``any`` -- any class, uniformly, its own included (about 1/K of the chosen labels stay as they were)
LABEL_NOISE_DRAWS = ("other", "any")


def contaminate_labels(y, fraction: float, random_state=None, classes=None,
                       draw: str = "other") -> tuple[np.ndarray, np.ndarray]:
    """Give ``round(fraction * n)`` random rows a new label drawn as ``draw`` says (:data:`LABEL_NOISE_DRAWS`).

    This is the outlier contamination of Wu & Liu (2007) used in the thesis (Sec. IV.E): ``draw="other"`` flips
    each chosen label; ``draw="any"`` re-draws it over all classes (the thesis' reading R).  The chosen rows are the
    same for both draws.  ``classes`` defaults to the labels present in ``y``.  Returns the new labels and the bool
    mask of the chosen rows.
    """
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must be in [0, 1], got {fraction!r}")
    if draw not in LABEL_NOISE_DRAWS:
        raise ValueError(f"draw must be one of {LABEL_NOISE_DRAWS}, got {draw!r}")
    y = np.asarray(y)
    classes = np.unique(y if classes is None else classes)
    if len(classes) < 2:
        raise ValueError("need at least 2 classes to flip labels")
    codes = np.searchsorted(classes, y)
    if np.any(codes >= len(classes)) or np.any(classes[np.minimum(codes, len(classes) - 1)] != y):
        raise ValueError("y has labels that are not in classes")
    rng = np.random.default_rng(random_state)
    flipped = np.zeros(len(y), dtype=bool)
    idx = rng.choice(len(y), size=round(fraction * len(y)), replace=False)
    flipped[idx] = True
    new = y.copy()
    if draw == "other":
        new[idx] = classes[(codes[idx] + rng.integers(1, len(classes), size=len(idx))) % len(classes)]
    else:
        new[idx] = classes[rng.integers(0, len(classes), size=len(idx))]
    return new, flipped


def rebel_mixture_2d(n_train: int = 1000, n_test: int = 500, n_classes: int = 4, n_clusters_per_class: int = 3,
                     box: float = 4.0, std_range: tuple[float, float] = (0.3, 1.5),
                     random_state=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One random planar Gaussian-mixture dataset of the REBEL Fig. 3 kind: (X, y, test_mask), train rows first.

    Appel et al. 2016 (Sec. 5) say only "drawn from a mixture of multiple Gaussian clusters", 1000 training
    and 500 test points; our choice (experiments/rebel/NOTES.md, "Synthetic data (Fig. 3)"):
    ``n_classes * n_clusters_per_class`` clusters, cluster j of class ``j % n_classes``, equal weights;
    means uniform in ``[-box, box]^2``; covariance R diag(s1^2, s2^2) R^T with s1, s2 uniform in
    ``std_range`` and R a rotation by an angle uniform in [0, pi).  Each row's cluster is drawn uniformly
    (so class counts vary), train and test from the same mixture; labels 0..n_classes-1.
    """
    if n_classes < 2 or n_clusters_per_class < 1:
        raise ValueError("need n_classes >= 2 and n_clusters_per_class >= 1")
    rng = np.random.default_rng(random_state)
    m = n_classes * n_clusters_per_class
    means = rng.uniform(-box, box, size=(m, 2))
    stds = rng.uniform(*std_range, size=(m, 2))
    angles = rng.uniform(0.0, np.pi, size=m)
    rot = np.stack([np.stack([np.cos(angles), -np.sin(angles)], -1), np.stack([np.sin(angles), np.cos(angles)], -1)], 1)
    chol = rot * stds[:, None, :]  # R diag(s): covariance R diag(s^2) R^T
    n = n_train + n_test
    cluster = rng.integers(0, m, size=n)
    X = means[cluster] + np.einsum("nij,nj->ni", chol[cluster], rng.standard_normal((n, 2)))
    mask = np.arange(n) >= n_train
    return np.ascontiguousarray(X), (cluster % n_classes).astype(np.int64), mask
