"""Coordinate-descent MCBoost with cost-sensitive losses (Beijbom et al. 2014, Algorithm 1)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro._kernels import backend, exp_losses, exp_losses_ref
from csrepro.boosting.codewords import simplex_codewords
from csrepro.cache import fingerprint, named_cache
from csrepro.costs import check_cost_matrix_for_labels
from csrepro.decision.rules import decide
from csrepro.losses.multiclass import MULTICLASS_LOSSES, get_loss
from csrepro.validation import IntegerInterval, check_sample_weight, check_targets, classes_and_codes, drop_unweighted
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import SignRegression
from csrepro.weak.lines import LineLearner

KERNELS = {"cython": exp_losses, "numpy": exp_losses_ref}  # the loss kernels, by backend.current()
#: the 8 most recently used trainings, see MCBoostClassifier.fit
FITS = named_cache("mcboost_fits", maxsize=8)
DECISIONS = ("argmax", "bayes")


class _LossState:
    """Per-sample exponential terms of the loss (the kernels' state, column-major: term j of sample i at
    ``P[j, i]``), starting at f = 0, and the sample weights ``sw`` (None: unweighted) by which the kernels weigh
    each sample's loss in the risk."""

    def __init__(self, kern, z, C, M, family, outer, sw=None):
        n, pairwise = len(z), family == kern.FAMILIES["pairwise"]
        self.z, self.C, self.outer, self.sw = z, C, outer, sw
        self.P, self.Q, self.scale = np.empty((M, n)), np.empty((M if pairwise else 0, n)), np.empty(n)
        kern.load_state(np.zeros((n, M)), z, C, family, outer, self.P, self.Q, self.scale)


def feature_cells(columns, n_offsets):
    """Per feature column, ``(codes, values)`` of its distinct values (``values[codes]`` is the
    column), or None where the cells (distinct value x line-search offset, ``n_offsets`` of
    them) would be more than a quarter of the samples and per-sample work is as cheap.
    """
    cells = []
    for col in columns:
        values, codes = np.unique(col, return_inverse=True)
        keep = len(values) * n_offsets * 4 <= len(col)
        cells.append((np.ascontiguousarray(codes, dtype=np.intp), values) if keep else None)
    return cells


