"""The per-iteration maths of cost-sensitive boosting (Masnadi-Shirazi thesis Ch. VI; PAMI 2011).

Costs: C1 for a miss (a positive, y = +1, predicted -1) and C2 for a false positive (VI.2).
Everything here is vectorised over candidate weak learners or samples; the boosters in
:mod:`csrepro.boosting.cost_sensitive` combine these pieces with the engine's weak learners.

- CS-AdaBoost (Alg. 4): :func:`ada_steps` solves (VI.39) for many candidates at once and returns
  their losses (VI.42); :func:`ada_losses` gives the same losses wherever they can decide which
  candidate is best, solving only those (:func:`ada_loss_function`: as a function of (b, d));
  :func:`exp_weight_update` is (VI.38) (and (VI.45) for CS-RealBoost), :func:`class_totals` a round's class
  channels and totals T+, T-.
- CS-RealBoost (Alg. 5): :func:`real_outputs` is the posterior-to-output map (VI.46) on
  (regularised) weighted class masses, :func:`real_criterion` the selection criterion (VI.44).
- CS-LogitBoost (Alg. 6): :func:`asymmetric_inverse_link` is p_c of (VI.34), :func:`asymmetric_link`
  its inverse (VI.35), :func:`working_responses` (VI.49), :func:`logit_weights` (VI.50).
"""

from __future__ import annotations

import numpy as np

from csrepro._kernels import backend, cs_ada_step, cs_ada_step_ref
from csrepro.weak.criteria import class_channels

KERNELS = {"cython": cs_ada_step, "numpy": cs_ada_step_ref}  # the step solver, by backend.current()
#: largest |C alpha| the step search may reach (e^700 is near the double range)
EXP_LIMIT = 700.0
#: the default largest |C alpha| for the larger cost: a perfect weak learner gets e^{-30} relative weight
STEP_LIMIT = 30.0
#: :func:`ada_losses` is exact within this fraction of T+ + T- of the smallest loss: 1000 times the relative
#: tie tolerance (1e-12) of the weak learners' choice (``csrepro.weak.splits.first_min``, ``trees.RTOL``)
SELECTION_SLACK = 1e-9
#: the step solver's default relative tolerance and iteration cap (:func:`ada_steps`, :func:`ada_losses`)
STEP_TOL, STEP_MAX_ITER = 1e-12, 100


def check_costs(C1, C2) -> tuple[float, float]:
    """(C1, C2) as floats; both must be finite and > 0 (VI.2)."""
    out = []
    for name, c in (("C1", C1), ("C2", C2)):
        if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not (
                np.isfinite(c) and c > 0):
            raise ValueError(f"{name} must be a finite number > 0 (the cost of a "
                             f"{'miss' if name == 'C1' else 'false positive'}, VI.2), got {c!r}")
        out.append(float(c))
    return out[0], out[1]


def alpha_limit(C1, C2) -> float:
    """The default largest |alpha| of the steps: |C alpha| <= ``STEP_LIMIT`` for the larger cost."""
    return STEP_LIMIT / max(C1, C2)


def class_balanced_weights(ys, sample_weight=None) -> np.ndarray:
    """Initial weights of Algorithms 4-5: 1/(2|I+|) on each positive, 1/(2|I-|) on each negative; with
    ``sample_weight``, sample_weight_i / (2 x the class's summed sample weight) (|I+-| counted in weight)."""
    ys = np.asarray(ys)
    pos = ys > 0
    if sample_weight is None:
        n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    else:
        n_pos, n_neg = float(sample_weight[pos].sum()), float(sample_weight[~pos].sum())
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"class-balanced weights need both classes; got {n_pos} positives and {n_neg} negatives "
                         "(counted in sample weight)")
    w = np.where(pos, 0.5 / n_pos, 0.5 / n_neg)
    return w if sample_weight is None else w * sample_weight


