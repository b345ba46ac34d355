"""Report command: published vs reproduced tables, comparison.csv, figures and FIDELITY.md.

    python -m csrepro.report EXP [key=value ...]   one experiment, conf/exp/EXP.yaml
    python -m csrepro.report --all [key=value ...] every conf/exp/*.yaml with a store, then <results.root>/FIDELITY.md
    python -m csrepro.report --fidelity             FIDELITY.md alone, from the committed comparison.csv files
    python -m csrepro.report --site                 <results.root>/site/ (``--out DIR``: DIR/site/), a static
                                                    website of the committed results (csrepro.report.site)

key=value are overrides of the composed config, as ``python -m csrepro.run +exp=EXP key=value``
takes them (csrepro.config.compose: conf/config.yaml with the experiment under ``exp``), e.g.
results.root=DIR (default "results", relative to the working directory) or exp.n_trials=2.  Per
experiment it writes, under <results.root>/<exp.name>/ (``--out DIR``: DIR/<exp.name>/, the store
is still read from results.root): REPORT.md, comparison.csv, tables/<table>.md and .tex, and
figures/*.png.  The report never plans trials: it reads the plan the runs recorded in the store
(csrepro.store, "The plan") and reports the stored trials of that plan which the composed config
asks for (its datasets, trial indices, method ids and params under its settings); rows of other
settings still in the store are counted in REPORT.md and left out.  Everything is drawn in a
scratch folder first and copied into place only once the whole report is made, so an error
leaves the old report as it was.

A report never destroys a report:

* no results (no store, an empty one, or none of the trials the config plans) is an error naming
  the run command; so is a store without a plan of this config (one written before runs recorded
  their plans, or only by runs of other settings): rerunning the run command records it, running
  no trial already stored; nothing is written;
* the *planned* trials are those of the plan recorded by the runs (every ``python -m csrepro.run``
  records conf/exp/EXP.yaml's full plan besides its own) that conf/exp/EXP.yaml or the composed
  config asks for, counted per (dataset, trial index, method id); trials that only the report's
  overrides ask for and no run planned are not counted.  A report with fewer (a reduced run such
  as exp.n_trials=2, fewer datasets or methods, or an unfinished one) is PARTIAL: REPORT.md's title and first line
  say so ("PARTIAL: 120 of 3,000 planned trials"), every report has a "- Trials: k of n planned
  trials" line, and comparison.csv ends with ``n_trials, n_planned`` per cell (the trials its
  value is computed from, reported and planned; csrepro.report.compare);
* an existing report in the target folder is not overwritten by one made from fewer trials, nor
  a full-scale one by a partial one: the existing one's count is read from its REPORT.md ("k of n
  planned trials", or in reports older than that the "- Store: N trials" line, such reports being
  full-scale); ``--force`` overwrites it anyway, ``--out DIR`` writes elsewhere;
* ``--all`` reports the experiments that have a store, lists those without one with their run
  command (their reports are left as they are, and FIDELITY.md takes their committed
  comparison.csv, as ``--fidelity`` does) and fails when none has one; FIDELITY.md is not
  rewritten without an experiment it lists, unless ``--force``.

An experiment without a paper (``paper: ""``, e.g. smoke) is reported all the same, without
published cells. Errors print one line, ``report error: ...``, on stderr and exit with status 2 for a
missing or invalid experiment config or an ``--out`` (or report folder) that is a file or not writable
(checked first), else 1: a missing or empty store, a store without the plan, a report
that would overwrite a fuller one, a damaged store (csrepro.store) (``--debug`` or
HYDRA_FULL_ERROR=1: the traceback instead).
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml
from omegaconf import DictConfig, OmegaConf

from csrepro import methods
from csrepro.config import (
    compose,
    config_dirs,
    experiment_names,
    experiment_path,
    plan_key,
    select,
    validate_config,
)
from csrepro.provenance import REPO_ROOT, Provenance, read_run_info
from csrepro.report.compare import PUBLISHED_COLUMNS, compare, load_published, with_trial_counts
from csrepro.report.derived import family_values
from csrepro.report.fidelity import ExperimentFidelity, counts, render_claims, render_fidelity, short_cells
from csrepro.report.figures import make_figures
from csrepro.report.provenance import failure_lines, results_lines
from csrepro.report.rank_tables import rank_comparisons, rank_slug, rank_sources, render_rank_markdown
from csrepro.report.site import SiteExperiment, build_site
from csrepro.report.tables import (
    CELL_COLUMNS,
    cell_sources,
    latest_trials,
    render_latex,
    render_markdown,
    reproduce,
    table_specs,
)
from csrepro.store import PART_GLOB, atomic_write, folder_problem, read_plan, read_store, store_dir
from csrepro.trials import asked_for


class ReportError(Exception):
    """An error of the report command that it explains in one line (``report error: ...``)."""


class NoResultsError(ReportError):
    """The experiment has no stored results of the trials its config plans; nothing was written."""


class NoPlanError(ReportError):
    """The store holds no plan of the config (csrepro.store, "The plan"); nothing was written."""


class UsageError(ReportError):
    """A command-line option that cannot be honoured (e.g. ``--out`` naming a file); exit status 2."""


class OverwriteError(ReportError):
    """The report would overwrite one made from more trials (or a full-scale one with a partial one)."""


def results_root(cfg: DictConfig) -> Path:
    """The results folder: ``results.root`` of the config, default "results"."""
    return Path(select(cfg, "results.root", default="results"))


def run_command(exp: str, overrides=()) -> str:
    """The command that runs (or resumes) experiment ``exp`` with the report's overrides."""
    return shlex.join(["python", "-m", "csrepro.run", f"+exp={exp}", *overrides])


