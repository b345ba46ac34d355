"""results/site/: a static website of the committed results (``python -m csrepro.report --site``).

Built from what the runs and reports left in the results folder, never from the stores:
``<results>/<exp>/comparison.csv`` (published beside reproduced, csrepro.report.compare),
``run_info.json`` (the run's command, dates and commit, csrepro.provenance), ``tables/*.md``,
``figures/*.png`` and ``figures/*.csv``; each paper's ``experiments/<paper>/NOTES.md``, ``deviations.csv``
(a cause per missed cell) and ``claims.csv`` (csrepro.report.fidelity); and ``<results>/leaderboard/``
when it exists.  Pages (plain HTML from the Jinja2 templates in csrepro/report/templates/, one CSS file,
no external resources; every link relative, so the site works from file:// as from a static server)::

    index.html              findings first, generated: a summary sentence (:func:`summary_sentence`), the
                            leaderboard's verdict per cost family (:func:`leaderboard_verdicts`), the claims
                            ledger (:func:`claims`), then each paper's published numbers split within /
                            explained / unexplained (:func:`paper_fidelity`, each cell once from the ledger);
                            a missing input is one "not yet available" line
    papers/<paper>.html     per experiment: run stamp, comparison tables (each missed cell with its cause and
                            evidence; only the unexplained ones red; PARTIAL tables marked), the reproduced
                            tables, figures and every row of the figure data
    notes/<paper>.html      experiments/<paper>/NOTES.md, escaped, with heading anchors
    leaderboard.html        results/leaderboard/: the verdicts, the headline table (leaderboard.csv), the figures
                            under it, chosen settings, data sets, every other CSV in full (past SPLIT_ROWS rows,
                            one page per data set: leaderboard/<table>/<data set>.html) and REPORT.md; without
                            it, how to make it
    figures/<exp>/*.png     copies of the figures;  data/<exp>/*.csv  copies of the CSVs the tables show
    summary.txt             the index's summary sentence, for README.md to quote
    site.css

Every CSV table (:func:`csv_table`) has formatted headers and units, shows every row, links its CSV, and
sorts by a click on a column header (a few lines of inline JavaScript; without them the tables read the
same).  Every page names the site's generation: commit, whether the tree was dirty (outside results/),
date, command with repository-relative paths and package versions; no page shows an absolute path
(:func:`scrub`).  The site is built in a scratch folder beside the target and renamed into place only
once complete: an error leaves the existing site as it was.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pandas as pd
import yaml
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from csrepro.data.registry import get_spec
from csrepro.provenance import REPO_ROOT, RUN_INFO, read_run_info
from csrepro.report.compare import CELL_KEY, COMPARISON_COLUMNS, RULE, TRIAL_COLUMNS
from csrepro.report.fidelity import (NAMED, VERDICTS, ExperimentFidelity, counts, ledger, ledger_counts,
                                     load_claims, load_ledger, resolve_causes, short_cells)
from csrepro.report.figures import group_colour


def paper_labels(experiments_dir) -> dict[str, str]:
    """Paper folder -> its title on the site (``label`` of experiments/<paper>/paper.yaml), for the papers with a
    row in README.md's paper table (``readme``), in that table's order (``order``)."""
    metas = {path.parent.name: yaml.safe_load(path.read_text()) for path in Path(experiments_dir).glob("*/paper.yaml")}
    shown = sorted((m["order"], paper) for paper, m in metas.items() if m.get("readme"))
    return {paper: metas[paper]["label"] for _, paper in shown}


TEMPLATES = Path(__file__).resolve().parent / "templates"
#: the paper (exp.paper) and results folder of the leaderboard: its own page, not a paper page
LEADERBOARD = "leaderboard"
#: paper folder -> title, in the order of README.md's paper table; other papers follow, titled by
#: the first heading of their NOTES.md
PAPERS = paper_labels(REPO_ROOT / "experiments")
#: a CSV table with more rows and a ``dataset`` column is shown per data set: a collapsible section each, or on the
#: leaderboard a drill-down page each (Site.drill_down)
SPLIT_ROWS = 100
#: the packages whose versions every page names
PACKAGES = ("numpy", "scipy", "scikit-learn", "lightgbm", "xgboost", "csrepro")
#: other distributions of the same module: XGBoost's CPU-only wheel (the dev extra's outside macOS)
DISTRIBUTIONS = {"xgboost": ("xgboost", "xgboost-cpu")}
#: an absolute path to a file of a clone of the repository (this one or another): the part before the
#: repository's top-level folder, dropped from every text the site shows
#: any other absolute path under a usual top folder (e.g. a data mirror named in a NOTES.md): shown as ".../<name>"
OTHER_PATH = re.compile(r"(?<![\w.:/~-])/(?:home|root|tmp|work|usr|var|srv|mnt|opt|Users|private)"
                        r"(?:/[\w.+-]+)*/([\w.+-]+)")
CLONE_PREFIX = re.compile(r"(?<![\w.:/~-])/(?:[^\s/<>\"'`|()\[\]]+/)+?"
                          r"(?=(?:experiments|results|csrepro|conf|tests|scripts)/)")


class SiteError(ValueError):
    """A results file the site cannot be built from; one line, naming the file."""


@dataclass(frozen=True)
class SiteExperiment:
    """An experiment shown on the site: its results folder name (exp.name) and paper folder (exp.paper)."""

    name: str
    paper: str


def slug(text: str) -> str:
    """An anchor or file name of ``text``: lower case, runs of other characters than [a-z0-9] as "-"."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "x"


def number(x, digits: int = 4) -> str:
    """``x`` with ``digits`` significant figures in fixed notation ("" for NaN / None)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    decimals = max(0, min(8, digits - 1 - math.floor(math.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def published_number(x) -> str:
    """A published value as transcribed (comparison.csv keeps 10 significant figures; no trailing zeros)."""
    return "" if x is None or pd.isna(x) else f"{float(x):.10g}"


def _one_line(err: BaseException) -> str:
    """An error's message on one line, without absolute paths."""
    return scrub(" ".join(str(err).split()))


