"""Modern baselines of the cross-paper leaderboard (issue 21): gradient-boosted trees from three libraries, and the
same trees tuned on validation then calibrated before the minimum-expected-cost rule, as scikit-learn classifiers
with the project's ``cost_matrix`` / ``labels`` conventions.

Cost convention (CONTRACT.md): ``cost_matrix[j, k]`` is the cost of predicting class k when the truth is j, rows and
columns in ``classes_`` order; :func:`csrepro.decision.rules.decide` is the minimum-expected-cost rule
argmin_k sum_j P_j C[j, k].

:class:`GradientBoostingPeer` fits one library's multiclass (softmax; logistic for two classes) gradient-boosted
trees -- scikit-learn's ``HistGradientBoostingClassifier`` (``early_stopping=False``, best-first trees of at most
``2**max_depth`` leaves and depth ``max_depth``), LightGBM's ``LGBMClassifier`` (``num_leaves=2**max_depth``,
``max_depth``) or XGBoost's ``XGBClassifier`` (``tree_method="hist"``, depth-wise trees of depth ``max_depth``) --
each on one thread and seeded by ``random_state``, so that results do not depend on the machine's thread count;
every other setting is the library's default.  Two ways to use the costs:

* ``weighting="none"`` (cost-blind training): ``predict`` is the minimum-expected-cost class under the booster's
  probabilities (argmax when ``cost_matrix`` is None, which means 0-1 costs);
* ``weighting="cost"``: training example n is weighted w_n proportional to sum_{k != y_n} C[y_n, k] / (K - 1), the
  mean misclassification cost of its class, rescaled to mean 1 over the training examples (the class rescaling
  of Elkan 2001, "The foundations of cost-sensitive learning", Sec. 4, generalised to K classes as in Zhou & Liu
  2006, "Training cost-sensitive neural networks with methods addressing the class imbalance problem", where a
  class's weight is its total misclassification cost; only exact for K = 2 or costs constant within a row), and
  ``predict`` is the argmax of the probabilities of the weighted model.

``staged_predict_proba`` / ``staged_predict`` give every boosting round (scikit-learn: its own staged method;
LightGBM: each tree's leaf value at the row's leaf (``pred_leaf=True``; values from the saved model), summed in tree
order; XGBoost: the margins of each round, ``iteration_range=(t, t + 1)``, summed in float64), so that
:class:`~csrepro.selection.rounds.RoundsOnValidation` can choose the rounds and ``max_depth`` on validation.  The
last stage is ``predict_proba`` itself; the earlier LightGBM/XGBoost stages are the library's ``num_iteration`` /
``iteration_range`` predictions up to float rounding (XGBoost predicts in float32).

The leaderboard's other modern baseline, multinomial logistic regression, is
:class:`csrepro.baselines.logistic.MultinomialLogisticRegression`.

:class:`TunedCalibratedBayesClassifier` chooses a staged estimator's parameters and rounds once on a validation part
(:class:`~csrepro.selection.rounds.RoundsOnValidation`, by validation cost), then calibrates the estimator with those
settings by cross-validation and decides by the minimum-expected-cost rule: a cross-fitted ensemble
(:class:`~csrepro.decision.bayes_rule.CalibratedBayesClassifier`), or, with ``refit`` (the leaderboard's data rule,
issue 30), one booster refitted on every training row whose calibration is learned on out-of-fold predictions.

``labels`` (all classes): the full label set when a training part may lack some classes, in the order of the cost
matrix's rows and columns (kept as given, duplicates refused); ``classes_`` is then ``labels``, an absent class gets
probability 0 and stays a possible minimum-expected-cost prediction (e.g. a cheap hedging class).  ``cost_matrix``:
``C[j, k]`` = cost of predicting ``classes_[k]`` when the truth is ``classes_[j]`` (rows true, columns predicted).

LightGBM and XGBoost are optional (``pip install -e '.[bench]'``) and imported only when such a model is fitted.
"""

