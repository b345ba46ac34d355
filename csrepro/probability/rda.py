"""Regularised quadratic discriminant analysis as O'Brien, Gupta & Gray 2008 (Sec. 6) write Friedman 1989.

Gaussian class-conditional densities N(mu_k, Sigma_k) with class priors N_k / N and, per class k,

    Sigma_k(lambda, gamma) = (1 - lambda - gamma) S_k + lambda S_pool + gamma (trace(S_k) / d) I,

S_k the maximum-likelihood covariance of class k (divisor N_k), S_pool = sum_k (N_k / N) S_k the pooled
maximum-likelihood covariance, d the number of features; "lambda and gamma were increased from zero until the
condition number of Sigma_k was less than 10^6".  This is the paper's convex blend, not Friedman's own
(N_k-weighted) form, and not scikit-learn's ``QuadraticDiscriminantAnalysis(reg_param)`` (which shrinks the
eigenvalues towards 1); with lambda = gamma = 0 it is that QDA with ``reg_param=0``.

Schedule (the paper gives none; ours, a parameter): a grid t_0 < t_1 < ... <= 1/2, by default 0 and 100
geometric steps from 1e-10 to 1/2 (a factor of about 1.25 per step: fine where the needed blend is small, as it
is for a nearly singular S_k), scanned per class in order, the first point whose Sigma_k has condition number
(largest / smallest eigenvalue) below ``max_condition`` being kept:

* ``schedule="joint"`` (default): lambda = gamma = t, both raised together;
* ``schedule="lambda_first"``: lambda = t over the grid with gamma = 0, then gamma = t over the grid with lambda
  at the grid's last value (1/2 by default).

Both end at lambda = gamma = 1/2 (by default), where the identity term keeps Sigma_k positive definite; if no
point reaches the bound the last one is used, with a warning.  Identity scale: trace(S_k) / d, or when it is
zero (a class with one example, or constant within its class) trace(S_pool) / d, or 1 when that is zero too.
Posteriors: log N(x; mu_k, Sigma_k) by Cholesky factors, normalised with logsumexp.  A class of ``labels`` absent
from ``y`` has prior frequency 0, hence posterior 0.
"""

from __future__ import annotations

import warnings
from numbers import Real

import numpy as np
from scipy.linalg import cho_factor, solve_triangular
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import validate_data

from csrepro.probability.base import JointLikelihoodMixin
from csrepro.validation import check_targets, classes_and_codes

__all__ = ["DEFAULT_GRID", "RegularizedDiscriminantAnalysis", "condition_number", "identity_scale",
           "regularized_covariance", "schedule_path"]

#: the default values of t: 0, then 100 geometric steps from 1e-10 to 1/2
DEFAULT_GRID = np.concatenate([[0.0], np.geomspace(1e-10, 0.5, 100)])


def identity_scale(cov_ml, pooled):
    """trace(S_k) / d; trace(S_pool) / d when that is 0 (one example or a class constant in every feature); else 1."""
    d = cov_ml.shape[0]
    for cov in (cov_ml, pooled):
        scale = np.trace(cov) / d
        if scale > 0:
            return float(scale)
    return 1.0


def regularized_covariance(cov_ml, pooled, lam, gamma):
    """(1 - lam - gamma) S_k + lam S_pool + gamma (trace(S_k) / d) I (O'Brien et al. 2008, Sec. 6), the trace
    replaced as in :func:`identity_scale` when it is zero."""
    d = cov_ml.shape[0]
    return (1.0 - lam - gamma) * cov_ml + lam * pooled + gamma * identity_scale(cov_ml, pooled) * np.eye(d)


def condition_number(cov):
    """Largest over smallest eigenvalue of a symmetric matrix (its 2-norm condition number when positive
    definite); inf when the smallest eigenvalue is <= 0."""
    eigenvalues = np.linalg.eigvalsh(cov)
    return float(eigenvalues[-1] / eigenvalues[0]) if eigenvalues[0] > 0 else np.inf


def schedule_path(schedule, grid):
    """The (lambda, gamma) pairs tried in order, (m, 2): ``"joint"``: (t, t) for t in grid; ``"lambda_first"``:
    (t, 0) for t in grid, then (grid[-1], t) for t in grid[1:] (or all of grid when grid[0] > 0)."""
    grid = np.asarray(grid, dtype=np.float64)
    if schedule == "joint":
        return np.column_stack([grid, grid])
    gammas = grid[1:] if grid[0] == 0 else grid
    return np.vstack([np.column_stack([grid, np.zeros_like(grid)]),
                      np.column_stack([np.full_like(gammas, grid[-1]), gammas])])


