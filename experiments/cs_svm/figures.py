"""Figure V.1 of the Masnadi-Shirazi thesis: the cost-sensitive hinge risk and loss, and a separable 2-D CS-SVM."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from csrepro.losses.binary import HINGE, CostSensitiveHinge
from csrepro.report.figures import save_png
from csrepro.svm.cs_svm import CostSensitiveSVC

#: the costs of the figure (top row) and the hard-margin C used for the separable example
CS_LOSS = CostSensitiveHinge(4.0, 2.0)
HARD_C = 1e4


def separable_example(seed=3, n=15):
    """Two linearly separable Gaussian clouds in 2-D (y = +1 upper right, -1 lower left)."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(1.6, 0.7, size=(n, 2)), rng.normal(-1.6, 0.7, size=(n, 2))])
    return X, np.r_[np.ones(n), -np.ones(n)]


def _arbitrary_separator(X, y, angle=0.45):
    """(w, b) of a separating line: the class-mean direction turned by ``angle`` rad, b mid-gap."""
    d = X[y > 0].mean(0) - X[y < 0].mean(0)
    c, s = np.cos(angle), np.sin(angle)
    w = np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]])
    proj = X @ w
    if proj[y > 0].min() <= proj[y < 0].max():
        raise RuntimeError("the arbitrary line does not separate the example; lower the angle")
    return w, -0.5 * (proj[y > 0].min() + proj[y < 0].max())


def _line(ax, w, b, level, xs, **kw):
    """Draw {x : w'x + b = level} over the x-range xs."""
    ax.plot(xs, (level - b - w[0] * xs) / w[1], **kw)


def _risk_and_loss(ax_risk, ax_loss, loss, title):
    eta = np.linspace(0, 1, 401)
    f = np.linspace(-3, 3, 1201)
    exact = loss.conditional_risk(eta[:, None], f[None, :]).min(axis=1)
    ax_risk.plot(eta, loss.min_conditional_risk(eta), "b", lw=2, label=r"$C^*_{\phi,C_1,C_{-1}}(\eta)$ (V.39)")
    ax_risk.plot(eta, exact, "k:", lw=1.5, label=r"$\min_f C(\eta, f)$ of (V.38)")
    ax_risk.axvline(loss.gamma, color="gray", lw=0.8, ls="--")
    ax_risk.set(xlabel=r"$\eta$", title=title)
    ax_risk.legend(fontsize=7, loc="lower center")
    v = np.linspace(-2, 2, 401)
    ax_loss.plot(v, loss.value(1, v), "r", lw=2, label=r"$y=1$: $[C_1 - C_1 v]_+$")
    ax_loss.plot(v, loss.value(-1, -v), "g--", lw=2, label=r"$y=-1$: $[1 - (2C_{-1}-1) v]_+$")
    ax_loss.set(xlabel=r"$v = y f$", ylim=(-0.2, 2 * loss.C1 + 1), title=f"loss (V.38), {title}")
    ax_loss.legend(fontsize=7, loc="upper right")


def plot_figure_v1(out_dir, store=None, cfg=None) -> list[Path]:
    """Draw Figure V.1 (left: C* and loss for C_1=4, C_-1=2 and C_1=C_-1=1; right: separable CS-SVM)."""
    fig = plt.figure(figsize=(13, 6.5), constrained_layout=True)
    grid = fig.add_gridspec(2, 3, width_ratios=[1, 1, 1.5])
    for row, (loss, title) in enumerate([(CS_LOSS, r"$C_1=4,\ C_{-1}=2$"), (HINGE, r"$C_1=C_{-1}=1$")]):
        _risk_and_loss(fig.add_subplot(grid[row, 0]), fig.add_subplot(grid[row, 1]), loss, title)

    ax = fig.add_subplot(grid[:, 2])
    X, y = separable_example()
    xs = np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 50)
    ax.plot(*X[y > 0].T, "o", color="tab:blue", mfc="none", label="y = +1")
    ax.plot(*X[y < 0].T, "x", color="tab:red", label="y = -1")
    _line(ax, *_arbitrary_separator(X, y), 0.0, xs, color="green", lw=1.5, label="arbitrary separator")
    for variant, color, name, levels in [("svm", "red", "SVM", (1.0, -1.0)),
                                         ("cs", "blue", "CS-SVM (C1=4, C-1=2)", (1.0, -CS_LOSS.kappa))]:
        clf = CostSensitiveSVC(variant=variant, C=HARD_C, C1=CS_LOSS.C1, C_minus1=CS_LOSS.C_minus1,
                               kernel="linear", tol=1e-8).fit(X, y)
        w, b = clf.coef_[0], clf.intercept_[0]
        _line(ax, w, b, 0.0, xs, color=color, lw=2, label=name)
        for level in levels:
            _line(ax, w, b, level, xs, color=color, lw=0.8, ls="--")
    ax.set(xlim=(xs[0], xs[-1]), ylim=(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5), aspect="equal",
           title="separable data; dashed: margins f = 1, f = -kappa (CS-SVM)\n"
                 "and f = +-1 (SVM), which coincide (see NOTES)")
    ax.legend(fontsize=8, loc="upper left")
    return [save_png(fig, out_dir, "figure_v1")]


FIGURES = {"figure_v1": plot_figure_v1}
