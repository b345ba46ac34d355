"""Binary losses of the Masnadi-Shirazi thesis (2011).

Labels are y in {-1, +1}, f is the predictor and eta = P(y = 1 | x); every method taking eta
raises a ValueError for a value outside [0, 1] or NaN (:func:`check_probability`).

* Ch. II-IV: margin losses phi(v), v = y f (:class:`MarginLoss`, :func:`get_margin_loss`), each with
  its optimal link f*(eta) (II.11), inverse link, minimum conditional risk C*(eta) (II.12) and
  boosting weight -phi'(v) (III.56).
* Ch. V: the cost-sensitive hinge (V.38), with class components L(f, 1) = phi_1(f) and
  L(f, -1) = phi_{-1}(-f) (V.20) and conditional risk (V.21) C(eta, f) = eta L(f, 1) + (1 - eta) L(f, -1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import special

__all__ = ["HINGE", "MARGIN_LOSSES", "TABLE_II8", "CostSensitiveHinge", "MarginLoss", "check_cs_svm_costs",
           "check_probability", "get_margin_loss"]


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


def check_probability(eta) -> np.ndarray:
    """``eta`` as a float64 array if every entry is a probability in [0, 1], else a ValueError naming the first
    other value (NaN included)."""
    eta = np.asarray(eta, dtype=np.float64)
    bad = ~((eta >= 0.0) & (eta <= 1.0))
    if bad.any():
        raise ValueError(f"eta = P(y = 1 | x) must lie in [0, 1]; got {float(eta[bad].flat[0])!r} "
                         f"({np.count_nonzero(bad)} of {eta.size} values outside)")
    return eta


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
        eta = check_probability(eta)
        return eta * self.value(1, f) + (1.0 - eta) * self.value(-1, f)

    def predictor(self, eta):
        """f*(eta) = sign((C_1 + C_{-1}) eta - C_{-1}) (V.35), with sign(0) = +1 as in (V.26)."""
        eta = check_probability(eta)
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


# ----------------------------------------------------------------------------------------------
# Margin losses phi(v), v = y f (Ch. II-IV)
# ----------------------------------------------------------------------------------------------


def _f64(x):
    return np.asarray(x, dtype=np.float64)


@dataclass(frozen=True)
class MarginLoss:
    """A margin loss phi(v) with the components of its risk (Ch. II), vectorised over arrays.

    ``conditional_risk`` is (II.10), ``link`` the optimal link f*(eta) (II.11),
    ``min_conditional_risk`` C*(eta) = C(eta, f*(eta)) (II.12) and ``weight`` the boosting weight
    w(v) = -phi'(v) (III.56).  ``inverse_link`` is the posterior estimate [f*]^{-1}(v) of (II.50);
    where the thesis's inverse link leaves [0, 1] for v outside f*([0, 1]) (square, Tangent and the
    LS, Cosh, Sec and Log-Cos links of Table II.8) it is clipped to [0, 1].  ``canonical`` marks
    f*(eta) = J'(eta) = -[C*]'(eta) (III.23); ``bounded`` marks phi(-inf) < inf (Definition 5).
    The methods taking eta check it with :func:`check_probability`; subclasses implement f* and C*
    as ``_f_star`` and ``_c_star`` on checked arrays.
    """

    name: str
    a: float = 1.0
    canonical: ClassVar[bool] = False
    bounded: ClassVar[bool] = False

    def value(self, v):
        """phi(v)."""
        raise NotImplementedError

    def derivative(self, v):
        """phi'(v)."""
        raise NotImplementedError

    def weight(self, v):
        """The boosting weight -phi'(v) (III.56)."""
        return -self.derivative(v)

    def link(self, eta):
        """The optimal link f*(eta) (II.11)."""
        return self._f_star(check_probability(eta))

    def inverse_link(self, v):
        """[f*]^{-1}(v), the posterior estimate in [0, 1] (II.50)."""
        raise NotImplementedError

    def min_conditional_risk(self, eta):
        """C*(eta) (II.12)."""
        return self._c_star(check_probability(eta))

    def conditional_risk(self, eta, f):
        """C(eta, f) = eta phi(f) + (1 - eta) phi(-f) (II.10)."""
        eta, f = check_probability(eta), _f64(f)
        return eta * self.value(f) + (1.0 - eta) * self.value(-f)

    def _f_star(self, eta):
        """f*(eta) for a float64 array of probabilities (subclasses)."""
        raise NotImplementedError

    def _c_star(self, eta):
        """C*(eta) for a float64 array of probabilities (subclasses)."""
        raise NotImplementedError


