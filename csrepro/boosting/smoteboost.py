"""SMOTEBoost (Chawla, Lazarevic, Hall & Bowyer 2003, PKDD, Fig. 1): AdaBoost.M2 with SMOTE at every round.

AdaBoost.M2 (Freund & Schapire 1997, Sec. 4.2) keeps a distribution over the mislabel pairs
B = {(i, y): i an original training example, y != y_i}; SMOTEBoost adds, in every round, new synthetic
examples of the minority classes to the weak learner's training set (Chawla et al.'s "Modify distribution
D_t by creating N synthetic examples from minority class C_m using the SMOTE algorithm").  Round t:

1. **SMOTE** (imbalanced-learn's :class:`~imblearn.over_sampling.SMOTE`, one RandomState per round seeded from
   ``random_state``): for each class c that ``sampling_strategy`` oversamples, new points on the segments
   between an original example of c and one of its ``k_neighbors`` nearest neighbours within c.  Fresh
   synthetic points every round (the synthetic set of round t - 1 is discarded).
2. **Weak learner**: a depth-``max_depth`` classification tree (Gini) on the original examples, weighted by
   W_t(i) = sum_{y != y_i} D_t(i, y) (M2's example weights; they sum to 1), plus the synthetic ones, each weighted
   by the mean W_t of the original examples of its class (the paper does not say which weight a synthetic example
   gets; so SMOTE raises each oversampled class's mass in proportion to its size, (m_c + n_c) / m_c, and the
   synthetic points follow boosting's current emphasis on their class).  Its hypothesis is h_t(x, y) = the
   tree's weighted class frequencies in the leaf of x, in [0, 1].  The tree is the project's
   :class:`~csrepro.weak.trees.TreeLearner` with :class:`~csrepro.weak.criteria.Gini` on the class weights
   (CoMBo's ``weak_learner="weighted"``), about 3x faster than scikit-learn's ``DecisionTreeClassifier(max_depth=d)``
   fitted with the same ``sample_weight``, and the same tree on the binned features (ties between splits go to the
   lowest feature here, to a random feature order there).  The features are binned once per fit, on the original
   examples (``max_bins`` quantile bins per feature; None: one per distinct value), and each round's synthetic
   rows are coded with those bins: a split falls between the originals' bins, as for the other boosters
   (re-binning the original + synthetic rows every round would double the time on Nursery).
3. **Pseudo-loss on the original examples only** (M2, with the 1/2 of Freund & Schapire):
   eps_t = 1/2 sum_{(i, y) in B} D_t(i, y) (1 - h_t(x_i, y_i) + h_t(x_i, y)),
   beta_t = eps_t / (1 - eps_t), alpha_t = ln(1 / beta_t).
4. **Update of the original examples' distribution only** (synthetic examples have no D entry):
   D_{t+1}(i, y) = D_t(i, y) beta_t^{(1 + h_t(x_i, y_i) - h_t(x_i, y)) / 2} / Z_t.

Output: H(x) = argmax_y sum_t alpha_t h_t(x, y); :meth:`SMOTEBoostClassifier.predict_proba` is that vote
normalised by sum_t alpha_t (each h_t(x, .) sums to 1 over the classes).

The update is M2's (the pseudo-loss), as in Chawla et al. 2003, not SAMME's.  Stopping: eps_t >= 1/2 (beta_t >= 1,
a vote of weight <= 0: the tree fails M2's weak-learning condition) ends the loop without that round, unless it is
the first round, which is then kept with eps_t floored below 1/2 (alpha_t tiny) so the model has one hypothesis;
eps_t <= :data:`FLOOR` is floored (a finite alpha_t) and ends the loop after that round (every pair at its label);
no tree (every feature constant) ends it too.

Not :mod:`imbalanced-ensemble`'s ``SMOTEBoostClassifier``: that one fixes ``update_x_y_after_resample=True``, so
with its default uniform schedule the first round balances the data and later rounds generate nothing (SMOTE once,
then AdaBoost; its issue 34), whereas Chawla et al. generate new synthetic examples at every round.

Multiclass SMOTE (our choice; Chawla et al. oversample one minority class by N %): ``sampling_strategy`` as
imbalanced-learn reads it, default ``"auto"`` = every class but the majority is brought up to the majority's
count.  A class with c <= ``k_neighbors`` training examples uses c - 1 neighbours (SMOTE needs k < c); a class with
a single example is not oversampled.  The k-nearest neighbours of a class do not change between rounds (only the
random draws do): they are computed once per fit and class (:data:`NEIGHBORS`, a :mod:`csrepro.cache` memo),
which changes no result.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from imblearn.over_sampling import SMOTE
from sklearn.base import _fit_context
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from csrepro._kernels import backend
from csrepro.boosting.scores import _VectorBoost, _VoteProba
from csrepro.cache import fingerprint, named_cache
from csrepro.validation import IntegerInterval, warn_no_weak_learner
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Gini, label_channels
from csrepro.weak.trees import TreeLearner

__all__ = ["FLOOR", "NEIGHBORS", "SMOTEBoostClassifier", "m2_pseudo_loss", "m2_update", "smote_targets"]

#: smallest eps_t used in a step (alpha_t <= about 23); eps_t at or below it ends the loop after its round
FLOOR = 1e-10
#: the k-nearest-neighbour indices of a class's examples (16 most recent), see :class:`_MemoNeighbors`
NEIGHBORS = named_cache("smote_neighbors", maxsize=16)
SAMPLING = ("auto", "minority", "not minority", "not majority", "all")


# ----- AdaBoost.M2's quantities --------------------------------------------------------------------------------
def m2_pseudo_loss(D, z, P) -> float:
    """eps = 1/2 sum_{(i, y), y != z_i} D(i, y) (1 - P(i, z_i) + P(i, y)) (Freund & Schapire 1997, Sec. 4.2)
    for the mislabel distribution ``D`` (m, K) (zero at (i, z_i)), labels ``z`` (m,) and hypothesis ``P`` (m, K)."""
    D, P, z = np.asarray(D, dtype=np.float64), np.asarray(P, dtype=np.float64), np.asarray(z)
    right = P[np.arange(len(z)), z]
    return float(0.5 * np.sum(D * (1.0 - right[:, None] + P)))


def m2_update(D, z, P, beta) -> np.ndarray:
    """D'(i, y) = D(i, y) beta^{(1 + P(i, z_i) - P(i, y)) / 2} / Z (Freund & Schapire 1997, Sec. 4.2); D' sums to 1
    and stays zero at (i, z_i)."""
    D, P, z = np.asarray(D, dtype=np.float64), np.asarray(P, dtype=np.float64), np.asarray(z)
    right = P[np.arange(len(z)), z]
    out = D * np.power(beta, 0.5 * (1.0 + right[:, None] - P))
    return out / out.sum()


def smote_targets(counts, sampling_strategy="auto") -> dict[int, int]:
    """Class index -> number of synthetic examples SMOTE makes for it, from the class ``counts`` (K,) of the
    training part (absent classes: 0) and imbalanced-learn's ``sampling_strategy`` ("auto" = "not majority",
    "minority", "not minority", "all": up to the majority's count; or a dict class index -> target count)."""
    counts = np.asarray(counts)
    top = int(counts.max())
    present = np.flatnonzero(counts > 0)
    if isinstance(sampling_strategy, Mapping):
        wanted = {int(k): int(v) - int(counts[int(k)]) for k, v in sampling_strategy.items()}
        bad = {k: v for k, v in wanted.items() if v < 0}
        if bad:
            raise ValueError(f"sampling_strategy asks fewer examples than class counts {counts.tolist()} for "
                             f"class indices {sorted(bad)}; SMOTE only adds examples")
        return {k: v for k, v in wanted.items() if v > 0 and counts[k] > 1}
    majority = present[np.argmax(counts[present])]
    minority = present[np.argmin(counts[present])]
    chosen = {"auto": [c for c in present if c != majority], "not majority": [c for c in present if c != majority],
              "minority": [minority], "not minority": [c for c in present if c != minority],
              "all": list(present)}[sampling_strategy]
    return {int(c): top - int(counts[c]) for c in chosen if top > counts[c] and counts[c] > 1}


