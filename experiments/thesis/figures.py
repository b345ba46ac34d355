"""Figures of the Masnadi-Shirazi 2011 thesis, Ch. III-IV: III.6, III.7 and IV.3 from an experiment's store;
IV.2 and III.5 from :mod:`csrepro.losses.binary` alone (the store and config are not used).

Each is a figure function ``f(out_dir, store, cfg) -> [png paths]`` (:mod:`csrepro.report.figures`),
listed in ``FIGURES``.  Datasets that are ``exp.per_dataset`` aliases are placed on the x axis by
their protocol options (``train_size`` for Figure III.6, ``label_noise`` for Figure IV.3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from csrepro.losses.binary import get_margin_loss
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


#: Figure IV.2: the methods of Table IV.1 plus the Savage (IV.14) and Tangent (IV.30) losses
FIGURE_IV2_LOSSES = (("square", "Least squares"), ("hinge", "SVM"), ("exponential", "Boosting"),
                     ("logistic", "Logistic regression"), ("savage", "Savage"), ("tangent", "Tangent"))
#: Figure III.5: the canonical losses of Table III.2 and the margin parameters drawn
FIGURE_III5_LOSSES = (("canonical_logistic", "Canonical logistic"), ("canonical_boosting", "Canonical boosting"),
                      ("canonical_gaussian", "Canonical Gaussian"), ("canonical_laplacian", "Canonical Laplacian"))
FIGURE_III5_A = (0.2, 0.5, 1.0, 2.0, 5.0)


def plot_figure_iv2(out_dir, store_df=None, cfg=None) -> list:
    """phi(v) (left) and C*(eta) (right) of each loss, with the 0-1 loss and its minimum risk (IV.2)."""
    v = np.linspace(-3, 3, 601)
    eta = np.linspace(0, 1, 401)
    fig, (ax_loss, ax_risk) = _plt().subplots(1, 2, figsize=(11, 4.5), constrained_layout=True)
    ax_loss.plot(v, (v <= 0).astype(float), "k", lw=1, label="0-1")
    ax_risk.plot(eta, 1 - np.maximum(eta, 1 - eta), "k", lw=1, label="0-1 (Bayes error)")
    for name, label in FIGURE_IV2_LOSSES:
        loss = get_margin_loss(name)
        ax_loss.plot(v, loss.value(v), lw=1.5, label=label)
        ax_risk.plot(eta, loss.min_conditional_risk(eta), lw=1.5, label=label)
    ax_loss.set(xlabel="$v$", ylabel=r"$\phi(v)$", ylim=(0, 6), title="loss")
    ax_risk.set(xlabel=r"$\eta$", ylabel=r"$C^*_\phi(\eta)$", ylim=(0, 1.05), title="minimum conditional risk")
    ax_loss.legend(fontsize=8)
    ax_risk.legend(fontsize=8, loc="upper right")
    fig.suptitle("Masnadi-Shirazi thesis, Figure IV.2 (reproduced)", fontsize=10)
    return [save_png(fig, out_dir, "figure_iv2_losses")]


def plot_figure_iii5(out_dir, store_df=None, cfg=None) -> list:
    """The canonical gradientBoost weights w(v) = 1 - [f*]^{-1}(v) (III.57, Table III.2) for several a."""
    v = np.linspace(-10, 10, 801)
    fig, axes = _plt().subplots(2, 2, figsize=(10, 7.5), constrained_layout=True, sharex=True, sharey=True)
    for ax, (name, title) in zip(axes.ravel(), FIGURE_III5_LOSSES):
        for a in FIGURE_III5_A:
            ax.plot(v, get_margin_loss(name, a).weight(v), lw=1.5, label=f"a = {a:g}")
        ax.set(title=title, xlabel="$v = yF(x)$", ylabel="$w(v)$", ylim=(-0.02, 1.02))
        ax.legend(fontsize=8)
    fig.suptitle("Masnadi-Shirazi thesis, Figure III.5 (reproduced): gradientBoost weights of canonical losses",
                 fontsize=10)
    return [save_png(fig, out_dir, "figure_iii5_weights")]


FIGURES = {"figure_iii6": plot_figure_iii6, "figure_iii7": plot_figure_iii7, "figure_iv3": plot_figure_iv3,
           "figure_iv2": plot_figure_iv2, "figure_iii5": plot_figure_iii5}