@dataclass(frozen=True)
class Plan:
    """What a report reads and what it is measured against, read from the plan the runs recorded in
    the store (csrepro.store, "The plan"; the report never plans).

    ``ids``: trial ids of the plan that the composed config (with the overrides) asks for, the
    stored trials the report reads; ``base_ids``: those the config file asks for that ``ids``
    lacks (stored ones are left out of a reduced report, but they are not of other settings);
    ``keys``: (dataset, trial, method) of every planned trial the experiment asks for, i.e. its
    config file's together with the composed config's (so a reduced override such as
    exp.n_trials=2 still counts against the full plan, and one that adds trials counts them when a
    run planned them).
    """

    ids: frozenset
    base_ids: frozenset
    keys: frozenset

    @classmethod
    def of(cls, planned: pd.DataFrame, cfg: DictConfig, full: DictConfig | None = None) -> Plan:
        """The plan of the validated ``cfg`` among ``planned`` (csrepro.store.read_plan; the rows each config asks
        for: csrepro.trials.asked_for), measured against the validated ``full`` (the config file without overrides; None: ``cfg``)."""
        chosen = planned[asked_for(planned, cfg.exp)]
        ids = frozenset(chosen["trial_id"])
        keys, base_ids = set(zip(chosen["dataset"], chosen["trial"], chosen["method"])), set()
        if full is not None and full is not cfg:
            base = planned[asked_for(planned, full.exp)]
            keys |= set(zip(base["dataset"], base["trial"], base["method"]))
            base_ids = set(base["trial_id"]) - ids
        return cls(ids, frozenset(base_ids), frozenset(keys))

    @classmethod
    def read(cls, name: str, exp_dir: Path, cfg: DictConfig, full: DictConfig | None, fix: str) -> Plan:
        """:meth:`of` the store's plan; NoPlanError (naming ``fix``, the run command that records it)
        when the store has none, or none recorded by a run of ``cfg``'s or ``full``'s settings."""
        recorded, planned = read_plan(exp_dir)
        folder = store_dir(exp_dir)
        if planned.empty:
            raise NoPlanError(f"{name}: the store {folder} holds no plan (it was written before runs recorded their "
                              f"planned trials); run `{fix}` to record it (it resumes: no stored trial runs "
                              "again); nothing was written")
        if not {plan_key(c.exp) for c in (cfg, full) if c is not None} & recorded:
            raise NoPlanError(f"{name}: the plan in {folder} was recorded by runs of other settings than this config's "
                              "(the experiment file changed since, or the runs had other exp.* overrides); run "
                              f"`{fix}` to record this config's plan (it resumes: only trials not yet stored run), "
                              "or report with the run's overrides; nothing was written")
        return cls.of(planned, cfg, full)

    @property
    def n(self) -> int:
        return len(self.keys)

    def counts(self) -> Counter:
        """(dataset, method) -> number of planned trials."""
        return Counter((d, m) for d, _, m in self.keys)


