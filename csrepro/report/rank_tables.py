"""Rank-per-detection-rate tables and #wins rows (Masnadi-Shirazi thesis, Tables VI.1-VI.4).

An errors table of the report (e.g. Table VI.1) averages each column over its method ids at
five detection rates (``combine``).  Table VI.2 / VI.4 rank the columns per dataset at each
rate separately (1 = fewest errors, ties averaged; Demsar 2006) and average the ranks over the
datasets; the #wins row of Table VI.1 / VI.3 counts, per cost-sensitive booster, the datasets
where its rate-averaged error is below that of every earlier cost-sensitive booster.  Entries
of ``exp.report.rank_tables``:

* ``{id, from, rows: [rate_85, ...], rank_columns, columns}``: rows = the rates in the order of
  the ``from`` table's combine lists; ranks over ``rank_columns``, cells for ``columns``;
* ``{id, from, rows: [wins], columns, wins_over}``.

The report (``python -m csrepro.report``) compares these cells with the published ones by
:func:`rank_comparisons` (same tolerance rule, counted in REPORT.md, comparison.csv and
FIDELITY.md) and writes ``tables/<id>_ranks.md``; :func:`plot_rank_tables` (figure id
``cs_boost_ranks``) draws the ranks against the rate.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.config import select
from csrepro.metrics import ranks
from csrepro.provenance import REPO_ROOT
from csrepro.report.compare import CELL_KEY, compare, load_published
from csrepro.report.figures import save_png
from csrepro.report.tables import TRIAL_KEY

__all__ = ["plot_rank_tables", "rank_cells", "rank_comparisons", "rank_slug", "rank_sources", "rate_totals",
           "render_rank_markdown"]


def rate_totals(store: pd.DataFrame, table: dict) -> pd.DataFrame:
    """(dataset, column, rate index) -> mean of ``table["metric"]`` over trials x ``scale`` (``"trials"``:
    the number of trials, i.e. the total), shape (d, c, r) as a frame."""
    rows = []
    for column, ids in table["combine"].items():
        for k, method in enumerate(ids):
            sel = store[(store["method"] == method) & store["dataset"].isin(table["rows"])]
            sel = sel.drop_duplicates(TRIAL_KEY, keep="last")
            for dataset, g in sel.groupby("dataset"):
                scale = table.get("scale", 1.0)
                values = pd.to_numeric(g[table["metric"]], errors="coerce")
                value = values.mean() * (values.count() if scale == "trials" else scale)
                rows.append({"dataset": dataset, "column": column, "rate": k, "value": value})
    return pd.DataFrame(rows, columns=["dataset", "column", "rate", "value"])


def rank_cells(totals: pd.DataFrame, entry: dict, datasets) -> pd.DataFrame:
    """Reproduced cells (table, row, column, reproduced, reproduced_se) of one rank_tables entry."""
    out = []
    if entry["rows"] == ["wins"]:
        means = totals.groupby(["dataset", "column"])["value"].mean().unstack()
        needed = list(entry["columns"]) + list(entry["wins_over"])
        if set(needed) <= set(means.columns) and set(datasets) <= set(means.index):
            means = means.loc[list(datasets)]
            best_old = means[list(entry["wins_over"])].min(axis=1)
            for c in entry["columns"]:
                out.append({"row": "wins", "column": c, "reproduced": float((means[c] < best_old).sum())})
    else:
        for k, row in enumerate(entry["rows"]):
            wide = totals[totals["rate"] == k].pivot(index="dataset", columns="column", values="value")
            wide = wide.reindex(index=list(datasets), columns=list(entry["rank_columns"]))
            if wide.empty or wide.isna().any().any():
                continue  # ranks need every method on every dataset
            r = pd.DataFrame(ranks(wide.to_numpy()), columns=wide.columns).mean()
            out += [{"row": row, "column": c, "reproduced": float(r[c])} for c in entry["columns"]]
    cells = pd.DataFrame(out, columns=["row", "column", "reproduced"])
    return cells.assign(table=entry["id"], reproduced_se=np.nan)[CELL_KEY + ["reproduced", "reproduced_se"]]


def _markdown(entry, comparison: pd.DataFrame) -> str:
    rows = list(entry["rows"])
    cols = list(entry["columns"])
    cell = comparison.set_index(["row", "column"])
    head = "| " + " | ".join([entry["id"]] + cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 1)]
    for r in rows:
        vals = []
        for c in cols:
            rep, pub = cell["reproduced"].get((r, c), np.nan), cell["published"].get((r, c), np.nan)
            mark = "" if pd.isna(rep) or pd.isna(pub) or bool(cell["within"].get((r, c))) else " †"
            vals.append(f"{'—' if pd.isna(rep) else f'{rep:.2f}'} ({'—' if pd.isna(pub) else f'{pub:g}'}){mark}")
        lines.append("| " + " | ".join([r] + vals) + " |")
    return "\n".join(lines) + "\n\nReproduced (published); † outside the tolerance rule.\n"


def rank_comparisons(store: pd.DataFrame, report: dict, published: pd.DataFrame,
                     datasets) -> list[tuple[dict, pd.DataFrame]]:
    """(entry, comparison rows) for every ``report["rank_tables"]`` entry.

    Ranks are over the source table's rows among ``datasets`` (the experiment's) and need a value
    for each of them: a run that has not finished every dataset gets no ranks, so they are never
    compared with the published ones over fewer datasets.
    """
    tables = {t["id"]: t for t in report.get("tables") or [] if isinstance(t, dict)}
    out = []
    for entry in report.get("rank_tables") or []:
        if entry["from"] not in tables:
            raise ValueError(f"report.rank_tables entry {entry['id']!r}: 'from: {entry['from']}' names no table "
                             f"of report.tables; choose one of {sorted(tables)}")
        source = tables[entry["from"]]
        rows = [d for d in source["rows"] if d in set(datasets)]
        totals = pd.DataFrame(columns=["dataset", "column", "rate", "value"]) if store.empty else rate_totals(store, source)
        pub = published[(published["table"] == entry["id"]) & published["row"].isin(entry["rows"])
                         & published["column"].isin(entry["columns"])]
        out.append((entry, compare(pub, rank_cells(totals, entry, rows))))
    return out


def rank_sources(report: dict, datasets) -> dict[tuple[str, str, str], tuple[list[str], list[str]]]:
    """(table, row, column) -> (datasets, method ids) whose trials each rank_tables cell is computed from.

    A rate row ranks the ``rank_columns`` at that rate, so it reads the rate's method id of each of
    them on every dataset of the source table (among ``datasets``); a #wins row compares the
    rate-averaged means of ``columns`` and ``wins_over``, so it reads all their method ids.
    """
    tables = {t["id"]: t for t in report.get("tables") or [] if isinstance(t, dict)}
    out = {}
    for entry in report.get("rank_tables") or []:
        source = tables.get(entry["from"])
        if source is None:
            continue  # rank_comparisons names the error
        rows = [d for d in source["rows"] if d in set(datasets)]
        combine = source.get("combine") or {}
        if entry["rows"] == ["wins"]:
            methods = [m for c in [*entry["columns"], *entry["wins_over"]] for m in combine.get(c, [])]
            out.update({(entry["id"], "wins", c): (rows, methods) for c in entry["columns"]})
            continue
        for k, row in enumerate(entry["rows"]):
            methods = [combine[c][k] for c in entry["rank_columns"] if k < len(combine.get(c, []))]
            out.update({(entry["id"], row, c): (rows, methods) for c in entry["columns"]})
    return out


def rank_slug(entry: dict) -> str:
    """File stem of an entry's table, e.g. ``table_vi_2_ranks``."""
    return re.sub(r"\W+", "_", f"{entry['id']} {'wins' if entry['rows'] == ['wins'] else 'ranks'}".lower())