def _exact(x) -> str:
    """Full-precision text of a value for data-value attributes ("" for NaN)."""
    return "" if x is None or pd.isna(x) else repr(float(x))


def scrub(text: str) -> str:
    """``text`` without absolute paths: "<clone>/experiments/x" becomes "experiments/x" (:data:`CLONE_PREFIX`),
    whichever clone wrote it; another absolute path ".../<its last name>" (:data:`OTHER_PATH`)."""
    return OTHER_PATH.sub(r".../\1", CLONE_PREFIX.sub("", str(text).replace(f"{REPO_ROOT}/", "")))


def relative_command(command: str) -> str:
    """``command`` with each absolute path argument (or ``key=`` value) relative to the repository, or
    "…/<name>" for a path outside it."""
    def rel(arg: str) -> str:
        key, eq, value = arg.partition("=") if not arg.startswith("/") else ("", "", arg)
        if not value.startswith("/"):
            return arg
        path = Path(value)
        try:
            value = path.relative_to(REPO_ROOT).as_posix() or "."
        except ValueError:
            value = f".../{path.name}"
        return f"{key}{eq}{value}"

    try:
        return shlex.join(rel(a) for a in shlex.split(command))
    except ValueError:
        return scrub(command)


def package_versions() -> list[tuple[str, str]]:
    """(package, installed version or "not installed") of each of :data:`PACKAGES`, from the first of its
    :data:`DISTRIBUTIONS` that is installed."""
    out = []
    for name in PACKAGES:
        found = "not installed"
        for dist in DISTRIBUTIONS.get(name, (name,)):
            try:
                found = metadata.version(dist)
                break
            except metadata.PackageNotFoundError:
                continue
        out.append((name, found))
    return out


# --- a small markdown reader for the reports' tables (no markdown package needed) -----------------

INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|(!?)\[([^\]]*)\]\(([^)]*)\)")


def inline(text: str) -> list[dict]:
    """Segments of one line of markdown: {"kind": "text" | "code" | "b" | "link" | "image", "text": ...};
    a link or image also has its "target" (a file of the results folder; the site maps it to its copy,
    or shows the text only)."""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        if m.start() > pos:
            out.append({"kind": "text", "text": text[pos:m.start()]})
        code, bold, bang, label, target = m.groups()
        out.append({"kind": "code", "text": code} if code is not None else
                   {"kind": "b", "text": bold} if bold is not None else
                   {"kind": "image" if bang else "link", "text": label, "target": target})
        pos = m.end()
    if pos < len(text):
        out.append({"kind": "text", "text": text[pos:]})
    return out


def _row_cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


SEPARATOR = re.compile(r"^\s*:?-+:?\s*$")
#: the cells of a table row that holds no number (e.g. a "pub" row of a table whose paper gives none)
EMPTY_CELLS = {"", "—", "-", "pub"}


def markdown_blocks(text: str) -> list[dict]:
    """Blocks of a report's markdown: headings, paragraphs, bullet lists and pipe tables, their text
    as :func:`inline` segments (rendered, escaped, by the templates' ``blocks`` macro)."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.lstrip().startswith("|"):
            rows, align = [], []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                cells = _row_cells(lines[i])
                i += 1
                if cells and all(SEPARATOR.match(c) for c in cells):
                    align = ["num" if c.strip().endswith(":") and not c.strip().startswith(":") else ""
                             for c in cells]
                    continue
                rows.append(cells)
            width = max(len(r) for r in rows)
            align += [""] * (width - len(align))
            body = [r for r in rows[1:] if not set(r) <= EMPTY_CELLS]
            blocks.append({"kind": "table", "align": align, "head": [inline(c) for c in rows[0]],
                           "rows": [[inline(c) for c in r] + [[]] * (width - len(r)) for r in body],
                           # a row with an empty first cell continues the row above: sorting would split them
                           "sortable": all(r[0] for r in body)})
        elif m := re.match(r"^(#{1,6})\s+(.*)$", line):
            blocks.append({"kind": "heading", "level": min(6, len(m[1]) + 2), "text": inline(m[2].strip())})
            i += 1
        elif re.match(r"^\s*[-*] ", line):
            items = []
            while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith(("|", "#")):
                if re.match(r"^\s*[-*] ", lines[i]):
                    items.append(re.sub(r"^\s*[-*] ", "", lines[i]))
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            blocks.append({"kind": "list", "items": [inline(t) for t in items]})
        else:
            para = []
            while (i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith(("|", "#"))
                   and not re.match(r"^\s*[-*] ", lines[i])):
                para.append(lines[i].strip())
                i += 1
            blocks.append({"kind": "paragraph", "text": inline(" ".join(para))})
    return blocks


def notes_sections(text: str) -> list[dict]:
    """NOTES.md as sections: {"level", "title", "anchor", "body"}, the body kept as text (shown in a
    <pre>); the text before the first heading is a section without title."""
    sections, used = [{"level": 0, "title": "", "anchor": "", "body": []}], set()
    fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            anchor, k = slug(m[2]), 2
            while anchor in used:
                anchor, k = f"{slug(m[2])}-{k}", k + 1
            used.add(anchor)
            sections.append({"level": len(m[1]), "title": m[2], "anchor": anchor, "body": []})
        else:
            sections[-1]["body"].append(line)
    out = []
    for s in sections:
        body = "\n".join(s["body"]).strip("\n")
        if s["title"] or body.strip():
            out.append({**s, "body": body, "level": min(6, max(2, s["level"] + 1)) if s["title"] else 0})
    return out


# --- reading the results folder --------------------------------------------------------------------

def read_comparison(path: Path) -> pd.DataFrame:
    """A comparison.csv, checked for the comparison columns (SiteError naming the file otherwise)."""
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError, pd.errors.ParserError) as err:
        raise SiteError(f"cannot read {path}: {' '.join(str(err).split())}") from err
    missing = [c for c in COMPARISON_COLUMNS if c not in frame.columns]
    if missing:
        raise SiteError(f"{path} lacks the columns {missing} of a comparison file (csrepro.report.compare); "
                        "rerun its report")
    return frame


def _run_stamp(folder: Path) -> dict | None:
    info = read_run_info(folder)
    if info is None:
        return None
    stamp = {k: str(info.get(k, "?")) for k in ("command", "started", "finished", "git_commit")}
    return {**stamp, "command": relative_command(stamp["command"])}


def _status(row) -> str:
    inside = bool(row["within"]) if not pd.isna(row["within"]) else False
    if inside:
        return "within"
    return "outside" if not pd.isna(row["reproduced"]) else "missing"


#: the parts of a fidelity bar: within tolerance, outside (or without a value) with a named cause,
#: published only (nothing to reproduce), unexplained
SPLIT = ("within", "named", "published_only", "unexplained")


def _bar(c: dict) -> dict:
    """Counts ``c`` (published and :data:`SPLIT`) with each part's share in percent (``<part>_pct``)."""
    n = c["published"]
    return {**c, **{f"{k}_pct": (100.0 * c[k] / n if n else 0.0) for k in SPLIT}}


