"""Cross-check AdaBoost.MM and CoMBo (csrepro.boosting.combo) against scikit-multimodallearn.

scikit-multimodallearn's ``MumboClassifier`` with one view is plain AdaBoost.MM with a sample-weighted
scikit-learn tree (weights L_{t-1}(i) / L_{t-1}); csrepro's ``AdaBoostMMClassifier(weak_learner="weighted",
max_bins=None)`` is designed to match it round by round.  Its ``MuComboClassifier`` is a multi-view CoMBo that
divides each cost entry D(i, l) by the size m_l of the *column's* class l (the paper, eq. (13): by m_{y_i}, the
row's class) and adds per-class vote weights beta_{t,c} from a convex program (cvxopt); the comparison with
csrepro's ``CoMBoClassifier`` therefore measures how far the two algorithms differ, not an implementation match.

The package imports names that later scikit-learn releases dropped (``sklearn.tree._tree.DTYPE``, in
``multimodal/boosting/mumbo.py`` and ``combo.py``, is absent from the project's scikit-learn 1.9), so it runs in its
own environment (``.venv-crosscheck``, scikit-learn 1.5.x) and the project's never imports it.  Three steps, each its own process
(``make crosscheck-combo`` runs them):

* ``data`` (project venv): load the nine sets of Koço & Capponi 2013 Table 1 with
  :func:`csrepro.data.loaders.load_dataset`, one stratified 80/20 split each (satimage: UCI's two files pooled,
  as the paper's 6435 examples), X rounded to float32 (scikit-learn's trees compute in float32, so both sides
  see the same values and the same midpoint thresholds); write ``<out>/data/<set>.npz``.
* ``package`` (crosscheck venv; must not import csrepro): fit MumboClassifier (one view: ``views_ind=[0, d]``;
  two tree seeds) and MuComboClassifier (one view) with ``DecisionTreeClassifier(max_depth=d)``; write per-round
  alphas (``estimator_weights_``, ``estimator_weights_alpha_``/``_beta_``), each round's weak-learner training
  predictions and tree, staged training predictions and the final test predictions and scores to
  ``<out>/package/<set>.npz``, versions and the quoted normalisation lines to ``<out>/package/info.json``.
* ``compare`` (project venv): fit ``AdaBoostMMClassifier`` and ``CoMBoClassifier`` (``weak_learner="weighted"``,
  ``step="approx"``, ``max_bins=None``) on the same splits, compare, write ``<out>/compare.json`` and the report
  (default ``experiments/combo/crosscheck.md``).

Every step appends what it prints to ``<out>/<step>.log``.  Run: ``make crosscheck-combo`` (XC_ARGS="..." for
options, e.g. ``--datasets glass,ecoli5 --n-estimators 50``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "results" / "crosscheck_combo"
DEFAULT_REPORT = ROOT / "experiments" / "combo" / "crosscheck.md"
DATASETS = ("newthyroid", "balance", "car", "connect4", "nursery_s", "glass", "ecoli5", "yeast", "satimage")
N_ESTIMATORS = 200  # the paper's T
MAX_DEPTH = 3  # the paper's "2 to 3-depth" trees
TEST_SIZE = 0.2  # one fold of the paper's 5-fold cross-validation
SPLIT_SEED = 0
TREE_SEEDS = (0, 1)  # MumboClassifier(random_state=...): the second only measures its own tie-breaking
CONNECT4_ROWS = 20000  # a stratified subsample of connect4's 67557 rows (0: all; the package's MuCombo needs ~4 min
#                        for all of them: cvxopt's program each round)
JOBS = 2
TIE_RTOL = 1e-9  # split gains (or leaf class weights) closer than this times the node's weight count as a tie
# the lines of the package's MuCombo that set the cost normalisation (quoted with their line numbers)
NORMALISATION_MARKERS = ("cost[:, :, indice_class] /=", "*= -(n_classes-1)", "/ self.n_yi_[np.newaxis, np.newaxis, :]")

_LOG: list[Path] = []


def log(*parts) -> None:
    """Print and append to the step's log file."""
    text = " ".join(str(p) for p in parts)
    print(text, flush=True)
    for path in _LOG:
        with path.open("a") as fh:
            fh.write(text + "\n")


# ----- comparison functions (pure NumPy; tested in tests/test_crosscheck_combo.py) ------------------------------
def first_divergence(a, b) -> int | None:
    """First round (1-based) whose rows of ``a`` and ``b`` (rounds x examples) differ, over their common rounds;
    None when those agree."""
    a, b = np.asarray(a), np.asarray(b)
    n = min(len(a), len(b))
    differ = np.flatnonzero(np.any(a[:n] != b[:n], axis=1))
    return int(differ[0]) + 1 if len(differ) else None


def alpha_agreement(a, b, before=None) -> dict:
    """Max |alpha_t - alpha'_t| over the common rounds, and over the rounds before round ``before`` (1-based)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n = min(len(a), len(b))
    diff = np.abs(a[:n] - b[:n])
    k = n if before is None else min(n, before - 1)
    return {"rounds": int(n), "max_abs_diff": float(diff.max()) if n else float("nan"),
            "rounds_before": int(k), "max_abs_diff_before": float(diff[:k].max()) if k else float("nan"),
            "max_rel_diff_before": float((diff[:k] / np.maximum(np.abs(a[:k]), 1e-300)).max()) if k
            else float("nan")}


def staged_agreement(a, b) -> np.ndarray:
    """Fraction of equal predictions per round over the common rounds of staged predictions (rounds x examples)."""
    a, b = np.asarray(a), np.asarray(b)
    n = min(len(a), len(b))
    return np.mean(a[:n] == b[:n], axis=1)


def agreement_summary(frac) -> dict:
    """min, mean and last of per-round agreements, the rounds at 1.0 and the first round below it."""
    frac = np.asarray(frac, dtype=float)
    below = np.flatnonzero(frac < 1.0)
    return {"min": float(frac.min()), "mean": float(frac.mean()), "last": float(frac[-1]),
            "rounds_equal": int(np.sum(frac == 1.0)), "rounds": int(len(frac)),
            "first_unequal": int(below[0]) + 1 if len(below) else None}


def boost_weights(weak, alphas, z, n_classes, class_weighted=False) -> np.ndarray:
    """The weak learner's sample weights L_{t-1}(i) / L_{t-1} after the rounds given: scores
    f(i, l) = sum_s alpha_s 1[h_s(x_i) = l] from ``weak`` (rounds x examples, class indices), L(i) =
    sum_{l != y_i} w_i exp(f(i, l) - f(i, y_i)), w_i = 1 (AdaBoost.MM) or 1 / m_{y_i} (``class_weighted``, CoMBo)."""
    z = np.asarray(z)
    rows = np.arange(len(z))
    F = np.zeros((len(z), n_classes))
    for h, a in zip(np.asarray(weak), np.asarray(alphas, dtype=float)):
        F[rows, h] += a
    diff = F - F[rows, z][:, None]
    diff[rows, z] = -np.inf
    L = np.exp(diff - diff.max()).sum(axis=1)
    if class_weighted:
        L = L / np.bincount(z, minlength=n_classes)[z]
    return L / L.sum()


def package_weights(weak, alphas, z, n_classes) -> np.ndarray:
    """MumboClassifier's sample weights (one view) after the rounds given, with its arithmetic
    (``_compute_cost`` then ``_compute_dist``): D = exp(f(i, l) - f(i, y_i)) unscaled, then
    D(i, y_i) -= sum_l D(i, l), i.e. 1 - (1 + sum_{l != y_i} ...): the difference cancels to 0 once L(i) is
    below the rounding of 1 (margins above about 36), so well-classified examples' weights lose their digits."""
    z = np.asarray(z)
    rows = np.arange(len(z))
    score = np.zeros((len(z), n_classes))
    for h, a in zip(np.asarray(weak), np.asarray(alphas, dtype=float)):
        score[rows, h] += a
    cost = np.exp(score - score[rows, z][:, None])
    cost[rows, z] -= np.sum(cost, axis=1)
    sel = cost[rows, z]
    return sel / sel.sum()


