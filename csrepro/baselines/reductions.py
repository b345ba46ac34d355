"""Modern peers of the partition-matrix methods (O'Brien, Gupta & Gray 2008; issue 20): cost-sensitive reductions
to binary classification or regression over a base learner.

Cost convention (the project's, CONTRACT.md): ``cost_matrix[j, k]`` is the cost of predicting class k when the
true class is j, rows and columns in ``classes_`` order.  O'Brien et al. write c_{i|j} for the cost of *assigning*
class i when the truth is j, i.e. their matrix is the transpose of ours: ``c_{i|j} = cost_matrix[j, i]``.

:class:`CostSensitiveReduction` turns the class cost matrix into per-example costs -- row n of the example cost
matrix is ``cost_matrix[y_n, :]``, the cost of each possible prediction for example n -- and learns from them
with one of three reductions to binary classification or regression:

* ``"wap"``: weighted all-pairs (Beygelzimer, Dani, Hayes, Langford & Zadrozny 2005), ``costsensitive``'s
  ``WeightedAllPairs`` with the paper's importance weights (``weigh_by_cost_diff=False``: the pair (i, j) is
  weighted |v_i - v_j| with v_j = integral_0^{c_j} dt / |{k : c_k <= t}|) and prediction by the most pairwise wins
  (ties: the lowest class index).
* ``"filter_tree"``: the filter tree (Beygelzimer, Langford & Ravikumar, "Multiclass classification with filter
  trees", 2007; the single-elimination tournament of "Error-correcting tournaments", ALT 2009): a balanced
  tournament over the classes, trained from the leaves up; at each node the two finalists a, b are what the two
  subtrees *predict* for every training example, and the node's classifier learns which of them is cheaper, from
  the examples where c_a != c_b, weighted |c_a - c_b|; prediction plays the tournament.  Implemented here, not
  taken from ``costsensitive``: its ``FilterTree`` (0.1.2.13) drops from every ancestor node the examples that a
  subtree had no training pair for (so with 0-1 costs the root gets no example and the fit fails), gives every
  example the finalists of the first example at the nodes above the bottom level (on well-separated 5-class data
  with random costs it classifies 60% of the training set correctly, this implementation over 99%), and its
  ``predict`` fails on a single row.
* ``"csoaa"``: cost-sensitive one-against-all by regression (Beygelzimer, Langford & Zadrozny 2008; Vowpal
  Wabbit's ``--csoaa``), ``costsensitive``'s ``RegressionOneVsRest``: one regressor per class predicts the cost
  of predicting that class; the prediction is the class of least predicted cost (ties: the lowest index).

``"wap"`` and ``"csoaa"`` need the optional package ``costsensitive`` (``pip install -e '.[peers]'``), imported
only when such a model is fitted.  It requires at least three cost columns; with two classes a third column of
cost ``max(C) + 1`` for every example is added, which is never the cheaper side of a pair (its all-pairs
subproblems hold one label and are answered by that constant) and is excluded from the csoaa argmin, so the
reductions are unchanged (with two classes all-pairs and the filter tree are both one importance-weighted binary
classification).

Binary subproblems whose examples all carry one label, or that have no example with c_a != c_b (e.g. two classes
absent from ``y`` with equal cost columns), are answered by a constant (the one label; "first class wins" when
empty) instead of fitting the base classifier.  Importance weights are rescaled to mean 1 within each subproblem
(as ``costsensitive`` does), so a regularised base classifier sees the same regularisation strength as without
weights.

The other peer, calibrated probabilities followed by eq. (1), is
:class:`csrepro.decision.bayes_rule.CalibratedBayesClassifier`.

Bases (issue 30, :func:`reduction_base`): the base learner is a :class:`_WeightedPipeline` -- an optional one-hot
coding of the few-valued attributes (:func:`few_valued_columns`; scikit-learn's ``OneHotEncoder`` in a
``ColumnTransformer``), then the model -- whose ``fit(X, y, sample_weight=w)`` hands the importance weights to the
model, so that weighting a row by an integer w is fitting it w times.  ``base="linear"``: logistic regression
(``C``) for ``"wap"`` / ``"filter_tree"``, ridge regression (``alpha``) for ``"csoaa"``; ``base="tree"``: a
depth-limited decision tree (classifier or regressor, ``max_depth``).  The model is the pipeline's step ``model``,
so its parameters are ``estimator__model__C``, ``estimator__model__alpha``, ``estimator__model__max_depth`` of the
reduction (what a validation grid names).

``labels``: the full label set when a training part may lack some classes, in the order of the cost
matrix's rows and columns (kept as given, duplicates refused); ``classes_`` is then ``labels`` and ``cost_matrix``
must be indexed by it (``C[j, k]``: row = true class ``classes_[j]``, column = predicted class ``classes_[k]``).  A class absent from ``y`` stays a possible
prediction: its *column* of the cost matrix enters every example's cost row (the reductions learn when it is the
cheapest choice, e.g. a cheap hedging class); its *row*
(the costs when it is the truth) is unused, since no training example has it.  Labels of ``y`` not in ``labels``
are an error.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone, is_classifier
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.costs import check_cost_matrix_for_labels
from csrepro.decision.bayes_rule import _labels_and_codes, _seeded
from csrepro.threads import one_thread

__all__ = ["BASES", "CostSensitiveReduction", "example_costs", "few_valued_columns",
           "reduction_base"]

#: what ``pip`` needs for the package-based reductions
PEERS_FIX = "pip install -e '.[peers]'"
REDUCTIONS = ("wap", "filter_tree", "csoaa")
#: base learners of :func:`reduction_base`
BASES = ("linear", "tree")


def _costsensitive():
    """The ``costsensitive`` module, or an ImportError naming the fix."""
    try:
        import costsensitive
    except ImportError as exc:
        raise ImportError(f"CostSensitiveReduction(reduction='wap'/'csoaa') needs the optional package "
                          f"costsensitive; install it with: {PEERS_FIX}") from exc
    return costsensitive


class _WeightedPipeline(Pipeline):
    """A scikit-learn ``Pipeline`` whose ``fit(X, y, sample_weight=w)`` passes ``w`` to its last step (the steps
    before it are fitted unweighted), without turning on scikit-learn's global metadata routing."""

    def fit(self, X, y=None, sample_weight=None):
        """Fit the transformers on X, then the last step on their output with ``sample_weight``."""
        weights = {} if sample_weight is None else {f"{self.steps[-1][0]}__sample_weight": sample_weight}
        return super().fit(X, y, **weights)


