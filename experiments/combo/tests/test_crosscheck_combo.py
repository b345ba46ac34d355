"""experiments/combo/crosscheck_combo.py: the comparison functions of its compare step, on synthetic inputs.

No network and no crosscheck venv: the package's outputs are stood in for by arrays built here (or by csrepro's
own fits, which must then agree with themselves everywhere)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from csrepro.boosting.combo import AdaBoostMMClassifier, CoMBoClassifier, class_weights, mm_cost_matrix
from csrepro.metrics import mauc

SCRIPT = Path(__file__).resolve().parents[1] / "crosscheck_combo.py"


@pytest.fixture(scope="module")
def xc():
    spec = importlib.util.spec_from_file_location("crosscheck_combo", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _stump(feature, threshold):
    return {"feature": np.array([feature, -1, -1]), "threshold": np.array([threshold, np.nan, np.nan]),
            "left": np.array([1, -1, -1]), "right": np.array([2, -1, -1])}


def test_module_imports_nothing_of_csrepro_at_top_level():
    """The package step runs the script in a venv without csrepro: csrepro may only be imported inside steps."""
    import ast

    tree = ast.parse(SCRIPT.read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top for a in n.names] + [n.module for n in top if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n and n.startswith(("csrepro", "sklearn", "multimodal"))]


def test_first_divergence_and_alpha_agreement(xc):
    a = np.array([[0, 1, 2], [1, 1, 0], [2, 2, 2]])
    b = a.copy()
    assert xc.first_divergence(a, b) is None
    b[1, 2] = 1
    assert xc.first_divergence(a, b) == 2
    assert xc.first_divergence(a, b[:1]) is None  # only common rounds count
    r = xc.alpha_agreement([1.0, 2.0, 3.0, 4.0], [1.0, 2.0 + 1e-12, 3.5], before=3)
    assert r["rounds"] == 3 and r["rounds_before"] == 2
    assert r["max_abs_diff"] == pytest.approx(0.5)
    assert r["max_abs_diff_before"] == pytest.approx(1e-12, rel=1e-3)
    assert np.isnan(xc.alpha_agreement([1.0], [2.0], before=1)["max_abs_diff_before"])


def test_staged_agreement_and_summary(xc):
    a = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]])
    b = np.array([[0, 0, 0, 0], [1, 1, 0, 0], [2, 2, 2, 1]])
    frac = xc.staged_agreement(a, b)
    np.testing.assert_allclose(frac, [1.0, 0.5, 0.75])
    s = xc.agreement_summary(frac)
    assert (s["min"], s["last"], s["rounds_equal"], s["rounds"], s["first_unequal"]) == (0.5, 0.75, 1, 3, 2)
    assert xc.agreement_summary([1.0, 1.0])["first_unequal"] is None


def test_boost_weights_are_the_cost_diagonal_of_csrepro(xc):
    """L_{t-1}(i) / L_{t-1} = -D(i, y_i) / sum_j -D(j, y_j), D of csrepro.boosting.combo.mm_cost_matrix (AdaBoost.MM)
    and with w_i = 1 / m_{y_i} (CoMBo)."""
    rng = np.random.default_rng(0)
    n, K, T = 40, 4, 6
    z = rng.integers(0, K, n)
    weak = rng.integers(0, K, (T, n))
    alphas = rng.uniform(0.1, 2.0, T)
    F = np.zeros((n, K))
    for h, a in zip(weak, alphas):
        F[np.arange(n), h] += a
    for cw, weights in ((False, None), (True, class_weights(z, K))):
        D = mm_cost_matrix(F, z, weights)
        want = -D[np.arange(n), z] / -D[np.arange(n), z].sum()
        np.testing.assert_allclose(xc.boost_weights(weak, alphas, z, K, class_weighted=cw), want, rtol=1e-12)
    np.testing.assert_allclose(xc.boost_weights(weak[:0], alphas[:0], z, K), np.full(n, 1.0 / n))


def test_package_weights_cancel_at_large_margins(xc):
    """The package's D(i, y_i) = 1 - (1 + sum_{l != y_i} ...) equals the exact weights at small margins and loses
    them when L(i) falls below the rounding of 1: examples with large margins get weight 0, all of them 0/0."""
    z = np.array([0, 1, 2, 0, 1, 2])
    small = np.array([[0, 1, 2, 1, 1, 0]])
    np.testing.assert_allclose(xc.package_weights(small, [0.7], z, 3), xc.boost_weights(small, [0.7], z, 3),
                               rtol=1e-12)
    right, wrong = z.copy(), (z + 1) % 3
    first = np.where(np.arange(6) < 3, right, wrong)  # rows 0-2: margin 40 (L(i) ~ 4e-18 < 1.1e-16); 3-5: -40
    weak, alphas = np.array([first, right]), [40.0, 1.0]
    w = xc.package_weights(weak[:1], alphas[:1], z, 3)
    assert np.all(w[:3] == 0.0) and np.all(w[3:] > 0)
    assert np.all(xc.boost_weights(weak[:1], alphas[:1], z, 3) > 0)
    disc = xc.weight_discrepancy(weak, alphas, z, 3)
    assert disc[0] < 1e-12 and disc[1] == pytest.approx(1.0)  # before round 2: rows 0-2 lost
    with np.errstate(invalid="ignore", divide="ignore"):
        assert np.all(np.isnan(xc.package_weights(np.array([right]), [40.0], z, 3)))
    assert np.isinf(xc.weight_discrepancy(np.array([right, right]), [40.0, 1.0], z, 3)[1])
    assert xc.first_above([0.0, 1e-9, 1e-3], 1e-6) == 3 and xc.first_above([0.0], 1e-6) is None


def test_hand_till_mauc_matches_csrepro_on_probabilities_and_takes_any_scale(xc):
    rng = np.random.default_rng(1)
    for K in (2, 3, 5):
        z = rng.integers(0, K, 200)
        z[:K] = np.arange(K)
        P = rng.dirichlet(np.ones(K), 200)
        P[np.arange(200), z] += 0.3 * rng.random(200)
        P /= P.sum(axis=1, keepdims=True)
        P = np.round(P, 2)  # ties
        P /= P.sum(axis=1, keepdims=True)
        assert xc.hand_till_mauc(z, P) == pytest.approx(mauc(z, P), abs=1e-12)
        assert xc.hand_till_mauc(z, 4.0 * P) == pytest.approx(mauc(z, P), abs=1e-12)  # exact scaling
    assert xc.hand_till_mauc([0, 0, 1, 1], [[1, 0], [1, 0], [0, 1], [0, 1]]) == 1.0


def test_diagnose_divergence_finds_a_tie_between_two_splits(xc):
    """Row 0 (class 0) alone vs row 3 (class 1) alone: the same Gini gain by symmetry, different predictions."""
    X = np.array([[0.0, 1.0], [1.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    z = np.array([0, 0, 1, 1])
    a, b = _stump(0, 0.5), _stump(1, 0.5)
    pred_a, pred_b = np.array([0, 1, 1, 1]), np.array([0, 0, 0, 1])
    d = xc.diagnose_divergence(X, z, np.full(4, 0.25), 2, a, b, pred_a, pred_b)
    assert d["kind"] == "split" and d["tie"] and d["depth"] == 0
    assert (d["feature_a"], d["feature_b"]) == (0, 1)
    assert d["gain_a"] == pytest.approx(d["gain_b"])
    assert "tie" in xc.describe_cause(d) and "NOT" not in xc.describe_cause(d)
    d = xc.diagnose_divergence(X, z, np.array([0.4, 0.2, 0.2, 0.2]), 2, a, b, pred_a, pred_b)
    assert d["kind"] == "split" and not d["tie"] and d["gain_a"] > d["gain_b"]
    assert "NOT a tie" in xc.describe_cause(d)
    assert xc.diagnose_divergence(X, z, np.full(4, 0.25), 2, a, a, pred_a, pred_a) == {"kind": "none"}


def test_diagnose_divergence_sees_swapped_children_leaf_labels_and_missing_splits(xc):
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    z = np.array([0, 1, 1, 1])
    a = _stump(0, 0.5)
    swapped = {"feature": np.array([0, -1, -1]), "threshold": np.array([0.5, np.nan, np.nan]),
               "left": np.array([2, -1, -1]), "right": np.array([1, -1, -1])}
    # left leaf {0, 1}: class weights 0.25 / 0.25, a tie; the trees label it 0 and 1
    d = xc.diagnose_divergence(X, z, np.full(4, 0.25), 2, a, swapped, np.array([0, 0, 1, 1]), np.array([1, 1, 1, 1]))
    assert d["kind"] == "leaf_label" and d["tie"] and d["depth"] == 1 and d["node_rows"] == 2
    leaf = {"feature": np.array([-1]), "threshold": np.array([np.nan]), "left": np.array([-1]),
            "right": np.array([-1])}
    d = xc.diagnose_divergence(X, z, np.full(4, 0.25), 2, leaf, a, np.ones(4, int), np.array([0, 0, 1, 1]))
    assert d["kind"] == "leaf_vs_split" and d["split_in"] == "b" and d["gain"] > 0 and not d["tie"]


def test_structure_differences_counts_thresholds_and_pure_splits(xc):
    X = np.array([[0.0, 5.0], [1.0, 5.0], [3.0, 6.0], [4.0, 6.0]])
    z = np.array([0, 0, 1, 1])
    # the same partition {0, 1} | {2, 3}: same threshold, another threshold, another feature
    assert xc.structure_differences(X, z, _stump(0, 2.0), _stump(0, 2.0))["same_split"] == 1
    assert xc.structure_differences(X, z, _stump(0, 2.0), _stump(0, 2.5))["other_threshold"] == 1
    assert xc.structure_differences(X, z, _stump(0, 2.0), _stump(1, 5.5))["other_feature"] == 1
    assert xc.structure_differences(X, z, _stump(0, 2.0), _stump(0, 0.5))["other_partition"] == 1
    deeper = {"feature": np.array([0, 0, -1, -1, -1]), "threshold": np.array([2.0, 0.5, np.nan, np.nan, np.nan]),
              "left": np.array([1, 3, -1, -1, -1]), "right": np.array([2, 4, -1, -1, -1])}
    s = xc.structure_differences(X, z, deeper, _stump(0, 2.0))
    assert (s["same_split"], s["pure_split_a"], s["pure_split_b"], s["leaf_vs_split"]) == (1, 1, 0, 0)


def test_quote_lines(xc, tmp_path):
    f = tmp_path / "m.py"
    f.write_text("a = 1\ncost[:, :, indice_class] /=   n_yi\nb = 2\n  x / self.n_yi_[np.newaxis, np.newaxis, :]\n")
    q = xc.quote_lines(f, xc.NORMALISATION_MARKERS)
    assert [r["line"] for r in q] == [2, 4] and q[0]["text"] == "cost[:, :, indice_class] /=   n_yi"


def _pad(tree, n_nodes):
    out = {}
    for key, fill in (("feature", -2), ("threshold", np.nan), ("left", -1), ("right", -1)):
        arr = np.full(n_nodes, fill, dtype=float if key == "threshold" else np.int64)
        arr[:len(getattr(tree, key))] = getattr(tree, key)
        out[key] = arr
    return out


def _stand_in_package(mm, cb, X, Xte, z, seeds, n_nodes):
    """Arrays laid out as the package step writes them, from csrepro's own fits."""
    pkg = {"seeds": seeds}
    for model, keys in ((mm, [f"mumbo{s}" for s in seeds]), (cb, ["mucombo"])):
        for p in keys:
            pkg[f"{p}_alphas"] = model.alphas_.copy()
            pkg[f"{p}_weak"] = np.array([np.argmax(t.predict(X), axis=1) for t in model.estimators_], dtype=np.int8)
            trees = [_pad(t, n_nodes) for t in model.estimators_]
            for key in ("feature", "threshold", "left", "right"):
                pkg[f"{p}_{key}"] = np.array([t[key] for t in trees])
            pkg[f"{p}_staged_train"] = np.array(list(model.staged_predict(X)), dtype=np.int8)
            pkg[f"{p}_test_pred"] = model.predict(Xte).astype(np.int8)
            pkg[f"{p}_test_scores"] = model.predict_proba(Xte)
    K = len(np.unique(z))
    pkg["mucombo_betas"] = np.full((len(cb.alphas_), K), 1.0 / K)
    pkg["mucombo_n_yi"] = np.bincount(z)
    return pkg


