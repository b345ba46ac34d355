"""SMOTEBoost (Chawla et al. 2003): AdaBoost.M2's pseudo-loss and update by hand, SMOTE at every round, the weak
learner's weights, updates on the original examples only, determinism, the estimator contract."""

import numpy as np
import pytest
from imblearn.over_sampling import SMOTE
from sklearn.tree import DecisionTreeClassifier

from csrepro.boosting.smoteboost import (
    SMOTEBoostClassifier,
    _MemoNeighbors,
    m2_pseudo_loss,
    m2_update,
    smote_targets,
)
from csrepro.metrics import per_class_recall


def imbalanced(seed=0, counts=(120, 30, 12)):
    """Three Gaussian classes of ``counts`` examples in 2-D, overlapping (no tree is perfect)."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [1.5, 0.5], [0.5, 1.5]])
    X = np.vstack([rng.normal(c, 0.9, size=(n, 2)) for c, n in zip(centres, counts)])
    y = np.repeat(["a", "b", "c"], counts)
    return X, y


def test_m2_pseudo_loss_and_update_by_hand():
    """Two examples, K = 3, D uniform 1/4 on the 4 mislabel pairs.  h(x_0) = (0.5, 0.5, 0) with y_0 = 0,
    h(x_1) = (0, 0, 1) with y_1 = 2.  eps = 1/2 [1/4 (1 - .5 + .5) + 1/4 (1 - .5 + 0) + 1/4 (1 - 1 + 0) * 2]
    = 1/2 (1/4 + 1/8) = 3/16; beta = 3/13; exponents (1 + h_y - h_l)/2: example 0: 1/2 (l=1), 3/4 (l=2); example
    1: 1 (l = 0, 1)."""
    D = np.array([[0, 0.25, 0.25], [0.25, 0.25, 0]])
    z = np.array([0, 2])
    P = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    assert m2_pseudo_loss(D, z, P) == pytest.approx(3 / 16)
    beta = 3 / 13
    raw = 0.25 * np.array([[0, beta ** 0.5, beta ** 0.75], [beta, beta, 0]])
    D2 = m2_update(D, z, P, beta)
    np.testing.assert_allclose(D2, raw / raw.sum(), rtol=1e-13)
    assert D2[0, 0] == 0 and D2[1, 2] == 0 and D2.sum() == pytest.approx(1.0)


def test_smote_targets():
    assert smote_targets([10, 3, 1, 0]) == {1: 7}  # a single example cannot be SMOTEd; absent classes skipped
    assert smote_targets([10, 3, 4], "minority") == {1: 7}
    assert smote_targets([10, 3, 4], "not minority") == {2: 6}
    assert smote_targets([10, 3, 4], "all") == {1: 7, 2: 6}
    assert smote_targets([10, 3, 4], {1: 5}) == {1: 2}
    with pytest.raises(ValueError, match="only adds examples"):
        smote_targets([10, 3, 4], {0: 5})


def test_memoised_neighbours_change_no_resample():
    X, y = imbalanced()
    z = np.searchsorted(np.unique(y), y)
    plain = SMOTE(k_neighbors=5, random_state=3).fit_resample(X, z)
    memo = SMOTE(k_neighbors=_MemoNeighbors(n_neighbors=6), random_state=3).fit_resample(X, z)
    again = SMOTE(k_neighbors=_MemoNeighbors(n_neighbors=6), random_state=3).fit_resample(X, z)  # from the memo
    for a, b in (plain, memo), (plain, again):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])


@pytest.fixture
def spy(monkeypatch):
    """Records every SMOTE resample (its synthetic rows) and every tree fit (X, y, sample_weight)."""
    calls = {"smote": [], "trees": []}
    resample = SMOTE.fit_resample

    def recording_resample(self, X, y):
        X_r, y_r = resample(self, X, y)
        calls["smote"].append((X_r[len(X):].copy(), np.asarray(y_r[len(y):]).copy()))
        return X_r, y_r

    fit_tree = SMOTEBoostClassifier._fit_tree

    def recording_fit_tree(self, data, z, weights):
        calls["trees"].append((np.array(data.X), np.array(z), np.array(weights), np.array(data.codes)))
        return fit_tree(self, data, z, weights)

    monkeypatch.setattr(SMOTE, "fit_resample", recording_resample)
    monkeypatch.setattr(SMOTEBoostClassifier, "_fit_tree", recording_fit_tree)
    return calls


def test_smote_runs_every_round_with_new_synthetic_examples(spy):
    X, y = imbalanced()
    clf = SMOTEBoostClassifier(n_estimators=6, max_depth=2, random_state=0).fit(X, y)
    T = clf.n_estimators_
    assert T >= 3
    assert len(spy["smote"]) == len(spy["trees"]) == T  # one SMOTE call (one k for both classes) per round
    np.testing.assert_array_equal(clf.n_synthetic_, [90 + 108] * T)  # b: 30 -> 120, c: 12 -> 120
    for (X_s, z_s), (Xt, zt, _, _) in zip(spy["smote"], spy["trees"]):
        assert np.bincount(z_s, minlength=3).tolist() == [0, 90, 108]
        np.testing.assert_array_equal(Xt[len(X):], X_s)  # the tree trains on the originals + this round's SMOTE
        np.testing.assert_array_equal(Xt[: len(X)], X)
    firsts = [X_s[0] for X_s, _ in spy["smote"]]
    assert all(not np.array_equal(a, b) for a, b in zip(firsts, firsts[1:]))  # fresh draws each round


def test_weights_and_updates_use_the_original_examples_only(spy):
    """Round by round: the tree's weights are W_t(i) = sum_y D_t(i, y) on the originals and the class mean of W_t
    on the synthetic rows; eps_t and D_{t+1} follow M2 on the originals' h_t alone; D stays (m, K)."""
    X, y = imbalanced(seed=1)
    clf = SMOTEBoostClassifier(n_estimators=4, max_depth=2, random_state=5).fit(X, y)
    classes = np.unique(y)
    z = np.searchsorted(classes, y)
    m, K = len(X), 3
    D = np.full((m, K), 1 / (m * (K - 1)))
    D[np.arange(m), z] = 0
    for t, (tree, (Xt, zt, w, _)) in enumerate(zip(clf.estimators_, spy["trees"])):
        W = D.sum(axis=1)
        np.testing.assert_allclose(w[:m], W, rtol=1e-12)
        class_mean = np.array([W[z == k].mean() for k in range(K)])
        np.testing.assert_allclose(w[m:], class_mean[zt[m:]], rtol=1e-12)
        P = _leaf_frequencies(tree, X, Xt, zt, w)
        eps = m2_pseudo_loss(D, z, P)
        assert clf.pseudo_losses_[t] == pytest.approx(eps, rel=1e-12)
        beta = eps / (1 - eps)
        assert clf.alphas_[t] == pytest.approx(np.log(1 / beta), rel=1e-12)
        D = m2_update(D, z, P, beta)
    assert clf.distribution_.shape == (m, K)
    np.testing.assert_allclose(clf.distribution_, D, rtol=1e-10)