def weight_discrepancy(weak, alphas, z, n_classes) -> np.ndarray:
    """Per round t = 1..T: max_i |w_i - w'_i| / w_i between the exact weights (:func:`boost_weights`) and the
    package's (:func:`package_weights`) before round t, both after the same rounds 1..t-1 (``weak``, ``alphas``);
    inf where the package's are not finite (all its diagonals cancelled: 0 / 0)."""
    weak, alphas, z = np.asarray(weak), np.asarray(alphas, dtype=float), np.asarray(z)
    rows = np.arange(len(z))
    F = np.zeros((len(z), n_classes))
    out = np.empty(len(weak))
    for t in range(len(weak)):
        diff = F - F[rows, z][:, None]
        diff[rows, z] = -np.inf
        L = np.exp(diff - diff.max()).sum(axis=1)
        w = L / L.sum()
        cost = np.exp(F - F[rows, z][:, None])
        cost[rows, z] -= np.sum(cost, axis=1)
        sel = cost[rows, z]
        with np.errstate(invalid="ignore", divide="ignore"):
            v = sel / sel.sum()
        out[t] = float(np.max(np.abs(w - v) / w)) if np.all(np.isfinite(v)) else np.inf
        F[rows, weak[t]] += alphas[t]
    return out


def first_above(values, threshold) -> int | None:
    """First round (1-based) whose value exceeds ``threshold``; None when none does."""
    idx = np.flatnonzero(np.asarray(values, dtype=float) > threshold)
    return int(idx[0]) + 1 if len(idx) else None


def hand_till_mauc(z, scores) -> float:
    """Hand & Till (2001) MAUC from per-class scores (n, K) of any scale: the mean over the pairs {i, j} of classes
    present in ``z`` of (A(i|j) + A(j|i)) / 2, A(i|j) the AUC of ``scores[:, i]`` separating class i from j on their
    examples (ties 1/2).  Rows need not sum to 1 (csrepro.metrics.mauc's check), so MuCombo's alpha*beta votes
    can be scored; on probabilities it equals csrepro.metrics.mauc."""
    z, S = np.asarray(z), np.asarray(scores, dtype=float)
    present = np.unique(z)

    def auc(pos_scores, neg_scores):
        both = np.concatenate([pos_scores, neg_scores])
        order = np.argsort(both, kind="mergesort")
        ranks = np.empty(len(both))
        sorted_ = both[order]
        # average ranks of ties
        _, first, counts = np.unique(sorted_, return_index=True, return_counts=True)
        avg = first + (counts + 1) / 2.0
        ranks[order] = np.repeat(avg, counts)
        n_pos, n_neg = len(pos_scores), len(neg_scores)
        return (ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)

    pairs = []
    for a_i, i in enumerate(present):
        for j in present[a_i + 1:]:
            si, sj = S[z == i], S[z == j]
            pairs.append((auc(si[:, i], sj[:, i]) + auc(sj[:, j], si[:, j])) / 2.0)
    return float(np.mean(pairs))


def gini_impurity(W) -> float:
    """Weighted Gini impurity of class weights W (K,): sum W - sum W_k^2 / sum W (0 when empty)."""
    W = np.asarray(W, dtype=float)
    total = W.sum()
    return float(total - (W @ W) / total) if total > 0 else 0.0


def _class_weights(w, z, rows, n_classes):
    return np.bincount(z[rows], weights=w[rows], minlength=n_classes)


def _split_gain(w, z, rows, left, n_classes) -> float:
    return (gini_impurity(_class_weights(w, z, rows, n_classes))
            - gini_impurity(_class_weights(w, z, rows[left], n_classes))
            - gini_impurity(_class_weights(w, z, rows[~left], n_classes)))


def _is_leaf(tree, node):
    return tree["left"][node] < 0


def diagnose_divergence(X, z, w, n_classes, tree_a, tree_b, pred_a, pred_b, tol=TIE_RTOL) -> dict:
    """Why two trees fitted to the same weights ``w`` predict differently on the training rows.

    Trees are dicts of node arrays ``feature``, ``threshold``, ``left``, ``right`` (a leaf: ``left`` < 0; node 0
    the root; a row goes left when ``X[:, feature] <= threshold``); ``pred_a``/``pred_b`` their predictions on X.
    Walks both trees breadth-first from the root, only into node pairs whose rows get different predictions, and
    reports the first such pair that is not the same partition (children may be swapped):

    * ``"split"``: both split, differently: the Gini gains of both splits on the node's rows (``tie``: equal within
      ``tol`` times the node's weight);
    * ``"leaf_vs_split"``: one tree stops where the other splits: the split's gain (``tie``: gain 0 within tol);
    * ``"leaf_label"``: same leaf rows, different labels: the leaf's two largest class weights (``tie`` likewise).
    """
    X, z, w = np.asarray(X), np.asarray(z), np.asarray(w, dtype=float)
    queue = [(0, 0, np.arange(len(z)), 0)]
    while queue:
        na, nb, rows, depth = queue.pop(0)
        if np.array_equal(pred_a[rows], pred_b[rows]):
            continue
        weight = float(w[rows].sum())
        out = {"depth": depth, "node_rows": int(len(rows)), "node_weight": weight}
        leaf_a, leaf_b = _is_leaf(tree_a, na), _is_leaf(tree_b, nb)
        if leaf_a and leaf_b:
            W = np.sort(_class_weights(w, z, rows, n_classes))[::-1]
            return {**out, "kind": "leaf_label", "top_class_weights": W[:2].tolist(),
                    "tie": bool(W[0] - W[1] <= tol * weight)}
        if leaf_a or leaf_b:
            tree, node = (tree_b, nb) if leaf_a else (tree_a, na)
            left = X[rows, tree["feature"][node]] <= tree["threshold"][node]
            gain = _split_gain(w, z, rows, left, n_classes)
            return {**out, "kind": "leaf_vs_split", "split_in": "b" if leaf_a else "a",
                    "feature": int(tree["feature"][node]), "gain": gain, "tie": bool(abs(gain) <= tol * weight)}
        left_a = X[rows, tree_a["feature"][na]] <= tree_a["threshold"][na]
        left_b = X[rows, tree_b["feature"][nb]] <= tree_b["threshold"][nb]
        if np.array_equal(left_a, left_b):
            queue += [(tree_a["left"][na], tree_b["left"][nb], rows[left_a], depth + 1),
                      (tree_a["right"][na], tree_b["right"][nb], rows[~left_a], depth + 1)]
        elif np.array_equal(left_a, ~left_b):
            queue += [(tree_a["left"][na], tree_b["right"][nb], rows[left_a], depth + 1),
                      (tree_a["right"][na], tree_b["left"][nb], rows[~left_a], depth + 1)]
        else:
            ga, gb = _split_gain(w, z, rows, left_a, n_classes), _split_gain(w, z, rows, left_b, n_classes)
            return {**out, "kind": "split", "feature_a": int(tree_a["feature"][na]),
                    "threshold_a": float(tree_a["threshold"][na]), "feature_b": int(tree_b["feature"][nb]),
                    "threshold_b": float(tree_b["threshold"][nb]), "gain_a": ga, "gain_b": gb,
                    "gain_diff_rel": abs(ga - gb) / weight if weight > 0 else 0.0,
                    "tie": bool(abs(ga - gb) <= tol * weight)}
    return {"kind": "none"}


