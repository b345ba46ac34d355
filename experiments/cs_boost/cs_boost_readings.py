"""Tables VI.1-VI.4 under readings of the thesis that it leaves open (issue 31 ledger, experiments/cs_boost).

Every run uses the methods, grids, detected class and standardisation of
experiments/cs_boost/conf/exp/cs_boost_uci_{stumps,trees}.yaml and a stratified 10-fold outer pass (seed
0; the leave-one-out pass that owns the tables is 4,390 training parts, too long for a check), and
changes one reading:

* ``--reading``: ``cv5`` is ours (csrepro.selection.detection_rate: five-fold cross-validation, pooled
  out-of-fold scores, the chosen point refitted on the whole training part).  Sec. VI.E's "the training
  set split into five folds, four of which were used for training and one for validation.  The latter
  served to tune parameters (cost parameters and classifier threshold)" also reads as ONE split:
  ``holdout`` trains each grid point on four fifths of the training part, chooses the point and its
  threshold on the fifth alone (fewest validation false positives at the rate, ties first in grid
  order; inner split = the first of csrepro.selection.detection_rate.inner_folds(cv=5, seed 0)) and keeps
  that model; ``holdout_refit`` refits the chosen point on the whole training part with that threshold.
* ``--tictactoe-ordinal``: tic-tac-toe's nine squares as ordinal codes (b 0, o 1, x 2; the registry's
  ``*_ord`` convention) instead of 27 one-hot columns; the thesis does not say how it coded them.
* ``--wdbc-means``: wdbc's ten mean attributes only (the file's columns 3-12), not all 30 (mean, standard error
  and worst value of ten nucleus measurements); the thesis does not say which it used.
* ``--positive CHOICE``: every method detects that class (csrepro.selection.detection_rate.POSITIVES, e.g.
  ``first``: the file's first class) instead of the config's (the minority class; the thesis does not say).
* ``--near-one-grid M ...``: methods M take the per-round factor grid of CSB2 in the same config
  ({1, 1.02, 1.05, 1.1} stumps, {1, 1.05, 1.1, 1.2} trees) instead of {1, 2, 4, 8}: CSB0/CSB1 multiply a
  mistaken example's weight by its cost every round, like CSB2 (NOTES *Baselines*), and the thesis gives
  no grid.
* ``--set COLUMN.PARAM=VALUE``: one parameter of one method column (VALUE read as YAML), e.g.
  ``cs_ada.class_balanced=false`` (CS-Ada and CS-Real start from uniform weights instead of the class-balanced
  weights of Algs. 4-5).
* ``--unscaled COLUMN ...``: those methods see the raw features instead of features z-scored on the training
  part (the thesis does not say it standardised; only the SVMs are not invariant to it).
* ``--base TAG``: the methods not named by ``--methods`` are taken, per set, fold and rate, from the stored run
  ``<weak>_<TAG>_folds.csv`` (same outer folds), so a reading that changes two methods reruns those two and still
  gives the rank cells of every method.

Cells: the rate-averaged total errors (SE: sqrt(10) x the SD over the outer folds of the per-fold
rate-averaged errors, as the 10-fold tables), and, when every method and set is run, the Rank row (ranks of
those totals, ties averaged), the #wins row and the per-rate ranks of Tables VI.2/VI.4 (their SE by
csrepro.report.fidelity.rank_se from the totals' SEs).  Each is judged against the published cell by the
project's rule (csrepro.report.compare.within), beside the committed leave-one-out (owner) and 10-fold
values: ``within_tenfold_same_se`` judges the committed 10-fold value (our reading, the same outer protocol)
with this run's SE, and ``share_closed`` is the share of that value's gap to the published cell this run
closes (1: equal to the published cell; negative: further away).

Run from the repository root (one core; cv5 about 9 min per full table, holdout about 2-3 min):
    python experiments/cs_boost/cs_boost_readings.py stumps --reading holdout --tag holdout
Writes results/alt/cs_boost_readings/<weak>_<tag>.csv (cells), <weak>_<tag>_totals.csv (per-set, per-rate
totals) and <weak>_<tag>_folds.csv (errors per set, outer fold, method and rate).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from joblib import Parallel, delayed
from sklearn.model_selection import ParameterGrid, StratifiedKFold

from csrepro.data.loaders import load_dataset
from csrepro.methods import make_estimator
from csrepro.metrics import detection_at_rate, ranks
from csrepro.report.compare import load_published, within
from csrepro.report.fidelity import rank_se
from csrepro.runner import standardize
from csrepro.selection.detection_rate import POSITIVES, detected_class, inner_folds

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "experiments" / "cs_boost" / "conf" / "exp"
OUT = ROOT / "results" / "alt" / "cs_boost_readings"
SETUP = {"stumps": ("cs_boost_uci_stumps", "Table VI.1", "Table VI.2"),
         "trees": ("cs_boost_uci_trees", "Table VI.3", "Table VI.4")}
READINGS = ("cv5", "holdout", "holdout_refit")
RATES = (0.85, 0.875, 0.9, 0.925, 0.95)
RATE_ROWS = ("rate_85", "rate_87_5", "rate_90", "rate_92_5", "rate_95")
OUTER_FOLDS, SEED = 10, 0
#: "a large share of the way" (issue 31): the share of the baseline's gap to the published cell a reading closes
LARGE_SHARE = 0.75
#: the least share a reading must close for its cell to count as moved, within tolerance or not
MIN_SHARE = 0.25


def ordinal_codes(X: np.ndarray) -> np.ndarray:
    """Tic-tac-toe's 27 one-hot columns (square-major, values b, o, x) as nine codes 0, 1, 2."""
    return X.reshape(len(X), 9, 3).argmax(axis=2).astype(float)


