"""Reduced-scale regression of Appel, Burgos-Artizzu & Perona 2016 (REBEL) through the real runner and report.

Fig. 4: conf/exp/rebel_uci.yaml on glass and vowel with 3 trials (CW-Boost capped at :data:`CW_COLUMNS` columns
instead of 200: it was three quarters of the run) against experiments/rebel/published.csv by the shared tolerance
rule.  Fig. 3: conf/exp/rebel_synthetic.yaml on 2 datasets x 3 cost matrices, the win fraction
written by experiments/rebel/figures.py beside the published 90 %.
"""

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from csrepro.report.compare import tolerance

ROOT = Path(__file__).resolve().parents[3]
UCI = ["glass", "vowel"]
BASELINES = ["adaboost_mh", "ova_adaboost", "adaboost_ecc", "cw_boost", "aoso_logitboost"]
#: CW-Boost's column cap in the reduced run (the experiment's: 200)
CW_COLUMNS = 50


@pytest.fixture(scope="module")
def uci(run_reduced):
    return run_reduced("rebel_uci", ["exp.n_trials=3", f"exp.datasets=[{','.join(UCI)}]",
                                     f"exp.methods.cw_boost.n_estimators={CW_COLUMNS}"], needs=UCI)


@pytest.fixture(scope="module")
def synthetic(run_reduced):
    return run_reduced("rebel_synthetic", ["exp.n_trials=3", "exp.datasets=[rebel_synth_0,rebel_synth_1]"])


def test_fig4_cells_are_compared_with_the_published_ones(uci):
    rows, comparison, _ = uci
    assert len(rows) == 3 * len(UCI) * (1 + len(BASELINES))
    assert rows["selected"].str.contains('"n_estimators"').all()  # rounds picked on validation, every trial
    for dataset in UCI:
        for method in ["rebel", *BASELINES]:
            cell = comparison.loc[("Fig. 4", dataset, method)]
            assert cell["n_trials"] == 3
            assert abs(cell["reproduced"] - cell["published"]) < 2.0 * cell["published"]  # percent, not a fraction
            assert cell["tolerance"] == pytest.approx(tolerance(cell["published"], None, cell["reproduced_se"]))


def test_rebel_on_glass_is_within_tolerance(uci):
    _, comparison, _ = uci
    assert bool(comparison.loc[("Fig. 4", "glass", "rebel"), "within"])


def test_fig3_win_fraction_is_written_beside_the_published_90(synthetic):
    rows, _, out = synthetic
    summary = pd.read_csv(out / "figures" / "figure3_summary.csv").iloc[0]
    assert summary["n_trials"] == 6 and summary["published_win_pct"] == 90
    pairs = rows.pivot_table(index=["dataset", "trial"], columns="method", values="risk")
    assert summary["rebel_wins"] == int((pairs["rebel"] < pairs["rebel_standard"]).sum())
    assert (out / "figures" / "figure3.png").is_file()


@pytest.mark.xfail(reason="not reproduced yet: on our mixtures the cost-neutral REBEL + posteriors + Bayes rule "
                          "beats cost-trained REBEL in most trials (experiments/rebel/NOTES.md, Synthetic data)",
                   strict=True)
def test_fig3_rebel_wins_most_trials(synthetic):
    _, _, out = synthetic
    summary = pd.read_csv(out / "figures" / "figure3_summary.csv").iloc[0]
    assert summary["win_pct"] >= 0.9 * 90


def test_figure_module_exports_figure3():
    spec = importlib.util.spec_from_file_location("rebel_figures", ROOT / "experiments" / "rebel" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert set(module.FIGURES) == {"figure3"}
