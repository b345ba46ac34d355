"""The number of weak learners of a staged estimator -- and, with a ``param_grid``, its other parameters (tree depth,
a regularisation constant) -- chosen on a validation part of its training data.

:class:`RoundsOnValidation` serves the experiment entries with ``rounds_on_validation: {val_size, criterion, grid}``
(csrepro.config.MethodEntry) and the REBEL protocol (Appel et al. 2016, Sec. 5.1: "50% of the samples for
training, 25% for validation (i.e. for finding the optimal number of weak learners), and the remaining 25%
for testing"): the estimator is fitted once per grid point on the training rows minus a stratified validation
part, and the (grid point, round count) with the least validation score is kept, truncated at that round, with no
refit on the validation rows (``refit=False``, the paper's protocol).  One rule for every method (issue 21's "equal
budgets": rounds and tree size chosen on validation by the same rule); an estimator without ``staged_predict`` is
one stage (its final prediction), so e.g. a logistic regression's C is chosen by the same rule.

The leaderboard's data rule (issue 30) adds two options: ``patience`` (the rounds by early stopping on the
validation part, up to the estimator's ``n_estimators`` as the cap) and ``refit`` (the chosen settings refitted on
every training row).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import check_random_state, get_tags
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.cache import fingerprint, named_cache
from csrepro.costs import check_cost_matrix_for_labels
from csrepro.data.protocols import holdout
from csrepro.validation import IntegerInterval, check_labels, check_targets, classes_and_codes, codes_of

__all__ = ["CRITERIA", "FITS", "RoundsOnValidation", "patience_stop", "rounds_param", "staged_scores"]

CRITERIA = ("error", "cost")

#: fits of the estimators that name the parameters their training ignores (a class attribute ``_fit_ignores``,
#: e.g. CoMBo's and AdaBoost.MM's ``random_state``, accepted for a uniform interface), by (their other parameters,
#: X, y): the cost families of a leaderboard split (one process, csrepro.runner.split_units) give such a cost-free
#: booster the same rows and settings, so it is fitted once; a hit returns what the fit would (csrepro.cache)
FITS = named_cache("rounds_fits", maxsize=48)


def _fit(estimator, X, y):
    """``estimator`` fitted on (X, y); an estimator with ``_fit_ignores`` is looked up in :data:`FITS` first (a hit
    is another instance's fitted model: read it, never change it)."""
    ignores = getattr(type(estimator), "_fit_ignores", None)
    if ignores is None:
        return estimator.fit(X, y)
    params = sorted((k, fingerprint(v) if isinstance(v, np.ndarray) else repr(v))
                    for k, v in estimator.get_params(deep=False).items() if k not in ignores)
    return FITS.get(fingerprint(type(estimator).__qualname__, repr(params), X, y), lambda: estimator.fit(X, y))


def _stages(estimator, X):
    """The predictions after each round (``staged_predict``), or the one final prediction of an unstaged estimator."""
    if hasattr(estimator, "staged_predict"):
        return estimator.staged_predict(X)
    return iter([estimator.predict(X)])


def staged_scores(estimator, X, y, criterion: str = "error", cost_matrix=None) -> np.ndarray:
    """Mean validation error (or cost ``cost_matrix[y, prediction]``, classes in ``estimator.classes_`` order)
    after each round 1..T of a fitted ``estimator`` with ``staged_predict``; shape (T,).  An estimator without
    ``staged_predict`` is one stage: shape (1,), the score of its ``predict``."""
    classes = estimator.classes_
    truth = codes_of(classes, y) if criterion != "error" else None
    out = []
    for pred in _stages(estimator, X):
        if criterion == "error":
            out.append(np.mean(pred != y))
        else:
            out.append(cost_matrix[truth, codes_of(classes, pred)].mean())
    return np.asarray(out, dtype=np.float64)


def patience_stop(scores, patience: int | None) -> tuple[int, bool]:
    """(chosen round count, stopped) of early stopping on the validation ``scores`` of rounds 1..T: walking the
    rounds, stop at the first round t that is ``patience`` rounds after the best round so far (the least score,
    the earliest at ties: "no improvement for ``patience`` rounds") and choose that best round; ``stopped`` is
    False when no such t <= T exists (then the best of all T rounds).  ``patience=None``: the best of all rounds."""
    scores = np.asarray(scores, dtype=np.float64)
    if patience is not None:
        best = np.minimum.accumulate(scores)
        improved = np.r_[True, scores[1:] < best[:-1]]  # round t is a new best (strictly below every earlier one)
        best_at = np.maximum.accumulate(np.where(improved, np.arange(len(scores)), 0))  # 0-based best round so far
        late = np.flatnonzero(np.arange(len(scores)) - best_at >= patience)
        if len(late):
            return int(best_at[late[0]]) + 1, True
    return int(np.argmin(scores)) + 1, False


def rounds_param(estimator) -> str | None:
    """The parameter holding ``estimator``'s number of rounds: ``n_estimators``, else the one nested
    ``<...>__n_estimators`` (e.g. a Bayes-rule wrapper's ``estimator__n_estimators``); None when it has none."""
    names = [k for k in estimator.get_params() if k == "n_estimators" or k.endswith("__n_estimators")]
    return min(names, key=len) if names else None


def _inner_has(name):
    """``name`` is offered when the estimator has ``staged_<name>``, or, for an unstaged estimator, ``name``."""
    def check(self):
        if hasattr(self.estimator, "staged_predict"):
            return hasattr(self.estimator, f"staged_{name}")
        return hasattr(self.estimator, name)
    return check


class RoundsOnValidation(ClassifierMixin, BaseEstimator):
    """``estimator`` at the grid point and number of weak learners with the lowest validation error (or cost).

    ``fit`` splits (X, y) with :func:`csrepro.data.protocols.holdout` (``test_size=val_size``,
    stratified, seeded by ``random_state``; every class keeps a training row), fits a clone of
    ``estimator`` on the rest -- one per point of ``param_grid``, in scikit-learn's ParameterGrid order, all
    on the same rows -- scores each stage of its ``staged_predict`` on the validation part
    (:func:`staged_scores`) and keeps the (grid point, round count) reaching the minimum (ties: the earlier
    grid point, then the fewest rounds).  An estimator without ``staged_predict`` has one stage, its
    ``predict``.  The fitted model is not refitted: ``predict``, ``decision_function`` and ``predict_proba`` are
    the stage ``best_n_estimators_`` of ``staged_predict`` / ``staged_decision_function`` /
    ``staged_predict_proba`` (an unstaged estimator's own methods).

    Early stopping (``patience``, issue 30): the rounds of a grid point are chosen by :func:`patience_stop` --
    stop when the validation score has not improved for ``patience`` rounds, keep the best round -- up to the cap,
    the estimator's ``n_estimators`` (:func:`rounds_param`).  None of the project's boosters can add rounds to a
    fitted model (no ``warm_start``), so the model is grown by refitting from scratch at doubling sizes
    (min(cap, 2 ``patience``), then twice that, ...) until the rule stops inside a fit or the cap is fitted; the
    stages of a fit are those of a fit at fewer rounds followed by more (the boosters are deterministic given
    ``random_state``), so the choice is that of one fit at the cap, at most about twice the time of one fit at the
    stopping round.  ``patience=None``: one fit at the cap and the least score of all its rounds.

    Refit (``refit=True``, issue 30's "one data rule"): after the choice, a clone of the estimator at the chosen grid
    point with ``n_estimators`` = the chosen count (unchanged: the rounds chosen on two thirds of the rows are used
    as they are on all of them) is fitted on all of (X, y), and ``estimator_`` is that model, not truncated.

    Classes and costs: an estimator with a ``labels`` parameter left at None is given ``labels`` (None: every
    class of ``y``), so a class missing from the training part still has a score.  ``cost_matrix`` is indexed
    by ``labels`` when given, else by the fitted estimator's ``classes_``; the scores use its rows and columns of
    the estimator's ``classes_`` (the estimator's own ``cost_matrix``, if any, is its own business).

    Parameters
    ----------
    estimator : classifier with ``fit`` and ``predict`` (``staged_predict`` to choose rounds)
        E.g. :class:`~csrepro.boosting.rebel.REBELClassifier`; its ``n_estimators`` is the maximum.
    val_size : float in (0, 1) or int
        The validation part: a fraction of the rows (1/3 of the 75 % left after a 25 % test part gives
        the paper's 50/25/25) or a row count.
    criterion : {"error", "cost"}
        Mean 0-1 error, or mean ``cost_matrix[y, prediction]`` on the validation part.
    cost_matrix : array (K, K) or None
        ``C[j, k]`` = cost of predicting class k for true class j (rows true, columns predicted), in the order of
        ``labels`` when given, else of the fitted estimator's ``classes_`` (sorted); required by ``"cost"``.
    param_grid : dict (parameter -> list of values) or None
        The estimator's parameters to choose with the rounds (e.g. ``{"max_depth": [1, 2, 4]}``; nested names
        such as ``estimator__C`` work); None: the estimator as given (one grid point).
    labels : array-like or None
        All class labels, in the order of ``cost_matrix``'s rows and columns (kept as given), when ``y`` may lack
        some (see above).
    random_state : int or None
        Seed of the validation split.
    patience : int >= 1 or None
        Early stopping: stop when the validation score has not improved for this many rounds (see above); None:
        every round up to the cap is fitted and scored.
    refit : bool
        Refit the chosen settings on all rows (see above); False: the model fitted without the validation part.

    Attributes
    ----------
    estimator_ (the fitted clone at the best grid point: all its fitted rounds, or with ``refit`` the model refitted
    at the chosen count), best_params_ (that grid point; {} without a grid), best_n_estimators_ (None for an unstaged
    estimator), validation_scores_ ((T,) without a grid; with a grid a list with one (T_g,) array per grid point, in
    ParameterGrid order; T the rounds of the last fit), n_estimators_cap_ (the estimator's ``n_estimators``; None
    unstaged), stopped_early_ (whether the patience rule stopped the chosen grid point before its cap),
    selected_params_ (the choice as the runner stores it: the grid point and ``n_estimators``, with ``patience`` or
    ``refit`` also the cap, ``patience``, ``refit`` and ``stopped_early``), classes_, n_features_in_.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "staged_predict"]), HasMethods(["fit", "predict"])],
        "val_size": [Interval(Real, 0, 1, closed="neither"), IntegerInterval(1, None, closed="left")],
        "criterion": [StrOptions(set(CRITERIA))],
        "cost_matrix": ["array-like", None],
        "param_grid": [dict, None],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
        "patience": [IntegerInterval(1, None, closed="left"), None],
        "refit": ["boolean"],
    }

    def __init__(self, estimator=None, val_size=1 / 3, criterion="error", cost_matrix=None, param_grid=None,
                 labels=None, random_state=None, patience=None, refit=False):
        self.estimator = estimator
        self.val_size = val_size
        self.criterion = criterion
        self.cost_matrix = cost_matrix
        self.param_grid = param_grid
        self.labels = labels
        self.random_state = random_state
        self.patience = patience
        self.refit = refit

    def _costs(self, classes):
        """The cost matrix's rows and columns of ``classes`` (indexed by ``labels`` when given)."""
        if self.labels is None:
            return check_cost_matrix_for_labels(self.cost_matrix, classes)
        labels = check_labels(self.labels)
        C = check_cost_matrix_for_labels(self.cost_matrix, labels)
        idx = codes_of(labels, classes)
        return C[np.ix_(idx, idx)]

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Fit on (X, y) minus the validation part (once per grid point) and choose on that part."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        labels, codes = classes_and_codes(y, self.labels)  # the split follows the class indices, not their names
        if self.criterion == "cost" and self.cost_matrix is None:
            raise ValueError("criterion='cost' needs a cost_matrix; pass one or use criterion='error'")
        seed = self.random_state
        if seed is not None and not isinstance(seed, (int, np.integer)):  # a RandomState instance
            seed = int(check_random_state(seed).randint(2**31))
        try:
            train, val = holdout(codes, test_size=self.val_size, random_state=seed)
        except ValueError as err:
            raise ValueError(f"cannot hold out val_size={self.val_size!r} of n_samples = {len(y)} training rows: {err}") \
                from None
        template = clone(self.estimator)
        params = template.get_params()
        if "labels" in params and params["labels"] is None:
            template.set_params(labels=labels)
        points = [{}] if self.param_grid is None else list(ParameterGrid(self.param_grid))
        staged = hasattr(template, "staged_predict")
        rounds = rounds_param(template) if staged else None
        cap = template.get_params()[rounds] if rounds is not None else None
        if self.patience is not None and staged and rounds is None:
            raise ValueError(f"patience needs the number of rounds of {type(template).__name__} as an n_estimators "
                             "parameter (the cap); it has none")
        best = None  # (score, point index, estimator, scores, chosen rounds, stopped)
        all_scores = []
        for i, point in enumerate(points):
            estimator, scores, n, stopped = self._fit_point(clone(template).set_params(**point), rounds, cap,
                                                            X[train], y[train], X[val], y[val])
            all_scores.append(scores)
            if best is None or scores[n - 1] < best[0]:  # strictly less: ties keep the earlier grid point
                best = (scores[n - 1], i, estimator, scores, n, stopped)
        _, i, estimator, scores, n, stopped = best
        self.best_params_ = points[i]
        self.validation_scores_ = scores if self.param_grid is None else all_scores
        self.best_n_estimators_ = n if staged else None
        self.n_estimators_cap_ = cap
        self.stopped_early_ = stopped
        if self.refit:
            chosen = {**points[i], **({rounds: n} if rounds is not None else {})}
            estimator = _fit(clone(template).set_params(**chosen), X, y)
        self.estimator_ = estimator
        self.classes_ = estimator.classes_
        self.selected_params_ = {**points[i], **({} if n is None or not staged else {"n_estimators": n})}
        if self.patience is not None or self.refit:
            self.selected_params_.update(n_estimators_cap=cap, patience=self.patience, refit=self.refit,
                                         stopped_early=stopped)
        return self

    def _fit_point(self, estimator, rounds, cap, X, y, X_val, y_val):
        """(fitted estimator, validation scores of its rounds, chosen round count, stopped early) of one grid point:
        one fit at the cap, or with ``patience`` fits at doubling sizes until the rule stops (class docstring)."""
        size = cap if self.patience is None or rounds is None else min(cap, 2 * self.patience)
        while True:
            fitted = _fit(clone(estimator).set_params(**({rounds: size} if rounds is not None else {})), X, y)
            C = self._costs(fitted.classes_) if self.criterion == "cost" else None
            scores = staged_scores(fitted, X_val, y_val, self.criterion, C)
            if not len(scores):
                raise ValueError(f"{type(fitted).__name__} fitted no weak learner (staged_predict yielded nothing);"
                                 " check its n_estimators and the training data")
            n, stopped = patience_stop(scores, self.patience)
            if stopped or rounds is None or size >= cap or len(scores) < size:  # fewer: it stopped on its own
                return fitted, scores, n, stopped
            size = min(cap, 2 * size)

    def _stage(self, name, X):
        if self.best_n_estimators_ is None or self.refit:  # unstaged, or refitted at the chosen count: its own method
            return getattr(self.estimator_, name)(X)
        for i, value in enumerate(getattr(self.estimator_, f"staged_{name}")(X), start=1):
            if i == self.best_n_estimators_:
                return value
        raise RuntimeError("the fitted estimator yields fewer stages than best_n_estimators_")

    def _X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float64, reset=False)

    def predict(self, X):
        """Predictions of the model truncated at ``best_n_estimators_`` weak learners."""
        return self._stage("predict", self._X(X))

    @available_if(_inner_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the model truncated at ``best_n_estimators_`` weak learners."""
        return self._stage("decision_function", self._X(X))

    @available_if(_inner_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the model truncated at ``best_n_estimators_`` weak learners."""
        return self._stage("predict_proba", self._X(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.estimator is not None:
            tags.classifier_tags.multi_class = get_tags(self.estimator).classifier_tags.multi_class
        return tags
