"""Tolerance rule, published.csv loading and comparison.csv rows."""

import numpy as np
import pandas as pd
import pytest

from csrepro.report.compare import (
    COMPARISON_COLUMNS,
    compare,
    load_published,
    tolerance,
    within,
)

NAN = np.nan


@pytest.mark.parametrize(
    "pub, se_pub, se_rep, expected",
    [
        (1.0, 0.06, 0.08, 0.2),  # 2*sqrt(0.0036 + 0.0064) = 0.2 > 0.1
        (2.0, NAN, NAN, 0.2),  # no SEs: 10% of |pub|
        (1.0, 0.03, NAN, 0.1),  # 2*0.03 = 0.06 < 0.1
        (0.5, NAN, 0.1, 0.2),  # only the reproduced SE: 2*0.1
        (-3.0, NAN, NAN, 0.3),  # |pub|
        (0.26, 0.0, 0.0, 0.026),  # published SE printed as 0.00
    ],
)
def test_tolerance_hand_cases(pub, se_pub, se_rep, expected):
    assert tolerance(pub, se_pub, se_rep) == pytest.approx(expected)


def test_tolerance_is_vectorised():
    got = tolerance([1.0, 2.0], [0.06, NAN], [0.08, NAN])
    np.testing.assert_allclose(got, [0.2, 0.2])


def test_within_boundary():
    assert within(1.0, 1.19, 0.06, 0.08)
    assert within(1.0, 0.81, 0.06, 0.08)
    assert not within(1.0, 1.21, 0.06, 0.08)
    assert not within(2.0, 1.79, NAN, NAN)
    assert within(2.0, 2.19, NAN, NAN)


def _published(rows):
    return pd.DataFrame(rows, columns=["table", "row", "column", "value", "spread", "spread_kind"])


def test_compare_rows_per_published_cell():
    pub = _published([("T", "a", "m1", 1.0, 0.06, "se"), ("T", "a", "m2", 2.0, 0.5, "sd"),
                      ("T", "b", "m1", 1.0, NAN, "")])
    rep = pd.DataFrame({"table": ["T", "T", "T"], "row": ["a", "a", "x"], "column": ["m1", "m2", "m1"],
                        "reproduced": [1.25, 2.15, 9.0], "reproduced_se": [0.08, 0.05, 0.1]})
    out = compare(pub, rep)
    assert list(out.columns) == COMPARISON_COLUMNS
    assert len(out) == 3  # the reproduced-only cell ("x", "m1") has no published value: not a row
    np.testing.assert_allclose(out["tolerance"], [0.2, 0.2, 0.1])  # an SD is not an SE: 2*0.05 < 10% of 2
    assert out["within"].tolist()[:2] == [False, True]
    assert out["within"].isna().tolist() == [False, False, True]
    assert np.isnan(out["reproduced"].iloc[2])


def test_load_published_parses_and_rejects(tmp_path):
    path = tmp_path / "published.csv"
    header = "table,row,column,value,spread,spread_kind,unit,source,row_label,column_label"
    path.write_text(f"{header},bold\nT,a,m,1.50,0.05,se,risk,src,A,M,true\nT,r,m,2.0,,,rank,src,R,M,false\n")
    df = load_published(path)
    assert df["bold"].tolist() == [True, False]
    assert df["value"].tolist() == [1.5, 2.0]
    assert df["spread"].iloc[0] == 0.05 and np.isnan(df["spread"].iloc[1])
    assert df["spread_kind"].tolist() == ["se", ""]
    path.write_text(f"{header}\nT,a,m,1.5,0.05,se,risk,src,A,M\nT,a,m,1.6,0.05,se,risk,src,A,M\n")
    with pytest.raises(ValueError, match="more than once"):
        load_published(path)
    path.write_text("table,row,column,value\nT,a,m,1.5\n")
    with pytest.raises(ValueError, match="lacks columns"):
        load_published(path)
