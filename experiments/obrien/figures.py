"""Claim checks of O'Brien, Gupta & Gray 2008, computed from one experiment's store (experiments/obrien/NOTES.md,
"Claims").  The paper's text stops before its result tables, so there is no number to compare with: each claim
of its Secs. 5-6 is tested on our runs, per dataset by a two-sided paired t-test over the trials (same folds for
every method), and counted as wins / ties / losses over the experiment's datasets.

* ``summary`` (conf/exp/obrien_three_class.yaml, reported last): ``claims_all.csv``, each claim over the cells of
  every O'Brien experiment reported beside it (:func:`summarise_claims`).
* ``claims`` (conf/exp/obrien_*.yaml): ``claims.csv`` (one row per claim and comparison: the counts, the mean
  relative cost difference and whether the claim holds by the rule in ``detail``), ``wins.csv`` (per dataset and
  comparison: the two mean costs, the paired p-value and the outcome) and ``claims.png`` (each method's mean cost
  relative to the Bayes rule on the raw probabilities, per dataset).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.metrics import paired_ttest
from csrepro.report.build import results_root
from csrepro.report.figures import save_png
from csrepro.report.tables import latest_trials

ALPHA = 0.05
#: the parallel partition of Sec. 5 (one pass, classes from most to least populous)
PROPOSED = "partition"
#: (claim, statement, reference method, other method, kind): "beats" holds iff the proposed method wins on more sets
#: than it loses; "similar" iff ties are the majority of the sets
CLAIMS = [
    (1, "A learned parallel partition beats MetaCost (Sec. 6; the better of its two variants per set)", PROPOSED,
     "metacost_best", "beats"),
    (1, "A learned parallel partition beats Lachiche-Flach (Sec. 6)", PROPOSED, "lachiche_flach", "beats"),
    (2, "A learned parallel partition beats the Bayes rule on the raw probabilities (Secs. 2, 5)", PROPOSED,
     "bayes_rule", "beats"),
    (3, "The partition forms perform similarly (Sec. 5): column multiply", PROPOSED, "partition_column", "similar"),
    (3, "The partition forms perform similarly (Sec. 5): row multiply", PROPOSED, "partition_row", "similar"),
    (3, "The partition forms perform similarly (Sec. 5): all K^2 - K entries", PROPOSED, "partition_full", "similar"),
    (4, "Multiple passes do not improve performance (Sec. 5.1)", PROPOSED, "partition_2pass", "similar"),
    (5, "Performance is fairly robust to the parameter ordering (Sec. 5.1): random order", PROPOSED,
     "partition_random_order", "similar"),
    (6, "A learned parallel partition beats Mossman's restrictive three-class partition (Secs. 3.2, 5; eq. 13)",
     PROPOSED, "mossman", "beats"),
    (7, "Beyond the paper: the parallel partition against isotonic calibration + eq. (1)", PROPOSED,
     "calibrated_isotonic", "beats"),
    (7, "Beyond the paper: the parallel partition against sigmoid calibration + eq. (1)", PROPOSED,
     "calibrated_sigmoid", "beats"),
    (7, "Beyond the paper: the parallel partition against weighted all-pairs (costsensitive)", PROPOSED, "wap",
     "beats"),
    (7, "Beyond the paper: the parallel partition against a filter tree", PROPOSED, "filter_tree", "beats"),
    (7, "Beyond the paper: the parallel partition against csoaa (costsensitive)", PROPOSED, "csoaa", "beats"),
]
WINS_COLUMNS = ["dataset", "reference", "other", "cost_reference", "cost_other", "p", "outcome"]
COLUMNS = ["claim", "statement", "reference", "other", "n_sets", "wins", "ties", "losses", "mean_relative_diff",
           "holds", "detail"]


def trial_costs(store: pd.DataFrame, metric: str = "risk") -> pd.DataFrame:
    """(dataset, trial) x method table of ``metric`` (latest row per trial), plus ``metacost_best``: per dataset the
    MetaCost variant of lower mean cost, as the paper reports "the better of the two variants for each dataset"."""
    if store.empty or metric not in store.columns:
        return pd.DataFrame()
    sel = latest_trials(store).assign(value=lambda d: pd.to_numeric(d[metric], errors="coerce"))
    wide = sel.pivot_table(index=["dataset", "trial"], columns="method", values="value", aggfunc="mean")
    variants = [m for m in ("metacost_in", "metacost_out") if m in wide.columns]
    if variants:
        best = wide[variants].groupby(level="dataset").transform("mean").idxmin(axis=1)
        wide["metacost_best"] = [wide.at[i, m] for i, m in zip(wide.index, best)]
    return wide


def outcomes(costs: pd.DataFrame, reference: str, other: str) -> pd.DataFrame:
    """Per dataset: mean cost of ``reference`` and ``other`` over the trials both have, the paired p-value and the
    outcome for ``reference`` ("win": lower mean with p < ALPHA, "loss": higher with p < ALPHA, else "tie")."""
    rows = []
    for dataset, g in costs[[reference, other]].dropna().groupby(level="dataset"):
        a, b = g[reference].to_numpy(), g[other].to_numpy()
        p = paired_ttest(a, b) if len(g) >= 2 else np.nan
        outcome = "tie" if not p < ALPHA else ("win" if a.mean() < b.mean() else "loss")
        rows.append({"dataset": dataset, "reference": reference, "other": other, "cost_reference": a.mean(),
                     "cost_other": b.mean(), "p": p, "outcome": outcome})
    return pd.DataFrame(rows, columns=WINS_COLUMNS)


def claims_table(store: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(claims, per-dataset outcomes) of the :data:`CLAIMS` whose two methods the experiment ran."""
    costs = trial_costs(store)
    rows, per_set = [], []
    for claim, statement, ref, other, kind in CLAIMS:
        if not {ref, other} <= set(costs.columns):
            continue
        res = outcomes(costs, ref, other)
        per_set.append(res)
        n = len(res)
        counts = res["outcome"].value_counts() if n else pd.Series(dtype=int)
        wins, ties, losses = (int(counts.get(k, 0)) for k in ("win", "tie", "loss"))
        rel = float(((res["cost_reference"] - res["cost_other"]) / res["cost_other"]).mean()) if n else np.nan
        if kind == "beats":
            holds, rule = wins > losses, "holds iff wins > losses"
        else:
            holds, rule = ties > n / 2, "holds iff ties on more than half the sets"
        rows.append({"claim": claim, "statement": statement, "reference": ref, "other": other, "n_sets": n,
                     "wins": wins, "ties": ties, "losses": losses, "mean_relative_diff": rel, "holds": holds,
                     "detail": f"{rule}; per set two-sided paired t-test over trials at {ALPHA:g}; mean relative "
                               "difference = mean over sets of (reference - other) / other"})
    per_set = pd.concat(per_set, ignore_index=True) if per_set else pd.DataFrame(columns=WINS_COLUMNS)
    return pd.DataFrame(rows, columns=COLUMNS), per_set


