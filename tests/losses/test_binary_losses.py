"""Binary margin losses of the thesis (Ch. II-IV): Bayes consistency, canonical identities, boundedness."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from csrepro.losses.binary import HINGE, MARGIN_LOSSES, TABLE_II8, CostSensitiveHinge, get_margin_loss

PARAMETRIC = {"canonical_logistic", "canonical_boosting", "canonical_gaussian", "canonical_laplacian"}


def _a_values(name):
    if name in PARAMETRIC:
        return (0.3, 1.0, 4.0)
    if name.startswith("table_ii8_") and set(TABLE_II8[int(name.rsplit("_", 1)[1])][:2]) & {"sec", "cosh", "logcos"}:
        return (0.5, 1.0, 2.5)
    return (1.0,)


CASES = [(name, a) for name in MARGIN_LOSSES for a in _a_values(name)]
IDS = [f"{n}-a{a:g}" for n, a in CASES]
INVERTIBLE = [c for c in CASES if c[0] != "hinge"]
CANONICAL = [c for c in CASES if get_margin_loss(*c).canonical]
ETAS = np.linspace(0.02, 0.98, 49)


@pytest.mark.parametrize("name, a", CASES, ids=IDS)
@settings(max_examples=15, deadline=None)
@given(eta=st.floats(0.03, 0.97))
def test_bayes_consistency_argmin_of_conditional_risk_is_the_link(name, a, eta):
    """argmin_f eta phi(f) + (1 - eta) phi(-f) = f*(eta) (II.11), found numerically (quasi-convex: Thm 17)."""
    loss = get_margin_loss(name, a)
    target = float(loss.link(eta))
    half = 5.0 + 3.0 * abs(target)
    res = minimize_scalar(lambda f: float(loss.conditional_risk(eta, f)), bounds=(-half, half), method="bounded",
                          options={"xatol": 1e-11})
    assert float(loss.conditional_risk(eta, target)) <= res.fun + 1e-12 * (1 + abs(res.fun))
    if name == "hinge" and abs(eta - 0.5) < 1e-3:
        return  # every f in [-1, 1] minimises C(1/2, f)
    tol = 1e-4 if name == "hinge" else 1e-5  # the hinge minimum is a kink at +-1
    assert res.x == pytest.approx(target, abs=tol * (1 + abs(target)))
    assert np.sign(target) == np.sign(2 * eta - 1) or abs(eta - 0.5) < 1e-12  # Bayes decision rule (II.7)


@pytest.mark.parametrize("name, a", INVERTIBLE, ids=[f"{n}-a{a:g}" for n, a in INVERTIBLE])
def test_inverse_link_inverts_the_link(name, a):
    loss = get_margin_loss(name, a)
    np.testing.assert_allclose(loss.inverse_link(loss.link(ETAS)), ETAS, rtol=1e-10, atol=1e-12)
    v = np.linspace(-50, 50, 201)
    p = loss.inverse_link(v)
    assert np.all((p >= 0) & (p <= 1)) and np.all(np.diff(p) >= 0)
    np.testing.assert_allclose(p + loss.inverse_link(-v), 1.0, atol=1e-12)  # (II.18)


@pytest.mark.parametrize("name, a", CASES, ids=IDS)
def test_min_risk_is_the_risk_at_the_link_and_symmetric(name, a):
    loss = get_margin_loss(name, a)
    cstar = loss.min_conditional_risk(ETAS)
    np.testing.assert_allclose(cstar, loss.conditional_risk(ETAS, loss.link(ETAS)), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(cstar, loss.min_conditional_risk(1 - ETAS), rtol=1e-9, atol=1e-12)  # (II.15)
    np.testing.assert_allclose(loss.link(ETAS), -loss.link(1 - ETAS), rtol=1e-9, atol=1e-12)  # (II.13)


@pytest.mark.parametrize("name, a", CASES, ids=IDS)
def test_derivative_matches_finite_differences(name, a):
    loss = get_margin_loss(name, a)
    v = np.linspace(-6, 6, 97) + 0.0123  # off the hinge kink at v = 1
    h = 1e-6
    fd = (loss.value(v + h) - loss.value(v - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(v), fd, rtol=1e-5, atol=1e-6 * (1 + np.abs(fd).max()))
    np.testing.assert_array_equal(loss.weight(v), -loss.derivative(v))


@pytest.mark.parametrize("name, a", CANONICAL, ids=[f"{n}-a{a:g}" for n, a in CANONICAL])
def test_canonical_identities(name, a):
    """f* = J' = -[C*]' (III.23), w(v) = 1 - [f*]^{-1}(v) (III.57), phi(v) - phi(-v) = -v (Theorem 11)."""
    loss = get_margin_loss(name, a)
    h = 1e-6
    dcstar = (loss.min_conditional_risk(ETAS + h) - loss.min_conditional_risk(ETAS - h)) / (2 * h)
    np.testing.assert_allclose(-dcstar, loss.link(ETAS), rtol=1e-5, atol=1e-6)
    v = loss.link(ETAS)
    np.testing.assert_allclose(loss.weight(v), 1 - loss.inverse_link(v), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(loss.value(v) - loss.value(-v), -v, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["exponential", "savage", "tangent", "square", "table_ii8_7", "table_ii8_10"])
def test_non_canonical_losses_fail_iii23(name):
    loss = get_margin_loss(name)
    assert not loss.canonical
    h = 1e-6
    dcstar = (loss.min_conditional_risk(ETAS + h) - loss.min_conditional_risk(ETAS - h)) / (2 * h)
    assert np.max(np.abs(-dcstar - loss.link(ETAS))) > 1e-2


@pytest.mark.parametrize("a", [0.1, 0.5, 1.0, 5.0, 10.0])
def test_table_iii2_weights(a):
    v = np.linspace(-8, 8, 161)
    from scipy.special import erf

    expected = {
        "canonical_logistic": np.exp(-a * v) / (1 + np.exp(-a * v)),
        "canonical_boosting": 0.5 - 0.5 * a * v / np.sqrt(4 + (a * v) ** 2),  # 1 - (III.34), (III.57)
        "canonical_gaussian": 0.5 - 0.5 * erf(v / (np.sqrt(2) * a)),
        "canonical_laplacian": 0.5 - 0.5 * np.sign(v) * (1 - np.exp(-np.abs(v) / a)),
    }
    for name, w in expected.items():
        np.testing.assert_allclose(get_margin_loss(name, a).weight(v), w, rtol=1e-10, atol=1e-14, err_msg=name)


def test_hand_values():
    assert get_margin_loss("exponential").value(0.5) == pytest.approx(np.exp(-0.5))
    assert get_margin_loss("logistic").value(0.0) == pytest.approx(np.log(2))
    assert get_margin_loss("savage").value(0.0) == pytest.approx(0.25)  # 1 / (1 + 1)^2
    assert get_margin_loss("tangent").value(1.0) == pytest.approx((np.pi / 2 - 1) ** 2)
    assert get_margin_loss("canonical_boosting", 2.0).value(1.0) == pytest.approx((np.sqrt(8) - 2) / 4)
    assert get_margin_loss("canonical_laplacian", 2.0).value(-1.0) == pytest.approx(np.exp(-0.5) + 1)
    assert get_margin_loss("canonical_gaussian", 1.0).value(0.0) == pytest.approx(1 / np.sqrt(2 * np.pi))
    assert get_margin_loss("savage").min_conditional_risk(0.5) == pytest.approx(0.25)
    assert get_margin_loss("canonical_laplacian", 3.0).min_conditional_risk(0.5) == pytest.approx(1.5)  # (III.47)


def test_bounded_losses_stay_bounded_for_large_negative_margins():
    for name in ("savage", "tangent"):
        loss = get_margin_loss(name)
        assert loss.bounded
        far = loss.value(np.array([-1e3, -1e6]))
        assert np.all(np.isfinite(far)) and abs(far[1] - far[0]) < 1e-2 * far[1]
        assert far[1] == pytest.approx({"savage": 1.0, "tangent": (np.pi + 1) ** 2}[name], rel=1e-5)
    for name in ("exponential", "logistic"):
        loss = get_margin_loss(name)
        assert not loss.bounded
        assert loss.value(-1e3) > 100 * loss.value(-5.0)


@pytest.mark.parametrize("name, a", [c for c in CASES if c[0].startswith("table_ii8_")],
                         ids=[i for c, i in zip(CASES, IDS) if c[0].startswith("table_ii8_")])
def test_table_ii8_type_matches_the_shape(name, a):
    """Types of Theorem 24: III unbounded only on the left, V/VI bounded, I unbounded on both sides.

    The Sec link approaches its bound like |v|^{-1/2}, hence the far-out margins.
    """
    loss = get_margin_loss(name, a)
    kind = TABLE_II8[int(name.rsplit("_", 1)[1])][2]
    with np.errstate(over="ignore"):
        left, right = loss.value(np.array([-1e8, -1e12])), loss.value(np.array([1e8, 1e12]))
    left_bounded = np.isfinite(left[1]) and abs(left[1] - left[0]) < 1e-2 * (1 + abs(left[0]))
    right_bounded = np.isfinite(right[1]) and abs(right[1] - right[0]) < 1e-2 * (1 + abs(right[0]))
    assert left_bounded == (kind in ("V", "VI")) == loss.bounded
    assert right_bounded == (kind != "I")


def test_known_losses_are_table_ii8_rows():
    v = np.linspace(-20, 20, 401)
    same = [("table_ii8_9", 1.0, "logistic", 1.0), ("table_ii8_8", 1.0, "canonical_boosting", 1.0),
            ("table_ii8_6", 1.0, "tangent", 1.0)]
    for row, ra, name, a in same:
        np.testing.assert_allclose(get_margin_loss(row, ra).value(v), get_margin_loss(name, a).value(v), rtol=1e-12)
    np.testing.assert_allclose(get_margin_loss("table_ii8_7").value(v), np.exp(-v / 2), rtol=1e-12)
    np.testing.assert_allclose(get_margin_loss("table_ii8_3").value(2 * v) / 4, get_margin_loss("savage").value(v),
                               rtol=1e-10, atol=1e-300)


def _printed_table_ii8(row, a, v):
    """Legible printed phi(v) of Table II.8 (rows 17 and 20 print an a-free coefficient: checked at a = 1)."""
    r = np.sqrt(4 + v * v)
    A = np.arcsin((a - np.sqrt(a * a + 4 * v * v)) / (2 * v))
    sec = lambda x: 1 / np.cos(x)
    e = np.exp(v)
    return {
        1: (v - 4) ** 2 / 16,
        2: 1 - 2 * v / r + v * v / (4 + v * v),
        4: 1 + 4 / a * np.arcsinh(-v / a) + 4 / a**2 * np.arcsinh(-v / a) ** 2,
        5: 1 + 4 / a * A + 4 / a**2 * A**2,
        6: (2 / a * np.arctan(v) - 1) ** 2,
        10: -np.log(0.5 + v / (2 * r)),
        11: sec(0.5 * a * (1 - e) / (1 + e)) * (-1 + a / (1 + e) * np.tan(0.5 * a * (1 - e) / (1 + e))),
        12: -sec(a * v / (2 * r)) * (1 + a * (0.5 - v / (2 * r)) * np.tan(a * v / (2 * r))),
        13: -sec(A) - (0.5 + A / a) * v,
        14: -sec(np.arctan(v)) * (1 + a * (0.5 - np.arctan(v) / a) * v),
        15: -np.cosh(-a * v / 8) + a * (4 - v) / 8 * np.sinh(-a * v / 8),
        16: -np.cosh(0.5 * a * (1 - e) / (1 + e)) + a / (1 + e) * np.sinh(0.5 * a * (1 - e) / (1 + e)),
        17: -np.cosh(A) + (0.5 + A / a) * np.sinh(A),
        18: -np.cosh(np.arcsinh(-v / a)) - (0.5 + np.arcsinh(-v / a) / a) * v,
        19: -np.cosh(a * v / (2 * r)) - a * (0.5 - v / (2 * r)) * np.sinh(a * v / (2 * r)),
        20: -np.cosh(np.arctan(v) / a) - (0.5 - np.arctan(v) / a) * np.sinh(np.arctan(v) / a),
        21: np.log(np.cos(a * (e / (1 + e) - 0.5)) / np.cos(a / 2)) / a - np.tan(a * (e / (1 + e) - 0.5)) / (1 + e),
        22: np.log(np.cos(a * v / (2 * r)) / np.cos(a / 2)) / a - (0.5 - v / (2 * r)) * np.tan(a * v / (2 * r)),
        23: np.log(np.cos(-A) / np.cos(a / 2)) / a - (0.5 + A / a) * np.tan(-A),
        24: -np.log(np.cos(a / 2) * np.sqrt(1 + v * v)) / a - (0.5 - np.arctan(v) / a) * v,
    }[row]


@pytest.mark.parametrize("row", [1, 2, 4, 5, 6, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24])
def test_table_ii8_matches_the_printed_losses_up_to_a_constant(row):
    """(II.48) reproduces the printed phi up to the constant of J (Table II.4 vs II.5)."""
    v = np.linspace(-4, 4, 80) + 0.05  # avoid v = 0 in the printed Sec forms
    for a in ((1.0,) if row in (17, 20) else (0.7, 1.0, 2.0)):
        if row in (1, 2, 10) and a != 1.0:
            continue
        diff = get_margin_loss(f"table_ii8_{row}", a).value(v) - _printed_table_ii8(row, a, v)
        np.testing.assert_allclose(diff, diff[0], atol=1e-9, err_msg=f"row {row}, a={a}")


@pytest.mark.parametrize("name, a", CASES, ids=IDS)
def test_no_overflow_or_nan_at_large_margins(name, a):
    loss = get_margin_loss(name, a)
    v = np.array([-1e3, -1e2, 1e2, 1e3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = [loss.value(v), loss.derivative(v)]
        if name != "hinge":
            out.append(loss.inverse_link(v))
    for arr in out:
        assert not np.any(np.isnan(arr))
        if name != "exponential":  # e^{1000} is not a float64
            assert np.all(np.isfinite(arr))


def test_hinge_has_no_inverse_link():
    with pytest.raises(ValueError, match="non-invertible"):
        get_margin_loss("hinge").inverse_link(0.3)


def test_get_margin_loss_validates():
    with pytest.raises(ValueError, match="unknown margin loss 'nope'.*canonical_logistic"):
        get_margin_loss("nope")
    with pytest.raises(ValueError, match="no margin parameter"):
        get_margin_loss("savage", a=2.0)
    with pytest.raises(ValueError, match=r"must be in \(0, 3.14159"):
        get_margin_loss("table_ii8_24", a=4.0)
    with pytest.raises(ValueError, match=r"must be in \(0, inf\)"):
        get_margin_loss("canonical_logistic", a=0.0)
    loss = get_margin_loss("canonical_logistic", 2)
    assert (loss.name, loss.a, loss.canonical, loss.bounded) == ("canonical_logistic", 2.0, True, False)
    assert get_margin_loss("table_ii8_18", 1.5).name == "table_ii8_18"


def _eta_methods(loss):
    """Every method of ``loss`` that takes a probability eta, as functions of eta."""
    if isinstance(loss, CostSensitiveHinge):
        return [loss.predictor, loss.min_conditional_risk, lambda eta: loss.conditional_risk(eta, 0.3)]
    return [loss.link, loss.min_conditional_risk, lambda eta: loss.conditional_risk(eta, 0.3)]


@pytest.mark.parametrize("loss", [get_margin_loss(*c) for c in CASES] + [HINGE, CostSensitiveHinge(4.0, 2.0)],
                         ids=IDS + ["cs_hinge-1-1", "cs_hinge-4-2"])
def test_eta_outside_the_unit_interval_is_refused(loss):
    """A probability outside [0, 1] or NaN is an error naming it (Savage's C*(1.5) was -0.75); 0 and 1 are valid."""
    for method in _eta_methods(loss):
        for bad in (1.5, -0.25, np.nan):
            with pytest.raises(ValueError, match=rf"must lie in \[0, 1\]; got {bad!r} \(1 of 2 values outside\)"):
                method(np.array([0.5, bad]))
        with np.errstate(all="ignore"):
            assert np.shape(method(np.array([0.0, 1.0]))) == (2,)
