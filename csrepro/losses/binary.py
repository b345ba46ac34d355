"""Binary margin losses of the Masnadi-Shirazi thesis (2011), Ch. V: value, conditional risk, minimum.

Labels are y in {-1, +1} and f is the predictor; a loss has the class components of (V.20),
L(f, 1) = phi_1(f) and L(f, -1) = phi_{-1}(-f), and the conditional risk (V.21)
C(eta, f) = eta L(f, 1) + (1 - eta) L(f, -1), with eta = P(y = 1 | x).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["HINGE", "CostSensitiveHinge", "check_cs_svm_costs"]


def check_cs_svm_costs(C1, C_minus1):
    """``(C1, C_minus1)`` as floats if C_{-1} >= 1 and C_1 >= 2 C_{-1} - 1, else a ValueError.

    These are the constraints under (V.39) (thesis V.D.2) that make the cost-sensitive hinge
    (V.38) with e = d = C_1, b = 1, a = 2 C_{-1} - 1 satisfy (V.37), i.e. give a type-II risk.
    """
    C1, C_minus1 = float(C1), float(C_minus1)
    if not np.isfinite(C_minus1) or C_minus1 < 1:
        raise ValueError(f"C_minus1 must be >= 1 (thesis V.41-V.42); got {C_minus1:g}. "
                         "Scale C1 and C_minus1 up by the same factor (only their ratio sets the Bayes threshold)")
    if not np.isfinite(C1) or C1 < 2 * C_minus1 - 1:
        raise ValueError(f"C1 must be >= 2*C_minus1 - 1 = {2 * C_minus1 - 1:g} (thesis V.39); got C1={C1:g}, "
                         f"C_minus1={C_minus1:g}. Raise C1 or lower C_minus1 towards 1")
    return C1, C_minus1


@dataclass(frozen=True)
class CostSensitiveHinge:
    """The cost-sensitive hinge loss (V.38) with e = d = C_1, b = 1, a = 2 C_{-1} - 1 (V.D.2).

    L(f, 1) = [C_1 - C_1 f]_+ (margin 1, slope C_1) and L(f, -1) = [1 + a f]_+ (margin
    kappa = 1/a, slope a).  ``C1 = C_minus1 = 1`` is the SVM hinge [1 - y f]_+.
    """

    C1: float = 1.0
    C_minus1: float = 1.0

    def __post_init__(self):
        check_cs_svm_costs(self.C1, self.C_minus1)

    @property
    def slope_negative(self) -> float:
        """a = 2 C_{-1} - 1 (V.42: lambda)."""
        return 2.0 * self.C_minus1 - 1.0

    @property
    def kappa(self) -> float:
        """Margin of the negative class, kappa = 1 / (2 C_{-1} - 1) (V.42)."""
        return 1.0 / self.slope_negative

    @property
    def gamma(self) -> float:
        """Cost-sensitive Bayes threshold on eta, C_{-1} / (C_1 + C_{-1}) (V.5, V.18)."""
        return self.C_minus1 / (self.C1 + self.C_minus1)

    def value(self, y, f):
        """L(f, y) of (V.38) for labels y in {-1, +1} (broadcast against f)."""
        y, f = np.asarray(y), np.asarray(f, dtype=np.float64)
        return np.where(y > 0, np.maximum(0.0, self.C1 * (1.0 - f)), np.maximum(0.0, 1.0 + self.slope_negative * f))

    def conditional_risk(self, eta, f):
        """C(eta, f) = eta L(f, 1) + (1 - eta) L(f, -1) (V.21)."""
        eta = np.asarray(eta, dtype=np.float64)
        return eta * self.value(1, f) + (1.0 - eta) * self.value(-1, f)

    def predictor(self, eta):
        """f*(eta) = sign((C_1 + C_{-1}) eta - C_{-1}) (V.35), with sign(0) = +1 as in (V.26)."""
        eta = np.asarray(eta, dtype=np.float64)
        return np.where((self.C1 + self.C_minus1) * eta - self.C_minus1 >= 0, 1.0, -1.0)

    def min_conditional_risk(self, eta):
        """C*(eta) of (V.39): the conditional risk (V.21) at the predictor (V.35).

        Equals 2 C_1 eta below gamma and 2 C_{-1} (1 - eta) above, maximal at gamma.  For
        C_{-1} > 1 this is not min_f C(eta, f) of the loss (V.38): f = -kappa gives
        C_1 (1 + kappa) eta < 2 C_1 eta (checked in tests/svm/test_cs_svm.py).
        """
        return self.conditional_risk(eta, self.predictor(eta))


#: the SVM hinge loss [1 - y f]_+, minimum conditional risk 1 - |2 eta - 1| (V.34 ff.)
HINGE = CostSensitiveHinge(1.0, 1.0)