def mean_columns(X: np.ndarray) -> np.ndarray:
    """wdbc's ten mean attributes: the first ten of its 30 columns (then the ten standard errors, the ten worst)."""
    return X[:, :10]


#: the data readings: option -> (dataset, the transform of its feature matrix)
DATA_READINGS = {"tictactoe_ordinal": ("tictactoe", ordinal_codes), "wdbc_means": ("wdbc", mean_columns)}


def rate_errors(selector, reading: str, X_tr, y_tr, X_te, y_te) -> list[int]:
    """Test errors of a detection-rate selector (csrepro.selection.detection_rate) at each of RATES."""
    if reading == "cv5":  # the five rates share one cross-validation (the selector's cache)
        return [int(np.sum(selector.set_params(target_detection_rate=r).fit(X_tr, y_tr).predict(X_te) != y_te))
                for r in RATES]
    pos = detected_class(y_tr, np.unique(y_tr), selector.positive)
    z = (y_tr == pos).astype(int)
    ys = np.where(z == 1, 1.0, -1.0)
    fit_rows, val_rows = inner_folds(ys, selector.cv, selector.cv_seed)[0]
    grid = list(ParameterGrid(selector.param_grid or {}))
    models = [selector._template(selector.estimator, p).fit(X_tr[fit_rows], z[fit_rows]) for p in grid]
    val_scores = [m.decision_function(X_tr[val_rows]) for m in models]
    refitted, out = {}, []
    for rate in RATES:
        points = [detection_at_rate(ys[val_rows], s, rate, pos_label=1.0) for s in val_scores]
        best = min(range(len(points)), key=lambda i: points[i].false_positives)
        if reading == "holdout_refit" and best not in refitted:
            refitted[best] = selector._template(selector.estimator, grid[best]).fit(X_tr, z)
        model = refitted[best] if reading == "holdout_refit" else models[best]
        out.append(int(np.sum((model.decision_function(X_te) >= points[best].threshold) != (y_te == pos))))
    return out


