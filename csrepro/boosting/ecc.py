"""AdaBoost.ECC (Guruswami & Sahai 1999, "Multiclass learning, boosting, and error-correcting codes"), a
cost-neutral multiclass baseline of REBEL (Appel, Burgos-Artizzu & Perona 2016, Sec. 5.1 / Fig. 4), on REBEL's
N_tau evenly spaced stump thresholds.

The output-code reduction of AdaBoost.OC (Schapire 1997) with Guruswami & Sahai's weighting of the votes: each
round colours the K classes with mu_t: classes -> {-1, +1}, a binary weak learner separates the two colours
under a distribution derived from the weights D_t(i, l) of the (example, wrong label) pairs, and its two
outputs get separate votes, alpha_t for h_t(x) = +1 and beta_t for h_t(x) = -1, chosen to minimise the
normaliser Z_t of the pair weights.  The steps are those of the algorithm box of AdaBoost.ECC, numbered in
:class:`AdaBoostECCClassifier`; the paper's text was not at hand when this was written, so the numbering is
this module's.

* :class:`AdaBoostECCClassifier` -- the booster; the weak learner is
  :class:`~csrepro.boosting.multiclass_baselines.UniformStumpLearner` (``n_bins`` evenly spaced thresholds per
  feature over its training range, ties to the lowest feature, then threshold), fitted by weighted error
  (the :class:`~csrepro.weak.criteria.Discrete` criterion of :class:`~csrepro.boosting.binary.AdaBoostClassifier`)
  on :func:`~csrepro.weak.criteria.class_channels` of the colour labels mu_t(y_i).
* :func:`random_coloring`, :func:`max_cut_coloring` -- the two colouring rules of ``coloring``.

Cost-neutral: it has no ``cost_matrix`` parameter (a cost matrix given to its method id through
:func:`csrepro.methods.make_estimator` only scores its predictions, and the registry warns), as in
:mod:`csrepro.boosting.multiclass_baselines`.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions

from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.multiclass_baselines import _CONSTRAINTS, UniformStumpLearner
from csrepro.boosting.scores import _VectorBoost
from csrepro.validation import warn_no_weak_learner
from csrepro.weak.binning import BinnedData
from csrepro.weak.criteria import Discrete, class_channels

__all__ = ["AdaBoostECCClassifier", "max_cut_coloring", "random_coloring"]

#: classes up to which :func:`max_cut_coloring` searches every colouring (2^(K-1) - 1 of them)
MAX_EXHAUSTIVE_CLASSES = 12


# ----- colourings ------------------------------------------------------------------------------------------------
def random_coloring(n_classes: int, rng: np.random.RandomState) -> np.ndarray:
    """A uniformly random balanced colouring (K,) in {-1, +1}: a random permutation's first floor(K / 2) classes
    get -1, the others +1 (both colours used for K >= 2; one ``rng.permutation`` draw)."""
    mu = np.ones(n_classes)
    mu[rng.permutation(n_classes)[: n_classes // 2]] = -1.0
    return mu


def _cut(A: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """U = sum_{k < l} A_kl [mu_k != mu_l] of symmetric A (K, K) for colourings mu (..., K)."""
    return (A.sum() - np.einsum("...k,kl,...l->...", mu, A, mu)) / 4.0


def max_cut_coloring(W: np.ndarray) -> np.ndarray:
    """The colouring (K,) in {-1, +1} maximising U = sum_{k, l} W_kl [mu_k != mu_l], W (K, K) >= 0 the pair
    weights W_kl = sum_{i: y_i = k} D_t(i, l) (so U is AdaBoost.ECC's U_t; a max-cut of A = W + W^T).

    K <= :data:`MAX_EXHAUSTIVE_CLASSES`: exact, by enumerating the 2^(K-1) - 1 non-trivial colourings with
    mu_0 = +1 (U is invariant under mu -> -mu) in binary order of (mu_1 .. mu_{K-1} == -1) bits, class 1 the
    lowest bit; ties to the first.  Larger K: greedy, then local search -- classes 0, 1, .. in turn take the
    colour cutting more weight to the classes already coloured (mu_0 = +1; ties -1), then while some single
    flip raises U, the flip of largest gain (ties: lowest class) is made.  Each local optimum has
    U >= sum_{k < l} A_kl / 2, and both colours are used whenever W has weight off the diagonal.
    """
    W = np.asarray(W, dtype=np.float64)
    K = len(W)
    A = W + W.T
    np.fill_diagonal(A, 0.0)
    if K <= MAX_EXHAUSTIVE_CLASSES:
        codes = np.arange(1, 2 ** (K - 1))
        mus = np.ones((len(codes), K))
        mus[:, 1:] -= 2.0 * ((codes[:, None] >> np.arange(K - 1)) & 1)
        return mus[int(np.argmax(_cut(A, mus)))]
    mu = np.ones(K)
    for k in range(1, K):
        to_plus, to_minus = A[k, :k] @ (mu[:k] > 0), A[k, :k] @ (mu[:k] < 0)
        mu[k] = -1.0 if to_plus >= to_minus else 1.0
    tol = 1e-12 * A.sum()
    while True:
        gain = mu * (A @ mu)  # U(mu with k flipped) - U(mu) = sum_j A_kj mu_k mu_j
        k = int(np.argmax(gain))
        if gain[k] <= tol:
            return mu
        mu[k] = -mu[k]


# ----- the booster -----------------------------------------------------------------------------------------------
def _weighted_error(pos, neg):
    """Weight of mu = -1 samples put on the +1 side plus mu = +1 samples put on the -1 side (AdaBoost's error)."""
    return pos[:, 1] + neg[:, 0]


_ERROR = Discrete(_weighted_error)


class AdaBoostECCClassifier(_VectorBoost):
    """AdaBoost.ECC with decision stumps (Guruswami & Sahai 1999).

    m samples, K classes, pair weights D_1(i, l) = [l != y_i] / (m (K - 1)) over the (example, wrong label)
    pairs.  Round t:

    1. colouring mu_t: classes -> {-1, +1} (``coloring``);
    2. U_t = sum_{i, l} D_t(i, l) [mu_t(y_i) != mu_t(l)]  (``cuts_``);
    3. sample weights D~_t(i) = sum_l D_t(i, l) [mu_t(y_i) != mu_t(l)] / U_t;
    4. the weak learner fits the binary labels mu_t(y_i) under D~_t: the stump h_t in {-1, +1} of least weighted
       error eps_t = sum_i D~_t(i) [h_t(x_i) != mu_t(y_i)] (``errors_``) on the uniform thresholds;
    5. with W^h_b = sum_i D~_t(i) [h_t(x_i) = h, mu_t(y_i) = b], the votes
       alpha_t = 1/2 ln(W^+_+ / W^+_-) (``alphas_``) and beta_t = 1/2 ln(W^-_- / W^-_+) (``betas_``), and
       g_t(x) = alpha_t if h_t(x) = +1 else -beta_t;
    6. D_{t+1}(i, l) = D_t(i, l) exp(g_t(x_i) (mu_t(l) - mu_t(y_i)) / 2) / Z_t, Z_t its normaliser
       (``normalizers_``): only the pairs the colouring splits change, by exp(-mu_t(y_i) g_t(x_i)).

    Output: H(x) = argmax_l f(x, l), f(x, l) = sum_t g_t(x) mu_t(l) (``decision_function``; ties: the lowest
    class index).  Up to terms independent of l, f(x, l) / 2 is the vote sum_t alpha_t [h_t(x) = +1 = mu_t(l)] +
    beta_t [h_t(x) = -1 = mu_t(l)]: a +1 output votes alpha_t for every class coloured +1, a -1 output beta_t
    for every class coloured -1.

    Bound: alpha_t and beta_t minimise Z_t = (1 - U_t) + U_t sum_i D~_t(i) e^{-mu_t(y_i) g_t(x_i)} for the fixed
    h_t, at (floors aside) Z_t = 1 - U_t + 2 U_t (sqrt(W^+_+ W^+_-) + sqrt(W^-_- W^-_+))
    <= 1 - U_t + 2 U_t sqrt(eps_t (1 - eps_t)) (Cauchy-Schwarz);
    unrolling step 6, prod_t Z_t = 1 / (m (K - 1)) sum_i sum_{l != y_i} exp((f(x_i, l) - f(x_i, y_i)) / 2), and
    a training error at x_i has some l != y_i with f(x_i, l) >= f(x_i, y_i), so the training error is at most
    (K - 1) prod_t Z_t, whatever the colourings.

    Floors: each W^h_b enters alpha_t, beta_t floored at ``AdaBoostClassifier.ERR_FLOOR`` = 1e-10, the floor of
    the binary AdaBoost's err, so |alpha_t|, |beta_t| <= 1/2 ln 1e10 (a pure side gets a finite vote, an empty
    side a vote of 0); Z_t is the actual normaliser, so the identity above stays exact.  Unlike the binary
    AdaBoost nothing stops at eps_t >= 1/2 or eps_t = 0: the votes minimise Z_t, so Z_t <= 1 at any eps_t, and a
    perfect split of the colours leaves the pairs it does not split.  Training stops early only when every
    feature is constant.  With K = 2 every colouring splits both classes (U_t = 1): the booster is binary
    boosting with stumps chosen by weighted error and Schapire & Singer's per-side confidences (alpha_t, -beta_t)
    -- not discrete AdaBoost, whose stump gets one vote alpha_t on both sides.

    Parameters
    ----------
    n_estimators : int >= 1
        Rounds T (stumps).
    n_bins : int >= 2
        Evenly spaced thresholds per feature over its training range (REBEL's N_tau = 200).
    coloring : {"random", "max_cut"}
        "random" (default): each round a uniformly random balanced split (:func:`random_coloring`, from
        ``random_state``).  The bound holds for any colouring; random splits of the classes into halves
        ("random half") are the colourings of AdaBoost.OC's experiments (Schapire 1997), the algorithm
        AdaBoost.ECC modifies and is compared with, hence the default.  "max_cut": the colouring
        maximising U_t (:func:`max_cut_coloring`: exact for K <= 12, greedy + local search above), on which
        the bound's factor Z_t depends; it ignores ``random_state``.
    labels : array-like or None
        All class labels (``classes_``, in the order given; duplicates refused), when ``y`` may lack some (an
        absent class is a wrong label of every sample).
    random_state : None, int or RandomState
        Seeds the random colourings; the stumps are deterministic (ties: lowest feature, then threshold).

    Attributes
    ----------
    classes_, estimators_ (stumps h_t, ``predict(X)`` in {-1, +1}), colorings_ (T, K) mu_t, alphas_ (T,),
    betas_ (T,), errors_ (T,) eps_t, cuts_ (T,) U_t, normalizers_ (T,) Z_t, n_estimators_, n_features_in_.
    """

    _parameter_constraints: dict = {**_CONSTRAINTS, "coloring": [StrOptions({"random", "max_cut"})]}
    VOTE_FLOOR = AdaBoostClassifier.ERR_FLOOR

    def __init__(self, n_estimators=200, n_bins=200, coloring="random", labels=None,
                 random_state=None):
        self.n_estimators = n_estimators
        self.n_bins = n_bins
        self.coloring = coloring
        self.labels = labels
        self.random_state = random_state

    def _color(self, D, z, rng):
        """Step 1: mu_t (K,) for the pair weights D (m, K) of samples of classes z."""
        K = D.shape[1]
        if self.coloring == "random":
            return random_coloring(K, rng)
        return max_cut_coloring((np.arange(K)[:, None] == z).astype(np.float64) @ D)  # W_kl = sum_{y_i = k} D(i, l)

    @classmethod
    def _votes(cls, w, s, hx):
        """Step 5: (alpha, beta, eps) for sample weights w, colour labels s and stump outputs hx, all (m,)."""
        plus, minus = hx > 0, hx < 0
        Wpp, Wpm = w[plus & (s > 0)].sum(), w[plus & (s < 0)].sum()
        Wmp, Wmm = w[minus & (s > 0)].sum(), w[minus & (s < 0)].sum()
        f = cls.VOTE_FLOOR
        alpha = 0.5 * np.log(max(Wpp, f) / max(Wpm, f))
        beta = 0.5 * np.log(max(Wmm, f) / max(Wmp, f))
        return float(alpha), float(beta), float(Wpm + Wmp)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Run up to ``n_estimators`` rounds of AdaBoost.ECC on (X, y)."""
        X, z = self._validate_training(X, y)
        m, K = len(X), len(self.classes_)
        rng = check_random_state(self.random_state)
        D = np.where(np.arange(K) == z[:, None], 0.0, 1.0 / (m * (K - 1)))
        data = BinnedData.memoised(X, self.n_bins, spacing="uniform")
        learner = UniformStumpLearner(self.n_bins)
        estimators, colorings, alphas, betas, errors, cuts, norms = [], [], [], [], [], [], []
        for _ in range(self.n_estimators):
            mu = self._color(D, z, rng)
            s = mu[z]
            split = s[:, None] != mu[None, :]
            Ds = np.where(split, D, 0.0)
            U = Ds.sum()
            w = Ds.sum(axis=1) / U
            h = learner.fit(data, class_channels(w, s), _ERROR)
            if h is None:
                break
            hx = h.predict(X)
            alpha, beta, eps = self._votes(w, s, hx)
            g = np.where(hx > 0, alpha, -beta)
            D = np.where(split, D * np.exp(-s * g)[:, None], D)
            Z = D.sum()
            D /= Z
            estimators.append(h)
            colorings.append(mu)
            alphas.append(alpha)
            betas.append(beta)
            errors.append(eps)
            cuts.append(U)
            norms.append(Z)
        self.estimators_ = estimators
        self.colorings_ = np.array(colorings).reshape(-1, K)
        self.alphas_ = np.array(alphas)
        self.betas_ = np.array(betas)
        self.errors_ = np.array(errors)
        self.cuts_ = np.array(cuts)
        self.normalizers_ = np.array(norms)
        self.n_estimators_ = len(estimators)
        if not estimators:
            warn_no_weak_learner(self, "no stump was found (every feature constant)")
        return self

    def _increments(self, X):
        for h, mu, alpha, beta in zip(self.estimators_, self.colorings_, self.alphas_, self.betas_):
            yield np.where(h.predict(X) > 0, alpha, -beta)[:, None] * mu[None, :]
