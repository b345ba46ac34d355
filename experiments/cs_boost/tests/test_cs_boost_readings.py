"""experiments/cs_boost/cs_boost_readings.py: the protocol_unstated rule on a hand case, and every
protocol_unstated cell of deviations.csv against the stored run its evidence names."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("cs_boost_readings", HERE / "cs_boost_readings.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_moved_cells_by_hand():
    """Published 100, SE 5 (tolerance max(2*5, 10) = 10): a run at 95 from a baseline at 130 is within; a run
    at 85 from 160 closes 75 % of the gap; a run at 88 from 120 closes 40 % and stays outside; a baseline at
    105 is already within, so nothing is moved; a run at 91 from 111.25 is within but closes 20 %, too little."""
    mod = _module()
    alt = pd.DataFrame({"table": ["T"] * 5, "row": ["a", "b", "c", "d", "e"], "column": ["m"] * 5,
                        "published": [100.0] * 5, "reproduced": [95.0, 85.0, 88.0, 100.0, 91.0],
                        "reproduced_se": [5.0] * 5, "tenfold": [130.0, 160.0, 120.0, 105.0, 111.25]})
    got = mod.moved_cells(alt)
    assert got["row"].tolist() == ["a", "b"]
    assert np.allclose(got["share_closed"], [25 / 30, 0.75])
    base = alt[["table", "row", "column"]].assign(reproduced=[100.0, 100.0, 100.0, 130.0, 100.0])
    assert mod.moved_cells(alt, base)["row"].tolist() == ["d"]
    assert mod.moved_cells(alt, alt).empty  # nothing moves from itself: no rows, not one empty row per cell


def test_moved_cells_must_move_towards_the_published_cell_from_the_owners_side():
    """Published 100, tolerance 10: a run at 95 from a 10-fold baseline at 80 moves up; it counts when the
    leave-one-out owner is below 100 (row a, 85), not when it is above (row b, 120: moving up widens its gap)."""
    alt = pd.DataFrame({"table": ["T"] * 2, "row": ["a", "b"], "column": ["m"] * 2, "published": [100.0] * 2,
                        "reproduced": [95.0] * 2, "reproduced_se": [5.0] * 2, "tenfold": [80.0] * 2,
                        "loo": [85.0, 120.0]})
    assert _module().moved_cells(alt)["row"].tolist() == ["a"]


def test_protocol_unstated_cells_are_moved_by_the_stored_run():
    """Each protocol_unstated row names its run (and, second, its baseline run) among its evidence; the rule
    of moved_cells holds for that cell on the stored files."""
    mod = _module()
    ledger = pd.read_csv(HERE / "deviations.csv", dtype=str, keep_default_na=False)
    rows = ledger[ledger["cause"] == "protocol_unstated"]
    for _, r in rows.iterrows():
        runs = [ref for ref in r["evidence"].split(" + ") if ref.startswith("results/alt/cs_boost_readings/")]
        assert runs, r.tolist()
        alt = pd.read_csv(ROOT / runs[0], dtype={"row": str, "column": str})
        base = pd.read_csv(ROOT / runs[1], dtype={"row": str, "column": str}) if len(runs) > 1 else None
        moved = mod.moved_cells(alt, base)
        hit = (moved["table"] == r["table"]) & (moved["row"] == r["row"]) & (moved["column"] == r["column"])
        assert hit.sum() == 1, r.tolist()


def test_parse_setting():
    """--set's COLUMN.PARAM=VALUE, the value read as YAML; anything else is refused (None)."""
    parse = _module().parse_setting
    assert parse("cs_ada.class_balanced=false") == ("cs_ada", "class_balanced", False)
    assert parse("cs_ada.param_grid={C1: [1, 2.5]}") == ("cs_ada", "param_grid", {"C1": [1, 2.5]})
    assert parse("rforest.max_leaf_nodes=null") == ("rforest", "max_leaf_nodes", None)
    assert [parse(t) for t in ("cs_ada", "cs_ada=1", ".x=1", "cs_ada.=1")] == [None] * 4


def test_protocol_unstated_details_quote_their_stored_run():
    """The numbers a protocol_unstated row's detail gives (the reading's value, its SE, the published cell) are
    those of the stored run its evidence names first, not typed in."""
    ledger = pd.read_csv(HERE / "deviations.csv", dtype=str, keep_default_na=False)
    rows = ledger[ledger["cause"] == "protocol_unstated"]
    assert len(rows)
    for _, r in rows.iterrows():
        run = next(ref for ref in r["evidence"].split(" + ") if ref.startswith("results/alt/cs_boost_readings/"))
        alt = pd.read_csv(ROOT / run, dtype={"row": str, "column": str})
        cell = alt[(alt["table"] == r["table"]) & (alt["row"] == r["row"]) & (alt["column"] == r["column"])].iloc[0]
        quoted = f"{cell['reproduced']:.2f} (SE {cell['reproduced_se']:.2f}) vs published {cell['published']:g}"
        assert quoted in r["detail"], (r.tolist(), quoted)


def test_data_readings_by_hand():
    """--wdbc-means keeps wdbc's first ten columns (the means; then ten standard errors, ten worst values);
    --tictactoe-ordinal turns each square's three one-hot columns (b, o, x) into its code 0, 1, 2."""
    mod = _module()
    assert set(mod.DATA_READINGS) == {"tictactoe_ordinal", "wdbc_means"}
    dataset, transform = mod.DATA_READINGS["wdbc_means"]
    X = np.arange(60.0).reshape(2, 30)
    assert dataset == "wdbc" and np.array_equal(transform(X), X[:, :10])
    dataset, transform = mod.DATA_READINGS["tictactoe_ordinal"]
    board = np.zeros((1, 27))
    board[0, [0, 4, 8] + [3 * k for k in range(3, 9)]] = 1  # squares 0, 1, 2 hold b, o, x; the rest b
    assert dataset == "tictactoe" and transform(board).tolist() == [[0, 1, 2, 0, 0, 0, 0, 0, 0]]
