"""CW-Boost: totally-corrective multiclass boosting by column generation (Shen & Hao, CVPR 2011), the cost-neutral
baseline "CW-Boost" of REBEL (Appel, Burgos-Artizzu & Perona 2016, Sec. 5.1 / Fig. 4), on decision stumps.

Model.  Column j is a stump h_j(x) in {-1, +1} serving one class c_j (class-wise weak learners: the classes share
no feature -- Appel et al.'s supplement groups CW-Boost with 1-vs-All and ECC for this), with weight w_j >= 0;
the class scores are

    F_r(x) = sum_{j : c_j = r} w_j h_j(x),          prediction argmax_r F_r(x),

and the margins of sample i are rho_ir = F_{y_i}(x_i) - F_r(x_i) for every class r != y_i (m = n (K - 1) pairs).

Primal (Shen & Hao's direct formulation, over the columns found so far; ``loss`` = "exp" or "logistic")

    min_{w >= 0}  P(w) = (1/m) sum_i sum_{r != y_i} l(rho_ir) + nu sum_j w_j,
    l(rho) = exp(-rho)  or  log(1 + exp(-rho)).

Dual weights and edges.  With the pair weights u_ir = -l'(rho_ir) / m (exp: exp(-rho_ir) / m; logistic:
sigmoid(-rho_ir) / m), the gradient is dP/dw_j = nu - edge_j(u), where a column (h, r) has the edge

    edge(h, r) = sum_i h(x_i) g_ir,   g_ir = [y_i = r] sum_{r' != y_i} u_ir' - [y_i != r] u_ir           (*)

(the per-sample contributions g (n, K): :func:`edge_channels`).  The Lagrange dual of the primal maximises an
entropy of u subject to edge(h, r) <= nu for every stump h and class r; at the primal optimum the dual variables
are the u above.  Column generation: each round adds the (stump, polarity, class) of largest edge, the most
violated dual constraint (:func:`best_column`; its polarity is the sign of the +1-right stump's edge, since
edge(-h, r) = -edge(h, r)), and stops when no edge exceeds nu (1 + ``tolerance``): the current w then solves the
primal over *all* stumps up to the tolerance.  After adding a column the primal is re-solved totally-correctively
over every column so far (L-BFGS-B with bounds w >= 0, warm-started at the previous w and 0 for the new column,
exact gradient, stopping at projected gradient <= ``tolerance`` x nu), so the primal objective never increases
from round to round.  The KKT conditions of the solved w are those of the dual constraints on the chosen
columns: dP/dw_j = 0 where w_j > 0, >= 0 where w_j = 0 (edges equal nu on the active columns).

Reconstruction (what is ours, not Shen & Hao's text, which we could not consult here):

* the loss is averaged over the m pairs, not summed: the paper's summed primal with parameter nu' is this one
  with nu = nu' / m, so nu is on one scale whatever n and K (u sums to at most 1, |edge| <= 1; at w = 0 the
  exp loss is 1).  Shen & Hao (after Shen & Li 2010) may write the exponential primal as
  log sum exp(-rho) + nu_log ||w||_1; its KKT points are those of the exp primal here at nu = nu_log L(w*), L the
  mean pair loss at the solution -- the same regularisation path, reparametrised.  The summed form is used
  because it is bounded below for every nu > 0 (the log form is unbounded once nu is below the l1-normalised
  margin the columns reach, e.g. on separable training data);
* pairs run over r != y_i (the r = y_i terms are constants);
* each column serves one class (the brief of this reproduction and Appel et al.'s "no feature sharing"); the
  paper's matrix form H W, W >= 0 (J x K), would also allow a stump, once found, to be weighted for every class;
* the weak learners are REBEL's stumps (Appel et al. Sec. 4: ``n_bins`` evenly spaced thresholds per feature,
  :meth:`~csrepro.weak.binning.BinMapper.fit_uniform`), h in {-1, +1}; ties of the largest |edge| go to the
  lowest feature, then threshold, then class;
* the default nu = 1e-4: Appel et al. tuned only the number of rounds (<= 200, on validation), so nu must let 200
  columns in.  Edges shrink with the training loss (|edge| <= the mean loss); on sklearn's digits and UCI
  pendigits (50/50 splits) nu = 1e-4 adds all 200 columns (last edges about 1.6e-4 and 3.4e-4), the solves
  take tens of L-BFGS-B iterations per round, and of nu in {1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5} it gave the
  lowest or near-lowest 200-round test error on both (nu = 1e-2 stops early, at 171 columns on digits; 1e-5
  costs 1.6-1.8 times the solver iterations and was no better).  ||w||_1 <= P(0) / nu = 10^4 keeps the weights bounded;
* a class of ``labels`` absent from training has no pairs and no columns: F_r = -inf, never predicted
  (m then counts the pairs of the present classes).

Staged outputs: the solve is totally corrective, so the weights of every round are kept (``coef_path_``); stage t
is the model of round t, equal to a refit with ``n_estimators=t`` (the rounds do not depend on T).
Cost-neutral: no ``cost_matrix`` parameter (:func:`csrepro.methods.make_estimator` warns when given one).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.optimize import Bounds, minimize
from scipy.special import expit
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from csrepro.boosting.scores import _VectorBoost
from csrepro.threads import one_thread
from csrepro.validation import IntegerInterval, warn_no_weak_learner
from csrepro.weak.binning import BinnedData
from csrepro.weak.splits import first_min, scan_node
from csrepro.weak.stumps import Stump

__all__ = ["LOSSES", "CWBoostClassifier", "Column", "best_column", "edge_channels", "pair_weights", "primal"]

LOSSES = ("exp", "logistic")
#: -rho is clipped here in the exp loss: exp(500) m stays finite, and only far-off line-search trials reach it
_CLIP = 500.0


# ----- the primal, its dual weights and the edges ------------------------------------------------------------------
def pair_weights(F: np.ndarray, z: np.ndarray, pairs: np.ndarray, loss: str = "exp") -> tuple[float, np.ndarray]:
    """(loss, U) at the scores ``F`` (n, K): the averaged pair loss (1/m) sum_{pairs} l(rho_ir) and the dual weights
    U (n, K), u_ir = -l'(rho_ir) / m, 0 off the pairs.  ``z``: class index of each sample; ``pairs`` (n, K) float 0/1
    marks the pairs (i, r), r != z_i (and r present in training); m = pairs.sum()."""
    m = pairs.sum()
    neg_rho = F - F[np.arange(len(F)), z][:, None]  # -rho_ir = F_r(x_i) - F_{y_i}(x_i)
    if loss == "exp":
        U = np.exp(np.minimum(neg_rho, _CLIP)) * pairs
        value = U.sum()
    elif loss == "logistic":
        value = (np.logaddexp(0.0, neg_rho) * pairs).sum()
        U = expit(neg_rho) * pairs
    else:
        raise ValueError(f"loss={loss!r} is not one of {LOSSES}")
    U /= m
    return float(value / m), U


def edge_channels(U: np.ndarray, z: np.ndarray) -> np.ndarray:
    """g (n, K) of (*): g_ir = [z_i = r] sum_r' u_ir' - [z_i != r] u_ir, so that edge(h, r) = sum_i h(x_i) g_ir."""
    g = -U
    g[np.arange(len(U)), z] = U.sum(axis=1)
    return g


def class_scores(Hc: np.ndarray, w: np.ndarray, onehot: np.ndarray) -> np.ndarray:
    """F (n, K) = Hc diag(w) onehot: ``Hc`` (n, t) the columns' outputs, ``onehot`` (t, K) their classes."""
    return Hc @ (w[:, None] * onehot)


