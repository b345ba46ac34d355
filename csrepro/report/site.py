"""results/site/: a static website of the committed results (``python -m csrepro.report --site``).

Built from what the runs and reports left in the results folder, never from the stores:
``<results>/<exp>/comparison.csv`` (published beside reproduced, csrepro.report.compare),
``run_info.json`` (the run's command, dates and commit, csrepro.provenance), ``tables/*.md``,
``figures/*.png`` and ``figures/*.csv``; each paper's ``experiments/<paper>/NOTES.md``; and
``<results>/leaderboard/`` when it exists.  Pages (plain HTML from the Jinja2 templates in
csrepro/report/templates/, one CSS file, no scripts, no external resources; every link relative,
so the site works from file:// as from a static server)::

    index.html              per paper and table, a bar of the cells within / outside tolerance /
                            without a reproduced value (csrepro.report.fidelity.counts); stamps
    papers/<paper>.html     per experiment: run stamp, comparison tables (out-of-tolerance cells
                            highlighted, linked to the notes; PARTIAL tables marked), the
                            reproduced tables, figures and figure data
    notes/<paper>.html      experiments/<paper>/NOTES.md, escaped, with heading anchors
    leaderboard.html        results/leaderboard/: every figures/*.csv as a table, every PNG;
                            without it, how to make it (`make leaderboard`)
    figures/<exp>/*.png     copies of the figures;  data/<exp>/*.csv  copies of the figure data
    site.css

The site is built in a scratch folder beside the target and renamed into place only once complete:
an error leaves the existing site as it was.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from csrepro.provenance import RUN_INFO
from csrepro.report.compare import COMPARISON_COLUMNS, RULE, TRIAL_COLUMNS
from csrepro.report.fidelity import counts, short_cells
from csrepro.report.provenance import read_run_info

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: the paper (exp.paper) and results folder of the leaderboard: its own page, not a paper page
LEADERBOARD = "leaderboard"
#: paper folder -> title, in the order of README.md's paper table; other papers follow, titled by
#: the first heading of their NOTES.md
PAPERS = {
    "guess_averse": "Beijbom et al. 2014, guess-averse losses",
    "rebel": "Appel, Burgos-Artizzu & Perona 2016, REBEL",
    "thesis": "Masnadi-Shirazi 2011 (thesis), Ch. II–IV: canonical and robust losses",
    "cs_svm": "Masnadi-Shirazi 2011 (thesis), Ch. V: cost-sensitive SVM",
    "cs_boost": "Masnadi-Shirazi 2011 (thesis), Ch. VI: cost-sensitive boosting",
    "obrien": "O'Brien, Gupta & Gray 2008, partition matrices",
    "combo": "Koço & Capponi 2013, CoMBo",
}
#: figure-data CSVs with more rows are linked, not rendered
MAX_ROWS = 500


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


def _exact(x) -> str:
    """Full-precision text of a value for data-value attributes ("" for NaN)."""
    return "" if x is None or pd.isna(x) else repr(float(x))


# --- a small markdown reader for the reports' tables (no markdown package needed) -----------------

INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\[([^\]]+)\]\([^)]*\)")


def inline(text: str) -> list[dict]:
    """Segments of one line of markdown: {"kind": "text" | "code" | "b", "text": ...}; a link keeps
    its text only (its target is a file of the results folder, not of the site)."""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        if m.start() > pos:
            out.append({"kind": "text", "text": text[pos:m.start()]})
        code, bold, link = m.groups()
        out.append({"kind": "code", "text": code} if code is not None else
                   {"kind": "b", "text": bold} if bold is not None else {"kind": "text", "text": link})
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
            blocks.append({"kind": "table", "align": align, "head": [inline(c) for c in rows[0]],
                           "rows": [[inline(c) for c in r] + [[]] * (width - len(r)) for r in rows[1:]]})
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
    return {k: str(info.get(k, "?")) for k in ("command", "started", "finished", "git_commit")}


def _status(row) -> str:
    inside = bool(row["within"]) if not pd.isna(row["within"]) else False
    if inside:
        return "within"
    return "outside" if not pd.isna(row["reproduced"]) else "missing"


def _bar(c: dict) -> dict:
    n = c["published"]
    return {**c, **{f"{k}_pct": (100.0 * c[k] / n if n else 0.0) for k in ("within", "outside", "missing")}}


def comparison_tables(name: str, frame: pd.DataFrame) -> list[dict]:
    """Per table of a comparison (in file order): its cells, counts, bar widths and partial state."""
    tables = []
    has_trials = set(TRIAL_COLUMNS) <= set(frame.columns)
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
                "tolerance": number(row["tolerance"], 3), "status": _status(row), "trials": trials,
                "short": bool(trials) and int(row["n_trials"]) < int(row["n_planned"]),
            })
        tables.append({"id": str(table), "anchor": f"{slug(name)}--{slug(table)}", "cells": cells,
                       "counts": _bar(counts(comp)), "short": short_cells(comp)})
    return tables


def csv_table(path: Path) -> dict:
    """A figure-data CSV as a table of strings (floats with 4 significant figures); at most MAX_ROWS rows."""
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError, pd.errors.ParserError) as err:
        raise SiteError(f"cannot read {path}: {' '.join(str(err).split())}") from err

    def text(v):
        if isinstance(v, float):
            return "" if math.isnan(v) else (str(int(v)) if v.is_integer() and abs(v) < 1e15 else number(v))
        return str(v)

    numeric = [pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns]
    rows = [[text(v) for v in r] for r in frame.head(MAX_ROWS).itertuples(index=False, name=None)]
    return {"head": [str(c) for c in frame.columns], "numeric": numeric, "rows": rows, "n": len(frame)}


class _Site:
    """The pages of one build, written under ``stage``."""

    def __init__(self, stage: Path, results: Path, experiments_dir: Path, prov):
        self.stage, self.results, self.experiments_dir, self.prov = stage, results, experiments_dir, prov
        self.env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True,
                               undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                               keep_trailing_newline=True)
        self.generated = {"date": prov.date, "commit": prov.commit}

    def write(self, page: str, template: str, **context) -> None:
        depth = page.count("/")
        html = self.env.get_template(template).render(root="../" * depth, page=page, generated=self.generated,
                                                      rule=RULE, **context)
        path = self.stage / page
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")

    def copy(self, src: Path, rel: str) -> str:
        dest = self.stage / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        return rel

    def experiment(self, exp: SiteExperiment) -> dict:
        folder = self.results / exp.name
        ctx = {"name": exp.name, "anchor": slug(exp.name), "run": None, "tables": [], "md_tables": [],
               "figures": [], "data": [], "missing": ""}
        path = folder / "comparison.csv"
        if not path.is_file():
            ctx["missing"] = f"no comparison.csv yet: run `python -m csrepro.report {exp.name}` after its run"
            return ctx
        ctx["tables"] = comparison_tables(exp.name, read_comparison(path))
        if (folder / RUN_INFO).is_file():
            ctx["run"] = _run_stamp(folder)
        for md in sorted((folder / "tables").glob("*.md")):
            ctx["md_tables"].append({"name": md.stem, "blocks": markdown_blocks(md.read_text(errors="replace"))})
        for png in sorted((folder / "figures").glob("*.png")):
            ctx["figures"].append({"src": self.copy(png, f"figures/{exp.name}/{png.name}"),
                                   "alt": f"{exp.name}: figure {png.stem.replace('_', ' ')}", "name": png.name})
        for csv in sorted((folder / "figures").glob("*.csv")):
            ctx["data"].append({"href": self.copy(csv, f"data/{exp.name}/{csv.name}"), "name": csv.name,
                                "table": csv_table(csv)})
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

    def leaderboard(self) -> dict:
        folder = self.results / LEADERBOARD
        ctx = {"exists": folder.is_dir(), "run": None, "tables": [], "figures": [], "report": [],
               "notes": self.notes(LEADERBOARD)}
        if not ctx["exists"]:
            return ctx
        if (folder / RUN_INFO).is_file():
            ctx["run"] = _run_stamp(folder)
        figures = folder / "figures"
        for csv in sorted(figures.glob("*.csv"), key=lambda p: (p.name != "leaderboard.csv", p.name)):
            ctx["tables"].append({"href": self.copy(csv, f"data/{LEADERBOARD}/{csv.name}"), "name": csv.name,
                                  "anchor": slug(csv.stem), "table": csv_table(csv)})
        for png in sorted(figures.glob("*.png")):
            ctx["figures"].append({"src": self.copy(png, f"figures/{LEADERBOARD}/{png.name}"), "name": png.name,
                                   "alt": f"leaderboard: {png.stem.replace('_', ' ')}"})
        if (folder / "REPORT.md").is_file():
            ctx["report"] = markdown_blocks((folder / "REPORT.md").read_text(errors="replace"))
        return ctx


def _papers_in_order(experiments) -> list[str]:
    papers = list(dict.fromkeys(e.paper for e in experiments if e.paper and e.paper != LEADERBOARD))
    return sorted(papers, key=lambda p: (list(PAPERS).index(p) if p in PAPERS else len(PAPERS), p))


def _run_summary(runs: list[dict]) -> dict:
    """Commits and date span of ``runs`` (run stamps): {"n", "commits", "first", "last"}."""
    finished = sorted(r["finished"] for r in runs if r.get("finished") not in (None, "", "?"))
    return {"n": len(runs), "commits": sorted({r["git_commit"] for r in runs}),
            "first": finished[0] if finished else "?", "last": finished[-1] if finished else "?"}


def build_site(experiments, results_root, experiments_dir, target, prov) -> Path:
    """Build the site of ``experiments`` (SiteExperiment: results under ``results_root``/<name>, notes
    under ``experiments_dir``/<paper>/NOTES.md) into ``target``, replacing it only once complete.

    ``prov`` names the site's generation (its ``date`` and ``commit``, as
    csrepro.report.__main__.Provenance). Raises SiteError (or OSError) before touching ``target``.
    """
    results, experiments_dir, target = Path(results_root), Path(experiments_dir), Path(target)
    experiments = list(experiments)
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}-build-", dir=target.parent))
    try:
        os.chmod(stage, 0o755)  # mkdtemp's 0700 would hide the site from a static server
        site = _Site(stage, results, experiments_dir, prov)
        papers, all_runs = [], []
        for paper in _papers_in_order(experiments):
            exps = [site.experiment(e) for e in experiments if e.paper == paper]
            notes = site.notes(paper)
            runs = [e["run"] for e in exps if e["run"]]
            all_runs += runs
            total = _bar({k: sum(t["counts"][k] for e in exps for t in e["tables"])
                          for k in ("published", "within", "outside", "missing")})
            ctx = {"id": paper, "title": site.paper_title(paper), "href": f"papers/{paper}.html",
                   "notes": notes, "experiments": exps, "counts": total, "runs": _run_summary(runs)}
            papers.append(ctx)
            site.write(f"papers/{paper}.html", "paper.html.j2", paper=ctx)
        leaderboard = site.leaderboard()
        site.write("leaderboard.html", "leaderboard.html.j2", leaderboard=leaderboard)
        site.write("index.html", "index.html.j2", papers=papers, leaderboard=leaderboard,
                   runs=_run_summary(all_runs))
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

