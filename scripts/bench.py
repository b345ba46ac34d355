"""Speed of the hot kernels: CD-MCBoost (issue 3) and the SMO solver of the CS-SVM (issue 4).

Prints, for shuttle and pendigits (training files), seconds per boosting iteration (all M-1
coordinate steps) for each loss on both backends and their ratio, the ratio of the Cython
iteration to one LightGBM multiclass round of comparable work (K depth-1 trees, 200 bins,
one thread like our kernels), and the recorded wall time of ``make reproduce-guess-averse``;
then the SMO solver against scikit-learn's SVC (LIBSVM) on the same dual (pima, wdbc, german;
RBF kernel, C = 1, same stopping tolerance), kernel matrix precomputed for both.
Writes the same tables to results/BENCH.md.  ``--only mcboost`` prints the first table (CD-MCBoost)
alone, ``--only binary`` the binary engine's; either writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from functools import partial
from pathlib import Path

import numpy as np

from csrepro._kernels.backend import use_backend
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.cache import clear_caches
from csrepro.costs import random_symmetric
from csrepro.data.loaders import load_dataset

ROOT = Path(__file__).resolve().parents[1]
LOSSES = ["gll", "gel", "mcboost", "ls", "lt"]
ITERS = {"cython": 20, "numpy": 3}


def mcboost_seconds(X, y, C, loss, backend, m):
    """Seconds of one CD-MCBoost fit of ``m`` iterations (the fit cache cleared: a real training)."""
    clear_caches("mcboost_fits")
    with use_backend(backend):
        return seconds(lambda: MCBoostClassifier(loss=loss, cost_matrix=C, n_estimators=m).fit(X, y))


def lightgbm_seconds(X, y, rounds):
    """Seconds of one LightGBM multiclass fit of ``rounds`` rounds, depth-1 trees, 200 bins, one thread."""
    import lightgbm as lgb

    return seconds(lambda: lgb.LGBMClassifier(objective="multiclass", n_estimators=rounds, max_depth=1, num_leaves=2,
                                              max_bin=200, min_child_samples=1, n_jobs=1, verbose=-1).fit(X, y))


def per_iteration(one, more, iters, repeats=5):
    """Seconds per iteration, (least of ``more`` - least of ``one``) / ``iters``, for each pair of samplers
    (fits of 1 and of 1 + ``iters`` iterations), all timed in turns.  The least of each fit's times, not of
    their differences: the least of a difference picks the repeat where the short fit was slowest, and so
    understates an iteration's time."""
    t = least_interleaved([*one, *more], repeats)
    return [(b - a) / n for a, b, n in zip(t[:len(one)], t[len(one):], iters, strict=True)]


def seconds(fn, clock=time.perf_counter):
    """Seconds of one call of ``fn`` on ``clock`` (wall time; ``time.process_time`` for CPU time)."""
    t = clock()
    fn()
    return clock() - t


def least_interleaved(samplers, repeats=5):
    """The least of ``repeats`` measurements of each sampler, taken in turns (A B A B ...), so that the
    minima compared come from the same stretch of time; the least, not the median: on a shared machine
    the other processes only ever add time."""
    runs = [[] for _ in samplers]
    for _ in range(repeats):
        for sampler, out in zip(samplers, runs, strict=True):
            out.append(sampler())
    return [float(min(out)) for out in runs]


def smo_vs_libsvm(name):
    """(seconds of our SMO, seconds of SVC, n) on the standardised dataset, precomputed RBF kernel."""
    from sklearn.svm import SVC

    from csrepro.svm.cs_svm import dual_terms, kernel_matrix, solve_dual

    ds = load_dataset(name)
    X = (ds.X - ds.X.mean(0)) / np.where(ds.X.std(0) > 0, ds.X.std(0), 1.0)
    y = np.where(ds.y == np.unique(ds.y)[1], 1.0, -1.0)
    K = kernel_matrix("rbf", X, X, gamma=1.0 / X.shape[1])
    p, upper = dual_terms("svm", y, 1.0)

    def ours():
        solve_dual(K, y, p, upper, tol=1e-3)

    def libsvm():
        SVC(kernel="precomputed", C=1.0, tol=1e-3, cache_size=500).fit(K, y)

    ours_s, libsvm_s = least_interleaved([partial(seconds, ours), partial(seconds, libsvm)], repeats=3)
    return ours_s, libsvm_s, len(y)


