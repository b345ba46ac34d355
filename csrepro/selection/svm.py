"""Model selection for a target detection rate (Masnadi-Shirazi thesis, Sec. V.E, Table V.2).

For a target detection rate d the thesis sets C, C_1, C_{-1} and the threshold b of each SVM
"so as to achieve the smallest false positive rate on the validation set", with leave-one-out
cross-validation.  :class:`DetectionRateSVC` does this on the training data: for every grid
point it collects out-of-fold decision values, takes the operating point with detection rate
>= d and fewest false positives (:func:`csrepro.metrics.detection_at_rate`), keeps the grid
point with the fewest false positives, and refits it on all training data with that
cross-validated threshold.  :class:`CostRatioSVC` is the Table V.1 variant: C and the scale of
(C_1, C_{-1}) at the cost matrix' ratio C_1/C_{-1} are chosen for the lowest out-of-fold cost.

Shared work.  Every grid point of every variant is solved as a class-weighted standard SVM
(:func:`csrepro.svm.cs_svm.standard_form`; exact), so grid points of different variants that
are the same problem (CS-SVM with C_{-1} = 1, BP-SVM with C_1 = C_{-1} = 1 and BM-SVM are all
the plain SVM at those weights) are solved once.  For fixed class weights the C values form a
path, solved in increasing C with each full solution warm-starting the next, followed by its
out-of-fold decision values (leave-one-out: :func:`csrepro._kernels.smo.loo_decision_values`,
which re-solves only for support vectors).  Kernel matrices and paths are cached in-process
(:data:`KERNELS`, :data:`PATHS`, :mod:`csrepro.cache`) on a fingerprint of the training data and
every setting they depend on, so the seven detection rates of a variant, and the variants among
each other, reuse them; a path is a pure function of its key, so results do not depend on which
fits ran before.
"""

from __future__ import annotations

import itertools
import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro._kernels import backend, smo
from csrepro.cache import fingerprint, named_cache
from csrepro.costs import validate_cost_matrix
from csrepro.selection.detection_rate import (
    CV_CONSTRAINT,
    POSITIVES,
    detected_class,
    detected_labels,
    inner_folds,
    select_at_rate,
    signed_for_last,
)
from csrepro.svm.cs_svm import (
    VARIANTS,
    CostSensitiveSVC,
    kernel_matrix,
    solve_dual,
    standard_form,
)
from csrepro.validation import IntegerInterval, check_binary_classes, check_targets

__all__ = ["KERNELS", "PATHS", "CostRatioSVC", "DetectionRateSVC", "cost_grid", "out_of_fold_path"]

#: kernel matrices of the 2 most recently used training parts
KERNELS = named_cache("svm_kernels", maxsize=2)
#: the 64 most recently used :func:`out_of_fold_path` results
PATHS = named_cache("svm_paths", maxsize=64)