def _leaf_frequencies(tree, X, Xt, zt, w, K=3):
    """h(x, .) from scratch: the weighted class frequencies of the round's training rows (Xt, zt, w) in x's leaf."""
    leaf = tree.apply(Xt)
    sums = np.zeros((leaf.max() + 1, K))
    np.add.at(sums, (leaf, zt), w)
    return (sums / sums.sum(axis=1, keepdims=True))[tree.apply(X)]


def test_weak_learner_is_scikit_learns_weighted_tree_on_the_originals_bins(spy):
    """Each round's tree has the leaves and weighted class frequencies of scikit-learn's
    DecisionTreeClassifier(max_depth) fitted with the same sample_weight on the bin codes (the originals' bins;
    the synthetic rows coded with them); with every distinct original value a bin (max_bins=None) the originals'
    codes order them as their values do."""
    X, y = imbalanced(seed=7)
    clf = SMOTEBoostClassifier(n_estimators=3, max_depth=3, max_bins=None, random_state=0).fit(X, y)
    for tree, (Xt, zt, w, codes) in zip(clf.estimators_, spy["trees"]):
        np.testing.assert_array_equal(codes[: len(X)].argsort(axis=0, kind="stable"), X.argsort(axis=0, kind="stable"))
        sk = DecisionTreeClassifier(max_depth=3, random_state=0).fit(codes, zt, sample_weight=w)
        np.testing.assert_allclose(_leaf_frequencies(tree, Xt, Xt, zt, w), sk.predict_proba(codes), atol=1e-12)
        assert sk.get_n_leaves() == len(tree.cell_sums)


def test_deterministic_given_random_state():
    X, y = imbalanced(seed=2)
    a = SMOTEBoostClassifier(n_estimators=8, max_depth=2, random_state=7).fit(X, y)
    b = SMOTEBoostClassifier(n_estimators=8, max_depth=2, random_state=7).fit(X, y)
    c = SMOTEBoostClassifier(n_estimators=8, max_depth=2, random_state=8).fit(X, y)
    np.testing.assert_array_equal(a.alphas_, b.alphas_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.alphas_[: c.n_estimators_], c.alphas_[: a.n_estimators_])  # other SMOTE draws


