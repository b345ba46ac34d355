"""The cross-paper leaderboard (issue 21) from the store of conf/exp/leaderboard.yaml.

A *problem* is one dataset under one cost family (the experiment's ``<dataset>__<family>`` aliases); every method
of a problem ran on the same splits with the same cost matrices, so per-split results are paired.  From the
per-split test costs (the ``risk`` metric) the ``leaderboard`` figure writes, under the report's figures folder:

* ``leaderboard.csv``: one row per method over all problems, best average rank first: its group (the paper it
  comes from, or "baseline"), average rank (1 = least mean cost on a problem, ties averaged), mean relative cost
  against the best baseline with a 95 % paired-bootstrap interval, wins / ties / losses against that baseline,
  and the median training seconds;
* ``families.csv``: the same per cost family, each against the family's own best baseline;
* ``problems.csv``: per problem and method, the mean test cost with its 95 % bootstrap interval over the splits;
* ``friedman.csv``: the Friedman test and the Nemenyi critical difference (autorank) over all problems and per
  family;
* ``cd_diagram.png`` (all problems; autorank's critical-difference diagram), ``cd_<family>.png``,
  ``relative_cost.png`` (each method's relative cost per family, with intervals) and ``cost_vs_time.png``
  (average rank against median training time).

Definitions (experiments/leaderboard/NOTES.md):

* The *best baseline* is the baseline (:data:`BASELINES`) of least average rank over the problems considered.
* *Relative cost* against a reference method r: each problem's mean costs are divided by that problem's mean over
  all methods (its scale, so that problems of different cost units weigh alike), then
  ``mean_p cost_m,p / mean_p cost_r,p - 1``; negative means cheaper than r.  Its interval is the 2.5 and 97.5
  percentiles over :data:`N_BOOT` paired bootstrap replicates (csrepro.metrics.paired_bootstrap_means: the splits
  of every problem resampled, the same draw for every method).
* *Win / tie / loss* on a problem: the 95 % paired-bootstrap interval of the difference of mean costs (method
  minus best baseline) lies below 0 / contains 0 / lies above 0.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.metrics import paired_bootstrap_means, percentile_interval, ranks
from csrepro.report.figures import save_png
from csrepro.report.tables import latest_trials

N_BOOT = 2000
LEVEL = 0.95
SEED = 0
#: autorank's least number of problems for a test
MIN_FRIEDMAN = 5
#: cost families in the order the tables list them (the alias suffixes of conf/dataset/leaderboard.yaml)
FAMILIES = ("guess_averse", "rebel", "frequency", "zero_one")
#: method id -> group: the paper a method reproduces, or "baseline" (the modern baselines of issue 21)
GROUPS = {
    "gll_mcboost": "Beijbom 2014", "gel_mcboost": "Beijbom 2014", "ls_mcboost": "Beijbom 2014",
    "lt_mcboost": "Beijbom 2014", "p_mcboost": "Beijbom 2014",
    "rebel": "Appel 2016",
    "combo": "Koco 2013", "adaboost_mm": "Koco 2013",
    "rda_bayes": "O'Brien 2008", "partition": "O'Brien 2008", "lachiche_flach": "O'Brien 2008",
    "metacost": "O'Brien 2008",
    "lightgbm_calibrated": "baseline", "lightgbm_weighted": "baseline",
    "xgboost_calibrated": "baseline", "xgboost_weighted": "baseline",
    "hgb_calibrated": "baseline", "hgb_weighted": "baseline",
    "logistic": "baseline", "wap": "baseline", "filter_tree": "baseline", "csoaa": "baseline",
}
BASELINES = tuple(m for m, g in GROUPS.items() if g == "baseline")


def family_of(problem: str) -> str:
    """The cost family of a ``<dataset>__<family>`` problem id ("" without the separator)."""
    return problem.partition("__")[2]


def cost_cube(store: pd.DataFrame, metric: str = "risk") -> tuple[list[str], list[str], np.ndarray]:
    """(problems, methods, values): ``values[p, m, t]`` is the test ``metric`` of method m on split t of problem p
    (the latest row of each trial; NaN where a trial is missing)."""
    sel = latest_trials(store).assign(value=lambda d: pd.to_numeric(d[metric], errors="coerce"))
    problems = sorted(sel["dataset"].unique())
    methods = sorted(sel["method"].unique(), key=lambda m: (list(GROUPS).index(m) if m in GROUPS else len(GROUPS), m))
    trials = sorted(sel["trial"].unique())
    cube = np.full((len(problems), len(methods), len(trials)), np.nan)
    p = pd.Index(problems).get_indexer(sel["dataset"])
    m = pd.Index(methods).get_indexer(sel["method"])
    t = pd.Index(trials).get_indexer(sel["trial"])
    cube[p, m, t] = sel["value"].to_numpy()
    return problems, methods, cube


def _complete(problems, cube):
    """The problems (and cube rows) where every method has every split: ranks and paired statistics need them."""
    keep = ~np.isnan(cube).any(axis=(1, 2))
    return [p for p, k in zip(problems, keep) if k], cube[keep]


def summarise(problems, methods, cube, n_boot=N_BOOT, seed=SEED) -> pd.DataFrame:
    """One row per method over ``problems`` (complete ones): average rank, relative cost against the best baseline
    with its interval, wins / ties / losses against it (module docstring).  Sorted by average rank."""
    means = cube.mean(axis=2)  # (P, M)
    avg_rank = ranks(means).mean(axis=0)
    base = [i for i, m in enumerate(methods) if m in BASELINES]
    best = base[int(np.argmin(avg_rank[base]))] if base else int(np.argmin(avg_rank))
    scale = means.mean(axis=1, keepdims=True)
    scale[scale == 0] = 1.0  # every method perfect on the problem: it adds 0 to every normalised sum
    boot = paired_bootstrap_means(cube, n_boot=n_boot, random_state=seed)  # (B, P, M)

    def relative(m):  # (P, M) or (B, P, M) -> relative cost against `best`
        norm = (m / scale).mean(axis=-2)
        return norm / norm[..., [best]] - 1.0

    rel, rel_boot = relative(means), relative(boot)
    lo, hi = percentile_interval(rel_boot, LEVEL)
    diff = boot - boot[:, :, [best]]
    d_lo, d_hi = percentile_interval(diff, LEVEL)  # (P, M)
    wins, losses = (d_hi < 0).sum(axis=0), (d_lo > 0).sum(axis=0)
    table = pd.DataFrame({
        "method": methods, "group": [GROUPS.get(m, "other") for m in methods], "average_rank": avg_rank,
        "relative_cost": rel, "relative_low": lo, "relative_high": hi,
        "wins": wins, "ties": len(problems) - wins - losses, "losses": losses,
        "best_baseline": methods[best], "n_problems": len(problems)})
    return table.sort_values(["average_rank", "method"], kind="stable").reset_index(drop=True)


def problem_table(problems, methods, cube, n_boot=N_BOOT, seed=SEED) -> pd.DataFrame:
    """Per problem and method: mean test cost over the splits and its 95 % bootstrap interval."""
    boot = paired_bootstrap_means(cube, n_boot=n_boot, random_state=seed)
    lo, hi = percentile_interval(boot, LEVEL)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(cube, axis=2)
    rows = [{"problem": p, "dataset": p.partition("__")[0], "family": family_of(p), "method": m,
             "mean_cost": mean[i, j], "ci_low": lo[i, j], "ci_high": hi[i, j],
             "n_splits": int((~np.isnan(cube[i, j])).sum())}
            for i, p in enumerate(problems) for j, m in enumerate(methods)]
    return pd.DataFrame(rows)


def friedman(problems, methods, cube, scope: str, out_dir: Path, name: str):
    """autorank's Friedman test and Nemenyi critical difference on the mean costs (lower is better), and its
    critical-difference diagram as ``name``.png; returns (row for friedman.csv, png path or None)."""
    from autorank import autorank, plot_stats

    data = pd.DataFrame(cube.mean(axis=2), index=problems, columns=methods)
    with contextlib.redirect_stdout(io.StringIO()):  # autorank prints its choice of tests and its rank table
        res = autorank(data, alpha=0.05, order="ascending", force_mode="nonparametric", approach="frequentist",
                       verbose=False)
    row = {"scope": scope, "n_problems": len(problems), "n_methods": len(methods), "test": res.omnibus,
           "p_value": res.pvalue, "posthoc": res.posthoc, "critical_difference": res.cd}
    path = None
    if res.posthoc == "nemenyi":
        with contextlib.redirect_stdout(io.StringIO()):
            ax = plot_stats(res, allow_insignificant=True, width=9)
        ax.set_title(f"Critical difference (Nemenyi, alpha 0.05), {scope}: {len(problems)} problems", fontsize=9)
        path = save_png(ax.figure, out_dir, name, bbox_inches="tight")  # the method names reach the edges
    return row, path


def plot_relative(families: pd.DataFrame, out_dir: Path) -> Path:
    """relative_cost.png: per family, each method's relative cost against the family's best baseline."""
    fams = [f for f in FAMILIES if f in set(families["family"])]
    order = families.groupby("method")["average_rank"].mean().sort_values().index
    fig, axes = plt.subplots(1, len(fams), figsize=(3.4 * len(fams), 0.28 * len(order) + 1.6), sharey=True,
                             squeeze=False)
    for ax, fam in zip(axes[0], fams):
        f = families[families["family"] == fam].set_index("method").reindex(order)
        y = np.arange(len(order))
        colors = ["C0" if GROUPS.get(m) == "baseline" else "C3" for m in order]
        err = np.vstack([f["relative_cost"] - f["relative_low"], f["relative_high"] - f["relative_cost"]])
        ax.barh(y, 100 * f["relative_cost"], xerr=100 * err, color=colors, alpha=0.8)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_title(f"{fam}\n(vs {f['best_baseline'].dropna().iloc[0]})", fontsize=9)
        ax.set_xlabel("% cost vs best baseline")
    axes[0][0].set_yticks(np.arange(len(order)), order, fontsize=8)
    axes[0][0].invert_yaxis()
    fig.suptitle("Relative test cost per cost family (red: the papers' methods, blue: baselines; 95 % bootstrap)",
                 fontsize=10)
    fig.tight_layout()
    return save_png(fig, out_dir, "relative_cost")


def plot_cost_time(board: pd.DataFrame, out_dir: Path) -> Path:
    """cost_vs_time.png: average rank (all problems) against median training seconds, log scale."""
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for group, g in board.groupby("group"):
        ax.scatter(g["median_fit_seconds"], g["average_rank"], label=group, s=30)
        for _, r in g.iterrows():
            ax.annotate(r["method"], (r["median_fit_seconds"], r["average_rank"]), fontsize=7,
                        xytext=(3, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("median training time per split (s, log scale)")
    ax.set_ylabel("average rank over all problems (1 = best)")
    ax.invert_yaxis()
    ax.legend(fontsize=8)
    ax.set_title("Cost against training time")
    fig.tight_layout()
    return save_png(fig, out_dir, "cost_vs_time")


def plot_leaderboard(out_dir, store: pd.DataFrame, cfg=None) -> list[Path]:
    """Every table and figure of the module docstring."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    problems, methods, cube = cost_cube(store)
    seconds = latest_trials(store).groupby("method")["fit_seconds"].median()
    problem_table(problems, methods, cube).to_csv(out_dir / "problems.csv", index=False)
    problems, cube = _complete(problems, cube)
    if not problems:
        raise ValueError("no problem has every method on every split: run the experiment to completion first")
    board = summarise(problems, methods, cube)
    board["median_fit_seconds"] = board["method"].map(seconds)
    board.to_csv(out_dir / "leaderboard.csv", index=False)
    paths = [out_dir / "problems.csv", out_dir / "leaderboard.csv"]
    fam_rows, tests, pngs = [], [], []
    row, png = friedman(problems, methods, cube, "all problems", out_dir, "cd_diagram")
    tests.append(row)
    pngs.append(png)
    for fam in FAMILIES:
        sel = [i for i, p in enumerate(problems) if family_of(p) == fam]
        if not sel:
            continue
        sub = [problems[i] for i in sel]
        fam_rows.append(summarise(sub, methods, cube[sel]).assign(family=fam))
        if len(sel) >= MIN_FRIEDMAN:
            row, png = friedman(sub, methods, cube[sel], fam, out_dir, f"cd_{fam}")
            tests.append(row)
            pngs.append(png)
    families = pd.concat(fam_rows, ignore_index=True)
    families = families[["family"] + [c for c in families.columns if c != "family"]]
    families.to_csv(out_dir / "families.csv", index=False)
    pd.DataFrame(tests).to_csv(out_dir / "friedman.csv", index=False)
    paths += [out_dir / "families.csv", out_dir / "friedman.csv", plot_relative(families, out_dir),
              plot_cost_time(board, out_dir)]
    return paths + [p for p in pngs if p is not None]


FIGURES = {"leaderboard": plot_leaderboard}
