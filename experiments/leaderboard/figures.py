"""The cross-paper leaderboard (issues 21, 30) from the store of the leaderboard experiment (its suite:
conf/suite/leaderboard.yaml).

A *problem* is one dataset under one cost family (the experiment's ``<dataset>__<family>`` aliases); every method
of a problem ran on the same splits with the same cost matrices, and every family of a dataset on the same splits,
so the 48 problems are 12 *datasets* (the statistical units) of four problems each.  The *reference* every method is
compared with is named in the config before the run (``report.reference``, e.g. ``hgb_calibrated``), never chosen
from the results.  From the per-split test costs (the ``risk`` metric) the ``leaderboard`` figure writes, under the
report's figures folder:

* ``leaderboard.csv``: one row per method over all problems, best average rank first: its group (the paper it
  comes from, or "baseline"), average rank (1 = least mean cost on a problem, ties averaged), relative cost against
  the reference with its 95 % hierarchical-bootstrap interval and verdict, and wins / ties / losses against it;
  the median seconds to fit it from scratch (:func:`fit_seconds`);
* ``families.csv``: the same per cost family (against the same reference);
* ``problems.csv``: per problem and method, the mean test cost with its 95 % bootstrap interval over the splits,
  and the corrected resampled t-test against the reference (p-value, win / tie / loss);
* ``friedman.csv``: the Friedman test and the Nemenyi critical difference (autorank) with datasets as the units:
  per family (one problem per dataset), and overall on each dataset's mean rank over its families; a scope of
  fewer than :data:`MIN_FRIEDMAN` datasets has no test;
* ``selection.csv`` and ``selection.md`` (issue 30, "Equal budgets"): per method, its search space (from the config:
  the grid of ``rounds_on_validation``, ``max_depth_grid`` or ``C_grid``, and the rounds 1..cap where it chooses
  them), the number of candidate settings, the chosen settings over its fits (the store's ``selected`` JSON: each
  grid parameter's most frequent value with its share; the rounds' median and range) and the share of fits whose
  chosen rounds are within 10 % of the cap (:data:`CAP_MARGIN`);
* ``datasets.csv`` (:func:`datasets_table`; with a composed config): each data set's size, K, imbalance ratio and the rows of a
  split's training and test parts;
* ``cd_diagram.png`` (overall), ``cd_<family>.png`` (autorank's critical-difference diagrams),
  ``relative_cost_vs_<reference>.png`` (each method's relative cost per family, with intervals) and
  ``cost_vs_time.png`` (average rank against median training time).

Definitions (csrepro.statistics; experiments/leaderboard/NOTES.md, "Statistics"):

* *Relative cost* of method m: the geometric mean over problems of (m's mean cost / the reference's mean cost),
  minus 1 (csrepro.statistics.geometric_cost_ratio; mean costs below COST_FLOOR count as COST_FLOOR); negative
  means cheaper than the reference.  It does not depend on which other methods are in the pool.
* Its *interval*: the 2.5 and 97.5 percentiles over :data:`N_BOOT` hierarchical bootstrap replicates
  (csrepro.statistics.hierarchical_bootstrap: datasets resampled, then splits within each drawn dataset, one split
  draw shared by the dataset's problems and by every method, the ratio to the reference recomputed in each
  replicate).  *Verdict*: "cheaper" / "costlier" when the interval lies below / above 0, else "no difference".
* *Win / tie / loss* on a problem: the corrected resampled t-test (Nadeau & Bengio 2003) of the per-split cost
  differences (method minus reference), n_test / n_train from the store, at :data:`ALPHA`: significantly cheaper /
  not significant / significantly costlier (csrepro.statistics.win_tie_loss).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from csrepro.config import validate_config
from csrepro.data.loaders import load_dataset
from csrepro.metrics import paired_bootstrap_means, percentile_interval, ranks
from csrepro.report.figures import GROUP_COLOURS, group_colour, save_png
from csrepro.report.tables import latest_trials
from csrepro.runner import trial_split
from csrepro.statistics import corrected_resampled_ttest, geometric_cost_ratio, hierarchical_bootstrap, win_tie_loss
from csrepro.trials import plan_trials

N_BOOT = 2000
LEVEL = 0.95
#: level of the per-problem t-tests and of the Friedman / Nemenyi tests
ALPHA = 0.05
SEED = 0
#: autorank's least number of units for a test
MIN_FRIEDMAN = 5
#: cost families in the order the tables list them (the alias suffixes of conf/dataset/leaderboard.yaml)
FAMILIES = ("guess_averse", "rebel", "frequency", "zero_one")
#: method id -> group: the paper a method reproduces, or "baseline" (the modern baselines of issue 21)
GROUPS = {
    "gll_mcboost": "Beijbom 2014", "gel_mcboost": "Beijbom 2014", "ls_mcboost": "Beijbom 2014",
    "lt_mcboost": "Beijbom 2014", "p_mcboost": "Beijbom 2014",
    "rebel": "Appel 2016", "rebel_standard": "Appel 2016",
    "combo": "Koco 2013", "adaboost_mm": "Koco 2013",
    "rda_bayes": "O'Brien 2008", "partition": "O'Brien 2008", "lachiche_flach": "O'Brien 2008",
    "metacost": "O'Brien 2008", "partition_hgb": "O'Brien 2008", "partition_full_hgb": "O'Brien 2008",
    "lachiche_flach_hgb": "O'Brien 2008",
    "lightgbm_calibrated": "baseline", "lightgbm_weighted": "baseline",
    "xgboost_calibrated": "baseline", "xgboost_weighted": "baseline",
    "hgb_calibrated": "baseline", "hgb_weighted": "baseline",
    "logistic": "baseline", "wap": "baseline", "filter_tree": "baseline", "csoaa": "baseline",
}
#: friedman.csv's columns (no row for a scope of fewer than MIN_FRIEDMAN datasets)
FRIEDMAN_COLUMNS = ("scope", "units", "n_datasets", "n_methods", "test", "p_value", "posthoc", "critical_difference")
#: outcome codes of csrepro.statistics.win_tie_loss
OUTCOMES = {1: "win", 0: "tie", -1: "loss"}
#: a fit's chosen rounds count as "at the cap" from (1 - CAP_MARGIN) x cap (issue 30: at most 10 % of the fits)
CAP_MARGIN = 0.10
#: the grids a leaderboard entry's factory tunes (csrepro.methods: gbdt_calibrated / gbdt_weighted, logistic_bayes)
FACTORY_GRIDS = {"max_depth_grid": "max_depth", "C_grid": "estimator__C"}


def reference_of(cfg) -> str:
    """The reference method named by the experiment's ``report.reference`` (raises ValueError without one)."""
    ref = ((cfg or {}).get("exp") or {}).get("report", {}).get("reference")
    if not ref:
        raise ValueError("the leaderboard needs its reference method named before the run: set `report.reference: "
                         "<method id>` (e.g. hgb_calibrated) in conf/suite/leaderboard.yaml")
    return str(ref)


