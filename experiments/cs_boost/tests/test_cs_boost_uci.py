"""Reduced-scale runs of Tables VI.1-VI.4 (conf/exp/cs_boost_uci_{stumps,trees}.yaml) through the runner and report.

One small dataset (echocardiogram, 62 examples), two of the ten outer folds, a few methods with
fewer iterations: checks the wiring (rate ids combined per column, fold means scaled to totals,
errors = misses + false positives, rank/wins hook writing comparison rows), not the numbers;
and the leave-one-out configs (conf/exp/cs_boost_uci_{stumps,trees}_loo.yaml): one trial per
example of each set.
"""

from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import open_dict

from csrepro.data.loaders import resolve_data_root
from csrepro.provenance import Provenance
from csrepro.report.build import report_experiment
from csrepro.runner import run_experiment

ROOT = Path(__file__).resolve().parents[3]
DATASET = "echocardiogram"


def _mirror_has(dataset):
    try:
        root = resolve_data_root(None)
    except Exception:
        return False
    return root is not None and (Path(root) / dataset).is_dir()


pytestmark = pytest.mark.skipif(not _mirror_has(DATASET), reason=f"data mirror with {DATASET} not found")


def _compose(overrides):
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        return compose("config", overrides=overrides)


def _run(tmp_path, exp, keep, n_estimators, n_trials="exp.n_trials=2"):
    cfg = _compose([f"+exp={exp}", f"exp.datasets=[{DATASET}]", n_trials, f"results.root={tmp_path}",
                    "runner.n_jobs=1", "runner.progress=false"])
    with open_dict(cfg):
        for key in list(cfg.exp.methods):
            if key not in keep:
                del cfg.exp.methods[key]
            elif "n_estimators" in cfg.exp.methods[key]:
                cfg.exp.methods[key].n_estimators = n_estimators
    rows = run_experiment(cfg, command=f"pytest reduced {exp}")
    fid = report_experiment(exp, cfg, ROOT / "experiments", Provenance("pytest", "test", "test"))
    return rows, fid.comparison, tmp_path / exp


@pytest.mark.parametrize("exp, table, keep, n_est", [
    ("cs_boost_uci_stumps", "Table VI.1", ("cs_ada", "cs_logit", "cs_real", "csb2", "ada"), 10),
    ("cs_boost_uci_trees", "Table VI.3", ("cs_ada", "cs_real", "rforest"), 4),
])
def test_reduced_table(tmp_path, exp, table, keep, n_est):
    rows, comparison, out = _run(tmp_path, exp, keep, n_est)
    assert len(rows) == 2 * 5 * len(keep)  # 2 folds x 5 rates x methods
    assert (rows["errors"] == rows["false_positives"] + rows["misses"]).all()
    cells = comparison[(comparison["table"] == table) & (comparison["row"] == DATASET)].set_index("column")
    got = cells["reproduced"].dropna()
    assert set(got.index) == set(keep)
    for column in keep:  # cell = total over the trials run (scale: trials) of the rate-averaged errors
        ids = rows[rows["method"].str.startswith(column + "[")]
        assert got[column] == pytest.approx(ids.groupby("trial")["errors"].mean().sum())
    merged = pd.read_csv(out / "comparison.csv")
    assert {"Table VI.2" if table == "Table VI.1" else "Table VI.4"} <= set(merged["table"])
    assert (out / "figures" / "rank_per_detection_rate.png").is_file()


@pytest.mark.parametrize("table", ["stumps", "trees"])
def test_loo_configs_test_every_example_once(table):
    cfg = _compose([f"+exp=cs_boost_uci_{table}_loo"])
    base = _compose([f"+exp=cs_boost_uci_{table}"])
    assert cfg.exp.methods == base.exp.methods and cfg.exp.report == base.exp.report
    assert sum(cfg.exp.per_dataset[d].n_trials for d in cfg.exp.datasets) == 4390
    for d in cfg.exp.datasets:
        assert cfg.exp.per_dataset[d].protocol.name == "loo"
        if _mirror_has(d):
            from csrepro.data.loaders import load_dataset
            assert cfg.exp.per_dataset[d].n_trials == len(load_dataset(d).y), d


def test_reduced_loo_pass_gives_totals(tmp_path):
    """Three leave-one-out trials of echocardiogram: one test example each, the cell their total."""
    rows, comparison, _ = _run(tmp_path, "cs_boost_uci_stumps_loo", ("cs_real",), 5,
                               n_trials=f"exp.per_dataset.{DATASET}.n_trials=3")
    assert len(rows) == 3 * 5 and set(rows["n_test"]) == {1}
    cell = comparison[(comparison["table"] == "Table VI.1") & (comparison["row"] == DATASET)
                      & (comparison["column"] == "cs_real")]["reproduced"].item()
    assert cell == pytest.approx(rows.groupby("trial")["errors"].mean().sum())
