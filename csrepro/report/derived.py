"""Table cells derived from per-method means instead of one method's mean (thesis Tables III.3, III.6, III.7, IV.2).

A *family* is an ``exp.methods`` key with a one-parameter grid (csrepro.config.MethodEntry): its
members are the ids ``key[p=v]`` and their parameter values v.  Per dataset and family:

* ``min``: the smallest mean over the members (its standard error);
* ``argmin``: the parameter value of that member (rank 1; ties go to the first in grid order);
* ``max_gain``: the largest ``mean(reference) - mean(member)`` (SE of the paired per-trial differences);
* ``argmax_gain``: the parameter value of that member;
* ``mean``: the mean of one method id (``method``, default the column id), as in a plain table;
* ``win_fraction``: the fraction of trials where ``method`` (default the column id) is strictly below
  ``reference`` (trials with both only; SE sqrt(p (1 - p) / n)), e.g. REBEL's Fig. 3 "wins in 90 % of
  the trials" with ``scale: 100``.

A derived row is a dataset, or a key of the table's ``groups``: its trials are then pooled over the
group's datasets (every (dataset, trial) pair counts once).

A cell whose methods (or family) did not run is missing, not an error.

``wins`` tables have methods as rows and, per group of datasets (e.g. one contamination level),
two columns: ``wins_<group>``, the number of datasets where the method has the smallest mean
among the table's rows (ties count for every tied method), and ``<metric>_<group>``, the mean
over the group's datasets of the method's mean, times the table's ``scale``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from csrepro.config import method_entries
from csrepro.metrics import mean_se

STATS = ("mean", "min", "argmin", "max_gain", "argmax_gain", "win_fraction")
KINDS = ("cells", "derived", "wins")


def family_values(methods_cfg) -> dict[str, dict[str, object]]:
    """``exp.methods`` key -> {member id: grid value} for each key with a one-parameter grid."""
    families: dict[str, dict[str, object]] = {}
    for entry in method_entries(methods_cfg, registered=False) if methods_cfg else []:
        if len(entry.grid) == 1:
            families.setdefault(entry.key, {})[entry.id] = next(iter(entry.grid.values()))
    return families


def trial_table(store: pd.DataFrame, metric: str, datasets) -> pd.DataFrame:
    """Trial values of ``metric`` as a (dataset, trial) x method frame, for ``datasets`` only."""
    if store.empty:
        return pd.DataFrame()
    if metric not in store.columns:
        raise ValueError(f"the store has no {metric!r} column (it has {sorted(store.columns)}); add {metric!r} to "
                         "the experiment's metrics and re-run, or fix the table's metric")
    sel = store[store["dataset"].isin(list(datasets))]
    values = sel.assign(value=pd.to_numeric(sel[metric], errors="coerce"))
    return values.pivot_table(index=["dataset", "trial"], columns="method", values="value", aggfunc="last")


def _cell(row, column, value, se=np.nan, n=0) -> dict:
    return {"row": row, "column": column, "reproduced": value, "reproduced_se": se, "n": n, "bold": False}


def derived_cells(spec, store: pd.DataFrame, families: dict) -> pd.DataFrame:
    """Cells of a ``derived`` TableSpec: rows are datasets or pooled groups, each column computed by its ``derive``
    entry."""
    pools = {row: spec.groups.get(row, [row]) for row in spec.rows}
    table = trial_table(store, spec.metric, [d for ds in pools.values() for d in ds])
    out = []
    for dataset, members in pools.items():
        if table.empty:
            continue
        trials = table[table.index.get_level_values("dataset").isin(members)]
        if trials.empty:
            continue
        for column in spec.columns:
            rule = spec.derive.get(column, {"stat": "mean"})
            cell = _derive(trials, rule, column, families, spec.id)
            if cell is not None:
                value, se, n = cell
                scaled = rule["stat"] not in ("argmin", "argmax_gain")
                out.append(_cell(dataset, column, value * (spec.scale if scaled else 1),
                                 se * (spec.scale if scaled else 1), n))
    return pd.DataFrame(out, columns=["row", "column", "reproduced", "reproduced_se", "n", "bold"])


def _derive(trials: pd.DataFrame, rule: dict, column: str, families: dict, table_id: str):
    """(value, se, n) of one derived cell of a dataset, or None when its methods have no trials."""
    stat = rule.get("stat", "mean")
    if stat not in STATS:
        raise ValueError(f"table {table_id!r}, column {column!r}: stat {stat!r} is not one of {list(STATS)}")
    if stat == "mean":
        method = rule.get("method", column)
        if method not in trials.columns or trials[method].isna().all():
            return None
        values = trials[method].dropna().to_numpy()
        return (*mean_se(values), len(values))
    if stat == "win_fraction":
        method, reference = rule.get("method", column), rule.get("reference")
        if method not in trials.columns or reference not in trials.columns:
            return None
        pairs = trials[[method, reference]].dropna()
        if pairs.empty:
            return None
        p = float((pairs[method] < pairs[reference]).mean())
        return p, float(np.sqrt(p * (1.0 - p) / len(pairs))), len(pairs)
    family = rule.get("family")
    if family not in families:
        return None  # not run in this experiment (e.g. a reduced config): a missing cell, as for ``mean``
    members = [m for m in families[family] if m in trials.columns and trials[m].notna().any()]
    if len(members) < len(families[family]):
        return None  # a cell over a family is only defined once every member has run
    if stat in ("min", "argmin"):
        means = trials[members].mean()
        best = members[int(np.argmin(means.to_numpy()))]
        values = trials[best].dropna().to_numpy()
        if stat == "argmin":
            return float(families[family][best]), np.nan, len(values)
        return (*mean_se(values), len(values))
    reference = rule.get("reference")
    if reference not in trials.columns:
        return None
    gains = trials[members].rsub(trials[reference], axis=0)
    best = members[int(np.argmax(gains.mean().to_numpy()))]
    values = gains[best].dropna().to_numpy()
    if stat == "argmax_gain":
        return float(families[family][best]), np.nan, len(values)
    return (*mean_se(values), len(values))


def wins_cells(spec, store: pd.DataFrame) -> pd.DataFrame:
    """Cells of a ``wins`` TableSpec: rows are methods, columns ``wins_<group>`` and ``<metric>_<group>``."""
    out = []
    for group, datasets in spec.groups.items():
        table = trial_table(store, spec.metric, datasets)
        if table.empty:
            continue
        means = table.groupby(level="dataset").mean().reindex(columns=spec.rows)
        means = means.dropna(how="any")  # a dataset counts once every method of the table has run on it
        if means.empty:
            continue
        best = means.min(axis=1)
        wins = means.le(best + 1e-12, axis=0).sum()
        for method in spec.rows:
            out.append(_cell(method, f"wins_{group}", float(wins[method]), n=len(means)))
            out.append(_cell(method, f"{spec.metric}_{group}", float(means[method].mean()) * spec.scale, n=len(means)))
    return pd.DataFrame(out, columns=["row", "column", "reproduced", "reproduced_se", "n", "bold"])
