"""Figure VI.2 of the Masnadi-Shirazi thesis (Sec. VI.E.1): zero crossings of cost-sensitive boosters.

Two unit-variance Gaussian classes at -1 (y = 0) and +1 (y = 1) (registry ``gaussians_1d``); for
C2 = 1 and a range of C1 each booster is trained for a few iterations and its zero crossing x*
(the runner's ``zero_crossing`` metric, :func:`csrepro.metrics.zero_crossing`) is compared with the
optimal one.  With P(y = 1 | x) = 1/(1 + e^{-2x}) (VI.55), the cost-sensitive boundary
P(1 | x*) = C2/(C1 + C2) (VI.54) is at x* = 1/2 log(C2/C1) = T/2 with T = log(C2/C1) (VI.7) (the
thesis prints -T/2; see experiments/cs_boost/NOTES.md).  Panel a puts (x*, C2/(C1 + C2)) on the true
posterior curve, panel b the optimal against the learned x*.  The crossings come from the store
(conf/exp/cs_boost_synthetic.yaml: one method id per booster and C1) and are also written to
``figure_vi2_zero_crossings.csv``, their deviations to ``figure_vi2_deviation.csv``.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.report.figures import save_png
from csrepro.report.rank_tables import plot_rank_tables

LABELS = {"cs_ada": "CS-Ada", "cs_real": "CS-Real", "cs_logit": "CS-Logit"}


def crossings_from_store(store: pd.DataFrame) -> pd.DataFrame:
    """One row per stored (method, C1) with a ``zero_crossing``: x_star, the optimal x_opt = 1/2 log(C2/C1),
    their difference and the posterior target C2/(C1 + C2); ``method`` is the id's family (``cs_ada[C1=2]``
    -> ``cs_ada``), C2 = 1 unless the params give it.  A store without the column (e.g. an empty one) has none."""
    rows = []
    stored = store.dropna(subset=["zero_crossing"]) if "zero_crossing" in store.columns else store.iloc[:0]
    for _, r in stored.iterrows():
        params = json.loads(r["params"])
        C1, C2 = float(params["C1"]), float(params.get("C2", 1.0))
        x_opt = 0.5 * np.log(C2 / C1)
        rows.append({"method": r["method"].split("[")[0], "C1": C1, "C2": C2, "x_star": r["zero_crossing"],
                     "x_opt": x_opt, "deviation": r["zero_crossing"] - x_opt, "posterior_target": C2 / (C1 + C2)})
    columns = ["method", "C1", "C2", "x_star", "x_opt", "deviation", "posterior_target"]
    return pd.DataFrame(rows, columns=columns).sort_values(["method", "C1"], kind="stable").reset_index(drop=True)


def summarise(crossings: pd.DataFrame) -> pd.DataFrame:
    """Mean and largest |x* - x_opt| per method."""
    d = crossings.assign(abs_dev=crossings["deviation"].abs())
    return d.groupby("method", sort=False)["abs_dev"].agg(mean_abs_deviation="mean", max_abs_deviation="max")


def plot_figure_vi2(out_dir, store, cfg) -> list[Path]:
    """Figure VI.2 a/b from the stored zero crossings (nothing when the store has none)."""
    crossings = crossings_from_store(store)
    if crossings.empty:
        return []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    crossings.to_csv(out_dir / "figure_vi2_zero_crossings.csv", index=False, float_format="%.6g")
    summarise(crossings).to_csv(out_dir / "figure_vi2_deviation.csv", float_format="%.6g")
    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(10, 4.2))
    xs = np.linspace(-3.2, 3.2, 400)
    ax_a.plot(xs, 1.0 / (1.0 + np.exp(-2 * xs)), "k-", label="true $P(y=1|x)$ (VI.55)")
    ax_b.plot(xs, xs, "k-", label="optimal")
    for (method, g), marker in zip(crossings.groupby("method", sort=False), "os^", strict=False):
        label = LABELS.get(method, method)
        ax_a.plot(g["x_star"], g["posterior_target"], marker, ls="none", mfc="none", label=label)
        ax_b.plot(g["x_star"], g["x_opt"], marker, ls="none", mfc="none", label=label)
    ax_a.set(xlabel="$x^*$", ylabel="$C_2/(C_1+C_2)$", title="a) posterior at the zero crossing")
    ax_b.set(xlabel="learned $x^*$", ylabel=r"optimal $x^* = \frac{1}{2}\log(C_2/C_1)$",
             title="b) learned vs optimal zero crossing")
    for ax in (ax_a, ax_b):
        ax.set_xlim(-3.2, 3.2)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return [save_png(fig, out_dir, "figure_vi2")]


FIGURES = {"figure_vi2": plot_figure_vi2, "cs_boost_ranks": plot_rank_tables}