def fit_seconds(store: pd.DataFrame, cfg=None) -> pd.Series:
    """Per method, the median over the (dataset, split)s of its seconds to fit from scratch: the longest
    ``fit_seconds`` among the split's cost families -- and, for the methods on one shared probability model (the
    config's entries with ``model: hgb`` and the same ``model_params``), among those methods too.  The cost-free
    fits of a split are made once and shared (csrepro.probability.shared, csrepro.runner.split_units): the first
    trial that needs one pays for it, so a single trial's ``fit_seconds`` may leave it out."""
    entries = dict(((cfg or {}).get("exp") or {}).get("methods") or {})
    shared = {m: f"hgb {json.dumps(dict(e.get('model_params') or {}), sort_keys=True, default=str)}"
              for m, e in entries.items() if e and e.get("model") == "hgb"}
    sel = latest_trials(store)
    sel = sel.assign(source=sel["dataset"].map(dataset_of), key=sel["method"].map(lambda m: shared.get(m, m)))
    longest = sel.groupby(["key", "source", "trial"])["fit_seconds"].transform("max")
    return sel.assign(longest=longest).groupby(["method", "source", "trial"])["longest"].first().groupby(
        "method").median()


def dataset_of(problem: str) -> str:
    """The dataset of a ``<dataset>__<family>`` problem id (the statistical unit)."""
    return problem.partition("__")[0]


