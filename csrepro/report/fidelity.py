"""results/FIDELITY.md and results/CLAIMS.md: every published cell and every claim of the papers, with a verdict.

FIDELITY.md has two parts.

* By experiment: each experiment's comparison.csv rows (with or without the trial counts,
  csrepro.report.compare.TRIAL_COLUMNS; files written before them lack them), judged again by the
  current tolerance rule (:func:`csrepro.report.compare.rejudge`).  A table with cells that have fewer
  trials than planned (a reduced or unfinished run) is marked partial.  A cell two experiments compare
  appears under both.
* The ledger: each published cell (experiments/<paper>/published.csv) once, from the experiment that
  owns it (:func:`owned_cells`), within tolerance or, where outside or without a reproduced value, with
  the cause the paper's deviations.csv gives it (:func:`load_ledger`, vocabulary :data:`CAUSES`).  Its
  last line is the total.

A rank cell (an average rank, or a #wins count, over datasets) carries no standard error in comparison.csv.  Where
experiments/<paper>/rank_spread.csv (:data:`RANK_SPREAD_COLUMNS`) names the error table it ranks, the
ledger gives it the standard error its error cells imply (:func:`rank_se`), and a rank cell outside
tolerance that the tolerance rule admits with that SE takes the cause ``tolerance``
(:func:`rank_spread_causes`).

CLAIMS.md is one table of every experiments/<paper>/claims.csv (:data:`CLAIM_COLUMNS`).
Evidence (a ledger's or a claim's) is one or more references joined by `` + ``, each checked by
:func:`missing_evidence`: ``NOTES.md#<heading>`` (a heading of the paper's NOTES.md), ``test:<name>``
(a test function defined under tests/ or experiments/) or a repository path, optionally
``<file>.md#<heading>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from scipy.stats import rankdata

from csrepro.report.compare import CELL_KEY, RULE, TRIAL_COLUMNS, load_published, rejudge, within

#: causes of a published cell outside tolerance or without a reproduced value (issue 31)
CAUSES = ("paper_inconsistent", "unreachable", "protocol_unstated", "data_differs", "published_only", "tolerance",
          "unexplained")
#: causes counted as "outside with a named cause" (published_only and unexplained have their own columns)
NAMED = CAUSES[:4] + ("tolerance",)
#: columns of experiments/<paper>/deviations.csv; row, column (and table) may be "*": every one
LEDGER_COLUMNS = ["table", "row", "column", "cause", "evidence", "detail"]
#: columns of experiments/<paper>/owners.csv: which experiment owns a table several experiments plan
OWNER_COLUMNS = ["table", "experiment", "why"]
#: columns of experiments/<paper>/claims.csv
CLAIM_COLUMNS = ["id", "claim", "location", "check", "verdict", "evidence", "detail"]
VERDICTS = ("holds", "does not hold", "undecided")
#: columns of experiments/<paper>/rank_spread.csv: the rank cells of ``table`` (``row``, "*": every row) are
#: average ranks over the rows of the error table ``source`` (but its ``exclude_rows``, ";"-separated) of the
#: owner's comparison.csv, ``better`` "lower" or "higher"; with ``wins_over`` (";"-separated columns) they are
#: instead #wins, the rows on which the cell's column beats every one of those; ``evidence`` and ``detail`` as in
#: deviations.csv
RANK_SPREAD_COLUMNS = ["table", "row", "source", "exclude_rows", "better", "wins_over", "evidence", "detail"]
#: Monte Carlo draws of :func:`rank_se` and their seed (fixed: the ledger is deterministic)
RANK_DRAWS, RANK_SEED = 4000, 0
REPO_ROOT = Path(__file__).resolve().parents[2]


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


def _read(path: Path, columns: list[str]) -> pd.DataFrame:
    """A ledger-like CSV as strings (empty frame with ``columns`` where ``path`` does not exist)."""
    if not path.is_file():
        return pd.DataFrame(columns=columns)
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if missing := [c for c in columns if c not in df.columns]:
        raise ValueError(f"{path} lacks columns {missing}; its header must be {','.join(columns)}")
    return df[columns]


def load_ledger(paper_dir) -> pd.DataFrame:
    """experiments/<paper>/deviations.csv (empty when absent); a cause outside :data:`CAUSES` is an error."""
    path = Path(paper_dir) / "deviations.csv"
    df = _read(path, LEDGER_COLUMNS)
    bad = sorted(set(df["cause"]) - set(CAUSES))
    if bad:
        raise ValueError(f"{path}: unknown causes {bad}; use one of {', '.join(CAUSES)}")
    return df


def load_claims(paper_dir) -> pd.DataFrame:
    """experiments/<paper>/claims.csv (empty when absent); a verdict outside :data:`VERDICTS` is an error."""
    path = Path(paper_dir) / "claims.csv"
    df = _read(path, CLAIM_COLUMNS)
    bad = sorted(set(df["verdict"]) - set(VERDICTS))
    if bad:
        raise ValueError(f"{path}: unknown verdicts {bad}; use one of {', '.join(VERDICTS)}")
    return df


def resolve_causes(cells: pd.DataFrame, ledger: pd.DataFrame) -> pd.DataFrame:
    """``cells`` (CELL_KEY columns) with ``cause``, ``evidence``, ``detail`` from ``ledger`` ("" where none).

    A cell takes the most specific matching ledger row (fewest "*"); two matching rows of the same
    specificity are an error, so the ledger resolves to one cause per cell.
    """
    out = cells.copy()
    for col in ("cause", "evidence", "detail"):
        out[col] = ""
    if cells.empty or ledger.empty:
        return out
    hit = np.ones((len(cells), len(ledger)), dtype=bool)  # hit[i, j]: ledger row j covers cell i
    for k in CELL_KEY:
        rule = ledger[k].to_numpy(dtype=object)
        hit &= (cells[k].to_numpy(dtype=object)[:, None] == rule[None, :]).astype(bool) | (rule == "*")[None, :]
    stars = (ledger[CELL_KEY] == "*").sum(axis=1).to_numpy()
    fewest = np.where(hit, stars[None, :], len(CELL_KEY) + 1).min(axis=1)
    best = hit & (stars[None, :] == fewest[:, None])
    if (tied := np.flatnonzero(best.sum(axis=1) > 1)).size:
        cell = tuple(cells[CELL_KEY].iloc[tied[0]])
        causes = ledger["cause"].to_numpy()[best[tied[0]]].tolist()
        raise ValueError(f"the ledger gives cell {cell} {len(causes)} equally specific causes {causes}; keep one")
    found = best.any(axis=1)
    rows = best[found].argmax(axis=1)
    out.loc[out.index[found], ["cause", "evidence", "detail"]] = ledger[["cause", "evidence", "detail"]].to_numpy()[rows]
    return out


def rank_se(values: pd.DataFrame, se: pd.DataFrame, lower_is_better: bool = True, n_draws: int = RANK_DRAWS,
            seed: int = RANK_SEED, wins_over: list[str] | None = None) -> pd.Series:
    """Standard error of each column's average rank over the rows of ``values`` (datasets x methods), from the
    cells' standard errors ``se`` (same shape; NaN counts as 0); with ``wins_over``, of each column's #wins, the
    number of rows on which it is strictly better than every column of ``wins_over`` but itself (NaN where
    that leaves none).

    Each draw replaces every cell by an independent normal draw around it with its SE, ranks each row (1 =
    best, ties averaged) and averages the ranks over the rows (or counts the wins); the SE is the standard
    deviation of that statistic over ``n_draws`` seeded draws.  Two methods whose cells are several SEs apart
    never swap and add nothing; close ones swap in a share of the draws.  Independent draws ignore that two
    methods are tested on the same examples (a paired difference can be surer than the two SEs say), so the SE
    is an upper bound where errors are positively correlated.
    """
    v = values.to_numpy(float)
    s = np.nan_to_num(se.reindex_like(values).to_numpy(float))
    draws = v[None] + np.random.default_rng(seed).standard_normal((n_draws, *v.shape)) * s[None]
    draws = draws if lower_is_better else -draws
    if wins_over is None:
        stat = rankdata(draws, axis=2).mean(axis=1)
    else:
        cols = list(values.columns)
        others = [[cols.index(o) for o in wins_over if o != c] for c in cols]
        stat = np.stack([(draws[:, :, j] < draws[:, :, o].min(axis=2)).sum(axis=1) if o else
                         np.full(n_draws, np.nan) for j, o in enumerate(others)], axis=1).astype(float)
    return pd.Series(stat.std(axis=0, ddof=1), index=values.columns)


def load_rank_spread(paper_dir) -> pd.DataFrame:
    """experiments/<paper>/rank_spread.csv (empty when absent); ``better`` outside lower/higher is an error."""
    path = Path(paper_dir) / "rank_spread.csv"
    df = _read(path, RANK_SPREAD_COLUMNS)
    if bad := sorted(set(df["better"]) - {"lower", "higher"}):
        raise ValueError(f"{path}: better must be lower or higher, not {bad}")
    return df


def rank_spread_causes(cells: pd.DataFrame, results: list[ExperimentFidelity], paper: str,
                       spread: pd.DataFrame) -> pd.DataFrame:
    """``cells`` (owned_cells rows with cause, evidence, detail) with the rank cells ``spread``
    (rank_spread.csv rows) names judged again with the SE of :func:`rank_se`: an outside cell without a
    named cause (none, or ``unexplained``) that the tolerance rule admits with that SE takes ``tolerance``
    and the row's evidence; one it does not admit keeps its cause, the SE noted in its detail."""
    out = cells.copy()
    comps = {r.experiment: r.comparison for r in results if r.paper == paper}
    for _, rule in spread.iterrows():
        pick = (out["table"] == rule["table"]) & (out["status"] == "outside") & out["cause"].isin(["", "unexplained"])
        if rule["row"] != "*":
            pick &= out["row"] == rule["row"]
        for owner, idx in out[pick].groupby("owner").groups.items():
            comp = comps[owner]
            src = comp[(comp["table"] == rule["source"]) & ~comp["row"].isin(rule["exclude_rows"].split(";"))]
            se = rank_se(src.pivot(index="row", columns="column", values="reproduced"),
                         src.pivot(index="row", columns="column", values="reproduced_se"), rule["better"] == "lower",
                         wins_over=rule["wins_over"].split(";") if rule["wins_over"] else None)
            for i in idx:
                c, s = out.loc[i], se.get(out.at[i, "column"], np.nan)
                note = f"{'#wins' if rule['wins_over'] else 'rank'} SE {s:.2f} from the {rule['source']} cells"
                if within(c["published"], c["reproduced"], np.nan, s):
                    out.loc[i, ["cause", "evidence", "detail"]] = [
                        "tolerance", rule["evidence"],
                        f"{rule['detail']}; |{c['reproduced']:.2f} - {c['published']:.2f}| within the rule with {note}"]
                else:
                    out.at[i, "detail"] = f"{c['detail']} (outside even with {note})".strip()
    return out