def margin_boost_iteration(clf, X, y, iters=20):
    """Seconds per iteration of an issue-5 booster: :func:`per_iteration` of fits of 1 and 1 + ``iters``
    iterations, 3 repeats."""
    from sklearn.base import clone

    def fit(m):
        return lambda: seconds(lambda: clone(clf).set_params(n_estimators=m).fit(X, y))

    return per_iteration([fit(1)], [fit(iters + 1)], [iters], repeats=3)[0]


def margin_boost_rows():
    """Table rows: canonical GradientBoost, SavageBoost, TangentBoost per-iteration time on the ADULT training part."""
    from csrepro.boosting.margin import (
        CanonicalGradientBoostClassifier,
        SavageBoostClassifier,
        TangentBoostClassifier,
    )

    ds = load_dataset("adult")
    train = ~ds.predefined_test if ds.predefined_test is not None else slice(None)
    X, y = ds.X[train], ds.y[train]
    boosters = [("canonical_gradientboost (canonical_logistic)", CanonicalGradientBoostClassifier()),
                ("canonical_gradientboost (canonical_laplacian)", CanonicalGradientBoostClassifier(
                    loss="canonical_laplacian")),
                ("savageboost", SavageBoostClassifier()), ("tangentboost", TangentBoostClassifier())]
    shape = f"{X.shape[0]} x {X.shape[1]}"
    return [f"| {name} | {clf.weak_learner} | {shape} | {1e3 * margin_boost_iteration(clf, X, y):.2f} |"
            for name, clf in boosters]


def table_v2_selection(name):
    """Seconds for the 21 Table V.2 fits (3 SVMs x 7 rates, inner leave-one-out) on one outer training fold.

    Returns (shared, alone): the 21 fits in a row as the runner runs a trial group (kernel matrix
    and leave-one-out paths cached), and 7 x one fit per SVM with the caches cleared (no sharing).
    """
    from sklearn.model_selection import StratifiedKFold

    from csrepro.methods import DETECTION_RATES
    from csrepro.selection.svm import DetectionRateSVC

    ds = load_dataset(name)
    train, _ = next(StratifiedKFold(10, shuffle=True, random_state=0).split(ds.X, ds.y))
    X = (ds.X[train] - ds.X[train].mean(0)) / np.where(ds.X[train].std(0) > 0, ds.X[train].std(0), 1.0)
    y = ds.y[train]

    def fits(variants, rates, clear):
        for variant in variants:
            for rate in rates:
                if clear:
                    clear_caches("svm_paths", "svm_kernels")
                DetectionRateSVC(variant=variant, target_detection_rate=rate / 100).fit(X, y)

    alone = 7 * seconds(lambda: fits(("cs", "bp", "bm"), DETECTION_RATES[:1], True))
    clear_caches("svm_paths")
    return seconds(lambda: fits(("cs", "bp", "bm"), DETECTION_RATES, False)), alone


def adult_ordinal():
    """ADULT training part (30,162 x 14): the one-hot categorical columns folded back to integer codes."""
    ds = load_dataset("adult")
    X, train, groups = ds.X, ~ds.predefined_test, {}
    for i, name in enumerate(ds.feature_names):
        groups.setdefault(name.split("=")[0], []).append(i)
    cols = [X[train][:, idx].argmax(1) if len(idx) > 1 else X[train][:, idx[0]] for idx in groups.values()]
    return np.ascontiguousarray(np.column_stack(cols), dtype=np.float64), ds.y[train]


def _best_seconds(fit, repeats=5):
    """Least CPU time (process time, single-threaded code) of ``repeats`` runs: on a shared machine
    the wall time also counts other jobs' time slices."""
    return least_interleaved([partial(seconds, fit, clock=time.process_time)], repeats)[0]


BINARY_RUNS = [("AdaBoost", "stump", None), ("RealBoost", "histogram", None), ("LogitBoost", "stump", None),
               ("LogitBoost", "line", None), ("AdaBoost", "tree4", None), ("RealBoost", "tree4", None),
               ("LogitBoost", "tree4", None), ("AdaBoost", "stump", 255), ("AdaBoost", "tree4", 255),
               ("CSAdaBoost", "stump", None), ("CSAdaBoost", "tree4", None), ("CSAdaBoost", "stump", 255),
               ("CSAdaBoost", "tree4", 255)]  # max_bins
