"""results/FIDELITY.md: per experiment and table, how many published cells are reproduced within tolerance."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from csrepro.report.compare import RULE


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


def render_fidelity(results: list[ExperimentFidelity], provenance: str) -> str:
    """FIDELITY.md text for a non-empty ``results``: a row per (experiment, table), totals and the rule."""
    lines = ["# Fidelity: published vs reproduced", "", provenance, "",
             "| Paper | Experiment | Table | Published cells | Within tolerance | Outside | No reproduced value |",
             "|:--|:--|:--|--:|--:|--:|--:|"]
    for res in results:
        if res.comparison.empty:
            lines.append(f"| {res.paper} | [{res.experiment}]({res.experiment}/REPORT.md) | "
                         "(no published cells compared) | 0 | 0 | 0 | 0 |")
        for table, comp in res.comparison.groupby("table", sort=False):
            c = counts(comp)
            lines.append(f"| {res.paper} | [{res.experiment}]({res.experiment}/REPORT.md) | {table} | "
                         f"{c['published']} | {c['within']} | {c['outside']} | {c['missing']} |")
    total = counts(pd.concat([r.comparison for r in results]))
    lines += ["", f"Total: {total['within']} of {total['published']} published cells within tolerance, "
              f"{total['outside']} outside, {total['missing']} without a reproduced value.", "",
              f"Tolerance rule (csrepro.report.compare.within, the same for every experiment): within iff `{RULE}`."]
    return "\n".join(lines) + "\n"
