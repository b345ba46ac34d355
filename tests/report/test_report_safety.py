"""A report never destroys a report: no store, partial runs, --force / --out, one-line errors, --all and --fidelity.

Every refusal asserts the exit status, the message and that no file of the target results folder changed.
"""

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from csrepro import store as store_module
from csrepro.config import compose, experiment_names, plan_key, select, validate_config
from csrepro.report import figures
from csrepro.report.__main__ import main
from csrepro.report.build import NoResultsError, experiment_header
from csrepro.report.compare import COMPARISON_COLUMNS, CSV_COLUMNS, TRIAL_COLUMNS
from csrepro.report.figures import paper_module
from csrepro.runner import run_experiment

ROOT = Path(__file__).resolve().parents[2]

TINY = """\
defaults:
  - /protocol: holdout
  - /cost: random_symmetric
  - _self_
name: tiny
paper: tiny
datasets: [sk_iris, sk_wine]
n_trials: 2
protocol: {test_size: 0.3}
methods: {mcboost: {n_estimators: 3}, gll_mcboost: {n_estimators: 3}}
metrics: [risk, error]
report:
  tables:
    - {id: Table T, metric: risk}
"""
PUBLISHED = "table,row,column,value,spread,spread_kind,unit,source,row_label,column_label\n" + "".join(
    f"Table T,{d},{m},1.0,,,risk,made up,{d},{m}\n" for d in ("sk_iris", "sk_wine") for m in ("mcboost", "gll_mcboost"))


def snapshot(folder: Path) -> dict:
    """Bytes of every file under ``folder`` except the stores, by relative path."""
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "store" not in p.relative_to(folder).parts}


def one_line_error(capsys, *fragments) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("report error: "), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def tiny(tmp_path):
    """(conf dir, experiments dir, results root, run(n_trials), report(*args) -> exit status) of a
    four-cell experiment on scikit-learn's bundled sets, run for real."""
    conf = tmp_path / "conf"
    for group in ("protocol", "cost"):
        shutil.copytree(ROOT / "conf" / group, conf / group)
    (conf / "exp").mkdir()
    (conf / "exp" / "tiny.yaml").write_text(TINY)
    (conf / "config.yaml").write_text("defaults:\n  - csrepro_schema\n  - _self_\nresults:\n  root: unused\n")
    experiments = tmp_path / "experiments"
    (experiments / "tiny").mkdir(parents=True)
    (experiments / "tiny" / "published.csv").write_text(PUBLISHED)
    results = tmp_path / "results"

    def run(n_trials):
        cfg = compose("tiny", [f"results.root={results}", f"exp.n_trials={n_trials}", "runner.n_jobs=1",
                               "runner.progress=false"], conf_dir=conf)
        # as `python -m csrepro.run` does: the experiment file's plan is recorded beside the run's
        return run_experiment(cfg, command=f"pytest tiny n_trials={n_trials}", full=compose("tiny", conf_dir=conf))

    def report(*args):
        return main([*args, "--conf-dir", str(conf), "--experiments-dir", str(experiments),
                     f"results.root={results}"])

    return conf, experiments, results, run, report