def test_outputs_and_staged_outputs():
    X, y = imbalanced(seed=3)
    clf = SMOTEBoostClassifier(n_estimators=10, max_depth=2, random_state=0).fit(X, y)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(P, axis=1)])
    staged = list(clf.staged_predict_proba(X))
    assert len(staged) == clf.n_estimators_ == len(list(clf.staged_predict(X)))
    np.testing.assert_allclose(staged[-1], P)
    np.testing.assert_array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))


def test_smote_raises_minority_recall_over_plain_m2():
    """With SMOTE the rare class c is recalled more often on the training data than by the same M2 loop without
    synthetic examples (sampling_strategy naming no class to add to)."""
    X, y = imbalanced(seed=4, counts=(200, 40, 10))
    z = np.searchsorted(np.unique(y), y)
    smote = SMOTEBoostClassifier(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    plain = SMOTEBoostClassifier(n_estimators=20, max_depth=2, random_state=0,
                                 sampling_strategy={"a": 200, "b": 40, "c": 10}).fit(X, y)
    assert plain.n_synthetic_.sum() == 0
    recall = [per_class_recall(z, np.searchsorted(np.unique(y), m.predict(X)), 3)[2] for m in (smote, plain)]
    assert recall[0] > recall[1]


def test_small_classes_and_absent_labels():
    """A class of 2 examples is SMOTEd with 1 neighbour, a class of 1 is not; a label absent from training is
    never predicted and gets probability 0."""
    X, y = imbalanced(seed=5, counts=(40, 2, 1))
    clf = SMOTEBoostClassifier(n_estimators=5, max_depth=2, random_state=0, labels=["a", "b", "c", "d"]).fit(X, y)
    assert set(clf.n_synthetic_) == {38}
    P = clf.predict_proba(X)
    assert P.shape == (len(X), 4) and np.all(P[:, 3] == 0) and "d" not in set(clf.predict(X))


def test_stops_when_the_pseudo_loss_reaches_one_half(monkeypatch):
    """eps_t >= 1/2 ends the loop without that round; in round 1 the hypothesis is kept with a vote of about 0."""
    X, y = imbalanced(seed=6)

    def uniform(self, tree, X_):
        return np.full((len(X_), len(self.classes_)), 1 / len(self.classes_))

    monkeypatch.setattr(SMOTEBoostClassifier, "_tree_proba", uniform)
    clf = SMOTEBoostClassifier(n_estimators=5, max_depth=2, random_state=0).fit(X, y)
    assert clf.n_estimators_ == 1 and 0 < clf.alphas_[0] < 1e-8
    np.testing.assert_allclose(clf.predict_proba(X), 1 / 3)


def test_registry_builds_smoteboost_and_samme():
    from sklearn.ensemble import AdaBoostClassifier as SKAdaBoost

    from csrepro.methods import CostBlindWarning, get_method, make_estimator

    with pytest.warns(CostBlindWarning, match="method 'smoteboost' is cost-blind"):
        est = make_estimator("smoteboost", cost_matrix=1 - np.eye(3), random_state=4, n_estimators=3)
    assert isinstance(est, SMOTEBoostClassifier) and est.random_state == 4 and "cost_matrix" not in est.get_params()
    samme = make_estimator("samme", random_state=4, max_depth=2)
    assert type(samme) is SKAdaBoost and samme.estimator.max_depth == 2 and samme.n_estimators == 200
    assert not get_method("samme").cost_sensitive and get_method("samme").predict_proba
    assert not get_method("samme").takes_cost_matrix and not get_method("smoteboost").takes_cost_matrix
    assert {"max_depth", "n_estimators"} <= set(get_method("samme").params)


def test_samme_is_scikit_learns_adaboost():
    """The ``samme`` id's estimator is scikit-learn's AdaBoostClassifier on depth-d trees, nothing added."""
    from sklearn.ensemble import AdaBoostClassifier as SKAdaBoost

    from csrepro.methods import make_estimator

    X, y = imbalanced(seed=8)
    ours = make_estimator("samme", random_state=3, max_depth=2, n_estimators=20).fit(X, y)
    theirs = SKAdaBoost(DecisionTreeClassifier(max_depth=2), n_estimators=20, random_state=3).fit(X, y)
    np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))