def fold_errors(exp: dict, dataset: str, fold: int, reading: str, data_readings=(), unscaled=(),
                positive=None) -> list[dict]:
    """Errors of every method of ``exp["methods"]`` and rate on one outer fold of ``dataset`` (its features as
    the :data:`DATA_READINGS` named in ``data_readings`` that apply to it give them; the methods named in
    ``unscaled`` on raw features; every method detecting ``positive`` when given)."""
    data = load_dataset(dataset)
    X = data.X
    for name in data_readings:
        applies_to, transform = DATA_READINGS[name]
        X = transform(X) if dataset == applies_to else X
    train, test = list(StratifiedKFold(OUTER_FOLDS, shuffle=True, random_state=SEED).split(X, data.y))[fold]
    scaled = standardize(X[train], X[test])
    extra = exp.get("per_dataset", {}).get(dataset, {}).get("method_params", {})
    extra = extra if positive is None else {**extra, "positive": positive}
    out = []
    for column, entry in exp["methods"].items():
        X_tr, X_te = (X[train], X[test]) if column in unscaled else scaled
        params = {k: v for k, v in entry.items() if k not in ("method", "grid")} | extra
        selector = make_estimator(entry["method"], random_state=SEED, **params)
        errors = rate_errors(selector, reading, X_tr, data.y[train], X_te, data.y[test])
        out += [{"dataset": dataset, "fold": fold, "column": column, "rate": k, "errors": e}
                for k, e in enumerate(errors)]
    return out


def total_and_se(errors: pd.Series) -> pd.Series:
    """Total over the outer folds and its SE, sqrt(folds) x the SD over the folds."""
    return pd.Series({"total": errors.sum(), "se": np.sqrt(len(errors)) * errors.std(ddof=1)})


def rank_cells(avg: pd.DataFrame, per_rate: pd.DataFrame, exp: dict, table: str, rate_table: str) -> list[dict]:
    """Rank, #wins and per-rate rank cells from the per-set totals (every method and set present)."""
    datasets, columns = exp["datasets"], list(exp["methods"])
    wide = avg["total"].unstack().reindex(index=datasets, columns=columns)
    wide_se = avg["se"].unstack().reindex(index=datasets, columns=columns)
    mean_rank, se = ranks(wide.to_numpy()).mean(axis=0), rank_se(wide, wide_se)
    cells = [{"table": table, "row": "avg_rank", "column": c, "reproduced": mean_rank[j], "reproduced_se": se[c]}
             for j, c in enumerate(columns)]
    entries = exp["report"]["rank_tables"]
    wins = next(e for e in entries if e["rows"] == ["wins"])
    old, wse = wide[wins["wins_over"]].min(axis=1), rank_se(wide, wide_se, wins_over=wins["wins_over"])
    cells += [{"table": table, "row": "wins", "column": c, "reproduced": float((wide[c] < old).sum()),
               "reproduced_se": wse[c]} for c in wins["columns"]]
    entry = next(e for e in entries if e["id"] == rate_table)
    for k, row in enumerate(RATE_ROWS):
        r = per_rate[per_rate["rate"] == k]
        t = r.pivot(index="dataset", columns="column", values="total").reindex(
            index=datasets, columns=entry["rank_columns"])
        s = r.pivot(index="dataset", columns="column", values="se").reindex_like(t)
        mean_rank, se = pd.Series(ranks(t.to_numpy()).mean(axis=0), index=t.columns), rank_se(t, s)
        cells += [{"table": rate_table, "row": row, "column": c, "reproduced": mean_rank[c], "reproduced_se": se[c]}
                  for c in entry["columns"]]
    return cells


