"""AdaBoost.MM (Mukherjee & Schapire, JMLR 2013) and CoMBo (Koço & Capponi 2013, Algorithm 1): multiclass
boosting on a cost matrix rebuilt from the scores every round.

Notation of Koço & Capponi 2013 (the paper below).  Scores f_t(i, l) = sum_{s < t} alpha_s 1[h_s(x_i) = l]
(eq. (9)); per-example weights w_i: 1 for AdaBoost.MM, 1/m_{y_i} for CoMBo (m_y: training examples of class y).

* cost matrix (Sec. 2.2 for AdaBoost.MM, eq. (13) / Algorithm 1 for CoMBo), row i:
  D_t(i, l) = w_i exp(f_t(i, l) - f_t(i, y_i)) for l != y_i,  D_t(i, y_i) = -sum_{l != y_i} D_t(i, l);
* loss (Lemma 5's proof; eq. (11)'s objective, the exponential loss of Sec. 2.2 when w_i = 1):
  L_t = sum_i L_t(i),  L_t(i) = sum_{l != y_i} w_i exp(f_t(i, l) - f_t(i, y_i)) = -D_t(i, y_i);
* edge (Algorithm 1): delta_t = -sum_i D_t(i, h_t(x_i)) / sum_i sum_{l != y_i} D_t(i, l) = (A+ - A-) / L_{t-1},
  A+ = sum_{h_t(x_i) = y_i} L_{t-1}(i),  A- = sum_{h_t(x_i) != y_i} D_t(i, h_t(x_i));
* step: alpha_t = 1/2 ln((1 + delta_t) / (1 - delta_t)) (Algorithm 1, ``step="approx"``), or the exact line
  search argmin_alpha L_t = 1/2 ln(A+ / A-) (``step="exact"``: L_t(alpha) = A+ e^{-alpha} + A- e^{alpha} + const,
  from the first lines of Lemma 5's proof);
* update: f_{t+1}(i, h_t(x_i)) += alpha_t; output H(x) = argmax_l f_T(x, l).

Lemma 5 / eq. (18): L_t <= ((1 - delta_t)/2 e^{alpha_t} + (1 + delta_t)/2 e^{-alpha_t}) L_{t-1} for any alpha_t,
= sqrt(1 - delta_t^2) L_{t-1} at the approximate step; the exact step does at least as well.  The weak-learning
condition (15), D_t . 1_{h_t} <= D_t . U_gamma, reads delta_t >= gamma (:func:`weak_learning_condition`).  With
all K classes present CoMBo's L_0 = K (K - 1), so L_T <= K (K - 1) prod_t sqrt(1 - delta_t^2) (Theorem 6), and
L_T bounds ||C_S||^2 of the training confusion matrix (eqs. (5)-(7)).

No ``cost_matrix`` parameter: D_t is the algorithm's own, rebuilt from the scores, and a misclassification cost
matrix is not used (:func:`csrepro.methods.make_estimator` warns when one is given to the ids ``combo`` and
``adaboost_mm``).

The two boosters share one loop; only w_i differs.  Weak learners (``weak_learner``), both
:class:`~csrepro.weak.trees.TreeLearner` trees of depth ``max_depth`` on :class:`~csrepro.weak.binning.BinnedData`:

* ``"cost_tree"`` -- a tree grown with the cost itself as split criterion (:class:`~csrepro.weak.criteria.LeastCost`
  on the K channels D_t(i, .)): each leaf predicts its label of least summed cost and the tree minimises
  D_t . 1_h = sum_i D_t(i, h(x_i)), i.e. maximises delta_t over the trees it reaches greedily.  A constant
  tree already has delta_t >= 0 (the columns of D_t sum to 0 over the K labels).
* ``"weighted"`` -- a classification tree on the labels (:class:`~csrepro.weak.criteria.Gini`, leaves the weighted
  majority) with sample weights -D_t(i, y_i) / sum_j -D_t(j, y_j) = L_{t-1}(i) / L_{t-1}: scikit-learn's
  ``DecisionTreeClassifier(max_depth=d)`` fitted with those ``sample_weight``, as scikit-multimodallearn's
  MumboClassifier does for each view (with one view it is this AdaBoost.MM).  With ``max_bins=None`` it splits
  the training rows as scikit-learn does (``make crosscheck-combo``), but a threshold lies midway between
  neighbouring values of the whole training set here, of the node's rows there, so test predictions can
  differ; ties between splits go to the lowest feature here, to a random feature order there.

Stopping: no split possible (every feature constant); delta_t <= 0 (alpha_t <= 0 would leave eq. (8)'s
alpha_h >= 0: the weak learner fails the condition for every gamma > 0); after a round with delta_t >=
1 - 2 FLOOR (h_t right on every example: its cost rows all scale by e^{-alpha_t}, so it would be chosen again
forever), whose step uses delta_t = 1 - 2 FLOOR (exact step: A- >= FLOOR (A+ + A-)), a finite alpha_t about 11.5.

Cost matrices are computed scaled by e^{-M}, M the largest f(i, l) - f(i, y_i) over l != y_i: the trees, the
edge and both steps are invariant to a positive factor; ``losses_`` multiplies it back.
"""

