"""End to end: `python -m csrepro.report` on a synthetic store under a tmp results.root."""

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from omegaconf import OmegaConf

from csrepro import store as store_module
from csrepro.config import ConfigError, compose, experiment_names, plan_key, validate_config
from csrepro.provenance import git_commit
from csrepro.report import figures
from csrepro.report.__main__ import main
from csrepro.report.compare import CSV_COLUMNS, load_published
from csrepro.provenance import read_run_info
from csrepro.runner import plan_rows
from csrepro.scoring import METRICS
from csrepro.trials import plan_trials

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = load_published(ROOT / "experiments" / "guess_averse" / "published.csv")
DATASETS = ["breasttissue", "ecoli"]
OFFSETS = np.array([-0.02, -0.01, 0.0, 0.01, 0.02])  # mean 0, SE sqrt(2.5e-4 / 5)
FAR = ("ecoli", "lt_mcboost")  # reproduced 1.0 above the published mean: outside tolerance

EXP_YAML = """\
name: toy
paper: guess_averse
datasets: [breasttissue, ecoli]
n_trials: 5
methods: {mcboost: {}, p_mcboost: {}, gel_mcboost: {}, gll_mcboost: {}, ls_mcboost: {}, lt_mcboost: {}}
metrics: [risk, error]
report:
  tables:
    - {id: Table 2, metric: risk}
  figures: [toy_fig]
"""


def write_store(exp_dir: Path, conf: Path):
    """Five trials per published cell, and one row of a trial the config does not plan (an earlier
    setting's), whose wild risk must not reach the report; with the plan a run of the toy experiment
    records (csrepro.runner.record_plan)."""
    exp = validate_config(compose("toy", conf_dir=conf), METRICS).exp
    trials = plan_trials(exp)[1]
    store_module.write_plan(exp_dir, plan_key(exp), plan_rows(trials))
    ids = {(t.dataset, t.trial, t.method): t.trial_id for t in trials}
    rows = []
    for i, c in enumerate(PUBLISHED[PUBLISHED["row"].isin(DATASETS)].itertuples()):
        for t, off in enumerate(np.roll(OFFSETS, i)):  # rolled: paired differences vary across trials
            rows.append({
                "trial_id": ids[(c.row, t, c.column)], "config_hash": "h", "exp": "toy", "paper": "guess_averse",
                "dataset": c.row, "trial": t, "split_seed": t, "cost_seed": t, "model_seed": t,
                "method": c.column, "params": "{}", "risk": c.value + off + (1.0 if (c.row, c.column) == FAR else 0),
                "error": 0.1, "fit_seconds": 1.5, "predict_seconds": 0.5, "n_train": 80, "n_test": 20,
                "n_classes": 6, "versions": "{}", "git_commit": "abc1234", "finished_at": f"2025-01-0{t + 1}T00:00:00",
            })
    rows.append({**rows[0], "trial_id": "not-planned", "risk": 99.0})
    pd.DataFrame(rows).to_parquet(exp_dir / "store" / "part-0.parquet", index=False)


def toy_fig(out_dir, store, cfg):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot(store.groupby("trial")["risk"].mean())
    return [figures.save_png(fig, out_dir, f"toy_{cfg.exp.name}")]


@pytest.fixture
def setup(tmp_path, monkeypatch):
    pytest.importorskip("csrepro.store")
    conf = tmp_path / "conf"
    (conf / "exp").mkdir(parents=True)
    (conf / "exp" / "toy.yaml").write_text(EXP_YAML)
    (conf / "config.yaml").write_text("defaults:\n  - csrepro_schema\n  - _self_\nresults:\n  root: unused\n")
    results = tmp_path / "results"
    write_store(results / "toy", conf)
    run_info = {"command": "python -m csrepro.run exp=toy", "started": "2025-01-01T00:00:00",
                "finished": "2025-01-01T00:01:40", "wall_seconds": 100.0, "git_commit": "abc1234"}
    (results / "toy" / "run_info.json").write_text(json.dumps(run_info))
    monkeypatch.setattr(figures, "paper_module", lambda paper: SimpleNamespace(FIGURES={"toy_fig": toy_fig}))
    return conf, results