def few_valued_columns(X, max_values: int) -> list[int]:
    """Indices of the columns of ``X`` with more than 2 and at most ``max_values`` distinct values: the attributes
    one-hot coded by :func:`reduction_base` (a two-valued column already is its own code)."""
    X = np.asarray(X)
    counts = [len(np.unique(X[:, j])) for j in range(X.shape[1])]
    return [j for j, n in enumerate(counts) if 2 < n <= max_values]


def reduction_base(reduction: str, base: str = "linear", onehot_max_values: int | None = None, random_state=None):
    """The base learner of ``reduction`` (module docstring, "Bases"): a :class:`_WeightedPipeline` of
    ``onehot`` (the columns of :func:`few_valued_columns` with ``onehot_max_values`` one-hot coded, unseen values
    coded all-zero; ``"passthrough"`` when ``onehot_max_values`` is None) and ``model``:
    ``LogisticRegression(max_iter=1000)`` / ``Ridge(alpha=1.0)`` (``base="linear"``, classification /
    ``"csoaa"``'s regression) or ``DecisionTreeClassifier`` / ``DecisionTreeRegressor(max_depth=4)`` (``"tree"``,
    seeded by ``random_state``)."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction={reduction!r}; choose one of {list(REDUCTIONS)}")
    if base not in BASES:
        raise ValueError(f"base={base!r}; choose one of {list(BASES)}")
    if onehot_max_values is not None and (isinstance(onehot_max_values, bool) or not isinstance(
            onehot_max_values, (int, np.integer)) or onehot_max_values < 3):
        raise ValueError(f"onehot_max_values must be an int >= 3 (or None: no one-hot coding), got {onehot_max_values!r}")
    regression = reduction == "csoaa"
    if base == "linear":
        model = Ridge(alpha=1.0) if regression else LogisticRegression(max_iter=1000)
    else:
        seed = check_random_state(random_state).randint(np.iinfo(np.int32).max) if random_state is not None else None
        model = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(max_depth=4, random_state=seed)
    onehot = "passthrough" if onehot_max_values is None else ColumnTransformer(
        [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
          functools.partial(few_valued_columns, max_values=int(onehot_max_values)))], remainder="passthrough")
    return _WeightedPipeline([("onehot", onehot), ("model", model)])


def example_costs(cost_matrix, y_codes) -> np.ndarray:
    """Per-example cost matrix (n, K): row n is ``cost_matrix[y_codes[n], :]``, the cost of each prediction for
    example n (true class index ``y_codes[n]``; ``C[j, k]`` = cost of predicting k when the truth is j)."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    return np.ascontiguousarray(C[np.asarray(y_codes, dtype=np.intp)])


