"""Cost-sensitive SVMs of the Masnadi-Shirazi thesis (2011), Ch. V: CS-SVM, BP-SVM, BM-SVM.

All variants solve an SVM dual of the form

    min_alpha 1/2 alpha' Q alpha - p' alpha   s.t.  y' alpha = 0,  0 <= alpha_i <= U_i,
    Q_ij = y_i y_j K(x_i, x_j),

with the SMO solver of :mod:`csrepro._kernels.smo`; the predictor is
f(x) = sum_i alpha_i y_i K(x_i, x) + b.  Labels: y = +1 for ``classes_[1]`` (the positive
class, whose miss costs C_1, as in :func:`csrepro.costs.binary`), y = -1 for ``classes_[0]``.
"""

from __future__ import annotations

import warnings
from numbers import Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro._kernels import backend, smo, smo_ref
from csrepro.costs import validate_cost_matrix
from csrepro.losses.binary import check_cs_svm_costs
from csrepro.validation import IntegerInterval, check_binary_classes, check_targets

__all__ = ["CostSensitiveSVC", "DualSolution", "StandardForm", "dual_terms", "kernel_matrix", "resolve_costs", "solve_dual",
           "standard_form"]

SOLVERS = {"cython": smo, "numpy": smo_ref}  # the SMO loop, by backend.current()
VARIANTS = ("cs", "bp", "bm", "svm")
KERNELS = ("linear", "rbf")


class DualSolution(NamedTuple):
    """Result of :func:`solve_dual`: alpha, intercept b (KKT), iterations, final violation m - M."""

    alpha: np.ndarray
    b: float
    n_iter: int
    gap: float


def _feasible_start(alpha0, y, upper):
    """alpha0 clipped to the box, then the larger class side scaled down so that y' alpha = 0."""
    a = np.clip(np.asarray(alpha0, dtype=np.float64), 0.0, upper)
    pos, neg = a[y > 0].sum(), a[y < 0].sum()
    if pos > neg:
        a[y > 0] *= neg / pos
    elif neg > pos:
        a[y < 0] *= pos / neg
    return a


def solve_dual(K, y, p, upper, alpha0=None, tol=1e-3, max_iter=1_000_000) -> DualSolution:
    """Minimise 1/2 a'Qa - p'a s.t. y'a = 0, 0 <= a <= upper, Q = (y y') * K, by SMO.

    ``K``: precomputed (n, n) kernel matrix; ``y``: +-1 labels; ``p``, ``upper``: per-sample
    linear term and box bound (> 0), e.g. from :func:`dual_terms`.  ``alpha0`` warm-starts the
    solver (any vector: it is clipped to the box and made to satisfy y'a = 0).  Stops when the
    maximal KKT violation m - M is below ``tol`` (Fan, Chen & Lin 2005) or after ``max_iter``
    steps; b is the KKT intercept (mean of -y_i G_i over free alphas, else the middle of
    [m, M]).  The SMO loop is the kernel of :func:`csrepro._kernels.backend.current`.
    """
    K = np.ascontiguousarray(K, dtype=np.float64)
    y, p, upper = (np.ascontiguousarray(v, dtype=np.float64).ravel() for v in (y, p, upper))
    n = len(y)
    if K.shape != (n, n) or p.shape != (n,) or upper.shape != (n,):
        raise ValueError(f"solve_dual needs K (n, n) and y, p, upper (n,); got K {K.shape}, y ({n},), "
                         f"p {p.shape}, upper {upper.shape}")
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold only -1 and +1 (y = +1 for the positive class)")
    if not (np.all(np.isfinite(K)) and np.all(np.isfinite(p)) and np.all(np.isfinite(upper))):
        raise ValueError("K, p and upper must be finite")
    if not np.all(upper > 0):
        raise ValueError(f"every box bound must be > 0, got min(upper) = {upper.min():g}; check C, C1, C_minus1")
    if not (tol > 0 and max_iter >= 0):
        raise ValueError(f"need tol > 0 and max_iter >= 0, got tol={tol!r}, max_iter={max_iter!r}")
    alpha = np.zeros(n) if alpha0 is None else _feasible_start(alpha0, y, upper)
    G = y * (K @ (y * alpha)) - p
    n_iter, b, gap = SOLVERS[backend.current()].smo_solve(K, y, p, upper, alpha, G, float(tol), int(max_iter))
    return DualSolution(alpha, float(b), int(n_iter), float(gap))


