"""NumPy reference of :mod:`csrepro._kernels.linear_scan`."""

import numpy as np

CONST_TOL = 1e-12


def wls_scan(X, w):
    """Best single-feature WLS fit of targets -sign(w) with weights |w|: ``(j, a, b, dd)``."""
    u = np.abs(w)
    U, T = u.sum(), -w.sum()
    if U == 0.0:
        return -1, 0.0, 0.0, 0.0
    ux, uxx, wx = X.T @ u, (X * X).T @ u, X.T @ w
    var = uxx - ux * ux / U
    cov = -wx - ux * T / U
    ok = var > CONST_TOL * uxx
    gain = np.where(ok, cov * cov / np.where(ok, var, 1.0), 0.0)
    j = int(np.argmax(gain))
    a = cov[j] / var[j] if gain[j] > 0 else 0.0
    b = (T - a * ux[j]) / U
    return j, float(a), float(b), float(-(gain[j] + T * T / U))


def column_sums(a, out):
    """out (2,): the two columns' sums, row by row (NumPy's ``a.sum(axis=0)``)."""
    out[:] = np.cumsum(a, axis=0)[-1] if len(a) else 0.0
    return out
