"""Derived report tables (rank-1 value, best over a grid, largest gain over a reference, wins per group) and the
thesis figures, on hand-made stores."""

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from csrepro.report.derived import family_values
from csrepro.report.figures import make_figures
from csrepro.report.tables import cell_sources, render_markdown, reproduce, table_specs

METHODS = {"fam": {"method": "mcboost", "grid": {"n_estimators": [1, 2, 3]}}, "mcboost": {}}


def store_of(means: dict) -> pd.DataFrame:
    """Two trials per (dataset, method): mean +- 0.01."""
    rows = [{"dataset": d, "method": m, "trial": t, "error": v + (0.01 if t else -0.01), "finished_at": "x"}
            for (d, m), v in means.items() for t in (0, 1)]
    return pd.DataFrame(rows)


def cells(spec, store):
    return reproduce(store, spec).set_index(["row", "column"])["reproduced"]


def test_family_values_and_derived_stats():
    families = family_values(METHODS)
    assert families == {"fam": {"fam[n_estimators=1]": 1, "fam[n_estimators=2]": 2, "fam[n_estimators=3]": 3}}
    store = store_of({("d1", "fam[n_estimators=1]"): 0.3, ("d1", "fam[n_estimators=2]"): 0.1,
                      ("d1", "fam[n_estimators=3]"): 0.1, ("d1", "mcboost"): 0.25})
    entry = {"id": "T", "kind": "derived", "metric": "error", "rows": ["d1"], "scale": 100,
             "columns": ["best", "best_a", "gain", "gain_a", "mcboost"],
             "derive": {"best": {"stat": "min", "family": "fam"}, "best_a": {"stat": "argmin", "family": "fam"},
                        "gain": {"stat": "max_gain", "family": "fam", "reference": "mcboost"},
                        "gain_a": {"stat": "argmax_gain", "family": "fam", "reference": "mcboost"}}}
    spec = table_specs([entry], pd.DataFrame(columns=["table", "row", "column", "row_label", "column_label", "unit"]),
                       families=families)[0]
    got = cells(spec, store)
    assert got[("d1", "best")] == pytest.approx(10) and got[("d1", "best_a")] == 2  # tie: first in grid order
    assert got[("d1", "gain")] == pytest.approx(15) and got[("d1", "gain_a")] == 2
    assert got[("d1", "mcboost")] == pytest.approx(25)
    se = reproduce(store, spec).set_index("column")["reproduced_se"]
    assert se["gain"] == pytest.approx(0.0) and np.isnan(se["best_a"]) and se["best"] == pytest.approx(1.0)
    incomplete = store[store["method"] != "fam[n_estimators=3]"]
    assert ("d1", "best") not in cells(spec, incomplete).index  # a family cell needs every member


def test_win_fraction_pools_a_group_of_datasets():
    """Fig. 3's cell: trials where the method is strictly below the reference, pooled over datasets (3 of 5 here:
    a tie is no win, a trial without the reference does not count)."""
    rows = [("s0", 0, 0.1, 0.2), ("s0", 1, 0.3, 0.3), ("s1", 0, 0.1, 0.5), ("s1", 1, 0.4, 0.2), ("s1", 2, 0.1, 0.9),
            ("s2", 0, 0.1, None)]
    store = pd.DataFrame([{"dataset": d, "method": m, "trial": t, "risk": v, "finished_at": "x"}
                          for d, t, a, b in rows for m, v in (("rebel", a), ("standard", b)) if v is not None])
    entry = {"id": "F", "kind": "derived", "metric": "risk", "rows": ["pooled"], "columns": ["rebel"], "scale": 100,
             "groups": {"pooled": ["s0", "s1", "s2"]},
             "derive": {"rebel": {"stat": "win_fraction", "reference": "standard"}}}
    spec = table_specs([entry], pd.DataFrame(columns=["table", "row", "column", "row_label", "column_label", "unit"]))[0]
    out = reproduce(store, spec).set_index(["row", "column"])
    assert out.loc[("pooled", "rebel"), "reproduced"] == pytest.approx(60.0)
    assert out.loc[("pooled", "rebel"), "reproduced_se"] == pytest.approx(100 * np.sqrt(0.6 * 0.4 / 5))
    assert out.loc[("pooled", "rebel"), "n"] == 5
    sources = cell_sources(spec)
    assert sources[("pooled", "rebel")] == (["s0", "s1", "s2"], ["rebel", "standard"])