def test_partial_reports_are_marked_and_never_overwrite_fuller_ones(tiny, tmp_path, capsys):
    conf, experiments, results, run, report = tiny
    out = results / "tiny"
    # an unfinished run (1 of 2 trials): a partial report, into an empty folder
    assert len(run(1)) == 4
    assert report("tiny") == 0
    text = (out / "REPORT.md").read_text().splitlines()
    assert text[0] == "# tiny: published vs reproduced (tiny) — PARTIAL"
    assert text[2].startswith("**PARTIAL: 4 of 8 planned trials** (2 of 2 datasets and 2 of 2 methods have results)")
    assert "- Trials: 4 of 8 planned trials; finish the run with `python -m csrepro.run +exp=tiny" in "\n".join(text)
    comp = pd.read_csv(out / "comparison.csv")
    assert list(comp.columns) == CSV_COLUMNS and (comp["n_trials"] == 1).all() and (comp["n_planned"] == 2).all()
    assert (out / "tables" / "table_t.md").read_text().startswith("**PARTIAL: 4 of 8 planned trials**")
    assert "% PARTIAL: 4 of 8 planned trials" in (out / "tables" / "table_t.tex").read_text()
    assert "PARTIAL: 4 of 8 planned trials" in capsys.readouterr().out

    # the run finished (resumed): the full report replaces the partial one
    assert len(run(2)) == 8
    assert report("tiny") == 0
    full = (out / "REPORT.md").read_text()
    assert "PARTIAL" not in full and "- Trials: 8 of 8 planned trials (complete)" in full
    comp = pd.read_csv(out / "comparison.csv")
    assert (comp["n_trials"] == 2).all() and (comp["n_planned"] == 2).all()
    before = snapshot(results)

    # a reduced report (exp.n_trials=1 reads 4 of the 8 stored trials) does not overwrite the full one
    capsys.readouterr()
    assert report("tiny", "exp.n_trials=1") == 1
    one_line_error(capsys, f"tiny: not overwriting {out / 'REPORT.md'}, made from 8 of 8 planned trials",
                   "PARTIAL report of 4 of 8 planned trials", "pass --force", "--out DIR")
    assert snapshot(results) == before

    # nor does an unfinished one (two trials of sk_wine gone from the store)
    wine_t1 = pd.read_parquet(next((out / "store").glob(store_module.PART_GLOB)))
    gone = wine_t1[(wine_t1["dataset"] == "sk_wine") & (wine_t1["trial"] == 1)]["trial_id"]
    assert store_module.delete_trials(out, gone) == 2
    assert report("tiny") == 1
    one_line_error(capsys, "made from 8 of 8 planned trials", "PARTIAL report of 6 of 8 planned trials")
    assert snapshot(results) == before

    # --out: the partial report goes elsewhere, the full one stays
    elsewhere = tmp_path / "elsewhere"
    assert report("tiny", "--out", str(elsewhere)) == 0
    assert snapshot(results) == before
    assert (elsewhere / "tiny" / "REPORT.md").read_text().startswith(
        "# tiny: published vs reproduced (tiny) — PARTIAL\n\n**PARTIAL: 6 of 8 planned trials**")
    # ... and a second, smaller one does not overwrite that partial one either
    assert report("tiny", "--out", str(elsewhere), "exp.n_trials=1") == 1
    one_line_error(capsys, "made from 6 of 8 planned trials (partial)", "report of 4 of 8 planned trials")

    # --force: overwritten, and marked partial cell by cell
    assert report("tiny", "--force") == 0
    assert (out / "REPORT.md").read_text().startswith("# tiny: published vs reproduced (tiny) — PARTIAL")
    comp = pd.read_csv(out / "comparison.csv").set_index(["row", "column"])
    assert list(comp.loc["sk_wine", "n_trials"]) == [1, 1] and list(comp.loc["sk_iris", "n_trials"]) == [2, 2]
    assert (comp["n_planned"] == 2).all()

    # FIDELITY.md marks the partial table and lists the partial run
    assert report("--fidelity") == 0
    fidelity = (results / "FIDELITY.md").read_text()
    marked = "Table T (PARTIAL: 2 of 4 cells have fewer trials than planned)"
    assert f"| tiny | [tiny](tiny/REPORT.md) | {marked} | 4 |" in fidelity
    assert "Partial runs (fewer trials than their configs plan; not full-scale reproductions): tiny." in fidelity


def test_an_error_while_drawing_leaves_the_old_report(tiny, monkeypatch, capsys):
    """The report is made in a scratch folder: a figure that fails leaves every old file as it was."""
    conf, experiments, results, run, report = tiny
    run(2)
    assert report("tiny") == 0
    before = snapshot(results)

    def boom(out_dir, store, cfg):
        raise RuntimeError("the plot broke")

    monkeypatch.setattr(figures, "paper_module", lambda paper: SimpleNamespace(FIGURES={"boom": boom}))
    capsys.readouterr()
    assert report("tiny", "+exp.report.figures=[boom]") == 1
    one_line_error(capsys, "RuntimeError: the plot broke (unexpected; rerun with --debug for the traceback)")
    assert snapshot(results) == before


def committed_copy(tmp_path, *experiments) -> Path:
    """results/<exp>/ of the repository (committed reports, no stores) under a tmp results root."""
    results = tmp_path / "results"
    for exp in experiments:
        shutil.copytree(ROOT / "results" / exp, results / exp, ignore=shutil.ignore_patterns("store"))
    return results


