"""The exponential-loss kernel against its NumPy reference and the loss objects."""

import numpy as np
import pytest

from csrepro._kernels import exp_losses, exp_losses_ref
from csrepro._kernels.exp_losses_ref import line_totals
from csrepro.boosting.codewords import simplex_codewords
from csrepro.boosting.line_search import newton_line_search
from csrepro.losses.multiclass import MULTICLASS_LOSSES, get_loss

LOSSES = sorted(MULTICLASS_LOSSES)


def _problem(seed, n=50, M=4, scale=1.0):
    rng = np.random.default_rng(seed)
    S = rng.normal(scale=scale, size=(n, M))
    S -= S.mean(axis=1, keepdims=True)
    z = rng.integers(0, M, n).astype(np.intp)
    C = rng.uniform(1, 10, (M, M))
    C = C + C.T
    np.fill_diagonal(C, 0)
    g = rng.normal(size=n)
    v = np.ascontiguousarray(0.5 * simplex_codewords(M)[:, int(rng.integers(0, M - 1))])
    return S, z, C, g, v


def _codes(name):
    loss = get_loss(name)
    return loss, exp_losses.FAMILIES[loss.family], exp_losses.OUTERS[loss.outer]


def test_kernel_and_reference_tables_agree():
    """The template's and the reference's tables give every loss the same codes."""
    assert exp_losses.FAMILIES == exp_losses_ref.FAMILIES == {"margin": 0, "plain": 1, "pairwise": 2}
    assert exp_losses.OUTERS == exp_losses_ref.OUTERS == {"identity": 0, "log1p": 1}
    for name in LOSSES:
        loss = get_loss(name)
        assert exp_losses_ref.FAMILY_TABLE[exp_losses.FAMILIES[loss.family]].name == loss.family
        assert exp_losses_ref.OUTER_TABLE[exp_losses.OUTERS[loss.outer]].name == loss.outer


@pytest.mark.parametrize("family, outer", [(3, 0), (-1, 0), (0, 2)])
def test_unknown_loss_codes_raise(family, outer):
    S, z, C, g, v = _problem(0, n=5)
    with pytest.raises(ValueError, match="unknown loss codes"):
        _state(exp_losses, S, z, C, family, outer)
    if outer == 0:
        with pytest.raises(ValueError, match="unknown loss codes"):
            exp_losses.line_factors(np.unique(v), np.zeros(5), g, family, 0.5, np.empty((5, 2 * len(v))))


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("alpha", [0.0, 0.7, -1.3])
def test_line_totals_match_loss_objects(name, alpha):
    """The reference's dense line evaluation, the ground truth of the other kernel tests."""
    S, z, C, g, v = _problem(1)
    loss, fam, out = _codes(name)
    kC = loss.kernel_costs(C)
    got = line_totals(S, g, v, z, kC, fam, out, alpha)
    S_alpha = S + alpha * np.outer(g, v)
    assert got[0] == pytest.approx(loss.value(S_alpha, z, C).sum(), rel=1e-12)
    # first derivative = directional derivative of the loss object, second by differences
    assert got[1] == pytest.approx(np.sum(loss.grad(S_alpha, z, C) * np.outer(g, v)), rel=1e-10)
    h = 1e-5
    up = line_totals(S, g, v, z, kC, fam, out, alpha + h)[1]
    dn = line_totals(S, g, v, z, kC, fam, out, alpha - h)[1]
    assert got[2] == pytest.approx((up - dn) / (2 * h), rel=1e-6)


def _groups(v):
    uniq, group = np.unique(v, return_inverse=True)
    group = group.astype(np.intp)
    order = np.argsort(group, kind="stable").astype(np.intp)
    starts = np.searchsorted(group[order], np.arange(len(uniq) + 1)).astype(np.intp)
    return uniq, group, order, starts


def _state(mod, S, z, C, fam, out):
    n, M = S.shape
    P, Q, scale = np.empty((M, n)), np.empty((M if fam == 2 else 0, n)), np.empty(n)  # column-major state
    mod.load_state(S, z, C, fam, out, P, Q, scale)
    return P, Q, scale