class _HalfLogitLink:
    """f*(eta) = 1/2 log(eta/(1-eta)) and its inverse e^{2v}/(1 + e^{2v}): shared by the exponential and Savage losses."""

    def _f_star(self, eta):
        return 0.5 * special.logit(eta)

    def inverse_link(self, v):
        return special.expit(2.0 * _f64(v))


@dataclass(frozen=True)
class ExponentialLoss(_HalfLogitLink, MarginLoss):
    """phi(v) = e^{-v} of AdaBoost (Table IV.1): f* = 1/2 log(eta/(1-eta)), C* = 2 sqrt(eta(1-eta)).

    e^{-v} overflows to inf for v < -709 (the value is not a float64); nothing returns NaN.
    """

    name: str = "exponential"

    def value(self, v):
        with np.errstate(over="ignore"):
            return np.exp(-_f64(v))

    def derivative(self, v):
        return -self.value(v)

    def _c_star(self, eta):
        return 2.0 * np.sqrt(eta * (1.0 - eta))


@dataclass(frozen=True)
class HingeLoss(MarginLoss):
    """phi(v) = max(1 - v, 0) of the SVM (Table IV.1): f* = sign(2 eta - 1), C* = 1 - |2 eta - 1|.

    phi'(1) is taken as 0 (the right derivative).  f* is not invertible (Table IV.1: NA), so
    ``inverse_link`` raises; f*(1/2) = 0, one of the minimisers [-1, 1] of C(1/2, f).
    """

    name: str = "hinge"

    def value(self, v):
        return np.maximum(1.0 - _f64(v), 0.0)

    def derivative(self, v):
        return np.where(_f64(v) < 1.0, -1.0, 0.0)

    def _f_star(self, eta):
        return np.sign(2.0 * eta - 1.0)

    def inverse_link(self, v):
        raise ValueError("the hinge loss has the non-invertible link f*(eta) = sign(2 eta - 1) (thesis Table IV.1: "
                         "NA), so it gives no posterior estimate; use a loss with an invertible link, e.g. "
                         "'logistic' or 'canonical_logistic'")

    def _c_star(self, eta):
        return 1.0 - np.abs(2.0 * eta - 1.0)


@dataclass(frozen=True)
class SquareLoss(MarginLoss):
    """phi(v) = (1 - v)^2 of least squares (Table IV.1): f* = 2 eta - 1, C* = 4 eta(1 - eta)."""

    name: str = "square"

    def value(self, v):
        return (1.0 - _f64(v)) ** 2

    def derivative(self, v):
        return -2.0 * (1.0 - _f64(v))

    def _f_star(self, eta):
        return 2.0 * eta - 1.0

    def inverse_link(self, v):
        return np.clip(0.5 * (_f64(v) + 1.0), 0.0, 1.0)

    def _c_star(self, eta):
        return 4.0 * eta * (1.0 - eta)


@dataclass(frozen=True)
class SavageLoss(_HalfLogitLink, MarginLoss):
    """The Savage loss phi(v) = 1/(1 + e^{2v})^2 (IV.14), from C* = eta(1 - eta) and f* = 1/2 log(eta/(1-eta))."""

    name: str = "savage"
    bounded: ClassVar[bool] = True

    def value(self, v):
        return special.expit(-2.0 * _f64(v)) ** 2

    def derivative(self, v):
        v = _f64(v)
        s = special.expit(-2.0 * v)
        return -4.0 * s * s * special.expit(2.0 * v)

    def _c_star(self, eta):
        return eta * (1.0 - eta)