#: costs of the CSAdaBoost rows: C1 = 4 (a miss), C2 = 1, the middle of the thesis' grid (Sec. VI.E)
BINARY_COSTS = {"C1": 4.0, "C2": 1.0}
BINARY_HEADER = [
    "## Binary boosting engine on ADULT (training part, 30,162 x 14, categoricals as integer codes)", "",
    "CPU ms per boosting iteration (Cython / NumPy-reference histograms); fixed = validation + binning per fit; "
    "scikit-learn columns: one DecisionTreeClassifier fit with sample weights, one "
    "HistGradientBoostingClassifier round, same number of leaves, timed in turns with the row's Cython fits; "
    "CSAdaBoost with C1 = 4, C2 = 1.", "",
    "| booster | weak learner | max_bins | Cython ms/iter | NumPy ms/iter | NumPy/Cython | fixed ms | "
    "sklearn tree ms | sklearn HGB ms/round | Cython/HGB |", "|---|---|---|---|---|---|---|---|---|---|"]


def _binary_booster(name, **params):
    """The booster of a BINARY_RUNS row, ``params`` set (CSAdaBoost: with BINARY_COSTS)."""
    from csrepro.boosting import binary, cost_sensitive

    if name == "CSAdaBoost":
        return cost_sensitive.CSAdaBoostClassifier(**BINARY_COSTS, **params)
    return getattr(binary, f"{name}Classifier")(**params)


def binary_boosting_rows():
    """Table rows: ms per boosting iteration of the binary engine on ADULT, Cython vs NumPy histograms,
    next to scikit-learn fitting the same weak learner, one thread: DecisionTreeClassifier with sample
    weights (what its AdaBoost fits per iteration) and one HistGradientBoostingClassifier round (255 bins).
    A row's HGB round is timed in turns with its Cython fits (least of 5 each), so that its ratio compares one
    stretch of this shared machine's speed."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier
    from threadpoolctl import threadpool_limits

    X, y = adult_ordinal()
    w = np.full(len(y), 1.0 / len(y))

    def cpu(fn):
        return partial(seconds, fn, clock=time.process_time)

    def hgb(leaves, m):
        return cpu(lambda: HistGradientBoostingClassifier(max_iter=m, max_leaf_nodes=leaves,
                                                          early_stopping=False).fit(X, y))

    def fit(booster, wl, max_bins, backend, m):
        def run():
            clear_caches("binned_data")  # time the binning of every fit, not the cache
            with use_backend(backend):
                _binary_booster(booster, n_estimators=m, weak_learner=wl, max_bins=max_bins).fit(X, y)
        return cpu(run)

    rows, T, T_REF = [], 20, 5
    with threadpool_limits(1):
        trees = {leaves: 1e3 * _best_seconds(lambda: DecisionTreeClassifier(max_leaf_nodes=leaves).fit(
            X, y, sample_weight=w)) for leaves in (2, 4)}
        for booster, wl, max_bins in BINARY_RUNS:
            leaves = 4 if wl == "tree4" else 2
            one, many, hgb_one, hgb_many = least_interleaved(
                [fit(booster, wl, max_bins, "cython", 1), fit(booster, wl, max_bins, "cython", T + 1),
                 hgb(leaves, 1), hgb(leaves, T + 1)])
            ref_one, ref_many = least_interleaved([fit(booster, wl, max_bins, "numpy", 1),
                                                   fit(booster, wl, max_bins, "numpy", T_REF + 1)])
            cy, ref, rnd = 1e3 * (many - one) / T, 1e3 * (ref_many - ref_one) / T_REF, 1e3 * (hgb_many - hgb_one) / T
            ratio = "- (no histogram)" if wl == "line" else f"{ref / cy:.1f}x"
            rows.append(f"| {booster} | {wl} | {max_bins or 'all'} | {cy:.2f} | {ref:.2f} | {ratio} | "
                        f"{1e3 * one - cy:.0f} | {trees[leaves]:.2f} | {rnd:.2f} | {cy / rnd:.2f}x |")
    return rows


def training_codes(name):
    """(X, y, K) of dataset ``name``'s predefined training part, labels as class indices 0..K-1."""
    ds = load_dataset(name)
    train = ~ds.predefined_test
    X, y = ds.X[train], np.unique(ds.y[train], return_inverse=True)[1]
    return X, y, int(y.max()) + 1