class Primal:
    """The primal over fixed columns ``Hc`` (n, t) serving the classes ``classes`` (t,): ``primal(w)`` is
    (P(w), dP/dw) with the exact gradient dP/dw_j = nu - edge_j = nu - sum_i Hc_ij g_{i, c_j}.

    The columns are copied once, grouped by class (stable), so that F_r = Hc_r w_r and the edges Hc_r^T g_r are
    one matrix-vector product per class: O(n t) per evaluation, not O(n t K)."""

    def __init__(self, Hc, classes, z, pairs, nu, loss="exp"):
        classes = np.asarray(classes, dtype=np.intp)
        self.order = np.argsort(classes, kind="stable")
        self.H = np.asfortranarray(Hc[:, self.order])
        bounds = np.searchsorted(classes[self.order], np.arange(pairs.shape[1] + 1))
        self.blocks = [(r, slice(bounds[r], bounds[r + 1])) for r in range(pairs.shape[1]) if bounds[r + 1] > bounds[r]]
        self.z, self.pairs, self.nu, self.loss = z, np.asfortranarray(pairs), float(nu), loss

    def scores(self, w) -> np.ndarray:
        """F (n, K), Fortran order."""
        v = np.asarray(w, dtype=np.float64)[self.order]
        F = np.zeros(self.pairs.shape, order="F")
        for r, s in self.blocks:
            F[:, r] = self.H[:, s] @ v[s]
        return F

    def __call__(self, w) -> tuple[float, np.ndarray]:
        value, U = pair_weights(self.scores(w), self.z, self.pairs, self.loss)
        g = edge_channels(U, self.z)
        edges = np.empty(len(self.order))
        for r, s in self.blocks:
            edges[self.order[s]] = g[:, r] @ self.H[:, s]
        return value + self.nu * float(np.sum(w)), self.nu - edges