def render_rank_markdown(entry: dict, rows: pd.DataFrame) -> str:
    """Markdown of one entry: reproduced (published) per cell, † outside tolerance."""
    return _markdown(entry, rows)


def plot_rank_tables(out_dir, store: pd.DataFrame, cfg) -> list[Path]:
    """Figure ``cs_boost_ranks``: average rank against the target detection rate, reproduced vs published."""
    report = select(cfg, "exp.report", default={})
    published = load_published(REPO_ROOT / "experiments" / select(cfg, "exp.paper") / "published.csv")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    drew = False
    for entry, rows in rank_comparisons(store, report, published, select(cfg, "exp.datasets", default=[])):
        if entry["rows"] == ["wins"] or rows["reproduced"].isna().all():
            continue
        x = np.arange(len(entry["rows"]))
        for i, c in enumerate(entry["columns"]):
            r = rows[rows["column"] == c].set_index("row").reindex(entry["rows"])
            color = plt.cm.tab20(i % 20)
            ax.plot(x, r["reproduced"], "-o", ms=3, color=color, label=c)
            ax.plot(x, r["published"], "--", color=color, alpha=0.6)
        ax.set_xticks(x, [r.replace("rate_", "").replace("_", ".") + "%" for r in entry["rows"]])
        ax.set(xlabel="target detection rate", ylabel="average rank (1 = best)",
               title=f"{entry['id']}: reproduced (solid) vs published (dashed)")
        drew = True
    if drew:
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    return [save_png(fig, out_dir, "rank_per_detection_rate")]