@dataclass(frozen=True)
class TangentLoss(MarginLoss):
    """The Tangent loss phi(v) = (2 arctan(v) - 1)^2 (IV.30): f* = tan(eta - 1/2) (IV.28), C* = 4 eta(1 - eta).

    [f*]^{-1}(v) = 1/2 + arctan(v) (IV.29) leaves [0, 1] for |v| > tan(1/2); ``inverse_link`` clips it.
    """

    name: str = "tangent"
    bounded: ClassVar[bool] = True

    def value(self, v):
        return (2.0 * np.arctan(_f64(v)) - 1.0) ** 2

    def derivative(self, v):
        v = _f64(v)
        return 4.0 * (2.0 * np.arctan(v) - 1.0) / (1.0 + v * v)

    def _f_star(self, eta):
        return np.tan(eta - 0.5)

    def inverse_link(self, v):
        return np.clip(0.5 + np.arctan(_f64(v)), 0.0, 1.0)

    def _c_star(self, eta):
        return 4.0 * eta * (1.0 - eta)


@dataclass(frozen=True)
class CanonicalLogisticLoss(MarginLoss):
    """phi(v; a) = (1/a) log(1 + e^{-a v}) (III.38), f* = (1/a) log(eta/(1-eta)) (III.37).

    C* = -J of (III.36); weight e^{-a v}/(1 + e^{-a v}) (Table III.2).  a = 1 is the logistic loss.
    """

    name: str = "canonical_logistic"
    canonical: ClassVar[bool] = True

    def value(self, v):
        return np.logaddexp(0.0, -self.a * _f64(v)) / self.a

    def derivative(self, v):
        return -special.expit(-self.a * _f64(v))

    def _f_star(self, eta):
        return special.logit(eta) / self.a

    def inverse_link(self, v):
        return special.expit(self.a * _f64(v))

    def _c_star(self, eta):
        return (special.entr(eta) + special.entr(1.0 - eta)) / self.a


def _boost_tail(x):
    """sqrt(4 + x^2) - x without cancellation (= 4 / (sqrt(4 + x^2) + x) for x >= 0)."""
    h = np.hypot(2.0, x)
    return np.where(x >= 0, 4.0 / (h + np.abs(x)), h + np.abs(x))


@dataclass(frozen=True)
class CanonicalBoostingLoss(MarginLoss):
    """phi(v; a) = (sqrt(4 + (a v)^2) - a v) / (2a) (III.35) from J = -(2/a) sqrt(eta(1-eta)) (III.32).

    f* = (2 eta - 1) / (a sqrt(eta(1-eta))) (III.33), [f*]^{-1} = 1/2 + a v / (2 sqrt(4 + (a v)^2)) (III.34).
    """

    name: str = "canonical_boosting"
    canonical: ClassVar[bool] = True

    def value(self, v):
        return _boost_tail(self.a * _f64(v)) / (2.0 * self.a)

    def derivative(self, v):
        x = self.a * _f64(v)
        return -_boost_tail(x) / (2.0 * np.hypot(2.0, x))  # [f*]^{-1}(v) - 1 (III.25)

    def _f_star(self, eta):
        with np.errstate(divide="ignore"):
            return (2.0 * eta - 1.0) / (self.a * np.sqrt(eta * (1.0 - eta)))

    def inverse_link(self, v):
        x = self.a * _f64(v)
        return _boost_tail(-x) / (2.0 * np.hypot(2.0, x))  # 1 - [f*]^{-1}(-v) (II.18)

    def _c_star(self, eta):
        return 2.0 / self.a * np.sqrt(eta * (1.0 - eta))


_SQRT_2PI = np.sqrt(2.0 * np.pi)


@dataclass(frozen=True)
class CanonicalGaussianLoss(MarginLoss):
    """phi(v) = v/2 [erf(v / sqrt(2a^2)) - 1] + a/sqrt(2 pi) e^{-v^2/(2a^2)} (III.42), a the std. dev.

    [f*]^{-1} is the N(0, a^2) cdf (III.41), f* = sqrt(2a^2) erf^{-1}(2 eta - 1) (III.43).  The integral
    (III.44) has the closed form C*(eta) = a N(t) at t = f*(eta)/a (N the standard normal pdf), from
    C* = phi(f*) - f* phi'(f*) (Theorem 12, property 6).
    """

    name: str = "canonical_gaussian"
    canonical: ClassVar[bool] = True

    def value(self, v):
        v = _f64(v)
        t = v / self.a
        return self.a * np.exp(-0.5 * t * t) / _SQRT_2PI - v * special.ndtr(-t)

    def derivative(self, v):
        return -special.ndtr(-_f64(v) / self.a)

    def _f_star(self, eta):
        return self.a * special.ndtri(eta)

    def inverse_link(self, v):
        return special.ndtr(_f64(v) / self.a)

    def _c_star(self, eta):
        t = special.ndtri(eta)
        return self.a * np.exp(-0.5 * t * t) / _SQRT_2PI