def family_of(problem: str) -> str:
    """The cost family of a ``<dataset>__<family>`` problem id ("" without the separator)."""
    return problem.partition("__")[2]


def cost_cube(store: pd.DataFrame, metric: str = "risk") -> tuple[list[str], list[str], np.ndarray]:
    """(problems, methods, values): ``values[p, m, t]`` is the test ``metric`` of method m on split t of problem p
    (the latest row of each trial; NaN where a trial is missing)."""
    sel = latest_trials(store).assign(value=lambda d: pd.to_numeric(d[metric], errors="coerce"))
    problems = sorted(sel["dataset"].unique())
    methods = sorted(sel["method"].unique(), key=lambda m: (list(GROUPS).index(m) if m in GROUPS else len(GROUPS), m))
    trials = sorted(sel["trial"].unique())
    cube = np.full((len(problems), len(methods), len(trials)), np.nan)
    p = pd.Index(problems).get_indexer(sel["dataset"])
    m = pd.Index(methods).get_indexer(sel["method"])
    t = pd.Index(trials).get_indexer(sel["trial"])
    cube[p, m, t] = sel["value"].to_numpy()
    return problems, methods, cube


def split_ratio(store: pd.DataFrame, problems) -> np.ndarray:
    """Per problem, the mean over its trials of n_test / n_train (the store's columns): the Nadeau-Bengio
    correction's second term."""
    missing = {"n_train", "n_test"} - set(store.columns)
    if missing:
        raise ValueError(f"the store has no {sorted(missing)} column: the corrected t-test needs each split's sizes")
    sel = latest_trials(store)
    ratio = (sel["n_test"] / sel["n_train"]).groupby(sel["dataset"]).mean()
    return ratio.reindex(problems).to_numpy(dtype=float)


def _complete(problems, cube, ratio=None):
    """The problems (and cube rows, and ``ratio`` entries) where every method has every split: ranks and paired
    statistics need them."""
    keep = ~np.isnan(cube).any(axis=(1, 2))
    kept = [p for p, k in zip(problems, keep) if k]
    return (kept, cube[keep]) if ratio is None else (kept, cube[keep], np.asarray(ratio)[keep])


def _verdict(low: float, high: float) -> str:
    return "cheaper" if high < 0 else "costlier" if low > 0 else "no difference"


def summarise(problems, methods, cube, ratio, reference: str, n_boot=N_BOOT, seed=SEED) -> pd.DataFrame:
    """One row per method over ``problems`` (complete ones; ``ratio``: their n_test / n_train): average rank,
    relative cost against ``reference`` with its hierarchical-bootstrap interval and verdict, wins / ties / losses
    against it (module docstring).  The reference's own comparison columns are empty.  Sorted by average rank."""
    r = methods.index(reference)
    means = cube.mean(axis=2)  # (P, M)
    avg_rank = ranks(means).mean(axis=0)
    rel = geometric_cost_ratio(means, r) - 1.0
    boot = hierarchical_bootstrap(cube, [dataset_of(p) for p in problems], lambda m: geometric_cost_ratio(m, r),
                                  n_boot=n_boot, random_state=seed) - 1.0
    lo, hi = percentile_interval(boot, LEVEL)
    outcome = win_tie_loss(cube - cube[:, [r]], np.asarray(ratio)[:, None], alpha=ALPHA)  # (P, M)
    wins, losses = (outcome == 1).sum(axis=0), (outcome == -1).sum(axis=0)
    table = pd.DataFrame({
        "method": methods, "group": [GROUPS.get(m, "other") for m in methods], "average_rank": avg_rank,
        "relative_cost": rel, "relative_low": lo, "relative_high": hi,
        "verdict": [_verdict(a, b) for a, b in zip(lo, hi)],
        "wins": wins, "ties": len(problems) - wins - losses, "losses": losses,
        "reference": reference, "n_problems": len(problems),
        "n_datasets": len({dataset_of(p) for p in problems})})
    table = table.astype({c: "Int64" for c in ("wins", "ties", "losses")})
    table.loc[r, ["relative_low", "relative_high", "wins", "ties", "losses"]] = pd.NA
    table.loc[r, "verdict"] = "reference"
    return table.sort_values(["average_rank", "method"], kind="stable").reset_index(drop=True)