def _split(cells: pd.DataFrame) -> dict:
    """The :data:`SPLIT` counts of comparison or ledger rows with ``status`` and ``cause`` columns."""
    counts = ledger_counts(cells)
    return _bar({k: counts[k] for k in ("published", *SPLIT)})


def evidence_links(evidence: str, paper: str, experiments: dict[str, str], held=lambda rel: False) -> list[dict]:
    """The references of an evidence field (joined by " + ", csrepro.report.fidelity) as {"text", "href"}:
    a NOTES heading links to the notes page; results/<exp>/figures/<file> to the site's copy where it
    holds one (``held(site path)``), else results/<exp>/... to the experiment on its paper page
    (``experiments``: name -> paper); anything else (a test, another file) is text ("href" "")."""
    out = []
    for ref in (r.strip() for r in str(evidence).split(" + ")):
        if not ref:
            continue
        file, _, heading = ref.partition("#")
        href = ""
        if file in ("NOTES.md", f"experiments/{paper}/NOTES.md") or re.fullmatch(r"experiments/\w+/NOTES\.md", file):
            owner = paper if file == "NOTES.md" else file.split("/")[1]
            href = f"notes/{owner}.html" + (f"#{slug(heading)}" if heading else "")
        elif (m := re.match(r"results/([^/]+)/(?:figures/([^/]+))?", file)) and m[1] in experiments:
            exp, name = m[1], m[2] or ""
            copy = f"{'data' if name.endswith('.csv') else 'figures'}/{exp}/{name}"
            href = (copy if name and held(copy) else
                    "leaderboard.html" if exp == LEADERBOARD else f"papers/{experiments[exp]}.html#{slug(exp)}")
        out.append({"text": scrub(ref), "href": href})
    return out


CAUSE_COLUMNS = ["cause", "evidence", "detail"]


def with_causes(comp: pd.DataFrame, causes: pd.DataFrame, known: dict | None = None) -> pd.DataFrame:
    """Comparison rows with ``status`` ("within", "outside", "missing") and, for a cell not within,
    ``cause``, ``evidence``, ``detail`` from the paper's deviations.csv rows ``causes`` ("" where none);
    ``known`` (cell key -> those three, as the ledger resolved them) spares resolving a cell again."""
    out = comp.assign(status=[_status(r) for _, r in comp.iterrows()], cause="", evidence="", detail="")
    keys = list(zip(*(out[k].astype(str) for k in CELL_KEY)))
    known = known or {}
    missed = out["status"] != "within"
    have = missed & pd.Series([k in known for k in keys], index=out.index)
    if have.any():
        out.loc[have, CAUSE_COLUMNS] = [list(known[k]) for k, h in zip(keys, have) if h]
    rest = missed & ~have
    if rest.any() and len(causes):
        found = resolve_causes(out.loc[rest, CELL_KEY].astype(str), causes)
        out.loc[rest, CAUSE_COLUMNS] = found[CAUSE_COLUMNS].to_numpy()
    return out


def comparison_tables(name: str, frame: pd.DataFrame, causes: pd.DataFrame | None = None, paper: str = "",
                      experiments: dict[str, str] | None = None, held=lambda rel: False,
                      known: dict | None = None) -> list[dict]:
    """Per table of a comparison (in file order): its cells (with the cause of a cell not within, from
    ``causes``, the paper's deviations.csv), the :data:`SPLIT` counts, bar widths and partial state."""
    tables = []
    has_trials = set(TRIAL_COLUMNS) <= set(frame.columns)
    frame = with_causes(frame, causes if causes is not None else pd.DataFrame(), known)
    for table, comp in frame.groupby("table", sort=False):
        cells = []
        for _, row in comp.iterrows():
            trials = ""
            if has_trials and not (pd.isna(row["n_trials"]) or pd.isna(row["n_planned"])):
                trials = f"{int(row['n_trials'])} / {int(row['n_planned'])}"
            cells.append({
                "row": "" if pd.isna(row["row"]) else str(row["row"]),
                "column": "" if pd.isna(row["column"]) else str(row["column"]),
                "published": published_number(row["published"]), "published_value": _exact(row["published"]),
                "reproduced": number(row["reproduced"]), "reproduced_value": _exact(row["reproduced"]),
                "se": number(row["reproduced_se"], 2), "se_value": _exact(row["reproduced_se"]),
                "tolerance": number(row["tolerance"], 3), "status": row["status"], "trials": trials,
                "short": bool(trials) and int(row["n_trials"]) < int(row["n_planned"]),
                "cause": row["cause"], "explained": row["cause"] in (*NAMED, "published_only"),
                "evidence": evidence_links(row["evidence"], paper, experiments or {}, held),
                "detail": scrub(row["detail"]),
            })
        tables.append({"id": str(table), "anchor": f"{slug(name)}--{slug(table)}", "cells": cells,
                       "counts": {**counts(comp), **_split(comp)}, "short": short_cells(comp)})
    return tables