def ada_steps(b, d, Tp, Tm, C1, C2, alpha_min=0.0, alpha_max=None, tol=STEP_TOL, max_iter=STEP_MAX_ITER):
    """Steps alpha(g) solving (VI.39) and their losses (VI.42) for candidates with errors (b[j], d[j]).

    ``b``: weight of misclassified positives, ``d``: of misclassified negatives (VI.41); ``Tp``,
    ``Tm``: total positive and negative weight (VI.40).  alpha minimises (VI.42) on [alpha_min,
    alpha_max]: by default a non-negative step along g (candidates of both polarities are
    searched, so the better polarity wins; a worse-than-chance g gets alpha = 0 and loss T+ + T-),
    and |C alpha| <= 30 for the larger cost (a perfect weak learner gets e^{-30} relative weight).
    With C1 = C2 = 1 and alpha >= 0 it is AdaBoost's 1/2 log((1 - err)/err) (VI.21).
    Returns (alpha, loss), arrays of len(b), solved by the kernel of :func:`csrepro._kernels.backend.current`.
    """
    C1, C2 = check_costs(C1, C2)
    b = np.ascontiguousarray(b, dtype=np.float64)
    d = np.ascontiguousarray(d, dtype=np.float64)
    if b.shape != d.shape or b.ndim != 1:
        raise ValueError(f"b and d must be 1-d arrays of one length, got shapes {b.shape} and {d.shape}")
    amax = alpha_limit(C1, C2) if alpha_max is None else float(alpha_max)
    if not (0 < amax * max(C1, C2) <= EXP_LIMIT and -amax <= alpha_min < amax):
        raise ValueError(f"need 0 < alpha_max * max(C1, C2) <= {EXP_LIMIT} and -alpha_max <= alpha_min < alpha_max, "
                         f"got alpha_min={alpha_min!r}, alpha_max={amax!r}; lower alpha_max or fix alpha_min")
    alpha, loss = np.empty_like(b), np.empty_like(b)
    KERNELS[backend.current()].solve_steps(b, d, float(Tp), float(Tm), C1, C2, float(alpha_min), amax, float(tol),
                                           int(max_iter), alpha, loss)
    return alpha, loss


def ada_losses(b, d, Tp, Tm, C1, C2) -> np.ndarray:
    """The losses of :func:`ada_steps` (default step range) where they can decide the best candidate.

    Exactly :func:`ada_steps`'s loss (the same bits) for every candidate that may lie within ``SELECTION_SLACK``
    (T+ + T-) of the smallest loss or be the largest; every other entry is a lower bound of its loss, above
    smallest + ``SELECTION_SLACK`` (T+ + T-) and below the largest.  So the smallest and largest entries, and
    the candidates near the smallest, are those of :func:`ada_steps`, and the weak learners' choice
    (``csrepro.weak.splits.first_min``) is the same.  Only these candidates are solved: the kernel's
    ``ada_losses`` (of :func:`csrepro._kernels.backend.current`; its docstring states the bounds) gives the
    losses at alpha = 0 (L'(0) >= 0) in closed form, bounds every other candidate without exponentials, tightens
    the bounds of those near the best or the largest (strong convexity at a step shared by all, a cosh bound, then
    one Newton step and strong convexity) and solves the few it cannot rule out.
    """
    return ada_loss_function(Tp, Tm, C1, C2)(b, d)