from __future__ import annotations


import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import StrOptions

from csrepro.boosting.scores import _VectorBoost, _VoteProba
from csrepro.validation import IntegerInterval, check_sample_weight, drop_unweighted, warn_no_weak_learner
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Gini, LeastCost, label_channels
from csrepro.weak.trees import TreeLearner

__all__ = ["AdaBoostMMClassifier", "CoMBoClassifier", "FLOOR", "class_weights", "exact_step", "lemma5_factor",
           "mm_cost_matrix", "mm_edge", "mm_loss", "weak_learning_condition"]

#: smallest (1 - delta) / 2 (approximate step) or A- / (A+ + A-) (exact step) used in a step: alpha <= about 11.5
FLOOR = 1e-10


# ----- the paper's quantities ------------------------------------------------------------------------------------
def class_weights(z: np.ndarray, n_classes: int, sample_weight=None) -> np.ndarray:
    """CoMBo's w_i = 1 / m_{y_i} (eq. (13)) for class indices ``z`` (n,); with ``sample_weight`` s,
    w_i = s_i / sum_{j: y_j = y_i} s_j (m_y counted in weight, so an integer weight acts as copies of the row)."""
    if sample_weight is None:
        return 1.0 / np.bincount(z, minlength=n_classes)[z]
    mass = np.bincount(z, weights=sample_weight, minlength=n_classes)[z]
    return np.divide(sample_weight, mass, out=np.zeros(len(z)), where=mass > 0)


def _differences(F, z):
    """f(i, l) - f(i, y_i), (n, K)."""
    return F - F[np.arange(len(z)), z][:, None]


def mm_cost_matrix(F, z, weights=None) -> np.ndarray:
    """D (n, K) at scores ``F`` (n, K), class indices ``z`` (n,): Sec. 2.2 (AdaBoost.MM, ``weights=None``) and
    eq. (13) / Algorithm 1 (CoMBo, ``weights`` = :func:`class_weights`); row i sums to 0."""
    F, z = np.asarray(F, dtype=np.float64), np.asarray(z)
    w = np.ones(len(z)) if weights is None else np.asarray(weights, dtype=np.float64)
    rows = np.arange(len(z))
    D = w[:, None] * np.exp(_differences(F, z))
    D[rows, z] = 0.0
    D[rows, z] = -D.sum(axis=1)
    return D


def mm_loss(F, z, weights=None) -> float:
    """L = sum_i sum_{l != y_i} w_i exp(f(i, l) - f(i, y_i)) (Lemma 5's L_t; eq. (11); Sec. 2.2 with w_i = 1)."""
    D = mm_cost_matrix(F, z, weights)
    return float(-D[np.arange(len(z)), np.asarray(z)].sum())


def mm_edge(D, z, pred) -> float:
    """delta = -sum_i D(i, h(x_i)) / sum_i sum_{l != y_i} D(i, l) (Algorithm 1), h(x_i) = ``pred`` (n,)."""
    D, z = np.asarray(D, dtype=np.float64), np.asarray(z)
    rows = np.arange(len(z))
    off = np.ones(D.shape, dtype=bool)
    off[rows, z] = False
    return float(-D[rows, np.asarray(pred)].sum() / D[off].sum())


def weak_learning_condition(D, z, pred, gamma) -> bool:
    """Eq. (15): D . 1_h <= D . U_gamma, U_gamma (i, l) = (1 - gamma) / K + gamma 1[l = y_i] (Definition 4's
    baseline), both Frobenius products as written; for D of Algorithm 1 it is delta >= gamma."""
    D, z = np.asarray(D, dtype=np.float64), np.asarray(z)
    n, K = D.shape
    rows = np.arange(n)
    ones_h = np.zeros((n, K))
    ones_h[rows, np.asarray(pred)] = 1.0
    U = np.full((n, K), (1.0 - gamma) / K)
    U[rows, z] += gamma
    return bool(np.sum(D * ones_h) <= np.sum(D * U))