def structure_differences(X, z, tree_a, tree_b) -> dict:
    """Node-by-node comparison of two trees on the training rows X (labels z), regardless of their predictions.

    Walks the node pairs that hold the same rows (children may be swapped) and counts: ``same_split`` (the same
    partition of the node's rows by the same feature and threshold), ``other_threshold`` (same partition and
    feature, another threshold: e.g. the midpoint between the node's neighbouring values (scikit-learn) vs between
    the training set's (binned trees); test rows between the two go to different sides), ``other_feature`` (same
    partition, another feature), ``pure_split_a``/``pure_split_b`` (only that tree splits a node holding one class:
    no prediction changes), ``leaf_vs_split`` (only one splits an impure node) and ``other_partition``."""
    X, z = np.asarray(X), np.asarray(z)
    out = dict.fromkeys(("same_split", "other_threshold", "other_feature", "pure_split_a", "pure_split_b",
                         "leaf_vs_split", "other_partition"), 0)
    queue = [(0, 0, np.arange(len(z)))]
    while queue:
        na, nb, rows = queue.pop()
        leaf_a, leaf_b = _is_leaf(tree_a, na), _is_leaf(tree_b, nb)
        if leaf_a and leaf_b:
            continue
        if leaf_a or leaf_b:
            pure = len(np.unique(z[rows])) <= 1
            out["leaf_vs_split" if not pure else ("pure_split_b" if leaf_a else "pure_split_a")] += 1
            continue
        fa, fb = tree_a["feature"][na], tree_b["feature"][nb]
        left_a, left_b = X[rows, fa] <= tree_a["threshold"][na], X[rows, fb] <= tree_b["threshold"][nb]
        if np.array_equal(left_a, left_b):
            kids = [(tree_a["left"][na], tree_b["left"][nb]), (tree_a["right"][na], tree_b["right"][nb])]
        elif np.array_equal(left_a, ~left_b):
            kids = [(tree_a["left"][na], tree_b["right"][nb]), (tree_a["right"][na], tree_b["left"][nb])]
        else:
            out["other_partition"] += 1
            continue
        if fa != fb:
            out["other_feature"] += 1
        elif np.isclose(tree_a["threshold"][na], tree_b["threshold"][nb], rtol=1e-7, atol=0.0):
            out["same_split"] += 1
        else:
            out["other_threshold"] += 1
        queue += [(kids[0][0], kids[0][1], rows[left_a]), (kids[1][0], kids[1][1], rows[~left_a])]
    return out


def describe_cause(d: dict | None) -> str:
    """One line for a :func:`diagnose_divergence` result."""
    if not d:
        return "-"
    kind = d["kind"]
    tie = "tie" if d.get("tie") else "NOT a tie"
    if kind == "split":
        return (f"{tie}: depth-{d['depth']} node ({d['node_rows']} rows) split on feature {d['feature_a']} vs "
                f"{d['feature_b']}, Gini gains {d['gain_a']:.6g} vs {d['gain_b']:.6g} (|diff|/W = "
                f"{d['gain_diff_rel']:.1e})")
    if kind == "leaf_vs_split":
        return (f"{tie}: depth-{d['depth']} node ({d['node_rows']} rows) split (feature {d['feature']}, gain "
                f"{d['gain']:.3g}) only in {'csrepro' if d['split_in'] == 'a' else 'package'}")
    if kind == "leaf_label":
        w = d["top_class_weights"]
        return f"{tie}: depth-{d['depth']} leaf ({d['node_rows']} rows) class weights {w[0]:.6g} vs {w[1]:.6g}"
    return "trees predict alike on every training row"


def csrepro_tree(tree) -> dict:
    """A csrepro :class:`~csrepro.weak.trees.Tree` as the node-array dict of :func:`diagnose_divergence`."""
    return {"feature": np.asarray(tree.feature), "threshold": np.asarray(tree.threshold),
            "left": np.asarray(tree.left), "right": np.asarray(tree.right)}


def stored_tree(arrays, prefix, t) -> dict:
    """Round t's (0-based) tree of the package step's padded node arrays ``<prefix>_feature`` etc."""
    return {k: np.asarray(arrays[f"{prefix}_{k}"][t]) for k in ("feature", "threshold", "left", "right")}


def quote_lines(path, markers) -> list[dict]:
    """The lines of ``path`` containing any of ``markers``: [{"line": 1-based number, "text": stripped line}]."""
    out = []
    for i, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if any(m in line for m in markers):
            out.append({"line": i, "text": line.strip()})
    return out


# ----- step 0: data (project venv) --------------------------------------------------------------------------
def step_data(args) -> None:
    from sklearn.model_selection import train_test_split

    from csrepro.data.loaders import load_dataset

    target = args.out / "data"
    target.mkdir(parents=True, exist_ok=True)
    meta = {}
    for name in args.datasets:
        d = load_dataset(name)
        classes, z = np.unique(d.y, return_inverse=True)
        X = d.X.astype(np.float32).astype(np.float64)
        keep = np.arange(len(z))
        if name == "connect4" and args.connect4_rows and args.connect4_rows < len(z):
            keep, _ = train_test_split(keep, train_size=args.connect4_rows, stratify=z, random_state=args.split_seed)
            keep = np.sort(keep)
        tr, te = train_test_split(keep, test_size=args.test_size, stratify=z[keep], random_state=args.split_seed)
        tr, te = np.sort(tr), np.sort(te)
        np.savez_compressed(target / f"{name}.npz", X_train=X[tr], z_train=z[tr], X_test=X[te], z_test=z[te],
                            classes=classes.astype(str))
        meta[name] = {"rows": int(len(keep)), "rows_total": int(len(z)), "train": int(len(tr)), "test": int(len(te)),
                      "features": int(X.shape[1]), "classes": int(len(classes)),
                      "float32_changed_values": int(np.sum(X != d.X)),
                      "float32_merged_values": int(sum(len(np.unique(d.X[:, j])) - len(np.unique(X[:, j]))
                                                       for j in range(X.shape[1])))}
        log(f"data {name}: {len(tr)} train / {len(te)} test rows, {X.shape[1]} features, {len(classes)} classes"
            + (f" (stratified subsample of {len(keep)} of {len(z)} rows)" if len(keep) < len(z) else ""))
    (target / "meta.json").write_text(json.dumps({"test_size": args.test_size, "split_seed": args.split_seed,
                                                  "connect4_rows": args.connect4_rows, "sets": meta}, indent=1))