def _no_store(exp_dir: Path) -> str:
    """Why ``exp_dir`` has no store to report ("" when it has part files)."""
    folder = store_dir(exp_dir)
    if not folder.is_dir():
        return f"there is no store {folder}"
    if not any(folder.glob(PART_GLOB)):
        return f"the store {folder} holds no {PART_GLOB} files"
    return ""


def _no_results(name: str, exp: str, why: str, overrides=()) -> NoResultsError:
    return NoResultsError(f"{name}: no results to report: {why}; run `{run_command(exp, overrides)}` first "
                          "(nothing was written)")


def _read_store(name: str, exp_dir: Path, cfg: DictConfig, full: DictConfig | None, fix: str
                ) -> tuple[pd.DataFrame, Plan | None, int, int, str]:
    """The stored trials the plan of ``cfg`` (:meth:`Plan.read`) holds (csrepro.store.read_store), one
    row per (dataset, method, trial); the plan; the numbers of stored trials left out: of the config
    file's plan (a report reduced by its overrides) and of other settings; and, when there are none
    to report, why (else "")."""
    folder = store_dir(exp_dir)
    if why := _no_store(exp_dir):
        return pd.DataFrame(), None, 0, 0, why
    store = read_store(exp_dir)
    if store.empty:
        return store, None, 0, 0, f"the store {folder} holds no trials"
    plan = Plan.read(name, exp_dir, cfg, full, fix)
    planned = store["trial_id"].isin(plan.ids)
    reduced = int(store["trial_id"].isin(plan.base_ids).sum())
    unplanned = int((~planned).sum()) - reduced
    if not planned.any():
        return pd.DataFrame(), plan, reduced, unplanned, (f"none of the {reduced + unplanned} trials in the store "
                                                          f"{folder} is one this config (with the overrides) plans")
    return latest_trials(store[planned]), plan, reduced, unplanned, ""


