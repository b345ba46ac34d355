"""Cost-sensitive multiclass losses on score vectors (Beijbom et al. 2014).

Every loss maps a score matrix ``S`` of shape (n, M), labels ``z`` (class indices) and a
cost matrix ``C`` (``C[j, k]`` = cost of predicting k for true class j) to per-sample values,
and gives the gradient of each value with respect to that sample's scores.

The exponential members share one structure used by the Cython kernels: the loss is
``gamma(G)`` with ``G`` a positive combination of exponentials of affine functions of the
scores (attribute ``family``) and ``gamma`` the identity or ``log(1 + .)`` (attribute
``outer``).  :mod:`csrepro._kernels.exp_losses` evaluates that structure along a line.

Each loss is a loss per sample: L[C, z_i, S(x_i)] depends on sample i's label and scores alone (L_t's
double sum (14) runs over the classes of one sample), and the risk minimised is their mean (8).  Sample
weights s_i therefore enter as the weighted mean sum_i s_i L[C, z_i, S(x_i)] / sum_i s_i, whose gradient is
sample i's gradient times s_i / sum_j s_j; an integer s_i is s_i copies of the sample
(:class:`~csrepro.boosting.mcboost.MCBoostClassifier` ``sample_weight``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "GEL",
    "GLL",
    "MULTICLASS_LOSSES",
    "GammaPhiLoss",
    "LsLoss",
    "LtLoss",
    "MCBoostLoss",
    "get_loss",
]


def _rows(C: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Cost rows ``C[z_i, :]`` as an (n, M) array."""
    return np.asarray(C, dtype=float)[np.asarray(z, dtype=np.intp)]