def _owners(paper_dir: Path) -> dict[str, str]:
    owners = _read(paper_dir / "owners.csv", OWNER_COLUMNS)
    return dict(zip(owners["table"], owners["experiment"], strict=True))


def _planned(comparison: pd.DataFrame) -> pd.Series:
    """Rows whose cell the experiment plans (every row of a comparison without trial counts)."""
    if not set(TRIAL_COLUMNS) <= set(comparison.columns):
        return pd.Series(True, index=comparison.index)
    return pd.to_numeric(comparison["n_planned"]) > 0


def owned_cells(paper: str, published: pd.DataFrame, results: list[ExperimentFidelity],
                owners: dict[str, str]) -> pd.DataFrame:
    """Each published cell of ``paper`` once: CELL_KEY, owner, published, reproduced, within, status.

    The owner is the one experiment whose comparison plans the cell (``n_planned > 0``; every row of
    a comparison without trial counts); where several do, the one with a reproduced value, and where
    several have one, the one ``owners`` (owners.csv: table -> experiment) names; where none plans it,
    no experiment ("").  ``status`` is "within", "outside" or
    "missing" (no reproduced value, or no owner).
    """
    comps = []
    for res in results:
        if res.paper == paper and not res.comparison.empty:
            comp = rejudge(res.comparison, published) if len(published) else res.comparison
            comps.append(comp[_planned(comp)].assign(owner=res.experiment))
    planned = pd.concat(comps, ignore_index=True) if comps else pd.DataFrame(
        columns=CELL_KEY + ["owner", "reproduced", "within"])
    valued = planned["reproduced"].notna().groupby([planned[k] for k in CELL_KEY]).transform("any")
    planned = planned[planned["reproduced"].notna() | ~valued]  # a planned cell with a value beats one without
    shared = planned[planned.duplicated(CELL_KEY, keep=False)]
    chosen = shared["table"].map(owners)
    if (unnamed := shared[chosen.isna()]).size:
        table = unnamed.iloc[0]["table"]
        by = sorted(set(unnamed.loc[unnamed["table"] == table, "owner"]))
        raise ValueError(f"{paper}: {table} cells are planned by {by}; name the "
                         f"experiment that owns them in experiments/{paper}/owners.csv ({','.join(OWNER_COLUMNS)})")
    planned = planned.drop(shared.index[shared["owner"] != chosen].tolist())
    cells = published[CELL_KEY].assign(published=published["value"]).merge(
        planned[CELL_KEY + ["owner", "reproduced", "within"]], on=CELL_KEY, how="left")
    cells["owner"] = cells["owner"].fillna("")
    inside = cells["within"].astype("boolean").fillna(False).astype(bool)
    cells["status"] = "missing"
    cells.loc[cells["reproduced"].notna() & inside, "status"] = "within"
    cells.loc[cells["reproduced"].notna() & ~inside, "status"] = "outside"
    return cells