@dataclass(frozen=True)
class CanonicalLaplacianLoss(MarginLoss):
    """phi(v) = 1/2 [a e^{-|v|/a} + |v| - v] (III.48): [f*]^{-1} is the Laplacian cdf (III.45).

    f* = -a sign(2 eta - 1) log(1 - |2 eta - 1|) (III.46), C* = a/2 m [1 - log m], m = 1 - |2 eta - 1| (III.47).
    """

    name: str = "canonical_laplacian"
    canonical: ClassVar[bool] = True

    def value(self, v):
        v = _f64(v)
        return 0.5 * (self.a * np.exp(-np.abs(v) / self.a) + np.abs(v) - v)

    def derivative(self, v):
        v = _f64(v)
        e = np.exp(-np.abs(v) / self.a)
        return np.where(v >= 0, -0.5 * e, 0.5 * e - 1.0)

    def _f_star(self, eta):
        d = 2.0 * eta - 1.0
        with np.errstate(divide="ignore"):
            return -self.a * np.sign(d) * np.log1p(-np.abs(d))

    def inverse_link(self, v):
        v = _f64(v)
        e = np.exp(-np.abs(v) / self.a)
        return np.where(v >= 0, 1.0 - 0.5 * e, 0.5 * e)

    def _c_star(self, eta):
        m = 1.0 - np.abs(2.0 * eta - 1.0)
        return 0.5 * self.a * (m - special.xlogy(m, m))


# --- Table II.8: losses (II.48) from a maximal reward J (Table II.7) and an inverse link (Table II.6) ---


@dataclass(frozen=True)
class _Reward:
    """A symmetric convex maximal reward J(eta) = -C*(eta) of Table II.7, with J(0) = J(1) = 0 (Table II.4)."""

    a: float = 1.0

    def loss(self, link, v):
        """phi(v) = -J(p) - (1 - p) J'(p), p = [f]^{-1}(v) (II.48); 1 - p = [f]^{-1}(-v) by (II.18)."""
        p, q = link.inv(v), link.inv(-v)
        return -self.J(p) - q * self.dJ(p)

    def dloss(self, link, v):
        """phi'(v) = J''(p) (p - 1) [f^{-1}]'(v) (II.81 with C* = -J)."""
        return -self.d2J(link.inv(v)) * link.inv(-v) * link.dinv(v)


class _LSReward(_Reward):
    """J = -4 eta (1 - eta) (least squares); (II.48) simplifies to phi = 4 (1 - p)^2."""

    def loss(self, link, v):
        return 4.0 * link.inv(-v) ** 2

    def J(self, eta):
        return -4.0 * eta * (1.0 - eta)

    def dJ(self, eta):
        return 8.0 * eta - 4.0

    def d2J(self, eta):
        return np.full_like(eta, 8.0)


class _ExpReward(_Reward):
    """J = -2 sqrt(eta (1 - eta)) (boosting); phi = sqrt((1-p)/p) (II.57), evaluated from log p."""

    def J(self, eta):
        return -2.0 * np.sqrt(eta * (1.0 - eta))

    def dJ(self, eta):
        return (2.0 * eta - 1.0) / np.sqrt(eta * (1.0 - eta))

    def d2J(self, eta):
        return 0.5 / (eta * (1.0 - eta)) ** 1.5

    def loss(self, link, v):
        return np.exp(0.5 * (link.log_inv(-v) - link.log_inv(v)))

    def dloss(self, link, v):
        return -0.5 * self.loss(link, v) * (link.dlog_inv(v) + link.dlog_inv(-v))