def dual_terms(variant, y, C, C1=1.0, C_minus1=1.0):
    """Linear term p and box bounds U of the dual for ``variant`` and labels y in {-1, +1}.

    "cs": (V.43): p_i = 1 (y=1), kappa = 1/(2 C_{-1} - 1) (y=-1); U_i = C C_1, C (2 C_{-1} - 1).
    "bp": dual of (V.1): p_i = 1; U_i = C C_1 (y=1), C C_{-1} (y=-1).
    "bm", "svm": the standard SVM dual, p_i = 1, U_i = C.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant={variant!r} is not valid; choose one of {VARIANTS}")
    y = np.asarray(y, dtype=np.float64)
    pos = y > 0
    if variant == "cs":
        lam = 2.0 * C_minus1 - 1.0  # lambda of (V.42); kappa = 1 / lambda
        return np.where(pos, 1.0, 1.0 / lam), C * np.where(pos, C1, lam)
    if variant == "bp":
        return np.ones(len(y)), C * np.where(pos, C1, C_minus1)
    return np.ones(len(y)), np.full(len(y), float(C))


class StandardForm(NamedTuple):
    """A variant's dual as a class-weighted standard SVM (p_i = 1, U_i = C w_{y_i}) and the map back.

    With alpha' the weighted SVM's solution and f' its decision function, the variant's solution
    is alpha = scale alpha' and its decision function f = scale f' + shift (intercept
    b = scale b' + shift).
    """

    C: float
    w_pos: float
    w_neg: float
    scale: float
    shift: float


def standard_form(variant, C, C1=1.0, C_minus1=1.0) -> StandardForm:
    """The dual of ``variant`` at (C, C_1, C_{-1}) written as a class-weighted standard SVM.

    "bp": weights (C_1, C_{-1}); "bm", "svm": weights (1, 1) (bm's threshold move is applied
    by the estimator).  "cs": with kappa = 1/(2 C_{-1} - 1) and s = (1 + kappa)/2, the CS-SVM
    dual (V.43) is s^2 times the dual of the SVM with C' = C/s and weights (C_1, 2 C_{-1} - 1),
    in alpha' = alpha/s: on y' alpha = 0 the two classes carry equal sums, so
    p' alpha = sum_pos alpha + kappa sum_neg alpha = s 1' alpha, and the boxes C C_1,
    C (2 C_{-1} - 1) become C' C_1, C' (2 C_{-1} - 1).  The predictors are related by
    f = s f' + (1 - kappa)/2 (experiments/cs_svm/NOTES.md, "CS-SVM is a class-weighted SVM").
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant={variant!r} is not valid; choose one of {VARIANTS}")
    if variant == "cs":
        kappa = 1.0 / (2.0 * C_minus1 - 1.0)
        s = 0.5 * (1.0 + kappa)
        return StandardForm(C / s, float(C1), 2.0 * C_minus1 - 1.0, s, 0.5 * (1.0 - kappa))
    if variant == "bp":
        return StandardForm(float(C), float(C1), float(C_minus1), 1.0, 0.0)
    return StandardForm(float(C), 1.0, 1.0, 1.0, 0.0)


def _cs_rescale(C1, C_minus1):
    """Scale s nearest 1 with s C_{-1} >= 1 and s C_1 >= 2 s C_{-1} - 1 (keeps C_1 / C_{-1})."""
    s = max(1.0, 1.0 / C_minus1)
    if 2 * C_minus1 > C1:
        s = min(s, 1.0 / (2 * C_minus1 - C1))
    return s * C1, s * C_minus1


def resolve_costs(variant, C1=None, C_minus1=None, cost_matrix=None):
    """(C_1, C_{-1}) used by ``variant``; the rule is documented in :class:`CostSensitiveSVC`."""
    if variant == "svm":
        return 1.0, 1.0
    if cost_matrix is not None and (C1 is None or C_minus1 is None):
        Cm = validate_cost_matrix(cost_matrix, 2)
        ratio = Cm[1, 0] / Cm[0, 1]
        if C1 is None and C_minus1 is None:
            C1, C_minus1 = Cm[1, 0], Cm[0, 1]
            if variant == "cs":
                if ratio < 1:
                    raise ValueError(
                        f"CS-SVM needs the miss cost C[1, 0] >= the false-positive cost C[0, 1] (C_1 >= C_-1, "
                        f"thesis V.D.2); the cost matrix gives C[1, 0]/C[0, 1] = {ratio:g}. Make the class with "
                        "the costlier errors the positive one (last in sorted label order) or pass C1, C_minus1")
                C1, C_minus1 = _cs_rescale(C1, C_minus1)
        elif C1 is None:
            C1 = ratio * C_minus1
        else:
            C_minus1 = C1 / ratio
    C1 = 1.0 if C1 is None else float(C1)
    C_minus1 = 1.0 if C_minus1 is None else float(C_minus1)
    if variant == "cs":
        return check_cs_svm_costs(C1, C_minus1)
    if not (np.isfinite(C1) and np.isfinite(C_minus1) and C1 > 0 and C_minus1 > 0):
        raise ValueError(f"C1 and C_minus1 must be finite and > 0, got C1={C1!r}, C_minus1={C_minus1!r}")
    return C1, C_minus1


def kernel_matrix(kernel, X, Y, gamma):
    """K(X, Y): ``"linear"`` x'y or ``"rbf"`` exp(-gamma |x - y|^2)."""
    return linear_kernel(X, Y) if kernel == "linear" else rbf_kernel(X, Y, gamma=gamma)


class CostSensitiveSVC(ClassifierMixin, BaseEstimator):
    """Binary SVMs of thesis Ch. V: CS-SVM (V.41-V.43), BP-SVM (V.1), BM-SVM, standard SVM.

    ``variant``:

    * ``"cs"``: CS-SVM, the primal (V.41) with beta = C_1, lambda = 2 C_{-1} - 1,
      kappa = 1/(2 C_{-1} - 1) (V.42): positives need f(x) >= 1 - xi, negatives
      f(x) <= -kappa + xi; solved via its dual (V.43).  Needs C_{-1} >= 1 and
      C_1 >= 2 C_{-1} - 1 (V.39).
    * ``"bp"``: biased penalties (V.1): slack weights C C_1 (positives), C C_{-1} (negatives).
    * ``"bm"``: boundary movement (V.A, [45]): the standard SVM with its threshold moved.  The
      thesis tunes the move on validation data (V.E, via ``threshold``); the default move is
      our choice: read the SVM output as eta = (1 + f)/2 (the predictor f = 2 eta - 1 of V.5)
      and threshold it at the Bayes gamma = C_{-1}/(C_1 + C_{-1}), i.e. add
      (C_1 - C_{-1})/(C_1 + C_{-1}) to f.
    * ``"svm"``: the standard SVM; costs are ignored.

    Costs (C_1 = cost of missing a positive, C_{-1} = cost of a false positive):
    ``C1`` and ``C_minus1`` when both are given (``cost_matrix`` is then ignored).  Otherwise,
    with ``cost_matrix`` (2x2; rows true, columns predicted, sorted classes): one given value plus the ratio
    C_1/C_{-1} = C[1, 0]/C[0, 1]; or, with neither, C_1 = C[1, 0], C_{-1} = C[0, 1], which for
    "cs" are multiplied by the factor nearest to 1 that satisfies the constraints (it exists iff
    C[1, 0] >= C[0, 1]).  Without ``cost_matrix`` a missing value is 1.

    Parameters
    ----------
    variant : {"cs", "bp", "bm", "svm"}
    C : float
        Soft-margin weight C (> 0).
    C1, C_minus1 : float or None
    cost_matrix : array (2, 2) or None
    kernel : {"linear", "rbf"}
    gamma : "scale", "auto" or float
        RBF width as in :class:`sklearn.svm.SVC`: 1/(d Var(X)), 1/d, or the value.
    threshold : float (finite)
        Added to the decision function (the protocol's threshold move).
    tol, max_iter : float, int
        SMO stopping rule (maximal KKT violation) and iteration cap.
    random_state : None
        Accepted for a uniform interface; the solver is deterministic.

    The Gram matrix of the training set is computed in full (n^2 doubles).
    """

    _parameter_constraints: dict = {
        "variant": [StrOptions(set(VARIANTS))],
        "C": [Interval(Real, 0, None, closed="neither")],
        # positive; for "cs" also C_minus1 >= 1 and C1 >= 2 C_minus1 - 1, checked at fit (resolve_costs)
        "C1": [Interval(Real, 0, None, closed="neither"), None],
        "C_minus1": [Interval(Real, 0, None, closed="neither"), None],
        "cost_matrix": ["array-like", None],
        "kernel": [StrOptions(set(KERNELS))],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0, None, closed="neither")],
        "threshold": [Interval(Real, None, None, closed="neither")],  # finite
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [IntegerInterval(0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, variant="cs", C=1.0, C1=None, C_minus1=None, cost_matrix=None, kernel="rbf",
                 gamma="scale", threshold=0.0, tol=1e-3, max_iter=1_000_000, random_state=None):
        self.variant = variant
        self.C = C
        self.C1 = C1
        self.C_minus1 = C_minus1
        self.cost_matrix = cost_matrix
        self.kernel = kernel
        self.gamma = gamma
        self.threshold = threshold
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def _resolve_gamma(self, X):
        """The RBF width on training data ``X``: ``gamma``, or its "scale" / "auto" rule."""
        if self.gamma == "scale":
            var = X.var()
            return 1.0 / (X.shape[1] * var) if var > 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Solve the variant's dual on (X, y) and keep the support vectors."""
        X, ys = self._prepare(X, y)
        p, upper = dual_terms(self.variant, ys, self.C, self.C1_, self.C_minus1_)
        sol = solve_dual(kernel_matrix(self.kernel, X, X, self.gamma_), ys, p, upper,
                         tol=self.tol, max_iter=self.max_iter)
        if not sol.gap < self.tol:
            warnings.warn(f"SMO stopped after max_iter={self.max_iter} steps with KKT violation {sol.gap:.3g} "
                          f">= tol={self.tol}; raise max_iter or tol", ConvergenceWarning, stacklevel=2)
        return self._keep(X, ys, sol.alpha, sol.b, sol.n_iter)

    def _prepare(self, X, y):
        """Validate (X, y) and the parameters; set classes_, gamma_, C1_, C_minus1_; return (X, +-1 labels)."""
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_targets(y)
        self.classes_ = np.unique(y)
        check_binary_classes(self, self.classes_)
        self.gamma_ = self._resolve_gamma(X)
        self.C1_, self.C_minus1_ = resolve_costs(self.variant, self.C1, self.C_minus1, self.cost_matrix)
        return X, np.where(y == self.classes_[1], 1.0, -1.0)

    def _keep(self, X, ys, alpha, b, n_iter):
        """Set the fitted attributes from a dual solution (alpha, b) of this variant on (X, ys)."""
        self.support_ = np.flatnonzero(alpha > 0)
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = (alpha * ys)[self.support_][None, :]
        self.intercept_ = np.array([float(b)])
        self.n_iter_ = int(n_iter)
        self.offset_ = ((self.C1_ - self.C_minus1_) / (self.C1_ + self.C_minus1_)) if self.variant == "bm" else 0.0
        if self.kernel == "linear":
            self.coef_ = self.dual_coef_ @ self.support_vectors_
        return self

    def decision_function(self, X):
        """f(x) + offset + threshold, shape (n,); > 0 predicts ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        K = kernel_matrix(self.kernel, X, self.support_vectors_, self.gamma_)
        return K @ self.dual_coef_[0] + self.intercept_[0] + self.offset_ + self.threshold

    def predict(self, X):
        """``classes_[1]`` where the decision function is > 0, else ``classes_[0]``."""
        f = self.decision_function(X)
        return self.classes_[(f > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
