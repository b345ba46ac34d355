"""The weak-learner scan against its NumPy reference and a brute-force weighted fit."""

import numpy as np
import pytest

from csrepro._kernels import linear_scan, linear_scan_ref


@pytest.mark.parametrize("seed", range(5))
def test_scan_matches_reference_and_bruteforce(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 6)) * rng.uniform(0.1, 10, 6) + rng.normal(size=6)
    X[:, 2] = 4.0  # a constant feature is never chosen over an informative one
    w = rng.normal(size=200)
    j, a, b, dd = linear_scan.wls_scan(X, w)
    jr, ar, br, ddr = linear_scan_ref.wls_scan(X, w)
    assert j == jr and j != 2
    np.testing.assert_allclose([a, b, dd], [ar, br, ddr], rtol=1e-9)
    # brute force: weighted least squares of -sign(w) on [x_k, 1] for every feature k
    u, t = np.abs(w), -np.sign(w)
    best = None
    for k in range(X.shape[1]):
        A = np.c_[X[:, k], np.ones(len(w))] * np.sqrt(u)[:, None]
        coef = np.linalg.lstsq(A, t * np.sqrt(u), rcond=None)[0]
        deriv = np.sum(w * (coef[0] * X[:, k] + coef[1]))
        if best is None or deriv < best[0] - 1e-12:
            best = (deriv, k, coef)
    assert j == best[1]
    np.testing.assert_allclose([a, b, dd], [best[2][0], best[2][1], best[0]], rtol=1e-7)


def test_scan_all_zero_weights():
    X = np.ones((5, 2))
    assert linear_scan.wls_scan(X, np.zeros(5))[0] == -1
    assert linear_scan_ref.wls_scan(X, np.zeros(5))[0] == -1