#: headers of the CSV columns the site knows (others: the name with spaces, capitalised)
LABELS = {
    "method": "Method", "group": "Group", "family": "Cost family", "dataset": "Data set", "problem": "Problem",
    "average_rank": "Average rank", "relative_cost": "Relative cost vs reference, % [low, high]",
    "median_fit_seconds": "Median fit time (s)", "best_baseline": "Reference", "reference": "Reference",
    "n_problems": "Problems", "mean_cost": "Mean cost [low, high]", "n_splits": "Splits", "scope": "Scope",
    "n_methods": "Methods", "test": "Test", "p_value": "p-value", "posthoc": "Post-hoc test",
    "critical_difference": "Critical difference (average rank)", "selected": "Chosen settings",
    "n_samples": "Size (rows)", "n_rows": "Size (rows)", "title": "Data set (source)", "n_features": "Features", "n_classes": "Classes (K)",
    "imbalance_ratio": "Imbalance ratio (largest / smallest class)", "verdict": "Verdict vs reference",
    "n_datasets": "Data sets", "p_reference": "p-value vs reference (corrected t-test)",
    "outcome": "Outcome vs reference", "units": "Units",
}


def _label(col: str) -> str:
    return LABELS.get(col, col.replace("_", " ").capitalize())


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def table_columns(frame: pd.DataFrame) -> list[dict]:
    """The shown columns of a CSV: {"label", "keys", "kind"}.  ``kind`` is "text", "int", "num" or "pct" (a
    fraction as a signed percentage; columns named relative*); a numeric column followed by two numeric
    columns named *low and *high is one column "value [low, high]"; wins, ties and losses are one "wtl"."""
    names, out, i = [str(c) for c in frame.columns], [], 0
    wtl = {"wins", "ties", "losses"} <= set(names)
    while i < len(names):
        c, nxt = names[i], names[i + 1:i + 3]
        if wtl and c in ("ties", "losses"):
            i += 1
            continue
        if wtl and c == "wins":
            out.append({"label": "W / T / L", "keys": ["wins", "ties", "losses"], "kind": "wtl"})
            i += 1
            continue
        kind = "text"
        if _numeric(frame[c]):
            values = frame[c].dropna()
            kind = ("pct" if c.startswith("relative") else
                    "int" if len(values) and (values == values.round()).all() and values.abs().max() < 1e15 else "num")
        if (kind in ("num", "pct") and len(nxt) == 2 and nxt[0].endswith("low") and nxt[1].endswith("high")
                and all(_numeric(frame[n]) for n in nxt)):
            out.append({"label": _label(c) if "[" in _label(c) else f"{_label(c)} [low, high]", "keys": [c, *nxt],
                        "kind": kind})
            i += 3
            continue
        out.append({"label": _label(c), "keys": [c], "kind": kind})
        i += 1
    return out


def _text(kind: str, v) -> str:
    if v is None or (not isinstance(v, str) and pd.isna(v)):
        return ""
    if kind == "pct":
        return _pct(v)
    if kind in ("int", "wtl"):
        return str(int(v))
    return number(v) if kind == "num" else str(v)


def _cell(col: dict, row: dict) -> dict:
    """One shown cell: its parts (each CSV value: column, exact value, text, display scale), its sort key."""
    kind = col["kind"]
    parts = [{"col": k, "value": _text("text", row[k]) if kind == "text" else _exact(row[k]),
              "text": _text(kind, row[k]), "scale": 100 if kind == "pct" else 1} for k in col["keys"]]
    first = row[col["keys"][0]]
    if kind == "wtl":
        wtl = (row["wins"], row["losses"])
        sort = "" if any(pd.isna(x) for x in wtl) else _exact(float(wtl[0]) - float(wtl[1]))
    else:
        sort = parts[0]["value"] if kind != "text" else ("" if pd.isna(first) else str(first))
    colour = group_colour(str(first)) if col["keys"][0] == "group" else ""
    return {"parts": parts, "kind": kind, "sort": sort, "colour": colour}


def csv_table(path: Path, href: str, order=(), anchor: str = "") -> dict:
    """A CSV (``href``: its copy in the site) as a complete table: {"csv", "name", "columns", "groups", "n"};
    ``groups`` holds every row, as one group or, past :data:`SPLIT_ROWS` rows with a ``dataset`` column,
    one group per data set ({"key", "rows"}); a row is {"index" (its row in the CSV), "cells"}.  The
    columns named in ``order`` come first, in that order."""
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError, pd.errors.ParserError) as err:
        raise SiteError(f"cannot read {path}: {' '.join(str(err).split())}") from err
    first = [c for c in order if c in frame.columns]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    columns = table_columns(frame)
    rows = [{"index": i, "cells": [_cell(c, r) for c in columns]} for i, r in enumerate(frame.to_dict("records"))]
    if len(frame) > SPLIT_ROWS and "dataset" in frame.columns:
        keys = frame["dataset"].astype(str).tolist()
        groups = [{"key": k, "rows": [r for r, kk in zip(rows, keys) if kk == k]} for k in dict.fromkeys(keys)]
    else:
        groups = [{"key": "", "rows": rows}]
    return {"csv": href, "name": path.name, "columns": columns, "groups": groups, "n": len(frame),
            "anchor": anchor or slug(path.stem)}


#: the leaderboard's CSV columns in the order its tables show them (others follow)
HEADLINE = ("problem", "dataset", "family", "method", "group", "relative_cost", "relative_low", "relative_high",
            "verdict", "wins", "ties", "losses", "average_rank", "median_fit_seconds")
