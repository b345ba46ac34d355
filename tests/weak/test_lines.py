"""WLS line learner against numpy least squares, feature by feature."""

import numpy as np
import pytest

from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import LeastSquares, class_channels, wls_channels
from csrepro.weak.lines import LineLearner


@pytest.mark.parametrize("seed", range(4))
def test_line_matches_lstsq(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 4)) * rng.uniform(0.1, 10, 4) + rng.normal(size=4)
    X[:, 1] = 3.0  # constant feature: never better than an informative one
    w, z = rng.uniform(0.01, 1, 60), rng.normal(size=60) + X[:, 3] * 0.2
    h = LineLearner().fit(BinnedData(X, max_bins=8), wls_channels(w, z), LeastSquares())
    best = None
    for j in range(4):
        A = np.c_[X[:, j], np.ones(60)] * np.sqrt(w)[:, None]
        coef = np.linalg.lstsq(A, z * np.sqrt(w), rcond=None)[0]
        sse = np.sum(w * (z - coef[0] * X[:, j] - coef[1]) ** 2)
        if best is None or sse < best[0]:
            best = (sse, j, coef)
    assert h.feature == best[1] != 1
    np.testing.assert_allclose([h.a, h.b], best[2], rtol=1e-8)
    np.testing.assert_allclose(h.score + np.sum(w * z * z), best[0], rtol=1e-8)


def test_line_errors_and_zero_weights():
    X = np.arange(6.0).reshape(3, 2)
    with pytest.raises(TypeError, match="LeastSquares"):
        LineLearner().fit(BinnedData(X), class_channels(np.ones(3), np.ones(3)), None)
    assert LineLearner().fit(BinnedData(X), wls_channels(np.zeros(3), np.ones(3)), LeastSquares()) is None