class _LogReward(_Reward):
    """J = eta log eta + (1 - eta) log(1 - eta) (logistic regression); phi = -log p."""

    def J(self, eta):
        return -(special.entr(eta) + special.entr(1.0 - eta))

    def dJ(self, eta):
        return special.logit(eta)

    def d2J(self, eta):
        return 1.0 / (eta * (1.0 - eta))

    def loss(self, link, v):
        return -link.log_inv(v)

    def dloss(self, link, v):
        return -link.dlog_inv(v)


class _SecReward(_Reward):
    """J = sec(a(1/2 - eta)) - sec(a/2) (II.72), convex for |a(1/2 - eta)| < pi/2."""

    def J(self, eta):
        return 1.0 / np.cos(self.a * (0.5 - eta)) - 1.0 / np.cos(0.5 * self.a)

    def dJ(self, eta):
        x = self.a * (0.5 - eta)
        return -self.a * np.tan(x) / np.cos(x)

    def d2J(self, eta):
        x = self.a * (0.5 - eta)
        return self.a ** 2 * (np.tan(x) ** 2 + 1.0 / np.cos(x) ** 2) / np.cos(x)


class _CoshReward(_Reward):
    """J = cosh(a(1/2 - eta)) - cosh(a/2) (II.58).

    (II.48) is evaluated as cosh(x) (a (1 - p) tanh(x) - 1) + cosh(a/2), x = a(1/2 - p): inf, not
    inf - inf, where cosh overflows.
    """

    def loss(self, link, v):
        x = self.a * (0.5 - link.inv(v))
        return np.cosh(x) * (self.a * link.inv(-v) * np.tanh(x) - 1.0) + np.cosh(0.5 * self.a)

    def J(self, eta):
        return np.cosh(self.a * (0.5 - eta)) - np.cosh(0.5 * self.a)

    def dJ(self, eta):
        return -self.a * np.sinh(self.a * (0.5 - eta))

    def d2J(self, eta):
        return self.a ** 2 * np.cosh(self.a * (0.5 - eta))


class _LogCosReward(_Reward):
    """J = -(1/a) log(cos((eta - 1/2) a) / cos(a/2)) (II.70), convex for |a(eta - 1/2)| < pi/2."""

    def J(self, eta):
        return -np.log(np.cos(self.a * (eta - 0.5)) / np.cos(0.5 * self.a)) / self.a

    def dJ(self, eta):
        return np.tan(self.a * (eta - 0.5))

    def d2J(self, eta):
        return self.a / np.cos(self.a * (eta - 0.5)) ** 2


@dataclass(frozen=True)
class _Link:
    """An inverse link p = [f]^{-1}(v) of Table II.6 with [f]^{-1}(-v) = 1 - [f]^{-1}(v) (II.18).

    ``lower`` is [f]^{-1}(-inf) (None if unbounded).  ``log_inv``/``dlog_inv`` (log p and its
    derivative) serve the J whose derivative is infinite at 0 (Exp, Log).
    """

    a: float = 1.0

    def log_inv(self, v):
        return np.log(self.inv(v))

    def dlog_inv(self, v):
        return self.dinv(v) / self.inv(v)


class _LSLink(_Link):
    """[f]^{-1}(v) = (v + 4)/8, the canonical link of J = -4 eta(1 - eta)."""

    lower = None

    def inv(self, v):
        return (v + 4.0) / 8.0

    def dinv(self, v):
        return np.full_like(v, 0.125)

    def link(self, eta):
        return 8.0 * eta - 4.0


class _ExpLink(_Link):
    """[f]^{-1}(v) = 1/2 + v / (2 sqrt(4 + v^2)) (II.55-II.56); tail 2 / (h (h + |v|)), h = sqrt(4 + v^2)."""

    lower = 0.0

    @staticmethod
    def _tail(v):
        h = np.hypot(2.0, v)
        return 2.0 / (h * (h + np.abs(v)))

    def inv(self, v):
        t = self._tail(v)
        return np.where(v < 0, t, 1.0 - t)

    def log_inv(self, v):
        t = self._tail(v)
        return np.where(v < 0, np.log(t), np.log1p(-t))

    def dinv(self, v):
        return 2.0 / np.hypot(2.0, v) ** 3

    def link(self, eta):
        with np.errstate(divide="ignore"):
            return (2.0 * eta - 1.0) / np.sqrt(eta * (1.0 - eta))