def _prepared(mod, S, v, z, C, fam, out, sw=None, wh_rows=3):
    """load_state + prepare_step (sample weights ``sw``); returns the weights, the groups and a
    derivatives(g) -> (alpha -> derivatives) factory."""
    uniq, _, order, starts = _groups(v)
    n, nu = S.shape[0], len(uniq)
    P, Q, scale = _state(mod, S, z, C, fam, out)
    wh, A, B = np.empty((wh_rows, n)), np.empty((n, nu)), np.empty((n, nu))
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(n)
    total = mod.prepare_step(P, Q, scale, order, starts, uniq, off, fam, out, wh, A, B, True, sw=sw)
    # wh[1]: second derivative along the coordinate, i.e. the line curvature with g = 1
    g1 = np.ones(n)
    if wh_rows == 3:
        assert np.sum(wh[1]) == pytest.approx(line_totals(S, g1, v, z, C, fam, out, 0.0, sw)[2], rel=1e-10)
    assert total == pytest.approx(line_totals(S, np.zeros(n), v, z, C, fam, out, 0.0, sw)[0], rel=1e-10)
    work = np.empty((n, 2 * nu))

    def derivatives(g):
        return lambda alpha: mod.line_derivatives(A, B, scale, uniq, off, g, fam, out, alpha, work, sw=sw)

    return wh[0], (A, B if fam == 2 else None, scale), derivatives


@pytest.mark.parametrize("name", LOSSES)
def test_prepare_step_weights_are_eqs_34_37(name):
    S, z, C, _, v = _problem(2)
    loss, fam, out = _codes(name)
    kC = loss.kernel_costs(C)
    w, groups, derivs = _prepared(exp_losses, S, v, z, kC, fam, out)
    w_ref, groups_ref, derivs_ref = _prepared(exp_losses_ref, S, v, z, kC, fam, out)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)
    for a, b in zip(groups, groups_ref):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(w, loss.grad(S, z, C) @ v, rtol=1e-10)
    g = np.random.default_rng(5).normal(size=len(z))
    h = 1e-5
    for alpha in (0.0, 0.4, -2.0):
        exact = line_totals(S, g, v, z, kC, fam, out, alpha)[1:]
        d3 = (line_totals(S, g, v, z, kC, fam, out, alpha + h)[2]
              - line_totals(S, g, v, z, kC, fam, out, alpha - h)[2]) / (2 * h)
        for d in (derivs(g)(alpha), derivs_ref(g)(alpha)):
            np.testing.assert_allclose(d[:2], exact, rtol=1e-9)
            assert d[2] == pytest.approx(d3, rel=1e-5)


