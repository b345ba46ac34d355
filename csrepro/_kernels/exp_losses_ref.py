"""NumPy reference of :mod:`csrepro._kernels.exp_losses` (same maths, array at a time).

What is specific to a loss is a row of the tables below, as in the kernel's template: a family's
exponent shift and whether G has the second sum (``FAMILY_TABLE``), an outer function's state
scale, fold, value and derivatives (``OUTER_TABLE``); a loss's codes are its rows' indices.
Sample weights ``sw`` (None: unweighted, the same arithmetic as without) multiply each sample's loss and
derivatives in the sums, as in the kernel.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from csrepro.boosting.line_search import newton_line_search


class Family(NamedTuple):
    """G = sum_j c_j exp(a_j) (times sum_k exp(-s_k) if ``paired``), a_j = s_j - ``shift(S, z)``."""

    name: str
    shift: Callable
    paired: bool


class Outer(NamedTuple):
    """gamma(G) on the state G = e^m s (see the kernel's module docstring)."""

    name: str
    scale: Callable  # the state's scale from m
    fold: Callable  # (scale, row divisor rho) -> the scale with rho folded in
    value: Callable  # (s0, scale) -> gamma
    derivatives: Callable  # (moments s0..s3 of s along the line, scale) -> gamma's first three derivatives
    dense: Callable  # (m, moments g0..g2 of G / e^m) -> gamma and its first two derivatives


def _weighted(x, sw):
    """Per-sample values ``x`` (last axis: samples) times the sample weights; ``x`` itself for None."""
    return x if sw is None else x * sw


def _true_scores(X, z):
    return X[np.arange(len(z)), z][:, None]


def _no_shift(X, z):
    return 0.0


def _log1p_derivatives(s, scale):
    # derivatives of log(1 + e^m s0) = log(s0 + e^-m) + m; scale = e^-m
    r1, r2, r3 = s[1] / (s[0] + scale), s[2] / (s[0] + scale), s[3] / (s[0] + scale)
    return r1, r2 - r1 * r1, r3 - 3 * r1 * r2 + 2 * r1**3


def _identity_dense(m, g):
    em = np.exp(m)
    return em * g[0], em * g[1], em * g[2]


def _log1p_dense(m, g):
    lg = m + np.log(g[0])
    p = 1.0 / (1.0 + np.exp(-lg))
    r1 = g[1] / g[0] * p
    return np.logaddexp(0.0, lg), r1, g[2] / g[0] * p - r1 * r1


# Beijbom et al. 2014
FAMILY_TABLE = (
    Family("margin", _true_scores, False),  # eqs. 20-22: a_j = s_j - s_z
    Family("plain", _no_shift, False),  # eq. 12
    Family("pairwise", _no_shift, True),  # eq. 14
)
OUTER_TABLE = (
    Outer("identity", np.exp, lambda scale, rho: scale * rho, lambda s0, scale: scale * s0,
          lambda s, scale: (scale * s[1], scale * s[2], scale * s[3]), _identity_dense),
    Outer("log1p", lambda m: np.exp(-m), lambda scale, rho: scale / rho, lambda s0, scale: np.log1p(s0 / scale),
          _log1p_derivatives, _log1p_dense),
)
FAMILIES = {f.name: code for code, f in enumerate(FAMILY_TABLE)}
OUTERS = {o.name: code for code, o in enumerate(OUTER_TABLE)}


def _leibniz(s, b):
    """Moments of the product of two sums from theirs (as many as ``s`` has, 3 or 4)."""
    p = [s[0] * b[0], s[1] * b[0] + s[0] * b[1], s[2] * b[0] + 2 * s[1] * b[1] + s[0] * b[2]]
    if len(s) == 4:
        p.append(s[3] * b[0] + 3 * (s[2] * b[1] + s[1] * b[2]) + s[0] * b[3])
    return p


def _moments(A, B, alpha):
    """Shift m and moments s_p = sum_j A e^{alpha b} b^p / e^m over the last axis (A = log-weights)."""
    E = A + alpha * B
    m = np.max(E, axis=1, keepdims=True)
    T = np.exp(E - m)
    return m[:, 0], [T.sum(1), (T * B).sum(1), (T * B * B).sum(1)]


def sample_terms(S, g, v, z, C, family, outer, alpha):
    """Per-sample loss at ``alpha`` along S + alpha g v^T and its first two alpha-derivatives."""
    fam = FAMILY_TABLE[family]
    with np.errstate(divide="ignore"):
        logc = np.log(C[z])  # -inf drops zero-cost terms
    G = g[:, None] * v[None, :]
    m, s = _moments(logc + S - fam.shift(S, z), G - fam.shift(G, z), alpha)
    if fam.paired:
        mb, b = _moments(-S, -G, alpha)
        m, s = m + mb, _leibniz(s, b)
    return OUTER_TABLE[outer].dense(m, s)


def line_totals(S, g, v, z, C, family, outer, alpha, sw=None):
    """Summed loss at ``alpha`` and its first two alpha-derivatives (``sw``: sum_i sw_i L_i and its derivatives)."""
    return tuple(float(_weighted(t, sw).sum()) for t in sample_terms(S, g, v, z, C, family, outer, alpha))


TINY = np.exp(-700.0)


def _normalise(T, floor):
    """Rows of T scaled to a largest entry of 1 and floored at ``floor``; returns (T, divisors)."""
    rho = np.maximum(T.max(axis=1), TINY)
    return np.maximum(T / rho[:, None], floor), rho


def load_state(S, z, C, family, outer, P, Q, scale):
    """The state of the loss terms at scores S (see the kernel's module docstring; ``P``, ``Q``: term j of sample i
    at [j, i])."""
    fam, out = FAMILY_TABLE[family], OUTER_TABLE[outer]
    c = C[z]
    a = S - fam.shift(S, z)
    m = np.where(c > 0, a, -np.inf).max(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        P.T[:], rho = _normalise(np.where(c > 0, c * np.exp(np.maximum(a - m[:, None], -700.0)), 0.0),
                                 TINY * c)
        if fam.paired:
            mb = (-S).max(axis=1)
            Q.T[:], rho_b = _normalise(np.exp(np.maximum(-S - mb[:, None], -700.0)), TINY)
            m, rho = m + mb, rho * rho_b
        scale[:] = out.fold(out.scale(m), rho)


def apply_step(P, Q, scale, z, C, factors, group, family, outer, rows=None, order=None, starts=None, uniq=None,
               off=None, wh=None, A=None, B=None, with_loss=False, sw=None):
    """Update (32) of the state: each term times its group's factor (see :func:`line_factors`;
    with ``rows``, sample i's factors are row ``rows[i]``).  With ``order`` (and ``starts`` .. ``sw``), then
    :func:`prepare_step` of the next coordinate, whose result it returns (else 0)."""
    factors = factors if rows is None else factors[rows]
    P.T[:], rho = _normalise(P.T * factors[:, group], TINY * C[z])
    if FAMILY_TABLE[family].paired:
        Q.T[:], rho_b = _normalise(Q.T * factors[:, factors.shape[1] // 2 + group], TINY)
        rho = rho * rho_b
    scale[:] = OUTER_TABLE[outer].fold(scale, rho)
    if order is None:
        return 0.0
    return prepare_step(P, Q, scale, order, starts, uniq, off, family, outer, wh, A, B, with_loss, sw)


def prepare_step(P, Q, scale, order, starts, uniq, off, family, outer, wh, A, B, with_loss=False, sw=None):
    """Weights (34)-(37) with the next two derivatives (``wh``; only the weights if it has one row)
    and grouped line-search terms from the state; with ``sw``, each sample's times its weight.

    Returns the (weighted) summed loss when ``with_loss``, else 0.
    """
    paired = FAMILY_TABLE[family].paired
    n, nu = P.shape[1], len(uniq)
    group = np.repeat(np.arange(nu), np.diff(starts))[np.argsort(order)]
    onehot = np.eye(nu)[group]  # (M, U): term j belongs to group group[j]
    A[:] = P.T @ onehot
    B[:] = Q.T @ onehot if paired else 0.0
    ones = np.ones((n, nu))
    wh[:] = _weighted(np.stack(_sample_derivatives(A, B, ones, ones, uniq, off, np.ones(n), scale, family,
                                                   outer)[:len(wh)]), sw)
    if not with_loss:
        return 0.0
    s0 = A.sum(1) * (B.sum(1) if paired else 1.0)
    return float(np.sum(_weighted(OUTER_TABLE[outer].value(s0, scale), sw)))


def line_factors(uniq, off, g, family, alpha, work):
    """Each group's factor along g at ``alpha`` (exp(alpha g (uniq - off)), pairwise: also exp(-alpha g uniq))."""
    nu = len(uniq)
    ag = alpha * g[:, None]
    with np.errstate(over="ignore"):
        work[:, :nu] = np.exp(np.maximum(ag * (uniq[None, :] - off[:, None]), -700.0))
        if FAMILY_TABLE[family].paired:
            work[:, nu:] = np.exp(np.maximum(-ag * uniq[None, :], -700.0))


def _grouped(A, X, b):
    e = A * X
    return [(e * b**p).sum(1) for p in range(4)]


def _sample_derivatives(A, B, XA, XB, uniq, off, g, scale, family, outer):
    """Per-sample first three alpha-derivatives from the groups and their factors (``XB``: pairwise only)."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = _grouped(A, XA, g[:, None] * (uniq[None, :] - off[:, None]))
        if FAMILY_TABLE[family].paired:
            s = _leibniz(s, _grouped(B, XB, -g[:, None] * uniq[None, :]))
        return OUTER_TABLE[outer].derivatives(s, scale)


def line_derivatives(A, B, scale, uniq, off, g, family, outer, alpha, work, rows=None, row_g=None, row_off=None,
                     sw=None):
    """Summed (``sw``: weighted) first three alpha-derivatives along g (31); leaves the factors in ``work``
    (with ``rows``: computed per cell from ``row_g``, ``row_off``; sample i reads row ``rows[i]``)."""
    nu = len(uniq)
    if rows is None:
        line_factors(uniq, off, g, family, alpha, work)
        X = work
    else:
        line_factors(uniq, row_off, row_g, family, alpha, work)
        X = work[rows]
    d = _sample_derivatives(A, B, X[:, :nu], X[:, nu:2 * nu], uniq, off, g, scale, family, outer)
    return tuple(float(np.sum(_weighted(t, sw))) for t in d)


def line_search(A, B, scale, uniq, off, g, family, outer, work, tol, max_iter, start=None, rows=None, row_g=None,
                row_off=None, sw=None, max_step=1e8):
    """:func:`~csrepro.boosting.line_search.newton_line_search` on :func:`line_derivatives`; returns (alpha,
    evaluations, the last alpha evaluated, whose factors are left in ``work``, or None)."""
    evaluated = []

    def derivatives(alpha):
        evaluated.append(alpha)
        return line_derivatives(A, B, scale, uniq, off, g, family, outer, alpha, work, rows, row_g, row_off, sw)

    alpha, evaluations = newton_line_search(derivatives, tol=tol, max_iter=max_iter, max_step=max_step, start=start)
    return alpha, evaluations, evaluated[-1] if evaluated else None


def aggregate_cells(A, B, scale, rows, family, out, sw=None):
    """Per-cell sums of scale_i A[i, u] (pairwise: of scale_i A[i, u] B[i, k], column u U + k); with ``sw``,
    scale_i times sw_i."""
    W = _weighted(scale, sw)[:, None] * A
    if FAMILY_TABLE[family].paired:
        W = (W[:, :, None] * B[:, None, :]).reshape(len(A), -1)
    out[:] = 0.0
    np.add.at(out, rows, W)


def cell_line(values, a, b, row_g, codes=None, offset_index=None, rows=None):
    """Each cell's weak-learner value a values + b (``n_off`` cells per value) into ``row_g``; with ``codes``, each
    sample's cell codes n_off + offset_index into ``rows``."""
    n_off = len(row_g) // len(values)
    row_g[:] = np.repeat(a * values + b, n_off)
    if codes is not None:
        rows[:] = codes * n_off + offset_index


def line_start(x, a, b, wh, g):
    """Fill ``g`` with a x + b; return sum_i wh[p, i] g_i^(p+1), the line's derivatives at 0."""
    g[:] = a * x + b
    return tuple(float(np.sum(wh[p] * g ** (p + 1))) for p in range(3))
