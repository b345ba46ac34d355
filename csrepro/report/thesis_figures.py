"""Thesis figures drawn from an experiment's store (Masnadi-Shirazi 2011, Figures III.6, III.7 and IV.3).

Each is a csrepro.report.figures function ``f(out_dir, store, cfg) -> [png paths]``.  Datasets
that are ``exp.per_dataset`` aliases are placed on the x axis by their protocol options
(``train_size`` for Figure III.6, ``label_noise`` for Figure IV.3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from csrepro.metrics import average_rank
from csrepro.report.derived import family_values, trial_table
from csrepro.report.figures import save_png

LABELS = {"clog": "canonical logistic", "cboost": "canonical boosting", "cgauss": "canonical Gaussian",
          "claplace": "canonical Laplacian"}


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _exp(cfg) -> dict:
    return OmegaConf.to_container(cfg.exp, resolve=True) if OmegaConf.is_config(cfg.exp) else dict(cfg["exp"])


def _option(exp: dict, dataset: str, key: str):
    """``exp.per_dataset[dataset].protocol[key]`` (None when not set)."""
    return ((exp.get("per_dataset") or {}).get(dataset) or {}).get("protocol", {}).get(key)


def plot_figure_iii6(out_dir, store: pd.DataFrame, cfg) -> list:
    """Figure III.6: test error vs training examples per class, mean and SD over the margin values and repetitions.

    Solid: all grid values of a family, as in the thesis; dashed: only a <= 1 (larger a make our
    canonical GradientBoost diverge, experiments/thesis/NOTES.md).
    """
    plt = _plt()
    exp = _exp(cfg)
    sizes = {d: _option(exp, d, "train_size") for d in exp["datasets"]}
    table = trial_table(store, "error", list(sizes))
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, (family, members) in enumerate(family_values(exp["methods"]).items()):
        for subset, style in ((members, "-"), ({m: a for m, a in members.items() if a <= 1}, "--")):
            points = _error_points(table, sizes, [m for m in subset if m in table.columns])
            if points:
                n, mean, sd = np.array(points).T
                label = LABELS.get(family, family) + ("" if style == "-" else ", a <= 1")
                ax.errorbar(n, mean, yerr=sd, marker="o", capsize=3, linestyle=style, color=f"C{i}", label=label)
    ax.axhline(30, color="gray", linestyle=":", label="Bayes error")
    ax.set(xscale="log", xlabel="training examples per class", ylabel="test error (%)",
           title="Two Gaussian classes: error over the margin values (mean ± SD)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return [save_png(fig, out_dir, "figure_iii6_error_vs_training_size")]


def _error_points(table: pd.DataFrame, sizes: dict, methods: list) -> list:
    """(n, mean %, SD %) per training size over ``methods`` and trials, sorted by n."""
    points = []
    for dataset, n in sizes.items():
        if table.empty or not methods or n is None or dataset not in table.index.get_level_values("dataset"):
            continue
        values = table.loc[dataset, methods].to_numpy().ravel()
        values = values[np.isfinite(values)]
        points.append((n, 100 * values.mean(), 100 * values.std(ddof=1) if len(values) > 1 else 0.0))
    return sorted(points)


def plot_figure_iii7(out_dir, store: pd.DataFrame, cfg) -> list:
    """Figure III.7: average rank (1 = smallest mean error) of each margin value over the datasets, per loss."""
    plt = _plt()
    exp = _exp(cfg)
    table = trial_table(store, "error", exp["datasets"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for family, members in family_values(exp["methods"]).items():
        if table.empty or not set(members) <= set(table.columns):
            continue
        means = table[list(members)].groupby(level="dataset").mean().dropna()
        if means.empty:
            continue
        ranks = average_rank(means.to_numpy())
        ax.plot(list(members.values()), ranks, marker="o", label=LABELS.get(family, family))
    ax.set(xscale="log", xlabel="margin parameter a", ylabel="average rank over datasets",
           title="Average rank of each margin value (19 values; 1 = best)")
    ax.legend()
    fig.tight_layout()
    return [save_png(fig, out_dir, "figure_iii7_average_rank_vs_a")]


def plot_figure_iv3(out_dir, store: pd.DataFrame, cfg) -> list:
    """Figure IV.3: test error vs training-label contamination on the liver-disorder (bupa) data, per method."""
    plt = _plt()
    exp = _exp(cfg)
    per = exp.get("per_dataset") or {}
    levels = {d: _option(exp, d, "label_noise") or 0.0 for d in exp["datasets"]
              if (per.get(d) or {}).get("dataset", d) == "bupa"}
    table = trial_table(store, "error", list(levels))
    fig, ax = plt.subplots(figsize=(6, 4))
    if not table.empty:
        means = table.groupby(level="dataset").mean()
        for method in means.columns:
            points = sorted((100 * levels[d], 100 * means.loc[d, method]) for d in means.index)
            ax.plot(*zip(*points), marker="o", label=method)
    ax.set(xlabel="outliers (% of training labels flipped)", ylabel="test error (%)",
           title="Liver disorder (bupa), 5-fold average error")
    ax.legend()
    fig.tight_layout()
    return [save_png(fig, out_dir, "figure_iv3_liver_error_vs_contamination")]