#: the leaderboard's tables in page order (by file stem; others follow by name)
TABLE_ORDER = ("leaderboard", "families", "friedman", "problems")
#: headings of the leaderboard's tables (by file stem; others: the file name)
TABLE_TITLES = {"families": "Per cost family", "friedman": "Friedman tests and critical differences",
                "problems": "Per problem (data set and cost family)"}
#: where a leaderboard CSV may lie under results/leaderboard/
LEADERBOARD_DIRS = ("figures", "tables", ".")


def _leaderboard_csv(folder: Path, name: str) -> pd.DataFrame | None:
    """results/leaderboard/<figures|tables|.>/``name``, read; None when absent or unreadable."""
    for sub in LEADERBOARD_DIRS:
        if (folder / sub / name).is_file():
            try:
                return pd.read_csv(folder / sub / name)
            except (OSError, ValueError, pd.errors.ParserError):
                return None
    return None


def _pct(x) -> str:
    """A fraction as a signed percentage, one decimal (two below 0.05 %, so that -0.04 % is not "-0.0")."""
    x = 100 * float(x)
    return f"{x:+.2f}" if 0 < abs(x) < 0.05 else f"{x:+.1f}"


def verdict(frame: pd.DataFrame, scope: str) -> dict | None:
    """What a leaderboard table (columns method, group, relative_cost and, optionally, relative_low /
    relative_high, wins / ties / losses, reference or best_baseline, n_problems) says of the papers' methods
    (group other than "baseline") against the reference: "cheaper" (some interval lies below 0), "dearer"
    (every interval lies above 0), "tie" or, without intervals, "unknown"; with the closest method's
    relative cost, interval and W/T/L.  None when the table lacks the columns or the papers' methods."""
    cols = set(frame.columns)
    if not {"method", "group", "relative_cost"} <= cols:
        return None
    papers = frame[(frame["group"].astype(str) != "baseline") & frame["relative_cost"].notna()]
    if papers.empty:
        return None
    has_interval = {"relative_low", "relative_high"} <= cols
    cheaper = papers[papers["relative_high"] < 0] if has_interval else papers.iloc[:0]
    pool = cheaper if not cheaper.empty else papers  # a verdict "cheaper" names a method whose interval says so
    best = pool.loc[pool["relative_cost"].idxmin()]
    ref = next((str(frame[c].dropna().iloc[0]) for c in ("reference", "best_baseline")
                if c in cols and frame[c].notna().any()), "the reference")
    out = {"scope": scope, "reference": ref, "method": str(best["method"]), "group": str(best["group"]),
           "colour": group_colour(str(best["group"])), "value": _pct(best["relative_cost"]), "interval": "",
           "kind": "unknown", "cheaper": [], "wtl": "", "n": "", "v1": "reference" not in cols}
    if has_interval:
        out["interval"] = f"[{_pct(best['relative_low'])}, {_pct(best['relative_high'])}]"
        out["cheaper"] = cheaper["method"].astype(str).tolist()
        out["kind"] = "cheaper" if out["cheaper"] else "dearer" if (papers["relative_low"] > 0).all() else "tie"
    if {"wins", "ties", "losses"} <= cols and best[["wins", "ties", "losses"]].notna().all():
        out["wtl"] = " / ".join(str(int(best[k])) for k in ("wins", "ties", "losses"))
    if "n_problems" in cols and frame["n_problems"].notna().any():
        out["n"] = int(frame["n_problems"].max())
    return out


#: what a verdict from a leaderboard table without a ``reference`` column (the v1 statistics) says of itself
V1_CAVEAT = (" (v1 statistics: that baseline was chosen on the test results and the intervals resample splits only; "
             "withdrawn in the leaderboard's NOTES, which give the v2 statistics on the same run)")


def verdict_text(v: dict) -> str:
    """One sentence of a :func:`verdict`; a verdict of the v1 statistics says so."""
    text = _verdict_sentence(v)
    return text[:-1] + V1_CAVEAT + "." if v.get("v1") else text


def _verdict_sentence(v: dict) -> str:
    closest = f"{v['method']} ({v['group']}), {v['value']} % {v['interval']}".rstrip()
    if v["kind"] == "cheaper":
        chance = (f"; of the page's {v['n_intervals']} intervals at 95 %, about {round(v['n_intervals'] / 20)} "
                  "would exclude 0 by chance alone" if v.get("n_intervals") else "")
        return (f"{', '.join(v['cheaper'])} cost{'s' if len(v['cheaper']) == 1 else ''} less than the reference "
                f"{v['reference']} (interval below 0{chance}): {closest}.")
    if v["kind"] == "dearer":
        return (f"every method of the papers costs more than the reference {v['reference']} (every interval above "
                f"0); the closest: {closest}.")
    if v["kind"] == "tie":
        return (f"no method of the papers costs reliably less than the reference {v['reference']}: the closest, "
                f"{closest}, has an interval that spans 0.")
    return f"the closest method of the papers to the reference {v['reference']}: {closest}."


def leaderboard_verdicts(folder: Path) -> dict:
    """The leaderboard's verdicts: over all problems (leaderboard.csv) and per cost family (families.csv);
    {"overall": verdict | None, "families": [verdict, ...]}."""
    board, families = _leaderboard_csv(folder, "leaderboard.csv"), _leaderboard_csv(folder, "families.csv")
    overall = verdict(board, "all problems") if board is not None else None
    rows = []
    if families is not None and "family" in families.columns:
        for family, f in families.groupby("family", sort=False):
            if (v := verdict(f, str(family))) is not None:
                rows.append(v)
    intervals = sum(int(f["relative_low"].notna().sum()) for f in (board, families)
                    if f is not None and "relative_low" in f.columns)  # every method x scope with an interval
    for v in [overall, *rows]:
        if v is not None:
            v["n_intervals"] = intervals
            v["text"], v["words"] = verdict_text(v), KIND_WORDS[v["kind"]]
    return {"overall": overall, "families": rows}


