"""Figure registry: figure id (as listed in an experiment's report.figures) -> plotting function.

A plotting function is ``f(out_dir, store_df, cfg) -> list[Path]``: it draws from the store
DataFrame and the composed config, writes PNGs under ``out_dir`` (see :func:`save_png`) and
returns their paths.  Entries are functions or "module:function" strings (imported when drawn).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

FIGURES: dict[str, Callable | str] = {
    "figure3": "csrepro.report.loss_surfaces:plot_figure3",  # Beijbom et al. 2014, Fig. 3
    "figure_v1": "csrepro.report.cs_svm_figures:plot_figure_v1",  # Masnadi-Shirazi thesis, Fig. V.1
    "figure_vi2": "csrepro.report.cs_boost_figures:plot_figure_vi2",  # Masnadi-Shirazi thesis, Fig. VI.2
    "cs_boost_ranks": "csrepro.report.rank_tables:plot_rank_tables",  # thesis Tables VI.2, VI.4, #wins rows
    "figure_iii6": "csrepro.report.thesis_figures:plot_figure_iii6",  # thesis Fig. III.6
    "figure_iii7": "csrepro.report.thesis_figures:plot_figure_iii7",  # thesis Fig. III.7
    "figure_iv3": "csrepro.report.thesis_figures:plot_figure_iv3",  # thesis Fig. IV.3
    "figure_iv2": "csrepro.report.binary_losses:plot_figure_iv2",  # Masnadi-Shirazi thesis, Fig. IV.2
    "figure_iii5": "csrepro.report.binary_losses:plot_figure_iii5",  # Masnadi-Shirazi thesis, Fig. III.5
}


def get_figure(fig_id: str):
    """The plotting function registered under ``fig_id``."""
    if fig_id not in FIGURES:
        raise ValueError(f"unknown figure id {fig_id!r}; known: {sorted(FIGURES)}. "
                       "Fix report.figures in the experiment config or register it in csrepro/report/figures.py")
    target = FIGURES[fig_id]
    if callable(target):
        return target
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


def save_png(fig, out_dir, name: str, dpi: int = 120) -> Path:
    """Save a matplotlib figure as ``out_dir/name.png``, close it and return the path."""
    path = Path(out_dir) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def make_figures(fig_ids, out_dir, store, cfg) -> list[Path]:
    """Draw every figure in ``fig_ids`` into ``out_dir``; returns all PNG paths (each checked to exist)."""
    paths = []
    for fig_id in fig_ids or []:
        drawn = [Path(p) for p in get_figure(fig_id)(out_dir, store, cfg)]
        missing = [str(p) for p in drawn if not p.is_file()]
        if missing:
            raise RuntimeError(f"figure {fig_id!r} returned paths it did not write: {missing}; "
                               "its function must save the PNGs it returns (use save_png)")
        paths += drawn
    return paths