def test_wins_table_counts_ties_for_every_tied_method():
    store = store_of({("a_0", "x"): 0.1, ("a_0", "y"): 0.2, ("b_0", "x"): 0.3, ("b_0", "y"): 0.3,
                      ("a_40", "x"): 0.5, ("a_40", "y"): 0.2, ("b_40", "x"): 0.4})
    entry = {"id": "W", "kind": "wins", "metric": "error", "rows": ["x", "y"], "scale": 100,
             "columns": ["wins_0", "error_0", "wins_40", "error_40"], "groups": {0: ["a_0", "b_0"], 40: ["a_40", "b_40"]}}
    spec = table_specs([entry], pd.DataFrame(columns=["table", "row", "column", "row_label", "column_label", "unit"]))[0]
    got = cells(spec, store)
    assert got[("x", "wins_0")] == 2 and got[("y", "wins_0")] == 1
    assert got[("x", "error_0")] == pytest.approx(20) and got[("y", "error_0")] == pytest.approx(25)
    assert got[("y", "wins_40")] == 1 and got[("x", "wins_40")] == 0 and got[("x", "error_40")] == pytest.approx(50)
    empty = pd.DataFrame(columns=["table", "row", "column", "value", "spread", "spread_kind", "bold", "source"])
    assert "| x | rep |" in render_markdown(spec, reproduce(store, spec), empty)
    with pytest.raises(ValueError, match="needs groups"):
        table_specs([{**entry, "groups": {}}], pd.DataFrame(columns=["table", "row", "column", "row_label",
                                                                       "column_label", "unit"]))


def test_thesis_figures_draw_from_a_store(tmp_path):
    a = [0.1, 1.0, 10.0]
    methods = {"clog": {"method": "mcboost", "grid": {"n_estimators": a}}, "adaboost": {}}
    per = {f"g{n}": {"dataset": "two_gaussians", "protocol": {"train_size": n}} for n in (10, 100)}
    per.update({f"bupa_o{k}": {"dataset": "bupa", "protocol": {"label_noise": k / 100}} for k in (0, 40)})
    cfg = OmegaConf.create({"exp": {"paper": "thesis", "datasets": list(per), "methods": methods, "per_dataset": per}})
    means = {(d, f"clog[n_estimators={v:g}]"): 0.3 + 0.01 * i for d in per for i, v in enumerate(a)}
    means.update({(d, "adaboost"): 0.35 for d in per})
    paths = make_figures(["figure_iii6", "figure_iii7", "figure_iv3"], tmp_path, store_of(means), cfg)
    assert [p.name for p in paths] == ["figure_iii6_error_vs_training_size.png", "figure_iii7_average_rank_vs_a.png",
                                       "figure_iv3_liver_error_vs_contamination.png"]
    assert all(p.stat().st_size > 1000 for p in paths)


def test_report_config_applies_the_experiment_group_defaults(tmp_path):
    """The report reads per_dataset aliases and protocols from config groups, as the runner's Hydra composition does."""
    from csrepro.config import compose

    (tmp_path / "exp").mkdir()
    (tmp_path / "config.yaml").write_text("defaults:\n  - csrepro_schema\n  - _self_\n")
    (tmp_path / "dataset").mkdir()
    (tmp_path / "protocol").mkdir()
    (tmp_path / "protocol" / "kfold.yaml").write_text("name: kfold\nn_splits: 5\n")
    (tmp_path / "dataset" / "aliases.yaml").write_text("g10: {dataset: two_gaussians, protocol: {train_size: 10}}\n")
    (tmp_path / "exp" / "e.yaml").write_text("defaults:\n  - /protocol: kfold\n  - /dataset@per_dataset: aliases\n"
                                             "  - _self_\nname: e\nprotocol: {n_splits: 3}\n")
    cfg = compose("e", conf_dir=tmp_path)
    assert OmegaConf.to_container(cfg.exp.protocol) == {"name": "kfold", "n_splits": 3}
    assert cfg.exp.per_dataset.g10.protocol.train_size == 10 and "defaults" not in cfg.exp