def moved_cells(alt: pd.DataFrame, base: pd.DataFrame | None = None) -> pd.DataFrame:
    """The cells of a run's output ``alt`` (this script's CSV) that its reading moves to the published value
    (the ledger's ``protocol_unstated`` rule, fixed before the runs): the baseline, judged with the run's SE,
    is outside tolerance, and the run is within it or closes at least :data:`LARGE_SHARE` of the baseline's
    gap; and (added after the first run, which put two cells within tolerance that moved 11-13 % of the way)
    it closes at least :data:`MIN_SHARE` of it; and (added on 28 Nov 2026, after a reading closed a 10-fold gap
    below a published cell whose leave-one-out owner lies above it) it moves the value towards the published
    cell from the owner's side too, i.e. in the direction of published - ``loo`` where the frame has ``loo`` (a
    row whose ``loo`` is missing is then not moved).  The
    baseline is ``base``'s reproduced value (a run of this script under our reading, same outer folds) where
    given, else the committed 10-fold pass (``tenfold``)."""
    out = alt.copy()
    if base is not None:
        out = out.drop(columns="tenfold").merge(
            base[["table", "row", "column", "reproduced"]].rename(columns={"reproduced": "tenfold"}),
            on=["table", "row", "column"])
    base_in = within(out["published"], out["tenfold"], np.nan, out["reproduced_se"])
    gap = (out["tenfold"] - out["published"]).abs()
    share = (gap - (out["reproduced"] - out["published"]).abs()) / gap
    run_in = within(out["published"], out["reproduced"], np.nan, out["reproduced_se"])
    owner_side = (np.sign(out["reproduced"] - out["tenfold"]) == np.sign(out["published"] - out["loo"])
                  if "loo" in out else True)
    moved = ~base_in & (run_in | (share >= LARGE_SHARE)) & (share >= MIN_SHARE) & owner_side
    return out[moved].assign(share_closed=share[moved])  # share[moved]: an empty frame takes a whole Series' index


