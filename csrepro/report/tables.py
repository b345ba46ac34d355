"""Paper tables from the store: mean ± SE cells, significance bolding, average ranks, Markdown/LaTeX."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from csrepro.metrics import average_rank, best_set, mean_se, significant_best
from csrepro.report.compare import CELL_KEY, RULE, compare
from csrepro.report.derived import KINDS, derived_cells, wins_cells

AVG_RANK = "avg_rank"
CELL_COLUMNS = CELL_KEY + ["reproduced", "reproduced_se", "n", "bold"]
TRIAL_KEY = ["dataset", "method", "trial"]


@dataclass(frozen=True)
class TableSpec:
    """One paper table: cells are the mean of ``metric`` over trials, ``rows`` dataset ids, ``columns`` method ids.

    ``combine`` maps a column id to the store method ids whose values are averaged per (dataset,
    trial) to make that column's trial value (e.g. one method at several target detection
    rates); a trial counts only when all of them have a value.  ``scale`` multiplies the means
    and standard errors, e.g. by the number of trials in one pass of a k-fold protocol to report
    a total over the dataset; ``scale: trials`` multiplies each cell by its own number of trials
    (a total over one pass whatever its length, e.g. leave-one-out; ``kind`` "cells" only).

    ``kind`` "derived" or "wins" computes cells as csrepro.report.derived describes: ``derive``
    maps a column to its rule ({stat, family, reference, method}), ``families`` holds the grid
    families of the experiment's methods, ``groups`` maps a wins-table group (or a pooled row of a derived
    table) to its datasets.
    ``column_decimals`` overrides ``decimals`` per column.
    ``bold`` names the rule of bold cells (:data:`BOLD_RULES`): "not_worse" (the best mean and every method whose
    paired t-test against it has p >= ``alpha``, :func:`csrepro.metrics.best_set`) or "significant_best" (the best
    alone, when significantly better than every other method, :func:`csrepro.metrics.significant_best`).

    ``row_metrics`` (row id -> store metric) makes a table of cells on the single dataset ``dataset``, each row
    with its own metric (e.g. the entries of one confusion matrix: row ``connect4_win_draw`` is the metric
    ``confusion_2_0`` of dataset connect4); ``metric`` then only names the table's measure in its header and
    legend.  In a config: ``dataset: <id>`` and ``metric_per_row: true`` take each row's metric from the unit of
    its published cells (a unit ``<metric>_pct`` is ``<metric>`` at ``scale`` 100, the default scale then), or
    ``row_metrics: {row: metric}`` names them.
    """

    id: str
    metric: str
    rows: list[str]
    columns: list[str]
    row_labels: dict[str, str] = field(default_factory=dict)
    column_labels: dict[str, str] = field(default_factory=dict)
    avg_rank: bool = True
    decimals: int = 2
    alpha: float = 0.05
    higher_is_better: bool = False
    combine: dict[str, list[str]] = field(default_factory=dict)
    scale: float | str = 1.0
    kind: str = "cells"
    derive: dict[str, dict] = field(default_factory=dict)
    families: dict[str, dict] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    column_decimals: dict[str, int] = field(default_factory=dict)
    bold: str = "not_worse"
    dataset: str | None = None
    row_metrics: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        if self.row_metrics or self.dataset is not None:
            if not (self.row_metrics and self.dataset) or self.kind != "cells":
                raise ValueError(f"table {self.id!r}: one metric per row needs a dataset, row_metrics and kind "
                                 f"'cells' (got dataset {self.dataset!r}, kind {self.kind!r})")
            missing = [r for r in self.rows if r not in self.row_metrics]
            if missing:
                raise ValueError(f"table {self.id!r}: rows {missing} have no metric in row_metrics")
        if self.kind not in KINDS:
            raise ValueError(f"table {self.id!r}: kind {self.kind!r} is not one of {list(KINDS)}")
        if self.kind == "wins" and not self.groups:
            raise ValueError(f"table {self.id!r}: a wins table needs groups: {{<group>: [dataset ids]}}")
        members = [m for c in self.columns for m in self.combine.get(c, [c])]
        if len(members) != len(set(members)):
            raise ValueError(f"table {self.id!r}: a method id feeds two columns through combine {self.combine}; "
                             "give each store method id to one column only")
        if self.scale == "trials":
            if self.kind != "cells":
                raise ValueError(f"table {self.id!r}: scale 'trials' is for tables of kind 'cells', not {self.kind!r}")
        elif isinstance(self.scale, str) or not (np.isfinite(self.scale) and self.scale > 0):
            raise ValueError(f"table {self.id!r}: scale must be a finite number > 0 or 'trials', got {self.scale!r}")

    @property
    def slug(self) -> str:
        """File-name form of the id ("Table 2" -> "table_2")."""
        return re.sub(r"\W+", "_", self.id.lower()).strip("_")

    def row_label(self, row: str) -> str:
        """Printed label of a row id (the id itself when no label is known)."""
        return self.row_labels.get(row, "Avg. Rank" if row == AVG_RANK else row)

    def column_label(self, column: str) -> str:
        """Printed label of a column id (the id itself when no label is known)."""
        return self.column_labels.get(column, column)


def table_specs(entries, published: pd.DataFrame, datasets=(), methods=(), families=None) -> list[TableSpec]:
    """TableSpecs for the config's ``report.tables`` (a list of ids or dicts, or a dict id -> dict).

    Keys left out default to the published table of that id (rows, columns and labels in file
    order, metric = the unit of its non-rank cells, avg_rank iff it has an avg_rank row), then to
    the experiment's ``datasets`` and ``methods``; ``families`` (csrepro.report.derived.family_values)
    goes to every spec.  A config that names no table gets every
    published table of its paper with these defaults; one that names tables gets just those, so
    two experiments of one paper (e.g. Tables V.1 and V.2) each compare their own cells; an empty
    list names none (an experiment that only draws figures).
    """
    if entries is None:
        entries = list(dict.fromkeys(published["table"]))
    if isinstance(entries, Mapping):
        entries = [{"id": k, **(v or {})} for k, v in entries.items()]
    entries = [{"id": e} if isinstance(e, str) else dict(e) for e in entries]
    for e in entries:
        if "id" not in e:
            raise ValueError(f"report.tables entry {e} has no id; give each table an id such as 'Table 2'")
    return [_spec(e, published[published["table"] == e["id"]], datasets, methods, families or {}) for e in entries]


PCT = "_pct"
#: a table's ``bold`` rule -> the function picking the bold methods of a row from paired per-trial values
BOLD_RULES = {"not_worse": best_set, "significant_best": significant_best}
BOLD_LEGENDS = {"not_worse": "best mean and methods not significantly worse",
                "significant_best": "the best mean alone, where significantly better than every other method"}


def _row_metrics(entry: dict, body: pd.DataFrame) -> tuple[dict[str, str], dict]:
    """(row -> metric, defaults) of a table with one metric per row (``row_metrics``, or ``metric_per_row``:
    the published units, ``<metric>_pct`` read as ``<metric>`` at scale 100); ({}, {}) for other tables."""
    if entry.get("row_metrics"):
        return {str(r): str(m) for r, m in entry["row_metrics"].items()}, {}
    if not entry.get("metric_per_row"):
        return {}, {}
    units = dict(zip(body["row"], body["unit"]))
    if body.groupby("row")["unit"].nunique().gt(1).any() or not units:
        raise ValueError(f"table {entry['id']!r}: metric_per_row needs one published unit per row, got "
                         f"{sorted(set(zip(body['row'], body['unit'])))}")
    pct = {u.endswith(PCT) for u in units.values()}
    if len(pct) > 1:
        raise ValueError(f"table {entry['id']!r}: metric_per_row: the units {sorted(set(units.values()))} mix "
                         f"percents ({PCT}) and fractions; one scale per table")
    if pct == {True}:
        return {r: u.removesuffix(PCT) for r, u in units.items()}, {"scale": 100}
    return units, {}


def _spec(entry: dict, pub: pd.DataFrame, datasets, methods, families) -> TableSpec:
    if entry.get("bold", "not_worse") not in BOLD_RULES:
        raise ValueError(f"table {entry['id']!r}: bold={entry['bold']!r} is not a bold rule; use one of "
                         f"{sorted(BOLD_RULES)}")
    body = pub[pub["row"] != AVG_RANK]
    units = list(dict.fromkeys(body["unit"]))
    row_metrics, defaults = _row_metrics(entry, body)
    entry = {**defaults, **entry}
    if row_metrics and not entry.get("metric"):
        entry["metric"] = "metric of each row"
    metric = entry.get("metric") or (units[0] if len(units) == 1 else None)
    rows = list(entry.get("rows") or dict.fromkeys(body["row"]) or datasets)
    columns = list(entry.get("columns") or dict.fromkeys(pub["column"]) or methods)
    if not (metric and rows and columns):
        raise ValueError(f"table {entry['id']!r}: cannot tell its metric/rows/columns (published units {units}); "
                         "set metric, rows and columns in the experiment's report.tables")
    return TableSpec(
        id=entry["id"], metric=metric, rows=rows, columns=columns,
        row_labels={**dict(zip(pub["row"], pub["row_label"], strict=True)), **entry.get("row_labels", {})},
        column_labels={**dict(zip(pub["column"], pub["column_label"], strict=True)), **entry.get("column_labels", {})},
        avg_rank=bool(entry.get("avg_rank", pub.empty or AVG_RANK in set(pub["row"]))),
        **{k: entry[k] for k in ("decimals", "alpha", "higher_is_better", "scale", "kind", "bold") if k in entry},
        combine={c: list(ms) for c, ms in (entry.get("combine") or {}).items()},
        derive={c: dict(rule) for c, rule in (entry.get("derive") or {}).items()},
        groups={str(g): list(ds) for g, ds in (entry.get("groups") or {}).items()},
        column_decimals=dict(entry.get("column_decimals") or {}), families=families,
        dataset=entry.get("dataset"), row_metrics=row_metrics,
    )


def latest_trials(store: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, method, trial): the latest by ``finished_at`` where a trial was re-run."""
    if store.empty:
        return store
    if "finished_at" in store.columns:
        store = store.sort_values("finished_at", kind="stable")
    return store.drop_duplicates(TRIAL_KEY, keep="last")