def problem_table(problems, methods, cube, ratio, reference: str, n_boot=N_BOOT, seed=SEED) -> pd.DataFrame:
    """Per problem and method: mean test cost over the splits and its 95 % bootstrap interval; where the problem is
    complete, the corrected resampled t-test against ``reference`` (``p_reference``, ``outcome``)."""
    boot = paired_bootstrap_means(cube, n_boot=n_boot, random_state=seed)
    lo, hi = percentile_interval(boot, LEVEL)
    r = methods.index(reference)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(cube, axis=2)
    p_ref, outcome = np.full(mean.shape, np.nan), np.full(mean.shape, "", dtype=object)
    done = ~np.isnan(cube).any(axis=(1, 2))  # the tests need every split of every method
    if done.any():
        diff, rat = cube[done] - cube[done][:, [r]], np.asarray(ratio)[done, None]
        p_ref[done] = corrected_resampled_ttest(diff, rat)[1]
        outcome[done] = np.vectorize(OUTCOMES.get)(win_tie_loss(diff, rat, alpha=ALPHA))
    p_ref[:, r], outcome[:, r] = np.nan, "reference"
    rows = [{"problem": p, "dataset": dataset_of(p), "family": family_of(p), "method": m,
             "mean_cost": mean[i, j], "ci_low": lo[i, j], "ci_high": hi[i, j],
             "n_splits": int((~np.isnan(cube[i, j])).sum()), "p_reference": p_ref[i, j], "outcome": outcome[i, j]}
            for i, p in enumerate(problems) for j, m in enumerate(methods)]
    return pd.DataFrame(rows)


def dataset_ranks(problems, methods, cube) -> pd.DataFrame:
    """Each dataset's mean rank of every method over its problems (its cost families): (datasets, methods)."""
    per_problem = pd.DataFrame(ranks(cube.mean(axis=2)), index=[dataset_of(p) for p in problems], columns=methods)
    return per_problem.groupby(level=0, sort=True).mean()


def friedman(data: pd.DataFrame, scope: str, units: str, out_dir: Path, name: str):
    """autorank's Friedman test and Nemenyi critical difference on ``data`` (one row per dataset, one column per
    method, lower is better), and its critical-difference diagram as ``name``.png; returns (row for
    friedman.csv, png path or None)."""
    from autorank import autorank, plot_stats

    with contextlib.redirect_stdout(io.StringIO()):  # autorank prints its choice of tests and its rank table
        res = autorank(data, alpha=ALPHA, order="ascending", force_mode="nonparametric", approach="frequentist",
                       verbose=False)
    row = dict(zip(FRIEDMAN_COLUMNS, (scope, units, len(data), data.shape[1], res.omnibus, res.pvalue, res.posthoc,
                                      res.cd)))
    path = None
    if res.posthoc == "nemenyi":
        with contextlib.redirect_stdout(io.StringIO()):
            ax = plot_stats(res, allow_insignificant=True, width=9)
        ax.set_title(f"Critical difference (Nemenyi, alpha {ALPHA}), {scope}: {units}", fontsize=9)
        path = save_png(ax.figure, out_dir, name, bbox_inches="tight")  # the method names reach the edges
    return row, path