class _LogLink(_Link):
    """[f]^{-1}(v) = e^v / (1 + e^v) (logistic regression)."""

    lower = 0.0

    def inv(self, v):
        return special.expit(v)

    def log_inv(self, v):
        return special.log_expit(v)

    def dinv(self, v):
        return special.expit(v) * special.expit(-v)

    def dlog_inv(self, v):
        return special.expit(-v)

    def link(self, eta):
        return special.logit(eta)


class _SecLink(_Link):
    """[f]^{-1}(v) = 1/2 - (1/a) asin(s), s = (a - sqrt(a^2 + 4v^2)) / (2v) (II.74) = -2v / (a + sqrt(a^2 + 4v^2)).

    The canonical link of J_sec: f(eta) = J_sec'(eta), so [f^{-1}]' = 1 / J_sec''(p).
    """

    @property
    def lower(self):
        return 0.5 - np.pi / (2.0 * self.a)

    def _s(self, v):
        r = np.sqrt(self.a ** 2 + 4.0 * v * v)
        return -2.0 * v / (self.a + r), 2.0 * self.a / (self.a + r)  # s and 1 - s^2

    def inv(self, v):
        return 0.5 - np.arcsin(self._s(v)[0]) / self.a

    def dinv(self, v):
        s, c2 = self._s(v)
        return c2 ** 1.5 / (self.a ** 2 * (1.0 + s * s))

    def link(self, eta):
        return _SecReward(self.a).dJ(eta)


class _CoshLink(_Link):
    """[f]^{-1}(v) = 1/2 - (1/a) asinh(-v/a) (II.59), the canonical link of J_cosh."""

    lower = None

    def inv(self, v):
        return 0.5 + np.arcsinh(v / self.a) / self.a

    def dinv(self, v):
        return 1.0 / (self.a * np.hypot(self.a, v))

    def link(self, eta):
        return self.a * np.sinh(self.a * (eta - 0.5))


class _LogCosLink(_Link):
    """[f]^{-1}(v) = 1/2 + (1/a) arctan(v) (II.68), the canonical link of J_logcos (II.69)."""

    @property
    def lower(self):
        return 0.5 - np.pi / (2.0 * self.a)

    def inv(self, v):
        return 0.5 + np.arctan(v) / self.a

    def dinv(self, v):
        return 1.0 / (self.a * (1.0 + v * v))

    def link(self, eta):
        return np.tan(self.a * (eta - 0.5))


_REWARDS = {"ls": _LSReward, "exp": _ExpReward, "log": _LogReward, "sec": _SecReward, "cosh": _CoshReward,
            "logcos": _LogCosReward}
_LINKS = {"ls": _LSLink, "exp": _ExpLink, "log": _LogLink, "sec": _SecLink, "cosh": _CoshLink,
          "logcos": _LogCosLink}
#: Table II.8: row -> (J of Table II.7, inverse link of Table II.6, loss type of Theorem 24)
TABLE_II8 = {
    1: ("ls", "ls", "I"), 2: ("ls", "exp", "VI"), 3: ("ls", "log", "VI"), 4: ("ls", "cosh", "I"),
    5: ("ls", "sec", "V"), 6: ("ls", "logcos", "V"), 7: ("exp", "log", "III"), 8: ("exp", "exp", "III"),
    9: ("log", "log", "III"), 10: ("log", "exp", "III"), 11: ("sec", "log", "VI"), 12: ("sec", "exp", "VI"),
    13: ("sec", "sec", "I"), 14: ("sec", "logcos", "I"), 15: ("cosh", "ls", "I"), 16: ("cosh", "log", "VI"),
    17: ("cosh", "sec", "V"), 18: ("cosh", "cosh", "I"), 19: ("cosh", "exp", "VI"), 20: ("cosh", "logcos", "V"),
    21: ("logcos", "log", "VI"), 22: ("logcos", "exp", "VI"), 23: ("logcos", "sec", "I"),
    24: ("logcos", "logcos", "I"),
}
_PARAMETRIC_FAMILIES = {"sec", "cosh", "logcos"}
_PI_BOUNDED_FAMILIES = {"sec", "logcos"}  # need 0 < a < pi: J convex on [0, 1], link range covering [0, 1]