def primal(w, Hc, classes, z, pairs, nu, loss="exp") -> tuple[float, np.ndarray]:
    """(P(w), dP/dw) of the columns ``Hc`` (n, t) serving ``classes`` (t,): see :class:`Primal`."""
    return Primal(Hc, classes, z, pairs, nu, loss)(np.asarray(w, dtype=np.float64))


@dataclass(frozen=True, eq=False)
class Column:
    """A column of the primal: ``stump`` (values +-1, ``score`` = its edge), the class index ``klass`` it serves,
    and its ``edge`` (*) at the dual weights it was chosen by."""

    stump: Stump
    klass: int
    edge: float


def best_column(data: BinnedData, g: np.ndarray) -> Column | None:
    """The stump, polarity and class of largest edge (*) for the channels ``g`` (n, K); None when every feature is
    constant.  One K-channel histogram pass, then one cumulative-sum scan of every threshold of every feature: the
    +1-right stump "-1 if x_j <= t else +1" has edge R_r - L_r (channel sums right and left of t), its mirror the
    opposite.  Ties: the lowest feature, then threshold, then class."""
    flat, feature, b = data.candidates
    if len(flat) == 0:
        return None
    K = g.shape[1]
    scan = scan_node(data, data.histogram(g))
    D = scan.R - scan.L  # (C, K) edges of the +1-right stumps
    best = first_min(-np.abs(D).ravel())  # C order: candidate (feature, threshold) first, then class
    c, r = divmod(best, K)
    edge = float(D[c, r])
    values = np.array([-1.0, 1.0]) if edge >= 0 else np.array([1.0, -1.0])
    j = int(feature[c])
    stump = Stump(j, data.threshold(j, int(b[c])), values, np.vstack([scan.L[c], scan.R[c]]), abs(edge))
    return Column(stump, int(r), abs(edge))


