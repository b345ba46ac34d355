"""The CS-AdaBoost step kernel against its NumPy reference and against (VI.39)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro._kernels import cs_ada_step, cs_ada_step_ref
from csrepro._kernels.cs_ada_step_ref import loss_derivative, step_loss


def _candidates(seed, n=40):
    """Random class totals and candidate errors 0 <= b <= T+, 0 <= d <= T-, with a few edge cases."""
    rng = np.random.default_rng(seed)
    Tp, Tm = rng.uniform(0.05, 1.0, 2)
    b, d = rng.uniform(0, Tp, n), rng.uniform(0, Tm, n)
    b[:3], d[:3] = [0.0, Tp, 0.0], [0.0, Tm, Tm]  # perfect, all wrong, positives perfect / negatives all wrong
    return b, d, Tp, Tm


def _run(mod, b, d, Tp, Tm, C1, C2, amax=20.0, amin=None):
    alpha, loss = np.empty_like(b), np.empty_like(b)
    mod.solve_steps(b, d, Tp, Tm, C1, C2, -amax if amin is None else amin, amax, 1e-13, 200, alpha, loss)
    return alpha, loss


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), C1=st.floats(0.1, 10.0), C2=st.floats(0.1, 10.0), nonneg=st.booleans())
def test_kernel_matches_reference(seed, C1, C2, nonneg):
    b, d, Tp, Tm = _candidates(seed)
    amax = 20.0 / max(C1, C2)
    amin = 0.0 if nonneg else -amax
    a_k, l_k = _run(cs_ada_step, b, d, Tp, Tm, C1, C2, amax, amin)
    a_r, l_r = _run(cs_ada_step_ref, b, d, Tp, Tm, C1, C2, amax, amin)
    np.testing.assert_allclose(a_k, a_r, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(l_k, l_r, rtol=1e-10)


@pytest.mark.parametrize("C1, C2", [(1.0, 1.0), (2.0, 1.0), (1.0, 5.0), (7.5, 0.3)])
def test_alpha_solves_vi39_and_minimises_vi42(C1, C2):
    b, d, Tp, Tm = _candidates(3)
    alpha, loss = _run(cs_ada_step, b[3:], d[3:], Tp, Tm, C1, C2)
    lhs = 2 * C1 * b[3:] * np.cosh(C1 * alpha) + 2 * C2 * d[3:] * np.cosh(C2 * alpha)
    rhs = C1 * Tp * np.exp(-C1 * alpha) + C2 * Tm * np.exp(-C2 * alpha)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)  # (VI.39)
    np.testing.assert_allclose(loss, step_loss(alpha, b[3:], d[3:], Tp, Tm, C1, C2), rtol=1e-14)
    for h in (1e-4, -1e-4):  # a minimum: both neighbours cost more
        assert np.all(step_loss(alpha + h, b[3:], d[3:], Tp, Tm, C1, C2) > loss)


def test_vi42_derivative_by_finite_differences():
    b, d, Tp, Tm = _candidates(5)
    a, h = np.linspace(-2, 2, len(b)), 1e-6
    fd = (step_loss(a + h, b, d, Tp, Tm, 3.0, 0.5) - step_loss(a - h, b, d, Tp, Tm, 3.0, 0.5)) / (2 * h)
    np.testing.assert_allclose(loss_derivative(a, b, d, Tp, Tm, 3.0, 0.5), fd, rtol=1e-6, atol=1e-9)


def test_equal_costs_give_adaboost_alpha():
    """C1 = C2 = 1: alpha = 1/2 log((1 - err)/err) (VI.21) with normalised weights; C1 = C2 = c divides it by c."""
    b, d, Tp, Tm = _candidates(7)
    b, d, T = b[3:], d[3:], Tp + Tm
    err = (b + d) / T
    for c in (1.0, 2.5):
        alpha, _ = _run(cs_ada_step, b, d, Tp, Tm, c, c)
        np.testing.assert_allclose(alpha, 0.5 * np.log((1 - err) / err) / c, rtol=1e-13)


def test_edge_cases_hit_the_bounds():
    b, d, Tp, Tm = _candidates(11)
    alpha, _ = _run(cs_ada_step, b[:3], d[:3], Tp, Tm, 4.0, 1.0, amax=3.0)
    assert alpha[0] == 3.0 and alpha[1] == -3.0  # perfect / all wrong
    alpha0, loss0 = _run(cs_ada_step, b[:3], d[:3], Tp, Tm, 4.0, 1.0, amax=3.0, amin=0.0)
    assert alpha0[1] == 0.0 and loss0[1] == pytest.approx(Tp + Tm)  # a non-negative step cannot use it
    # positives all right, negatives all wrong: C1 T+ e^{-C1 a} = C2 T- e^{C2 a}
    assert alpha[2] == pytest.approx(np.log(4.0 * Tp / Tm) / 5.0, rel=1e-12)


def _bounded(mod, b, d, Tp, Tm, C1, C2, amax):
    loss = np.empty_like(b)
    solved = mod.ada_losses(b, d, Tp, Tm, C1, C2, amax, 1e-9, 1e-12, 100, loss)
    return loss, solved


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), C1=st.floats(0.1, 10.0), C2=st.floats(0.1, 10.0))
def test_bounded_losses_match_reference(seed, C1, C2):
    """ada_losses: the kernel and the reference solve the candidates that decide the extremes (each with its own
    step solver) and agree there; every other entry is a lower bound of the loss."""
    b, d, Tp, Tm = _candidates(seed, n=300)
    b, d = np.concatenate([b, Tp - b]), np.concatenate([d, Tm - d])  # both labellings, as a scan gives them
    amax = 30.0 / max(C1, C2)
    l_k, n_k = _bounded(cs_ada_step, b, d, Tp, Tm, C1, C2, amax)
    l_r, n_r = _bounded(cs_ada_step_ref, b, d, Tp, Tm, C1, C2, amax)
    full = _run(cs_ada_step, b, d, Tp, Tm, C1, C2, amax, 0.0)[1]
    assert n_k >= 1 and n_r >= 1
    assert np.argmin(l_k) == np.argmin(l_r) == np.argmin(full)
    np.testing.assert_allclose(l_k.min(), l_r.min(), rtol=1e-10)
    np.testing.assert_allclose(l_k.max(), l_r.max(), rtol=1e-10)
    assert l_k.max() == full.max() and l_k.min() == full.min()
    assert np.all(l_k <= full * (1 + 1e-12)) and np.all(l_r <= full * (1 + 1e-9))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), C1=st.floats(0.1, 10.0), C2=st.floats(0.1, 10.0), scale=st.sampled_from(
    [1.0, 1e-300, 1e300, 1e-310]))
def test_bounded_losses_do_not_depend_on_lanes(seed, C1, C2, scale):
    """ada_losses: the same bits for every candidate whichever SIMD lane or the scalar tail computes it
    (the scan shifted by 1-3 copies of one of its flat candidates, which change neither the least nor the largest
    loss), at any scale (x = 2 y where exact, else the division)."""
    b, d, Tp, Tm = _candidates(seed, n=300)
    b, d = np.concatenate([b, Tp - b]), np.concatenate([d, Tm - d])
    b[10:20], d[10:20] = 0.5 * Tp, 0.5 * Tm  # L'(0) = 0: no lane takes 2 y
    b, d, Tp, Tm = b * scale, d * scale, Tp * scale, Tm * scale
    flat = np.flatnonzero(C1 * (2 * b - Tp) + C2 * (2 * d - Tm) >= 1e-9 * (C1 * Tp + C2 * Tm))[0]
    base, _ = _bounded(cs_ada_step, b, d, Tp, Tm, C1, C2, 30.0 / max(C1, C2))
    for k in (1, 2, 3):
        bk, dk = np.concatenate([np.full(k, b[flat]), b]), np.concatenate([np.full(k, d[flat]), d])
        shifted, _ = _bounded(cs_ada_step, bk, dk, Tp, Tm, C1, C2, 30.0 / max(C1, C2))
        np.testing.assert_array_equal(shifted[k:].view(np.int64), base.view(np.int64))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 136, 255, 1000, 8191, 8192, 8193, 20001,
                               30162])
def test_class_sums_are_numpys(n):
    """The class totals bit for bit as the reference and as NumPy's ``w[pos].sum()`` (pairwise sums at every block
    size); rows checked."""
    rng = np.random.default_rng(n)
    w = rng.random(n) * rng.choice([0.0, 1e-300, 1e-3, 1.0, 1e5], n)
    y = rng.choice([1.0, -1.0], n)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y <= 0)
    assert cs_ada_step.class_sums(w, pos, neg) == cs_ada_step_ref.class_sums(w, pos, neg) == (w[pos].sum(),
                                                                                            w[neg].sum())
    with pytest.raises(ValueError, match="out of range"):
        cs_ada_step.class_sums(w, np.array([n], dtype=np.intp), neg)