from __future__ import annotations

import importlib
from numbers import Real

import numpy as np
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.costs import check_cost_matrix_for_labels
from csrepro.decision.bayes_rule import CalibratedBayesClassifier, _labels_and_codes
from csrepro.decision.rules import decide
from csrepro.selection.rounds import RoundsOnValidation
from csrepro.threads import one_thread
from csrepro.validation import IntegerInterval

__all__ = ["GradientBoostingPeer", "LIBRARIES", "TunedCalibratedBayesClassifier", "cost_weights"]

LIBRARIES = ("sklearn", "lightgbm", "xgboost")
WEIGHTINGS = ("none", "cost")
#: what ``pip`` needs for the LightGBM and XGBoost boosters
BENCH_FIX = "pip install -e '.[bench]'"


def _library(name: str):
    """The ``lightgbm`` or ``xgboost`` module, or an ImportError naming the fix."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"GradientBoostingPeer(library={name!r}) needs the optional package {name}; install it "
                          f"with: {BENCH_FIX}") from exc


def cost_weights(cost_matrix, y_codes) -> np.ndarray:
    """Example weights w_n = sum_{k != y_n} C[y_n, k] / (K - 1) (the mean misclassification cost of the example's
    class), rescaled to mean 1 over the examples; ``y_codes`` index the rows of ``cost_matrix`` (K, K)."""
    C = np.asarray(cost_matrix, dtype=np.float64)
    K = len(C)
    per_class = (C.sum(axis=1) - np.diag(C)) / (K - 1)
    w = per_class[np.asarray(y_codes, dtype=np.intp)]
    if not w.sum() > 0:
        raise ValueError("weighting='cost': every training example's class has zero misclassification cost; use "
                         "weighting='none' or another cost matrix")
    return w * (len(w) / w.sum())


def _present_codes(estimator, y):
    """(classes_, codes of y in classes_, sorted indices of the classes present in y); >= 2 present classes
    (:func:`csrepro.decision.bayes_rule._labels_and_codes`, the peers' check)."""
    classes, codes = _labels_and_codes(estimator, y)
    return classes, codes, np.unique(codes)


class GradientBoostingPeer(ClassifierMixin, BaseEstimator):
    """One library's gradient-boosted trees, cost-blind with the minimum-expected-cost rule or trained with
    cost-derived example weights (module docstring).

    Parameters
    ----------
    library : {"sklearn", "lightgbm", "xgboost"}
        scikit-learn's HistGradientBoostingClassifier, LightGBM's LGBMClassifier or XGBoost's XGBClassifier.
    n_estimators : int >= 1
        Boosting rounds (one tree per class and round for more than two classes).
    max_depth : int >= 1
        Tree depth; LightGBM ``num_leaves`` and scikit-learn ``max_leaf_nodes`` are ``2**max_depth``.
    learning_rate : float > 0
    max_bins : int in [2, 255]
        Feature histogram bins (scikit-learn ``max_bins``, LightGBM ``max_bin``, XGBoost ``max_bin``).
    cost_matrix : array (K, K) or None
        ``C[j, k]`` = cost of predicting ``classes_[k]`` for true class ``classes_[j]`` (rows true, columns
        predicted, in ``classes_`` order; None: 0-1 costs).
    weighting : {"none", "cost"}
        Cost-blind training and the minimum-expected-cost ``predict``, or cost-derived weights and the argmax.
    labels : array-like or None
        All class labels (module docstring).
    random_state : int, RandomState or None
        Seeds the library (an integer drawn from a RandomState; None: 0 for LightGBM and XGBoost, whose own
        default is a fixed seed too).
    """

    _parameter_constraints: dict = {
        "library": [StrOptions(set(LIBRARIES))],
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "max_depth": [IntegerInterval(1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_bins": [IntegerInterval(2, 255, closed="both")],
        "cost_matrix": ["array-like", None],
        "weighting": [StrOptions(set(WEIGHTINGS))],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, library="sklearn", n_estimators=200, max_depth=3, learning_rate=0.1, max_bins=255,
                 cost_matrix=None, weighting="none", labels=None, random_state=None):
        self.library = library
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.max_bins = max_bins
        self.cost_matrix = cost_matrix
        self.weighting = weighting
        self.labels = labels
        self.random_state = random_state

    def _seed(self) -> int | None:
        seed = self.random_state
        if seed is None or isinstance(seed, (int, np.integer)):
            return None if seed is None else int(seed)
        return int(seed.randint(np.iinfo(np.int32).max))

    def _model(self):
        seed = self._seed()
        if self.library == "sklearn":
            from sklearn.ensemble import HistGradientBoostingClassifier

            return HistGradientBoostingClassifier(
                learning_rate=self.learning_rate, max_iter=self.n_estimators, max_leaf_nodes=2**self.max_depth,
                max_depth=self.max_depth, max_bins=self.max_bins, early_stopping=False, random_state=seed)
        if self.library == "lightgbm":
            return _library("lightgbm").LGBMClassifier(
                n_estimators=self.n_estimators, learning_rate=self.learning_rate, num_leaves=2**self.max_depth,
                max_depth=self.max_depth, max_bin=self.max_bins, n_jobs=1, verbose=-1,
                random_state=0 if seed is None else seed)
        return _library("xgboost").XGBClassifier(
            n_estimators=self.n_estimators, learning_rate=self.learning_rate, max_depth=self.max_depth,
            max_bin=self.max_bins, tree_method="hist", n_jobs=1, random_state=0 if seed is None else seed)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the booster on (X, y) (with the cost-derived weights when ``weighting="cost"``)."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes, self._present = _present_codes(self, y)
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        target = np.searchsorted(self._present, codes)  # 0..K'-1 over the present classes (XGBoost needs them)
        weights = cost_weights(self.cost_matrix_, codes) if self.weighting == "cost" else None
        model = self._model()
        with one_thread("openmp"):  # scikit-learn's histograms: one thread
            self.model_ = model.fit(X, target, sample_weight=weights)
        if self.library == "lightgbm":
            self.n_iter_ = int(self.model_.booster_.current_iteration())
        elif self.library == "xgboost":
            self.n_iter_ = int(self.model_.get_booster().num_boosted_rounds())
        else:
            self.n_iter_ = int(self.model_.n_iter_)
        return self

    def _full(self, P):
        """Probabilities over the present classes, spread over ``classes_`` (0 for an absent class)."""
        out = np.zeros((len(P), len(self.classes_)))
        out[:, self._present] = P
        return out

    def _X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _classes_from_proba(self, P):
        if self.weighting == "cost":
            return self.classes_[np.argmax(P, axis=1)]
        return self.classes_[decide(P, self.cost_matrix_)]

    def predict_proba(self, X):
        """The booster's class probabilities (n, K) in ``classes_`` order (0 for a class absent from training)."""
        X = self._X(X)
        with one_thread("openmp"):
            return self._full(self.model_.predict_proba(X))

    def predict(self, X):
        """The minimum-expected-cost class (``weighting="none"``; argmax for 0-1 costs) or the argmax of the
        weighted model's probabilities (``weighting="cost"``); ties: the lowest class index."""
        return self._classes_from_proba(self.predict_proba(X))

    def _probabilities(self, margins):
        if margins.ndim == 1:  # two present classes: the logit of the second
            p = expit(margins)
            return np.column_stack([1.0 - p, p])
        return softmax(margins, axis=1)

    def _staged_raw(self, X):
        """float64 margins after each round 1..n_iter_ but the last (LightGBM, XGBoost)."""
        if self.library == "lightgbm":  # each tree's leaf values (the saved model's, 17 digits) at the rows' leaves
            booster = self.model_.booster_
            K = booster.num_model_per_iteration()
            leaves = booster.predict(X, pred_leaf=True).reshape(len(X), -1)
            values = [np.array(line[len("leaf_value="):].split(), dtype=np.float64)
                      for line in booster.model_to_string().splitlines() if line.startswith("leaf_value=")]
            rows, total = np.arange(len(X)), np.zeros((len(X), K))
            for t in range(self.n_iter_ - 1):
                for k in range(K):
                    total[rows, k] += values[t * K + k][leaves[:, t * K + k]]
                yield total[:, 0].copy() if K == 1 else total.copy()
            return
        xgb, booster = _library("xgboost"), self.model_.get_booster()
        data = xgb.DMatrix(X)
        K = len(self._present)
        bare = xgb.DMatrix(X, base_margin=np.zeros((len(X), K) if K > 2 else len(X)))  # a round's trees alone
        total = None
        for t in range(self.n_iter_ - 1):
            margin = booster.predict(data if t == 0 else bare, output_margin=True, iteration_range=(t, t + 1))
            total = margin.astype(np.float64) if total is None else total + margin
            yield total

    def staged_predict_proba(self, X):
        """``predict_proba`` after each boosting round 1..``n_iter_`` (the last is ``predict_proba``)."""
        X = self._X(X)
        if self.library == "sklearn":
            with one_thread("openmp"):
                stages = list(self.model_.staged_predict_proba(X))
            for P in stages:
                yield self._full(P)
            return
        for margins in self._staged_raw(X):
            yield self._full(self._probabilities(margins))
        yield self._full(self.model_.predict_proba(X))

    def staged_predict(self, X):
        """``predict`` after each boosting round 1..``n_iter_`` (the last is ``predict``)."""
        for P in self.staged_predict_proba(X):
            yield self._classes_from_proba(P)


class TunedCalibratedBayesClassifier(ClassifierMixin, BaseEstimator):
    """``estimator`` tuned once on validation, then calibrated by cross-validation, then the minimum-expected-cost
    rule.

    ``fit`` runs ``RoundsOnValidation(estimator, val_size=val_size, criterion="cost", cost_matrix=cost_matrix,
    param_grid=param_grid, labels=labels, random_state=random_state)`` on (X, y) (criterion ``"error"`` when
    ``cost_matrix`` is None): the grid point and the number of rounds of least validation cost of the
    estimator's own ``predict`` (for :class:`GradientBoostingPeer` with ``weighting="none"`` and the costs: its
    minimum-expected-cost decisions).  Then a clone of ``estimator`` with that grid point, ``n_estimators`` = the
    chosen rounds (for a staged estimator) and ``cost_matrix=None`` (where it has that parameter: the calibrated
    probabilities are cost-blind; the costs enter through the rule) is fitted and calibrated by
    ``CalibratedBayesClassifier(method=method, cv=cv, cost_matrix=cost_matrix, labels=labels)``: ``cv`` models on the
    folds' training parts, each calibrated on its held-out fold, probabilities averaged, then
    argmin_k sum_j P_j C[j, k] (:func:`csrepro.decision.rules.decide`).  Tuning once on the same validation split as
    the other tuned methods, not within every calibration fold, keeps the budget equal and the cost about that of
    one tuning plus ``cv`` fits.

    ``estimator``: a classifier with ``predict_proba`` (``staged_predict`` and an ``n_estimators`` parameter for
    the rounds to be chosen), cost-blind apart from its ``predict`` (default: ``GradientBoostingPeer(cost_matrix=
    cost_matrix)``, scikit-learn's booster).  ``cost_matrix``: (K, K), rows true and columns predicted class, in
    ``classes_`` order (None: 0-1 costs).  ``labels``: all classes (module docstring).  ``random_state``: the validation split's seed
    (and the calibrator's, for an estimator whose own ``random_state`` is None).

    ``refit=True`` (issue 30's data rule, the same as every other leaderboard method's: settings chosen on the
    validation part, then one model with those settings fitted on all training rows): instead of the ``cv``
    models of the cross-fitted ensemble, CalibratedBayesClassifier with ``ensemble=False`` (scikit-learn's
    ``CalibratedClassifierCV(ensemble=False)``): the calibration map (``method``) is learned on the out-of-fold
    predictions of the same ``cv`` folds and applied to the estimator refitted on all of (X, y).  ``patience``: the rounds by early stopping (RoundsOnValidation's ``patience``).

    Attributes: best_params_ (the grid point and ``n_estimators``), validation_scores_ (RoundsOnValidation's),
    selected_params_ (RoundsOnValidation's, with ``calibration`` = ``method`` and ``calibration_cv`` = ``cv``),
    calibrated_ (the fitted CalibratedBayesClassifier, ``ensemble=not refit``),
    classes_, cost_matrix_, n_features_in_.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "param_grid": [dict, None],
        "val_size": [Interval(Real, 0, 1, closed="neither"), IntegerInterval(1, None, closed="left")],
        "method": [StrOptions({"isotonic", "sigmoid"})],
        "cv": ["cv_object"],
        "cost_matrix": ["array-like", None],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
        "patience": [IntegerInterval(1, None, closed="left"), None],
        "refit": ["boolean"],
    }

    def __init__(self, estimator=None, param_grid=None, val_size=1 / 3, method="sigmoid", cv=3, cost_matrix=None,
                 labels=None, random_state=None, patience=None, refit=False):
        self.estimator = estimator
        self.param_grid = param_grid
        self.val_size = val_size
        self.method = method
        self.cv = cv
        self.cost_matrix = cost_matrix
        self.labels = labels
        self.random_state = random_state
        self.patience = patience
        self.refit = refit

    @_fit_context(prefer_skip_nested_validation=False)  # the inner estimators validate their own parameters
    def fit(self, X, y):
        """Choose the grid point and rounds on validation, then fit the calibrated model on (X, y)."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        criterion = "error" if self.cost_matrix is None else "cost"
        estimator = GradientBoostingPeer(cost_matrix=self.cost_matrix) if self.estimator is None else self.estimator
        tuner = RoundsOnValidation(estimator, val_size=self.val_size, criterion=criterion,
                                   cost_matrix=self.cost_matrix, param_grid=self.param_grid, labels=self.labels,
                                   random_state=self.random_state, patience=self.patience).fit(X, y)
        chosen = dict(tuner.best_params_)
        if tuner.best_n_estimators_ is not None:
            chosen["n_estimators"] = tuner.best_n_estimators_
        final = clone(estimator).set_params(**chosen)
        if "cost_matrix" in final.get_params(deep=False):
            final.set_params(cost_matrix=None)
        self.best_params_, self.validation_scores_ = chosen, tuner.validation_scores_
        self.selected_params_ = {**tuner.selected_params_, "calibration": self.method, "calibration_cv": self.cv}
        if self.refit:
            self.selected_params_["refit"] = True
        self.calibrated_ = CalibratedBayesClassifier(final, cost_matrix=self.cost_matrix, method=self.method,
                                                     cv=self.cv, labels=self.labels, random_state=self.random_state,
                                                     ensemble=not self.refit).fit(X, y)
        self.classes_, self.cost_matrix_ = self.calibrated_.classes_, self.calibrated_.cost_matrix_
        return self

    def predict_proba(self, X):
        """Calibrated probabilities (n, K) in ``classes_`` order (0 for a class absent from the training labels)."""
        check_is_fitted(self)
        return self.calibrated_.predict_proba(validate_data(self, X, dtype=np.float64, reset=False))

    def predict(self, X):
        """The minimum-expected-cost class under ``predict_proba`` (ties: the lowest class index)."""
        P = self.predict_proba(X)
        return self.classes_[decide(P, self.cost_matrix_)]