def ledger(experiments_dir, results: list[ExperimentFidelity]) -> pd.DataFrame:
    """Every published cell of every paper folder once (:func:`owned_cells`), with the paper and, for a cell
    outside tolerance or missing, its cause (:func:`resolve_causes`; "" where the ledger names none; a rank
    cell of rank_spread.csv judged with its rank SE, :func:`rank_spread_causes`)."""
    frames = []
    for pub_path in sorted(Path(experiments_dir).glob("*/published.csv")):
        paper_dir = pub_path.parent
        cells = owned_cells(paper_dir.name, load_published(pub_path), results, _owners(paper_dir))
        missed = cells["status"] != "within"
        cells = cells.join(resolve_causes(cells.loc[missed, CELL_KEY], load_ledger(paper_dir))
                           [["cause", "evidence", "detail"]]).fillna({"cause": "", "evidence": "", "detail": ""})
        cells = rank_spread_causes(cells, results, paper_dir.name, load_rank_spread(paper_dir))
        frames.append(cells.assign(paper=paper_dir.name))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["paper", *CELL_KEY, "owner", "status", "cause"])


def ledger_counts(cells: pd.DataFrame) -> dict[str, int]:
    """within, named (outside or missing with a cause of :data:`NAMED`), unexplained (no cause or
    ``unexplained``), published_only; and each named cause's count."""
    missed = cells[cells["status"] != "within"]
    out = {"published": len(cells), "within": int((cells["status"] == "within").sum()),
           "named": int(missed["cause"].isin(NAMED).sum()),
           "unexplained": int((~missed["cause"].isin(NAMED + ("published_only",))).sum()),
           "published_only": int((missed["cause"] == "published_only").sum())}
    return out | {c: int((missed["cause"] == c).sum()) for c in NAMED}