class RegularizedDiscriminantAnalysis(JointLikelihoodMixin, ClassifierMixin, BaseEstimator):
    """Quadratic discriminant analysis with the per-class covariance blend of O'Brien et al. 2008, Sec. 6.

    See the module docstring for the formula, the schedule and the fallbacks.

    Parameters
    ----------
    max_condition : float > 1
        The blend is raised until the condition number of Sigma_k is below this (the paper's 10^6).
    schedule : {"joint", "lambda_first"}
        How (lambda, gamma) follow the grid (:func:`schedule_path`).
    grid : array-like or None
        Strictly increasing values t in [0, 1/2]; None: :data:`DEFAULT_GRID`.
    labels : array-like or None
        All class labels, when ``y`` may lack some (those get a zero ``predict_proba`` column); ``classes_`` and the
        ``predict_proba`` columns follow their order as given (duplicates refused).  None: the sorted labels of ``y``.

    Attributes
    ----------
    classes_ : (K,).  priors_ : (K,) N_k / N.  means_ : (K, d) (nan rows for absent classes).
    covariances_ : (K, d, d) Sigma_k as used (nan for absent classes).  pooled_covariance_ : (d, d) S_pool.
    lambdas_, gammas_ : (K,) the chosen blend.  steps_ : (K,) its index in ``schedule_path``.
    condition_numbers_ : (K,) of the chosen Sigma_k.
    """

    _parameter_constraints: dict = {
        "max_condition": [Interval(Real, 1, None, closed="neither")],
        "schedule": [StrOptions({"joint", "lambda_first"})],
        "grid": ["array-like", None],
        "labels": ["array-like", None],
    }

    def __init__(self, max_condition=1e6, schedule="joint", grid=None, labels=None):
        self.max_condition = max_condition
        self.schedule = schedule
        self.grid = grid
        self.labels = labels

    def _grid(self):
        if self.grid is None:
            return DEFAULT_GRID
        grid = np.asarray(self.grid, dtype=np.float64)
        if grid.ndim != 1 or len(grid) == 0 or not np.all(np.isfinite(grid)) or grid[0] < 0 or grid[-1] > 0.5 \
                or np.any(np.diff(grid) <= 0):
            raise ValueError(f"grid must be a non-empty strictly increasing sequence of values in [0, 0.5], got "
                             f"{np.asarray(self.grid).tolist()!r}; lambda + gamma must stay <= 1")
        return grid

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Class means, ML covariances, the pooled one, and per class the first blend on the schedule with
        condition number below ``max_condition``."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        path = schedule_path(self.schedule, self._grid())
        self.classes_, z = classes_and_codes(y, self.labels)
        N, d = X.shape
        K = len(self.classes_)
        counts = np.bincount(z, minlength=K)
        self.priors_ = counts / N
        self.means_ = np.full((K, d), np.nan)
        cov_ml = np.full((K, d, d), np.nan)
        for k in np.flatnonzero(counts):
            Xk = X[z == k]
            self.means_[k] = Xk.mean(axis=0)
            centred = Xk - self.means_[k]
            cov_ml[k] = centred.T @ centred / len(Xk)
        self.pooled_covariance_ = np.einsum("k,kij->ij", self.priors_[counts > 0], cov_ml[counts > 0])
        self.covariances_ = np.full((K, d, d), np.nan)
        self.lambdas_, self.gammas_ = np.full(K, np.nan), np.full(K, np.nan)
        self.steps_ = np.full(K, -1)
        self.condition_numbers_ = np.full(K, np.nan)
        self._cholesky, self._log_det = [None] * K, np.full(K, np.nan)
        for k in np.flatnonzero(counts):
            for step, (lam, gamma) in enumerate(path):
                cov = regularized_covariance(cov_ml[k], self.pooled_covariance_, lam, gamma)
                diagonal = np.diagonal(cov)
                # exact shortcut: cond >= max diag / min diag (both are Rayleigh quotients), no eigenvalues needed
                if diagonal.max() >= self.max_condition * diagonal.min():
                    cond = diagonal.max() / diagonal.min() if diagonal.min() > 0 else np.inf
                    continue
                cond = condition_number(cov)
                if cond < self.max_condition:
                    break
            else:
                cond = condition_number(cov)
                warnings.warn(f"class {self.classes_.tolist()[k]!r}: the condition number is still {cond:.3g} >= "
                              f"max_condition={self.max_condition:g} at the last point of the schedule "
                              f"(lambda={lam:g}, gamma={gamma:g}); using it", UserWarning, stacklevel=2)
            try:
                factor = cho_factor(cov, lower=True)[0]
            except np.linalg.LinAlgError:
                raise ValueError(f"class {self.classes_.tolist()[k]!r}: the regularised covariance is singular at the "
                                 f"last point of the schedule (lambda={lam:g}, gamma={gamma:g}); extend `grid` to "
                                 "larger values (up to 0.5)") from None
            self.covariances_[k] = cov
            self.lambdas_[k], self.gammas_[k], self.steps_[k], self.condition_numbers_[k] = lam, gamma, step, cond
            self._cholesky[k] = np.tril(factor)
            self._log_det[k] = 2.0 * np.log(np.diag(factor)).sum()
        return self

    def _joint_log_likelihood(self, X):
        X = validate_data(self, X, dtype=np.float64, reset=False)
        d = X.shape[1]
        jll = np.full((len(X), len(self.classes_)), -np.inf)
        for k, L in enumerate(self._cholesky):
            if L is None:
                continue
            u = solve_triangular(L, (X - self.means_[k]).T, lower=True)
            jll[:, k] = (np.log(self.priors_[k])
                         - 0.5 * (np.einsum("ij,ij->j", u, u) + self._log_det[k] + d * np.log(2 * np.pi)))
        return jll
