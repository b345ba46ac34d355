"""Regression lines g(x) = a x_j + b on one raw feature, by weighted least squares; two criteria.

* :class:`~csrepro.weak.criteria.LeastSquares` on :func:`~csrepro.weak.criteria.wls_channels`
  (w, w z) -- working responses z (LogitBoost-style): each feature j gets the fit of (VI.48) in
  the closed form (VI.52)-(VI.53), and the feature of smallest weighted squared error (VI.51) is
  chosen.  The sums <x_j>_w, <x_j^2>_w, <x_j z>_w are matrix-vector products over the raw
  features (exact, whatever the binning).
* :class:`~csrepro.weak.criteria.SignRegression` on one channel, MCBoost's boosting weights w
  (Beijbom et al. 2014, Sec. 5, eq. 30): targets -sign(w) with weights |w|, by the kernel
  :mod:`csrepro._kernels.linear_scan` (or its NumPy reference, ``data.backend`` "numpy").

Neither bins the features: the learner reads only ``data.X``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from csrepro._kernels import linear_scan, linear_scan_ref
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import LeastSquares, SignRegression

KERNELS = {"cython": linear_scan, "numpy": linear_scan_ref}  # the sign regression's scan, the sums, by data.backend

CONST_TOL = 1e-12  # relative weighted variance below which a feature counts as constant


@dataclass(frozen=True, eq=False)
class Line:
    """A fitted g(x) = a * x[:, feature] + b; ``score`` = weighted SSE minus sum w z^2 (for
    :class:`~csrepro.weak.criteria.SignRegression`: the directional derivative sum w g, eq. 27)."""

    feature: int
    a: float
    b: float
    score: float

    def predict(self, X: np.ndarray) -> np.ndarray:
        """g(x) for each row of X."""
        return self.a * X[:, self.feature] + self.b


class LineLearner:
    """Best single-feature weighted least-squares line (ties: lowest feature index)."""

    def fit(self, data: BinnedData, channels: np.ndarray, criterion) -> Line | None:
        """The line minimising (VI.51), or eq. 30 of MCBoost; None when all weights are zero."""
        if isinstance(criterion, SignRegression):
            if np.shape(channels)[1] != 1:
                raise ValueError(f"SignRegression takes one channel, the weights w; got {np.shape(channels)[1]}")
            j, a, b, derivative = KERNELS[data.backend].wls_scan(data.X, np.ascontiguousarray(channels[:, 0]))
            return None if j < 0 else Line(int(j), float(a), float(b), float(derivative))
        if not isinstance(criterion, LeastSquares):
            raise TypeError("the line learner fits weighted least squares; give it a LeastSquares criterion "
                            "with wls_channels(w, z), or SignRegression with the weights w")
        if "X2" not in data.cache:
            data.cache["X2"] = data.X * data.X
        X, X2 = data.X, data.cache["X2"]
        W, Z = KERNELS[data.backend].column_sums(np.ascontiguousarray(channels, dtype=np.float64), np.empty(2))
        if not W > 0:
            return None
        sx, sxz = (X.T @ channels).T
        sxx = X2.T @ channels[:, 0]
        var = W * sxx - sx * sx  # denominator of (VI.52)-(VI.53), times 1
        cov = W * sxz - sx * Z
        ok = var > CONST_TOL * W * sxx
        gain = np.where(ok, cov * cov / np.where(ok, var, 1.0), 0.0) / W
        j = int(np.argmax(gain))
        a = cov[j] / var[j] if ok[j] else 0.0
        b = (Z - a * sx[j]) / W
        return Line(j, float(a), float(b), float(-(Z * Z / W + gain[j])))
