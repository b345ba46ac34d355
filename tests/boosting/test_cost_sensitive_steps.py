"""Cost-sensitive boosting maths (thesis Ch. VI): steps, weights, outputs, link, by hand and by differences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro._kernels.backend import use_backend
from csrepro.boosting import cost_sensitive_steps as cs
from csrepro.weak.splits import first_min


def _binomial_loss(f, y01, C1, C2):
    """(VI.33) per sample at predictor values f."""
    pc = cs.asymmetric_inverse_link(f, C1, C2)
    return -(y01 * np.log(pc) + (1 - y01) * np.log1p(-pc))


def test_check_costs_names_the_problem():
    assert cs.check_costs(2, 1.5) == (2.0, 1.5)
    for bad in (0, -1.0, np.inf, True, "2"):
        with pytest.raises(ValueError, match="C1 must be a finite number > 0"):
            cs.check_costs(bad, 1.0)


def test_class_balanced_weights():
    w = cs.class_balanced_weights([1, -1, -1, -1, 1])
    np.testing.assert_allclose(w, [0.25, 1 / 6, 1 / 6, 1 / 6, 0.25])
    with pytest.raises(ValueError, match="need both classes"):
        cs.class_balanced_weights([1, 1])


def test_ada_steps_hand_case_and_backends():
    """err = 0.2 of unit weight, C1 = C2 = 1: alpha = 1/2 log 4 = log 2, loss 2 sqrt(0.2 * 0.8) = 0.8."""
    alpha, loss = cs.ada_steps([0.1], [0.1], 0.5, 0.5, 1.0, 1.0)
    assert alpha[0] == pytest.approx(np.log(2.0), rel=1e-14) and loss[0] == pytest.approx(0.8, rel=1e-14)
    b, d = np.array([0.05, 0.2, 0.0]), np.array([0.3, 0.01, 0.4])
    a_c, l_c = cs.ada_steps(b, d, 0.6, 0.4, 3.0, 0.7)
    with use_backend("numpy"):
        a_n, l_n = cs.ada_steps(b, d, 0.6, 0.4, 3.0, 0.7)
    np.testing.assert_allclose(a_c, a_n, rtol=1e-9)
    np.testing.assert_allclose(l_c, l_n, rtol=1e-10)
    with pytest.raises(ValueError, match="alpha_max"):
        cs.ada_steps(b, d, 0.6, 0.4, 3.0, 0.7, alpha_max=1000.0)


def _split_candidates(seed, n=400, repeats=False):
    """(b, d, T+, T-) of both labellings of every threshold of a random ordering (cumulative class weights),
    as a stump or tree scan gives them; ``repeats``: runs of equal candidates (empty bins of a tree node)."""
    rng = np.random.default_rng(seed)
    w = rng.exponential(size=n)
    w /= w.sum()
    y = rng.random(n) < rng.uniform(0.1, 0.9)
    order = np.argsort(rng.normal(size=n) + rng.uniform(0, 3) * y)
    cp, cm = np.cumsum(np.where(y, w, 0.0)[order]), np.cumsum(np.where(y, 0.0, w)[order])
    if repeats:
        runs = rng.integers(1, 4, n)
        cp, cm = np.repeat(cp, runs), np.repeat(cm, runs)
    Tp, Tm = w[y].sum(), w[~y].sum()
    return np.concatenate([cp, Tp - cp]), np.concatenate([Tm - cm, cm]), Tp, Tm


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31), C1=st.sampled_from([1.0, 1.05, 2.0, 4.0, 8.0]), C2=st.floats(0.5, 2.0),
       repeats=st.booleans(), backend=st.sampled_from(["cython", "numpy"]))
def test_ada_losses_decide_as_ada_steps(seed, C1, C2, repeats, backend):
    """Exact near the smallest loss and at the largest, lower bounds above the slack elsewhere: the weak
    learners' choice (first_min) is that of the full solve."""
    b, d, Tp, Tm = _split_candidates(seed, repeats=repeats)
    with use_backend(backend):
        full = cs.ada_steps(b, d, Tp, Tm, C1, C2)[1]
        fast = cs.ada_losses(b, d, Tp, Tm, C1, C2)
        halves = [(half, cs.ada_losses(b[half], d[half], Tp, Tm, C1, C2))
                  for half in (slice(None, len(b) // 2), slice(len(b) // 2, None))]
    near = full <= full.min() + cs.SELECTION_SLACK * (Tp + Tm)
    np.testing.assert_array_equal(fast[near], full[near])
    assert fast.max() == full.max()
    assert np.all(fast[~near] > full.min() + cs.SELECTION_SLACK * (Tp + Tm))
    assert np.all(fast[~near] <= full[~near] * (1 + 1e-12))
    assert first_min(fast) == first_min(full)
    for half, losses in halves:  # one labelling per call, as the scans do
        assert first_min(losses) == first_min(full[half])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), C1=st.sampled_from([1.0, 2.0, 8.0]), C2=st.floats(0.5, 2.0),
       backend=st.sampled_from(["cython", "numpy"]))
def test_signed_losses_are_the_solve_over_either_sign(seed, C1, C2, backend):
    """``ada_loss_function(signed=True)``: near its smallest loss, the loss of ada_steps on [-alpha_max, alpha_max]
    (a different iteration, so to rounding), bounds above the slack elsewhere, and the same choice."""
    b, d, Tp, Tm = _split_candidates(seed)
    with use_backend(backend):
        full = cs.ada_steps(b, d, Tp, Tm, C1, C2, alpha_min=-cs.alpha_limit(C1, C2))[1]
        fast = cs.ada_loss_function(Tp, Tm, C1, C2, signed=True)(b, d)
    slack = cs.SELECTION_SLACK * (Tp + Tm)
    near = full <= full.min() + slack / 2
    np.testing.assert_allclose(fast[near], full[near], rtol=1e-11)
    assert np.all(fast <= full * (1 + 1e-11))
    assert np.all(fast[full > full.min() + 2 * slack] > full.min() + slack / 2)
    assert full[first_min(fast)] <= full.min() * (1 + 1e-11)


@pytest.mark.parametrize("C1, C2", [(1.0, 1.0), (4.0, 1.0)])
def test_ada_losses_edge_candidates(C1, C2):
    """Perfect, all-wrong, one-class and single candidates, and calls where no candidate or every one is flat."""
    Tp, Tm = 0.4, 0.6
    b = np.array([0.0, Tp, 0.0, Tp, 0.1, 0.3])
    d = np.array([0.0, Tm, Tm, 0.0, 0.1, 0.5])
    for sl in (slice(None), slice(0, 1), slice(1, 2), slice(4, 5), slice(2, 4)):
        full = cs.ada_steps(b[sl], d[sl], Tp, Tm, C1, C2)[1]
        fast = cs.ada_losses(b[sl], d[sl], Tp, Tm, C1, C2)
        assert fast.min() == full.min() and fast.max() == full.max() and first_min(fast) == first_min(full)
    assert len(cs.ada_losses(np.empty(0), np.empty(0), Tp, Tm, C1, C2)) == 0


def test_exp_weight_update_hand_case():
    """(VI.38): positives scaled by e^{-C1 alpha g}, negatives by e^{C2 alpha g}."""
    w = cs.exp_weight_update([1.0, 1.0, 2.0], [1, -1, -1], np.array([0.5, 0.5, -0.25]), 2.0, 4.0)
    np.testing.assert_allclose(w, [np.exp(-1.0), np.exp(2.0), 2.0 * np.exp(-1.0)])
    rates = cs.exp_rates([1, -1, -1], 2.0, 4.0)  # made once per fit: the same bits
    np.testing.assert_array_equal(rates, [-2.0, 4.0, 4.0])
    same = cs.exp_weight_update([1.0, 1.0, 2.0], [1, -1, -1], np.array([0.5, 0.5, -0.25]), 2.0, 4.0, rates=rates)
    np.testing.assert_array_equal(same.view(np.int64), w.view(np.int64))


@settings(max_examples=40, deadline=None)
@given(Wp=st.floats(1e-3, 10.0), Wm=st.floats(1e-3, 10.0), C1=st.floats(0.1, 10.0), C2=st.floats(0.1, 10.0))
def test_real_output_minimises_the_cell_loss(Wp, Wm, C1, C2):
    """(VI.46) is the stationary point of Wp e^{-C1 G} + Wm e^{C2 G}; (VI.44) is that loss."""
    G = cs.real_outputs(Wp, Wm, C1, C2)
    h = 1e-6
    up, dn = (cs.real_criterion([Wp], [Wm], [G + s], C1, C2) for s in (h, -h))
    at = cs.real_criterion([Wp], [Wm], [G], C1, C2)
    assert abs(up - dn) / (2 * h) <= 1e-6 * (1 + at)
    assert up >= at - 1e-15 and dn >= at - 1e-15


def test_real_output_reduces_to_realboost():
    """C1 = C2 = 1: G = 1/2 log(P(1)/P(-1)) (VI.23); eps regularises empty cells."""
    Wp, Wm = np.array([0.3, 0.0, 0.2]), np.array([0.1, 0.2, 0.0])
    np.testing.assert_allclose(cs.real_outputs(Wp[:1], Wm[:1], 1.0, 1.0), 0.5 * np.log(3.0))
    G = cs.real_outputs(Wp, Wm, 1.0, 1.0, eps=0.01)
    np.testing.assert_allclose(G, 0.5 * np.log((Wp + 0.01) / (Wm + 0.01)))
    G0 = cs.real_outputs(Wp[:1], Wm[:1], 1.0, 1.0)
    assert cs.real_criterion(Wp[None, :1], Wm[None, :1], G0[None], 1.0, 1.0)[0] == pytest.approx(2 * np.sqrt(0.03))


@settings(max_examples=40, deadline=None)
@given(f=st.floats(-1.0, 1.0), C1=st.floats(0.1, 5.0), C2=st.floats(0.1, 5.0))
def test_link_round_trip(f, C1, C2):
    p = cs.asymmetric_inverse_link(f, C1, C2)
    assert cs.asymmetric_link(p, C1, C2) == pytest.approx(f, abs=1e-8)


def test_link_values():
    """p_c(0) = C2/(C1 + C2) (VI.54); gamma, eta of (VI.34); (VI.35) minimises the expected loss (VI.33)."""
    assert cs.asymmetric_inverse_link(0.0, 3.0, 1.0) == pytest.approx(0.25)
    assert cs.gamma_eta(3.0, 1.0) == pytest.approx((2.0, 0.5 * np.log(1 / 3)))
    assert cs.asymmetric_link(0.25, 3.0, 1.0) == pytest.approx(0.0, abs=1e-15)
    eta, C1, C2, h = 0.7, 2.0, 0.5, 1e-5
    f = cs.asymmetric_link(eta, C1, C2)
    np.testing.assert_allclose(f, np.log(eta * C1 / ((1 - eta) * C2)) / (C1 + C2))

    def risk(v):
        return eta * _binomial_loss(v, 1, C1, C2) + (1 - eta) * _binomial_loss(v, 0, C1, C2)

    assert abs(risk(f + h) - risk(f - h)) / (2 * h) < 1e-8


def test_newton_weights_give_the_newton_step_of_vi33():
    """A constant weak learner G = sum(w z)/sum(w) / (2 gamma) with p_c-weights equals -l'/l'' of (VI.33)."""
    rng = np.random.default_rng(0)
    f, y01, C1, C2 = rng.normal(size=30), rng.integers(0, 2, 30), 3.0, 0.5
    gamma, _ = cs.gamma_eta(C1, C2)
    w = cs.logit_weights(f, C1, C2, newton=True)
    z = cs.working_responses(y01, cs.asymmetric_inverse_link(f, C1, C2))
    step = np.sum(w * z) / np.sum(w) / (2 * gamma)
    h = 1e-4
    lp, l0, lm = (_binomial_loss(f + s, y01, C1, C2).sum() for s in (h, 0.0, -h))
    assert step == pytest.approx(-((lp - lm) / (2 * h)) / ((lp - 2 * l0 + lm) / h**2), rel=1e-5)


def test_logit_weights_and_responses_reduce_to_logitboost():
    """C1 = C2 = 1: p_c = p of (VI.16), both weight rules are p(1 - p) (VI.26); z is clipped when asked."""
    f = np.linspace(-3, 3, 7)
    p = np.exp(f) / (np.exp(f) + np.exp(-f))
    np.testing.assert_allclose(cs.asymmetric_inverse_link(f, 1.0, 1.0), p)
    np.testing.assert_allclose(cs.logit_weights(f, 1.0, 1.0), p * (1 - p))
    np.testing.assert_allclose(cs.logit_weights(f, 1.0, 1.0, newton=True), p * (1 - p))
    np.testing.assert_allclose(cs.logit_weights(f, 5.0, 1.0), p * (1 - p))  # (VI.50) as printed: p, not p_c
    z = cs.working_responses(np.ones(7), p, z_max=4.0)
    np.testing.assert_allclose(z, np.minimum(1 / p, 4.0))