#: a claim verdict after a plural count
PLURAL = {"holds": "hold", "does not hold": "do not hold"}
#: a leaderboard verdict's kind in a few words
KIND_WORDS = {"cheaper": "a method of the papers is cheaper (interval below 0)", "dearer": "every method of the papers costs more",
              "tie": "no reliable difference", "unknown": "no interval"}


def claims(experiments_dir: Path, experiments: dict[str, str], held=lambda rel: False) -> dict:
    """Every experiments/<paper>/claims.csv: {"rows", "tally" (verdict -> n), "files" (paper -> path),
    "error" (why a file could not be read, "" when none)}."""
    rows, files, errors = [], {}, []
    for path in sorted(experiments_dir.glob("*/claims.csv")):
        paper = path.parent.name
        try:
            frame = load_claims(path.parent)
        except (ValueError, OSError, pd.errors.ParserError) as err:
            errors.append(_one_line(err))
            continue
        files[paper] = path
        for r in frame.to_dict("records"):
            rows.append({**{k: scrub(r[k]) for k in ("id", "claim", "location", "check", "verdict", "detail")},
                         "paper": paper, "evidence": evidence_links(r["evidence"], paper, experiments, held)})
    return {"rows": rows, "tally": {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}, "files": files,
            "error": "; ".join(errors)}