@pytest.mark.parametrize("state, message", [
    ("missing", "there is no store"),
    ("empty", "holds no part-*.parquet files"),
    ("other settings", "none of the 1 trials in the store"),
])
def test_no_results_is_an_error_that_writes_nothing(tmp_path, capsys, state, message):
    results = committed_copy(tmp_path, "guess_averse_uci")
    store = results / "guess_averse_uci" / "store"
    if state != "missing":
        store.mkdir()
    if state == "other settings":  # the config's plan is recorded, the one stored trial is of another setting
        pd.DataFrame([{"trial_id": "old", "dataset": "ecoli", "method": "mcboost", "trial": 0, "risk": 1.0,
                       "finished_at": "2025"}]).to_parquet(store / "part-0.parquet")
        cfg = validate_config(compose("guess_averse_uci"))
        store_module.write_plan(store.parent, plan_key(cfg.exp), [{"trial_id": "new", "config_hash": "h",
                                "dataset": "ecoli", "trial": 0, "method": "mcboost", "params": "{}"}])
    before = snapshot(results)
    assert main(["guess_averse_uci", f"results.root={results}"]) == 1
    one_line_error(capsys, "report error: guess_averse_uci: no results to report: ", message,
                   f"run `python -m csrepro.run +exp=guess_averse_uci results.root={results}` first",
                   "(nothing was written)")
    assert snapshot(results) == before


def test_a_store_without_the_plan_of_the_config_names_the_run_that_records_it(tiny, capsys):
    """A store written before runs recorded their plans, or only by runs of other settings (the experiment
    file changed since), is an error naming the run command; that run records the plan, running only the
    trials not yet stored."""
    conf, experiments, results, run, report = tiny
    folder = results / "tiny" / "store"
    run(2)
    plans = sorted(folder.glob(store_module.PLAN_GLOB))
    assert len(plans) == 1  # a full run: its plan is the experiment file's
    for path in plans:
        path.unlink()
    before = snapshot(results)
    fix = f"run `python -m csrepro.run +exp=tiny results.root={results}`"
    assert report("tiny") == 1
    one_line_error(capsys, f"tiny: the store {folder} holds no plan", fix, "nothing was written")
    assert snapshot(results) == before
    run(2)  # resumes: nothing runs, the plan is recorded
    assert '"ran": 0' in (results / "tiny" / "run_info.json").read_text()
    assert report("tiny") == 0 and "8 of 8 planned trials (complete)" in (results / "tiny" / "REPORT.md").read_text()

    (conf / "exp" / "tiny.yaml").write_text(TINY.replace("{mcboost: {n_estimators: 3}", "{mcboost: {n_estimators: 4}"))
    before = snapshot(results)
    assert report("tiny") == 1
    one_line_error(capsys, f"tiny: the plan in {folder} was recorded by runs of other settings", fix)
    assert snapshot(results) == before
    run(2)  # runs the 4 new mcboost trials
    assert report("tiny") == 0
    text = (results / "tiny" / "REPORT.md").read_text()
    assert "8 of 8 planned trials (complete)" in text and "- Left out: 4 stored trials of settings" in text


def test_cli_error_is_one_line_and_debug_shows_the_traceback(tmp_path, monkeypatch):
    """In a fresh process, the error is one line on stderr; --debug (in this process: the exception leaves main,
    so ``python -m`` prints its traceback) and HYDRA_FULL_ERROR=1 raise it instead."""
    results = committed_copy(tmp_path, "thesis_letter1")
    before = snapshot(results)
    cmd = [sys.executable, "-m", "csrepro.report", "thesis_letter1", f"results.root={results}"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        f"report error: thesis_letter1: no results to report: there is no store {results}/thesis_letter1/store; "
        f"run `python -m csrepro.run +exp=thesis_letter1 results.root={results}` first (nothing was written)"]
    with pytest.raises(NoResultsError, match="no results to report"):
        main([*cmd[3:], "--debug"])
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    with pytest.raises(NoResultsError, match="no results to report"):
        main(cmd[3:])
    assert snapshot(results) == before


def test_missing_config_and_damaged_store(tmp_path, capsys):
    assert main(["nope", f"results.root={tmp_path}"]) == 2  # a config error, as for `python -m csrepro.run`
    one_line_error(capsys, "no experiment config", "known experiments: [", "'guess_averse_uci'")
    assert main(["thesis_letter1", "exp.n_trials=0", f"results.root={tmp_path}"]) == 2
    one_line_error(capsys, "exp.n_trials must be >= 1, got 0")
    results = committed_copy(tmp_path, "thesis_letter1")
    (results / "thesis_letter1" / "store").mkdir()
    (results / "thesis_letter1" / "store" / "part-bad.parquet").write_bytes(b"PAR1 truncated")
    before = snapshot(results)
    assert main(["thesis_letter1", f"results.root={results}"]) == 1
    one_line_error(capsys, "part-bad.parquet", "python -m csrepro.run +exp=thesis_letter1")
    assert snapshot(results) == before