def plot_relative(families: pd.DataFrame, reference: str, out_dir: Path) -> Path:
    """relative_cost_vs_<reference>.png: per family, each method's relative cost against the reference."""
    fams = [f for f in FAMILIES if f in set(families["family"])]
    order = families.groupby("method")["average_rank"].mean().sort_values().index
    fig, axes = plt.subplots(1, len(fams), figsize=(3.4 * len(fams), 0.28 * len(order) + 1.6), sharey=True,
                             squeeze=False)
    for ax, fam in zip(axes[0], fams):
        f = families[families["family"] == fam].set_index("method").reindex(order)
        y = np.arange(len(order))
        colors = [group_colour(GROUPS.get(m, "other")) for m in order]
        low = f["relative_low"].astype(float).fillna(f["relative_cost"])
        high = f["relative_high"].astype(float).fillna(f["relative_cost"])
        err = np.vstack([f["relative_cost"] - low, high - f["relative_cost"]])
        ax.barh(y, 100 * f["relative_cost"], xerr=100 * err, color=colors, alpha=0.8)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_title(f"{fam} ({f['n_datasets'].dropna().iloc[0]} datasets)", fontsize=9)
        ax.set_xlabel(f"% cost vs {reference}")
    axes[0][0].set_yticks(np.arange(len(order)), order, fontsize=8)
    axes[0][0].invert_yaxis()
    groups = [g for g in GROUP_COLOURS if g in {GROUPS.get(m, "other") for m in order}]
    fig.legend(handles=[matplotlib.patches.Patch(color=group_colour(g), label=g) for g in groups],
               loc="lower center", ncol=len(groups), fontsize=8, frameon=False)
    fig.suptitle(f"Relative test cost per cost family against {reference} (geometric mean; colour: method group; "
                 "95 % hierarchical bootstrap)", fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return save_png(fig, out_dir, f"relative_cost_vs_{reference}")


def plot_cost_time(board: pd.DataFrame, out_dir: Path) -> Path:
    """cost_vs_time.png: average rank (all problems) against median training seconds, log scale."""
    fig, ax = plt.subplots(figsize=(10, 5.5))
    markers = "osD^vPX*<>ph"
    for group, g in board.groupby("group", sort=False):  # no text on the points: one legend entry per method
        for k, (_, r) in enumerate(g.iterrows()):
            ax.scatter(r["median_fit_seconds"], r["average_rank"], s=40, color=group_colour(group),
                       marker=markers[k % len(markers)], label=f"{r['method']} ({group})", edgecolors="k",
                       linewidths=0.4)
    ax.set_xscale("log")
    ax.set_xlabel("median training time per split (s, log scale)")
    ax.set_ylabel("average rank over all problems (1 = best)")
    ax.invert_yaxis()
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    ax.set_title("Cost against training time (colour: method group)")
    fig.tight_layout()
    return save_png(fig, out_dir, "cost_vs_time")


def search_space(entry: dict, rounds: bool) -> dict:
    """A leaderboard entry's (its ``exp.methods`` mapping) search space: parameter -> candidate values, from its
    ``rounds_on_validation.grid`` or its factory's grids (:data:`FACTORY_GRIDS`, defaults from csrepro.methods), with
    ``n_estimators`` -> range(1, cap + 1) when it chooses its rounds (``rounds``: its fits stored some), and the
    grids of a decision rule's probability model (``model_params``: ``model max_depth``, ``model rounds``)."""
    from csrepro import methods

    grid = dict((entry.get("rounds_on_validation") or {}).get("grid") or {})
    factory = methods.get_method(entry.get("method", "")).factory if entry.get("method") in methods.METHODS else None
    tuned = factory in (methods.gbdt_calibrated, methods.gbdt_weighted, methods.logistic_bayes)
    defaults = {"max_depth_grid": methods.GBDT_DEPTHS, "C_grid": methods.LOGISTIC_CS}
    for key, name in FACTORY_GRIDS.items():
        if key in entry or tuned and key in inspect.signature(factory).parameters:
            grid[name] = list(entry.get(key, defaults[key]))
    if "n_estimators" in entry and (rounds or "rounds_on_validation" in entry or tuned):
        grid["n_estimators"] = range(1, int(entry.get("n_estimators", 1)) + 1)
    model = dict(entry.get("model_params") or {})  # a decision rule's tuned probability model (e.g. model: hgb)
    if "max_depth_grid" in model:
        grid["model max_depth"] = list(model["max_depth_grid"])
    if "n_estimators" in model:
        grid["model rounds"] = range(1, int(model["n_estimators"]) + 1)
    return grid


def _flat(chosen: dict) -> dict:
    """A stored choice with a probability model's choice (``{"model": {...}}``, a decision rule over a tuned model)
    laid out as the method's own: its rounds and cap as ``n_estimators`` / ``n_estimators_cap``, its other settings
    as ``model <name>``."""
    model = chosen.get("model") or {}
    out = {k: v for k, v in chosen.items() if k != "model"}
    for key, value in model.items():
        out[key if key in ("n_estimators", "n_estimators_cap", "refit") else f"model {key}"] = value
    return out


def _values_text(values) -> str:
    if isinstance(values, range):
        return f"1..{values.stop - 1}"
    return "{" + ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values) + "}"


