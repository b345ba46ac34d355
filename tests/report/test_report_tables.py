"""Table cells from a synthetic store: mean ± SE, t-test bolding, average ranks with ties, rendering."""

import numpy as np
import pandas as pd
import pytest

from csrepro.report.tables import (
    AVG_RANK,
    TableSpec,
    latest_trials,
    render_latex,
    render_markdown,
    reproduce,
    table_specs,
)

NAN = np.nan
BASE = np.array([1.0, 2.0, 3.0, 4.0])
#: dataset "a": m2 = m1 + about 1 (t ~ 24, p ~ 1.5e-4: worse), m3 = m1 + noise of mean 0.05 (p ~ 0.87: tie)
#: dataset "b": m3 identical to m1 (rank tie), m2 = m1 - 0.5 constantly (best, the others p = 0)
RISKS = {
    ("a", "m1"): BASE,
    ("a", "m2"): BASE + [1.0, 1.1, 0.9, 1.0],
    ("a", "m3"): BASE + [0.5, -0.5, 0.6, -0.4],
    ("b", "m1"): BASE,
    ("b", "m2"): BASE - 0.5,
    ("b", "m3"): BASE,
}


def make_store(risks=RISKS):
    rows = [{"exp": "toy", "paper": "toy", "dataset": d, "method": m, "trial": t, "risk": v, "error": 0.0}
            for (d, m), vals in risks.items() for t, v in enumerate(vals)]
    return pd.DataFrame(rows)


SPEC = TableSpec(id="T", metric="risk", rows=["a", "b"], columns=["m1", "m2", "m3"])


def cell(cells, row, col):
    return cells.set_index(["row", "column"]).loc[(row, col)]


def test_mean_se_n_by_hand():
    cells = reproduce(make_store(), SPEC)
    c = cell(cells, "a", "m1")
    assert c["reproduced"] == pytest.approx(2.5)
    assert c["reproduced_se"] == pytest.approx(np.sqrt(5 / 3) / 2)  # sd (ddof=1) of 1..4 over sqrt(4)
    assert c["n"] == 4
    assert cell(cells, "a", "m2")["reproduced"] == pytest.approx(3.5)
    assert cell(cells, "a", "m3")["reproduced"] == pytest.approx(2.55)
    assert set(cells["table"]) == {"T"}


def test_bold_paired_ttest_significant_and_not():
    cells = reproduce(make_store(), SPEC)
    assert cell(cells, "a", "m1")["bold"]  # best mean
    assert not cell(cells, "a", "m2")["bold"]  # significantly worse (p ~ 1.5e-4)
    assert cell(cells, "a", "m3")["bold"]  # not significantly worse (p ~ 0.87)
    assert cell(cells, "b", "m2")["bold"]
    assert not cell(cells, "b", "m1")["bold"] and not cell(cells, "b", "m3")["bold"]


def test_bold_needs_two_shared_trials():
    risks = {("a", "m1"): [1.0], ("a", "m2"): [2.0]}
    cells = reproduce(make_store(risks), TableSpec(id="T", metric="risk", rows=["a"], columns=["m1", "m2"]))
    assert not cells["bold"].any()
    assert np.isnan(cell(cells, "a", "m1")["reproduced_se"])


def test_average_rank_with_ties():
    cells = reproduce(make_store(), SPEC)
    ranks = cells[cells["row"] == AVG_RANK].set_index("column")["reproduced"]
    # a: m1 2.5 < m3 2.55 < m2 3.5 -> 1, 3, 2 ; b: m2 best, m1 = m3 tie -> 2.5, 1, 2.5
    np.testing.assert_allclose(ranks[["m1", "m2", "m3"]], [(1 + 2.5) / 2, (3 + 1) / 2, (2 + 2.5) / 2])


def test_average_rank_left_out_until_table_complete():
    risks = {k: v for k, v in RISKS.items() if k != ("b", "m3")}
    cells = reproduce(make_store(risks), SPEC)
    assert AVG_RANK not in set(cells["row"])
    assert len(cells) == 5