@pytest.fixture
def fresh_clone(tmp_path):
    """conf/, experiments/ and results/ of the repository as a fresh clone has them (no stores)."""
    for folder in ("conf", "experiments"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    shutil.copytree(ROOT / "results", tmp_path / "results", ignore=shutil.ignore_patterns("store"))
    args = ["--conf-dir", str(tmp_path / "conf"), "--experiments-dir", str(tmp_path / "experiments"),
            f"results.root={tmp_path / 'results'}"]
    return tmp_path / "results", args


def test_all_on_a_fresh_clone_writes_nothing(fresh_clone, capsys):
    results, args = fresh_clone
    before = snapshot(results)
    assert main(["--all", *args]) == 1
    captured = capsys.readouterr()
    for exp in ("guess_averse_uci", "cs_boost_synthetic", "thesis_gaussians", "cs_svm_uci"):
        assert f"{exp}: no results to report: there is no store" in captured.out
        assert f"python -m csrepro.run +exp={exp} results.root={results}" in captured.out
    assert captured.err.startswith("report error: no experiment was reported (")
    assert len(captured.err.strip().splitlines()) == 1
    assert snapshot(results) == before


def test_fidelity_from_old_and_new_comparison_files_is_the_same(fresh_clone, capsys):
    results, args = fresh_clone
    committed = (results / "FIDELITY.md").read_text().splitlines()
    assert main(["--fidelity", *args]) == 0
    again = (results / "FIDELITY.md").read_text().splitlines()
    assert again[2].startswith("Generated by `python -m csrepro.report --fidelity")
    assert again[:2] + again[3:] == committed[:2] + committed[3:]  # all but the provenance line
    # comparison.csv files with the trial counts of full runs give the same FIDELITY.md (committed files hold
    # either format: those of reports made before the counts lack them)
    for path in results.glob("*/comparison.csv"):
        comp = pd.read_csv(path)
        assert list(comp.columns) in (COMPARISON_COLUMNS, COMPARISON_COLUMNS + TRIAL_COLUMNS)
        comp.assign(n_trials=7, n_planned=7).to_csv(path, index=False, float_format="%.10g")
    assert main(["--fidelity", *args]) == 0
    new = (results / "FIDELITY.md").read_text().splitlines()
    assert new[:2] + new[3:] == committed[:2] + committed[3:]
    assert list(pd.read_csv(results / "guess_averse_uci" / "comparison.csv").columns[-2:]) == TRIAL_COLUMNS


def test_fidelity_never_drops_an_experiment_without_force(fresh_clone, capsys):
    results, args = fresh_clone
    (results / "thesis_musk2" / "comparison.csv").unlink()
    before = snapshot(results)
    capsys.readouterr()
    assert main(["--fidelity", *args]) == 1
    one_line_error(capsys, f"not rewriting {results / 'FIDELITY.md'}: it lists ['thesis_musk2']", "--force")
    assert snapshot(results) == before
    assert main(["--fidelity", "--force", *args]) == 0
    assert "thesis_musk2" not in (results / "FIDELITY.md").read_text()


def test_paper_and_name_read_from_the_files_are_the_composed_ones(tmp_path):
    """--all, --fidelity and --site read each experiment's paper and name from its file (build.experiment_header,
    without Hydra): for every experiment of the repository (defaults lists included) they are those of the
    composed config; a file that sets them otherwise gives None (the experiment is composed instead)."""
    for exp in experiment_names():
        cfg = compose(exp)
        assert experiment_header(exp) == (select(cfg, "exp.paper", "paper"), select(cfg, "exp.name", default=exp))
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "a.yaml").write_text("name: ${oc.env:USER}\npaper: p\n")
    (tmp_path / "exp" / "b.yaml").write_text("defaults:\n  - a\n  - _self_\nname: b\n")
    (tmp_path / "exp" / "c.yaml").write_text("name: c\n")
    assert experiment_header("a", tmp_path) is None and experiment_header("c", tmp_path) is None
    assert experiment_header("b", tmp_path) == ("p", "b")