def ada_loss_function(Tp, Tm, C1, C2, signed=False):
    """``f(b, d)`` = :func:`ada_losses` (b, d, Tp, Tm, C1, C2), the costs checked once (a booster's criterion for
    one round: called on every node's candidates).

    ``signed``: the losses at the best alpha of either sign, |C alpha| <= 30 (:func:`ada_steps` with
    ``alpha_min = -alpha_max``).  A step -alpha < 0 along g is the step alpha along -g, whose errors are
    (T+ - b, T- - d), so these are the least of the two candidates' :func:`ada_losses`, got in one kernel call: the
    call's smallest loss is the least of both, and the entries it bounds lie above it plus the slack, so the least
    and every candidate within the slack of it are exact.
    """
    C1, C2 = check_costs(C1, C2)
    Tp, Tm = float(Tp), float(Tm)
    args = Tp, Tm, C1, C2, alpha_limit(C1, C2), SELECTION_SLACK, STEP_TOL, STEP_MAX_ITER

    def losses(b, d):
        b = np.ascontiguousarray(b, dtype=np.float64)
        d = np.ascontiguousarray(d, dtype=np.float64)
        if b.shape != d.shape or b.ndim != 1:
            raise ValueError(f"b and d must be 1-d arrays of one length, got shapes {b.shape} and {d.shape}")
        if signed:
            b, d = np.concatenate([b, Tp - b]), np.concatenate([d, Tm - d])
        loss = np.empty_like(b)
        KERNELS[backend.current()].ada_losses(b, d, *args, loss)
        return np.minimum(loss[:len(b) // 2], loss[len(b) // 2:]) if signed else loss

    return losses


def exp_rates(ys, C1, C2) -> np.ndarray:
    """-C1 on positives, C2 on negatives: the exponent of (VI.38)/(VI.45) per unit of G(x)."""
    return np.where(np.asarray(ys) > 0, -C1, C2)


def exp_weight_update(w, ys, G, C1, C2, rates=None) -> np.ndarray:
    """(VI.38)/(VI.45): w e^{-C1 G(x)} on positives, w e^{C2 G(x)} on negatives, for the step G = alpha g or G^real;
    ``rates``: :func:`exp_rates` (ys, C1, C2) when already made (a fit makes it once)."""
    return np.asarray(w) * np.exp((exp_rates(ys, C1, C2) if rates is None else rates) * np.asarray(G))


def class_totals(w, ys, rows) -> tuple[np.ndarray, float, float]:
    """(``csrepro.weak.criteria.class_channels`` (w, ys), T+, T-): the sums of w over ``rows`` = (positive rows,
    negative rows), as ``w[rows].sum()`` (the backend's ``class_sums``: NumPy's pairwise sums, the same bits)."""
    w = np.ascontiguousarray(w, dtype=np.float64)
    Tp, Tm = KERNELS[backend.current()].class_sums(w, *rows)
    return class_channels(w, ys), Tp, Tm


def real_outputs(Wp, Wm, C1, C2, eps=0.0) -> np.ndarray:
    """(VI.46): G = 1/(C1 + C2) log((Wp + eps) C1 / ((Wm + eps) C2)) per cell of weighted class masses.

    The weighted posteriors P^(w)(y | phi) are proportional to the class masses of a cell
    (histogram bin or tree leaf); ``eps`` > 0 regularises empty cells (Sec. VI.D.3).
    """
    Wp, Wm = np.asarray(Wp, float) + eps, np.asarray(Wm, float) + eps
    with np.errstate(divide="ignore"):
        return (np.log(Wp * C1) - np.log(Wm * C2)) / (C1 + C2)


def real_criterion(Wp, Wm, G, C1, C2) -> np.ndarray:
    """(VI.44) summed over cells (last axis): sum Wp e^{-C1 G} + Wm e^{C2 G}."""
    return np.sum(np.asarray(Wp) * np.exp(-C1 * np.asarray(G)) + np.asarray(Wm) * np.exp(C2 * np.asarray(G)), axis=-1)


def gamma_eta(C1, C2) -> tuple[float, float]:
    """gamma = (C1 + C2)/2 and eta = 1/2 log(C2/C1) of (VI.34)."""
    C1, C2 = check_costs(C1, C2)
    return 0.5 * (C1 + C2), 0.5 * np.log(C2 / C1)


def asymmetric_inverse_link(f, C1, C2) -> np.ndarray:
    """p_c(f) = e^{gamma f + eta} / (e^{gamma f + eta} + e^{-gamma f - eta}) (VI.34), i.e. sigmoid(2(gamma f + eta))."""
    g, e = gamma_eta(C1, C2)
    return 0.5 * (1.0 + np.tanh(g * np.asarray(f, float) + e))


def asymmetric_link(p, C1, C2) -> np.ndarray:
    """Inverse of (VI.34): f = (1/2 log(p/(1-p)) - eta)/gamma, i.e. (VI.35) 1/(C1+C2) log(p C1/((1-p) C2))."""
    g, e = gamma_eta(C1, C2)
    p = np.asarray(p, float)
    with np.errstate(divide="ignore"):
        return (0.5 * (np.log(p) - np.log1p(-p)) - e) / g


def working_responses(y01, pc, z_max=None) -> np.ndarray:
    """(VI.49): z = (y' - p_c)/(p_c (1 - p_c)), clipped to [-z_max, z_max] when z_max is given.

    Friedman et al. (2000, Sec. 4.1) bound z (they suggest 2 to 4) where p_c is near 0 or 1.
    """
    pc = np.asarray(pc, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (np.asarray(y01, float) - pc) / (pc * (1.0 - pc))
    z = np.where(np.isnan(z), 0.0, z)
    return z if z_max is None else np.clip(z, -z_max, z_max)


def logit_weights(f, C1, C2, newton=False) -> np.ndarray:
    """(VI.50): w = p(1 - p) with p of (VI.16) at f (as printed in Alg. 6), or p_c(1 - p_c) when ``newton``.

    The Newton step of the proof (App. VI.H.4) has curvature 4 gamma^2 p_c (1 - p_c), so its
    weights are p_c (1 - p_c); the two coincide when C1 = C2 = 1.
    """
    p = asymmetric_inverse_link(f, C1, C2) if newton else 0.5 * (1.0 + np.tanh(np.asarray(f, float)))
    return p * (1.0 - p)
