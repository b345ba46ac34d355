"""Claim checks and figures of Koço & Capponi 2013 (CoMBo), computed from the store (experiments/combo/NOTES.md,
"Claims to check").

* ``claims`` (conf/exp/combo_uci.yaml): ``claims.csv``, each claim of the paper's text once from our runs
  ("reproduced") and once from its own tables ("published", i.e. published.csv), and ``claims.png``: CoMBo's
  margin over the best other method against Table 1's imbalance ratio (claim 2).
* ``connect4_errors`` (conf/exp/combo_connect4.yaml): ``claims_connect4.csv`` (claim 6: the per-class error
  shifts on Connect-4, and CoMBo's higher overall error), ``connect4_confusion.csv`` (the mean error-focused
  confusion matrices C_S beside Table 4) and ``connect4_errors.png``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from csrepro.metrics import paired_ttest
from csrepro.report.compare import load_published
from csrepro.report.figures import save_png
from csrepro.report.tables import latest_trials

PUBLISHED = Path(__file__).with_name("published.csv")
#: Table 1's imbalance ratios (majority / minority count, as printed; checked against the data by
#: tests/experiments/test_combo_published.py)
IMBALANCE = {"newthyroid": 5.00, "balance": 5.88, "car": 18.62, "connect4": 6.90, "nursery_s": 13.17,
             "glass": 8.44, "ecoli5": 7.15, "yeast": 92.60, "satimage": 2.45}
TABLE2_SETS = ["car", "balance", "newthyroid", "nursery_s", "ecoli5", "glass", "satimage", "yeast"]
TABLE3_SETS = ["balance", "car", "connect4", "newthyroid", "nursery_s", "yeast"]
#: datasets where the paper reports no AdaBoost.MM numbers, "results of both algorithms are equivalent"
EQUIVALENT_SETS = ["glass", "ecoli5", "satimage"]
OUR_OTHERS = ["adaboost_mm", "samme", "smoteboost"]
PUBLISHED_OTHERS = ["adaboost_nc_published", "smoteboost_published"]
#: Connect-4 class index (sorted labels) -> label; the paper's classes 1, 2, 3 are win, draw, loss
CONNECT4 = {0: "draw", 1: "loss", 2: "win"}
#: Sec. 5.3 text (line 391), percent errors per class
TEXT_ERRORS = {"combo": {"win": 20.2, "draw": 31.5, "loss": 25.9}, "adaboost_mm": {"win": 6.6, "draw": 83.5, "loss": 29.4}}
COLUMNS = ["claim", "statement", "basis", "quantity", "value", "holds", "detail"]


def trial_means(store: pd.DataFrame, metric: str) -> pd.DataFrame:
    """dataset x method means of ``metric`` over trials (latest row per trial; NaN dropped)."""
    if store.empty or metric not in store.columns:
        return pd.DataFrame()
    sel = latest_trials(store).assign(value=lambda d: pd.to_numeric(d[metric], errors="coerce"))
    return sel.pivot_table(index="dataset", columns="method", values="value", aggfunc="mean")


def published_means(published: pd.DataFrame, table: str) -> pd.DataFrame:
    """dataset x method published values of one table id."""
    sel = published[published["table"] == table]
    return sel.pivot(index="row", columns="column", values="value")


def _paired(store: pd.DataFrame, dataset: str, metric: str, a: str, b: str) -> tuple[float, int]:
    """(paired t-test p of methods a and b on the trials both have, number of such trials)."""
    sel = latest_trials(store[(store["dataset"] == dataset) & store["method"].isin([a, b])])
    table = sel.pivot(index="trial", columns="method", values=metric).dropna()
    if len(table) < 2 or not {a, b} <= set(table.columns):
        return float("nan"), len(table)
    return paired_ttest(table[a].to_numpy(float), table[b].to_numpy(float)), len(table)


def _margins(means: pd.DataFrame, others: list[str], sets: list[str]) -> pd.Series:
    """CoMBo's mean minus the best other method's, per dataset of ``sets`` that has them all."""
    cols = [c for c in others if c in means.columns]
    if "combo" not in means.columns or not cols:
        return pd.Series(dtype=float)
    rows = [d for d in sets if d in means.index]
    sub = means.loc[rows, ["combo", *cols]].dropna()
    return sub["combo"] - sub[cols].max(axis=1)


#: up to this many pairs the Spearman p-value is exact (all n! pairings), beyond it scipy's t approximation
EXACT_SPEARMAN_N = 9


def _rank_corr(u: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """Spearman's rho of each slice of ``u`` along ``axis`` with ``b``: Pearson's r of their ranks (ties averaged)."""
    ru = stats.rankdata(u, axis=axis)
    ru = ru - ru.mean(axis=axis, keepdims=True)
    rb = stats.rankdata(b) - (len(b) + 1) / 2
    return (ru * rb).sum(axis=axis) / np.sqrt((ru ** 2).sum(axis=axis) * (rb ** 2).sum())


def _spearman(x: pd.Series, y: pd.Series) -> tuple[float, float, int]:
    """(rho, two-sided p, n) over the rows both have; p exact over every pairing for n <= EXACT_SPEARMAN_N
    (Table 2 has 8 sets, Table 3 five: the asymptotic p of n = 5 with rho = 1 would read 1.4e-24, the exact 1/60)."""
    both = pd.concat([x, y], axis=1, join="inner").dropna()
    if len(both) < 3:
        return float("nan"), float("nan"), len(both)
    a, b = both.iloc[:, 0].to_numpy(), both.iloc[:, 1].to_numpy()
    rho = stats.spearmanr(a, b).statistic
    if len(both) <= EXACT_SPEARMAN_N:
        p = stats.permutation_test((a,), lambda u, axis: _rank_corr(u, b, axis), permutation_type="pairings",
                                   n_resamples=np.inf, alternative="two-sided", vectorized=True).pvalue
    else:
        p = stats.spearmanr(a, b).pvalue
    return float(rho), float(p), len(both)


def _row(claim, statement, basis, quantity, value, holds, detail=""):
    return {"claim": claim, "statement": statement, "basis": basis, "quantity": quantity,
            "value": value, "holds": holds, "detail": detail}


def claims_table(store: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Claims 1-5 and 7 of NOTES.md ("Claims to check"), from the store (basis "reproduced": CoMBo against our
    AdaBoost.MM, SAMME and SMOTEBoost) and from the paper's own tables (basis "published": Table 2 against
    the copied AdaBoost.NC and SmoteBoost, Table 3 against AdaMM).  ``holds`` is None where the store lacks
    what a claim needs."""
    published = load_published(PUBLISHED) if published is None else published
    rows = []
    gm, mauc_ = trial_means(store, "gmean"), trial_means(store, "mauc")
    sources = {"reproduced": ({"G-mean": gm, "MAUC": mauc_}, OUR_OTHERS),
               "published": ({"G-mean": published_means(published, "Table 2 G-mean"),
                              "MAUC": published_means(published, "Table 2 MAUC")}, PUBLISHED_OTHERS)}
    s1 = "CoMBo challenges the other boosting methods except on Satimage (line 330; dagger, caption 352)"
    s2 = "CoMBo's advantage grows with the imbalance ratio (line 330)"
    for basis, (tables, others) in sources.items():
        for measure, means in tables.items():
            margin = _margins(means, others, TABLE2_SETS)
            if margin.empty:
                continue
            last = sorted(margin.index[margin < 0])
            sat = margin.get("satimage", np.nan)
            rows.append(_row(1, s1, basis, f"{measure}: Satimage margin of CoMBo over the best other",
                             float(sat), bool(sat < 0) if pd.notna(sat) else None,
                             f"datasets where CoMBo is below the best other: {', '.join(last) or 'none'}"))
            rows.append(_row(1, s1, basis, f"{measure}: datasets other than Satimage where CoMBo is below the best "
                             "other", float(len([d for d in last if d != "satimage"])),
                             not [d for d in last if d != "satimage"], ", ".join(d for d in last if d != "satimage")))
            rho, p, n = _spearman(pd.Series(IMBALANCE), margin)
            rows.append(_row(2, s2, basis, f"{measure}: Spearman rho(imbalance ratio, CoMBo margin) over {n} sets",
                             rho, bool(rho > 0 and p < 0.05) if np.isfinite(rho) else None,
                             f"p = {p:.3g}; holds iff rho > 0 with p < 0.05; margins: "
                             + ", ".join(f"{d} {v:+.3f}" for d, v in margin.items())))
    t3 = {"norm": "Table 3 norm", "accuracy": "Table 3 accuracy", "G-mean": "Table 3 G-mean", "MAUC": "Table 3 MAUC"}
    ours = {"norm": trial_means(store, "confusion_norm"), "accuracy": trial_means(store, "accuracy"),
            "G-mean": gm, "MAUC": mauc_}
    for basis in ("reproduced", "published"):
        get = (lambda k: ours[k]) if basis == "reproduced" else (lambda k: published_means(published, t3[k]))
        pair = {k: _pair(get(k), TABLE3_SETS) for k in t3}  # Table 3's sets (Connect-4: combo_connect4's store)
        norm = pair["norm"]
        if norm.empty:
            continue
        worse = sorted(norm.index[norm["combo"] >= norm["adaboost_mm"]])
        rows.append(_row(3, "The norm of the confusion matrix is always smaller with CoMBo (line 380)", basis,
                         f"datasets where CoMBo's mean norm is not below AdaBoost.MM's (of {len(norm)})",
                         float(len(worse)), not worse, ", ".join(worse)))
        acc = pair["accuracy"]
        better = sorted(acc.index[acc["combo"] > acc["adaboost_mm"]])
        rows.append(_row(4, "CoMBo's accuracy is a bit worse than AdaBoost.MM's (lines 360, 380)", basis,
                         f"datasets where CoMBo's mean accuracy is above AdaBoost.MM's (of {len(acc)})",
                         float(len(better)), not better, ", ".join(better)))
        decrease = norm["adaboost_mm"] - norm["combo"]
        for measure in ("G-mean", "MAUC"):
            gain = pair[measure]["combo"] - pair[measure]["adaboost_mm"]
            rho, p, n = _spearman(decrease, gain)
            rows.append(_row(5, "The larger the norm decrease, the larger the MAUC and G-mean gains (line 382)",
                             basis, f"{measure}: Spearman rho(norm decrease, gain of CoMBo over AdaBoost.MM) over "
                             f"{n} sets", rho, bool(rho > 0 and p < 0.05) if np.isfinite(rho) else None,
                             f"p = {p:.3g}; holds iff rho > 0 with p < 0.05; sets: {', '.join(decrease.index)}"))
    for d in EQUIVALENT_SETS:
        for metric, measure in (("gmean", "G-mean"), ("mauc", "MAUC")):
            if metric not in store.columns:
                continue
            p, n = _paired(store, d, metric, "combo", "adaboost_mm")
            means = trial_means(store, metric)
            diff = means.loc[d, "combo"] - means.loc[d, "adaboost_mm"] if {"combo", "adaboost_mm"} <= set(
                means.columns) and d in means.index else np.nan
            rows.append(_row(7, "Where not reported, CoMBo and AdaBoost.MM are equivalent (caption 378, line 382)",
                             "reproduced", f"{d} {measure}: CoMBo - AdaBoost.MM", float(diff),
                             bool(p >= 0.05) if np.isfinite(p) else None,
                             f"paired t-test p = {p:.3g} over {n} trials; holds iff p >= 0.05"))
    return pd.DataFrame(rows, columns=COLUMNS)