def selection_table(store: pd.DataFrame, cfg=None) -> pd.DataFrame:
    """Per method: search space, number of candidates, chosen settings and the share of fits at the cap (module
    docstring); the methods of ``cfg``'s ``exp.methods`` in config order (every method of the store without one)."""
    sel = latest_trials(store)
    entries = dict(((cfg or {}).get("exp") or {}).get("methods") or {})
    rows = []
    for method in list(entries) + sorted(set(sel["method"]) - set(entries)):
        fits = sel[sel["method"] == method]
        chosen = [_flat(json.loads(c)) for c in fits.get("selected", pd.Series(dtype=object)).dropna()]
        rounds = [c["n_estimators"] for c in chosen if "n_estimators" in c]
        space = search_space({"method": method, **dict(entries.get(method) or {})}, bool(rounds))
        caps = [c.get("n_estimators_cap", space.get("n_estimators", space.get("model rounds", range(1, 1))).stop - 1)
                for c in chosen if "n_estimators" in c]
        parts = []
        for name in space:
            if name in ("n_estimators", "model rounds"):
                continue
            values = pd.Series([c.get(name) for c in chosen]).dropna()
            if len(values):
                top = values.value_counts()
                parts.append(f"{name}={top.index[0]:g} ({top.iloc[0] / len(values):.0%})" if isinstance(
                    top.index[0], float) else f"{name}={top.index[0]} ({top.iloc[0] / len(values):.0%})")
        if rounds:
            parts.append(f"rounds median {np.median(rounds):g} [{min(rounds)}, {max(rounds)}]")
        at_cap = [n >= (1 - CAP_MARGIN) * cap for n, cap in zip(rounds, caps)]
        rows.append({
            "method": method, "group": GROUPS.get(method, "other"),
            "search_space": "; ".join(f"{k} in {_values_text(v)}" for k, v in space.items()) or "none (no setting "
            "chosen on validation)",
            "n_candidates": int(np.prod([len(v) for v in space.values()])) if space else 1,
            "selected": "; ".join(parts) or "-",
            "median_rounds": np.median(rounds) if rounds else np.nan,
            "cap": max(caps) if caps else pd.NA,
            "cap_share": float(np.mean(at_cap)) if rounds else np.nan,
            "refit": all(c.get("refit", False) for c in chosen) if any("refit" in c for c in chosen) else pd.NA,
            "n_fits": len(fits)})
    return pd.DataFrame(rows).astype({"cap": "Int64"})


def selection_markdown(table: pd.DataFrame) -> str:
    """``selection_table`` as a Markdown table (cap share in %)."""
    lines = ["| method | search space | candidates | chosen settings | refit | fits at the cap (>= 90 %) |",
             "|---|---|---:|---|---|---:|"]
    for r in table.itertuples():
        share = "-" if pd.isna(r.cap_share) else f"{100 * r.cap_share:.0f} % (cap {r.cap})"
        refit = "-" if pd.isna(r.refit) else "yes" if r.refit else "no"
        lines.append(f"| `{r.method}` | {r.search_space} | {r.n_candidates:,} | {r.selected} | {refit} | {share} |")
    return "\n".join(lines) + "\n"