class _CoordinateStep:
    """Kernel calls for updates of one predictor coordinate f_r (eqs. 30-32).

    The score direction v = y_{., r} / 2 takes few distinct values (three for the Helmert
    codewords), so the line search works on per-group sums prepared with the weights.  The
    per-sample weight buffers in ``shared`` serve every coordinate, since the steps run one
    at a time.

    Samples whose chosen feature has the same value and whose offset v_{z_i} is the same (a
    "cell") have the same exponential factors along the line.  When the feature has few
    distinct values (:func:`feature_cells`) the factors are computed once per cell; for the
    identity outer the summed derivatives are even linear in the per-cell sums of the scaled
    groups, so the line search runs on the cells alone (same maths, other summation order).
    """

    def __init__(self, kern, v, z, family, shared):
        self.kern, self.family = kern, family
        self.uniq, group = np.unique(v, return_inverse=True)
        self.group = np.ascontiguousarray(group, dtype=np.intp)
        self.order = np.argsort(self.group, kind="stable").astype(np.intp)
        self.starts = np.searchsorted(self.group[self.order], np.arange(len(self.uniq) + 1)).astype(np.intp)
        n, nu = len(z), len(self.uniq)
        self.pairwise = family == kern.FAMILIES["pairwise"]
        margin = family == kern.FAMILIES["margin"]
        self.off = np.ascontiguousarray(v[z]) if margin else np.zeros(n)
        # a cell is (feature value, offset): offsets are the groups of v_{z_i} (margin family) or all 0
        self.cell_offsets = self.uniq if margin else np.zeros(1)
        # the identity-outer line search on cells: the groups' values, or for the pairwise family the
        # exponents uniq_u - uniq_k of the product's terms (a plain-family sum)
        self.cell_uniq = (self.uniq[:, None] - self.uniq[None, :]).ravel() if self.pairwise else self.uniq
        self.cell_family = kern.FAMILIES["plain"] if self.pairwise else family
        self.offset_index = self.group[z] if margin else np.zeros(n, dtype=np.intp)
        self.wh, self.g, self._rows = shared
        self.A, self.B = np.empty((n, nu)), np.empty((n, nu))
        self.factors = np.empty((n, (2 if self.pairwise else 1) * nu))
        self._line = None  # (g, off, rows, factor buffer) of the last line search, for the update (32)
        self._cells = {}  # feature -> _cell_buffers
        self._factors_at = None  # the alpha whose factors are in that buffer

    @staticmethod
    def shared_buffers(n, n_derivatives):
        """Per-sample loss derivatives (weights first; 1 or 3 of them), weak-learner values and cells (of the
        line search's feature, see :func:`feature_cells`) shared by all coordinates."""
        return np.empty((n_derivatives, n)), np.empty(n), np.empty(n, dtype=np.intp)

    def prepare(self, state, with_loss=False):
        """Boosting weights w^r (34)-(37) at the current state into ``shared``'s first row, and the summed loss
        (if asked, else 0).

        Also fills the line-search groups.
        """
        return self.kern.prepare_step(state.P, state.Q, state.scale, self.order, self.starts, self.uniq,
                                      self.off, self.family, state.outer, self.wh, self.A, self.B,
                                      with_loss, state.sw)

    def line_search(self, columns, cells, learner, state, tol, max_iter):
        """alpha minimising the empirical risk (31) along the weak learner g = a x_j + b.

        Uses the groups and weights of :meth:`prepare`; ``cells`` is :func:`feature_cells`.
        """
        kern, coded, self._factors_at = self.kern, cells[learner.feature], None
        if coded is None:  # factors per sample
            rows, factor_g, factor_off, factors = None, self.g, self.off, self.factors
        else:
            codes, values = coded
            factor_g, factor_off, factors, sums, ones, work = self._cell_buffers(learner.feature, len(values))
            if len(self.cell_offsets) > 1:
                rows = self._rows
                kern.cell_line(values, learner.a, learner.b, factor_g, codes, self.offset_index, rows)
            else:
                rows = codes
                kern.cell_line(values, learner.a, learner.b, factor_g)
        self._line = (factor_g, factor_off, rows, factors)
        if coded is not None and state.outer == kern.OUTERS["identity"]:
            kern.aggregate_cells(self.A, self.B, state.scale, rows, self.family, sums, state.sw)
            return kern.line_search(sums, sums, ones, self.cell_uniq, factor_off, factor_g, self.cell_family,
                                    state.outer, work, tol, max_iter)[0]

        start = kern.line_start(columns[learner.feature], learner.a, learner.b, self.wh, self.g)
        alpha, _, self._factors_at = kern.line_search(self.A, self.B, state.scale, self.uniq, self.off, self.g,
                                                      self.family, state.outer, factors, tol, max_iter, start,
                                                      rows, factor_g, factor_off, state.sw)
        return alpha

    def _cell_buffers(self, feature, n_values):
        """The buffers of a line search on ``feature`` (``n_values`` distinct values): the cells' g (filled per
        search), their offsets, factors, per-cell sums, unit scales and work; made once per feature."""
        if feature not in self._cells:
            n_cells = n_values * len(self.cell_offsets)
            sums = np.empty((n_cells, len(self.cell_uniq)))
            self._cells[feature] = (np.empty(n_cells), np.tile(self.cell_offsets, n_values),
                                    np.empty((n_cells, self.factors.shape[1])), sums, np.ones(n_cells),
                                    np.empty_like(sums))
        return self._cells[feature]

    def apply(self, state, alpha, then, with_loss=False):
        """Update (32) f_r += alpha g of the state, reusing the line search's last factors when they are at alpha,
        then ``then.prepare(state, with_loss)`` (the next coordinate's step) in the same pass over the state;
        returns that summed loss."""
        if alpha == 0.0:  # nothing moves (e.g. the line search's first step was already below its tolerance)
            return then.prepare(state, with_loss)
        g, off, rows, factors = self._line
        if self._factors_at != alpha:
            self.kern.line_factors(self.uniq, off, g, self.family, alpha, factors)
        self._factors_at = None
        return self.kern.apply_step(state.P, state.Q, state.scale, state.z, state.C, factors, self.group,
                                    self.family, state.outer, rows, order=then.order, starts=then.starts,
                                    uniq=then.uniq, off=then.off, wh=then.wh, A=then.A, B=then.B,
                                    with_loss=with_loss, sw=state.sw)