def test_gel_weights_hand_formula_eq34():
    """w^r = sum_j C_zj <Delta_zj, 1_r> exp(<f, Delta_zj>), Delta_zj = (y_j - y_z) / 2."""
    M = 3
    Y = simplex_codewords(M)
    f = np.array([0.3, -0.8])
    S = 0.5 * (Y @ f)[None]
    C = np.array([[0, 2, 5], [2, 0, 1], [5, 1, 0]], float)
    z = np.array([1], dtype=np.intp)
    for r in range(M - 1):
        expected = sum(C[1, j] * 0.5 * (Y[j, r] - Y[1, r]) * np.exp(f @ (0.5 * (Y[j] - Y[1]))) for j in range(M))
        w = _prepared(exp_losses, S, np.ascontiguousarray(0.5 * Y[:, r]), z, C, 0, 0)[0]
        assert w[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("scale", [0.1, 3.0, 30.0])
def test_line_search_finds_minimiser(name, scale):
    S, z, C, g, v = _problem(3, scale=scale)
    loss, fam, out = _codes(name)
    kC = loss.kernel_costs(C)
    a, _ = newton_line_search(_prepared(exp_losses, S, v, z, kC, fam, out)[2](g), tol=1e-10)
    a_ref, _ = newton_line_search(_prepared(exp_losses_ref, S, v, z, kC, fam, out)[2](g), tol=1e-10)
    d0, d1, d2 = line_totals(S, g, v, z, kC, fam, out, a)
    # stationary, up to float precision of the summed loss (L_t reaches ~1e60 at scale 30)
    assert abs(d1) <= max(1e-6 * max(1.0, d2), 1e-14 * d0)
    for da in (-1e-3, 1e-3):  # convex: a is the minimiser
        assert line_totals(S, g, v, z, kC, fam, out, a + da)[0] >= d0 * (1 - 1e-12)
    # the reference reaches the same minimum (alpha itself may differ on a flat valley)
    assert line_totals(S, g, v, z, kC, fam, out, a_ref)[0] == pytest.approx(d0, rel=1e-10)


def test_line_search_survives_overflowing_trial_steps():
    """Huge scores make Newton trial points overflow; the bracket must still converge."""
    S, z, C, g, v = _problem(4, scale=300.0)
    _, fam, out = _codes("gel")
    g = g * 50
    a, _ = newton_line_search(_prepared(exp_losses, S, v, z, C, fam, out)[2](g))
    assert np.isfinite(a)
    with np.errstate(over="ignore"):
        assert line_totals(S, g, v, z, C, fam, out, a)[0] <= line_totals(S, g, v, z, C, fam, out, 0.0)[0]


@pytest.mark.parametrize("name, scale, g_scale", [(name, s, gs) for name in LOSSES for s, gs in
                                                   [(0.1, 1.0), (3.0, 1.0), (30.0, 50.0)]] + [("gel", 300.0, 50.0)])
@pytest.mark.parametrize("cells", [False, True])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the reference's overflow at scale 300
def test_line_search_is_newton_line_search_on_line_derivatives(name, scale, g_scale, cells):
    """Each backend's line_search: newton_line_search on its line_derivatives, the same alpha bit for bit and the
    same evaluations, from alpha = 0 or from given derivatives there, per sample or through cells' factors (GEL's
    trial points at scale 300 all overflow); and the last alpha evaluated, whose factors stay in the buffer."""
    loss, fam, out = _codes(name)
    S, z, C, v, g, rows, row_g, row_off = _cells_problem(9, fam)
    S, g, row_g = S * scale, g * g_scale, row_g * g_scale
    C = loss.kernel_costs(C)
    uniq = _groups(v)[0]
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(len(z))
    cell_args = (rows, row_g, row_off) if cells else (None, None, None)
    for mod in (exp_losses, exp_losses_ref):
        _, (A, B, sc), _ = _prepared(mod, S, v, z, C, fam, out)
        B = A if B is None else B
        work = np.empty((len(row_g) if cells else len(z), 2 * len(uniq)))
        evaluated = []

        def derivatives(alpha, mod=mod, A=A, B=B, sc=sc, work=work, evaluated=evaluated):
            evaluated.append(alpha)
            return mod.line_derivatives(A, B, sc, uniq, off, g, fam, out, alpha, work, *cell_args)

        for start in (None, derivatives(0.0)):
            evaluated.clear()
            want = newton_line_search(derivatives, tol=1e-6, max_iter=100, start=start)
            got = mod.line_search(A, B, sc, uniq, off, g, fam, out, work, 1e-6, 100, start, *cell_args)
            assert got == (*want, evaluated[-1] if evaluated else None)
            assert want[1] > 0 and np.isfinite(want[0])


@pytest.mark.parametrize("n_off", [1, 3])
def test_cell_line_matches_reference(n_off):
    """cell_line: each cell's g and, with codes, each sample's cell, as the reference's."""
    rng = np.random.default_rng(18)
    values, codes, offset_index = rng.normal(size=7), rng.integers(0, 7, 40), rng.integers(0, n_off, 40)
    got, want = ((np.empty(7 * n_off), np.empty(40, dtype=np.intp)) for _ in range(2))
    for mod, (row_g, rows) in ((exp_losses, got), (exp_losses_ref, want)):
        mod.cell_line(values, 0.7, -0.3, row_g, codes, offset_index, rows)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(want[1] // n_off, codes)
    alone = np.empty(7 * n_off)
    exp_losses.cell_line(values, 0.7, -0.3, alone)
    np.testing.assert_array_equal(alone, want[0])
    with pytest.raises(ValueError, match="shape mismatch"):
        exp_losses.cell_line(values, 0.7, -0.3, np.empty(7 * n_off + 1))
    with pytest.raises(ValueError, match="shape mismatch"):
        exp_losses.cell_line(values, 0.7, -0.3, alone, codes, offset_index)  # no rows to write
    with pytest.raises(ValueError, match="shape mismatch"):
        exp_losses.cell_line(values[:0], 0.7, -0.3, np.empty(0))


@pytest.mark.parametrize("fam", [0, 1, 2])
def test_line_factors_are_numpy_exp_bits(fam):
    """line_factors calls NumPy's exp loop itself: the reference's np.exp bits, overflow to inf included, and no
    floating-point warning."""
    S, z, _, g, v = _problem(17, n=301)
    uniq = _groups(v)[0]
    off = np.ascontiguousarray(v[z])
    g = g * np.geomspace(1e-3, 1e4, len(g))  # up to overflowing factors
    got, want = (np.empty((len(g), 2 * len(uniq))) for _ in range(2))
    with np.errstate(all="raise"):
        exp_losses.line_factors(uniq, off, g, fam, 0.9, got)
    exp_losses_ref.line_factors(uniq, off, g, fam, 0.9, want)
    width = 2 * len(uniq) if fam == 2 else len(uniq)
    assert np.isinf(want[:, :width]).any()
    np.testing.assert_array_equal(got[:, :width], want[:, :width])


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("alpha", [0.8, -1.7])
def test_apply_step_is_the_state_at_the_updated_scores(name, alpha):
    """Update (32) by the line search's factors equals loading the state at S + alpha g v^T."""
    S, z, C, g, v = _problem(6, scale=2.0)
    _, fam, out = _codes(name)
    C = get_loss(name).kernel_costs(C)
    uniq, group, _, _ = _groups(v)
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(len(z))
    expected = _state(exp_losses_ref, S + alpha * np.outer(g, v), z, C, fam, out)
    for mod in (exp_losses, exp_losses_ref):
        P, Q, scale = _state(mod, S, z, C, fam, out)
        factors = np.empty((len(z), 2 * len(uniq) if fam == 2 else len(uniq)))
        mod.line_factors(uniq, off, g, fam, alpha, factors)
        mod.apply_step(P, Q, scale, z, C, factors, group, fam, out)
        for got, want in zip((P, Q, scale), expected):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_state_keeps_underflowing_terms_at_the_floor():
    """A costly term e^-800 below the largest stays at e^-700 (times its cost), not 0; zero costs stay 0."""
    S = np.array([[0.0, -800.0, 5.0]])
    z = np.array([2], dtype=np.intp)
    C = np.array([[0, 1, 1], [1, 0, 1], [2.0, 3.0, 0]])
    for mod in (exp_losses, exp_losses_ref):
        P, _, scale = _state(mod, S, z, C, 0, 0)
        np.testing.assert_allclose(P[:, 0], [1.0, 3.0 * np.exp(-700.0), 0.0], rtol=1e-12)
        assert scale[0] == pytest.approx(2.0 * np.exp(-5.0), rel=1e-12)


def test_line_start_matches_reference():
    rng = np.random.default_rng(7)
    X, wh = rng.normal(size=(40, 3)), rng.normal(size=(3, 40))
    g, g_ref = np.empty(40), np.empty(40)
    x = np.ascontiguousarray(X[:, 1])
    got = exp_losses.line_start(x, 0.7, -0.2, wh, g)
    want = exp_losses_ref.line_start(x, 0.7, -0.2, wh, g_ref)
    np.testing.assert_allclose(g, 0.7 * X[:, 1] - 0.2, rtol=1e-14)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _cells_problem(seed, fam):
    """A line with g constant on cells (feature value x offset group), as MCBoost's feature_cells give."""
    S, z, C, _, v = _problem(seed, n=80)
    uniq, group, _, _ = _groups(v)
    rng = np.random.default_rng(seed)
    values = rng.normal(size=5)
    codes = rng.integers(0, 5, len(z)).astype(np.intp)
    n_off = len(uniq) if fam == 0 else 1
    offset_index = group[z] if fam == 0 else np.zeros(len(z), dtype=np.intp)
    rows = codes * n_off + offset_index
    row_g = np.repeat(values, n_off)
    row_off = np.tile(uniq if fam == 0 else np.zeros(1), 5)
    return S, z, C, v, values[codes], rows, row_g, row_off


@pytest.mark.parametrize("name", LOSSES)
def test_cell_factors_equal_per_sample_factors(name):
    """line_derivatives and apply_step reading per-cell factors through ``rows`` equal the per-sample path."""
    _, fam, out = _codes(name)
    S, z, C, v, g, rows, row_g, row_off = _cells_problem(8, fam)
    C = get_loss(name).kernel_costs(C)
    uniq, group, _, _ = _groups(v)
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(len(z))
    width = 2 * len(uniq) if fam == 2 else len(uniq)
    for mod in (exp_losses, exp_losses_ref):
        _, (A, B, scale), derivs = _prepared(mod, S, v, z, C, fam, out)
        B = A if B is None else B
        want = derivs(g)(0.6)
        got = mod.line_derivatives(A, B, scale, uniq, off, g, fam, out, 0.6, np.empty((len(row_g), width)),
                                   rows, row_g, row_off)
        np.testing.assert_allclose(got, want, rtol=1e-12)
        states = []
        for cell in (False, True):
            P, Q, sc = _state(mod, S, z, C, fam, out)
            factors = np.empty((len(row_g) if cell else len(z), width))
            mod.line_factors(uniq, row_off if cell else off, row_g if cell else g, fam, 0.6, factors)
            mod.apply_step(P, Q, sc, z, C, factors, group, fam, out, rows if cell else None)
            states.append((P, Q, sc))
        for a, b in zip(*states):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["gel", "mcboost", "ls", "lt"])
@pytest.mark.parametrize("alpha", [0.0, 0.6, -1.1])
def test_aggregated_cells_give_the_summed_derivatives(name, alpha):
    """Identity outer: derivatives on the per-cell sums (pairwise: of the product's terms) equal the per-sample sum."""
    _, fam, out = _codes(name)
    S, z, C, v, g, rows, row_g, row_off = _cells_problem(9, fam)
    C = get_loss(name).kernel_costs(C)
    uniq = _groups(v)[0]
    nu = len(uniq)
    want = line_totals(S, g, v, z, C, fam, out, alpha)[1:]
    sums = {}
    for mod in (exp_losses, exp_losses_ref):
        _, (A, B, scale), _ = _prepared(mod, S, v, z, C, fam, out)
        B = A if B is None else B
        sums[mod] = np.empty((len(row_g), nu * nu if fam == 2 else nu))
        mod.aggregate_cells(A, B, scale, rows, fam, sums[mod])
        cell_uniq = (uniq[:, None] - uniq[None, :]).ravel() if fam == 2 else uniq
        cell_fam = 1 if fam == 2 else fam
        got = mod.line_derivatives(sums[mod], sums[mod], np.ones(len(row_g)), cell_uniq, row_off, row_g,
                                   cell_fam, out, alpha, np.empty_like(sums[mod]))
        np.testing.assert_allclose(got[:2], want, rtol=1e-10)
    np.testing.assert_allclose(sums[exp_losses], sums[exp_losses_ref], rtol=1e-12)


@pytest.mark.parametrize("name", LOSSES)
def test_prepare_step_weights_only(name):
    """A one-row ``wh`` receives the same weights as the three-row one."""
    S, z, C, _, v = _problem(10)
    _, fam, out = _codes(name)
    C = get_loss(name).kernel_costs(C)
    uniq, _, order, starts = _groups(v)
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(len(z))
    for mod in (exp_losses, exp_losses_ref):
        P, Q, scale = _state(mod, S, z, C, fam, out)
        whs = [np.empty((k, len(z))) for k in (3, 1)]
        for wh in whs:
            A, B = np.empty((len(z), len(uniq))), np.empty((len(z), len(uniq)))
            mod.prepare_step(P, Q, scale, order, starts, uniq, off, fam, out, wh, A, B)
        np.testing.assert_array_equal(whs[0][0], whs[1][0])


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("wh_rows", [1, 3])
def test_row_blocks_are_the_one_at_a_time_bits(name, wh_rows):
    """prepare_step and apply_step run their two passes a block of samples at a time (their first passes four
    samples at a time where the CPU has AVX2, else two): over several blocks and a partial odd one (n = 601)
    each sample's weights, groups and state are those of that sample alone, and the loss is the samples' losses
    added in sample order."""
    loss, fam, out = _codes(name)
    S, z, C, g, v = _problem(16, n=601, scale=2.0)
    C = loss.kernel_costs(C)
    uniq, group, order, starts = _groups(v)
    n, nu = len(z), len(uniq)
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(n)
    sw = _weights(n)
    factors = np.empty((n, 2 * nu if fam == 2 else nu))
    exp_losses.line_factors(uniq, off, g, fam, 0.8, factors)
    P, Q, scale = _state(exp_losses, S, z, C, fam, out)

    def run(sl):
        p, q, sc = P[:, sl].copy(), Q[:, sl].copy(), scale[sl].copy()
        wh, A, B = np.empty((wh_rows, len(sc))), np.empty((len(sc), nu)), np.empty((len(sc), nu))
        total = exp_losses.prepare_step(p, q, sc, order, starts, uniq, off[sl], fam, out, wh, A, B, True, sw[sl])
        exp_losses.apply_step(p, q, sc, z[sl], C, np.ascontiguousarray(factors[sl]), group, fam, out)
        return [wh, A, B if fam == 2 else A, p, q, sc[None, :]], total

    whole, total = run(slice(None))
    alone = [run(slice(i, i + 1)) for i in range(n)]
    for k, got in enumerate(whole):
        axis = 0 if k in (1, 2) else 1  # A and B: rows of samples; wh, the state and the scale: columns
        np.testing.assert_array_equal(got, np.concatenate([a[0][k] for a in alone], axis=axis))
    want = 0.0
    for a in alone:
        want += a[1]
    assert total == want



@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("wh_rows", [1, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_apply_then_prepare_is_the_two_calls(name, wh_rows, weighted):
    """apply_step with the next coordinate's prepare_step arguments (run block by block in one pass) gives the
    bits of apply_step followed by prepare_step (kernel), and the same values in the reference; over several
    blocks and a partial odd one (n = 601), with and without the loss, with per-cell factors (``rows``)."""
    loss, fam, out = _codes(name)
    S, z, C, g, v = _problem(21, n=601, M=5, scale=2.0)
    C = loss.kernel_costs(C)
    uniq, group, _, _ = _groups(v)
    n, nu = len(z), len(uniq)
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(n)
    v2 = np.ascontiguousarray(0.5 * simplex_codewords(5)[:, 3])  # the next coordinate's direction
    uniq2, _, order2, starts2 = _groups(v2)
    off2 = np.ascontiguousarray(v2[z]) if fam == 0 else np.zeros(n)
    sw = _weights(n) if weighted else None
    rows = np.random.default_rng(4).integers(0, 7, n).astype(np.intp)
    factors = np.empty((7, 2 * nu if fam == 2 else nu))
    results = {}
    for mod in (exp_losses, exp_losses_ref):
        mod.line_factors(uniq, np.full(7, uniq[0]) if fam == 0 else np.zeros(7), np.linspace(-1.5, 1.5, 7), fam,
                         0.8, factors)
        for with_loss in (False, True):
            for fused in (False, True):
                P, Q, scale = _state(mod, S, z, C, fam, out)
                wh, A, B = np.empty((wh_rows, n)), np.empty((n, len(uniq2))), np.empty((n, len(uniq2)))
                prep = dict(order=order2, starts=starts2, uniq=uniq2, off=off2, wh=wh, A=A, B=B, with_loss=with_loss,
                            sw=sw)
                if fused:
                    total = mod.apply_step(P, Q, scale, z, C, factors, group, fam, out, rows, **prep)
                else:
                    assert mod.apply_step(P, Q, scale, z, C, factors, group, fam, out, rows) == 0.0
                    total = mod.prepare_step(P, Q, scale, family=fam, outer=out, **prep)
                assert (total != 0.0) == with_loss
                results[mod, with_loss, fused] = [P, Q, scale, wh, A, B if fam == 2 else A, np.array([total])]
        for with_loss in (False, True):
            for got, want in zip(results[mod, with_loss, True], results[mod, with_loss, False], strict=True):
                np.testing.assert_array_equal(got, want)
    for got, want in zip(results[exp_losses, True, True], results[exp_losses_ref, True, True], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)

def _weights(n, seed=11):
    return np.random.default_rng(seed).uniform(0.1, 3.0, n)


@pytest.mark.parametrize("name", LOSSES)
def test_weighted_steps_are_the_weighted_risks_derivatives(name):
    """With sample weights s, prepare_step and line_derivatives give the derivatives of sum_i s_i L_i (kernel and
    reference): the weights w^r (34)-(37) times s_i, the summed loss and the line's derivatives weighted."""
    S, z, C, g, v = _problem(12)
    loss, fam, out = _codes(name)
    kC = loss.kernel_costs(C)
    sw = _weights(len(z))
    plain = _prepared(exp_losses, S, v, z, kC, fam, out)[0]
    for mod in (exp_losses, exp_losses_ref):
        for rows in (3, 1):
            w, _, derivs = _prepared(mod, S, v, z, kC, fam, out, sw, wh_rows=rows)
            np.testing.assert_allclose(w, plain * sw, rtol=0 if mod is exp_losses else 1e-12)  # kernel: same bits
            np.testing.assert_allclose(w, (loss.grad(S, z, C) @ v) * sw, rtol=1e-10)
        for alpha in (0.0, 0.5, -1.5):
            np.testing.assert_allclose(derivs(g)(alpha)[:2], line_totals(S, g, v, z, kC, fam, out, alpha, sw)[1:],
                                       rtol=1e-9)


@pytest.mark.parametrize("name", LOSSES)
def test_unit_weights_are_bit_identical_to_none(name):
    """All-ones weights run other arithmetic (x * 1.0) that changes no bit."""
    S, z, C, g, v = _problem(13)
    loss, fam, out = _codes(name)
    kC = loss.kernel_costs(C)
    ones = np.ones(len(z))
    for mod in (exp_losses, exp_losses_ref):
        w0, _, d0 = _prepared(mod, S, v, z, kC, fam, out)
        w1, _, d1 = _prepared(mod, S, v, z, kC, fam, out, ones)
        np.testing.assert_array_equal(w0, w1)
        assert d0(g)(0.7) == d1(g)(0.7)


@pytest.mark.parametrize("name", LOSSES)
def test_integer_weights_equal_repeated_samples(name):
    """Integer weights k_i give the sums of the data with sample i repeated k_i times (0: dropped), up to the
    summation order (relative 1e-12)."""
    S, z, C, g, v = _problem(14)
    loss, fam, out = _codes(name)
    kC = loss.kernel_costs(C)
    k = np.random.default_rng(14).integers(0, 4, len(z))
    rep = np.repeat(np.arange(len(z)), k)
    for mod in (exp_losses, exp_losses_ref):
        w, _, derivs = _prepared(mod, S, v, z, kC, fam, out, k.astype(float))
        w_rep, _, derivs_rep = _prepared(mod, S[rep], v, z[rep], kC, fam, out)
        np.testing.assert_allclose(np.bincount(rep, weights=w_rep, minlength=len(z)), w, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(derivs(g)(0.9), derivs_rep(g[rep])(0.9), rtol=1e-12)


@pytest.mark.parametrize("name", ["gel", "mcboost", "ls", "lt"])
def test_weighted_cells_give_the_weighted_derivatives(name):
    """aggregate_cells with sample weights: derivatives on the cells are those of sum_i s_i L_i (kernel = reference)."""
    _, fam, out = _codes(name)
    S, z, C, v, g, rows, row_g, row_off = _cells_problem(15, fam)
    C = get_loss(name).kernel_costs(C)
    uniq = _groups(v)[0]
    nu = len(uniq)
    sw = _weights(len(z), 15)
    want = line_totals(S, g, v, z, C, fam, out, 0.4, sw)[1:]
    sums = {}
    for mod in (exp_losses, exp_losses_ref):
        _, (A, B, scale), _ = _prepared(mod, S, v, z, C, fam, out)
        B = A if B is None else B
        sums[mod] = np.empty((len(row_g), nu * nu if fam == 2 else nu))
        mod.aggregate_cells(A, B, scale, rows, fam, sums[mod], sw=sw)
        cell_uniq = (uniq[:, None] - uniq[None, :]).ravel() if fam == 2 else uniq
        got = mod.line_derivatives(sums[mod], sums[mod], np.ones(len(row_g)), cell_uniq, row_off, row_g,
                                   1 if fam == 2 else fam, out, 0.4, np.empty_like(sums[mod]))
        np.testing.assert_allclose(got[:2], want, rtol=1e-10)
    np.testing.assert_allclose(sums[exp_losses], sums[exp_losses_ref], rtol=1e-12)


@pytest.mark.parametrize("nu", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("fam", [0, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_aggregate_cells_is_the_one_sample_loop(nu, fam, weighted):
    """aggregate_cells (the pairwise family's products four at a time with AVX2 for up to 4 groups) gives the bits
    of the one-sample loop: each sample's scaled terms (and products) added to its cell's sums in sample order;
    consecutive samples share cells."""
    rng = np.random.default_rng(nu)
    n = 203
    A, B, scale = rng.uniform(0.1, 2.0, (n, nu)), rng.uniform(0.1, 2.0, (n, nu)), rng.uniform(0.5, 3.0, n)
    rows = np.repeat(rng.integers(0, 6, n), rng.integers(1, 4, n))[:n].astype(np.intp)
    sw = _weights(n) if weighted else None
    width = nu * nu if fam == 2 else nu
    got = np.empty((6, width))
    exp_losses.aggregate_cells(A, B, scale, rows, fam, got, sw)
    want = [[0.0] * width for _ in range(6)]
    for i in range(n):
        w = float(scale[i]) if sw is None else float(sw[i]) * float(scale[i])
        for u in range(nu):
            x = w * float(A[i, u])
            if fam == 2:
                for k in range(nu):
                    want[rows[i]][u * nu + k] += x * float(B[i, k])
            else:
                want[rows[i]][u] += x
    np.testing.assert_array_equal(got, np.array(want))


def test_kernel_refuses_a_row_major_state():
    """The state is column-major (M, n): the row-major (n, M) of older callers raises instead of being read out of
    bounds."""
    S, z, C, g, v = _problem(17, n=6, M=4)
    uniq, group, order, starts = _groups(v)
    with pytest.raises(ValueError, match="column-major"):
        exp_losses.load_state(S, z, C, 2, 0, np.empty((6, 4)), np.empty((6, 4)), np.empty(6))
    P, Q, scale = _state(exp_losses, S, z, C, 2, 0)
    A, B, wh = np.empty((6, len(uniq))), np.empty((6, len(uniq))), np.empty((1, 6))
    with pytest.raises(ValueError, match="column-major"):
        exp_losses.prepare_step(np.ascontiguousarray(P.T), Q, scale, order, starts, uniq, np.zeros(6), 2, 0, wh, A, B)
    with pytest.raises(ValueError, match="column-major"):
        exp_losses.apply_step(P, np.ascontiguousarray(Q.T), scale, z, C, np.ones((6, 2 * len(uniq))), group, 2, 0)


def test_kernel_refuses_weights_of_the_wrong_length():
    S, z, C, g, v = _problem(16, n=6)
    uniq, _, order, starts = _groups(v)
    P, Q, scale = _state(exp_losses, S, z, C, 0, 0)
    A, B, wh = np.empty((6, len(uniq))), np.empty((6, len(uniq))), np.empty((1, 6))
    with pytest.raises(ValueError, match="sw has 5 weights for 6 samples"):
        exp_losses.prepare_step(P, Q, scale, order, starts, uniq, np.zeros(6), 0, 0, wh, A, B, sw=np.ones(5))


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("weighted", [False, True])
def test_samples_in_pairs_are_the_one_at_a_time_bits(name, weighted):
    """The kernel's per-sample derivatives, taken four samples at a time (AVX2 lanes, where the CPU has them) or
    two (SSE2) in prepare_step and line_derivatives, are the bits of the one-sample loop: each sample alone (n = 1
    runs that loop), the derivative sums then added in sample order as the kernel adds them; n = 79 leaves a pair
    and one sample to those loops."""
    loss, fam, out = _codes(name)
    S, z, C, v, g, rows, row_g, row_off = _cells_problem(15, fam)
    S, z, g, rows = S[:79], z[:79], g[:79], rows[:79]  # odd n
    C = loss.kernel_costs(C)
    uniq, _, order, starts = _groups(v)
    n, nu = len(z), len(uniq)
    sw = np.random.default_rng(15).uniform(0.1, 3.0, n) if weighted else None
    off = np.ascontiguousarray(v[z]) if fam == 0 else np.zeros(n)
    P, Q, scale = _state(exp_losses, S, z, C, fam, out)
    width = 2 * nu if fam == 2 else nu

    def prepared(sl):
        wh, A, B = np.empty((3, len(z[sl]))), np.empty((len(z[sl]), nu)), np.empty((len(z[sl]), nu))
        exp_losses.prepare_step(P[:, sl].copy(), Q[:, sl].copy(), scale[sl], order, starts, uniq, off[sl], fam, out,
                                wh, A, B, sw=None if sw is None else sw[sl])
        return wh, A, B

    wh, A, B = prepared(slice(None))
    alone = [prepared(slice(i, i + 1)) for i in range(n)]
    np.testing.assert_array_equal(wh, np.concatenate([a[0] for a in alone], axis=1))
    for cells in (False, True):
        def sums(sl, m):
            return exp_losses.line_derivatives(
                A[sl], B[sl], scale[sl], uniq, off[sl], g[sl], fam, out, 0.4,
                np.empty((len(row_g) if cells else m, width)), rows[sl] if cells else None,
                row_g if cells else None, row_off if cells else None, None if sw is None else sw[sl])
        want = [0.0, 0.0, 0.0]
        for i in range(n):
            for p, d in enumerate(sums(slice(i, i + 1), 1)):
                want[p] += d
        assert sums(slice(None), n) == tuple(want)
