"""Tables with one metric per row on one dataset (Koço & Capponi 2013's Table 4 and Sec. 5.3 text): the spec read
off the published units (``metric_per_row``, ``_pct`` at scale 100), the cells, their trial sources, rendering."""

import numpy as np
import pandas as pd
import pytest

from csrepro.report.compare import compare
from csrepro.report.tables import TableSpec, cell_sources, render_markdown, reproduce, table_specs

COLUMNS = ["table", "row", "column", "value", "spread", "spread_kind", "unit", "source", "row_label", "column_label",
           "bold"]


def published():
    rows = [("T4", "d_x_y", "m1", 0.2, np.nan, "", "confusion_0_1", "Toy", "x as y", "M-1", False),
            ("T4", "d_x_y", "m2", 0.1, np.nan, "", "confusion_0_1", "Toy", "x as y", "M-2", False),
            ("T4", "d_y_x", "m1", 0.5, np.nan, "", "confusion_1_0", "Toy", "y as x", "M-1", False),
            ("Text", "d_x", "m1", 50.0, np.nan, "", "class_error_0_pct", "Toy", "error on x", "M-1", False),
            ("Text", "d_y", "m1", 50.0, np.nan, "", "class_error_1_pct", "Toy", "error on y", "M-1", False),
            ("Mixed", "r1", "m1", 1.0, np.nan, "", "class_error_0_pct", "Toy", "r1", "M-1", False),
            ("Mixed", "r2", "m1", 1.0, np.nan, "", "confusion_0_1", "Toy", "r2", "M-1", False)]
    return pd.DataFrame(rows, columns=COLUMNS)


def store():
    """Dataset d, methods m1 / m2, 3 trials each, plus dataset e (must be ignored)."""
    rows = []
    for dataset in ("d", "e"):
        for method, c01, c10 in (("m1", [0.25, 0.5, 0.75], [0.25, 0.5, 0.75]),
                                 ("m2", [0.125, 0.375, 0.625], [0.75, 0.75, 0.75])):
            for t in range(3):
                shift = 0.0 if dataset == "d" else 9.0
                rows.append({"dataset": dataset, "method": method, "trial": t, "confusion_0_1": c01[t] + shift,
                             "confusion_1_0": c10[t] + shift, "class_error_0": c01[t] + shift,
                             "class_error_1": c10[t] + shift})
    return pd.DataFrame(rows)


def cell(cells, row, col):
    return cells.set_index(["row", "column"]).loc[(row, col)]


def test_spec_reads_each_rows_metric_off_the_published_units():
    pub = published()
    t4, text = table_specs([{"id": "T4", "dataset": "d", "metric_per_row": True},
                            {"id": "Text", "dataset": "d", "metric_per_row": True}], pub)
    assert t4.row_metrics == {"d_x_y": "confusion_0_1", "d_y_x": "confusion_1_0"} and t4.scale == 1.0
    assert t4.rows == ["d_x_y", "d_y_x"] and t4.dataset == "d" and not t4.avg_rank
    assert text.row_metrics == {"d_x": "class_error_0", "d_y": "class_error_1"} and text.scale == 100
    (named,) = table_specs([{"id": "T4", "dataset": "d", "row_metrics": {"d_x_y": "class_error_0",
                                                                         "d_y_x": "class_error_1"}}], pub)
    assert named.row_metrics["d_x_y"] == "class_error_0"
    with pytest.raises(ValueError, match="mix percents"):
        table_specs([{"id": "Mixed", "dataset": "d", "metric_per_row": True}], pub)
    with pytest.raises(ValueError, match="needs a dataset"):
        TableSpec(id="X", metric="m", rows=["r"], columns=["m1"], row_metrics={"r": "error"})
    with pytest.raises(ValueError, match=r"rows \['s'\] have no metric"):
        TableSpec(id="X", metric="m", rows=["r", "s"], columns=["m1"], dataset="d", row_metrics={"r": "error"})


def test_cells_are_each_rows_metric_on_the_one_dataset():
    pub = published()
    t4, text = table_specs([{"id": "T4", "dataset": "d", "metric_per_row": True},
                            {"id": "Text", "dataset": "d", "metric_per_row": True}], pub)
    cells = reproduce(store(), t4)
    assert cell(cells, "d_x_y", "m1")["reproduced"] == pytest.approx(0.5)  # mean of .25, .5, .75 on d only
    assert cell(cells, "d_x_y", "m1")["reproduced_se"] == pytest.approx(0.25 / np.sqrt(3))
    assert cell(cells, "d_y_x", "m2")["reproduced"] == pytest.approx(0.75) and cell(cells, "d_y_x", "m2")["n"] == 3
    # bold per row, lower is better: m2 is 1/8 below m1 in every trial of d_x_y (a constant shift, p = 0)
    assert cell(cells, "d_x_y", "m2")["bold"] and not cell(cells, "d_x_y", "m1")["bold"]
    pct = reproduce(store(), text)
    assert cell(pct, "d_x", "m1")["reproduced"] == pytest.approx(50.0)  # x 100
    assert cell(pct, "d_y", "m1")["reproduced_se"] == pytest.approx(100 * 0.25 / np.sqrt(3))
    comp = compare(pub[pub["table"] == "Text"], pct).set_index(["row", "column"])
    assert comp.loc[("d_x", "m1"), "within"] and comp.loc[("d_y", "m1"), "within"]
    sources = cell_sources(t4)
    assert sources[("d_x_y", "m1")] == (["d"], ["m1"]) and sources[("d_y_x", "m2")] == (["d"], ["m2"])
    with pytest.raises(ValueError, match="no 'confusion_1_0' column"):
        reproduce(store().drop(columns="confusion_1_0"), t4)


def test_row_metric_tables_render_with_their_row_labels_and_metrics():
    pub = published()
    (t4,) = table_specs([{"id": "T4", "dataset": "d", "metric_per_row": True, "metric": "C_S entry",
                          "decimals": 3}], pub)
    md = render_markdown(t4, reproduce(store(), t4), pub)
    assert md.startswith("**T4** (C_S entry)")
    assert "| x as y | rep | 3 | 0.500 ± 0.144† | **0.375 ± 0.144** |" in md  # published 0.2 (outside), 0.1 (within)
    assert "|  | pub |  | 0.200 | 0.100 |" in md
    assert "every row is dataset d, row -> metric: d_x_y: confusion_0_1, d_y_x: confusion_1_0" in md