# ----- step 1: the package (crosscheck venv; never imports csrepro) ------------------------------------------------
def _tree_arrays(estimators, n_nodes):
    """Padded node arrays of fitted sklearn trees (left = right = -1 at leaves and padding)."""
    T = len(estimators)
    feature = np.full((T, n_nodes), -2, dtype=np.int32)
    threshold = np.full((T, n_nodes), np.nan)
    left = np.full((T, n_nodes), -1, dtype=np.int32)
    right = np.full((T, n_nodes), -1, dtype=np.int32)
    for t, est in enumerate(estimators):
        tr = est.tree_
        k = tr.node_count
        feature[t, :k], threshold[t, :k] = tr.feature, tr.threshold
        left[t, :k], right[t, :k] = tr.children_left, tr.children_right
    return feature, threshold, left, right


def _fit_or_truncate(cls, tree, n_estimators, seed, X, z, views):
    """``cls(estimator=tree, n_estimators, random_state=seed).fit(X, z, views_ind=views)``; when the fit raises
    after r complete rounds, the same model refitted with ``n_estimators=r`` (the same trees: the tree seeds are
    drawn in order from ``random_state``), and the failure as a line; else (model, None)."""
    import warnings

    model = cls(estimator=tree, n_estimators=n_estimators, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return model.fit(X, z, views_ind=views), None
        except ValueError as exc:
            done = len(model.estimators_)
            if done == 0:
                raise
            failure = f"fit raised at round {done + 1} ({exc}); kept its first {done} rounds"
            return cls(estimator=tree, n_estimators=done, random_state=seed).fit(X, z, views_ind=views), failure


def _package_set(name, out_dir, n_estimators, max_depth, tree_seeds):
    """Fit the package's models on one set; write ``<out_dir>/package/<name>.npz``; (meta, log lines)."""
    from multimodal.boosting.combo import MuComboClassifier
    from multimodal.boosting.mumbo import MumboClassifier
    from sklearn.tree import DecisionTreeClassifier

    d = np.load(out_dir / "data" / f"{name}.npz")
    Xtr, ztr, Xte = d["X_train"], d["z_train"], d["X_test"]
    views = np.array([0, Xtr.shape[1]])  # one view: all features
    n_nodes = 2 ** (max_depth + 1) - 1
    out, meta, lines = {}, {}, []
    for seed in tree_seeds:
        t0 = time.perf_counter()
        mb, failure = _fit_or_truncate(MumboClassifier, DecisionTreeClassifier(max_depth=max_depth), n_estimators,
                                       seed, Xtr, ztr, views)
        fit_s = time.perf_counter() - t0
        p = f"mumbo{seed}"
        out[f"{p}_alphas"] = np.asarray(mb.estimator_weights_, dtype=float)
        out[f"{p}_weak"] = np.array([e.predict(Xtr) for e in mb.estimators_], dtype=np.int8)
        out[f"{p}_feature"], out[f"{p}_threshold"], out[f"{p}_left"], out[f"{p}_right"] = _tree_arrays(
            mb.estimators_, n_nodes)
        if seed == tree_seeds[0]:
            out[f"{p}_staged_train"] = np.array(list(mb.staged_predict(Xtr)), dtype=np.int8)
            out[f"{p}_test_pred"] = mb.predict(Xte).astype(np.int8)
            out[f"{p}_test_scores"] = mb.decision_function(Xte)
        meta[p] = {"rounds": len(mb.estimators_), "fit_s": round(fit_s, 2), "failure": failure,
                   "edge_one_reset": bool(len(mb.estimators_) == 1 and n_estimators > 1)}
        lines.append(f"package {name}: MumboClassifier(random_state={seed}) {len(mb.estimators_)} rounds, "
                     f"{fit_s:.1f}s" + (f"; {failure}" if failure else ""))
    seed = tree_seeds[0]
    t0 = time.perf_counter()
    mc, failure = _fit_or_truncate(MuComboClassifier, DecisionTreeClassifier(max_depth=max_depth), n_estimators,
                                   seed, Xtr, ztr, views)
    fit_s = time.perf_counter() - t0
    out["mucombo_alphas"] = np.asarray(mc.estimator_weights_alpha_[:, 0], dtype=float)
    out["mucombo_betas"] = np.asarray(mc.estimator_weights_beta_[:, 0, :], dtype=float)
    out["mucombo_weak"] = np.array([e.predict(Xtr) for e in mc.estimators_], dtype=np.int8)
    out["mucombo_feature"], out["mucombo_threshold"], out["mucombo_left"], out["mucombo_right"] = _tree_arrays(
        mc.estimators_, n_nodes)
    out["mucombo_staged_train"] = np.array(list(mc.staged_predict(Xtr)), dtype=np.int8)
    out["mucombo_test_pred"] = mc.predict(Xte).astype(np.int8)
    out["mucombo_test_scores"] = mc.decision_function(Xte)
    out["mucombo_n_yi"] = np.asarray(mc.n_yi_)
    meta["mucombo"] = {"rounds": len(mc.estimators_), "fit_s": round(fit_s, 2), "failure": failure}
    lines.append(f"package {name}: MuComboClassifier(random_state={seed}) {len(mc.estimators_)} rounds, {fit_s:.1f}s"
                 + (f"; {failure}" if failure else ""))
    np.savez_compressed(out_dir / "package" / f"{name}.npz", **out)
    assert "csrepro" not in sys.modules, "the package step must not import csrepro"
    return meta, lines


def step_package(args) -> None:
    from concurrent.futures import ProcessPoolExecutor
    from importlib.metadata import version

    from multimodal.boosting import combo as mucombo_module

    assert "csrepro" not in sys.modules, "the package step must not import csrepro"
    (args.out / "package").mkdir(parents=True, exist_ok=True)
    info = {"n_estimators": args.n_estimators, "max_depth": args.max_depth, "tree_seeds": list(args.tree_seeds),
            "python": platform.python_version(), "sets": {},
            "versions": {dist: version(dist) for dist in ("scikit-multimodallearn", "scikit-learn", "numpy", "scipy",
                                                          "cvxopt")}}
    combo_file = Path(mucombo_module.__file__)
    info["mucombo_file"] = str(combo_file)
    info["mucombo_file_relative"] = "multimodal/boosting/combo.py"
    info["normalisation_lines"] = quote_lines(combo_file, NORMALISATION_MARKERS)
    # the largest sets first, so that the pool's workers finish together
    order = sorted(args.datasets, key=lambda n: -np.load(args.out / "data" / f"{n}.npz")["X_train"].size)
    jobs = (args.out, args.n_estimators, args.max_depth, args.tree_seeds)
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {name: pool.submit(_package_set, name, *jobs) for name in order}
            results = {name: f.result() for name, f in futures.items()}
    else:
        results = {name: _package_set(name, *jobs) for name in order}
    for name in args.datasets:
        meta, lines = results[name]
        for line in lines:
            log(line)
        info["sets"][name] = meta
    (args.out / "package" / "info.json").write_text(json.dumps(info, indent=1))


# ----- step 2: compare (project venv) ------------------------------------------------------------------------------
def _staged(est, X):
    return np.array(list(est.staged_predict(X)), dtype=np.int8)


def _weak_preds(est, X):
    return np.array([np.argmax(tree.predict(X), axis=1) for tree in est.estimators_], dtype=np.int8)


def _metrics(z, pred, scores, n_classes):
    from csrepro.metrics import g_mean

    return {"accuracy": float(np.mean(z == pred)), "gmean": g_mean(z, np.asarray(pred, dtype=np.int64), n_classes),
            "mauc": hand_till_mauc(z, scores)}


def compare_set(name, d, pkg, T, depth) -> dict:
    from csrepro.boosting.combo import AdaBoostMMClassifier, CoMBoClassifier

    Xtr, ztr, Xte, zte = d["X_train"], d["z_train"], d["X_test"], d["z_test"]
    K = len(d["classes"])
    res = {"train": int(len(ztr)), "test": int(len(zte)), "classes": K}
    kw = dict(n_estimators=T, max_depth=depth, weak_learner="weighted", step="approx", max_bins=None)

    # AdaBoost.MM vs MumboClassifier (one view)
    t0 = time.perf_counter()
    mm = AdaBoostMMClassifier(**kw).fit(Xtr, ztr)
    res["adaboost_mm_fit_s"] = round(time.perf_counter() - t0, 2)
    weak = _weak_preds(mm, Xtr)
    p0, p1 = f"mumbo{pkg['seeds'][0]}", f"mumbo{pkg['seeds'][1]}" if len(pkg["seeds"]) > 1 else None
    first = first_divergence(weak, pkg[f"{p0}_weak"])
    res["mm_rounds"] = int(mm.n_estimators_)
    res["mumbo_rounds"] = int(len(pkg[f"{p0}_alphas"]))
    res["mm_first_divergence"] = first
    res["mumbo_alpha_after_stop"] = (float(pkg[f"{p0}_alphas"][mm.n_estimators_])
                                     if mm.n_estimators_ < len(pkg[f"{p0}_alphas"]) else None)
    res["mm_alpha"] = alpha_agreement(mm.alphas_, pkg[f"{p0}_alphas"], before=first)
    frac = staged_agreement(_staged(mm, Xtr), pkg[f"{p0}_staged_train"])
    res["mm_staged_train"] = agreement_summary(frac)
    res["mm_staged_train_per_round"] = frac.tolist()
    res["mm_test_pred_agreement"] = float(np.mean(mm.predict(Xte) == pkg[f"{p0}_test_pred"]))
    res["mm_test"] = {"csrepro": _metrics(zte, mm.predict(Xte), mm.predict_proba(Xte), K),
                      "package": _metrics(zte, pkg[f"{p0}_test_pred"], pkg[f"{p0}_test_scores"], K)}
    structure = dict.fromkeys(("same_split", "other_threshold", "other_feature", "pure_split_a", "pure_split_b",
                               "leaf_vs_split", "other_partition"), 0)
    for t in range(res["mm_alpha"]["rounds_before"]):  # the rounds with the same weights on both sides
        for key, n in structure_differences(Xtr, ztr, csrepro_tree(mm.estimators_[t]), stored_tree(pkg, p0, t)).items():
            structure[key] += n
    res["mm_structure"] = structure
    diff = np.abs(mm.alphas_[:res["mm_alpha"]["rounds"]] - pkg[f"{p0}_alphas"][:res["mm_alpha"]["rounds"]])
    res["mm_alpha_first_above_1e-9"] = first_above(diff, 1e-9)
    res["mm_alpha_abs_diff_per_round"] = diff.tolist()
    # the package's own weights (its cancelling diagonal) vs the exact ones, along the package's trajectory
    disc = weight_discrepancy(pkg[f"{p0}_weak"], pkg[f"{p0}_alphas"], ztr, K)
    res["pkg_weight_rel_error_per_round"] = disc.tolist()
    res["pkg_weight_rel_error_first_above_1e-6"] = first_above(disc, 1e-6)
    if first is not None:
        t = first - 1
        w = boost_weights(weak[:t], mm.alphas_[:t], ztr, K)
        with np.errstate(invalid="ignore", divide="ignore"):
            w_pkg = package_weights(pkg[f"{p0}_weak"][:t], pkg[f"{p0}_alphas"][:t], ztr, K)
        res["mm_weights_max_rel_diff_at_divergence"] = float(np.max(np.abs(w - w_pkg) / w))
        args = (Xtr, ztr)
        trees = (csrepro_tree(mm.estimators_[t]), stored_tree(pkg, p0, t), weak[t], pkg[f"{p0}_weak"][t])
        res["mm_cause"] = diagnose_divergence(*args, w, K, *trees)
        if np.all(np.isfinite(w_pkg)):
            res["mm_cause_package_weights"] = diagnose_divergence(*args, w_pkg, K, *trees)
    if p1 is not None:  # the package against itself with another tree seed: its own tie-breaking
        own = first_divergence(pkg[f"{p0}_weak"], pkg[f"{p1}_weak"])
        res["mumbo_seed_first_divergence"] = own
        if own is not None:
            t = own - 1
            w = boost_weights(pkg[f"{p0}_weak"][:t], pkg[f"{p0}_alphas"][:t], ztr, K)
            res["mumbo_seed_cause"] = diagnose_divergence(Xtr, ztr, w, K, stored_tree(pkg, p0, t),
                                                          stored_tree(pkg, p1, t), pkg[f"{p0}_weak"][t],
                                                          pkg[f"{p1}_weak"][t])

    # CoMBo (the paper's m_{y_i}) vs MuComboClassifier (column m_l, class weights beta)
    t0 = time.perf_counter()
    cb = CoMBoClassifier(**kw).fit(Xtr, ztr)
    res["combo_fit_s"] = round(time.perf_counter() - t0, 2)
    cweak = _weak_preds(cb, Xtr)
    res["combo_rounds"] = int(cb.n_estimators_)
    res["mucombo_rounds"] = int(len(pkg["mucombo_alphas"]))
    res["combo_first_divergence"] = first_divergence(cweak, pkg["mucombo_weak"])
    if res["combo_first_divergence"] == 1:  # round 1: the same weights, proportional to 1 / m_{y_i}, on both sides
        w = boost_weights(cweak[:0], cb.alphas_[:0], ztr, K, class_weighted=True)
        res["combo_round1_cause"] = diagnose_divergence(Xtr, ztr, w, K, csrepro_tree(cb.estimators_[0]),
                                                        stored_tree(pkg, "mucombo", 0), cweak[0],
                                                        pkg["mucombo_weak"][0])
    res["mucombo_distinct_trees"] = int(len({h.tobytes() for h in pkg["mucombo_weak"]}))
    betas, mweak = pkg["mucombo_betas"], pkg["mucombo_weak"].astype(np.intp)
    # the vote weight alpha_t beta_t(h_t(x_i)) of rounds 2..T relative to alpha_t: beta at the predicted classes
    res["mucombo_mean_beta_predicted"] = (float(np.mean(np.take_along_axis(betas[1:], mweak[1:], axis=1)))
                                          if len(mweak) > 1 else None)
    res["combo_distinct_trees"] = int(len({h.tobytes() for h in cweak}))
    res["combo_alpha1"] = [float(cb.alphas_[0]), float(pkg["mucombo_alphas"][0])]
    res["mucombo_negative_alphas"] = int(np.sum(pkg["mucombo_alphas"] <= 0))
    res["combo_staged_train"] = agreement_summary(staged_agreement(_staged(cb, Xtr), pkg["mucombo_staged_train"]))
    res["combo_test_pred_agreement"] = float(np.mean(cb.predict(Xte) == pkg["mucombo_test_pred"]))
    res["combo_test"] = {"csrepro": _metrics(zte, cb.predict(Xte), cb.predict_proba(Xte), K),
                         "package": _metrics(zte, pkg["mucombo_test_pred"], pkg["mucombo_test_scores"], K)}
    return res


def _fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def mm_cause_line(r: dict) -> str:
    """The cause of AdaBoost.MM's first divergence from MumboClassifier, with the package's own weights when they
    are not the exact ones."""
    d = r.get("mm_cause")
    if not d:
        return "-"
    line = describe_cause(d)
    wd = r.get("mm_weights_max_rel_diff_at_divergence")
    if wd is not None and wd > 1e-6:
        line += (f".  The package's weights there differ from the exact ones by up to {wd:.1e} (relative; its "
                 "cancelling D(i, y_i))")
        if r.get("mm_cause_package_weights"):
            line += "; with them: " + describe_cause(r["mm_cause_package_weights"])
    return line


def findings(results: dict, T: int) -> list[str]:
    """Summary bullet points computed from the comparisons (T: the rounds asked for)."""
    if not results:
        return []
    same = [n for n, r in results.items() if r["mm_first_divergence"] is None]
    out = []
    if same:
        worst = max(results[n]["mm_alpha"]["max_abs_diff"] for n in same)
        out.append(f"- AdaBoost.MM (`weighted`, `max_bins=None`) and MumboClassifier (one view) grow the same tree in "
                   f"every common round on {len(same)} of {len(results)} sets ({', '.join(same)}): identical "
                   f"training predictions of every h_t and of the ensemble after every round, max |Δα_t| "
                   f"{worst:.1e}.")
    for n, r in results.items():
        if r["mm_first_divergence"] is not None:
            sm = r["mm_staged_train"]
            agree = ("on every row in every common round" if sm["min"] == 1.0 else
                     f"on at least {sm['min']:.1%} of the rows in every round ({sm['rounds_equal']} of "
                     f"{sm['rounds']} rounds identical)")
            out.append(f"- {n}: the trees first differ at round {r['mm_first_divergence']}: {mm_cause_line(r)}; "
                       f"max |Δα_t| before it {r['mm_alpha']['max_abs_diff_before']:.1e}; afterwards the ensembles' "
                       f"training predictions still agree {agree}, test predictions at T "
                       f"{r['mm_test_pred_agreement']:.1%} equal.")
    for n, r in results.items():
        if r["mm_rounds"] < r["mumbo_rounds"]:
            out.append(f"- {n}: csrepro's AdaBoost.MM stops after round {r['mm_rounds']} (its rule: the next tree's "
                       f"edge is <= 0); MumboClassifier goes on with alpha_t = "
                       f"{r['mumbo_alpha_after_stop']:.2g} (<= 0) at round {r['mm_rounds'] + 1} and to round "
                       f"{r['mumbo_rounds']}; the comparison covers the common rounds.")
    st = {k: sum(r["mm_structure"][k] for r in results.values()) for k in next(iter(results.values()))["mm_structure"]}
    out.append(f"- Same training predictions do not mean the same trees: over the rounds before any divergence, of the "
               f"{st['same_split'] + st['other_threshold'] + st['other_feature']} node pairs that split the same "
               f"rows the same way, {st['other_threshold']} use the same feature with another threshold (csrepro: "
               "the midpoint between neighbouring values of the whole training set, its bins; scikit-learn: between "
               f"the node's own neighbouring values) and {st['other_feature']} another feature; csrepro also makes "
               f"{st['pure_split_a']} zero-gain splits of one-class nodes that scikit-learn leaves as leaves (no "
               "prediction changes).  Test rows between the two thresholds go to different sides, hence test "
               "predictions that differ where the training trajectories are identical.")
    for n, r in results.items():
        fail = r["package_fit_s"].get(f"mumbo{r['seeds'][0]}", {}).get("failure")
        if fail:
            out.append(f"- {n}: MumboClassifier {fail}: all its diagonal costs D(i, y_i) cancelled to 0 (computed "
                       "as exp(0) - sum_l exp(f(i, l) - f(i, y_i)); see `package_weights`), so its sample weights "
                       "were 0/0.")
        late = r.get("pkg_weight_rel_error_first_above_1e-6")
        if late is not None:
            out.append(f"- {n}: the package's sample weights are off the exact L(i)/L by more than 1e-6 (relative) "
                       f"from round {late} on (the same cancellation, as training margins grow).")
    stalled = [f"{n} ({r['mucombo_distinct_trees']} trees, mean beta {r['mucombo_mean_beta_predicted']:.2g})"
               for n, r in results.items() if r["mucombo_distinct_trees"] < 10]
    if stalled:
        out.append("- MuComboClassifier with one view stalls on " + ", ".join(stalled) + ": few distinct trees in "
                   f"{T} rounds, and the mean over rounds 2..T and training rows of beta_t at the class h_t "
                   "predicts (the share of alpha_t its vote gets; 1/K would be neutral) is near 0.  Its beta "
                   "program gives the predicted classes almost no weight, so scores and costs hardly move and the "
                   "same tree is refitted; the scores stay mostly round 1's alpha_1 beta_1 (alpha_1 < 0 where the "
                   "column-normalised edge is negative), hence its poor test metrics below.  CoMBo has no beta.")
    return out


def render_report(results: dict, info: dict, data_meta: dict, command: str, timings: dict,
                  out: str = "results/crosscheck_combo") -> str:
    """The markdown report of :func:`step_compare` (``out``: the output folder, as the report names it)."""
    T, depth = info["n_estimators"], info["max_depth"]
    v = info["versions"]
    merged = sum(m.get("float32_merged_values", 0) for m in data_meta["sets"].values())
    lines = [
        "# CoMBo / AdaBoost.MM cross-check against scikit-multimodallearn",
        "",
        f"Generated by `experiments/combo/crosscheck_combo.py compare` on {datetime.date.today().isoformat()}; command: "
        f"`{command}`.  Full output (logs, per-round arrays, `compare.json`): the git-ignored `{out}/`"
        ".  Do not edit by hand: rerun the command.",
        "",
        "## Findings",
        "",
        *findings(results, T),
        "",
        "## Setup",
        "",
        f"- Package side (own venv `.venv-crosscheck`, Python {info['python']}): scikit-multimodallearn "
        f"{v.get('scikit-multimodallearn')}, scikit-learn {v.get('scikit-learn')}, numpy {v.get('numpy')}, "
        f"scipy {v.get('scipy')}, cvxopt {v.get('cvxopt', '?')}.  It never imports csrepro (and the package cannot "
        "be imported beside the project's scikit-learn: `from sklearn.tree._tree import DTYPE` fails there).",
        f"- Project side (`.venv`, Python {platform.python_version()}): csrepro, scikit-learn "
        f"{_version('scikit-learn')}, numpy {np.__version__}.",
        f"- T = {T} rounds, trees of depth {depth} on both sides: `MumboClassifier(estimator="
        f"DecisionTreeClassifier(max_depth={depth}), n_estimators={T}, random_state=s)` with one view "
        "(`views_ind=[0, d]`), tree seeds s = " + ", ".join(str(s) for s in info["tree_seeds"]) + " (the first is "
        "compared; the second only measures the package's own tie-breaking: scikit-learn visits the features in a "
        "random order and keeps the first of equally good splits), and `MuComboClassifier` likewise "
        f"(s = {info['tree_seeds'][0]}); csrepro `AdaBoostMMClassifier` / `CoMBoClassifier(n_estimators={T}, "
        f"max_depth={depth}, weak_learner=\"weighted\", step=\"approx\", max_bins=None)` (exact thresholds; ties: "
        "the lowest feature).",
        f"- One stratified {1 - data_meta['test_size']:.0%}/{data_meta['test_size']:.0%} split per set "
        f"(seed {data_meta['split_seed']}); X rounded to float32 for both sides (scikit-learn's trees work in float32; "
        f"the rounding merged {merged} distinct feature values in all, so both sides see the same partitions); "
        "satimage: UCI's training and test files pooled (6435 rows, as the paper's Table 1).",
    ]
    c4 = data_meta["sets"].get("connect4")
    if c4 is not None:
        lines.append(f"- connect4: {c4['rows']} of {c4['rows_total']} rows" + (
            " (all)." if c4["rows"] == c4["rows_total"] else
            " (a stratified subsample, for time: the package's MuCombo takes about 4 minutes on all of them; "
            "`XC_ARGS=\"--connect4-rows 0\"` runs all)."))
    lines += [
        "- MAUC (Hand & Till) from each model's per-class scores: csrepro's `predict_proba`, the package's "
        "`decision_function` (MuCombo's alpha*beta votes do not sum to 1 per row; MAUC is rank-based per class).",
        "",
        "## AdaBoost.MM (`weighted`) vs MumboClassifier (one view), round by round",
        "",
        "h_t: the round's tree, compared by its predictions on the training rows; \"first h_t divergence\": the "
        "first round whose trees predict differently on some training row (before it both sides have the same "
        "weights up to rounding); max |Δα| before it, and over all common rounds; staged: the fraction of equal "
        "ensemble predictions on the training rows after each round (min / mean / at the last round; rounds with "
        "100 %); \"pkg weights exact until\": the last round before the package's own sample weights are more than "
        "1e-6 (relative) off L(i)/L.",
        "",
        "| set | train | K | rounds csrepro / pkg | first h_t divergence | max abs Δα before | max abs Δα all | "
        "staged min / mean / last | rounds 100 % | test pred. equal | pkg weights exact until | "
        "pkg seed 0 vs 1: first divergence |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        a, s = r["mm_alpha"], r["mm_staged_train"]
        late = r.get("pkg_weight_rel_error_first_above_1e-6")
        lines.append(
            f"| {name} | {r['train']} | {r['classes']} | {r['mm_rounds']} / {r['mumbo_rounds']} | "
            f"{r['mm_first_divergence'] or 'none'} | "
            f"{_fmt(a['max_abs_diff_before'], '.1e')} | {_fmt(a['max_abs_diff'], '.3g')} | "
            f"{s['min']:.3f} / {s['mean']:.3f} / {s['last']:.3f} | {s['rounds_equal']}/{s['rounds']} | "
            f"{r['mm_test_pred_agreement']:.3f} | {late - 1 if late else 'all'} | "
            f"{r.get('mumbo_seed_first_divergence') or 'none'} |")
    lines += ["", "Cause of the first divergence, diagnosed on the training rows with that round's weights (both trees "
              "walked from the root into the first node whose rows they split differently; \"tie\": the two splits' "
              f"weighted Gini gains agree within {TIE_RTOL:g} of the node's weight):", "",
              "| set | round | csrepro vs package | package seed 0 vs seed 1 |", "|---|---|---|---|"]
    for name, r in results.items():
        lines.append(f"| {name} | {r['mm_first_divergence'] or '-'} | {mm_cause_line(r)} | "
                     f"round {r.get('mumbo_seed_first_divergence') or '-'}: "
                     f"{describe_cause(r.get('mumbo_seed_cause'))} |")
    lines += ["", "Tree structure, summed over the rounds before the first divergence (node pairs holding the same "
              "training rows; `structure_differences`): same split / same partition, other threshold / same "
              "partition, other feature / one-class node split only by csrepro / only by the package / impure node "
              "split by one only / other partition:", "",
              "| set | same | other threshold | other feature | pure split csrepro | pure split pkg | leaf vs split | "
              "other partition |", "|---|---|---|---|---|---|---|---|"]
    for name, r in results.items():
        m = r["mm_structure"]
        lines.append(f"| {name} | {m['same_split']} | {m['other_threshold']} | {m['other_feature']} | "
                     f"{m['pure_split_a']} | {m['pure_split_b']} | {m['leaf_vs_split']} | {m['other_partition']} |")
    lines += ["", "Test metrics at T (csrepro / package):", "",
              "| set | accuracy | G-mean | MAUC |", "|---|---|---|---|"]
    for name, r in results.items():
        c, p = r["mm_test"]["csrepro"], r["mm_test"]["package"]
        lines.append(f"| {name} | {c['accuracy']:.3f} / {p['accuracy']:.3f} | {c['gmean']:.3f} / {p['gmean']:.3f} "
                     f"| {c['mauc']:.3f} / {p['mauc']:.3f} |")
    lines += [
        "",
        "## CoMBo (paper, D(i, l) / m_{y_i}) vs MuComboClassifier (one view)",
        "",
        "Not the same algorithm: the package divides D(i, l) by the size of the column's class l (quoted below) and "
        "weights each vote by a per-class beta_{t,c} from a cvxopt program (sum_c beta_{t,c} = 1); its alpha_t "
        "comes from the edge on that column-normalised cost, and it never stops (alpha_t <= 0 allowed).  Round 1 "
        "has the same tree weights on both sides (-D_1(i, y_i) = (K-1)/m_{y_i}), so the first trees agree up to "
        "ties.  Test metrics at T; Δ = CoMBo - MuCombo; \"trees\": distinct trees (by training predictions) among "
        "the rounds.",
        "",
        "| set | G-mean CoMBo / MuCombo (Δ) | MAUC CoMBo / MuCombo (Δ) | accuracy CoMBo / MuCombo (Δ) | "
        "test pred. equal | α_1 CoMBo / MuCombo | first h_t divergence | rounds CoMBo / MuCombo (α ≤ 0) | "
        "trees CoMBo / MuCombo |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    deltas = {"gmean": [], "mauc": [], "accuracy": []}
    for name, r in results.items():
        c, p = r["combo_test"]["csrepro"], r["combo_test"]["package"]
        cells = []
        for m in ("gmean", "mauc", "accuracy"):
            deltas[m].append(c[m] - p[m])
            cells.append(f"{c[m]:.3f} / {p[m]:.3f} ({c[m] - p[m]:+.3f})")
        a1 = r["combo_alpha1"]
        div = r["combo_first_divergence"] or "none"
        if r.get("combo_round1_cause"):
            div = f"1 ({describe_cause(r['combo_round1_cause'])})"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {r['combo_test_pred_agreement']:.3f} | "
                     f"{a1[0]:.3f} / {a1[1]:.3f} | {div} | "
                     f"{r['combo_rounds']} / {r['mucombo_rounds']} ({r['mucombo_negative_alphas']}) | "
                     f"{r['combo_distinct_trees']} / {r['mucombo_distinct_trees']} |")
    if results:
        lines += ["", "Over the sets: " + "; ".join(
            f"{m} mean Δ {np.mean(d):+.3f}, mean |Δ| {np.mean(np.abs(d)):.3f}, max |Δ| {np.max(np.abs(d)):.3f}"
            for m, d in (("G-mean", deltas["gmean"]), ("MAUC", deltas["mauc"]), ("accuracy", deltas["accuracy"])))
            + f" ({len(results)} sets, one split each: single-split differences, no significance test)."]
    lines += ["", "## The package's MuCombo normalisation (quoted)", "",
              f"Installed file `{info['mucombo_file']}` (in the wheel: `{info['mucombo_file_relative']}`), "
              f"scikit-multimodallearn {v.get('scikit-multimodallearn')}:", ""]
    for q in info["normalisation_lines"]:
        lines.append(f"- line {q['line']}: `{q['text']}`")
    lines += ["", "In `_init_var`, the first divides every column l of the initial cost by n_l = m_l and the second "
              "multiplies the diagonal by -(K-1) (-(K-1)/m_{y_i}); in `_compute_cost`, the others divide "
              "exp(f(i, l) - f(i, y_i)) by `n_yi_[l]`, broadcast over the last (class, column) axis: D(i, l) / m_l.  The paper's eq. (13) and csrepro's "
              "`CoMBoClassifier` divide the whole row by m_{y_i} (the row's class).  (The second of those lines "
              "computes `score_function_dif`, the input of the beta program, with the same normalisation.)", "",
              "## Timing", "", f"Wall seconds of the last run of each step on this machine ({_cores()}); the "
              "compare step's figure is up to the report (it fits csrepro's models).", "",
              "| step | seconds |", "|---|---|"]
    for step, s in timings.items():
        lines.append(f"| {step} | {s:.1f} |")
    return "\n".join(lines) + "\n"


def _cores() -> str:
    import os

    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{n} cores available"


def _version(dist):
    from importlib.metadata import version

    return version(dist)


def step_compare(args) -> None:
    info = json.loads((args.out / "package" / "info.json").read_text())
    data_meta = json.loads((args.out / "data" / "meta.json").read_text())
    T, depth = info["n_estimators"], info["max_depth"]
    if (T, depth) != (args.n_estimators, args.max_depth):
        log(f"note: using the package step's T = {T}, depth = {depth}")
    results = {}
    for name in args.datasets:
        if name not in info["sets"]:
            log(f"compare {name}: skipped (not in the package step's output)")
            continue
        d = np.load(args.out / "data" / f"{name}.npz")
        pkg = dict(np.load(args.out / "package" / f"{name}.npz"))
        pkg["seeds"] = info["tree_seeds"]
        t0 = time.perf_counter()
        r = compare_set(name, d, pkg, T, depth)
        r["package_fit_s"] = info["sets"][name]
        r["seeds"] = info["tree_seeds"]
        results[name] = r
        log(f"compare {name} ({time.perf_counter() - t0:.1f}s): AdaBoost.MM vs Mumbo first h_t divergence "
            f"{r['mm_first_divergence']}, max|dalpha| before {r['mm_alpha']['max_abs_diff_before']:.2e}, staged "
            f"agreement min {r['mm_staged_train']['min']:.3f} last {r['mm_staged_train']['last']:.3f}; cause: "
            f"{describe_cause(r.get('mm_cause'))}; pkg seeds diverge at {r.get('mumbo_seed_first_divergence')}: "
            f"{describe_cause(r.get('mumbo_seed_cause'))}")
        c, p = r["combo_test"]["csrepro"], r["combo_test"]["package"]
        log(f"compare {name}: CoMBo vs MuCombo G-mean {c['gmean']:.3f}/{p['gmean']:.3f} MAUC {c['mauc']:.3f}/"
            f"{p['mauc']:.3f} acc {c['accuracy']:.3f}/{p['accuracy']:.3f}; first h_t divergence "
            f"{r['combo_first_divergence']}")
    timings = _record_timing(args.out, "compare", time.perf_counter() - args.t_start)
    install = ROOT / ".venv-crosscheck" / ".install_seconds"
    if install.exists():
        timings = {"crosscheck venv install (last time it ran)": float(install.read_text().split()[0]), **timings}
    (args.out / "compare.json").write_text(json.dumps(results, indent=1, default=float))
    if args.report:
        command = args.command or "make crosscheck-combo"
        args.report.parent.mkdir(parents=True, exist_ok=True)
        out = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
        args.report.write_text(render_report(results, info, data_meta, command, timings, str(out)))
        log(f"wrote {args.report}")


# ----- command line -------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=("data", "package", "compare"))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (git-ignored)")
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated dataset ids")
    ap.add_argument("--n-estimators", type=int, default=N_ESTIMATORS)
    ap.add_argument("--max-depth", type=int, default=MAX_DEPTH)
    ap.add_argument("--test-size", type=float, default=TEST_SIZE)
    ap.add_argument("--split-seed", type=int, default=SPLIT_SEED)
    ap.add_argument("--tree-seeds", default=",".join(str(s) for s in TREE_SEEDS))
    ap.add_argument("--connect4-rows", type=int, default=CONNECT4_ROWS, help="0: all rows")
    ap.add_argument("--jobs", type=int, default=JOBS, help="package step: sets fitted in parallel processes")
    ap.add_argument("--report", type=Path, default=DEFAULT_REPORT, help="markdown report of the compare step")
    ap.add_argument("--command", default=None, help="the command to name in the report")
    args = ap.parse_args(argv)
    args.datasets = [s for s in args.datasets.split(",") if s]
    args.tree_seeds = [int(s) for s in args.tree_seeds.split(",") if s]
    args.out = args.out.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    _LOG.append(args.out / f"{args.step}.log")
    (args.out / f"{args.step}.log").write_text("")
    args.t_start = time.perf_counter()
    {"data": step_data, "package": step_package, "compare": step_compare}[args.step](args)
    seconds = time.perf_counter() - args.t_start
    _record_timing(args.out, args.step, seconds)
    log(f"{args.step}: {seconds:.1f}s")
    return 0


def _record_timing(out: Path, step: str, seconds: float) -> dict:
    """Merge {step: seconds} into <out>/timings.json; the merged timings."""
    path = out / "timings.json"
    timings = json.loads(path.read_text()) if path.exists() else {}
    timings[step] = round(seconds, 1)
    path.write_text(json.dumps(timings, indent=1))
    return timings


if __name__ == "__main__":
    sys.exit(main())