class _Site:
    """The pages of one build, written under ``stage``."""

    def __init__(self, stage: Path, results: Path, experiments_dir: Path, prov):
        self.stage, self.results, self.experiments_dir, self.prov = stage, results, experiments_dir, prov
        self.env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True,
                               undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                               keep_trailing_newline=True)
        commit = str(prov.commit)
        self.generated = {"date": prov.date, "commit": commit.removesuffix("-dirty"),
                          "dirty": commit.endswith("-dirty"), "command": relative_command(prov.command),
                          "versions": package_versions()}
        #: experiment name -> paper, for evidence links
        self.papers: dict[str, str] = {}
        #: paper -> {cell key: (cause, evidence, detail)} of the cells the fidelity ledger resolved
        self.known: dict[str, dict] = {}

    def write(self, page: str, template: str, **context) -> None:
        """Render ``template`` as the page ``page``, every absolute path into a clone dropped (:func:`scrub`)."""
        depth = page.count("/")
        html = self.env.get_template(template).render(root="../" * depth, page=page, generated=self.generated,
                                                      rule=RULE, **context)
        path = self.stage / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(scrub(html), encoding="utf-8")

    def drill_down(self, table: dict, parent: str, title: str) -> None:
        """Each data-set group of ``table`` (see :func:`csv_table`) on a page of its own,
        ``<parent without .html>/<anchor>/<data set>.html``, whose link the group gets as ``href``: a table of
        thousands of rows is complete without one page of megabytes.  A table of one group is left as it is."""
        if len(table["groups"]) < 2:
            return
        for group in table["groups"]:
            page = f"{parent.removesuffix('.html')}/{table['anchor']}/{slug(group['key'])}.html"
            self.write(page, "rows.html.j2", parent=parent, title=title, key=group["key"],
                       table={**table, "groups": [{"key": "", "rows": group["rows"]}]})
            group["href"] = page

    def report_blocks(self, path: Path, links: dict[str, str]) -> list[dict]:
        """A report's markdown as blocks, each link or image whose target the site holds (``links``: target
        as written -> site path) pointing at the copy ("href"; "" for a target the site does not hold)."""
        blocks = markdown_blocks(path.read_text(errors="replace"))
        segs = [s for b in blocks for s in (
            b.get("text", []) if b["kind"] in ("heading", "paragraph") else
            [x for item in b.get("items", []) for x in item] if b["kind"] == "list" else
            [x for row in [b["head"], *b["rows"]] for c in row for x in c])]
        for seg in segs:
            if seg["kind"] in ("link", "image"):
                seg["href"] = links.get(seg["target"], "")
        return blocks

    def held(self, rel: str) -> bool:
        """Whether the site holds the file ``rel`` (a path from its root) so far."""
        return (self.stage / rel).is_file()

    def copy(self, src: Path, rel: str) -> str:
        dest = self.stage / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        return rel

    def experiment(self, exp: SiteExperiment) -> dict:
        folder = self.results / exp.name
        ctx = {"name": exp.name, "anchor": slug(exp.name), "run": None, "tables": [], "md_tables": [],
               "figures": [], "data": [], "missing": "", "ledger_error": "", "comparison": ""}
        path = folder / "comparison.csv"
        if not path.is_file():
            ctx["missing"] = f"no comparison.csv yet: run `python -m csrepro.report {exp.name}` after its run"
            return ctx
        ctx["comparison"] = self.copy(path, f"data/{exp.name}/comparison.csv")
        comparison = read_comparison(path)
        if (folder / RUN_INFO).is_file():
            ctx["run"] = _run_stamp(folder)
        for png in sorted((folder / "figures").glob("*.png")):
            ctx["figures"].append({"src": self.copy(png, f"figures/{exp.name}/{png.name}"),
                                   "alt": f"{exp.name}: figure {png.stem.replace('_', ' ')}", "name": png.name})
        for csv in sorted((folder / "figures").glob("*.csv")):
            href = self.copy(csv, f"data/{exp.name}/{csv.name}")
            ctx["data"].append({"href": href, "name": csv.name,
                                "table": csv_table(csv, href, anchor=f"{slug(exp.name)}--{slug(csv.stem)}")})
        try:
            ctx["tables"] = comparison_tables(exp.name, comparison, load_ledger(self.experiments_dir / exp.paper),
                                              exp.paper, self.papers, self.held, self.known.get(exp.paper))
        except ValueError as err:  # the paper's deviations.csv is not usable: every miss counts as unexplained
            ctx["ledger_error"] = _one_line(err)
            ctx["tables"] = comparison_tables(exp.name, comparison, None, exp.paper, self.papers, self.held)
        links = {f"figures/{f['name']}": f["src"] for f in ctx["figures"]} | {
            f"figures/{d['name']}": d["href"] for d in ctx["data"]}
        for md in sorted((folder / "tables").glob("*.md")):
            ctx["md_tables"].append({"name": md.stem, "blocks": self.report_blocks(md, links)})
        return ctx


    def paper_title(self, paper: str) -> str:
        if paper in PAPERS:
            return PAPERS[paper]
        notes = self.experiments_dir / paper / "NOTES.md"
        if notes.is_file():
            for line in notes.read_text(errors="replace").splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
        return paper

    def notes(self, paper: str) -> str:
        """notes/<paper>.html from experiments/<paper>/NOTES.md ("" when the paper has none)."""
        path = self.experiments_dir / paper / "NOTES.md"
        if not path.is_file():
            return ""
        page = f"notes/{paper}.html"
        results = "leaderboard.html" if paper == LEADERBOARD else f"papers/{paper}.html"
        self.write(page, "notes.html.j2", paper={"id": paper, "title": self.paper_title(paper), "results": results},
                   sections=notes_sections(path.read_text(errors="replace")))
        return page

    def registry_datasets(self, problems: pd.DataFrame | None) -> dict | None:
        """The leaderboard's data sets (the ``dataset`` column of problems.csv) with their size, features and
        classes (K) from the data registry (csrepro.data.registry), as data/leaderboard/datasets.csv and its
        table; None without problems.csv or a data set the registry names."""
        if problems is None or "dataset" not in problems.columns:
            return None
        rows = []
        for name in dict.fromkeys(problems["dataset"].astype(str)):
            try:
                spec = get_spec(name)
            except (KeyError, ValueError):
                continue
            rows.append({"dataset": name, "title": spec.title, "n_rows": spec.n_rows, "n_features": spec.n_features,
                         "n_classes": spec.n_classes})
        if not rows:
            return None
        rel = f"data/{LEADERBOARD}/datasets.csv"
        (self.stage / rel).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(self.stage / rel, index=False)
        return {**csv_table(self.stage / rel, rel), "registry": True}

    def leaderboard(self) -> dict:
        """The leaderboard page's parts: the headline table (leaderboard.csv), the figures, the chosen
        settings and the data sets (a CSV with a ``selected`` column; one with data-set columns), the other
        tables (per family, tests, per problem), the verdicts and REPORT.md; each CSV of results/leaderboard/
        (its top folder, figures/ and tables/, comparison.csv aside) is shown once."""
        folder = self.results / LEADERBOARD
        ctx = {"exists": folder.is_dir(), "run": None, "headline": None, "settings": None, "datasets": None,
               "tables": [], "figures": [], "report": [], "notes": self.notes(LEADERBOARD), "verdicts": None}
        if not ctx["exists"]:
            return ctx
        if (folder / RUN_INFO).is_file():
            ctx["run"] = _run_stamp(folder)
        csvs = [p for sub in ("figures", "tables", ".") for p in sorted((folder / sub).glob("*.csv"))
                if p.name != "comparison.csv"]
        links = {}
        for csv in sorted(csvs, key=lambda p: (TABLE_ORDER.index(p.stem) if p.stem in TABLE_ORDER
                                               else len(TABLE_ORDER), p.name)):
            href = self.copy(csv, f"data/{LEADERBOARD}/{csv.name}")
            links[csv.relative_to(folder).as_posix()] = href
            table = {**csv_table(csv, href, order=HEADLINE), "title": TABLE_TITLES.get(csv.stem, csv.name)}
            names = {k for c in table["columns"] for k in c["keys"]}
            if csv.stem == "leaderboard" and ctx["headline"] is None:
                ctx["headline"] = table
            elif "selected" in names and ctx["settings"] is None:
                ctx["settings"] = table
            elif "dataset" in names and "method" not in names and ctx["datasets"] is None:
                ctx["datasets"] = table
            else:
                ctx["tables"].append(table)
        for sub in ("figures", "."):
            for png in sorted((folder / sub).glob("*.png")):
                src = self.copy(png, f"figures/{LEADERBOARD}/{png.name}")
                links[png.relative_to(folder).as_posix()] = src
                ctx["figures"].append({"src": src, "name": png.name,
                                       "alt": f"leaderboard: {png.stem.replace('_', ' ')}"})
        for table in ctx["tables"]:
            self.drill_down(table, "leaderboard.html", f"Leaderboard: {table['title']}")
        if (folder / "REPORT.md").is_file():
            ctx["report"] = self.report_blocks(folder / "REPORT.md", links)
        if ctx["datasets"] is None:
            ctx["datasets"] = self.registry_datasets(_leaderboard_csv(folder, "problems.csv"))
        ctx["verdicts"] = {**leaderboard_verdicts(folder), "csv": [
            href for target, href in links.items() if Path(target).name in ("leaderboard.csv", "families.csv")]}
        return ctx


def _papers_in_order(experiments) -> list[str]:
    papers = list(dict.fromkeys(e.paper for e in experiments if e.paper and e.paper != LEADERBOARD))
    return sorted(papers, key=lambda p: (list(PAPERS).index(p) if p in PAPERS else len(PAPERS), p))


def _run_summary(runs: list[dict]) -> dict:
    """Commits and date span of ``runs`` (run stamps): {"n", "commits", "first", "last"}."""
    finished = sorted(r["finished"] for r in runs if r.get("finished") not in (None, "", "?"))
    return {"n": len(runs), "commits": sorted({r["git_commit"] for r in runs}),
            "first": finished[0] if finished else "?", "last": finished[-1] if finished else "?"}


def fidelity_ledger(experiments, results: Path, experiments_dir: Path) -> tuple[pd.DataFrame | None, str]:
    """Each published cell once with its status and cause (csrepro.report.fidelity.ledger) over the
    experiments' comparison.csv files; (None, why) when the ledger cannot be built."""
    found = [ExperimentFidelity(e.name, e.paper, read_comparison(results / e.name / "comparison.csv"))
             for e in experiments if e.paper and (results / e.name / "comparison.csv").is_file()]
    try:
        return ledger(experiments_dir, found), ""
    except (ValueError, OSError) as err:
        return None, _one_line(err)