def test_compare_set_and_report_agree_when_the_package_is_csrepro(xc):
    """A stand-in package made of csrepro's own fits: every comparison must report full agreement, and the
    report renders every table."""
    rng = np.random.default_rng(2)
    n, K, T, depth = 150, 3, 8, 2
    X = np.round(rng.normal(size=(n + 50, 4)), 2)
    z = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 0.8)
    Xtr, ztr, Xte, zte = X[:n], z[:n], X[n:], z[n:]
    kw = dict(n_estimators=T, max_depth=depth, weak_learner="weighted", max_bins=None)
    mm, cb = AdaBoostMMClassifier(**kw).fit(Xtr, ztr), CoMBoClassifier(**kw).fit(Xtr, ztr)
    pkg = _stand_in_package(mm, cb, Xtr, Xte, ztr, [0, 1], 2 ** (depth + 1) - 1)
    d = {"X_train": Xtr, "z_train": ztr, "X_test": Xte, "z_test": zte, "classes": np.arange(K).astype(str)}
    r = xc.compare_set("toy", d, pkg, T, depth)
    assert r["mm_first_divergence"] is None and r["mumbo_seed_first_divergence"] is None
    assert r["combo_first_divergence"] is None
    assert r["mm_alpha"]["max_abs_diff"] == 0.0
    assert r["mm_staged_train"]["min"] == 1.0 and r["combo_staged_train"]["min"] == 1.0
    assert r["mm_test_pred_agreement"] == 1.0 and r["combo_test_pred_agreement"] == 1.0
    s = r["mm_structure"]
    assert s["same_split"] > 0 and sum(v for k, v in s.items() if k != "same_split") == 0
    for m in ("accuracy", "gmean", "mauc"):
        assert r["combo_test"]["csrepro"][m] == pytest.approx(r["combo_test"]["package"][m])
    assert r["pkg_weight_rel_error_first_above_1e-6"] is None  # small margins: the package's weights are exact
    r["package_fit_s"], r["seeds"] = {"mumbo0": {"failure": None}}, [0, 1]
    info = {"n_estimators": T, "max_depth": depth, "tree_seeds": [0, 1], "python": "3.11", "sets": {},
            "versions": {"scikit-multimodallearn": "0.1.0", "scikit-learn": "1.5.2", "numpy": "2", "scipy": "1",
                         "cvxopt": "1"},
            "mucombo_file": "/x/multimodal/boosting/combo.py", "mucombo_file_relative": "multimodal/boosting/combo.py",
            "normalisation_lines": [{"line": 223, "text": "cost[:, :, indice_class] /=   n_yi"}]}
    data_meta = {"test_size": 0.25, "split_seed": 0, "sets": {"toy": {"float32_merged_values": 0}}}
    text = xc.render_report({"toy": r}, info, data_meta, "make crosscheck-combo", {"data": 1.0})
    assert "| toy | 150 | 3 |" in text and "line 223: `cost[:, :, indice_class] /=   n_yi`" in text
    assert "grow the same tree in every common round on 1 of 1 sets" in text
    assert "| data | 1.0 |" in text
