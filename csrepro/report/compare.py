"""Published vs reproduced: the tolerance rule, published.csv loading and comparison.csv.

comparison.csv has one row per published cell: COMPARISON_COLUMNS (the comparison, :func:`compare`)
then TRIAL_COLUMNS (:func:`with_trial_counts`):

* ``n_trials``: the reported trials the cell's value is computed from, a trial being one stored
  row (dataset, trial index, method id), as the store counts them: for a plain cell the trials of
  its dataset and its column's method ids (all of them for a ``combine`` column), for an average
  rank or a rank/#wins cell those of every dataset and method it ranks;
* ``n_planned``: the same count over the trials the experiment's config plans
  (conf/exp/<exp>.yaml, plus what the report's overrides add).

A cell of a full run has n_trials == n_planned; a cell of a reduced or unfinished run has fewer
(partial); a published cell the config does not plan has 0 and 0.  Comparison files written
before these columns existed lack them; readers (csrepro.report.fidelity) accept both.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

PUBLISHED_COLUMNS = ["table", "row", "column", "value", "spread", "spread_kind", "unit", "source",
                     "row_label", "column_label"]
COMPARISON_COLUMNS = ["table", "row", "column", "published", "reproduced", "reproduced_se", "tolerance", "within"]
#: how many of its planned trials each cell has (see the module docstring); comparison.csv ends with them
TRIAL_COLUMNS = ["n_trials", "n_planned"]
CSV_COLUMNS = COMPARISON_COLUMNS + TRIAL_COLUMNS
#: key of one table cell, shared by published.csv, reproduced cells and comparison.csv
CELL_KEY = ["table", "row", "column"]
#: the rule of :func:`within`, as printed in reports
RULE = "|rep - pub| <= max(2*sqrt(se_pub^2 + se_rep^2), 0.10*|pub|), SE terms dropped where unknown (NaN)"


def tolerance(published, published_se, reproduced_se):
    """max(2*sqrt(se_pub^2 + se_rep^2), 0.10*|pub|), each SE term dropped where it is NaN."""
    se2 = np.nan_to_num(np.asarray(published_se, float)) ** 2 + np.nan_to_num(np.asarray(reproduced_se, float)) ** 2
    return np.maximum(2.0 * np.sqrt(se2), 0.10 * np.abs(np.asarray(published, float)))


def within(published, reproduced, published_se, reproduced_se):
    """True where |reproduced - published| <= tolerance(published, published_se, reproduced_se)."""
    diff = np.abs(np.asarray(reproduced, float) - np.asarray(published, float))
    return diff <= tolerance(published, published_se, reproduced_se)


def load_published(path) -> pd.DataFrame:
    """Read experiments/<paper>/published.csv; ``bold`` defaults to False, ``spread_kind`` to "".

    An optional ``spread_n`` column gives the number of values an "std" spread is over (see :func:`published_se`).
    """
    path = Path(path)
    df = pd.read_csv(path, dtype={"table": str, "row": str, "column": str, "spread_kind": str}, keep_default_na=False,
                     na_values={"value": [""], "spread": [""], "spread_n": [""]})
    missing = [c for c in PUBLISHED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path} lacks columns {missing}; its header must be {','.join(PUBLISHED_COLUMNS)}[,bold]")
    dup = df[df.duplicated(CELL_KEY, keep=False)]
    if len(dup):
        raise ValueError(f"{path} lists these cells more than once; keep one line per cell:\n{dup[CELL_KEY]}")
    bold = df["bold"] if "bold" in df.columns else pd.Series("false", index=df.index)
    df["bold"] = bold.astype(str).str.strip().str.lower().isin(["true", "1", "yes"])
    df["value"] = pd.to_numeric(df["value"], errors="raise")
    df["spread"] = pd.to_numeric(df["spread"], errors="raise")
    return df


def published_se(published: pd.DataFrame) -> pd.Series:
    """The standard error of each published mean, NaN where unknown.

    ``spread`` where ``spread_kind`` is "se"; where it is "std", a standard deviation over ``spread_n``
    values (the optional column of published.csv: the runs or folds the paper averages), the standard
    error of their mean, ``spread / sqrt(spread_n)``; NaN for any other kind and for an "std" without
    ``spread_n`` (an SD is not an SE, and without n it gives none).
    """
    spread = published["spread"]
    n = pd.to_numeric(published["spread_n"], errors="raise") if "spread_n" in published.columns else np.nan
    return spread.where(published["spread_kind"] == "se", (spread / np.sqrt(n)).where(published["spread_kind"] == "std"))


def rejudge(comparison: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """``comparison`` (comparison.csv rows) with ``tolerance`` and ``within`` recomputed by the current rule.

    The published SE comes from ``published`` (:func:`published_se`), the reproduced value and SE from
    the comparison itself: a committed comparison judged again without its store.
    """
    se = comparison[CELL_KEY].merge(published[CELL_KEY].assign(se=published_se(published)), on=CELL_KEY,
                                    how="left")["se"].to_numpy()
    out = comparison.copy()
    out["tolerance"] = tolerance(out["published"], se, out["reproduced_se"])
    ok = pd.array(within(out["published"], out["reproduced"], se, out["reproduced_se"]), dtype="boolean")
    ok[out["reproduced"].isna().to_numpy()] = pd.NA
    out["within"] = ok
    return out


def compare(published: pd.DataFrame, reproduced: pd.DataFrame) -> pd.DataFrame:
    """One comparison.csv row per published cell; ``reproduced`` has CELL_KEY + reproduced, reproduced_se.

    ``within`` is missing (<NA>) where a cell has no reproduced value.
    """
    pub = published[CELL_KEY].assign(published=published["value"], published_se=published_se(published))
    rep = reproduced[CELL_KEY + ["reproduced", "reproduced_se"]]
    out = pub.merge(rep, on=CELL_KEY, how="left")
    out["tolerance"] = tolerance(out["published"], out["published_se"], out["reproduced_se"])
    ok = within(out["published"], out["reproduced"], out["published_se"], out["reproduced_se"])
    out["within"] = pd.array(ok, dtype="boolean")
    out.loc[out["reproduced"].isna(), "within"] = pd.NA
    return out[COMPARISON_COLUMNS]


def with_trial_counts(comparison: pd.DataFrame, sources, reported, planned) -> pd.DataFrame:
    """``comparison`` with TRIAL_COLUMNS appended (CSV_COLUMNS).

    ``sources`` maps a cell (table, row, column) to the (datasets, method ids) whose trials its
    value is computed from (cells not in it count 0); ``reported`` and ``planned`` map
    (dataset, method id) to a number of trials: those reported and those the config plans.
    """
    def count(counter, key) -> int:
        datasets, methods = sources.get(key, ((), ()))
        return sum(counter.get((d, m), 0) for d in dict.fromkeys(datasets) for m in dict.fromkeys(methods))

    keys = list(zip(comparison["table"], comparison["row"], comparison["column"], strict=True))
    return comparison.assign(n_trials=np.array([count(reported, k) for k in keys], dtype=np.int64),
                             n_planned=np.array([count(planned, k) for k in keys], dtype=np.int64))[CSV_COLUMNS]