def test_report_one_experiment(setup):
    conf, results = setup
    assert main(["toy", "--conf-dir", str(conf), f"results.root={results}"]) == 0  # intermixed
    out = results / "toy"
    comp = pd.read_csv(out / "comparison.csv")
    assert list(comp.columns) == CSV_COLUMNS and len(comp) == 66
    done = comp[comp["row"].isin(DATASETS)].set_index(["row", "column"])
    # every trial the config plans is stored: 5 per (dataset, method) cell, 0 of 0 for datasets it does not plan;
    # the average ranks read every row and column (2 planned datasets x 6 methods x 5 trials)
    trials = ["n_trials", "n_planned"]
    assert (done[trials] == 5).all().all()
    assert (comp.loc[~comp["row"].isin(DATASETS + ["avg_rank"]), trials] == 0).all().all()
    assert (comp.loc[comp["row"] == "avg_rank", trials] == 60).all().all()
    np.testing.assert_allclose(done.drop(FAR)["reproduced"], PUBLISHED.set_index(["row", "column"]).loc[
        done.drop(FAR).index, "value"])
    np.testing.assert_allclose(done["reproduced_se"], np.sqrt(2.5e-4 / 5))
    assert done["within"].sum() == 11 and not done.loc[FAR, "within"]
    assert comp.loc[~comp["row"].isin(DATASETS), ["reproduced", "within"]].isna().all().all()
    md = (out / "tables" / "table_2.md").read_text()
    assert "| Breast Tissue | rep | 5 |" in md and "**1.48 ± 0.01**" in md and "2.21 ± 0.01†" in md
    assert "| Libras | rep | 0 | — |" in md
    assert r"\textbf{1.48 $\pm$ 0.01}" in (out / "tables" / "table_2.tex").read_text()
    report = (out / "REPORT.md").read_text()
    assert "python -m csrepro.run exp=toy" in report and "wall time 100.0 s" in report
    assert "fit + predict time 120.0 s" in report and git_commit() in report
    assert "11 of 66 published cells" in report and "![toy_toy](figures/toy_toy.png)" in report
    assert "- Left out: 1 stored trials of settings this config does not plan" in report
    assert "- Trials: 60 of 60 planned trials (complete)" in report and "PARTIAL" not in report
    assert (out / "figures" / "toy_toy.png").read_bytes()[:4] == b"\x89PNG"


def test_report_takes_the_runs_key_deletions(setup):
    """`~exp.methods.X` (a key the runner lets a user delete) is an override, not a second experiment name."""
    conf, results = setup
    assert main(["toy", "~exp.methods.lt_mcboost", "--conf-dir", str(conf), f"results.root={results}"]) == 0
    # the deleted method's 10 trials are left out, and a run without a method of the experiment is a partial one
    assert "PARTIAL: 50 of 60 planned trials" in (results / "toy" / "REPORT.md").read_text()


def test_report_all_writes_fidelity(setup):
    conf, results = setup
    assert main(["--all", f"results.root={results}", "--conf-dir", str(conf)]) == 0
    fidelity = (results / "FIDELITY.md").read_text()
    assert "| guess_averse | [toy](toy/REPORT.md) | Table 2 | 66 | 11 | 1 | 54 |" in fidelity
    assert "python -m csrepro.report --all" in fidelity


def test_fidelity_alone_reads_the_written_comparisons(setup):
    """--fidelity rebuilds FIDELITY.md from comparison.csv without the stores."""
    conf, results = setup
    assert main(["--all", f"results.root={results}", "--conf-dir", str(conf)]) == 0
    full = (results / "FIDELITY.md").read_text()
    for store in results.glob("*/store"):
        shutil.rmtree(store)
    assert main(["--fidelity", f"results.root={results}", "--conf-dir", str(conf)]) == 0
    alone = (results / "FIDELITY.md").read_text()
    assert "| guess_averse | [toy](toy/REPORT.md) | Table 2 | 66 | 11 | 1 | 54 |" in alone
    assert alone.split("\n")[4:] == full.split("\n")[4:]  # same rows; only the provenance line differs
    (results / "toy" / "comparison.csv").unlink()
    before = (results / "FIDELITY.md").read_bytes()
    # nothing reported yet: the error says to run the report first
    assert main(["--fidelity", f"results.root={results}", "--conf-dir", str(conf)]) == 1
    assert (results / "FIDELITY.md").read_bytes() == before
    with pytest.raises(SystemExit):
        main(["--fidelity", "--all"])