def _pair(means: pd.DataFrame, sets: list[str]) -> pd.DataFrame:
    """The combo and adaboost_mm columns of ``means`` on the datasets of ``sets`` that have both."""
    if not {"combo", "adaboost_mm"} <= set(means.columns):
        return pd.DataFrame(columns=["combo", "adaboost_mm"])
    return means.loc[[d for d in sets if d in means.index], ["combo", "adaboost_mm"]].dropna()


def plot_claims(out_dir, store, cfg=None) -> list[Path]:
    """claims.csv (:func:`claims_table`) and claims.png: CoMBo's margin over the best other method vs the
    imbalance ratio, G-mean and MAUC, ours and the paper's (claim 2)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    published = load_published(PUBLISHED)
    claims_table(store, published).to_csv(out_dir / "claims.csv", index=False, float_format="%.6g")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for ax, (metric, table) in zip(axes, (("gmean", "Table 2 G-mean"), ("mauc", "Table 2 MAUC"))):
        for label, margin, marker in (
                ("reproduced (vs AdaBoost.MM, SAMME, SMOTEBoost)", _margins(trial_means(store, metric), OUR_OTHERS,
                                                                            TABLE2_SETS), "o"),
                ("published (vs AdaBoost.NC, SmoteBoost)", _margins(published_means(published, table),
                                                                    PUBLISHED_OTHERS, TABLE2_SETS), "s")):
            if margin.empty:
                continue
            x = [IMBALANCE[d] for d in margin.index]
            ax.scatter(x, margin.to_numpy(), marker=marker, label=label)
            for xi, (d, v) in zip(x, margin.items()):
                ax.annotate(d, (xi, v), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.axhline(0.0, color="k", lw=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("imbalance ratio (Table 1)")
        ax.set_ylabel(f"CoMBo {table.split()[-1]} - best other")
        ax.set_title(f"{table}: CoMBo's margin vs imbalance", fontsize=10)
        ax.legend(fontsize=7)
    return [save_png(fig, out_dir, "claims")]


def connect4_claims(store: pd.DataFrame) -> pd.DataFrame:
    """Claim 6 (line 391) from the store: per-class errors (%) of CoMBo and AdaBoost.MM on Connect-4, the
    reproducible statements (CoMBo lowers both minority-class errors, raises the majority-class error, and its
    overall error stays higher), each with its paired t-test over the trials."""
    sel = latest_trials(store[(store["dataset"] == "connect4") & store["method"].isin(["combo", "adaboost_mm"])])
    rows = []
    statement = "Connect-4: CoMBo shifts errors from the minority classes to the majority class (line 391)"
    for i, label in CONNECT4.items():
        metric = f"class_error_{i}"
        if metric not in sel.columns:
            continue
        table = sel.pivot(index="trial", columns="method", values=metric).dropna()
        if not {"combo", "adaboost_mm"} <= set(table.columns) or len(table) < 2:
            continue
        combo, mm = 100 * table["combo"].mean(), 100 * table["adaboost_mm"].mean()
        p = paired_ttest(table["combo"].to_numpy(float), table["adaboost_mm"].to_numpy(float))
        want_lower = label != "win"
        holds = (combo < mm if want_lower else combo > mm) and p < 0.05
        pub = TEXT_ERRORS
        rows.append(_row(6, statement, "reproduced", f"{label} error (%): CoMBo {'<' if want_lower else '>'} "
                         "AdaBoost.MM", combo - mm, bool(holds),
                         f"CoMBo {combo:.1f} vs AdaBoost.MM {mm:.1f} (published {pub['combo'][label]} vs "
                         f"{pub['adaboost_mm'][label]}); paired t-test p = {p:.3g} over {len(table)} trials"))
    if "error" in sel.columns:
        table = sel.pivot(index="trial", columns="method", values="error").dropna()
        if {"combo", "adaboost_mm"} <= set(table.columns) and len(table) >= 2:
            diff = 100 * (table["combo"].mean() - table["adaboost_mm"].mean())
            p = paired_ttest(table["combo"].to_numpy(float), table["adaboost_mm"].to_numpy(float))
            rows.append(_row(6, statement, "reproduced", "overall error (%): CoMBo > AdaBoost.MM", diff,
                             bool(diff > 0 and p < 0.05), f"published accuracies 0.728 vs 0.805 (Table 3); paired "
                             f"t-test p = {p:.3g} over {len(table)} trials"))
    return pd.DataFrame(rows, columns=COLUMNS)


def mean_confusion(store: pd.DataFrame) -> pd.DataFrame:
    """Long table (method, true, predicted, mean C_S entry) of Connect-4's off-diagonal confusion_<i>_<j> columns."""
    sel = latest_trials(store[store["dataset"] == "connect4"])
    rows = []
    for method, g in sel.groupby("method"):
        for i, true in CONNECT4.items():
            for j, pred in CONNECT4.items():
                col = f"confusion_{i}_{j}"
                if i != j and col in g.columns:
                    rows.append({"method": method, "true": true, "predicted": pred,
                                 "mean": float(pd.to_numeric(g[col], errors="coerce").mean()), "n_trials": len(g)})
    return pd.DataFrame(rows, columns=["method", "true", "predicted", "mean", "n_trials"])


