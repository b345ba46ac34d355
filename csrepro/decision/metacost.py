"""MetaCost (Domingos 1999, KDD, Table 1): relabel the training set by the minimum-expected-cost class, retrain.

Cost convention.  ``cost_matrix[j, k]`` = C[j, k] is the cost of predicting class k when the true class is j
(project convention: row = true class, :mod:`csrepro.costs`).  Domingos's C(i, j) and O'Brien et al.'s c_{i|j}
(2008, eq. 1) are the cost of predicting i when the true class is j (row = assigned class): the transpose,
c_{i|j} = C[j, i].

Procedure (Domingos's Table 1, with a probabilistic learner), n training examples, R = ``n_resamples``:

1. draw R bootstrap resamples S_r of n examples each, with replacement (one seeded generator, ``random_state``)
   and fit a clone M_r of ``estimator`` on each;
2. P(j | x_n) = mean over r in R_n of P(j | x_n, M_r) (the models' ``predict_proba``), where R_n is every model
   (``include_sample=True``, Domingos's "all-inclusive" estimates) or only the models whose resample does not
   contain x_n (``include_sample=False``, "excluding the sample"); an example inside every resample (no such model;
   likely only for small R) falls back to all models (counted in ``n_fallback_``);
3. relabel x_n as argmin_k sum_j P(j | x_n) C[j, k] = argmin_i sum_j P(j | x_n) c_{i|j}
   (:func:`csrepro.decision.rules.decide`, ties to the first class);
4. fit a final clone of ``estimator`` on the relabelled set; ``predict``/``predict_proba`` are that model's.

O'Brien et al. 2008 (Sec. 6) use R = 100 (the default) and report the better of the two variants per dataset.

Details not in Domingos: a clone whose ``random_state`` parameter is None gets an integer seed drawn from the
same generator (reproducible models); an ``estimator`` with a ``labels`` parameter left None gets all of
``classes_`` (so its posteriors cover classes absent from a resample or from the relabelled set); otherwise a
model's ``predict_proba`` columns are spread onto ``classes_`` by its own ``classes_`` (zeros for the classes it
did not see).  A resample, or a relabelled set, holding a single class is fitted by ``DummyClassifier(strategy=
"prior")`` (it predicts that class with probability 1), since many learners refuse one class.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context, clone
from sklearn.dummy import DummyClassifier
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted, validate_data

from csrepro.cache import fingerprint, named_cache
from csrepro.costs import check_cost_matrix_for_labels
from csrepro.decision.rules import decide
from csrepro.probability.shared import estimator_settings
from csrepro.validation import IntegerInterval, check_targets, classes_and_codes, codes_of

__all__ = ["MetaCostClassifier"]

#: steps 1-2's bagged probability sums by (estimator, X, y, classes, R, integer seed): they do not depend on the
#: costs, so the cost families of a split (which share its rows and, under the leaderboard's selection seed, its
#: seed) compute them once; a hit returns what the resamples would (csrepro.cache)
BAGS = named_cache("metacost_bags", maxsize=4)


def _prepared(estimator, classes, seed):
    """A clone of ``estimator`` with ``labels`` = ``classes`` and ``random_state`` = ``seed`` where those
    parameters exist and are None."""
    model = clone(estimator)
    params = model.get_params(deep=False)
    if "labels" in params and params["labels"] is None:
        model.set_params(labels=classes)
    if "random_state" in params and params["random_state"] is None:
        model.set_params(random_state=seed)
    return model


def _fit(estimator, X, y, classes, seed):
    """``estimator`` prepared and fitted on (X, y); a prior-only dummy when y holds one class."""
    if len(np.unique(y)) < 2:
        return DummyClassifier(strategy="prior").fit(X, y)
    return _prepared(estimator, classes, seed).fit(X, y)


def _spread(model, X, classes):
    """``model.predict_proba(X)`` with one column per entry of ``classes`` (zeros for the classes it lacks)."""
    P = model.predict_proba(X)
    if len(model.classes_) == len(classes) and np.array_equal(model.classes_, classes):
        return P
    full = np.zeros((len(X), len(classes)))
    full[:, codes_of(classes, model.classes_)] = P
    return full


def _resample_proba(estimator, X, y, classes, indices, seed):
    """Fit on the resample ``indices``; its probabilities on all of X (n, K) and the in-resample mask (n,)."""
    model = _fit(estimator, X[indices], y[indices], classes, seed)
    in_bag = np.zeros(len(X), dtype=bool)
    in_bag[indices] = True
    return _spread(model, X, classes), in_bag


class MetaCostClassifier(ClassifierMixin, BaseEstimator):
    """MetaCost (Domingos 1999): bagged probability estimates, training labels replaced by the minimum-expected-cost
    class, ``estimator`` retrained on them.  See the module docstring for the procedure and the cost convention.

    Parameters
    ----------
    estimator : classifier with ``fit`` and ``predict_proba``
        Required (None, the default, is refused at fit).
    cost_matrix : (K, K) array-like or None
        C[j, k] = cost of predicting ``classes_[k]`` for true class ``classes_[j]`` (row = true class, column =
        predicted class, in ``classes_`` order; the paper's
        c_{i|j} = C[j, i]).  None: 0-1 costs.
    n_resamples : int >= 1
        Bootstrap resamples R (Domingos and O'Brien et al.: 100).
    include_sample : bool
        True: average over all R models; False: only over the models whose resample lacks the example.
    labels : array-like or None
        All class labels, in the order of ``cost_matrix``'s rows and columns (kept as given; it is ``classes_``),
        when ``y`` may lack some.  None: the sorted labels of ``y``.
    n_jobs : int or None
        Resamples fitted in parallel by joblib; the result does not depend on it.
    random_state : None, int or RandomState
        Seeds the resamples and the clones' ``random_state``.

    Attributes
    ----------
    classes_, cost_matrix_, estimator_ (the final model), train_proba_ (n, K) the bagged P(j | x_n) relabelling
    used, y_relabelled_ (n,) the new labels, relabelled_ (n,) bool where they differ from y, n_out_of_bag_ (n,)
    number of resamples lacking each example, n_fallback_ (examples averaged over all models although
    ``include_sample=False``), n_features_in_.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict_proba"])],
        "cost_matrix": ["array-like", None],
        "n_resamples": [IntegerInterval(1, None, closed="left")],
        "include_sample": ["boolean"],
        "labels": ["array-like", None],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, cost_matrix=None, n_resamples=100, include_sample=True, labels=None,
                 n_jobs=None, random_state=None):
        self.estimator = estimator
        self.cost_matrix = cost_matrix
        self.n_resamples = n_resamples
        self.include_sample = include_sample
        self.labels = labels
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)  # the estimator's own fit validates its parameters
    def fit(self, X, y):
        """Bagged probabilities on (X, y), relabelling by minimum expected cost, final fit on the new labels."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_targets(y)
        self.classes_, _ = classes_and_codes(y, self.labels)
        if len(self.classes_) < 2:
            raise ValueError(f"MetaCostClassifier needs at least 2 classes but got only 1 class "
                             f"{self.classes_.tolist()}; give all classes in `labels` or use a stratified split")
        self.cost_matrix_ = check_cost_matrix_for_labels(self.cost_matrix, self.classes_)
        if isinstance(self.random_state, Integral):  # a seeded bag is a function of its key: shared (BAGS)
            key = fingerprint(estimator_settings(self.estimator), X, y, self.classes_, self.n_resamples,
                              int(self.random_state))
            sum_all, sum_out, n_out, final_seed = BAGS.get(key, lambda: self._bag(X, y, self.random_state))
        else:
            sum_all, sum_out, n_out, final_seed = self._bag(X, y, self.random_state)
        self.n_out_of_bag_ = n_out.copy()
        if self.include_sample:
            self.train_proba_ = sum_all / self.n_resamples
            self.n_fallback_ = 0
        else:
            fallback = n_out == 0
            self.train_proba_ = np.where(fallback[:, None], sum_all / self.n_resamples,
                                         sum_out / np.maximum(n_out, 1)[:, None])
            self.n_fallback_ = int(fallback.sum())
        self.y_relabelled_ = self.classes_[decide(self.train_proba_, self.cost_matrix_)]
        self.relabelled_ = self.y_relabelled_ != y
        self.estimator_ = _fit(self.estimator, X, self.y_relabelled_, self.classes_, final_seed)
        return self

    def _bag(self, X, y, random_state) -> tuple:
        """Steps 1-2: (sum over the R models of their probabilities, the same over the models whose resample
        leaves each example out, the number of those models, the final model's seed), from one generator."""
        n, K = len(y), len(self.classes_)
        rng = check_random_state(random_state)
        seed_bound = np.iinfo(np.int32).max

        def draws():  # in order, in this process: the same resamples and seeds for any n_jobs
            for _ in range(self.n_resamples):
                indices = rng.randint(0, n, size=n)
                yield indices, int(rng.randint(seed_bound))

        sum_all, sum_out = np.zeros((n, K)), np.zeros((n, K))
        n_out = np.zeros(n, dtype=np.intp)
        results = Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(_resample_proba)(self.estimator, X, y, self.classes_, indices, seed) for indices, seed in draws())
        for P, in_bag in results:  # in resample order: the sums do not depend on n_jobs
            sum_all += P
            sum_out[~in_bag] += P[~in_bag]
            n_out += ~in_bag
        return sum_all, sum_out, n_out, int(rng.randint(seed_bound))

    def predict_proba(self, X):
        """The final model's posteriors (n, K), columns in ``classes_`` order (zeros for classes it lacks)."""
        check_is_fitted(self)
        return _spread(self.estimator_, validate_data(self, X, dtype=np.float64, reset=False), self.classes_)

    def predict(self, X):
        """The final model's predictions."""
        check_is_fitted(self)
        return self.estimator_.predict(validate_data(self, X, dtype=np.float64, reset=False))
