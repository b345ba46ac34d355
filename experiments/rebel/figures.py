"""Figures of Appel, Burgos-Artizzu & Perona 2016 (REBEL): Fig. 3, cost of the standard approach vs REBEL per trial."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.report.figures import save_png
from csrepro.report.tables import latest_trials

#: published: "REBEL outperforms the standard method in 90% of the trials" (Sec. 5, text of Fig. 3)
PUBLISHED_WIN_PCT = 90.0


def paired_costs(store: pd.DataFrame, datasets=None) -> pd.DataFrame:
    """(dataset, trial) x {rebel_standard, rebel} test cost per example (``risk``), trials with both methods only."""
    if store.empty:
        return pd.DataFrame(columns=["rebel_standard", "rebel"])
    sel = latest_trials(store[store["method"].isin(["rebel", "rebel_standard"])])
    if datasets is not None:
        sel = sel[sel["dataset"].isin(list(datasets))]
    table = sel.pivot_table(index=["dataset", "trial"], columns="method", values="risk", aggfunc="last")
    return table.reindex(columns=["rebel_standard", "rebel"]).dropna()


def win_summary(pairs: pd.DataFrame) -> dict:
    """Trials, REBEL's wins (strictly lower cost), ties and losses, and the win percentage."""
    n = len(pairs)
    wins = int((pairs["rebel"] < pairs["rebel_standard"]).sum())
    ties = int((pairs["rebel"] == pairs["rebel_standard"]).sum())
    return {"n_trials": n, "rebel_wins": wins, "ties": ties, "rebel_losses": n - wins - ties,
            "win_pct": 100.0 * wins / n if n else np.nan, "published_win_pct": PUBLISHED_WIN_PCT}


def plot_figure3(out_dir, store, cfg=None) -> list[Path]:
    """Log-log scatter, x = cost of the standard approach, y = cost of REBEL, one point per trial, with the
    diagonal; writes figure3.png and figure3.csv (the per-trial costs and, in figure3_summary.csv, the
    fraction of trials REBEL wins beside the published 90 %)."""
    datasets = list(cfg["exp"]["datasets"]) if cfg is not None else None
    pairs = paired_costs(store, datasets)
    summary = win_summary(pairs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pairs.reset_index().to_csv(out_dir / "figure3.csv", index=False)
    pd.DataFrame([summary]).to_csv(out_dir / "figure3_summary.csv", index=False)
    fig, ax = plt.subplots(figsize=(5.5, 5.5), constrained_layout=True)
    positive = pairs[(pairs > 0).all(axis=1)]
    for dataset, part in positive.groupby(level="dataset"):
        ax.scatter(part["rebel_standard"], part["rebel"], s=14, alpha=0.8, label=str(dataset))
    lo = min(0.1, float(positive.min().min())) if len(positive) else 0.1
    ax.plot([lo, 1.0], [lo, 1.0], "k--", lw=1, label="Equal costs")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, 1.0)
    ax.set_ylim(lo, 1.0)
    ax.set_xlabel("Cost using standard method")
    ax.set_ylabel("Cost using REBEL")
    ax.set_title(f"REBEL wins {summary['win_pct']:.1f} % of {summary['n_trials']} trials (published: 90 %)", fontsize=10)
    ax.legend(fontsize=6, ncol=2, loc="lower right")
    return [save_png(fig, out_dir, "figure3")]


FIGURES = {"figure3": plot_figure3}
