"""Figures IV.2 and III.5 of the Masnadi-Shirazi thesis: margin losses, minimum risks and boosting weights.

Both are drawn from :mod:`csrepro.losses.binary` alone (the store and config are not used).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from csrepro.losses.binary import get_margin_loss
from csrepro.report.figures import save_png

#: Figure IV.2: the methods of Table IV.1 plus the Savage (IV.14) and Tangent (IV.30) losses
FIGURE_IV2_LOSSES = (("square", "Least squares"), ("hinge", "SVM"), ("exponential", "Boosting"),
                     ("logistic", "Logistic regression"), ("savage", "Savage"), ("tangent", "Tangent"))
#: Figure III.5: the canonical losses of Table III.2 and the margin parameters drawn
FIGURE_III5_LOSSES = (("canonical_logistic", "Canonical logistic"), ("canonical_boosting", "Canonical boosting"),
                      ("canonical_gaussian", "Canonical Gaussian"), ("canonical_laplacian", "Canonical Laplacian"))
FIGURE_III5_A = (0.2, 0.5, 1.0, 2.0, 5.0)


def plot_figure_iv2(out_dir, store_df=None, cfg=None) -> list[Path]:
    """phi(v) (left) and C*(eta) (right) of each loss, with the 0-1 loss and its minimum risk (IV.2)."""
    v = np.linspace(-3, 3, 601)
    eta = np.linspace(0, 1, 401)
    fig, (ax_loss, ax_risk) = plt.subplots(1, 2, figsize=(11, 4.5), constrained_layout=True)
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


def plot_figure_iii5(out_dir, store_df=None, cfg=None) -> list[Path]:
    """The canonical gradientBoost weights w(v) = 1 - [f*]^{-1}(v) (III.57, Table III.2) for several a."""
    v = np.linspace(-10, 10, 801)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), constrained_layout=True, sharex=True, sharey=True)
    for ax, (name, title) in zip(axes.ravel(), FIGURE_III5_LOSSES):
        for a in FIGURE_III5_A:
            ax.plot(v, get_margin_loss(name, a).weight(v), lw=1.5, label=f"a = {a:g}")
        ax.set(title=title, xlabel="$v = yF(x)$", ylabel="$w(v)$", ylim=(-0.02, 1.02))
        ax.legend(fontsize=8)
    fig.suptitle("Masnadi-Shirazi thesis, Figure III.5 (reproduced): gradientBoost weights of canonical losses",
                 fontsize=10)
    return [save_png(fig, out_dir, "figure_iii5_weights")]
