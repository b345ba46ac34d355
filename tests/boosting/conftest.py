"""Shared data of the boosting tests."""

import numpy as np
import pytest
from sklearn.datasets import load_digits


@pytest.fixture(scope="module")
def digits():
    """The first 400 digits (10 classes, 64 integer features)."""
    X, y = load_digits(return_X_y=True)
    return X[:400], y[:400]


def _noisy_binary(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 16, size=(n, 4)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] + 4 * rng.standard_normal(n) > 15, "b", "a")
    return X, y


@pytest.fixture
def noisy_binary():
    """``noisy_binary(seed=0, n=300)``: integer features 0..15 and noisy labels "a"/"b", so no stump is perfect
    and AdaBoost runs every round."""
    return _noisy_binary