def plot_claims(out_dir, store, cfg=None) -> list[Path]:
    """claims.csv and wins.csv (:func:`claims_table`) and claims.png: each method's mean cost divided by the
    Bayes rule's on the raw probabilities, per dataset (below 1: the method lowers the cost)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    claims, per_set = claims_table(store)
    claims.to_csv(out_dir / "claims.csv", index=False)
    per_set.to_csv(out_dir / "wins.csv", index=False)
    costs = trial_costs(store)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    if not costs.empty and "bayes_rule" in costs.columns:
        means = costs.groupby(level="dataset").mean()
        rel = means.div(means["bayes_rule"], axis=0).drop(columns=["bayes_rule", "metacost_best"], errors="ignore")
        for x, (dataset, row) in enumerate(rel.iterrows()):
            ax.scatter(np.full(len(row), x), row.to_numpy(), s=12, color="0.6")
            if PROPOSED in row:
                ax.scatter([x], [row[PROPOSED]], s=40, color="C3", label="parallel partition" if x == 0 else None)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xticks(range(len(rel)), rel.index, rotation=30, ha="right")
        ax.set_ylabel("mean cost / Bayes rule's")
        ax.legend(loc="best", fontsize=8)
    ax.set_title("Each method's mean test cost relative to eq. (1) on the raw probabilities (grey: the others)")
    return [save_png(fig, out_dir, "claims")]


def summarise_claims(out_dir, store=None, cfg=None) -> list[Path]:
    """claims_all.csv: every claim over all O'Brien experiments reported so far beside this one (the ``wins.csv`` of
    each ``obrien_*`` folder under the config's results root; without a config, the parent of ``out_dir``'s folder):
    wins / ties / losses summed over the dataset x cost family
    x probability model cells, the experiments counted, and whether the claim holds by its rule over all cells.
    Run last (conf/exp/obrien_three_class.yaml, the last of ``make reproduce-obrien``'s experiments)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    root = results_root(cfg) if cfg is not None else out_dir.parents[1]  # the report writes into a staging folder
    found = sorted(root.glob("obrien_*/figures/wins.csv"))
    per_set = pd.concat([pd.read_csv(f).assign(experiment=f.parents[1].name) for f in found], ignore_index=True) \
        if found else pd.DataFrame(columns=WINS_COLUMNS + ["experiment"])
    rows = []
    for claim, statement, ref, other, kind in CLAIMS:
        res = per_set[(per_set["reference"] == ref) & (per_set["other"] == other)]
        if res.empty:
            continue
        n = len(res)
        counts = res["outcome"].value_counts()
        wins, ties, losses = (int(counts.get(k, 0)) for k in ("win", "tie", "loss"))
        rel = float(((res["cost_reference"] - res["cost_other"]) / res["cost_other"]).mean())
        holds = wins > losses if kind == "beats" else ties > n / 2
        rule = "holds iff wins > losses" if kind == "beats" else "holds iff ties on more than half the cells"
        exps = sorted(set(res["experiment"]))
        rows.append({"claim": claim, "statement": statement, "reference": ref, "other": other, "n_sets": n,
                     "wins": wins, "ties": ties, "losses": losses, "mean_relative_diff": rel, "holds": holds,
                     "detail": f"{rule}; cells of {len(exps)} experiments: {', '.join(exps)}"})
    path = out_dir / "claims_all.csv"
    pd.DataFrame(rows, columns=COLUMNS).to_csv(path, index=False)
    return [path]


FIGURES = {"claims": plot_claims, "summary": summarise_claims}