def _concat(frames: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


#: "k of n planned trials" in REPORT.md (both the partial headline and the "- Trials:" line)
TRIALS_RE = re.compile(r"([\d,]+) of ([\d,]+) planned trials")
#: the store line of reports older than TRIALS_RE (they were full-scale)
STORE_RE = re.compile(r"^- Store: (\d+) trials", re.M)


@dataclass(frozen=True)
class Existing:
    """What an existing report was made from: ``trials`` (None: unknown) of ``planned`` (None: a
    report older than the trial counts, taken as full-scale)."""

    trials: int | None
    planned: int | None

    @property
    def full(self) -> bool:
        return self.planned is None or (self.trials is not None and self.trials >= self.planned)

    def describe(self) -> str:
        if self.trials is None:
            return "an unknown number of trials (taken as a full-scale report)"
        if self.planned is None:
            return f"{self.trials:,} trials (a full-scale report)"
        return f"{self.trials:,} of {self.planned:,} planned trials" + ("" if self.full else " (partial)")


def existing_report(folder: Path) -> Existing | None:
    """What the report in ``folder`` was made from, or None when it holds no results (no report, or
    one of an empty store)."""
    path = folder / "REPORT.md"
    if path.is_file():
        text = path.read_text(errors="replace")
        if match := TRIALS_RE.search(text):
            trials, planned = (int(g.replace(",", "")) for g in match.groups())
            return Existing(trials, planned) if trials else None
        if match := STORE_RE.search(text):
            return Existing(int(match[1]), None) if int(match[1]) else None
        if "- Store: no finished trials" in text:
            return None
        return Existing(None, None)
    path = folder / "comparison.csv"
    if path.is_file():
        try:
            reproduced = pd.read_csv(path)["reproduced"]
        except (ValueError, KeyError, pd.errors.ParserError):
            return Existing(None, None)
        return Existing(None, None) if reproduced.notna().any() else None
    return None


def check_overwrite(name: str, folder: Path, trials: int, planned: int, force: bool) -> None:
    """Raise OverwriteError when the report of ``trials`` of ``planned`` trials would overwrite one in
    ``folder`` made from more trials, or a full-scale one while it is partial (unless ``force``)."""
    old = existing_report(folder)
    if force or old is None:
        return
    partial = trials < planned
    if (old.trials is not None and trials < old.trials) or (partial and old.full):
        raise OverwriteError(
            f"{name}: not overwriting {folder / 'REPORT.md'}, made from {old.describe()}, with a "
            f"{'PARTIAL ' if partial else ''}report of {trials:,} of {planned:,} planned trials; "
            "pass --force to overwrite it, or --out DIR to write this report to another folder")


def _partial_headline(reported: pd.DataFrame, plan: Plan) -> str:
    """**PARTIAL: k of n planned trials** (datasets and methods with results) and what it means."""
    datasets = {d for d, _, _ in plan.keys}
    methods = {m for _, _, m in plan.keys}
    return (f"**PARTIAL: {len(reported):,} of {plan.n:,} planned trials** ({reported['dataset'].nunique()} of "
            f"{len(datasets)} datasets and {reported['method'].nunique()} of {len(methods)} methods have results). "
            "A reduced or unfinished run, not a full-scale reproduction: cells with fewer trials than planned "
            "(n_trials < n_planned in comparison.csv) are provisional, not failed reproductions.")


def _trials_line(exp: str, reported: int, reduced: int, planned: int, overrides) -> str:
    """REPORT.md's "- Trials: k of n planned trials" bullet, with how to get the others when k < n."""
    if reported >= planned:
        rest = " (complete)"
    elif reported + reduced >= planned:
        rest = "; the store holds the others: report without the exp.* overrides for the full report"
    else:
        full_run = run_command(exp, [o for o in overrides if not o.lstrip("+~").startswith("exp.")])
        rest = f"; finish the run with `{full_run}` (it resumes)"
    return f"- Trials: {reported:,} of {planned:,} planned trials{rest}"


def _method_lines(methods_cfg) -> list[str]:
    """One line per method entry of the experiment: its registry id (csrepro.methods) and that id's source."""
    lines = []
    for key, entry in methods_cfg.items():
        name = (entry or {}).get("method", key)
        alias = "" if name == key else f" (method `{name}`)"
        lines.append(f"- `{key}`{alias}: {methods.get_method(name).source}")
    return lines


def _figure_lines(figures: list[Path], stage: Path) -> list[str]:
    """REPORT.md's lines for what a paper's figures.py returned: each Markdown table (``*.md``, e.g. the
    leaderboard's selection.md) inline under a heading of its name, then "## Figures", with every image
    (``*.png``) shown and every other file (a figure's data) linked, relative to the report."""
    tables = [p for p in figures if p.suffix == ".md"]
    lines = [x for p in tables for x in (f"## {p.stem.replace('_', ' ').capitalize()}", "", p.read_text().rstrip(), "")]
    shown = [f"{'!' if p.suffix == '.png' else ''}[{p.stem if p.suffix == '.png' else p.name}]"
             f"({Path(os.path.relpath(p, stage)).as_posix()})" for p in figures if p.suffix != ".md"]
    return [*lines, "## Figures", "", *shown]


def report_experiment(exp: str, cfg: DictConfig, experiments_dir, prov: Provenance, *, conf_dir=None,
                      force: bool = False, out=None, overrides=()) -> ExperimentFidelity:
    """Write one experiment's REPORT.md, comparison.csv, tables and figures; returns its comparison.

    ``cfg`` is the composed config (csrepro.config.compose), validated here as the runner
    validates it. The report goes to <results.root>/<exp.name>/, or <out>/<exp.name>/;
    ``conf_dir`` holds exp/<exp>.yaml, the config file whose plan (recorded in the store by the
    runs) the report is measured against (default: the repository's conf/). Raises NoResultsError
    (no stored trial of the plan), NoPlanError (no plan of the config in the store) or
    OverwriteError (see check_overwrite) before writing anything.
    """
    name = select(cfg, "exp.name", default=exp)
    paper = select(cfg, "exp.paper", "paper") or ""  # none (e.g. smoke): a report without published cells
    exp_dir = results_root(cfg) / name
    target = Path(out) / name if out is not None else exp_dir
    if why := folder_problem(target):
        raise UsageError(f"{name}: cannot write the report in {target}: {why}; "
                         + ("give --out a writable folder" if out is not None else "pass --out DIR (a writable folder)"))
    checked = validate_config(cfg)  # first, as the runner does
    full = _full_config(exp, cfg, checked, conf_dir)
    store, plan, reduced, unplanned, why = _read_store(name, exp_dir, checked, full, run_command(exp, overrides))
    if store.empty:
        raise _no_results(name, exp, why, overrides)
    partial = len(store) < plan.n
    check_overwrite(name, target, len(store), plan.n, force)
    if reduced:
        print(f"{name}: left out {reduced} stored trials of conf/exp/{exp}.yaml that the overrides leave out")
    if unplanned:
        print(f"{name}: left out {unplanned} stored trials that conf/exp/{exp}.yaml (with the overrides) does not plan")
    pub_path = Path(experiments_dir) / paper / "published.csv" if paper else None
    published = load_published(pub_path) if pub_path is not None and pub_path.is_file() \
        else pd.DataFrame(columns=PUBLISHED_COLUMNS + ["bold"])
    report = select(cfg, "exp.report", "report", default={})
    methods_cfg = select(cfg, "exp.methods", default={})
    datasets = select(cfg, "exp.datasets", default=[])
    specs = table_specs(report.get("tables"), published, datasets, list(methods_cfg), family_values(methods_cfg))
    cells = {spec.id: reproduce(store, spec) for spec in specs}
    shown = published[published["table"].isin([spec.id for spec in specs])]
    # e.g. a #wins row of a table: its cells come from here
    ranked = rank_comparisons(store, report, published, datasets)
    ranked_keys = {key for _, rows in ranked for key in zip(rows["table"], rows["row"], rows["column"])}
    shown = shown.loc[[key not in ranked_keys for key in zip(shown["table"], shown["row"], shown["column"])]]
    comparison = pd.concat([compare(shown, _concat(list(cells.values()), CELL_COLUMNS))] + [r for _, r in ranked],
                           ignore_index=True)
    sources = {(spec.id, *key): value for spec in specs for key, value in cell_sources(spec).items()}
    sources.update(rank_sources(report, datasets))
    comparison = with_trial_counts(comparison, sources, Counter(zip(store["dataset"], store["method"])),
                                   plan.counts())
    headline = _partial_headline(store, plan) if partial else ""
    with tempfile.TemporaryDirectory(prefix=f"csrepro-report-{name}-") as scratch:
        stage = Path(scratch)
        (stage / "tables").mkdir()
        comparison.to_csv(stage / "comparison.csv", index=False, float_format="%.10g")
        note = f"{headline}\n\n" if partial else ""
        tex_note = f"% PARTIAL: {len(store):,} of {plan.n:,} planned trials (a reduced or unfinished run)\n" \
            if partial else ""
        sections = []
        for spec in specs:
            markdown = render_markdown(spec, cells[spec.id], published)
            (stage / "tables" / f"{spec.slug}.md").write_text(f"{note}{markdown}\n{prov.line()}\n")
            (stage / "tables" / f"{spec.slug}.tex").write_text(
                f"% {prov.line()}\n{tex_note}{render_latex(spec, cells[spec.id], published)}")
            sections += [f"## {spec.id}", "", markdown]
        for entry, rows in ranked:
            markdown = render_rank_markdown(entry, rows)
            (stage / "tables" / f"{rank_slug(entry)}.md").write_text(f"{note}{markdown}\n{prov.line()}\n")
            sections += [f"## {entry['id']}{' (#wins)' if entry['rows'] == ['wins'] else ''}", "", markdown]
        figures = make_figures(report.get("figures"), stage / "figures", store, cfg)
        c = counts(comparison)
        short = short_cells(comparison)
        source = (f"experiments/{paper}/published.csv" if pub_path is not None and pub_path.is_file()
                  else f"no experiments/{paper}/published.csv" if paper else "the experiment reproduces no paper")
        left_out = (f"- Left out: {unplanned} stored trials of settings this config does not plan (e.g. an earlier "
                    "protocol, cost or method parameter); `csrepro.store.delete_trials` removes them")
        title = f"published vs reproduced ({paper})" if paper else "reproduced (no paper: no published cells)"
        lines = [f"# {name}: {title}{' — PARTIAL' if partial else ''}", "",
                 *([headline, ""] if partial else []),
                 "## Provenance", "", f"- Report: {prov.line()}",
                 *results_lines(store, read_run_info(exp_dir)),
                 _trials_line(exp, len(store), reduced, plan.n, overrides),
                 *failure_lines(exp_dir, plan.ids),
                 *([f"- Not read: {reduced} stored trials of conf/exp/{exp}.yaml that this report's overrides "
                    "leave out"] if reduced else []),
                 *([left_out] if unplanned else []),
                 "", "## Methods", "", *_method_lines(methods_cfg),
                 "", "## Fidelity", "",
                 f"{c['within']} of {c['published']} published cells ({source}) within tolerance, {c['outside']} "
                 f"outside, {c['missing']} without a reproduced value; cell by cell in comparison.csv"
                 + (f" ({short} cells have fewer trials than planned)." if short else "."), "",
                 *sections, *_figure_lines(figures, stage)]
        (stage / "REPORT.md").write_text("\n".join(lines) + "\n")
        _install(stage, target)
    status = f", PARTIAL: {len(store):,} of {plan.n:,} planned trials" if partial else ""
    print(f"{name}: {target / 'REPORT.md'} ({c['within']}/{c['published']} cells within tolerance{status})")
    return ExperimentFidelity(name, paper, comparison)


def _full_config(exp: str, cfg: DictConfig, checked: DictConfig, conf_dir) -> DictConfig | None:
    """The validated config file conf/exp/<exp>.yaml without overrides (``checked`` when the overrides
    leave ``exp`` as the file has it; else validated without building its methods: only its plan is read);
    None when ``conf_dir`` has no such file."""
    conf_dir = Path(conf_dir or REPO_ROOT / "conf")
    if experiment_path(exp, conf_dir) is None:
        return None
    base = compose(exp, conf_dir=conf_dir)
    return checked if select(base, "exp") == select(cfg, "exp") else validate_config(base, build_methods=False)


def _install(stage: Path, target: Path) -> None:
    """Copy every file under ``stage`` to the same place under ``target`` (each written atomically)."""
    for path in sorted(stage.rglob("*")):
        if path.is_file():
            atomic_write(target / path.relative_to(stage), path.read_bytes())


def _committed_fidelity(exp: str, cfg: DictConfig) -> ExperimentFidelity | None:
    """An experiment's comparison as its last report wrote it (results/<name>/comparison.csv), if any."""
    name = select(cfg, "exp.name", default=exp)
    path = results_root(cfg) / name / "comparison.csv"
    if not path.is_file():
        print(f"{name}: no {path}; run `python -m csrepro.report {exp}` first (left out of FIDELITY.md)")
        return None
    return ExperimentFidelity(name, select(cfg, "exp.paper", "paper"), pd.read_csv(path))


#: an experiment's row in FIDELITY.md
FIDELITY_ROW = re.compile(r"^\| [^|]* \| \[([^\]]+)\]\(", re.M)


def write_fidelity(path: Path, results: list[ExperimentFidelity], prov: Provenance, force: bool,
                   experiments_dir=None) -> None:
    """Write FIDELITY.md, unless it would drop an experiment the existing one lists (``force``: anyway), and
    CLAIMS.md next to it (both over the paper folders of ``experiments_dir``)."""
    if path.is_file() and not force:
        dropped = sorted(set(FIDELITY_ROW.findall(path.read_text(errors="replace")))
                         - {r.experiment for r in results})
        if dropped:
            raise OverwriteError(f"not rewriting {path}: it lists {dropped}, which have neither results nor a "
                                 "comparison.csv now; report them first, or pass --force to drop them")
    fidelity = render_fidelity(results, prov.line(), experiments_dir)
    claims = render_claims(experiments_dir, prov.line()) if experiments_dir is not None else None
    atomic_write(path, fidelity)
    print(f"wrote {path}")
    if claims is not None:
        atomic_write(path.with_name("CLAIMS.md"), claims)
        print(f"wrote {path.with_name('CLAIMS.md')}")


#: the keys of an experiment file that the modes over every experiment read before reporting one
HEADER_KEYS = ("name", "paper")


def _file_header(path: Path, conf_dir, seen: frozenset) -> dict | None:
    """``name`` and ``paper`` as the config file ``path`` sets them at the top of ``exp``, its defaults list merged
    in order as Hydra merges it (``_self_`` last unless placed): another experiment file of the group, or a group
    option at ``@_here_``; None when the file sets them in a way not followed here."""
    node = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(node, dict):
        return None
    defaults = list(node.get("defaults") or [])
    header = {}
    for entry in defaults if "_self_" in defaults else [*defaults, "_self_"]:
        if entry == "_self_":
            part = node
        elif isinstance(entry, str):  # another experiment file, e.g. cs_boost_uci_stumps_loo's cs_boost_uci_stumps
            other = experiment_path(entry, conf_dir)
            part = None if other is None or entry in seen else _file_header(other, conf_dir, seen | {entry})
        elif isinstance(entry, dict) and len(entry) == 1:
            (group, option), = entry.items()
            if not str(group).endswith("@_here_"):
                continue  # a group option under its own key (/protocol: kfold) sets no top-level key
            folder = str(group).removesuffix("@_here_").lstrip("/")
            found = [d / folder / f"{option}.yaml" for d in config_dirs(conf_dir)
                     if (d / folder / f"{option}.yaml").is_file()]
            part = yaml.safe_load(found[0].read_text(encoding="utf-8")) if found else None
            part = None if not isinstance(part, dict) or "defaults" in part else part
        else:
            part = None
        if part is None:
            return None
        header.update({k: part[k] for k in HEADER_KEYS if k in part})
    return header


def experiment_header(exp: str, conf_dir=None) -> tuple[str, str] | None:
    """(``exp.paper``, ``exp.name``) of experiment ``exp`` read from its file without Hydra (milliseconds, where a
    composition takes a third of a second), as :func:`csrepro.config.compose` gives them without overrides; None
    when the file cannot be read so or sets them otherwise than as plain strings (compose it instead)."""
    path = experiment_path(exp, conf_dir)
    try:
        header = None if path is None else _file_header(path, conf_dir, frozenset({exp}))
    except (OSError, yaml.YAMLError):
        return None
    if header is None or not all(isinstance(header.get(k), str) and "${" not in header[k] for k in HEADER_KEYS):
        return None
    return header["paper"], header["name"]


def paper_experiments(conf_dir, overrides=()) -> tuple[dict[str, DictConfig], Path]:
    """The configs of the experiments in ``conf_dir`` that reproduce a paper, by name (the others are named and
    skipped), and the results folder; ReportError when there are none.  Each config holds ``exp.paper``,
    ``exp.name`` and ``results.root``, all that --all, --fidelity and --site read before reporting one experiment
    (:func:`report_all` composes those it reports): the first experiment is composed with ``overrides`` (an error
    in them stops here, before any work), the others' paper and name are read from their files
    (:func:`experiment_header`), unless an override names ``exp`` or a file cannot be read so: then that
    experiment is composed with the overrides."""
    exps = experiment_names(conf_dir)
    if not exps:
        raise ReportError(f"no experiment configs in {Path(conf_dir) / 'exp'}; point --conf-dir at the conf folder")
    first = compose(exps[0], overrides, conf_dir=conf_dir)
    root = results_root(first)
    cheap = not any("exp" in o for o in overrides)

    def header(e: str) -> DictConfig:
        found = experiment_header(e, conf_dir) if cheap else None
        if found is None:
            cfg = first if e == exps[0] else compose(e, overrides, conf_dir=conf_dir)
            found = select(cfg, "exp.paper", "paper"), select(cfg, "exp.name", default=e)
            root_e = results_root(cfg)
        else:
            root_e = root
        return OmegaConf.create({"exp": {"paper": found[0], "name": found[1]}, "results": {"root": str(root_e)}})

    cfgs = {e: header(e) for e in exps}
    paperless = [e for e, cfg in cfgs.items() if not select(cfg, "exp.paper", "paper")]
    if paperless:
        print(f"skipping experiments that reproduce no paper: {paperless}")
    papers = {e: cfg for e, cfg in cfgs.items() if e not in paperless}
    if not papers:
        raise ReportError(f"no experiment in {Path(conf_dir) / 'exp'} names a paper; nothing to report")
    return papers, root


def write_site(cfgs: dict[str, DictConfig], root: Path, experiments_dir, target: Path, prov: Provenance) -> None:
    """The static website of the experiments ``cfgs`` (results under ``root``) in ``target`` (csrepro.report.site)."""
    shown = [SiteExperiment(select(cfg, "exp.name", default=e), select(cfg, "exp.paper", "paper"))
             for e, cfg in cfgs.items()]
    build_site(shown, root, experiments_dir, target, prov)
    print(f"wrote {target / 'index.html'} (open it in a browser; no server needed)")


def write_committed_fidelity(cfgs: dict[str, DictConfig], root: Path, path: Path, prov: Provenance, force: bool,
                             experiments_dir) -> None:
    """:func:`write_fidelity` from each experiment's committed comparison.csv (no stores needed); ReportError
    when there is none under ``root``."""
    results = [r for r in (_committed_fidelity(e, cfg) for e, cfg in cfgs.items()) if r is not None]
    if not results:
        raise ReportError(f"no comparison.csv under {root}; run `python -m csrepro.report --all` "
                          "(or one experiment) first; nothing was written")
    write_fidelity(path, results, prov, force, experiments_dir)


def report_all(cfgs: dict[str, DictConfig], path: Path, experiments_dir, prov: Provenance, on_error, *,
               conf_dir=None, force: bool = False, out=None, overrides=()) -> bool:
    """:func:`report_experiment` for each experiment of ``cfgs`` that has a store (composed from ``conf_dir`` with
    ``overrides``), then :func:`write_fidelity` at ``path``, where an experiment without results or whose report
    failed keeps its committed comparison.csv. Those without results are named with their run command, a failure
    goes to ``on_error(err)`` and the next
    experiment is reported; ReportError (nothing written) when none was. False when one failed."""
    results, without, failed = [], [], []
    for e, cfg in cfgs.items():
        try:
            name = select(cfg, "exp.name", default=e)
            if why := _no_store(results_root(cfg) / name):  # checked before planning (seconds)
                raise _no_results(name, e, why, overrides)
            results.append(report_experiment(e, compose(e, overrides, conf_dir=conf_dir), experiments_dir, prov,
                                             conf_dir=conf_dir, force=force, out=out, overrides=overrides))
            continue
        except NoResultsError as err:
            print(err)
            without.append(e)
        except Exception as err:
            on_error(err)
            failed.append(e)
        committed = _committed_fidelity(e, cfg)  # FIDELITY.md keeps what its last report found
        if committed is not None:
            results.append(committed)
    if len(without) + len(failed) == len(cfgs):
        raise ReportError(
            f"no experiment was reported ({len(without)} without results, {len(failed)} failed, each named above); "
            f"nothing was written; run an experiment first, e.g. `{run_command((without or failed)[0], overrides)}`")
    if results:
        write_fidelity(path, results, prov, force, experiments_dir)
    if without:
        print(f"not reported, no results: {', '.join(without)} (run `python -m csrepro.run +exp=<name>`)")
    return not failed