def cost_grid(variant, C_grid, C1_grid, C_minus1_grid):
    """Grid points (C, C_1, C_{-1}) searched for ``variant``, in grid order.

    "cs": pairs meeting C_{-1} >= 1 and C_1 >= 2 C_{-1} - 1 (V.39, V.42); "bp": all pairs;
    "bm", "svm": C_1 = C_{-1} = 1 (their costs only move the threshold, which is tuned anyway).
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant={variant!r} is not valid; choose one of {VARIANTS}")
    for name, grid in (("C_grid", C_grid), ("C1_grid", C1_grid), ("C_minus1_grid", C_minus1_grid)):
        values = np.asarray(grid, dtype=np.float64)
        if values.ndim != 1 or len(values) == 0 or not np.all(np.isfinite(values) & (values > 0)):
            raise ValueError(f"{name} must be a non-empty list of finite numbers > 0, got {grid!r}")
    if variant in ("bm", "svm"):
        pairs = [(1.0, 1.0)]
    else:
        pairs = [(float(a), float(b)) for a, b in itertools.product(C1_grid, C_minus1_grid)
                 if variant == "bp" or (b >= 1 and a >= 2 * b - 1)]
    if not pairs:
        raise ValueError(f"no (C1, C_minus1) pair of C1_grid={list(C1_grid)} and C_minus1_grid={list(C_minus1_grid)} "
                         "meets the CS-SVM constraints C_minus1 >= 1 and C1 >= 2 C_minus1 - 1; add such values")
    return [(float(c), a, b) for c in C_grid for a, b in pairs]


def out_of_fold_path(K, ys, w_pos, w_neg, Cs, splits=None, tol=1e-3, max_iter=1_000_000):
    """Full solutions and out-of-fold decision values of the weighted SVM along increasing ``Cs``.

    The problem at C has p_i = 1 and box U_i = C w_pos (y_i = +1) or C w_neg (y_i = -1).  Each
    full solution warm-starts the next C.  ``splits=None``: leave-one-out, exact up to the SMO
    tolerance; a left-out example that is not a support vector keeps the full solution (its
    removal leaves every remaining KKT condition as it was; Vapnik 1995, Joachims 2000), support
    vectors are re-solved from the full solution (alpha seeding,
    :func:`csrepro._kernels.smo.loo_decision_values`).  Otherwise ``splits`` lists (train, test)
    index pairs, each re-solved on its training rows from the full solution.
    Returns one (DualSolution, out-of-fold values, largest final KKT violation) per C, in ``Cs`` order.
    """
    order = np.argsort(Cs, kind="stable")
    out, alpha = [None] * len(Cs), None
    p = np.ones(len(ys))
    for k in order:
        upper = Cs[k] * np.where(ys > 0, w_pos, w_neg)
        full = solve_dual(K, ys, p, upper, alpha0=alpha, tol=tol, max_iter=max_iter)
        alpha = full.alpha
        if splits is None:
            G = ys * (K @ (ys * full.alpha)) - p
            scores, _, gap = smo.loo_decision_values(K, ys, p, upper, full.alpha, G, full.b, tol, max_iter)
        else:
            scores, gap = np.empty(len(ys)), full.gap
            for train, test in splits:
                sol = solve_dual(K[np.ix_(train, train)], ys[train], p[train], upper[train],
                                 alpha0=full.alpha[train], tol=tol, max_iter=max_iter)
                scores[test] = K[np.ix_(test, train)] @ (sol.alpha * ys[train]) + sol.b
                gap = max(gap, sol.gap)
        out[k] = (full, scores, max(gap, full.gap))
    return out


#: ``cv_seed`` and ``random_state`` of the grid SVMs: what ``np.random.default_rng`` takes (documented subset)
_SEED = [IntegerInterval(0, None, closed="left"), np.random.Generator, None]


class _GridSVC(ClassifierMixin, BaseEstimator):
    """Shared machinery: folds, cached kernel matrix and out-of-fold paths, refit-free best estimator."""

    # the parameters both subclasses share; the grids' values are checked by cost_grid
    _parameter_constraints: dict = {
        **{name: CostSensitiveSVC._parameter_constraints[name] for name in ("variant", "kernel", "gamma", "tol",
                                                                             "max_iter")},
        "C_grid": ["array-like"],
        "C_minus1_grid": ["array-like"],
        "cv": CV_CONSTRAINT,
        "cv_seed": _SEED,
        "random_state": _SEED,
    }

    def _splits(self, ys):
        """None for leave-one-out, else the stratified k-fold (train, test) pairs and their seed."""
        if self.cv == "loo":
            return None, None
        source = self.random_state if self.cv_seed is None else self.cv_seed
        seed = int(np.random.default_rng(source).integers(2**31))
        return inner_folds(ys, self.cv, seed), seed

    def _search(self, X, y, grid, positive="last"):
        """Validate (X, y); return (X, z, ys, template, [(grid point, out-of-fold f, (alpha, b, n_iter))]).

        Sets ``classes_`` and ``pos_label_`` (:func:`~csrepro.selection.detection_rate.detected_class` of
        ``positive``), the class the SVMs see as positive: ``z`` = 1 there, else 0, and ``ys`` its
        +-1 labels; ``template``: an unfitted :class:`CostSensitiveSVC` with the resolved gamma.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_targets(y)
        self.classes_ = np.unique(y)
        check_binary_classes(self, self.classes_)
        self.pos_label_ = detected_class(y, self.classes_, positive)
        z = (y == self.pos_label_).astype(int)
        ys = np.where(z == 1, 1.0, -1.0)
        splits, seed = self._splits(ys)
        template = CostSensitiveSVC(variant=self.variant, kernel=self.kernel, gamma=self.gamma, tol=self.tol,
                                    max_iter=self.max_iter)
        template.set_params(gamma=template._resolve_gamma(X))
        data_key = fingerprint(X, ys, self.kernel, template.gamma)
        K = KERNELS.get(data_key, lambda: kernel_matrix(self.kernel, X, X, template.gamma))
        forms = {g: standard_form(self.variant, *g) for g in grid}
        paths = {}
        for w in dict.fromkeys((f.w_pos, f.w_neg) for f in forms.values()):
            Cs = tuple(sorted({f.C for f in forms.values() if (f.w_pos, f.w_neg) == w}))
            key = fingerprint(data_key, self.cv, seed, w, Cs, self.tol, self.max_iter, backend.current())
            path = PATHS.get(key, lambda: out_of_fold_path(K, ys, *w, np.array(Cs), splits, self.tol, self.max_iter))
            paths.update({(w, C): found for C, found in zip(Cs, path)})
        scored = []
        for g, f in forms.items():
            full, scores, gap = paths[((f.w_pos, f.w_neg), f.C)]
            if not gap < self.tol:
                warnings.warn(f"SMO stopped at max_iter={self.max_iter} with KKT violation {gap:.3g} >= tol={self.tol} "
                              f"at grid point {g}; raise max_iter or tol", ConvergenceWarning, stacklevel=3)
            scored.append((g, f.scale * scores + f.shift, (f.scale * full.alpha, f.scale * full.b + f.shift,
                                                           full.n_iter)))
        return X, z, ys, template, scored

    def _best(self, template, X, y, params, solution):
        """``template`` with ``params``, fitted from the full-data ``solution`` (alpha, b, n_iter) of the search;
        sets ``best_estimator_`` and ``n_iter_``."""
        est = template.set_params(**params)
        X, ys = est._prepare(X, y)
        self.best_estimator_ = est._keep(X, ys, *solution)
        self.n_iter_ = self.best_estimator_.n_iter_

    def decision_function(self, X):
        """Decision values of ``best_estimator_`` (> 0: ``pos_label_``), signed so that > 0 favours ``classes_[1]``."""
        check_is_fitted(self)
        return signed_for_last(self.best_estimator_.decision_function(X), self.classes_, self.pos_label_)

    def predict(self, X):
        """``pos_label_`` where ``best_estimator_`` predicts its positive class, else the other class."""
        check_is_fitted(self)
        return detected_labels(self.best_estimator_.predict(X) == 1, self.classes_, self.pos_label_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class DetectionRateSVC(_GridSVC):
    """A :class:`CostSensitiveSVC` whose C, C_1, C_{-1} and threshold meet a detection rate (Sec. V.E).

    Parameters
    ----------
    variant : {"cs", "bp", "bm", "svm"}
        The SVM of thesis Ch. V; the grid searched is :func:`cost_grid`.
    target_detection_rate : float in (0, 1]
        Detection rate (recall of the detected class) the out-of-fold predictions must reach.
    positive : {"last", "minority", "first"}
        The detected class (``pos_label_``): ``classes_[1]``, the rarer class of the training
        labels (ties: ``classes_[1]``), or ``classes_[0]``; the SVM is trained with it as its positive class.
    C_grid, C1_grid, C_minus1_grid : sequences of float > 0
    kernel, gamma : as in :class:`CostSensitiveSVC` (gamma is resolved once on the training set).
    cv : "loo" or int >= 2
        Leave-one-out (the thesis' choice, Sec. V.E) or stratified k-fold on the training data.
    tol, max_iter : SMO stopping rule.
    cv_seed : int or None
        Seed of the k-fold shuffle; None: drawn from ``random_state``.  A fixed seed gives every
        rate and variant on a training part the same folds, so they share their solves.
    random_state : int, Generator or None
        Seeds the k-fold shuffle when ``cv_seed`` is None (unused for "loo").

    Fitted: ``pos_label_``, ``best_params_`` (C, C1, C_minus1), ``threshold_`` (cross-validated threshold on f),
    ``cv_false_positives_`` and ``cv_detection_rate_`` at the chosen point, ``cv_results_``
    (one dict per grid point) and ``best_estimator_`` (the best point's SVM on all training data,
    threshold applied; the search's full-data solution, so no refit; its labels are 1 for
    ``pos_label_`` and 0 for the other class), ``n_iter_`` (SMO iterations of that solution, warm-started
    from the next smaller C of its path).
    """

    _parameter_constraints: dict = {
        **_GridSVC._parameter_constraints,
        "target_detection_rate": [Interval(Real, 0, 1, closed="right")],
        "positive": [StrOptions(set(POSITIVES))],
        "C1_grid": ["array-like"],
    }

    def __init__(self, variant="cs", target_detection_rate=0.9, positive="last", C_grid=(0.1, 1.0, 10.0),
                 C1_grid=(1.0, 2.0, 4.0), C_minus1_grid=(1.0, 2.0), kernel="rbf", gamma="scale", cv="loo",
                 cv_seed=None, tol=1e-3, max_iter=1_000_000, random_state=None):
        self.variant = variant
        self.target_detection_rate = target_detection_rate
        self.positive = positive
        self.C_grid = C_grid
        self.C1_grid = C1_grid
        self.C_minus1_grid = C_minus1_grid
        self.kernel = kernel
        self.gamma = gamma
        self.cv = cv
        self.cv_seed = cv_seed
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Cross-validate the grid on (X, y); keep the best point's SVM on all of it."""
        d = float(self.target_detection_rate)
        grid = cost_grid(self.variant, self.C_grid, self.C1_grid, self.C_minus1_grid)
        X, z, ys, template, scored = self._search(X, y, grid, self.positive)
        k, points = select_at_rate(ys, [scores for _, scores, _ in scored], d)
        self.cv_results_ = [{"C": C, "C1": C1, "C_minus1": Cm1, "threshold": p.threshold,
                             "detection_rate": p.detection_rate, "false_positives": p.false_positives}
                            for ((C, C1, Cm1), _, _), p in zip(scored, points, strict=True)]
        best = self.cv_results_[k]
        self.best_params_ = {"C": best["C"], "C1": best["C1"], "C_minus1": best["C_minus1"]}
        self.threshold_ = best["threshold"]
        self.cv_false_positives_ = best["false_positives"]
        self.cv_detection_rate_ = best["detection_rate"]
        # f >= threshold_ predicts positive; CostSensitiveSVC predicts f + threshold > 0
        shift = -np.nextafter(self.threshold_, -np.inf)
        self._best(template, X, z, {**self.best_params_, "threshold": 0.0}, scored[k][2])
        self.best_estimator_.set_params(threshold=shift - self.best_estimator_.offset_)
        return self


class CostRatioSVC(_GridSVC):
    """A :class:`CostSensitiveSVC` with C and the cost scale chosen for the lowest out-of-fold cost (Table V.1).

    The thesis cross-validates the CS-SVM and BP-SVM parameters "subject to the constraint
    C_1/C_{-1} = 5" on German Credit (Sec. V.E): here C_1 = r C_{-1} with r = C[1, 0]/C[0, 1] from
    ``cost_matrix``, C_{-1} from ``C_minus1_grid`` (for "cs" only scales meeting V.39/V.42), and the
    grid point whose out-of-fold predictions (sign of f, no threshold search) cost least wins (ties:
    first in grid order).  "bm" moves its threshold by (r - 1)/(r + 1) and "svm" ignores costs, so
    both search C only.  ``best_estimator_`` is its SVM on all training data.

    Parameters: ``variant``, ``cost_matrix`` (2x2, required; rows true, columns predicted class, sorted classes),
    ``C_grid``, ``C_minus1_grid``, ``kernel``, ``gamma``, ``cv``, ``cv_seed``, ``tol``, ``max_iter``, ``random_state`` as in
    :class:`DetectionRateSVC`.  Fitted: ``best_params_``, ``cv_cost_`` (out-of-fold cost of the
    chosen point), ``cv_results_``, ``best_estimator_`` (labels 1 for ``pos_label_`` = ``classes_[1]``, else 0),
    ``n_iter_`` as in :class:`DetectionRateSVC`.
    """

    # cost_matrix is required (None, the default, is refused): the search keeps its ratio
    _parameter_constraints: dict = {**_GridSVC._parameter_constraints, "cost_matrix": ["array-like"]}

    def __init__(self, variant="cs", cost_matrix=None, C_grid=(0.1, 1.0, 10.0), C_minus1_grid=(1.0, 2.0, 4.0),
                 kernel="rbf", gamma="scale", cv="loo", cv_seed=None, tol=1e-3, max_iter=1_000_000,
                 random_state=None):
        self.variant = variant
        self.cost_matrix = cost_matrix
        self.C_grid = C_grid
        self.C_minus1_grid = C_minus1_grid
        self.kernel = kernel
        self.gamma = gamma
        self.cv = cv
        self.cv_seed = cv_seed
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Cross-validate the grid on (X, y) by out-of-fold cost; keep the best point's SVM on all of it."""
        Cm = validate_cost_matrix(self.cost_matrix, 2)
        ratio = float(Cm[1, 0] / Cm[0, 1])
        Cs = list(dict.fromkeys(c for c, _, _ in cost_grid("bp", self.C_grid, [1.0], self.C_minus1_grid)))  # validated
        if self.variant in ("bm", "svm"):  # svm ignores C1; bm's move (r - 1)/(r + 1) does not depend on the scale
            grid = [(c, ratio, 1.0) for c in Cs]
        else:
            grid = [(c, ratio * float(s), float(s)) for c in Cs for s in self.C_minus1_grid
                    if self.variant == "bp" or (s >= 1 and ratio * s >= 2 * s - 1)]
        if not grid:
            raise ValueError(f"no scale in C_minus1_grid={list(self.C_minus1_grid)} meets the CS-SVM constraints "
                             f"C_minus1 >= 1 and C1 = {ratio:g} C_minus1 >= 2 C_minus1 - 1; add such scales")
        X, z, ys, template, scored = self._search(X, y, grid)
        offset = (ratio - 1) / (ratio + 1) if self.variant == "bm" else 0.0
        self.cv_results_ = []
        for (C, C1, Cm1), scores, _ in scored:
            pred = (scores + offset > 0).astype(int)
            cost = float(np.sum(Cm[(ys > 0).astype(int), pred]))
            self.cv_results_.append({"C": C, "C1": C1, "C_minus1": Cm1, "cost": cost})
        k = min(range(len(scored)), key=lambda i: self.cv_results_[i]["cost"])  # ties: the first in grid order
        self.best_params_ = {name: self.cv_results_[k][name] for name in ("C", "C1", "C_minus1")}
        self.cv_cost_ = self.cv_results_[k]["cost"]
        self._best(template, X, z, self.best_params_, scored[k][2])
        return self