def test_cli_errors(tmp_path):
    with pytest.raises(SystemExit):
        main([])
    with pytest.raises(SystemExit):
        main(["a", "b"])
    (tmp_path / "exp").mkdir()
    with pytest.raises(ConfigError, match="known experiments"):
        compose("nope", conf_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown figure id 'nope'"):
        figures.get_figure("nope", "guess_averse")


def test_figures_come_from_the_paper_folder():
    assert figures.get_figure("figure3", "guess_averse").__name__ == "plot_figure3"
    assert figures.paper_module("no_such_paper") is None
    with pytest.raises(ValueError, match=r"known: \[\]"):
        figures.get_figure("figure3", "")


def test_compose_nesting_and_overrides(tmp_path):
    """csrepro.config.compose, the composition of the runner and the report, on a --conf-dir of its own."""
    (tmp_path / "exp").mkdir()
    (tmp_path / "config.yaml").write_text("defaults:\n  - csrepro_schema\n  - _self_\n")
    (tmp_path / "exp" / "flat.yaml").write_text("name: flat\npaper: p\n")
    (tmp_path / "exp" / "nested.yaml").write_text("# @package _global_\nexp:\n  name: nested\n  paper: q\n")
    cfg = compose("flat", ["results.root=R"], conf_dir=tmp_path)
    assert (cfg.exp.paper, cfg.results.root) == ("p", "R")
    cfg = compose("nested", ["exp.paper=z"], conf_dir=tmp_path)
    assert (cfg.exp.name, cfg.exp.paper) == ("nested", "z")
    # an experiment file extending another: its defaults first, then its own body
    (tmp_path / "protocol").mkdir()
    (tmp_path / "protocol" / "kfold.yaml").write_text("name: kfold\nn_splits: 5\n")
    (tmp_path / "exp" / "base.yaml").write_text("defaults:\n  - /protocol: kfold\n  - _self_\nname: base\npaper: p\n"
                                               "protocol: {n_splits: 10}\n")
    (tmp_path / "exp" / "child.yaml").write_text("defaults:\n  - base\n  - _self_\nname: child\n")
    cfg = compose("child", conf_dir=tmp_path)
    assert (cfg.exp.name, cfg.exp.paper, cfg.exp.protocol.n_splits) == ("child", "p", 10)
    # errors are one-line ConfigErrors naming the field
    with pytest.raises(ConfigError, match="exp has no 'n_trial'"):
        compose("flat", ["exp.n_trial=2"], conf_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"Could not override 'exp.methods.x'.*use \+exp.methods.x=1"):
        compose("flat", ["exp.methods.x=1"], conf_dir=tmp_path)


def test_provenance_helpers(tmp_path):
    assert git_commit(tmp_path) == "unknown"
    assert read_run_info(tmp_path) is None
    (tmp_path / "run_info.json").write_text("[1]")
    with pytest.raises(ValueError, match="JSON object"):
        read_run_info(tmp_path)


@pytest.mark.parametrize("exp", experiment_names())
def test_report_config_is_the_runners(exp):
    """csrepro.config.compose (the report's composition of conf/exp/<exp>.yaml) is the runner's Hydra composition
    of ``+exp=<exp>``, value for value (interpolations unresolved) and flag for flag, and validates: as
    validate_config is a function of the config, the two validate to the same config (validated once, by the
    report's call: the validation of the largest experiments takes seconds)."""
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        runner = hydra_compose("config", overrides=[f"+exp={exp}"])
    report = compose(exp)
    assert OmegaConf.to_container(report) == OmegaConf.to_container(runner)
    assert (OmegaConf.is_struct(report), OmegaConf.is_readonly(report)) == (OmegaConf.is_struct(runner),
                                                                             OmegaConf.is_readonly(runner))
    assert compose(exp, metric_names=METRICS).exp.name == runner.exp.name