def total_line(c: dict[str, int]) -> str:
    """The last line of FIDELITY.md."""
    return (f"Total: {c['within']} of {c['published']} published cells within tolerance, {c['named']} outside with "
            f"a named cause, {c['unexplained']} unexplained, {c['published_only']} published only.")


def render_fidelity(results: list[ExperimentFidelity], provenance: str, experiments_dir=None) -> str:
    """FIDELITY.md text for a non-empty ``results``: the comparisons by experiment, then the ledger over
    the paper folders of ``experiments_dir`` (each published cell once) and its total."""
    published = {}
    if experiments_dir is not None:
        published = {p.parent.name: load_published(p) for p in Path(experiments_dir).glob("*/published.csv")}
    lines = ["# Fidelity: published vs reproduced", "", provenance, "", "## Comparisons by experiment", "",
             "Each experiment's comparison.csv, judged by the current rule; a cell two experiments compare is "
             "listed under both (the ledger below counts it once).", "",
             "| Paper | Experiment | Table | Published cells | Within tolerance | Outside | No reproduced value |",
             "|:--|:--|:--|--:|--:|--:|--:|"]
    partial = []
    for res in results:
        comparison = res.comparison
        if res.paper in published and not comparison.empty:
            comparison = rejudge(comparison, published[res.paper])
        if short_cells(comparison):
            partial.append(res.experiment)
        if comparison.empty:
            lines.append(f"| {res.paper} | [{res.experiment}]({res.experiment}/REPORT.md) | "
                         "(no published cells compared) | 0 | 0 | 0 | 0 |")
        for table, comp in comparison.groupby("table", sort=False):
            c = counts(comp)
            short = short_cells(comp)
            if short:
                table = f"{table} (PARTIAL: {short} of {len(comp)} cells have fewer trials than planned)"
            lines.append(f"| {res.paper} | [{res.experiment}]({res.experiment}/REPORT.md) | {table} | "
                         f"{c['published']} | {c['within']} | {c['outside']} | {c['missing']} |")
    lines += ["", *([f"Partial runs (fewer trials than their configs plan; not full-scale reproductions): "
                     f"{', '.join(partial)}.", ""] if partial else []),
              f"Tolerance rule (csrepro.report.compare.within, the same for every experiment): within iff `{RULE}`; "
              "a published standard deviation over n values (published.csv `spread_kind` std, `spread_n` n) "
              "enters as the standard error of its mean, SD / sqrt(n) (csrepro.report.compare.published_se).", ""]
    if experiments_dir is None:
        c = counts(pd.concat([r.comparison for r in results]))
        return "\n".join(lines + [total_line({"published": c["published"], "within": c["within"], "named": 0,
                                              "unexplained": c["outside"] + c["missing"], "published_only": 0})]) + "\n"
    cells = ledger(experiments_dir, results)
    lines += ["## Ledger: each published cell once", "",
              "A cell counts once, from the experiment that owns it (the one that plans it; "
              "experiments/<paper>/owners.csv names it where several do).  A cell outside tolerance or without a "
              "reproduced value takes its cause from experiments/<paper>/deviations.csv, where each cause "
              "names its evidence.  An average-rank cell that experiments/<paper>/rank_spread.csv names is judged "
              "again with the standard error its error cells imply (csrepro.report.fidelity.rank_se: the cells "
              "drawn around our values with our SEs, ranked, averaged); where the rule then admits it and "
              "deviations.csv names no other cause, its cause is tolerance.", "",
              "| Paper | Table | Owner | Published cells | Within | Outside, named cause | By cause | Unexplained "
              "| Published only |", "|:--|:--|:--|--:|--:|--:|:--|--:|--:|"]
    for (paper, table), tab in cells.groupby(["paper", "table"], sort=False):
        c = ledger_counts(tab)
        by = ", ".join(f"{k} {c[k]}" for k in NAMED if c[k]) or "—"
        owner = ", ".join(sorted(set(tab["owner"]) - {""})) or "—"
        lines.append(f"| {paper} | {table} | {owner} | {c['published']} | {c['within']} | {c['named']} | {by} | "
                     f"{c['unexplained']} | {c['published_only']} |")
    c = ledger_counts(cells)
    lines += ["", "By cause over all papers: " + ", ".join(f"{k} {c[k]}" for k in NAMED) + ".", "", total_line(c)]
    return "\n".join(lines) + "\n"