@dataclass(frozen=True)
class TableII8Loss(MarginLoss):
    """Row ``row`` of Table II.8: phi from (II.48) with J of Table II.7 (C* = -J) and the link of Table II.6.

    The Sec, Cosh and Log-Cos families share the one parameter ``a``.  J includes the constant of
    Table II.4 (J(0) = J(1) = 0), so the Sec/Cosh rows differ from the printed phi by that constant.
    """

    row: int = 1

    def __post_init__(self):
        if self.name != f"table_ii8_{self.row}":
            raise ValueError(f"TableII8Loss name {self.name!r} must be 'table_ii8_{self.row}'; use get_margin_loss")

    @property
    def _reward(self):
        return _REWARDS[TABLE_II8[self.row][0]](self.a)

    @property
    def _link(self):
        return _LINKS[TABLE_II8[self.row][1]](self.a)

    @property
    def canonical(self):
        return TABLE_II8[self.row][0] == TABLE_II8[self.row][1]  # f = J' (III.23)

    @property
    def bounded(self):
        return TABLE_II8[self.row][2] in ("V", "VI")

    def value(self, v):
        return self._reward.loss(self._link, _f64(v))

    def derivative(self, v):
        return self._reward.dloss(self._link, _f64(v))

    def _f_star(self, eta):
        return self._link.link(eta)

    def inverse_link(self, v):
        return np.clip(self._link.inv(_f64(v)), 0.0, 1.0)

    def _c_star(self, eta):
        return -self._reward.J(eta)


#: name -> (class, takes the margin parameter a)
_MARGIN_LOSSES = {
    "exponential": (ExponentialLoss, False), "logistic": (CanonicalLogisticLoss, False),
    "hinge": (HingeLoss, False), "square": (SquareLoss, False), "savage": (SavageLoss, False),
    "tangent": (TangentLoss, False), "canonical_logistic": (CanonicalLogisticLoss, True),
    "canonical_boosting": (CanonicalBoostingLoss, True), "canonical_gaussian": (CanonicalGaussianLoss, True),
    "canonical_laplacian": (CanonicalLaplacianLoss, True),
}
#: every margin-loss id accepted by :func:`get_margin_loss`
MARGIN_LOSSES: tuple[str, ...] = tuple(_MARGIN_LOSSES) + tuple(f"table_ii8_{r}" for r in TABLE_II8)


def get_margin_loss(name: str, a: float = 1.0) -> MarginLoss:
    """The margin loss ``name`` (one of :data:`MARGIN_LOSSES`) with margin parameter ``a``.

    ``a`` must be positive, and below pi for Table II.8 rows with a Sec or Log-Cos component;
    losses without a parameter accept only a = 1.
    """
    if name not in MARGIN_LOSSES:
        raise ValueError(f"unknown margin loss {name!r}; choose one of {list(MARGIN_LOSSES)}")
    a = float(a)
    if name.startswith("table_ii8_"):
        row = int(name.rsplit("_", 1)[1])
        families = set(TABLE_II8[row][:2])
        takes_a, a_max = bool(families & _PARAMETRIC_FAMILIES), (np.pi if families & _PI_BOUNDED_FAMILIES else np.inf)
    else:
        cls, takes_a = _MARGIN_LOSSES[name]
        a_max = np.inf
    if not takes_a and a != 1.0:
        raise ValueError(f"margin loss {name!r} has no margin parameter; got a={a:g}. Leave a at 1.0 or pick a "
                         "parametric loss (canonical_*, or a Table II.8 row with a Sec, Cosh or Log-Cos component)")
    if not (np.isfinite(a) and 0.0 < a < a_max):
        raise ValueError(f"margin parameter of {name!r} must be in (0, {a_max:g}); got a={a:g}")
    if name.startswith("table_ii8_"):
        return TableII8Loss(name, a, row)
    return cls(name, a)