def parse_setting(text: str) -> tuple[str, str, object] | None:
    """``COLUMN.PARAM=VALUE`` as (column, param, VALUE read as YAML); None when it is not of that form."""
    key, eq, value = text.partition("=")
    column, dot, param = key.partition(".")
    return (column, param, yaml.safe_load(value)) if eq and dot and column and param else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("weak", choices=sorted(SETUP))
    parser.add_argument("--reading", choices=READINGS, default="cv5")
    parser.add_argument("--tictactoe-ordinal", action="store_true")
    parser.add_argument("--wdbc-means", action="store_true")
    parser.add_argument("--positive", choices=POSITIVES, help="the class every method detects")
    parser.add_argument("--near-one-grid", nargs="*", default=[], metavar="METHOD")
    parser.add_argument("--set", action="append", default=[], metavar="COLUMN.PARAM=VALUE", dest="settings")
    parser.add_argument("--unscaled", nargs="*", default=[], metavar="METHOD")
    parser.add_argument("--base", metavar="TAG", help="take the methods not in --methods from this stored run")
    parser.add_argument("--methods", nargs="*", help="a subset of the config's method columns")
    parser.add_argument("--datasets", nargs="*", help="a subset of the config's sets")
    parser.add_argument("--tag", required=True, help="output file stem after the weak learner")
    parser.add_argument("--n-jobs", type=int, default=1)
    ns = parser.parse_args()
    name, table, rate_table = SETUP[ns.weak]
    exp = yaml.safe_load((CONF / f"{name}.yaml").read_text())
    settings = [parse_setting(s) for s in ns.settings]
    if bad := [s for s, parsed in zip(ns.settings, settings) if parsed is None]:
        parser.error(f"--set {bad}: give COLUMN.PARAM=VALUE, e.g. cs_ada.class_balanced=false")
    for option, chosen, known in (("--datasets", ns.datasets, exp["datasets"]),
                                  ("--methods", ns.methods, list(exp["methods"])),
                                  ("--near-one-grid", ns.near_one_grid, list(exp["methods"])),
                                  ("--set", [c for c, _, _ in settings], list(exp["methods"])),
                                  ("--unscaled", ns.unscaled, list(exp["methods"]))):
        if unknown := sorted(set(chosen or []) - set(known)):
            parser.error(f"{option} {unknown} are not in {name}; choose from {known}")
    base_path = OUT / f"{ns.weak}_{ns.base}_folds.csv"
    if ns.base and not (ns.methods and base_path.is_file()):
        parser.error(f"--base {ns.base} needs --methods (those rerun) and the stored run {base_path} "
                     f"(run it first with --tag {ns.base})")
    settings += [(column, "param_grid", exp["methods"]["csb2"]["param_grid"]) for column in ns.near_one_grid]
    for column, param, value in settings:
        exp["methods"][column][param] = value
    exp_run = {**exp, "methods": {c: e for c, e in exp["methods"].items() if not ns.methods or c in ns.methods}}
    datasets = ns.datasets or exp["datasets"]
    errors = pd.DataFrame([r for rows in Parallel(n_jobs=ns.n_jobs)(
        delayed(fold_errors)(exp_run, d, f, ns.reading, [r for r in DATA_READINGS if getattr(ns, r)], ns.unscaled,
                             ns.positive)
        for d in datasets for f in range(OUTER_FOLDS)) for r in rows])
    if ns.base:
        base = pd.read_csv(base_path)
        base = base[~base["column"].isin(ns.methods) & base["dataset"].isin(datasets)]
        errors = pd.concat([base, errors], ignore_index=True)
    full = not ns.datasets and set(errors["column"]) == set(exp["methods"])
    per_rate = errors.groupby(["dataset", "column", "rate"])["errors"].apply(total_and_se).unstack().reset_index()
    OUT.mkdir(parents=True, exist_ok=True)
    errors.sort_values(["dataset", "column", "fold", "rate"]).to_csv(OUT / f"{ns.weak}_{ns.tag}_folds.csv",
                                                                      index=False)
    per_rate.to_csv(OUT / f"{ns.weak}_{ns.tag}_totals.csv", index=False)
    avg = errors.groupby(["dataset", "column", "fold"])["errors"].mean().groupby(
        ["dataset", "column"]).apply(total_and_se).unstack()
    cells = [{"table": table, "row": d, "column": c, "reproduced": v["total"], "reproduced_se": v["se"]}
             for (d, c), v in avg.iterrows()]
    if full:
        cells += rank_cells(avg, per_rate, exp, table, rate_table)
    pub = load_published(ROOT / "experiments" / "cs_boost" / "published.csv")
    out = pd.DataFrame(cells).merge(pub[["table", "row", "column", "value"]].rename(columns={"value": "published"}),
                                    on=["table", "row", "column"], how="inner")
    for label, exp_name in (("loo", f"{name}_loo"), ("tenfold", name)):
        comp = pd.read_csv(ROOT / "results" / exp_name / "comparison.csv")
        comp = comp.rename(columns={"reproduced": label, "within": f"within_{label}"})
        out = out.merge(comp[["table", "row", "column", label, f"within_{label}"]], on=["table", "row", "column"],
                        how="left")
    out["within"] = within(out["published"], out["reproduced"], np.nan, out["reproduced_se"])
    # the committed 10-fold pass (our reading, same outer protocol) judged with this run's SE, and the share of
    # its gap to the published cell that this reading closes
    out["within_tenfold_same_se"] = within(out["published"], out["tenfold"], np.nan, out["reproduced_se"])
    gap = (out["tenfold"] - out["published"]).abs()
    out["share_closed"] = (gap - (out["reproduced"] - out["published"]).abs()) / gap
    out = out[["table", "row", "column", "published", "reproduced", "reproduced_se", "within", "loo", "within_loo",
               "tenfold", "within_tenfold", "within_tenfold_same_se", "share_closed"]]
    out.round(3).to_csv(OUT / f"{ns.weak}_{ns.tag}.csv", index=False)
    print(out.to_string())
    print(f"within: {int(out['within'].sum())} of {len(out)} (leave-one-out owner: {int(out['within_loo'].sum())})")


if __name__ == "__main__":
    main()