def test_all_reports_the_experiments_with_stores_and_keeps_the_others(tiny, capsys):
    """--all: tiny has a store and is reported; other (no store) keeps its report and its FIDELITY.md rows."""
    conf, experiments, results, run, report = tiny
    (conf / "exp" / "other.yaml").write_text(TINY.replace("name: tiny", "name: other"))
    (results / "other").mkdir(parents=True)
    comparison = ("table,row,column,published,reproduced,reproduced_se,tolerance,within\n"
                  "Table T,sk_iris,mcboost,1.0,1.05,0.01,0.1,True\n")
    (results / "other" / "comparison.csv").write_text(comparison)
    (results / "other" / "REPORT.md").write_text("# other\n\n- Store: 8 trials\n")
    run(2)
    # two experiments of one paper give Table T's cells: the ledger counts each cell once, from the owner it is told
    assert report("--all") == 1
    assert "name the experiment that owns them in experiments/tiny/owners.csv" in capsys.readouterr().err
    (experiments / "tiny" / "owners.csv").write_text("table,experiment,why\nTable T,tiny,the run with a store\n")
    assert report("--all") == 0
    captured = capsys.readouterr()
    assert "other: no results to report: there is no store" in captured.out and captured.err == ""
    assert (results / "other" / "comparison.csv").read_text() == comparison
    assert (results / "other" / "REPORT.md").read_text() == "# other\n\n- Store: 8 trials\n"
    fidelity = (results / "FIDELITY.md").read_text()
    assert "| tiny | [other](other/REPORT.md) | Table T | 1 | 1 | 0 | 0 |" in fidelity
    assert "| tiny | [tiny](tiny/REPORT.md) | Table T | 4 |" in fidelity


def test_figure_vi2_of_a_store_without_zero_crossings(tmp_path):
    """`--all` on a fresh clone used to stop with KeyError 'zero_crossing' here."""
    figs = paper_module("cs_boost")
    assert figs.crossings_from_store(pd.DataFrame()).empty
    assert figs.plot_figure_vi2(tmp_path, pd.DataFrame({"method": ["x"], "params": ["{}"]}), None) == []


def test_cell_sources_follow_the_table_kinds():
    """n_trials / n_planned of a cell count the (dataset, method) trials its value is computed from."""
    from csrepro.report.rank_tables import rank_sources
    from csrepro.report.tables import TableSpec, cell_sources

    plain = TableSpec(id="T", metric="errors", rows=["a", "b"], columns=["m", "s"], combine={"m": ["m1", "m2"]})
    src = cell_sources(plain)
    assert src[("a", "m")] == (["a"], ["m1", "m2"]) and src[("b", "s")] == (["b"], ["s"])
    assert src[("avg_rank", "s")] == (["a", "b"], ["m1", "m2", "s"])
    families = {"clog": {"clog[a=1]": 1, "clog[a=2]": 2}}
    derived = TableSpec(id="D", metric="error", rows=["a"], columns=["best", "a_best", "gain", "ref"], kind="derived",
                        families=families, derive={"best": {"stat": "min", "family": "clog"},
                                                   "a_best": {"stat": "argmin", "family": "clog"},
                                                   "gain": {"stat": "max_gain", "family": "clog", "reference": "ref"}})
    src = cell_sources(derived)
    assert src[("a", "best")] == src[("a", "a_best")] == (["a"], ["clog[a=1]", "clog[a=2]"])
    assert src[("a", "gain")] == (["a"], ["clog[a=1]", "clog[a=2]", "ref"]) and src[("a", "ref")] == (["a"], ["ref"])
    wins = TableSpec(id="W", metric="error", rows=["ada", "savage"], columns=["wins_0", "error_0"], kind="wins",
                     groups={"0": ["a", "b"]})
    assert cell_sources(wins)[("savage", "wins_0")] == (["a", "b"], ["ada", "savage"])
    report = {"tables": [{"id": "T", "rows": ["a", "b", "c"], "combine": {"x": ["x85", "x90"], "y": ["y85", "y90"]}}],
              "rank_tables": [{"id": "R", "from": "T", "rows": ["rate_85", "rate_90"], "rank_columns": ["x", "y"],
                               "columns": ["x"]},
                              {"id": "T", "from": "T", "rows": ["wins"], "columns": ["x"], "wins_over": ["y"]}]}
    src = rank_sources(report, ["a", "b"])  # c is not among the experiment's datasets
    assert src[("R", "rate_90", "x")] == (["a", "b"], ["x90", "y90"])
    assert src[("T", "wins", "x")] == (["a", "b"], ["x85", "x90", "y85", "y90"])
