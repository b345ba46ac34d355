"""Figures of a report: each paper's figure code lives in its folder, ``experiments/<paper>/figures.py``.

That module's ``FIGURES`` maps a figure id (as listed in an experiment's ``report.figures``) to a
figure function ``f(out_dir, store_df, cfg) -> list[Path]``, which draws from the store DataFrame
and the composed config, writes PNGs under ``out_dir`` (see :func:`save_png`) and returns their
paths.  The module is imported by path when a figure of its paper is first drawn.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from csrepro.provenance import REPO_ROOT

PAPERS_DIR = REPO_ROOT / "experiments"
#: one colour per method group, the same in every figure (the site's tables use the same colours): a
#: group is the paper a method reproduces, or "baseline"; colour-blind-safe (Okabe & Ito 2008)
GROUP_COLOURS = {
    "baseline": "#0072B2", "Beijbom 2014": "#D55E00", "Appel 2016": "#009E73", "Koco 2013": "#CC79A7",
    "O'Brien 2008": "#E69F00",
}
#: the colour of a group GROUP_COLOURS does not name
OTHER_COLOUR = "#999999"


def group_colour(group: str) -> str:
    """The colour of a method group (:data:`GROUP_COLOURS`; :data:`OTHER_COLOUR` for another group)."""
    return GROUP_COLOURS.get(group, OTHER_COLOUR)


def paper_module(paper: str):
    """The module ``experiments/<paper>/figures.py``, imported once; None when the paper has no figure code."""
    path = PAPERS_DIR / paper / "figures.py"
    if not paper or not path.is_file():
        return None
    name = f"csrepro_papers_{paper}_figures"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]


def get_figure(fig_id: str, paper: str):
    """The figure function ``fig_id`` of ``paper``."""
    figures = getattr(paper_module(paper), "FIGURES", {})
    if fig_id not in figures:
        raise ValueError(f"unknown figure id {fig_id!r} of paper {paper!r}; known: {sorted(figures)}. Fix "
                         f"report.figures in the experiment config or add it to FIGURES in "
                         f"experiments/{paper or '<paper>'}/figures.py")
    return figures[fig_id]


def save_png(fig, out_dir, name: str, dpi: int = 120, **savefig) -> Path:
    """Save a matplotlib figure as ``out_dir/name.png`` (``savefig``: more options of ``Figure.savefig``, e.g.
    ``bbox_inches="tight"``), close it and return the path."""
    path = Path(out_dir) / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, **savefig)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def make_figures(fig_ids, out_dir, store, cfg) -> list[Path]:
    """Draw every figure in ``fig_ids`` of the paper ``cfg["exp"]["paper"]`` into ``out_dir``; returns all PNG
    paths (each checked to exist)."""
    paths = []
    for fig_id in fig_ids or []:
        drawn = [Path(p) for p in get_figure(fig_id, cfg["exp"]["paper"])(out_dir, store, cfg)]
        missing = [str(p) for p in drawn if not p.is_file()]
        if missing:
            raise RuntimeError(f"figure {fig_id!r} returned paths it did not write: {missing}; "
                               "its function must save the PNGs it returns (use save_png)")
        paths += drawn
    return paths