def test_latest_trial_wins_and_metric_checked():
    store = make_store({("a", "m1"): [1.0, 2.0]})
    rerun = store.iloc[[0]].assign(risk=5.0, finished_at="2025-02-01")
    store = pd.concat([store.assign(finished_at="2025-01-01"), rerun], ignore_index=True)
    assert latest_trials(store)["risk"].tolist() == [2.0, 5.0]
    spec = TableSpec(id="T", metric="risk", rows=["a"], columns=["m1"], avg_rank=False)
    assert cell(reproduce(store, spec), "a", "m1")["reproduced"] == pytest.approx(3.5)
    with pytest.raises(ValueError, match="no 'g_mean' column"):
        reproduce(store, TableSpec(id="T", metric="g_mean", rows=["a"], columns=["m1"]))


def published_toy():
    rows = [("T", "a", "m1", 2.5, 0.6, "se", "risk", "Toy, p. 1", "Set A", "M-1", True),
            ("T", "a", "m2", 1.0, 0.01, "se", "risk", "Toy, p. 1", "Set A", "M_2", False),
            ("T", AVG_RANK, "m1", 1.0, NAN, "", "rank", "Toy, p. 1", "Avg. Rank", "M-1", False)]
    return pd.DataFrame(rows, columns=["table", "row", "column", "value", "spread", "spread_kind", "unit",
                                       "source", "row_label", "column_label", "bold"])


def test_table_specs_default_to_published_and_config_overrides():
    pub = published_toy()
    (spec,) = table_specs(None, pub)
    assert (spec.id, spec.metric, spec.rows, spec.columns, spec.avg_rank) == ("T", "risk", ["a"], ["m1", "m2"], True)
    assert spec.row_label("a") == "Set A" and spec.column_label("m2") == "M_2" and spec.slug == "t"
    specs = table_specs([{"id": "Table 9", "metric": "error", "column_labels": {"m1": "One"}}], pub,
                        datasets=["x"], methods=["m1"])
    assert [s.id for s in specs] == ["Table 9"]  # named tables only; unnamed ones are not appended
    assert (specs[0].rows, specs[0].columns, specs[0].column_label("m1"), specs[0].avg_rank) == (
        ["x"], ["m1"], "One", True)
    with pytest.raises(ValueError, match="no id"):
        table_specs([{"metric": "risk"}], pub)


def test_render_markdown_and_latex():
    store = make_store({k: v for k, v in RISKS.items() if k[0] == "a" and k[1] != "m3"})
    pub = published_toy()
    (spec,) = table_specs(None, pub)
    cells = reproduce(store, spec)
    md = render_markdown(spec, cells, pub)
    # a/m1: 2.50 ± 0.65 vs published 2.5 (within, bold); a/m2: 3.50 vs 1.00 (outside: †)
    assert "| Set A | rep | 4 | **2.50 ± 0.65** | 3.50 ± 0.63† |" in md
    assert "|  | pub |  | **2.50 ± 0.60** | 1.00 ± 0.01 |" in md
    assert "| Avg. Rank | rep |  | 1.00 | 2.00 |" in md
    assert "|  | pub |  | 1.00 | — |" in md
    tex = render_latex(spec, cells, pub)
    assert r"Set A & rep & 4 & \textbf{2.50 $\pm$ 0.65} & 3.50 $\pm$ 0.63$^\dagger$ \\" in tex
    assert r"M-1 & M\_2" in tex and r"\midrule" + "\nAvg. Rank" in tex and "Toy, p. 1" in tex


def test_report_inlines_markdown_tables_shows_images_and_links_data(tmp_path):
    """What a paper's figures.py returns goes into REPORT.md by kind: a Markdown table inline under its name,
    an image shown, any other file (a figure's CSV) linked -- never a CSV as an image."""
    from csrepro.report.build import _figure_lines

    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "chosen_settings.md").write_text("| method | depth |\n|---|---|\n| rebel | 2 |\n")
    paths = [figures / "cd.png", figures / "chosen_settings.md", figures / "chosen_settings.csv"]
    assert _figure_lines(paths, tmp_path) == [
        "## Chosen settings", "", "| method | depth |\n|---|---|\n| rebel | 2 |", "",
        "## Figures", "", "![cd](figures/cd.png)", "[chosen_settings.csv](figures/chosen_settings.csv)"]
