"""Figure VI.2 of the Masnadi-Shirazi thesis (Sec. VI.E.1): zero crossings of cost-sensitive boosters.

Two unit-variance Gaussian classes at -1 (y = -1) and +1 (y = +1), ``n_per_class`` samples each;
for C2 = 1 and a range of C1 each booster is trained for ``n_estimators`` iterations and its zero
crossing x* is compared with the optimal one.  With P(y = 1 | x) = 1/(1 + e^{-2x}) (VI.55), the
cost-sensitive boundary P(1 | x*) = C2/(C1 + C2) (VI.54) is at x* = 1/2 log(C2/C1) = T/2 with
T = log(C2/C1) (VI.7) (the thesis prints -T/2; see experiments/cs_boost/NOTES.md).  Panel a puts
(x*, C2/(C1 + C2)) on the true posterior curve, panel b the optimal against the learned x*.
The experiment is small (seconds), so it runs inside the figure function from the config's
``report.figure_vi2`` block; the crossings are also written to ``figure_vi2_zero_crossings.csv``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.boosting.cs_methods import make_base
from csrepro.report.figures import save_png

DEFAULTS = {
    "n_per_class": 10_000,
    "n_estimators": 5,
    "log_C1": [-4.0, 4.0, 17],  # np.linspace(start, stop, num) of log C1; C2 = 1
    "seed": 0,
    "methods": {"cs_adaboost": {"weak_learner": "stump"},
                "cs_realboost": {"weak_learner": "histogram"},
                "cs_logitboost": {"weak_learner": "line"}},
}
LABELS = {"cs_adaboost": "CS-Ada", "cs_realboost": "CS-Real", "cs_logitboost": "CS-Logit"}


def gaussian_problem(n_per_class, seed):
    """X (2n, 1) and y in {0, 1}: N(-1, 1) for y = 0, N(+1, 1) for y = 1 (Sec. VI.E.1)."""
    rng = np.random.default_rng(seed)
    X = np.concatenate([rng.normal(-1.0, 1.0, n_per_class), rng.normal(1.0, 1.0, n_per_class)])[:, None]
    return X, np.repeat([0, 1], n_per_class)


def zero_crossing(model, lo=-4.0, hi=4.0, n=8001) -> float:
    """The threshold t whose rule sign(x - t) best agrees with sign F(x) on a grid of [lo, hi].

    For a monotone F this is its zero crossing; for the step functions of stumps and histograms
    it is the crossing that explains the most of the decision (robust to small wiggles).
    """
    grid = np.linspace(lo, hi, n)
    positive = model.decision_function(grid[:, None]) > 0
    # disagreements of sign(x - grid[k]) with F: positives left of k plus negatives from k on
    left_pos = np.concatenate([[0], np.cumsum(positive)])[:-1]
    right_neg = np.cumsum((~positive)[::-1])[::-1]
    return float(grid[int(np.argmin(left_pos + right_neg))])


def zero_crossings(settings: dict | None = None) -> pd.DataFrame:
    """One row per (method, C1): x_star, the optimal x_opt = 1/2 log(C2/C1), and their difference."""
    s = {**DEFAULTS, **(settings or {})}
    X, y = gaussian_problem(int(s["n_per_class"]), int(s["seed"]))
    rows = []
    for method, params in s["methods"].items():
        for log_c1 in np.linspace(*s["log_C1"][:2], int(s["log_C1"][2])):
            C1 = float(np.exp(log_c1))
            model = make_base(method, C1=C1, C2=1.0, n_estimators=int(s["n_estimators"]), **params).fit(X, y)
            x_star, x_opt = zero_crossing(model), 0.5 * np.log(1.0 / C1)
            rows.append({"method": method, "C1": C1, "C2": 1.0, "x_star": x_star, "x_opt": x_opt,
                         "deviation": x_star - x_opt, "posterior_target": 1.0 / (1.0 + C1)})
    return pd.DataFrame(rows)


def summarise(crossings: pd.DataFrame) -> pd.DataFrame:
    """Mean and largest |x* - x_opt| per method."""
    d = crossings.assign(abs_dev=crossings["deviation"].abs())
    return d.groupby("method", sort=False)["abs_dev"].agg(mean_abs_deviation="mean", max_abs_deviation="max")


def plot_figure_vi2(out_dir, store, cfg) -> list[Path]:
    """Figure VI.2 a/b from ``exp.report.figure_vi2`` settings (defaults: :data:`DEFAULTS`)."""
    from omegaconf import OmegaConf

    block = OmegaConf.select(cfg, "exp.report.figure_vi2")
    settings = OmegaConf.to_container(block, resolve=True) if block is not None else {}
    crossings = zero_crossings(settings)
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