class _MemoNeighbors(NearestNeighbors):
    """NearestNeighbors whose ``kneighbors`` (indices only) of the data it was fitted on is kept in
    :data:`NEIGHBORS`: SMOTE refits it on the same class every round.  Distances are not kept."""

    def fit(self, X, y=None):
        self._data = np.asarray(X)
        return self

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if return_distance or X is None or X is not self._data:
            return NearestNeighbors(**self.get_params()).fit(self._data).kneighbors(X, k, return_distance)
        key = fingerprint(self._data, k, self.get_params())
        return NEIGHBORS.get(key, lambda: NearestNeighbors(**self.get_params()).fit(self._data).kneighbors(
            self._data, k, return_distance=False))


class _RoundData(BinnedData):
    """One round's training rows for the tree: the original examples of ``original`` (a :class:`BinnedData`) and
    the synthetic rows ``X_new``, coded with the originals' bins (its ``mapper``)."""

    def __init__(self, original: BinnedData, X_new: np.ndarray):
        with backend.use_backend(original.backend):  # the kernels of original
            super().__init__(np.vstack([original.X, X_new]), original.max_bins)
        mapper = original.mapper
        self._fixed = (mapper, np.vstack([original.codes, mapper.transform(X_new)]))

    @property
    def _binned(self):
        return self._fixed


