"""results/FIDELITY.md: per experiment and table, how many published cells are reproduced within tolerance.

Comparisons are comparison.csv rows, with or without the trial counts (csrepro.report.compare.
TRIAL_COLUMNS; files written before them lack them).  A table with cells that have fewer trials
than planned (a reduced or unfinished run) is marked partial; without such cells, or without the
counts, the text is the same as before the counts existed.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from csrepro.report.compare import RULE, TRIAL_COLUMNS


@dataclass(frozen=True)
class ExperimentFidelity:
    """One experiment's comparison.csv rows, with the paper folder they were compared against."""

    experiment: str
    paper: str
    comparison: pd.DataFrame


def counts(comparison: pd.DataFrame) -> dict[str, int]:
    """Cell counts: published, within (tolerance), outside (tolerance), missing (no reproduced value)."""
    reproduced = comparison["reproduced"].notna()
    inside = comparison["within"].fillna(False).astype(bool)
    return {"published": len(comparison), "within": int(inside.sum()),
            "outside": int((reproduced & ~inside).sum()), "missing": int((~reproduced).sum())}


def short_cells(comparison: pd.DataFrame) -> int:
    """Cells with fewer reported trials than planned (0 for a comparison without trial counts)."""
    if not set(TRIAL_COLUMNS) <= set(comparison.columns):
        return 0
    return int((pd.to_numeric(comparison["n_trials"]) < pd.to_numeric(comparison["n_planned"])).sum())


def render_fidelity(results: list[ExperimentFidelity], provenance: str) -> str:
    """FIDELITY.md text for a non-empty ``results``: a row per (experiment, table), totals and the rule."""
    lines = ["# Fidelity: published vs reproduced", "", provenance, "",
             "| Paper | Experiment | Table | Published cells | Within tolerance | Outside | No reproduced value |",
             "|:--|:--|:--|--:|--:|--:|--:|"]
    partial = []
    for res in results:
        if short_cells(res.comparison):
            partial.append(res.experiment)
        if res.comparison.empty:
            lines.append(f"| {res.paper} | [{res.experiment}]({res.experiment}/REPORT.md) | "
                         "(no published cells compared) | 0 | 0 | 0 | 0 |")
        for table, comp in res.comparison.groupby("table", sort=False):
            c = counts(comp)
            short = short_cells(comp)
            if short:
                table = f"{table} (PARTIAL: {short} of {len(comp)} cells have fewer trials than planned)"
            lines.append(f"| {res.paper} | [{res.experiment}]({res.experiment}/REPORT.md) | {table} | "
                         f"{c['published']} | {c['within']} | {c['outside']} | {c['missing']} |")
    total = counts(pd.concat([r.comparison for r in results]))
    lines += ["", f"Total: {total['within']} of {total['published']} published cells within tolerance, "
              f"{total['outside']} outside, {total['missing']} without a reproduced value.", "",
              *([f"Partial runs (fewer trials than their configs plan; not full-scale reproductions): "
                 f"{', '.join(partial)}.", ""] if partial else []),
              f"Tolerance rule (csrepro.report.compare.within, the same for every experiment): within iff `{RULE}`."]
    return "\n".join(lines) + "\n"