def protocol_markdown(cfg, problems, table: pd.DataFrame) -> str:
    """REPORT.md's "Protocol" section, read from the config (``exp``) and the run: the reference named before the
    run, the data rule (the validation rows' seed, the refits), the budget (``exp.vars``), the splits, the units and
    the statistics."""
    exp = (cfg or {}).get("exp") or {}
    entries = dict(exp.get("methods") or {})
    refit = sorted(m for m, e in entries.items() if e and (e.get("refit") or (e.get("rounds_on_validation") or {})
                                                            .get("refit") or (e.get("model_params") or {}).get("refit")))
    seed = (exp.get("protocol") or {}).get("selection_seed", "method")
    budget = dict(exp.get("vars") or {})
    datasets = sorted({dataset_of(p) for p in problems})
    lines = [f"- **Reference:** `{reference_of(cfg)}` (`report.reference`), named in the config before the run and "
             "never chosen from the test results.",
             f"- **Data rule:** `protocol.selection_seed: {seed}`"
             + (" -- every method of a split chooses its settings on the same stratified third of the training part "
                "(one seed per dataset and split, shared by every method and cost family)" if seed == "trial" else "")
             + f"; {len(refit)} of {len(entries)} methods refit their chosen settings on the whole training part, the "
             "others choose nothing on validation (the rules on RDA: its own schedule, rules learned on out-of-fold "
             "probabilities); every method's choice is in the table below.",
             "- **Budget:** " + (", ".join(f"`{k}` = {v}" for k, v in budget.items() if not isinstance(v, dict))
                                 or "as in the methods' entries")
             + f"; {exp.get('n_trials', '?')} splits per problem.",
             f"- **Units:** {len(problems)} problems = {len(datasets)} datasets x their cost families; every interval "
             "and test treats the dataset as the unit.",
             f"- **Statistics:** relative cost = geometric mean over problems of cost / reference cost; "
             f"{100 * LEVEL:.0f} % hierarchical-bootstrap intervals ({N_BOOT:,} replicates: datasets, then splits); "
             f"wins / ties / losses by the Nadeau-Bengio corrected resampled t-test at {ALPHA}; Friedman + Nemenyi "
             "with datasets as units (experiments/leaderboard/NOTES.md, \"Statistics\").",
             f"- **Methods compared:** {len(table)}."]
    return "\n".join(lines) + "\n"


DATASET_COLUMNS = ("dataset", "source", "rows", "features", "classes", "imbalance_ratio", "n_train", "n_test",
                   "subsampled", "protocol")


def datasets_table(exp, data_root=None, download: bool = False) -> pd.DataFrame:
    """One row per dataset of the composed experiment ``exp`` (``cfg.exp``), in the config's order, read from the
    config and the data (issue 30, "Power"): ``dataset`` (the name in the problem ids ``<dataset>__<family>``),
    ``source`` (its registry id), ``rows``, ``features`` (after the registry's encoding), ``classes`` (K) and
    ``imbalance_ratio`` (largest class count over the smallest) of the whole dataset; ``n_train`` / ``n_test``, the
    rows of a split's parts after the protocol's ``train_size`` subsample (a stratified holdout gives every split the
    same counts); ``subsampled``; ``protocol``, the dataset's protocol keys that differ from the experiment's."""
    plans, _ = plan_trials(exp)
    base = dict(exp.protocol)
    rows, seen = [], set()
    for alias, plan in plans.items():
        name = alias.partition("__")[0]
        if name in seen:
            continue
        seen.add(name)
        data = load_dataset(plan.source, data_root=data_root, download=download)
        counts = np.unique(data.y, return_counts=True)[1]
        _, _, train, test = trial_split(plan, 0, data_root, download)
        own = {k: v for k, v in plan.protocol.items() if base.get(k) != v}
        rows.append({"dataset": name, "source": plan.source, "rows": len(data.y), "features": data.X.shape[1],
                     "classes": len(counts), "imbalance_ratio": round(float(counts.max() / counts.min()), 1),
                     "n_train": len(train), "n_test": len(test), "subsampled": len(train) + len(test) < len(data.y),
                     "protocol": ", ".join(f"{k}={v}" for k, v in sorted(own.items()))})
    return pd.DataFrame(rows, columns=list(DATASET_COLUMNS))