# ----- the estimator ---------------------------------------------------------------------------------------------
class SMOTEBoostClassifier(_VoteProba, _VectorBoost):
    """SMOTEBoost (Chawla, Lazarevic, Hall & Bowyer 2003): AdaBoost.M2 whose weak learner, every round, trains on
    the weighted original examples plus new SMOTE examples of the minority classes; the pseudo-loss and the
    distribution update use the original examples only (see the module docstring for every step).

    Parameters
    ----------
    n_estimators : int >= 1
        Rounds T.
    max_depth : int >= 1
        Depth of the classification trees (Gini) that are the weak learners.
    k_neighbors : int >= 1
        SMOTE's nearest neighbours within a class (Chawla et al.: 5); fewer for a class with fewer examples.
    sampling_strategy : {"auto", "minority", "not minority", "not majority", "all"} or dict
        Which classes SMOTE oversamples each round, up to the majority's count (imbalanced-learn's meaning;
        "auto" = "not majority"), or a dict label -> number of examples after resampling.
    max_bins : int >= 2 or None
        Quantile bins per feature of each round's tree (thresholds between bins); None: every distinct value.
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some (an
        absent class is never predicted).
    random_state : int, RandomState or None
        Seeds SMOTE (one RandomState per round); the trees are deterministic.

    Attributes
    ----------
    classes_, estimators_ (:class:`~csrepro.weak.trees.Tree`, leaf class weights in ``cell_sums``), alphas_ (T,) ln(1 / beta_t), pseudo_losses_ (T,) eps_t,
    n_synthetic_ (T,) synthetic examples made in each round, distribution_ (m, K) the mislabel distribution D
    after the last round (on the original examples), n_estimators_, n_features_in_.
    """

    _parameter_constraints: dict = {
        "n_estimators": [IntegerInterval(1, None, closed="left")],
        "max_depth": [IntegerInterval(1, None, closed="left")],
        "k_neighbors": [IntegerInterval(1, None, closed="left")],
        "sampling_strategy": [StrOptions(set(SAMPLING)), dict],
        "max_bins": [IntegerInterval(2, None, closed="left"), None],
        "labels": ["array-like", None],
        "random_state": ["random_state"],
    }

    def __init__(self, n_estimators=200, max_depth=3, k_neighbors=5, sampling_strategy="auto", max_bins=255,
                 labels=None, random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.k_neighbors = k_neighbors
        self.sampling_strategy = sampling_strategy
        self.max_bins = max_bins
        self.labels = labels
        self.random_state = random_state

    def _targets(self, counts):
        strategy = self.sampling_strategy
        if isinstance(strategy, Mapping):
            index = {label: k for k, label in enumerate(self.classes_.tolist())}
            unknown = [label for label in strategy if label not in index]
            if unknown:
                raise ValueError(f"sampling_strategy names labels {unknown} that are not classes "
                                 f"{self.classes_.tolist()}")
            strategy = {index[label]: target for label, target in strategy.items()}
        return smote_targets(counts, strategy)

    def _synthetic(self, X, z, targets, rs):
        """SMOTE examples (X_new, z_new) of this round, drawn from the RandomState ``rs``: one SMOTE call per number
        of neighbours (usually one call for all oversampled classes), on (X, z) with only those classes' targets."""
        counts = np.bincount(z, minlength=len(self.classes_))
        groups = {}
        for c, n_new in targets.items():
            groups.setdefault(min(self.k_neighbors, int(counts[c]) - 1), {})[c] = int(counts[c]) + n_new
        parts, labels = [np.empty((0, X.shape[1]))], [np.empty(0, dtype=np.intp)]
        for k, strategy in groups.items():
            smote = SMOTE(sampling_strategy=strategy, k_neighbors=_MemoNeighbors(n_neighbors=k + 1), random_state=rs)
            X_r, z_r = smote.fit_resample(X, z)
            parts.append(X_r[len(X):])
            labels.append(np.asarray(z_r[len(z):], dtype=np.intp))
        return np.vstack(parts), np.concatenate(labels)

    def _fit_tree(self, data, z, weights):
        """The round's tree on ``data`` (:class:`_RoundData`): Gini on the class weights ``weights`` of its rows
        (labels ``z``), depth ``max_depth``; None when every feature is constant."""
        return TreeLearner(max_depth=self.max_depth).fit(data, label_channels(weights, z, len(self.classes_)), Gini())

    def _tree_proba(self, tree, X):
        """h(x, .) (n, K): the weighted class frequencies of the leaf of each row (0 for classes absent there)."""
        S = tree.cell_sums[tree.apply(X)]
        total = S.sum(axis=1, keepdims=True)
        return np.divide(S, total, out=np.full(S.shape, 1.0 / S.shape[1]), where=total > 0)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Run up to ``n_estimators`` rounds of SMOTEBoost on (X, y)."""
        X, z = self._validate_training(X, y)
        m, K = len(X), len(self.classes_)
        rows = np.arange(m)
        counts = np.bincount(z, minlength=K)
        targets = self._targets(counts)
        rng = check_random_state(self.random_state)
        original = BinnedData.memoised(X, self.max_bins)
        D = np.full((m, K), 1.0 / (m * (K - 1)))
        D[rows, z] = 0.0
        estimators, alphas, losses, synthetic = [], [], [], []
        for t in range(self.n_estimators):
            X_s, z_s = self._synthetic(X, z, targets, np.random.RandomState(rng.randint(np.iinfo(np.int32).max)))
            W = D.sum(axis=1)
            weights = np.concatenate([W, (np.bincount(z, weights=W, minlength=K) / np.maximum(counts, 1))[z_s]])
            tree = self._fit_tree(_RoundData(original, X_s), np.concatenate([z, z_s]), weights)
            if tree is None:
                break
            P = self._tree_proba(tree, X)
            eps = m2_pseudo_loss(D, z, P)
            if eps >= 0.5:
                if t:
                    break
                eps = 0.5 - FLOOR  # keep one hypothesis, with a vote of about 4e-10
            perfect = eps <= FLOOR
            eps = max(eps, FLOOR)
            beta = eps / (1.0 - eps)
            D = m2_update(D, z, P, beta)
            estimators.append(tree)
            alphas.append(np.log(1.0 / beta))
            losses.append(eps)
            synthetic.append(len(z_s))
            if perfect:
                break
        self.estimators_ = estimators
        self.alphas_ = np.array(alphas, dtype=np.float64)
        self.pseudo_losses_ = np.array(losses, dtype=np.float64)
        self.n_synthetic_ = np.array(synthetic, dtype=np.intp)
        self.distribution_ = D
        self.n_estimators_ = len(estimators)
        if not estimators:
            warn_no_weak_learner(self, "no tree was found")
        return self

    def _increments(self, X):
        """sum_t alpha_t h_t(x, .), h_t the leaf's class frequencies."""
        for tree, alpha in zip(self.estimators_, self.alphas_):
            yield alpha * self._tree_proba(tree, X)