def _true_scores(S: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Scores of the true classes, ``S[i, z_i]``, as an (n, 1) column."""
    return np.take_along_axis(S, np.asarray(z, dtype=np.intp)[:, None], axis=1)


class _KernelCosts:
    """Cost weights the exponential kernels use: the cost matrix itself."""

    @staticmethod
    def kernel_costs(C: np.ndarray) -> np.ndarray:
        """Per-class term weights ``c = C[z]`` for :mod:`csrepro._kernels.exp_losses`."""
        return np.ascontiguousarray(C, dtype=float)


@dataclass(frozen=True)
class GammaPhiLoss(_KernelCosts):
    """The gamma-phi loss family, Beijbom et al. 2014 eq. (15).

    ``L(C, z, S) = gamma(sum_j C[z, j] * phi(S_z - S_j))``.  By Lemma 1 it is guess-averse
    whenever ``gamma`` is increasing and ``phi(v) < phi(0)`` for all ``v > 0`` (eq. 16).
    ``dgamma`` and ``dphi`` are the derivatives used for the gradient.
    """

    name: str
    gamma: Callable[[np.ndarray], np.ndarray]
    dgamma: Callable[[np.ndarray], np.ndarray]
    phi: Callable[[np.ndarray], np.ndarray]
    dphi: Callable[[np.ndarray], np.ndarray]
    family: str | None = None
    outer: str | None = None

    def _inner(self, S, z, C):
        margins = _true_scores(S, z) - S  # S_z - S_j, shape (n, M)
        return _rows(C, z), margins

    def value(self, S: np.ndarray, z: np.ndarray, C: np.ndarray) -> np.ndarray:
        """Per-sample loss values, shape (n,)."""
        costs, margins = self._inner(S, z, C)
        return self.gamma(np.sum(costs * self.phi(margins), axis=1))

    def grad(self, S: np.ndarray, z: np.ndarray, C: np.ndarray) -> np.ndarray:
        """Gradient of each sample's loss with respect to its scores, shape (n, M)."""
        costs, margins = self._inner(S, z, C)
        outer = self.dgamma(np.sum(costs * self.phi(margins), axis=1))[:, None]
        # d/dS_j of phi(S_z - S_j) is -phi'; the true class collects +phi' from every term.
        terms = costs * self.dphi(margins)
        g = -outer * terms
        zi = np.asarray(z, dtype=np.intp)
        g[np.arange(len(zi)), zi] += outer[:, 0] * terms.sum(axis=1)
        return g


def _exp_neg(v):
    return np.exp(-v)


def _dexp_neg(v):
    return -np.exp(-v)


def _identity(v):
    return v


def _one(v):
    return np.ones_like(v)


def _log1p_prime(v):
    return 1.0 / (1.0 + v)


#: Generalized exponential loss L^{id,exp}, Beijbom et al. 2014 eq. (20).
GEL = GammaPhiLoss(
    "gel", _identity, _one, _exp_neg, _dexp_neg, family="margin", outer="identity"
)

#: Generalized logistic loss L^{log,exp}, Beijbom et al. 2014 eq. (21).
GLL = GammaPhiLoss(
    "gll", np.log1p, _log1p_prime, _exp_neg, _dexp_neg, family="margin", outer="log1p"
)


@dataclass(frozen=True)
class MCBoostLoss(_KernelCosts):
    """Cost-insensitive MCBoost loss, Beijbom et al. 2014 eq. (22).

    ``L(z, S) = sum_{j=1..M} exp(S_j - S_z)`` (the ``j = z`` term contributes 1).  The cost
    matrix argument is ignored: this is GEL (20) with all costs equal to one.
    """

    name: str = "mcboost"
    family: str = "margin"
    outer: str = "identity"

    @staticmethod
    def kernel_costs(C: np.ndarray) -> np.ndarray:
        """The all-ones matrix the kernels use in place of ``C`` (eq. 22 sums over all j)."""
        return np.ones_like(np.asarray(C, dtype=float))

    def value(self, S, z, C):
        """Per-sample loss values, shape (n,)."""
        return np.sum(np.exp(S - _true_scores(S, z)), axis=1)

    def grad(self, S, z, C):
        """Gradient of each sample's loss with respect to its scores, shape (n, M)."""
        return GEL.grad(S, z, self.kernel_costs(C))


@dataclass(frozen=True)
class LsLoss(_KernelCosts):
    """Wang (2013) loss L_s, Beijbom et al. 2014 eq. (12): ``sum_j C[z, j] exp(S_j)``.

    The scores are constrained to sum to zero; MCBoost's codeword scores (23) satisfy the
    constraint by construction.  Classification calibrated but not guess-averse (eq. 13).
    """

    name: str = "ls"
    family: str = "plain"
    outer: str = "identity"

    def value(self, S, z, C):
        """Per-sample loss values, shape (n,)."""
        return np.sum(_rows(C, z) * np.exp(S), axis=1)

    def grad(self, S, z, C):
        """Gradient of each sample's loss with respect to its scores, shape (n, M)."""
        return _rows(C, z) * np.exp(S)


@dataclass(frozen=True)
class LtLoss(_KernelCosts):
    """Loss L_t, Beijbom et al. 2014 eq. (14): ``sum_k sum_j C[z, j] exp(S_j - S_k)``.

    It factorises as ``(sum_j C[z, j] e^{S_j}) (sum_k e^{-S_k})``, which the gradient and
    the kernels use.  Classification calibrated but not guess-averse (Appendix A).
    """

    name: str = "lt"
    family: str = "pairwise"
    outer: str = "identity"

    def value(self, S, z, C):
        """Per-sample loss values, shape (n,)."""
        a = np.sum(_rows(C, z) * np.exp(S), axis=1)
        b = np.sum(np.exp(-S), axis=1)
        return a * b

    def grad(self, S, z, C):
        """Gradient of each sample's loss with respect to its scores, shape (n, M)."""
        ea = _rows(C, z) * np.exp(S)
        eb = np.exp(-S)
        return ea * eb.sum(axis=1, keepdims=True) - eb * ea.sum(axis=1, keepdims=True)


MULTICLASS_LOSSES = {
    "mcboost": MCBoostLoss(),
    "gel": GEL,
    "gll": GLL,
    "ls": LsLoss(),
    "lt": LtLoss(),
}


def get_loss(name: str):
    """Return the loss registered as ``name``; the error lists the valid names."""
    try:
        return MULTICLASS_LOSSES[name]
    except KeyError:
        raise ValueError(
            f"unknown multiclass loss {name!r}; choose one of {sorted(MULTICLASS_LOSSES)}"
        ) from None
