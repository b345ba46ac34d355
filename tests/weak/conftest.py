import numpy as np
import pytest


@pytest.fixture
def six_points():
    """The 6-point example of the stump tests: feature 0 = 1..6, feature 1 = [3, 3, 1, 1, 2, 2]."""
    X = np.array([[1, 3], [2, 3], [3, 1], [4, 1], [5, 2], [6, 2]], float)
    y = np.array([1, 1, -1, 1, -1, -1], float)
    w = np.array([1, 1, 1, 2, 1, 1], float) / 7
    return X, y, w
