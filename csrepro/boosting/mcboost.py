"""Coordinate-descent MCBoost with cost-sensitive losses (Beijbom et al. 2014, Algorithm 1)."""

from __future__ import annotations

import hashlib

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro._kernels import exp_losses, exp_losses_ref
from csrepro.boosting.codewords import simplex_codewords
from csrepro.boosting.line_search import newton_line_search
from csrepro.costs import bayes_decision, check_cost_matrix_for_labels
from csrepro.losses.multiclass import get_loss
from csrepro.weak.linear import LinearWeakLearner

KERNELS = {"cython": exp_losses, "numpy": exp_losses_ref}
_FITS: dict = {}  # memo of recent trainings, see MCBoostClassifier.fit
_FITS_KEPT = 8
DECISIONS = ("argmax", "bayes")


class _CoordinateStep:
    """Kernel calls for updates of one predictor coordinate f_r (eqs. 30-32).

    The score direction v = y_{., r} / 2 takes few distinct values (three for the Helmert
    codewords), so the line search works on per-group sums prepared with the weights.  The
    per-sample buffers in ``shared`` serve every coordinate, since the steps run one at a time.
    """

    def __init__(self, kern, v, z, C, family, outer, shared):
        self.kern, self.z, self.C = kern, z, C
        self.family, self.outer = family, outer
        self.uniq, group = np.unique(v, return_inverse=True)
        self.group = np.ascontiguousarray(group, dtype=np.intp)
        n, nu = len(z), len(self.uniq)
        pair = 2 if family == kern.FAMILIES["pairwise"] else 1
        self.off = np.ascontiguousarray(v[z]) if family == kern.FAMILIES["margin"] else np.zeros(n)
        self.w, self.h, self.scale, self.work_prepare = shared
        self.A, self.B = np.empty((n, nu)), np.empty((n, nu))
        self.work_line = np.empty((n, pair * nu))

    @staticmethod
    def shared_buffers(n, M, family, kern):
        """Per-sample weights, curvatures, scales and exp scratch shared by all coordinates."""
        pair = 2 if family == kern.FAMILIES["pairwise"] else 1
        return np.empty(n), np.empty(n), np.empty(n), np.empty((n, pair * M))

    def prepare(self, S, with_loss=False):
        """Boosting weights w^r (34)-(37) at scores S and the summed loss (if asked).

        Also fills the line-search groups.
        """
        loss = self.kern.prepare_step(S, self.uniq, self.group, self.z, self.C, self.off,
                                      self.family, self.outer, self.w, self.h, self.A, self.B,
                                      self.scale, self.work_prepare, with_loss)
        return self.w, loss

    def line_search(self, g, tol, max_iter):
        """alpha minimising the empirical risk along g (31), from the prepared groups."""
        def derivatives(alpha):
            return self.kern.line_derivatives(self.A, self.B, self.scale, self.uniq, self.off, g,
                                              self.family, self.outer, alpha, self.work_line)

        start = (float(self.w @ g), float(self.h @ (g * g)))  # derivatives at alpha = 0
        return newton_line_search(derivatives, tol=tol, max_iter=max_iter, start=start)[0]