def _trial_values(store: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    """(dataset, method, trial, value) of the table's metric, restricted to its rows/columns, NaN dropped."""
    if store.empty:
        return pd.DataFrame(columns=TRIAL_KEY + ["value"])
    metrics = {spec.row_metrics[r] for r in spec.rows} if spec.row_metrics else {spec.metric}
    absent = sorted(metrics - set(store.columns))
    if absent:
        raise ValueError(f"{spec.id}: the store has no {absent[0]!r} column (it has {sorted(store.columns)}); "
                         f"add {absent[0]!r} to the experiment's metrics and re-run, or fix the table's metric")
    sources = {c: spec.combine.get(c, [c]) for c in spec.columns}
    column_of = {m: c for c, ms in sources.items() for m in ms}
    if spec.row_metrics:  # one dataset, a metric per row: each row's trial values under "dataset" = the row id
        sel = latest_trials(store[(store["dataset"] == spec.dataset) & store["method"].isin(list(column_of))])
        sel = pd.concat([sel.assign(value=pd.to_numeric(sel[spec.row_metrics[row]], errors="coerce"), dataset=row)
                         for row in spec.rows], ignore_index=True)
    else:
        sel = latest_trials(store[store["dataset"].isin(spec.rows) & store["method"].isin(list(column_of))])
        sel = sel.assign(value=pd.to_numeric(sel[spec.metric], errors="coerce"))
    sel = sel.assign(method=sel["method"].map(column_of))
    values = sel[TRIAL_KEY + ["value"]].dropna(subset=["value"])
    if not spec.combine:
        return values
    agg = values.groupby(TRIAL_KEY)["value"].agg(["mean", "count"]).reset_index()
    complete = agg["count"] == agg["method"].map(lambda c: len(sources[c]))
    return agg[complete].rename(columns={"mean": "value"})[TRIAL_KEY + ["value"]]


def _bold(values: pd.DataFrame, spec: TableSpec) -> set[tuple[str, str]]:
    """(dataset, method) cells not significantly worse than the best, on trials every method of the row has."""
    out = set()
    for dataset, g in values.groupby("dataset"):
        paired = g.pivot(index="trial", columns="method", values="value").dropna()
        if len(paired) >= 2:
            kept = BOLD_RULES[spec.bold]({m: paired[m].to_numpy() for m in paired.columns}, spec.alpha,
                                         spec.higher_is_better)
            out |= {(dataset, m) for m in kept}
    return out


def reproduce(store: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    """Reproduced cells (CELL_COLUMNS): mean ± SE (ddof=1) and n per (row, column), bold, avg_rank row.

    Bold: the best-mean method and those whose two-sided paired t-test against it (paired by
    trial index) has p >= alpha.  The avg_rank row ranks each row's means (1 = best, ties
    averaged) and averages over rows; it is left out until every cell of the table has a mean.
    """
    if spec.kind != "cells":
        cells = derived_cells(spec, store, spec.families) if spec.kind == "derived" else wins_cells(spec, store)
        return cells.assign(table=spec.id)[CELL_COLUMNS]
    values = _trial_values(store, spec)
    stats = [(d, m, *mean_se(g["value"]), len(g)) for (d, m), g in values.groupby(["dataset", "method"])]
    cells = pd.DataFrame(stats, columns=["row", "column", "reproduced", "reproduced_se", "n"])
    factor = cells["n"] if spec.scale == "trials" else spec.scale
    cells[["reproduced", "reproduced_se"]] = cells[["reproduced", "reproduced_se"]].mul(factor, axis=0)
    bold = _bold(values, spec)
    cells["bold"] = [(r, c) in bold for r, c in zip(cells["row"], cells["column"], strict=True)]
    means = cells.pivot(index="row", columns="column", values="reproduced").reindex(index=spec.rows,
                                                                                   columns=spec.columns)
    if spec.avg_rank and means.notna().all().all():
        rank = average_rank(means.to_numpy(), spec.higher_is_better)
        ranks = pd.DataFrame({"row": AVG_RANK, "column": spec.columns, "reproduced": rank,
                              "reproduced_se": np.nan, "n": len(spec.rows), "bold": False})
        cells = pd.concat([cells, ranks], ignore_index=True)
    return cells.assign(table=spec.id)[CELL_COLUMNS]


def cell_sources(spec: TableSpec) -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """(row, column) -> (datasets, method ids) whose trials each cell of ``spec`` is computed from.

    As :func:`reproduce` computes the cells: a plain cell from its dataset and its column's method
    ids (``combine``), the avg_rank row from every row and column of the table, a derived cell
    from its rule's method, family members (and reference), a wins cell from its group's datasets
    and every method (row) of the table.  Used to count a cell's reported and planned trials
    (csrepro.report.compare.with_trial_counts).
    """
    if spec.kind == "wins":
        return {(method, column): (list(datasets), list(spec.rows))
                for group, datasets in spec.groups.items() for method in spec.rows
                for column in (f"wins_{group}", f"{spec.metric}_{group}")}
    methods = {c: _column_methods(spec, c) for c in spec.columns}
    pooled = spec.groups if spec.kind == "derived" else {}
    if spec.row_metrics:  # every row reads the one dataset
        pooled = {row: [spec.dataset] for row in spec.rows}
    out = {(row, c): (list(pooled.get(row, [row])), methods[c]) for row in spec.rows for c in spec.columns}
    if spec.kind == "cells" and spec.avg_rank:
        every = [m for c in spec.columns for m in methods[c]]
        rows = [spec.dataset] if spec.row_metrics else list(spec.rows)
        out.update({(AVG_RANK, c): (rows, every) for c in spec.columns})
    return out


def _column_methods(spec: TableSpec, column: str) -> list[str]:
    """Store method ids one cell of ``column`` reads (csrepro.report.derived for derived tables)."""
    if spec.kind != "derived":
        return list(spec.combine.get(column, [column]))
    rule = spec.derive.get(column, {"stat": "mean"})
    stat = rule.get("stat", "mean")
    if stat == "mean":
        return [rule.get("method", column)]
    if stat == "win_fraction":
        return [rule.get("method", column), rule["reference"]] if rule.get("reference") else [rule.get("method", column)]
    members = list(spec.families.get(rule.get("family"), {}))
    reference = [rule["reference"]] if stat in ("max_gain", "argmax_gain") and rule.get("reference") else []
    return members + reference


@dataclass(frozen=True)
class _Style:
    """How one output format writes bold, ±, the out-of-tolerance marker, a missing cell and plain text."""

    bold: Callable[[str], str]
    pm: str
    dagger: str
    missing: str
    escape: Callable[[str], str]


def _tex_escape(text: str) -> str:
    """Escape LaTeX specials outside $...$ math (labels such as "$L_s$-MCBoost" stay math)."""
    parts = str(text).split("$")
    parts[::2] = [re.sub(r"([&%#_{}])", r"\\\1", p) for p in parts[::2]]
    return "$".join(parts)


MARKDOWN = _Style(lambda s: f"**{s}**", " ± ", "†", "—", lambda s: str(s).replace("|", "\\|"))
#: csrepro.report.compare.RULE, typeset
TEX_RULE = (r"$|\mathrm{rep}-\mathrm{pub}| \le \max(2\sqrt{SE_\mathrm{pub}^2+SE_\mathrm{rep}^2},"
            r"\ 0.1\,|\mathrm{pub}|)$, unknown SEs dropped")
LATEX = _Style(lambda s: f"\\textbf{{{s}}}", " $\\pm$ ", "$^\\dagger$", "---", _tex_escape)


def _number(value, spread, decimals: int, style: _Style) -> str:
    if pd.isna(value):
        return style.missing
    text = f"{value:.{decimals}f}"
    return text if pd.isna(spread) else f"{text}{style.pm}{spread:.{decimals}f}"


def _n(cells: pd.DataFrame) -> str:
    """Trials per row: one number, or min–max when methods differ."""
    if cells.empty:
        return "0"
    lo, hi = int(cells["n"].min()), int(cells["n"].max())
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _grid(spec: TableSpec, cells: pd.DataFrame, published: pd.DataFrame, style: _Style):
    """Header and body rows (two per table row: reproduced, then published) of rendered cell strings."""
    pub = published[published["table"] == spec.id]
    flags = compare(pub, cells).set_index(["row", "column"])["within"]
    rep = cells.set_index(["row", "column"])
    pub = pub.set_index(["row", "column"])
    header = ["Dataset", "", "n"] + [style.escape(spec.column_label(c)) for c in spec.columns]
    body = []
    for row in spec.rows + ([AVG_RANK] if spec.avg_rank else []):
        rep_cells, pub_cells = [], []
        for col in spec.columns:
            decimals = spec.column_decimals.get(col, spec.decimals)
            r = rep.loc[(row, col)] if (row, col) in rep.index else None
            text = style.missing if r is None else _number(r["reproduced"], r["reproduced_se"], decimals, style)
            if r is not None and r["bold"]:
                text = style.bold(text)
            if _outside(flags, row, col):
                text += style.dagger
            rep_cells.append(text)
            p = pub.loc[(row, col)] if (row, col) in pub.index else None
            text = style.missing if p is None else _number(p["value"], p["spread"], decimals, style)
            pub_cells.append(style.bold(text) if p is not None and p["bold"] else text)
        n = "" if row == AVG_RANK else _n(cells[cells["row"] == row])
        body.append([style.escape(spec.row_label(row)), "rep", n] + rep_cells)
        body.append(["", "pub", ""] + pub_cells)
    return header, body


def _outside(flags: pd.Series, row: str, col: str) -> bool:
    """True only for a cell compared and found outside tolerance (not for missing ones)."""
    flag = flags.get((row, col), pd.NA)
    return pd.notna(flag) and not flag


def _rule_text(column: str, rule: dict) -> str:
    """One derived column's rule in words (csrepro.report.derived)."""
    stat, family, ref = rule.get("stat", "mean"), rule.get("family"), rule.get("reference")
    return {"mean": f"{column} = mean of {rule.get('method', column)}",
            "min": f"{column} = smallest mean over the {family} grid",
            "argmin": f"{column} = grid value of the smallest mean over {family}",
            "max_gain": f"{column} = largest mean({ref}) - mean(member) over the {family} grid",
            "argmax_gain": f"{column} = grid value of the largest gain of {family} over {ref}",
            "win_fraction": f"{column} = fraction of trials where {rule.get('method', column)} is below {ref} "
                            "(SE: binomial)"}.get(stat, stat)


def _scale_text(scale) -> str:
    if scale == "trials":
        return "; mean and standard error multiplied by the cell's number of trials (a total over the pass)"
    return f"; mean and standard error multiplied by {scale:g}" if scale != 1 else ""


def _legend(spec: TableSpec, published: pd.DataFrame, style: _Style, rule: str) -> str:
    sources = "; ".join(dict.fromkeys(published.loc[published["table"] == spec.id, "source"])) or "none"
    derived = "".join([f"; a trial's {c} value is the mean over {', '.join(ms)}" for c, ms in spec.combine.items()]
                      + [_scale_text(spec.scale)]
                      + [f"; {_rule_text(c, r)}" for c, r in spec.derive.items()]
                      + ["; wins_<group> = datasets of the group where the row's method has the smallest mean (ties "
                         f"count for each), {spec.metric}_<group> = mean over the group's datasets"
                         if spec.kind == "wins" else ""]
                      + [f"; row {g} pools the trials of {', '.join(ds)}" for g, ds in spec.groups.items()
                         if spec.kind == "derived" and g in spec.rows]
                      + [f"; every row is dataset {spec.dataset}, row -> metric: "
                         + ", ".join(f"{r}: {spec.row_metrics[r]}" for r in spec.rows) if spec.row_metrics else ""])
    return (f"rep = reproduced {style.escape(spec.metric)}, mean{style.pm}standard error over n trials"
            f"{style.escape(derived)}; "
            f"pub = published ({style.escape(sources)}). Bold (rep): {BOLD_LEGENDS[spec.bold]}, two-sided paired "
            f"t-test by trial at {spec.alpha:g}. {style.dagger} = outside tolerance "
            f"(within iff {rule}). {style.missing} = not reproduced or not published.")


def render_markdown(spec: TableSpec, cells: pd.DataFrame, published: pd.DataFrame) -> str:
    """GitHub Markdown table, reproduced and published rows interleaved, followed by its legend."""
    header, body = _grid(spec, cells, published, MARKDOWN)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join([":--", ":--"] + ["--:"] * (len(header) - 2)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    legend = _legend(spec, published, MARKDOWN, f"`{RULE}`")
    return f"**{spec.id}** ({spec.metric})\n\n" + "\n".join(lines) + f"\n\n{legend}\n"


def render_latex(spec: TableSpec, cells: pd.DataFrame, published: pd.DataFrame) -> str:
    """LaTeX table float (booktabs), reproduced and published rows interleaved, legend in the caption."""
    header, body = _grid(spec, cells, published, LATEX)
    rows = [" & ".join(r) + r" \\" for r in body]
    if spec.avg_rank:
        rows.insert(-2, r"\midrule")
    caption = _legend(spec, published, LATEX, TEX_RULE)
    return "\n".join([
        r"\begin{table}[t]", r"\centering", r"\small",
        r"\begin{tabular}{ll" + "r" * (len(header) - 2) + "}", r"\toprule",
        " & ".join(header) + r" \\", r"\midrule", *rows, r"\bottomrule", r"\end{tabular}",
        rf"\caption{{{_tex_escape(spec.id)} ({_tex_escape(spec.metric)}). {caption}}}",
        r"\end{table}", "",
    ])