class MCBoostClassifier(ClassifierMixin, BaseEstimator):
    """CD-MCBoost (Algorithm 1) for the losses MCBoost (22), GEL (20), GLL (21), L_s (12), L_t (14).

    The predictor f(x) in R^{M-1} scores class k by S_k = <y_k, f(x)> / 2 (23) with the simplex
    codewords of :func:`~csrepro.boosting.codewords.simplex_codewords`.  Each iteration visits
    the coordinates r = 1..M-1 in order: boosting weights w^r (34)-(37), the regression weak
    learner g(x) = a x_j + b minimising the directional derivative (30) (the weak-learner protocol of
    :mod:`csrepro.weak.base`: :class:`~csrepro.weak.lines.LineLearner` fitting the weights w under
    :class:`~csrepro.weak.criteria.SignRegression`), the exact line search (31) for alpha, and the
    update f_r += alpha g (32).  Since every weak learner is affine in one feature, f is
    stored as an affine map ``coef_ @ x + intercept_``.

    Sample weights (``fit(X, y, sample_weight)``, s_i >= 0): every loss of the paper, L_s (12), L_t (14),
    GEL (20), GLL (21) and MCBoost's (22) (also P-MCBoost's training loss), is a loss per sample, and the
    risk minimised is their mean (8) (MCBoost's sum (24), the same minimiser); none couples samples.  The
    weighted risk is sum_i s_i L[C, z_i, S(x_i)] / sum_i s_i, so s_i multiplies sample i's boosting weight
    w^r(x_i) (34)-(37) in the directional derivative (27) (the weak learner (30) fits the weighted w) and
    its loss and derivatives in the line search (31); the posteriors (33) and the Bayes rule (3) are
    unchanged.  The weights are scaled to mean 1 (all ones: the unweighted fit, bit for bit) and rows of
    weight 0 are dropped, so an integer weight acts as that many copies of the row.

    Parameters
    ----------
    loss : {"mcboost", "gel", "gll", "ls", "lt"}
    cost_matrix : array (M, M) or None
        ``C[j, k]`` = cost of predicting class k for true class j (rows: true class, columns: predicted class,
        both in ``classes_`` order: ``labels`` as given, else sorted); None means 0-1 costs.  Used by the loss
        and by ``decision="bayes"``.
    n_estimators : int >= 1
        Boosting iterations T; each adds up to M-1 weak learners.
    decision : {"argmax", "bayes"}
        "argmax": argmax_j <y_j, f(x)> (Algorithm 1).  "bayes": the cost-sensitive Bayes rule
        (3) on the posteriors (33); with ``loss="mcboost"`` this is P-MCBoost.
    line_search_tol, line_search_max_iter : float > 0, int >= 1
        Stopping rule of the safeguarded Newton line search (relative step size).
    labels : array-like or None
        All class labels, in the order of ``cost_matrix``'s rows and columns (kept as given, duplicates refused),
        also when ``y`` lacks some of them (e.g. a training split without a rare class).  None: the sorted labels
        of ``y``.
    random_state : None
        Accepted for a uniform interface; the algorithm is deterministic (ties between
        features go to the lowest index).
    """

    _parameter_constraints: dict = {
        "loss": [StrOptions(set(MULTICLASS_LOSSES))],
        "cost_matrix": ["array-like", None],
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "decision": [StrOptions(set(DECISIONS))],
        "line_search_tol": [Interval(Real, 0, None, closed="neither")],
        "line_search_max_iter": [IntegerInterval(1, None, closed="left")],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        loss="gll",
        cost_matrix=None,
        n_estimators=100,
        decision="argmax",
        line_search_tol=1e-6,
        line_search_max_iter=100,
        labels=None,
        random_state=None,
    ):
        self.loss = loss
        self.cost_matrix = cost_matrix
        self.n_estimators = n_estimators
        self.decision = decision
        self.line_search_tol = line_search_tol
        self.line_search_max_iter = line_search_max_iter
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Run T iterations of Algorithm 1 on (X, y); ``sample_weight`` (n,), non-negative, weighs each
        sample's loss in the risk (8) (see the class docstring; None: all 1).

        Training is a pure function of (X, y, sample weights, loss, the costs the loss uses, T, line-search
        settings, the kernels' backend); ``decision`` and, for ``loss="mcboost"``, the cost matrix only
        act at prediction.  The 8 most recently used fits are cached on that key in-process (:data:`FITS`), so
        MCBoost and P-MCBoost on the same split, or MCBoost under different cost matrices,
        train once.
        """
        loss = get_loss(self.loss)
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        check_targets(y)
        present = np.unique(y)
        if len(present) < 2:
            raise ValueError(
                f"MCBoost needs at least 2 classes but the training labels hold only 1 class ({present[0]!r}); "
                "a single-class training fold cannot train a classifier (use a stratified split)"
            )
        self.classes_, z = classes_and_codes(y, self.labels)
        sw, X, z = drop_unweighted(check_sample_weight(sample_weight, X), X, z)
        M = len(self.classes_)
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        self.codewords_ = simplex_codewords(M)
        kC = loss.kernel_costs(self.cost_matrix_)
        key = fingerprint(X, z, kC, self.loss, self.n_estimators, self.line_search_tol, self.line_search_max_iter,
                          backend.current(), sw)
        fit = FITS.get(key, lambda: self._train(X, z, loss, kC, sw))
        self.coef_, self.intercept_, self.train_loss_, self.steps_, self._scaling = (a.copy() for a in fit)
        return self

    def _train(self, X, z, loss, kC, sw=None):
        """Algorithm 1 proper, with sample weights ``sw`` (mean 1 before rows of weight 0 were dropped, or None);
        returns (coef, intercept, train_loss, steps, scaling); train_loss is the (weighted) risk (8)."""
        M = len(self.classes_)
        kern = KERNELS[backend.current()]
        family = kern.FAMILIES[loss.family]
        outer = kern.OUTERS[loss.outer]
        z = np.ascontiguousarray(z, dtype=np.intp)

        # Centre and scale features for well-conditioned least squares; the weak-learner
        # fits are affine-invariant per feature, so this changes no decision.
        mu = X.mean(axis=0)
        sd = X.std(axis=0)
        sd[sd == 0] = 1.0
        Xs = np.ascontiguousarray((X - mu) / sd)
        columns = np.ascontiguousarray(Xs.T)  # contiguous feature columns for the line search
        data = BinnedData(Xs)  # the line learner reads only the raw Xs: never binned
        learner, criterion = LineLearner(), SignRegression()

        n = X.shape[0]
        coef = np.zeros((M - 1, X.shape[1]))
        intercept = np.zeros(M - 1)
        V = np.ascontiguousarray(0.5 * self.codewords_.T)  # row r: d S / d f_r
        state = _LossState(kern, z, kC, M, family, outer, sw)
        total_weight = n if sw is None else sw.sum()  # the risk's divisor; all-ones weights: n exactly
        margin = family == kern.FAMILIES["margin"]
        cells = feature_cells(columns, max(len(np.unique(v)) for v in V) if margin else 1)
        # per-sample line starts need the weights' next two derivatives; a line search on the
        # cells of an identity-outer loss does not
        n_derivatives = 1 if outer == kern.OUTERS["identity"] and all(c is not None for c in cells) else 3
        shared = _CoordinateStep.shared_buffers(n, n_derivatives)
        steps = [_CoordinateStep(kern, V[r], z, family, shared) for r in range(M - 1)]
        train_loss = np.empty(self.n_estimators + 1)  # loss before each iteration, and at the end
        steps_taken = []  # (iteration, r, feature, alpha a, alpha b) of every update, for the staged predictions
        w = shared[0][0][:, None]  # the boosting weights, filled by each coordinate's prepare
        total = steps[0].prepare(state, with_loss=True)
        for t in range(self.n_estimators):
            train_loss[t] = total / total_weight
            for r, step in enumerate(steps):
                # the next coordinate's prepare follows this one's update (the next iteration's first: its loss)
                then, last = steps[(r + 1) % len(steps)], r + 1 == len(steps)
                g = learner.fit(data, w, criterion)
                if g is None or not g.score < 0:  # score: the directional derivative (30)
                    total = then.prepare(state, with_loss=last)
                    continue
                alpha = step.line_search(columns, cells, g, state, self.line_search_tol, self.line_search_max_iter)
                total = step.apply(state, alpha, then, with_loss=last)
                coef[r, g.feature] += alpha * g.a
                intercept[r] += alpha * g.b
                steps_taken.append((t, r, g.feature, alpha * g.a, alpha * g.b))
        train_loss[-1] = total / total_weight
        coef = coef / sd
        return coef, intercept - coef @ mu, train_loss[1:], np.array(steps_taken, dtype=np.float64).reshape(-1, 5), \
            np.stack([mu, sd])

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
            idx = decide(self.predict_proba(X), self.cost_matrix_)
        else:
            idx = np.argmax(self.predictor(X) @ self.codewords_.T, axis=1)
        return self.classes_[idx]

    def _staged_maps(self):
        """(coef, intercept) of f after each iteration t = 1..T: the updates of ``steps_`` replayed in training
        order with the same arithmetic, so the last is ``(coef_, intercept_)`` bit for bit."""
        check_is_fitted(self)
        mu, sd = self._scaling
        coef, intercept = np.zeros_like(self.coef_), np.zeros_like(self.intercept_)
        done = 0
        for t in range(self.n_estimators):
            while done < len(self.steps_) and self.steps_[done, 0] == t:
                _, r, feature, da, db = self.steps_[done]
                coef[int(r), int(feature)] += da
                intercept[int(r)] += db
                done += 1
            scaled = coef / sd
            yield scaled, intercept - scaled @ mu

    def _staged_predictors(self, X):
        """The predictor f_t(x) (n, M-1) after each iteration t = 1..T, as :meth:`predictor` computes f."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        for coef, intercept in self._staged_maps():
            yield X @ coef.T + intercept

    def staged_decision_function(self, X):
        """:meth:`decision_function` after each iteration 1..``n_estimators`` (the last is ``decision_function``),
        so that the number of iterations can be chosen on validation (csrepro.selection.rounds)."""
        for F in self._staged_predictors(X):
            S = 0.5 * F @ self.codewords_.T
            yield S[:, 1] - S[:, 0] if len(self.classes_) == 2 else S

    @staticmethod
    def _posteriors(F, codewords):
        A = F @ codewords.T
        A -= A.max(axis=1, keepdims=True)
        P = np.exp(A)
        return P / P.sum(axis=1, keepdims=True)

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each iteration 1..``n_estimators`` (the last is ``predict_proba``)."""
        for F in self._staged_predictors(X):
            yield self._posteriors(F, self.codewords_)

    def staged_predict(self, X):
        """:meth:`predict` after each iteration 1..``n_estimators`` (the last is ``predict``)."""
        for F in self._staged_predictors(X):
            if self.decision == "bayes":
                idx = decide(self._posteriors(F, self.codewords_), self.cost_matrix_)
            else:
                idx = np.argmax(F @ self.codewords_.T, axis=1)
            yield self.classes_[idx]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