class _BinarySubproblem:
    """Base classifier of one weighted binary subproblem (labels 0/1): a clone of ``estimator`` fitted with the
    weights, or the constant label when the subproblem has a single label or no example (label 1 then).
    A plain class: ``costsensitive`` deep-copies it once per subproblem and calls ``fit(X, y, sample_weight=w)``."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        y = np.asarray(y).astype(np.int64)
        values = np.unique(y)
        self.constant_ = int(values[0]) if len(values) == 1 else (1 if len(values) == 0 else None)
        if self.constant_ is None:
            self.model_ = clone(self.estimator).fit(X, y, sample_weight=sample_weight)
        return self

    def predict(self, X):
        if self.constant_ is not None:
            return np.full(len(X), self.constant_, dtype=np.int64)
        return np.asarray(self.model_.predict(X)).astype(np.int64)


def _balanced_tree(n_classes):
    """Internal nodes (left, right) of a balanced binary tree over classes 0..K-1, children before parents; a
    child >= 0 is a node index, a child < 0 is the leaf of class ``-child - 1``; the root is the last node."""
    nodes = []

    def build(classes):
        if len(classes) == 1:
            return -classes[0] - 1
        half = (len(classes) + 1) // 2
        left, right = build(classes[:half]), build(classes[half:])
        nodes.append((left, right))
        return len(nodes) - 1

    build(list(range(n_classes)))
    return nodes


class _FilterTree:
    """The filter tree (Beygelzimer, Langford & Ravikumar 2009) over example costs ``E`` (n, K)."""

    def __init__(self, estimator):
        self.estimator = estimator

    @staticmethod
    def _finalist(child, winners, n):
        return np.full(n, -child - 1, dtype=np.intp) if child < 0 else winners[child]

    def fit(self, X, E):
        n, rows = len(X), np.arange(len(X))
        self.nodes_ = _balanced_tree(E.shape[1])
        self.learners_, winners = [], []
        for left, right in self.nodes_:
            a, b = self._finalist(left, winners, n), self._finalist(right, winners, n)
            cost_a, cost_b = E[rows, a], E[rows, b]
            used = cost_a != cost_b
            weight = np.abs(cost_a - cost_b)[used]
            weight = weight * (len(weight) / weight.sum()) if len(weight) else weight
            learner = _BinarySubproblem(self.estimator).fit(X[used], (cost_a < cost_b)[used], sample_weight=weight)
            self.learners_.append(learner)
            winners.append(np.where(learner.predict(X) == 1, a, b))
        return self

    def predict(self, X):
        n, winners = len(X), []
        for (left, right), learner in zip(self.nodes_, self.learners_):
            a, b = self._finalist(left, winners, n), self._finalist(right, winners, n)
            winners.append(np.where(learner.predict(X) == 1, a, b))
        return winners[-1]


class CostSensitiveReduction(ClassifierMixin, BaseEstimator):
    """A cost-sensitive reduction -- weighted all-pairs, filter tree or cost-sensitive one-against-all -- trained
    on per-example costs ``cost_matrix[y_n, :]`` (module docstring; ``C[j, k]`` = cost of predicting k when the
    truth is j, the transpose of O'Brien et al.'s c_{k|j}).

    ``estimator``: the base learner, cloned for every subproblem; a classifier accepting ``sample_weight`` for
    ``"wap"`` and ``"filter_tree"`` (default ``LogisticRegression(max_iter=1000)``), a regressor for ``"csoaa"``
    (default ``Ridge(alpha=1.0)``: ``costsensitive``'s ``RegressionOneVsRest`` regresses each class's cost).
    ``cost_matrix``: (K, K), rows true and columns predicted class, both in ``classes_`` order (None: 0-1 costs).
    ``labels``: all classes, in that order (module docstring).
    ``random_state``: seeds a base learner whose own ``random_state`` is None (the same seed for every
    subproblem); the reductions themselves are deterministic.  ``"wap"``/``"csoaa"`` need the ``peers`` extra.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "cost_matrix": ["array-like", None],
        "reduction": [StrOptions(set(REDUCTIONS))],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, cost_matrix=None, reduction="wap", labels=None, random_state=None):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.reduction = reduction
        self.labels = labels
        self.random_state = random_state

    def _base(self):
        if self.estimator is None:
            return Ridge(alpha=1.0) if self.reduction == "csoaa" else LogisticRegression(max_iter=1000)
        if is_classifier(self.estimator) == (self.reduction == "csoaa"):
            need = "a regressor (it predicts each class's cost)" if self.reduction == "csoaa" else \
                "a classifier accepting sample_weight (it learns weighted binary subproblems)"
            raise ValueError(f"reduction={self.reduction!r} needs {need}, got {type(self.estimator).__name__}; "
                             "pass such an estimator or estimator=None for the default")
        return _seeded(self.estimator, self.random_state)

    @_fit_context(prefer_skip_nested_validation=False)  # the base learner's own fit validates its parameters
    def fit(self, X, y):
        """Fit the reduction on (X, y) with the example costs ``cost_matrix[y_n, :]``."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = _labels_and_codes(self, y)
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        E = example_costs(self.cost_matrix_, codes)
        base = self._base()
        with one_thread("blas"):  # as in CalibratedBayesClassifier.fit
            self.model_ = self._fit_reduction(base, X, E)
        return self

    def _fit_reduction(self, base, X, E):
        if self.reduction == "filter_tree":
            return _FilterTree(base).fit(X, E)
        cs = _costsensitive()
        if E.shape[1] == 2:  # costsensitive needs >= 3 columns: add one that is never the cheaper choice
            E = np.column_stack([E, np.full(len(E), self.cost_matrix_.max() + 1.0)])
        if self.reduction == "wap":
            model = cs.WeightedAllPairs(_BinarySubproblem(base), weigh_by_cost_diff=False, njobs=1)
        else:
            model = cs.RegressionOneVsRest(base, njobs=1)
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # weight standardisation of empty subproblems
            return model.fit(X, E)

    def _predict_codes(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        K = len(self.classes_)
        if self.reduction == "filter_tree":
            return self.model_.predict(X)
        if self.reduction == "wap":  # share of pairwise comparisons won; argmax = most wins, ties to the lowest
            return np.argmax(self.model_.decision_function(X, method="most-wins")[:, :K], axis=1)
        return np.argmin(self.model_.decision_function(X, apply_softmax=False)[:, :K], axis=1)

    def predict(self, X):
        """The class the reduction predicts for each row."""
        codes = self._predict_codes(X)
        return self.classes_[codes]
