"""Table options ``combine`` (average several method ids per trial) and ``scale`` (Table V.2 style totals)."""

import numpy as np
import pandas as pd
import pytest

from csrepro.report.tables import TableSpec, reproduce, table_specs

#: method "m" at two rates r1, r2 on dataset "a": per-trial means 2, 4, 6; "b" has trial 2 only at r1
ERRORS = {("a", "m_r1"): [1.0, 3.0, 5.0], ("a", "m_r2"): [3.0, 5.0, 7.0], ("a", "s"): [2.0, 2.0, 2.0],
          ("b", "m_r1"): [1.0, 1.0, 9.0], ("b", "m_r2"): [1.0, 1.0], ("b", "s"): [0.0, 0.0, 0.0]}


def store():
    return pd.DataFrame([{"dataset": d, "method": m, "trial": t, "errors": v}
                         for (d, m), vals in ERRORS.items() for t, v in enumerate(vals)])


def cell(cells, row, col):
    return cells.set_index(["row", "column"]).loc[(row, col)]


def test_combine_averages_per_trial_and_needs_every_member():
    spec = TableSpec(id="T", metric="errors", rows=["a", "b"], columns=["m", "s"], avg_rank=False,
                     combine={"m": ["m_r1", "m_r2"]})
    cells = reproduce(store(), spec)
    assert cell(cells, "a", "m")["reproduced"] == pytest.approx(4.0)
    assert cell(cells, "a", "m")["reproduced_se"] == pytest.approx(2.0 / np.sqrt(3))  # sd 2 of 2, 4, 6
    b = cell(cells, "b", "m")
    assert (b["reproduced"], b["n"]) == (pytest.approx(1.0), 2)  # trial 2 lacks m_r2: left out
    assert cell(cells, "a", "s")["reproduced"] == pytest.approx(2.0)  # a column without combine is unchanged


def test_scale_multiplies_mean_and_se_not_bolding():
    base = TableSpec(id="T", metric="errors", rows=["a"], columns=["m", "s"], avg_rank=False,
                     combine={"m": ["m_r1", "m_r2"]})
    scaled = TableSpec(**{**base.__dict__, "scale": 10.0})
    c0, c1 = reproduce(store(), base), reproduce(store(), scaled)
    np.testing.assert_allclose(c1["reproduced"], 10 * c0["reproduced"])
    np.testing.assert_allclose(c1["reproduced_se"], 10 * c0["reproduced_se"])
    assert list(c1["bold"]) == list(c0["bold"])


def test_scale_trials_gives_totals_over_each_cells_trials():
    """``scale: trials``: each cell times its own number of trials (a leave-one-out total whatever the set size)."""
    spec = TableSpec(id="T", metric="errors", rows=["a", "b"], columns=["m", "s"], avg_rank=False,
                     combine={"m": ["m_r1", "m_r2"]}, scale="trials")
    cells = reproduce(store(), spec)
    assert cell(cells, "a", "m")["reproduced"] == pytest.approx(12.0)  # 2 + 4 + 6
    assert cell(cells, "b", "m")["reproduced"] == pytest.approx(2.0)  # two complete trials: 1 + 1
    assert cell(cells, "a", "m")["reproduced_se"] == pytest.approx(3 * 2.0 / np.sqrt(3))
    with pytest.raises(ValueError, match="scale 'trials' is for tables of kind 'cells'"):
        TableSpec(id="T", metric="errors", rows=["a"], columns=["m"], scale="trials", kind="derived")


def test_spec_from_config_and_invalid_options():
    empty = pd.DataFrame(columns=["table", "row", "column", "unit", "row_label", "column_label"])
    (spec,) = table_specs([{"id": "T", "metric": "errors", "rows": ["a"], "columns": ["m"], "scale": 5,
                            "combine": {"m": ("m_r1", "m_r2")}}], empty)
    assert (spec.scale, spec.combine) == (5, {"m": ["m_r1", "m_r2"]})
    with pytest.raises(ValueError, match="two columns"):
        TableSpec(id="T", metric="errors", rows=["a"], columns=["m", "s"], combine={"m": ["s"]})
    for bad in (0, "all"):
        with pytest.raises(ValueError, match="scale"):
            TableSpec(id="T", metric="errors", rows=["a"], columns=["m"], scale=bad)