# ----- the estimator -------------------------------------------------------------------------------------------------
class CWBoostClassifier(_VectorBoost):
    """CW-Boost (Shen & Hao, CVPR 2011): totally-corrective multiclass boosting with class-wise stumps, by column
    generation on the Lagrange dual; see the module docstring for the equations and what is reconstructed.

    Round t: the dual weights u at the current w give the edges (*) of every (stump, polarity, class); the one of
    largest edge becomes column t unless no edge exceeds nu (1 + tolerance) (then the primal is solved over all
    stumps: training stops early, ``converged_`` is True); the primal is then re-solved over columns 1..t by
    L-BFGS-B (w >= 0), warm-started.

    Parameters
    ----------
    n_estimators : int >= 1
        Rounds T (columns, one stump for one class each) at most.
    nu : float > 0
        l1 regularisation of the pair-averaged primal.  The default 1e-4 lets 200 columns in on typical data; see
        the module docstring.
    loss : {"exp", "logistic"}
        l(rho) = exp(-rho) (Shen & Hao's exponential primal) or log(1 + exp(-rho)) (their logistic one).
    tolerance : float > 0
        Relative accuracy: each solve stops at projected gradient <= tolerance x nu, and column generation when no
        edge exceeds nu (1 + tolerance).
    max_iter : int >= 1
        L-BFGS-B iterations per solve at most (a ConvergenceWarning after the fit names the rounds that reached it).
    n_bins : int >= 2
        Evenly spaced thresholds per feature over its training range (REBEL's N_tau = 200).
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some (an
        absent class: F = -inf, never predicted).
    random_state : None
        Accepted for a uniform interface; training is deterministic.

    Attributes
    ----------
    classes_, estimators_ (T stumps, values +-1, ``score`` = edge when chosen), estimator_classes_ (T,) class
    index each column serves, coef_ (T,) final weights w, coef_path_ (T, T) row t - 1 the weights after round t
    (zero beyond column t), edges_ (T,) edge of each column when chosen, objectives_ (T,) P(w) after each round,
    n_iter_ (T,) L-BFGS-B iterations per round, converged_ (column generation stopped on the dual condition),
    n_estimators_, n_features_in_.
    """

    _parameter_constraints: dict = {
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "nu": [Interval(Real, 0, None, closed="neither")],
        "loss": [StrOptions(set(LOSSES))],
        "tolerance": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [IntegerInterval(1, None, closed="left")],
        "n_bins": [IntegerInterval(2, None, closed="left")],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_estimators=200, nu=1e-4, loss="exp", tolerance=1e-3, max_iter=1000, n_bins=200,
                 labels=None, random_state=None):
        self.n_estimators = n_estimators
        self.nu = nu
        self.loss = loss
        self.tolerance = tolerance
        self.max_iter = max_iter
        self.n_bins = n_bins
        self.labels = labels
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Run up to ``n_estimators`` rounds of column generation on (X, y)."""
        X, z = self._validate_training(X, y)
        n, K, T = len(X), len(self.classes_), self.n_estimators
        self.present_ = np.bincount(z, minlength=K) > 0
        pairs = np.broadcast_to(self.present_, (n, K)).astype(np.float64)
        pairs[np.arange(n), z] = 0.0
        data = BinnedData.memoised(X, self.n_bins, spacing="uniform")
        nu, tol = float(self.nu), float(self.tolerance)
        Hc = np.empty((n, T), order="F")  # column t's outputs on the training set
        w = np.zeros(0)
        F = np.zeros((n, K))
        path = np.zeros((T, T))
        estimators, classes, edges, objectives, iters = [], [], [], [], []
        options = {"maxiter": self.max_iter, "gtol": tol * nu, "ftol": 0.0}
        self.converged_ = False
        # one BLAS thread: the products are small (n x t by t x K) and threads only contend
        with one_thread("blas"):
            for t in range(T):
                _, U = pair_weights(F, z, pairs, self.loss)
                column = best_column(data, edge_channels(U, z))
                if column is None or column.edge <= nu * (1.0 + tol):
                    self.converged_ = column is not None
                    break
                Hc[:, t] = column.stump.predict(X)
                problem = Primal(Hc[:, :t + 1], np.append(classes, column.klass), z, pairs, nu, self.loss)
                res = minimize(problem, np.append(w, 0.0), jac=True, method="L-BFGS-B",
                               bounds=Bounds(0.0, np.inf), options=options)
                w = np.maximum(res.x, 0.0)
                F = problem.scores(w)
                path[t, :t + 1] = w
                estimators.append(column.stump)
                classes.append(column.klass)
                edges.append(column.edge)
                objectives.append(problem(w)[0])
                iters.append(res.nit)
        T = len(estimators)
        self.estimators_ = estimators
        self.estimator_classes_ = np.array(classes, dtype=np.intp)
        self.coef_path_ = path[:T, :T].copy()
        self.coef_ = self.coef_path_[-1].copy() if T else np.zeros(0)
        self.edges_ = np.array(edges)
        self.objectives_ = np.array(objectives)
        self.n_iter_ = np.array(iters, dtype=np.intp)
        self.n_estimators_ = T
        capped = np.flatnonzero(self.n_iter_ >= self.max_iter)
        if len(capped):
            warnings.warn(f"L-BFGS-B reached max_iter={self.max_iter} in rounds {(capped + 1).tolist()}; increase "
                          "max_iter or tolerance", ConvergenceWarning, stacklevel=2)
        if not T:
            warn_no_weak_learner(self, "no stump's edge exceeds nu (1 + tol)" if self.converged_
                                 else "no stump was found (every feature constant)")
        return self

    def _column_outputs(self, X):
        """(n, T): h_j(x) of every column."""
        if not self.estimators_:
            return np.zeros((len(X), 0))
        feature = np.array([h.feature for h in self.estimators_])
        threshold = np.array([h.threshold for h in self.estimators_])
        values = np.array([h.values for h in self.estimators_])  # (T, 2)
        return np.where(X[:, feature] <= threshold, values[:, 0], values[:, 1])

    def _stages(self, X):
        X = self._raw(X)
        K, T = len(self.classes_), self.n_estimators_
        Hc = np.asfortranarray(self._column_outputs(X))
        onehot = np.zeros((T, K))
        onehot[np.arange(T), self.estimator_classes_] = 1.0
        absent = np.where(self.present_, 0.0, -np.inf)
        yield np.zeros((len(X), K)) + absent
        for t in range(T):
            yield class_scores(Hc[:, :t + 1], self.coef_path_[t, :t + 1], onehot[:t + 1]) + absent