def plot_leaderboard(out_dir, store: pd.DataFrame, cfg=None) -> list[Path]:
    """Every table and figure of the module docstring; ``cfg`` names the reference (``exp.report.reference``)."""
    out_dir = Path(out_dir)
    reference = reference_of(cfg)
    problems, methods, cube = cost_cube(store)
    if reference not in methods:
        raise ValueError(f"the reference {reference!r} (report.reference) has no trial in the store; name one of "
                         f"{methods} in conf/suite/leaderboard.yaml")
    ratio = split_ratio(store, problems)
    out_dir.mkdir(parents=True, exist_ok=True)
    seconds = fit_seconds(store, cfg)
    problem_table(problems, methods, cube, ratio, reference).to_csv(out_dir / "problems.csv", index=False)
    problems, cube, ratio = _complete(problems, cube, ratio)
    if not problems:
        raise ValueError("no problem has every method on every split: run the experiment to completion first")
    board = summarise(problems, methods, cube, ratio, reference)
    board["median_fit_seconds"] = board["method"].map(seconds)
    board.to_csv(out_dir / "leaderboard.csv", index=False)
    paths = [out_dir / "problems.csv", out_dir / "leaderboard.csv"]
    (out_dir / "protocol.md").write_text(protocol_markdown(cfg, problems, board))
    chosen = selection_table(store, cfg)
    chosen.to_csv(out_dir / "selection.csv", index=False)
    (out_dir / "selection.md").write_text(selection_markdown(chosen))
    paths += [out_dir / "protocol.md", out_dir / "selection.csv", out_dir / "selection.md"]
    if cfg is not None and "data" in cfg:  # a composed config: each data set's size, K, imbalance ratio, split rows
        checked = validate_config(cfg)  # the report's config as composed; plan_trials reads the validated one
        datasets_table(checked.exp, checked.data.root, checked.data.download).to_csv(out_dir / "datasets.csv",
                                                                                      index=False)
        paths.append(out_dir / "datasets.csv")
    fam_rows, tests, pngs = [], [], []
    by_dataset = dataset_ranks(problems, methods, cube)
    if len(by_dataset) >= MIN_FRIEDMAN:
        n_fam = len({family_of(p) for p in problems})
        row, png = friedman(by_dataset, "all families", f"{len(by_dataset)} datasets, each its mean rank over "
                            f"{n_fam} cost families", out_dir, "cd_diagram")
        tests.append(row)
        pngs.append(png)
    for fam in FAMILIES:
        sel = [i for i, p in enumerate(problems) if family_of(p) == fam]
        if not sel:
            continue
        sub = [problems[i] for i in sel]
        fam_rows.append(summarise(sub, methods, cube[sel], ratio[sel], reference).assign(family=fam))
        if len(sel) >= MIN_FRIEDMAN:
            data = pd.DataFrame(cube[sel].mean(axis=2), index=[dataset_of(p) for p in sub], columns=methods)
            row, png = friedman(data, fam, f"{len(sel)} datasets", out_dir, f"cd_{fam}")
            tests.append(row)
            pngs.append(png)
    families = pd.concat(fam_rows, ignore_index=True)
    families = families[["family"] + [c for c in families.columns if c != "family"]]
    families.to_csv(out_dir / "families.csv", index=False)
    pd.DataFrame(tests, columns=list(FRIEDMAN_COLUMNS)).to_csv(out_dir / "friedman.csv", index=False)
    paths += [out_dir / "families.csv", out_dir / "friedman.csv", plot_relative(families, reference, out_dir),
              plot_cost_time(board, out_dir)]
    return paths + [p for p in pngs if p is not None]


FIGURES = {"leaderboard": plot_leaderboard}