class MCBoostClassifier(ClassifierMixin, BaseEstimator):
    """CD-MCBoost (Algorithm 1) for the losses MCBoost (22), GEL (20), GLL (21), L_s (12), L_t (14).

    The predictor f(x) in R^{M-1} scores class k by S_k = <y_k, f(x)> / 2 (23) with the simplex
    codewords of :func:`~csrepro.boosting.codewords.simplex_codewords`.  Each iteration visits
    the coordinates r = 1..M-1 in order: boosting weights w^r (34)-(37), the regression weak
    learner g(x) = a x_j + b minimising the directional derivative (30) (see
    :class:`~csrepro.weak.LinearWeakLearner`), the exact line search (31) for alpha, and the
    update f_r += alpha g (32).  Since every weak learner is affine in one feature, f is
    stored as an affine map ``coef_ @ x + intercept_``.

    Parameters
    ----------
    loss : {"mcboost", "gel", "gll", "ls", "lt"}
    cost_matrix : array (M, M) or None
        ``C[j, k]`` = cost of predicting class k for true class j, classes in sorted label
        order; None means 0-1 costs.  Used by the loss and by ``decision="bayes"``.
    n_estimators : int
        Boosting iterations T; each adds up to M-1 weak learners.
    decision : {"argmax", "bayes"}
        "argmax": argmax_j <y_j, f(x)> (Algorithm 1).  "bayes": the cost-sensitive Bayes rule
        (3) on the posteriors (33); with ``loss="mcboost"`` this is P-MCBoost.
    line_search_tol, line_search_max_iter : float, int
        Stopping rule of the safeguarded Newton line search (relative step size).
    backend : {"cython", "numpy"}
        Kernels or their NumPy references (identical maths; for tests and benchmarks).
    labels : array-like or None
        All class labels, sorted, when ``y`` may lack some of them (e.g. a training split
        without a rare class); ``cost_matrix`` is indexed by them.  None: the labels of ``y``.
    random_state : None
        Accepted for a uniform interface; the algorithm is deterministic (ties between
        features go to the lowest index).
    """

    def __init__(
        self,
        loss="gll",
        cost_matrix=None,
        n_estimators=100,
        decision="argmax",
        line_search_tol=1e-6,
        line_search_max_iter=100,
        backend="cython",
        labels=None,
        random_state=None,
    ):
        self.loss = loss
        self.cost_matrix = cost_matrix
        self.n_estimators = n_estimators
        self.decision = decision
        self.line_search_tol = line_search_tol
        self.line_search_max_iter = line_search_max_iter
        self.backend = backend
        self.labels = labels
        self.random_state = random_state

    def _check_params(self):
        loss = get_loss(self.loss)
        if self.decision not in DECISIONS:
            raise ValueError(f"decision={self.decision!r} is not valid; choose one of {DECISIONS}")
        if self.backend not in KERNELS:
            raise ValueError(f"backend={self.backend!r} is not valid; choose one of {sorted(KERNELS)}")
        if not (isinstance(self.n_estimators, (int, np.integer)) and self.n_estimators >= 0):
            raise ValueError(f"n_estimators must be a non-negative integer, got {self.n_estimators!r}")
        return loss

    def fit(self, X, y):
        """Run T iterations of Algorithm 1 on (X, y).

        Training is a pure function of (X, y, loss, the costs the loss uses, T, line-search
        settings, backend); ``decision`` and, for ``loss="mcboost"``, the cost matrix only
        act at prediction.  The 8 most recently used fits are memoised on that key in-process, so
        MCBoost and P-MCBoost on the same split, or MCBoost under different cost matrices,
        train once.
        """
        loss = self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_classification_targets(y)
        present = np.unique(y)
        if len(present) < 2:
            raise ValueError(
                f"MCBoost needs at least 2 classes but the training labels hold only 1 class ({present[0]!r}); "
                "a single-class training fold cannot train a classifier (use a stratified split)"
            )
        self.classes_ = present if self.labels is None else np.unique(np.asarray(self.labels))
        unknown = np.setdiff1d(present, self.classes_)
        if len(unknown):
            raise ValueError(f"training labels {unknown.tolist()} are not in labels={self.classes_.tolist()}; "
                             "add them to `labels` or drop those samples")
        z = np.searchsorted(self.classes_, y)
        M = len(self.classes_)
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        self.codewords_ = simplex_codewords(M)
        kC = loss.kernel_costs(self.cost_matrix_)
        key = hashlib.sha1(b"".join([
            X.tobytes(), np.ascontiguousarray(z).tobytes(), kC.tobytes(),
            repr((X.shape, self.loss, self.n_estimators, self.line_search_tol,
                  self.line_search_max_iter, self.backend)).encode(),
        ])).hexdigest()
        if key in _FITS:
            _FITS[key] = _FITS.pop(key)  # most recently used last
        else:
            _FITS[key] = self._train(X, z, loss, kC)
            while len(_FITS) > _FITS_KEPT:
                _FITS.pop(next(iter(_FITS)))
        self.coef_, self.intercept_, self.train_loss_ = (a.copy() for a in _FITS[key])
        return self

    def _train(self, X, z, loss, kC):
        """Algorithm 1 proper; returns (coef, intercept, train_loss)."""
        M = len(self.classes_)
        kern = KERNELS[self.backend]
        family = kern.FAMILIES[loss.family]
        outer = kern.OUTERS[loss.outer]
        z = np.ascontiguousarray(z, dtype=np.intp)

        # Centre and scale features for well-conditioned least squares; the weak-learner
        # fits are affine-invariant per feature, so this changes no decision.
        mu = X.mean(axis=0)
        sd = X.std(axis=0)
        sd[sd == 0] = 1.0
        Xs = np.ascontiguousarray((X - mu) / sd)

        n = X.shape[0]
        S = np.zeros((n, M))
        coef = np.zeros((M - 1, X.shape[1]))
        intercept = np.zeros(M - 1)
        V = np.ascontiguousarray(0.5 * self.codewords_.T)  # row r: d S / d f_r
        shared = _CoordinateStep.shared_buffers(n, M, family, kern)
        steps = [_CoordinateStep(kern, V[r], z, kC, family, outer, shared) for r in range(M - 1)]
        train_loss = np.empty(self.n_estimators + 1)  # loss before each iteration, and at the end
        for t in range(self.n_estimators):
            for r, step in enumerate(steps):
                w, total = step.prepare(S, with_loss=r == 0)
                if r == 0:
                    train_loss[t] = total / n
                g = LinearWeakLearner.fit(Xs, w, self.backend)
                if g is None or not g.derivative < 0:
                    continue
                gx = g.predict(Xs)
                alpha = step.line_search(gx, self.line_search_tol, self.line_search_max_iter)
                kern.add_outer(S, gx, V[r], alpha)
                coef[r, g.feature] += alpha * g.a
                intercept[r] += alpha * g.b
        train_loss[-1] = steps[0].prepare(S, with_loss=True)[1] / n
        coef = coef / sd
        return coef, intercept - coef @ mu, train_loss[1:]

    def predictor(self, X):
        """The multi-dimensional predictor f(x), shape (n, M-1)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_.T + self.intercept_

    def decision_function(self, X):
        """Class scores S_k = <y_k, f(x)> / 2 (23); for two classes, S_2 - S_1 as sklearn expects."""
        S = 0.5 * self.predictor(X) @ self.codewords_.T
        return S[:, 1] - S[:, 0] if len(self.classes_) == 2 else S

    def predict_proba(self, X):
        """Posterior estimates (33): softmax of <y_j, f(x)>.

        Calibrated for the MCBoost loss (22); for the cost-sensitive losses these are the
        same link applied to a differently trained f and are not calibrated posteriors.
        """
        A = self.predictor(X) @ self.codewords_.T
        A -= A.max(axis=1, keepdims=True)
        P = np.exp(A)
        return P / P.sum(axis=1, keepdims=True)

    def predict(self, X):
        """argmax_j <y_j, f(x)>, or the Bayes rule (3) on (33) when ``decision="bayes"``."""
        if self.decision == "bayes":
            idx = bayes_decision(self.predict_proba(X), self.cost_matrix_)
        else:
            idx = np.argmax(self.predictor(X) @ self.codewords_.T, axis=1)
        return self.classes_[idx]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