def plot_connect4_errors(out_dir, store, cfg=None) -> list[Path]:
    """claims_connect4.csv (:func:`connect4_claims`), connect4_confusion.csv (:func:`mean_confusion`) and
    connect4_errors.png: per-class errors of CoMBo and AdaBoost.MM, reproduced beside the Sec. 5.3 text."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    connect4_claims(store).to_csv(out_dir / "claims_connect4.csv", index=False, float_format="%.6g")
    mean_confusion(store).to_csv(out_dir / "connect4_confusion.csv", index=False, float_format="%.6g")
    sel = latest_trials(store[store["dataset"] == "connect4"])
    labels = ["win", "draw", "loss"]
    fig, ax = plt.subplots(figsize=(6.5, 4), constrained_layout=True)
    width, x = 0.2, np.arange(len(labels))
    for k, (method, name) in enumerate((("combo", "CoMBo"), ("adaboost_mm", "AdaBoost.MM"))):
        g = sel[sel["method"] == method]
        index = {v: i for i, v in CONNECT4.items()}
        rep = [100 * pd.to_numeric(g.get(f"class_error_{index[c]}", pd.Series(dtype=float)), errors="coerce").mean()
               for c in labels]
        ax.bar(x + (2 * k - 1.5) * width, rep, width, label=f"{name} (reproduced)")
        ax.bar(x + (2 * k - 0.5) * width, [TEXT_ERRORS[method][c] for c in labels], width, alpha=0.5,
               label=f"{name} (published, Sec. 5.3)")
    ax.set_xticks(x, ["win (class 1, majority)", "draw (class 2)", "loss (class 3)"], fontsize=8)
    ax.set_ylabel("error on the class (%)")
    ax.set_title("Connect-4: per-class errors (1 - recall)", fontsize=10)
    ax.legend(fontsize=7)
    return [save_png(fig, out_dir, "connect4_errors")]


FIGURES = {"claims": plot_claims, "connect4_errors": plot_connect4_errors}
