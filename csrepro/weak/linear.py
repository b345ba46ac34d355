"""Regression weak learners g(x) = a x_j + b on one feature (Beijbom et al. 2014, Sec. 5)."""

from dataclasses import dataclass

import numpy as np

from csrepro._kernels import linear_scan, linear_scan_ref

BACKENDS = {"cython": linear_scan, "numpy": linear_scan_ref}


@dataclass(frozen=True)
class LinearWeakLearner:
    """A fitted g(x) = a * x[:, feature] + b; ``derivative`` is its directional derivative (27)."""

    feature: int
    a: float
    b: float
    derivative: float

    @classmethod
    def fit(cls, X: np.ndarray, w: np.ndarray, backend: str = "cython"):
        """Pick the feature minimising (30) for boosting weights ``w``; None if ``w`` is all zero.

        Each feature is fitted by weighted least squares of -sign(w) with weights |w|
        (see :mod:`csrepro._kernels.linear_scan`).
        """
        j, a, b, dd = BACKENDS[backend].wls_scan(X, w)
        return None if j < 0 else cls(int(j), a, b, dd)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """g(x) for each row of X."""
        return self.a * X[:, self.feature] + self.b
