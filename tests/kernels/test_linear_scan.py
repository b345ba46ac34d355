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


@pytest.mark.parametrize("d", range(1, 20))
def test_scan_every_feature_block(d):
    """Every split of the features into register blocks (8 at a time, the last 1 to 9 together) sums each one."""
    rng = np.random.default_rng(d)
    X = rng.normal(size=(97, d)) * rng.uniform(0.1, 10, d) + rng.normal(size=d)
    w = rng.normal(size=97)
    for j in range(d):  # make each feature in turn the best one
        Xj = X.copy()
        Xj[:, j] = -w + 0.01 * X[:, j]
        got, ref = linear_scan.wls_scan(Xj, w), linear_scan_ref.wls_scan(Xj, w)
        assert got[0] == ref[0] == j
        np.testing.assert_allclose(got[1:], ref[1:], rtol=1e-9)


@pytest.mark.parametrize("d", [*range(1, 22), 33, 34])
def test_scan_sums_are_the_sample_order_bits(d):
    """However the features are split into SIMD registers (AVX2 four per register where the CPU has it, else
    SSE2 two), each feature's sums add their samples' products in sample order: the scan's result is the bits of
    one-at-a-time sums."""
    rng = np.random.default_rng(100 + d)
    X = rng.normal(size=(41, d)) * rng.uniform(0.1, 10, d)
    w = rng.normal(size=41)
    U = T = 0.0
    ux, uxx, wx = [0.0] * d, [0.0] * d, [0.0] * d
    for i in range(41):
        ui = abs(float(w[i]))
        U += ui
        T -= float(w[i])
        for j in range(d):
            x = float(X[i, j])
            e = ui * x
            ux[j] += e
            uxx[j] += e * x
            wx[j] += float(w[i]) * x
    best, best_gain, a, b = -1, -1.0, 0.0, 0.0
    for j in range(d):
        var = uxx[j] - ux[j] * ux[j] / U
        cov = -wx[j] - ux[j] * T / U
        gain = cov * cov / var if var > 1e-12 * uxx[j] else 0.0
        if gain > best_gain:
            best, best_gain = j, gain
            a = cov / var if gain > 0.0 else 0.0
            b = (T - a * ux[j]) / U
    assert linear_scan.wls_scan(X, w) == (best, a, b, -(best_gain + T * T / U))


def test_scan_refuses_mismatched_weights():
    with pytest.raises(ValueError, match="one weight per sample"):
        linear_scan.wls_scan(np.ones((5, 2)), np.ones(4))


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_column_sums_are_numpys(n):
    """Row-by-row sums of two columns: the reference's bits and NumPy's ``sum(axis=0)``, zero signs too; shapes
    checked."""
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, 2)) * rng.choice([0.0, -0.0, 1e-3, 1.0, 1e8], (n, 2))
    got = linear_scan.column_sums(a, np.full(2, np.nan))
    assert got.tobytes() == linear_scan_ref.column_sums(a, np.full(2, np.nan)).tobytes()
    assert got.tobytes() == a.sum(axis=0).tobytes()
    for bad_a, bad_out in ((a, np.empty(3)), (np.ones((n, 3)), np.empty(2))):
        with pytest.raises(ValueError, match="shape mismatch"):
            linear_scan.column_sums(bad_a, bad_out)
