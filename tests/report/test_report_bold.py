"""A table's ``bold`` rule: "not_worse" (the best and every method not significantly worse) or "significant_best"
(Koço & Capponi 2013: the best alone, where significantly better than every other method)."""

import pandas as pd
import pytest

from csrepro.report.compare import PUBLISHED_COLUMNS
from csrepro.report.tables import TableSpec, render_markdown, reproduce, table_specs

PUBLISHED = PUBLISHED_COLUMNS + ["bold"]

#: dataset "sep": "a" clearly lowest; dataset "tie": "a" and "b" inseparable, "c" clearly worse
ERRORS = {("sep", "a"): [1.0, 1.1, 0.9, 1.0], ("sep", "b"): [2.0, 2.2, 2.1, 1.9], ("sep", "c"): [3.0, 3.1, 2.9, 3.2],
          ("tie", "a"): [1.0, 2.0, 1.0, 2.0], ("tie", "b"): [2.0, 1.0, 2.0, 1.1], ("tie", "c"): [5.0, 5.1, 4.9, 5.2]}


def store():
    return pd.DataFrame([{"dataset": d, "method": m, "trial": t, "errors": v}
                         for (d, m), vals in ERRORS.items() for t, v in enumerate(vals)])


def bold_cells(rule):
    spec = TableSpec(id="T", metric="errors", rows=["sep", "tie"], columns=["a", "b", "c"], avg_rank=False,
                     bold=rule)
    cells = reproduce(store(), spec)
    return spec, cells, sorted(map(tuple, cells.loc[cells["bold"], ["row", "column"]].to_numpy()))


def test_not_worse_bolds_every_method_tied_with_the_best():
    assert bold_cells("not_worse")[2] == [("sep", "a"), ("tie", "a"), ("tie", "b")]


def test_significant_best_bolds_one_cell_at_most_per_row():
    spec, cells, bold = bold_cells("significant_best")
    assert bold == [("sep", "a")]  # on "tie" the best mean is not significantly better than "b": no bold
    legend = render_markdown(spec, cells, pd.DataFrame(columns=PUBLISHED))
    assert "the best mean alone, where significantly better than every other method" in legend


def test_unknown_bold_rule_is_refused_by_name():
    with pytest.raises(ValueError, match=r"bold='paper' is not a bold rule; use one of"):
        table_specs([{"id": "T", "metric": "errors", "rows": ["a"], "columns": ["m"], "bold": "paper"}],
                    pd.DataFrame(columns=PUBLISHED), ["a"], ["m"])
