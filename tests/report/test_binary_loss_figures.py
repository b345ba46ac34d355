"""Figures IV.2 and III.5 (experiments/thesis/figures.py) write their PNGs through the figure registry."""

import pytest

from csrepro.report.figures import get_figure


@pytest.mark.parametrize("fig_id, name", [("figure_iv2", "figure_iv2_losses.png"),
                                          ("figure_iii5", "figure_iii5_weights.png")])
def test_figure_writes_png(tmp_path, fig_id, name):
    paths = get_figure(fig_id, "thesis")(tmp_path, None, None)
    assert [p.name for p in paths] == [name]
    assert paths[0].is_file() and paths[0].stat().st_size > 10_000
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