def lemma5_factor(alpha, delta) -> float:
    """Lemma 5 / eq. (18): 1 - (e^a - e^-a)/2 delta + (e^a + e^-a - 2)/2 = (1-delta)/2 e^a + (1+delta)/2 e^-a."""
    return float((1.0 - delta) / 2.0 * np.exp(alpha) + (1.0 + delta) / 2.0 * np.exp(-alpha))


def exact_step(D, z, pred) -> float:
    """argmin_alpha L_t = 1/2 ln(A+ / A-): A+ = sum_{h(x_i) = y_i} -D(i, y_i), A- = sum_{h(x_i) != y_i} D(i, h(x_i));
    A- / (A+ + A-) is raised to :data:`FLOOR` (a finite step when h makes no mistake)."""
    D, z, pred = np.asarray(D, dtype=np.float64), np.asarray(z), np.asarray(pred)
    rows = np.arange(len(z))
    right = pred == z
    a_plus = -D[rows[right], z[right]].sum()
    a_minus = D[rows[~right], pred[~right]].sum()
    return float(0.5 * np.log(a_plus / max(a_minus, FLOOR * (a_plus + a_minus))))


# ----- the estimators -----------------------------------------------------------------------------------------
class _CostMatrixBoost(_VoteProba, _VectorBoost):
    """The loop shared by AdaBoost.MM and CoMBo; subclasses set the per-example weights w_i (``_weights``)."""

    #: parameters the training does not read (csrepro.selection.rounds.FITS shares fits that differ only in them)
    _fit_ignores = ("random_state",)

    _parameter_constraints: dict = {
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "max_depth": [IntegerInterval(1, None, closed="left")],
        "weak_learner": [StrOptions({"cost_tree", "weighted"})],
        "step": [StrOptions({"approx", "exact"})],
        "max_bins": [IntegerInterval(2, None, closed="left"), None],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_estimators=200, max_depth=3, weak_learner="cost_tree", step="approx", max_bins=255,
                 labels=None, random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.weak_learner = weak_learner
        self.step = step
        self.max_bins = max_bins
        self.labels = labels
        self.random_state = random_state

    @staticmethod
    def _weights(z, n_classes, sample_weight=None):
        """Per-example weights w_i (n,) for class indices ``z``, times ``sample_weight`` (mean 1) when given."""
        raise NotImplementedError

    @staticmethod
    def _scaled_costs(F, z, w):
        """(D e^{-M}, M): the cost matrix scaled by e^{-M}, M = max_{i, l != y_i} f(i, l) - f(i, y_i)."""
        rows = np.arange(len(z))
        diff = _differences(F, z)
        diff[rows, z] = -np.inf
        top = float(diff.max())
        D = np.exp(diff - top)
        D *= w[:, None]
        D[rows, z] = -D.sum(axis=1)
        return D, top

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Boost up to ``n_estimators`` trees on (X, y).  ``sample_weight`` (n,), non-negative, enters through
        D_1: it multiplies the per-example weights w_i (CoMBo: m_y counted in weight)."""
        X, z = self._validate_training(X, y)
        sw, X, z = drop_unweighted(check_sample_weight(sample_weight, X), X, z)
        m, K = len(X), len(self.classes_)
        rows = np.arange(m)
        w = self._weights(z, K, sw)
        data = BinnedData.memoised(X, self.max_bins)
        learner = TreeLearner(max_depth=self.max_depth)
        cost_tree = self.weak_learner == "cost_tree"
        criterion = LeastCost() if cost_tree else Gini()
        F = np.zeros((m, K))
        D, top = self._scaled_costs(F, z, w)
        losses = [-D[rows, z].sum() * np.exp(top)]
        estimators, alphas, edges = [], [], []
        for _ in range(self.n_estimators):
            if cost_tree:
                channels = D
            else:
                sample_weight = -D[rows, z]
                channels = label_channels(sample_weight / sample_weight.sum(), z, K)
            tree = learner.fit(data, channels, criterion)
            if tree is None:
                break
            cells = tree.apply(X)
            pred = np.argmax(tree.values, axis=1)[cells]
            delta = mm_edge(D, z, pred)
            if not delta > 0:
                break
            perfect = delta >= 1.0 - 2.0 * FLOOR
            if self.step == "exact":
                alpha = exact_step(D, z, pred)
            else:
                d = min(delta, 1.0 - 2.0 * FLOOR)
                alpha = 0.5 * np.log((1.0 + d) / (1.0 - d))
            F += alpha * tree.values[cells]  # f(i, h(x_i)) += alpha, as in _stages
            D, top = self._scaled_costs(F, z, w)
            losses.append(-D[rows, z].sum() * np.exp(top))
            estimators.append(tree)
            alphas.append(alpha)
            edges.append(delta)
            if perfect:
                break
        self.estimators_ = estimators
        self.alphas_ = np.array(alphas, dtype=np.float64)
        self.edges_ = np.array(edges, dtype=np.float64)
        self.losses_ = np.array(losses, dtype=np.float64)
        self.n_estimators_ = len(estimators)
        if not estimators:
            warn_no_weak_learner(self, "the first tree found no split, or its edge delta was not positive")
        return self

    def _increments(self, X):
        """f(x, .) += alpha_t 1[h_t(x) = .] (eq. (9))."""
        for tree, alpha in zip(self.estimators_, self.alphas_):
            yield alpha * tree.predict(X)


_PARAMETERS = """
    Parameters
    ----------
    n_estimators : int >= 1
        Rounds T (the paper: 200).
    max_depth : int >= 1
        Depth of the trees (the paper: "2 to 3-depth" trees, Sec. 5.2); grown best-first to at most 2^depth
        leaves, every split lowering the criterion (:class:`~csrepro.weak.trees.TreeLearner`).
    weak_learner : {"cost_tree", "weighted"}
        ``"cost_tree"``: leaves of least summed cost, the cost as split criterion; ``"weighted"``: a Gini tree
        on the labels with sample weights L_{t-1}(i) / L_{t-1} (see the module docstring).
    step : {"approx", "exact"}
        alpha_t = 1/2 ln((1 + delta_t) / (1 - delta_t)) (Algorithm 1), or the exact minimiser 1/2 ln(A+ / A-).
    max_bins : int >= 2 or None
        Quantile bins per feature (thresholds between bins); None: every distinct value (all thresholds).
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some (an
        absent class is a label the trees may predict).
    random_state : None
        Accepted for a uniform interface; training is deterministic (ties: lowest feature, then threshold,
        then lowest label).

    Attributes
    ----------
    classes_, estimators_ (trees: ``predict(X)`` the one-hot K-vector of h_t(x)), alphas_ (T,), edges_ (T,)
    delta_t, losses_ (T + 1,) L_0 (before round 1), then L_t after round t, n_estimators_, n_features_in_."""


class AdaBoostMMClassifier(_CostMatrixBoost):
    """AdaBoost.MM (Mukherjee & Schapire 2013; Koço & Capponi 2013, Sec. 2.2): the cost matrix
    D_t(i, l) = exp(f_t(i, l) - f_t(i, y_i)) (l != y_i), D_t(i, y_i) = -sum_{l != y_i} D_t(i, l); edge delta_t,
    alpha_t = 1/2 ln((1 + delta_t) / (1 - delta_t)); f_{t+1}(i, h_t(x_i)) += alpha_t; H(x) = argmax_l f_T(x, l).
    The loop of :mod:`csrepro.boosting.combo` with w_i = 1.
    """

    @staticmethod
    def _weights(z, n_classes, sample_weight=None):
        return np.ones(len(z)) if sample_weight is None else sample_weight


class CoMBoClassifier(_CostMatrixBoost):
    """CoMBo, Confusion Matrix BOosting (Koço & Capponi 2013, Algorithm 1): AdaBoost.MM's loop on the cost matrix
    of eq. (13), D_t(i, l) = exp(f_t(i, l) - f_t(i, y_i)) / m_{y_i} (l != y_i), D_t(i, y_i) = -sum_{l != y_i}
    D_t(i, l) (D_1: 1/m_{y_i} and -(K-1)/m_{y_i}), which greedily minimises the loss
    L_t = sum_i sum_{l != y_i} exp(f_t(i, l) - f_t(i, y_i)) / m_{y_i} (eq. (12)), an upper bound of
    ||C_S||^2 (eqs. (5)-(7)).  The loop of :mod:`csrepro.boosting.combo` with w_i = 1 / m_{y_i}.
    """

    @staticmethod
    def _weights(z, n_classes, sample_weight=None):
        return class_weights(z, n_classes, sample_weight)


AdaBoostMMClassifier.__doc__ += _PARAMETERS
CoMBoClassifier.__doc__ += _PARAMETERS