def _headings(path: Path) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#+\s+(.+)$", path.read_text(errors="replace"), re.M)}


def _test_names(repo: Path) -> set[str]:
    names = set()
    for folder in ("tests", "experiments"):
        for path in (repo / folder).rglob("test_*.py"):
            names |= set(re.findall(r"^\s*def (test_\w+)", path.read_text(errors="replace"), re.M))
    return names


def missing_evidence(evidence: str, paper_dir, repo=REPO_ROOT, _tests: set | None = None) -> list[str]:
    """The references of ``evidence`` (joined by " + ") that do not exist; ["(empty)"] for no reference."""
    refs = [r.strip() for r in evidence.split(" + ") if r.strip()]
    if not refs:
        return ["(empty)"]
    repo, missing = Path(repo), []
    for ref in refs:
        if ref.startswith("test:"):
            names = _tests if _tests is not None else _test_names(repo)
            ok = ref[5:] in names
        else:
            file, _, heading = ref.partition("#")
            path = Path(paper_dir) / file if file == "NOTES.md" else repo / file
            ok = path.is_file() and (not heading or heading in _headings(path))
        if not ok:
            missing.append(ref)
    return missing


def render_claims(experiments_dir, provenance: str) -> str:
    """CLAIMS.md text: every experiments/<paper>/claims.csv in one table."""
    lines = ["# Claims: each paper's qualitative claims with a verdict", "", provenance, "",
             "From experiments/<paper>/claims.csv; evidence names a NOTES section, a test or a stored file.", "",
             "| paper | claim | check | verdict | evidence |", "|:--|:--|:--|:--|:--|"]
    tally = {v: 0 for v in VERDICTS}
    for path in sorted(Path(experiments_dir).glob("*/claims.csv")):
        for _, c in load_claims(path.parent).iterrows():
            tally[c["verdict"]] += 1
            cell = (lambda s: s.replace("|", "\\|"))
            evidence = c["evidence"] + (f" ({c['detail']})" if c["detail"] else "")
            lines.append(f"| {path.parent.name} | {cell(c['claim'])} ({cell(c['location'])}) | {cell(c['check'])} | "
                         f"{c['verdict']} | {cell(evidence)} |")
    lines += ["", f"Total: {sum(tally.values())} claims, " + ", ".join(f"{n} {v}" for v, n in tally.items()) + "."]
    return "\n".join(lines) + "\n"