def rebel_rows(names=("pendigits", "mnist"), T=None):
    """Table rows: seconds per round of REBEL (stumps and depth-4 trees, 200 evenly spaced thresholds) on the
    training part, Cython and NumPy backends, beside one LightGBM multiclass round (K trees) and one XGBoost
    round with one vector-leaf tree (multi_strategy="multi_output_tree") of the same depth, 200 bins, one
    thread (``num_threads`` / ``nthread`` 1).

    What is counted, the same for all three: a round is (t(T + 1) - t(1)) / T, t(m) the least of 3 wall times
    of training m rounds (REBEL's Cython backend and the peers measured in turns, after one warm-up each;
    T = 40 on small data (under 10^6 values), else 12 (a training's fixed costs vary by tenths of a second
    on MNIST); the NumPy backend with max(2, T / 10) rounds, least of 3 on small data, else of 2).  The
    binning is not counted on either side: REBEL's is memoised
    (:meth:`~csrepro.weak.binning.BinnedData.memoised`, built by the warm-up), LightGBM's ``Dataset`` and
    XGBoost's ``QuantileDMatrix`` are constructed once, before the timings, and handed to ``lgb.train`` /
    ``xgb.train``.  What a training pays once (validation, REBEL's fingerprint of X, a booster's set-up)
    cancels in the difference.  The least of each t(m), not the least of differences: on a shared machine
    noise only adds time, and the least of noisy differences would favour whichever side is noisier
    (earlier versions timed LGBMClassifier.fit, whose ~4 s MNIST ``Dataset`` construction made LightGBM's
    round read anywhere between 0.02 and 0.20 s)."""
    import lightgbm as lgb
    import xgboost as xgb

    from csrepro.boosting.rebel import REBELClassifier

    rows = []
    for name in names:
        X, y, K = training_codes(name)
        small = X.size < 10**6
        rounds = T or (40 if small else 12)
        ref_rounds = max(2, rounds // 10)
        lgb_data = lgb.Dataset(X, y, free_raw_data=False, params={"max_bin": 200, "min_child_samples": 1,
                                                                  "verbose": -1, "num_threads": 1}).construct()
        xgb_data = xgb.QuantileDMatrix(X, y, max_bin=200, nthread=1)
        for depth in (1, 4):
            def fits(train_m, rounds):
                """Samplers of t(1) and t(rounds + 1), after one warm-up fit."""
                train_m(1)
                return [partial(seconds, partial(train_m, m)) for m in (1, rounds + 1)]

            def rebel(backend):
                def train(m):
                    with use_backend(backend):
                        return REBELClassifier(n_estimators=m, max_depth=depth).fit(X, y)
                return train

            lgb_params = {"objective": "multiclass", "num_class": K, "max_depth": depth, "num_leaves": 2 ** depth,
                          "max_bin": 200, "min_child_samples": 1, "num_threads": 1, "verbose": -1}
            xgb_params = {"objective": "multi:softprob", "num_class": K, "max_depth": depth, "max_bin": 200,
                          "tree_method": "hist", "multi_strategy": "multi_output_tree", "nthread": 1}
            pairs = [fits(rebel("cython"), rounds),
                     fits(lambda m: lgb.train(lgb_params, lgb_data, num_boost_round=m), rounds),
                     fits(lambda m: xgb.train(xgb_params, xgb_data, num_boost_round=m), rounds)]
            cy, lg, xg = per_iteration([p[0] for p in pairs], [p[1] for p in pairs], [rounds] * 3, repeats=3)
            one, more = fits(rebel("numpy"), ref_rounds)
            ref = per_iteration([one], [more], [ref_rounds], repeats=3 if small else 2)[0]
            row = (f"| {name} | {X.shape[0]} x {X.shape[1]}, {K} | {'stumps' if depth == 1 else 'depth 4'} | "
                   f"{cy:.4f} | {ref:.4f} | {ref / cy:.1f}x | {lg:.4f} | {cy / lg:.2f}x | {xg:.4f} | {cy / xg:.2f}x |")
            print(row, flush=True)
            rows.append(row)
    return rows


def rebel_kernel_rows(names=("pendigits", "mnist"), rounds=10, depth=4):
    """Table rows: each REBEL kernel (csrepro._kernels.histogram / vector_scan) against its NumPy reference
    (*_ref.py) on the inputs of a real round: the training part's uniform 200-bin binning and REBEL's channels
    [w+ | w-] after ``rounds`` rounds; the layer kernels on the last layer of a depth-``depth`` tree grown on them
    (its leaves, the fixed-a channels).  Each time is the least of interleaved calls (Cython and NumPy in turns,
    a few calls per sample so that one sample lasts at least ~1 ms).  Outputs are compared first (rtol 1e-12)."""
    from csrepro._kernels import histogram as hk
    from csrepro._kernels import histogram_ref as hr
    from csrepro._kernels import vector_scan as vk
    from csrepro._kernels import vector_scan_ref as vr
    from csrepro.boosting.rebel import REBELClassifier, surrogate_targets
    from csrepro.weak.binning import BinnedData
    from csrepro.weak.vector import ExpVector, LayerTreeLearner

    rows = []
    for name in names:
        X, y, K = training_codes(name)
        model = REBELClassifier(n_estimators=rounds).fit(X, y)
        cp, cm = surrogate_targets(model.cost_matrix_)
        H = model.decision_function(X)
        channels, work = np.empty((len(X), 2 * K)), np.empty((len(X), K))
        REBELClassifier._weights(H, cp[y], cm[y], channels, work)
        data = BinnedData.memoised(X, 200, spacing="uniform")  # the Cython kernels: the default backend
        m, lay = data.mapper, data.layout
        tree, leaf_of = LayerTreeLearner(depth).fit_cells(data, channels, ExpVector())
        L = len(tree.values)
        a = ExpVector().step(tree.cell_sums[tree.values > 0].sum(0), tree.cell_sums[tree.values < 0].sum(0))
        up, down = np.exp(a), np.exp(-a)
        fixed = vk.layer_channels(channels, up, down, np.empty((len(X), 3)))
        hist2k = hk.histogram_nodes(data.codes_fm, m.offsets, m.n_bins, lay.default, lay.indptr, lay.indices,
                                    channels, None, np.empty((1, m.total_bins, 2 * K)))[0]
        leaf32 = leaf_of.astype(np.int32)
        hist3 = hk.histogram_nodes(data.codes_fm, m.offsets, m.n_bins, lay.default, lay.indptr, lay.indices, fixed,
                                   leaf32, np.empty((L, m.total_bins, 3)))
        split = np.zeros(L, dtype=bool)
        split[: L // 2] = True  # route half the leaves by some split, as a layer does
        feat = np.where(split, np.arange(L) % X.shape[1], -1).astype(np.intp)
        thr = np.full(L, m.n_bins.min() // 2, dtype=np.intp)
        first = np.concatenate([[0], np.cumsum(np.where(split, 2, 1))[:-1]]).astype(np.int32)
        second = first + split.astype(np.int32)
        cases = {
            "histogram, 2K channels (stump)": lambda k: k.histogram_nodes(
                data.codes_fm, m.offsets, m.n_bins, lay.default, lay.indptr, lay.indices, channels, None,
                np.empty((1, m.total_bins, 2 * K))),
            "closed-form scan (stump)": lambda k: (vk if k is hk else vr).exp_vector_scores(
                hist2k, m.offsets, m.n_bins, np.empty(m.total_bins)),
            "layer channels at fixed a": lambda k: (vk if k is hk else vr).layer_channels(
                channels, up, down, np.empty((len(X), 3))),
            f"histogram of {L} leaves, 3 channels": lambda k: k.histogram_nodes(
                data.codes_fm, m.offsets, m.n_bins, lay.default, lay.indptr, lay.indices, fixed, leaf32,
                np.empty((L, m.total_bins, 3))),
            f"labelled split scores, {L} leaves": lambda k: (vk if k is hk else vr).labelled_split_scores(
                hist3, m.offsets, m.n_bins, np.empty((L, 2 * m.total_bins)), np.empty(L, dtype=np.intp)),
            f"leaf sums, {L} leaves, 2K channels": lambda k: k.node_sums(channels, leaf32, np.empty((L, 2 * K))),
            f"route rows, {L} leaves": lambda k: k.route_rows(data.codes_fm, leaf32.copy(), feat, thr, first, second),
        }
        for label, run in cases.items():
            if not np.allclose(run(hk), run(hr), rtol=1e-12, atol=0.0):
                raise AssertionError(f"{name}: {label}: the Cython kernel and its NumPy reference differ")
            once = seconds(partial(run, hk))
            reps = max(1, int(1e-3 / max(once, 1e-7)))
            samplers = [partial(seconds, lambda k=k: [run(k) for _ in range(reps)]) for k in (hk, hr)]
            cy, ref = (t / reps for t in least_interleaved(samplers, repeats=5))
            row = f"| {name} | {X.shape[0]} x {X.shape[1]}, {K} | {label} | {cy * 1e3:.3f} | {ref * 1e3:.3f} | {ref / cy:.1f}x |"
            print(row, flush=True)
            rows.append(row)
    return rows


def combo_rows(names=("satimage", "connect4"), T=20, depth=3):
    """Table rows: seconds per round of AdaBoost.MM and CoMBo (Koco & Capponi 2013; cost-split trees of depth 3,
    255 quantile bins) beside one round of scikit-learn's AdaBoostClassifier (SAMME) with
    DecisionTreeClassifier(max_depth=3), on the whole set (the paper's 5-fold CV trains on 80 %).  A round is
    (t(T + 1) - t(1)) / T, t(m) the least of 3 wall times of training m rounds, the three measured in turns after
    one warm-up each; our binning is memoised (built by the warm-up), scikit-learn's trees sort the raw features
    in every round (that is its round).  A booster that stops early (edge <= 0) would make its round look cheap:
    the row says how many rounds each trained."""
    from sklearn.ensemble import AdaBoostClassifier as SklearnAdaBoost
    from sklearn.tree import DecisionTreeClassifier

    from csrepro.boosting.combo import AdaBoostMMClassifier, CoMBoClassifier

    rows = []
    for name in names:
        ds = load_dataset(name)
        X, y = ds.X, np.unique(ds.y, return_inverse=True)[1]
        models = {"AdaBoost.MM": lambda m: AdaBoostMMClassifier(n_estimators=m, max_depth=depth),
                  "CoMBo": lambda m: CoMBoClassifier(n_estimators=m, max_depth=depth),
                  "SAMME": lambda m: SklearnAdaBoost(DecisionTreeClassifier(max_depth=depth), n_estimators=m,
                                                     random_state=0)}
        fitted, samplers = {}, []
        for label, make in models.items():
            fitted[label] = make(T + 1).fit(X, y)  # warm-up, and the round count actually trained
            samplers += [partial(seconds, partial(lambda mk, m: mk(m).fit(X, y), make, m)) for m in (1, T + 1)]
        t = least_interleaved(samplers, repeats=3)
        per = {label: (t[2 * i + 1] - t[2 * i]) / T for i, label in enumerate(models)}
        trained = {label: len(getattr(est, "estimators_")) for label, est in fitted.items()}
        row = (f"| {name} | {X.shape[0]} x {X.shape[1]}, {int(y.max()) + 1} | {per['AdaBoost.MM']:.4f} | "
               f"{per['CoMBo']:.4f} | {per['SAMME']:.4f} | {per['AdaBoost.MM'] / per['SAMME']:.2f}x | "
               f"{per['CoMBo'] / per['SAMME']:.2f}x | {trained['AdaBoost.MM']}/{trained['CoMBo']}/{trained['SAMME']} |")
        print(row, flush=True)
        rows.append(row)
    return rows


def _obrien_grid(P, y, C, grid=200):
    """Naive grid search for the parallel partition (one pass, classes by frequency, as the exact search): per
    class, ``grid`` values of beta evenly spaced over the same admissible range (entries >= 1e-3 x mean
    off-diagonal cost), each scored by one O(N) pass with the other classes' minimum precomputed; the best
    (first on ties) is kept when it beats the current cost.  Returns the mean training cost."""
    K = P.shape[1]
    cy, rows, s = C[y], np.arange(len(y)), P.sum(axis=1)
    floor = 1e-3 * C[~np.eye(K, dtype=bool)].mean()
    A = C.copy()
    R = P @ A
    cost = cy[rows, R.argmin(axis=1)].sum()
    for i in np.argsort(-np.bincount(y, minlength=K), kind="stable"):
        others = R.copy()
        others[:, i] = np.inf
        g = others.argmin(axis=1)
        m, ci, cg = others[rows, g], cy[:, i], cy[rows, g]
        lo = -np.delete(A[:, i], i).min() + floor
        hi = np.delete(A[i, :], i).min() - floor
        costs = [np.where(R[:, i] + b * s < m, ci, cg).sum() for b in np.linspace(lo, hi, grid)]
        j = int(np.argmin(costs))
        if costs[j] < cost:
            b = np.linspace(lo, hi, grid)[j]
            A[:, i] += b
            A[i, :] -= b
            A[i, i] = 0.0
            R = P @ A
            cost = cy[rows, R.argmin(axis=1)].sum()
    return cost / len(y)


def obrien_rows(Ns=(10**3, 10**4, 10**5, 10**6), Ks=(3, 10), grid=200):
    """Table rows: the exact change-point search of O'Brien et al. 2008 (Sec. 5.1; parallel form, one pass,
    ``learn_partition``) against N random simplex points (Dirichlet(1), labels drawn from them, estimates
    oversmoothed halfway to uniform), K = 3 and 10, costs U[1, 10] off the diagonal; least of 5/3/1 wall
    times (N <= 1e4 / 1e5 / 1e6); the fitted exponent of time vs N (slope of log t on log N, all four N and
    N >= 1e4); a naive grid over beta (:func:`_obrien_grid`, ``grid`` values per class) with its time and
    training cost relative to the exact search's (quality ratio; >= 1 means the grid is worse)."""
    from csrepro.decision.partition import learn_partition

    rows = []
    for K in Ks:
        times = []
        for N in Ns:
            rng = np.random.default_rng([K, N])
            P = rng.dirichlet(np.ones(K), size=N)
            y = (P.cumsum(axis=1) > rng.uniform(size=(N, 1))).argmax(axis=1)
            P = 0.5 * P + 0.5 / K
            C = rng.uniform(1, 10, (K, K))
            np.fill_diagonal(C, 0)
            repeats = 5 if N <= 10**4 else 3 if N <= 10**5 else 1
            exact = least_interleaved([partial(seconds, partial(learn_partition, P, y, C))], repeats=repeats)[0]
            cost = learn_partition(P, y, C)[1]["train_cost"][-1]
            t = time.perf_counter()
            grid_cost = _obrien_grid(P, y, C, grid)
            grid_s = time.perf_counter() - t
            times.append(exact)
            row = (f"| {K} | {N:.0e} | {exact:.4f} | {grid_s:.3f} | {grid_s / exact:.0f}x | {cost:.4f} | "
                   f"{grid_cost / cost:.4f} |")
            print(row, flush=True)
            rows.append(row)
        logN, logt = np.log(np.asarray(Ns, float)), np.log(times)
        slope_all = np.polyfit(logN, logt, 1)[0]
        big = np.asarray(Ns) >= 10**4
        slope_big = np.polyfit(logN[big], logt[big], 1)[0]
        row = f"| {K} | exponent | {slope_all:.2f} (all N); {slope_big:.2f} (N >= 1e4) | | | | |"
        print(row, flush=True)
        rows.append(row)
    return rows


def mcboost_rows():
    """Table rows: seconds per CD-MCBoost iteration for each loss on shuttle and pendigits (training parts), Cython
    and NumPy backends, and the Cython iteration against one LightGBM round (the two timed in turns)."""
    rows = []
    for name in ["shuttle", "pendigits"]:
        ds = load_dataset(name)
        train = ~ds.predefined_test
        X, y = ds.X[train], ds.y[train]
        K = len(np.unique(y))
        C = random_symmetric(K, random_state=0)
        lightgbm_seconds(X, y, 1)  # warm-up: the first fit in a process pays LightGBM's one-off setup
        T, R = ITERS["cython"], ITERS["numpy"]
        for loss in LOSSES:
            # LightGBM rounds and Cython iterations are timed in turns: this shared machine's speed drifts
            fit = partial(mcboost_seconds, X, y, C, loss)
            lgbm, cy = per_iteration([partial(lightgbm_seconds, X, y, 1), partial(fit, "cython", 1)],
                                     [partial(lightgbm_seconds, X, y, 41), partial(fit, "cython", T + 1)], [40, T])
            ref = per_iteration([partial(fit, "numpy", 1)], [partial(fit, "numpy", R + 1)], [R])[0]
            row = (f"| {name} | {X.shape[0]} x {X.shape[1]}, {K} | {loss} | {cy:.4f} | {ref:.4f} | "
                   f"{ref / cy:.1f}x | {lgbm:.4f} | {cy / lgbm:.1f}x |")
            print(row, flush=True)
            rows.append(row)
    return rows


def main(only=None):
    """Print every table and write them to results/BENCH.md; ``only``: print that table alone, writing nothing
    ("mcboost": CD-MCBoost on shuttle and pendigits; "binary": the binary boosting engine on ADULT)."""
    if only == "mcboost":
        mcboost_rows()
        return
    if only == "binary":
        print("\n".join(BINARY_HEADER), flush=True)
        for binary_row in binary_boosting_rows():
            print(binary_row, flush=True)
        return
    lines = ["# Benchmark: CD-MCBoost iteration time", "",
             f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
             f"single-threaded kernels; date {time.strftime('%Y-%m-%d')}; glibc heap kept between calls "
             f"(MALLOC_MMAP_THRESHOLD_={os.environ.get('MALLOC_MMAP_THRESHOLD_', 'default')}, MALLOC_TRIM_THRESHOLD_="
             f"{os.environ.get('MALLOC_TRIM_THRESHOLD_', 'default')}: `make bench` sets both, so that no timed call "
             "pays for fresh pages of memory the previous call returned to the system).", "",
             f"Seconds per iteration (all M - 1 coordinate steps): (least of 5 fits of {ITERS['cython'] + 1} iterations "
             f"- least of 5 fits of 1) / {ITERS['cython']} ({ITERS['numpy']} for the NumPy backend); a LightGBM round "
             "the same with 41 and 1 rounds, timed in turns with ours.", "",
             "| dataset | n x d, K | loss | Cython s/iter | NumPy s/iter | NumPy/Cython | LightGBM s/round | Cython/LightGBM |",
             "|---|---|---|---|---|---|---|---|"]
    lines += mcboost_rows()
    info = ROOT / "results" / "guess_averse_uci" / "run_info.json"
    if info.exists():
        run = json.loads(info.read_text())
        msg = f"Full `make reproduce-guess-averse` wall time: {run.get('wall_seconds', float('nan')):.0f} s ({run.get('finished', '?')})."
    else:
        msg = "Full `make reproduce-guess-averse` wall time: not recorded yet (results/guess_averse_uci/run_info.json missing)."
    print(msg)
    lines += ["", msg, "", "## SMO (CS-SVM dual) vs scikit-learn SVC (LIBSVM), RBF, C = 1, tol 1e-3", "",
              "| dataset | n | ours s | SVC s | ours/SVC |", "|---|---|---|---|---|"]
    for name in ["pima", "wdbc", "german"]:
        ours, libsvm, n = smo_vs_libsvm(name)
        row = f"| {name} | {n} | {ours:.4f} | {libsvm:.4f} | {ours / libsvm:.2f}x |"
        print(row, flush=True)
        lines.append(row)
    lines += ["", "## Table V.2 model selection, one outer trial (21 fits: CS/BP/BM-SVM x 7 rates, inner LOO)", "",
              "| dataset | shared s | unshared s (7 x one fit per SVM) | unshared/shared |", "|---|---|---|---|"]
    for name in ["pima"]:
        shared, alone = table_v2_selection(name)
        row = f"| {name} | {shared:.1f} | {alone:.1f} | {alone / shared:.1f}x |"
        print(row, flush=True)
        lines.append(row)
    lines += ["", "## Issue-5 boosters on ADULT (training part): canonical GradientBoost, SavageBoost, TangentBoost", "",
              "| booster | weak learner | n x d | ms/iter |", "|---|---|---|---|"]
    for row in margin_boost_rows():
        print(row, flush=True)
        lines.append(row)
    lines += [""] + BINARY_HEADER
    for row in binary_boosting_rows():
        print(row, flush=True)
        lines.append(row)
    lines += ["", "## REBEL rounds (Appel et al. 2016) vs LightGBM and XGBoost vector leaves, one thread", "",
              "Seconds per round on the training part: REBEL's K-vector round (one 2K-channel histogram pass + the "
              "closed-form scan) against one LightGBM multiclass round (K scalar trees) and one XGBoost round "
              "(one tree with K-vector leaves), same depth, 200 bins.", "",
              "| dataset | n x d, K | weak learner | REBEL s/round | NumPy s/round | NumPy/Cython | LightGBM s/round | "
              "REBEL/LightGBM | XGBoost s/round | REBEL/XGBoost |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rebel_rows():
        lines.append(row)
    lines += ["", "## REBEL's kernels vs their NumPy references (the inputs of a real round)", "",
              "Milliseconds per call: the training part, 200 uniform bins, REBEL's weights after 10 rounds; the layer "
              "kernels on the last layer of a depth-4 tree.", "",
              "| dataset | n x d, K | kernel | Cython ms | NumPy ms | NumPy/Cython |", "|---|---|---|---|---|---|"]
    lines += rebel_kernel_rows()
    lines += ["", "## AdaBoost.MM and CoMBo rounds (Koco & Capponi 2013) vs scikit-learn SAMME, depth-3 trees, one thread",
              "", "Seconds per round on the whole set; rounds trained out of T + 1 = 21 (a booster stops when its edge "
              "is <= 0).", "",
              "| dataset | n x d, K | AdaBoost.MM s/round | CoMBo s/round | SAMME s/round | MM/SAMME | CoMBo/SAMME | "
              "rounds MM/CoMBo/SAMME |", "|---|---|---|---|---|---|---|---|"]
    for row in combo_rows():
        lines.append(row)
    lines += ["", "## Partition-matrix change-point search (O'Brien et al. 2008, Sec. 5.1): parallel form, one pass",
              "", "Exact search (sort + cumulative sum per class) vs N random simplex points; naive grid of 200 beta "
              "values per class; quality = grid training cost / exact training cost.", "",
              "| K | N | exact s | grid s | grid/exact | exact cost | grid/exact cost |",
              "|---|---|---|---|---|---|---|"]
    lines += obrien_rows()
    lines.append("")
    (ROOT / "results" / "BENCH.md").write_text("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["mcboost", "binary"], default=None,
                        help="print one table alone, without writing results/BENCH.md (mcboost: CD-MCBoost on "
                             "shuttle and pendigits; binary: the binary boosting engine on ADULT)")
    main(parser.parse_args().only)
