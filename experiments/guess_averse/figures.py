"""Figure 3 of Beijbom et al. 2014: loss surfaces of L_s and GLL for an example of class 1."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm

from csrepro.losses.multiclass import GLL, LsLoss

#: score vectors marked in the paper: G in S_1 (Fig. 3a) and H outside S_1 (Fig. 3c)
POINT_G = np.array([3.0, 2.0, -5.0])
POINT_H = np.array([1.5, 2.0, -3.5])
COST_INSENSITIVE = 1.0 - np.eye(3)
#: colour range of the shifted loss (values outside are clipped so all panels share a scale)
CLIP = (-3.0, 10.0)
COST_C12_1_C13_10 = np.array([[0.0, 1.0, 10.0], [1.0, 0.0, 1.0], [10.0, 1.0, 0.0]])


def shifted_surface(loss, C, s1, s2):
    """L(C, 1, S) - L(C, 1, 0) on the plane S_3 = -S_1 - S_2 (the paper's 2-D projection)."""
    S = np.stack([s1.ravel(), s2.ravel(), -(s1 + s2).ravel()], axis=1)
    z = np.zeros(len(S), dtype=np.intp)
    base = loss.value(np.zeros((1, 3)), z[:1], C)[0]
    return (loss.value(S, z, C) - base).reshape(s1.shape)


def point_loss(loss, C, point):
    """Shifted loss at one score vector (a point marked on a panel)."""
    return loss.value(point[None], np.array([0]), C)[0] - loss.value(np.zeros((1, 3)), np.array([0]), C)[0]


PANELS = [
    ("(a) $L_s$, cost-insensitive", LsLoss(), COST_INSENSITIVE, ("G", POINT_G)),
    ("(b) GLL, cost-insensitive", GLL, COST_INSENSITIVE, ("G", POINT_G)),
    ("(c) GLL, $C_{12}=1$, $C_{13}=10$", GLL, COST_C12_1_C13_10, ("H", POINT_H)),
    ("(d) $L_s$, $C_{12}=1$, $C_{13}=10$", LsLoss(), COST_C12_1_C13_10, ("H", POINT_H)),
]


def plot_figure3(out_dir, store=None, cfg=None, lim=4.0, n=121) -> list[Path]:
    """Draw the four loss-surface panels with the region S_1 outlined; returns the PNG path."""
    s = np.linspace(-lim, lim, n)
    s1, s2 = np.meshgrid(s, s)
    fig, axes = plt.subplots(2, 2, figsize=(10, 9), constrained_layout=True)
    for ax, (title, loss, C, (label, pt)) in zip(axes.ravel(), PANELS):
        Z = shifted_surface(loss, C, s1, s2)
        im = ax.contourf(s1, s2, np.clip(Z, *CLIP), levels=np.linspace(*CLIP, 27), cmap="RdBu_r",
                         norm=TwoSlopeNorm(0.0, *CLIP))
        ax.contour(s1, s2, Z, levels=[0.0], colors="k", linewidths=1.5)
        # S_1 = {S_1 > S_2, S_1 > S_3 = -S_1 - S_2}: between s2 = s1 and s2 = -2 s1
        ax.plot(s, s, "k--", lw=0.8)
        ax.plot(s, -2 * s, "k--", lw=0.8)
        ax.plot(pt[0], pt[1], "o", color="gold", mec="k")
        ax.annotate(f"{label} = {pt.tolist()}\nloss - L(0) = {point_loss(loss, C, pt):.2f}",
                    pt[:2], xytext=(5, 5), textcoords="offset points", fontsize=8)
        ax.set(title=title, xlabel="$S_1$", ylabel="$S_2$", xlim=(-lim, lim), ylim=(-lim, lim))
        fig.colorbar(im, ax=ax, shrink=0.8, label="$L(C,1,S) - L(C,1,0)$")
    fig.suptitle("Beijbom et al. 2014, Figure 3 (reproduced): black contour = loss of the guess point 0; "
                 "dashed lines bound $\\mathcal{S}_1$", fontsize=10)
    out = Path(out_dir) / "figure3_loss_surfaces.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]


FIGURES = {"figure3": plot_figure3}
