"""Reduced-scale runs of Tables VI.1-VI.4 (conf/exp/cs_boost_uci_{stumps,trees}.yaml) through the runner and report.

One small dataset (echocardiogram, 62 examples), two of the ten outer folds, a few methods with
fewer iterations: checks the wiring (rate ids combined per column, fold means scaled to totals,
errors = misses + false positives, rank/wins hook writing comparison rows), not the numbers.
"""

from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import open_dict

from csrepro.data.loaders import resolve_data_root
from csrepro.report.__main__ import Provenance, report_experiment
from csrepro.runner import run_experiment

ROOT = Path(__file__).resolve().parents[2]
DATASET = "echocardiogram"


def _mirror_has(dataset):
    try:
        root = resolve_data_root(None)
    except Exception:
        return False
    return root is not None and (Path(root) / dataset).is_dir()


pytestmark = pytest.mark.skipif(not _mirror_has(DATASET), reason=f"data mirror with {DATASET} not found")


def _run(tmp_path, exp, keep, n_estimators):
    overrides = [f"+exp={exp}", f"exp.datasets=[{DATASET}]", "exp.n_trials=2", f"results.root={tmp_path}",
                 "runner.n_jobs=1", "runner.progress=false"]
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        cfg = compose("config", overrides=overrides)
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
    for column in keep:  # cell = 10 x mean over the two folds of the rate-averaged errors
        ids = rows[rows["method"].str.startswith(column + "[")]
        assert got[column] == pytest.approx(10 * ids.groupby("trial")["errors"].mean().mean())
    merged = pd.read_csv(out / "comparison.csv")
    assert {"Table VI.2" if table == "Table VI.1" else "Table VI.4"} <= set(merged["table"])
    assert (out / "figures" / "rank_per_detection_rate.png").is_file()