def paper_fidelity(paper: str, exps: list[dict], cells: pd.DataFrame | None) -> dict:
    """A paper's fidelity: {"counts" (:data:`SPLIT` over its published cells), "rows" (per published table:
    {"table", "owner", "href", "counts", "short"}), "by": "ledger" (each published cell once, from the
    ledger) or "experiments" (each experiment's comparison, without a ledger of the paper)}."""
    anchors = {(e["name"], t["id"]): t for e in exps for t in e["tables"]}
    mine = cells[cells["paper"] == paper] if cells is not None else None
    if mine is not None and len(mine):
        rows = []
        for table, tab in mine.groupby("table", sort=False):
            owners = sorted(set(tab["owner"]) - {""})
            t = anchors.get((owners[0], table)) if len(owners) == 1 else None
            rows.append({"table": str(table), "owner": ", ".join(owners) or "—", "counts": _split(tab),
                         "href": f"papers/{paper}.html" + (f"#{t['anchor']}" if t else ""),
                         "short": t["short"] if t else 0})
        return {"counts": _split(mine), "rows": rows, "by": "ledger"}
    rows = [{"table": t["id"], "owner": e["name"], "counts": t["counts"], "short": t["short"],
             "href": f"papers/{paper}.html#{t['anchor']}"} for e in exps for t in e["tables"]]
    total = _bar({k: sum(r["counts"][k] for r in rows) for k in ("published", *SPLIT)})
    return {"counts": total, "rows": rows, "by": "experiments"}


def summary_sentence(verdicts: dict | None, total: dict | None, found: dict) -> str:
    """The index's first sentence, generated: the leaderboard's verdict over all problems, the published
    cells by status and the claims by verdict (each part only when its input exists)."""
    parts = []
    overall = (verdicts or {}).get("overall")
    if overall:
        n = f"{overall['n']} " if overall["n"] else ""
        text = overall["text"]
        parts.append(f"On the leaderboard's {n}problems, {text[0].lower()}{text[1:]}")
    if total:
        parts.append(f"Of the papers' {total['published']:,} published numbers, {total['within']:,} are reproduced "
                     f"within tolerance, {total['named']:,} differ for a named cause, {total['unexplained']:,} are "
                     f"unexplained and {total['published_only']:,} are published only.")
    if found["rows"]:
        t = found["tally"]
        parts.append(f"Of {len(found['rows'])} checked claims of the papers, " +
                     ", ".join(f"{n} {PLURAL.get(v, v)}" for v, n in t.items()) + ".")
    return " ".join(parts)


def build_site(experiments, results_root, experiments_dir, target, prov) -> Path:
    """Build the site of ``experiments`` (SiteExperiment: results under ``results_root``/<name>, notes
    under ``experiments_dir``/<paper>/NOTES.md) into ``target``, replacing it only once complete.

    ``prov`` names the site's generation (its ``date`` and ``commit``, as
    csrepro.provenance.Provenance). Raises SiteError (or OSError) before touching ``target``.
    """
    results, experiments_dir, target = Path(results_root), Path(experiments_dir), Path(target)
    experiments = list(experiments)
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}-build-", dir=target.parent))
    try:
        os.chmod(stage, 0o755)  # mkdtemp's 0700 would hide the site from a static server
        site = _Site(stage, results, experiments_dir, prov)
        site.papers = {e.name: e.paper for e in experiments if e.paper}
        cells, ledger_error = fidelity_ledger(experiments, results, experiments_dir)
        if cells is not None:
            missed = cells[cells["status"] != "within"]
            for paper, rows in missed.groupby("paper"):
                site.known[paper] = {tuple(map(str, k)): tuple(v) for k, v in
                                     zip(rows[CELL_KEY].itertuples(index=False), rows[CAUSE_COLUMNS].to_numpy())}
        papers, all_runs = [], []
        for paper in _papers_in_order(experiments):
            exps = [site.experiment(e) for e in experiments if e.paper == paper]
            notes = site.notes(paper)
            runs = [e["run"] for e in exps if e["run"]]
            all_runs += runs
            ctx = {"id": paper, "title": site.paper_title(paper), "href": f"papers/{paper}.html",
                   "notes": notes, "experiments": exps, "runs": _run_summary(runs),
                   "causes": (experiments_dir / paper / "deviations.csv").is_file(),
                   **paper_fidelity(paper, exps, cells)}
            papers.append(ctx)
            site.write(f"papers/{paper}.html", "paper.html.j2", paper=ctx)
        leaderboard = site.leaderboard()
        site.write("leaderboard.html", "leaderboard.html.j2", leaderboard=leaderboard)
        found = claims(experiments_dir, site.papers, site.held)
        found["csv"] = {p: site.copy(path, f"data/claims/{p}.csv") for p, path in found["files"].items()}
        total = _split(cells) if cells is not None and len(cells) else None
        summary = summary_sentence(leaderboard.get("verdicts"), total, found)
        (stage / "summary.txt").write_text(scrub(summary) + "\n", encoding="utf-8")  # for README.md to quote
        site.write("index.html", "index.html.j2", papers=papers, leaderboard=leaderboard,
                   runs=_run_summary(all_runs), claims=found, total=total, ledger_error=ledger_error, plural=PLURAL,
                   summary=summary)
        shutil.copyfile(TEMPLATES / "site.css", stage / "site.css")
        _replace(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return target


def _replace(stage: Path, target: Path) -> None:
    """Put the built ``stage`` at ``target``: the old site is renamed aside first and removed after."""
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
        old.rmdir()
        os.replace(target, old)
    try:
        os.replace(stage, target)
    except BaseException:
        if old is not None:
            os.replace(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

