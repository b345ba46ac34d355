"""The SMO dual solver: Cython vs NumPy transcription, optimality certificate (KKT, duality gap), warm starts."""

import numpy as np
import pytest

from csrepro._kernels import smo, smo_ref
from csrepro._kernels.backend import use_backend
from csrepro.svm import dual_terms, kernel_matrix, solve_dual

TOL = 1e-10  # stopping tolerance of the certified solves
# rounding allowed when K @ (alpha y) is recomputed in another order than the solver's updates of G
ROUNDING = 1e-12


def _problem(seed, n=30, kernel="rbf", duplicates=False):
    """A random dual: overlapping classes, per-sample p in [0.2, 1] and U in [0.05, 3]."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    if duplicates:
        X[1::5] = X[0::5][: len(X[1::5])]  # K_ii + K_jj - 2 K_ij = 0 for some pairs
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, 1.0, -1.0)
    K = kernel_matrix(kernel, X, X, 0.4)
    return K, y, rng.uniform(0.2, 1.0, n), rng.uniform(0.05, 3.0, n)


def _extremes(K, y, p, upper, alpha):
    """m = max over I_up and M = min over I_low of -y_t G_t (see smo.pyx)."""
    v = -y * (y * (K @ (alpha * y)) - p)
    up = np.where(y > 0, alpha < upper, alpha > 0)
    low = np.where(y > 0, alpha > 0, alpha < upper)
    return v[up].max(), v[low].min()


def _primal_dual(K, y, p, upper, alpha):
    """(P, D): the primal value at w = sum_i alpha_i y_i phi(x_i) with its best b, and the dual value of alpha.

    P = 1/2 |w|^2 + sum_i U_i [p_i - y_i f(x_i)]_+, D = p' alpha - 1/2 |w|^2.  For feasible alpha,
    P - D = sum_i alpha_i r_i^+ + (U_i - alpha_i) r_i^- >= 0 with r_i = y_i f(x_i) - p_i (weak
    duality), and P = D exactly at the optimum.
    """
    v = alpha * y
    g = K @ v
    b = smo_ref.primal_intercept(g, y, p, upper)
    return 0.5 * v @ g + upper @ np.maximum(0.0, p - y * (g + b)), p @ alpha - 0.5 * v @ g


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_solution_is_certified_optimal(seed, kernel):
    """Feasibility, complementary slackness and a duality gap within the bound implied by tol.

    Stopping at m - M < tol leaves every r_i = y_i f(x_i) - p_i within tol of its KKT condition
    (b lies in [M, m]), so each term of P - D is at most U_i tol: P - D <= tol sum_i U_i.
    """
    K, y, p, U = _problem(seed, n=40, kernel=kernel, duplicates=seed % 2 == 1)
    sol = solve_dual(K, y, p, U, tol=TOL)
    a = sol.alpha
    assert np.all((a >= 0) & (a <= U)) and abs(a @ y) < 1e-10
    m, M = _extremes(K, y, p, U, a)
    assert sol.gap < TOL and abs((m - M) - sol.gap) < ROUNDING
    r = y * (K @ (a * y) + sol.b) - p
    assert np.all(r[a < U] >= -TOL - ROUNDING) and np.all(r[a > 0] <= TOL + ROUNDING)
    primal, dual = _primal_dual(K, y, p, U, a)
    assert -ROUNDING <= primal - dual <= TOL * U.sum()


@pytest.mark.parametrize("max_iter", [0, 3, 10])
def test_certificate_rejects_unconverged_solutions(max_iter):
    """A few SMO steps leave a duality gap far above the bound a converged solve must meet."""
    K, y, p, U = _problem(0, n=40)
    primal, dual = _primal_dual(K, y, p, U, solve_dual(K, y, p, U, max_iter=max_iter).alpha)
    assert primal - dual > 1e3 * TOL * U.sum()


def test_free_alphas_satisfy_their_margin_equalities():
    """Each free alpha_i sits on its own margin: y_i f(x_i) = p_i (the CS-SVM's 1 or kappa)."""
    K, y, _, _ = _problem(7, n=60)
    p, U = dual_terms("cs", y, C=0.5, C1=5.0, C_minus1=2.0)
    sol = solve_dual(K, y, p, U, tol=1e-10)
    free = (sol.alpha > 0) & (sol.alpha < U)
    assert free[y > 0].any() and free[y < 0].any()
    f = K @ (sol.alpha * y) + sol.b
    np.testing.assert_allclose((y * f)[free], p[free], atol=1e-8)
    assert set(np.round(p[free], 12)) == {1.0, round(1 / 3, 12)}


def test_warm_start():
    """A warm start from a neighbouring C converges to the cold-start solution in fewer steps."""
    K, y, p, _ = _problem(3, n=60)
    U1, U2 = np.full(60, 1.0), np.full(60, 1.2)
    cold = solve_dual(K, y, p, U2, tol=1e-9)
    warm = solve_dual(K, y, p, U2, alpha0=solve_dual(K, y, p, U1, tol=1e-9).alpha, tol=1e-9)
    assert warm.n_iter < cold.n_iter
    np.testing.assert_allclose(warm.alpha, cold.alpha, atol=1e-6)
    assert warm.b == pytest.approx(cold.b, abs=1e-6)


def test_infeasible_warm_start_is_repaired():
    K, y, p, U = _problem(4, n=20)
    start = np.linspace(-1, 5, 20)
    sol = solve_dual(K, y, p, U, alpha0=start, max_iter=0)
    assert sol.n_iter == 0
    assert np.all((sol.alpha >= 0) & (sol.alpha <= U)) and abs(sol.alpha @ y) < 1e-12


def test_max_iter_reports_gap():
    K, y, p, U = _problem(5)
    sol = solve_dual(K, y, p, U, tol=1e-12, max_iter=3)
    assert sol.n_iter == 3 and sol.gap > 1e-12


def test_primal_intercept_hand_case():
    """One positive at g = 0 with p = 1 and one negative at g = 0 with p = 0.5, weights 2 and 1:
    cost 2 [1 - b]_+ + [0.5 + b]_+ is minimal at b = 1 (kinks at b = 1 and b = -0.5)."""
    y, g, p, U = np.array([1.0, -1.0]), np.zeros(2), np.array([1.0, 0.5]), np.array([2.0, 1.0])
    assert smo_ref.primal_intercept(g, y, p, U) == 1.0


def test_input_errors():
    K, y, p, U = _problem(0, n=10)
    with pytest.raises(ValueError, match="-1 and \\+1"):
        solve_dual(K, np.abs(y) * 2, p, U)
    with pytest.raises(ValueError, match="box bound"):
        solve_dual(K, y, p, U * 0)
    with pytest.raises(ValueError, match=r"K \(n, n\)"):
        solve_dual(K[:5], y, p, U)
    with pytest.raises(ValueError, match="backend"), use_backend("fortran"):
        solve_dual(K, y, p, U)


def _loo_inputs(seed, n=30):
    K, y, p, U = _problem(seed, n=n)
    sol = solve_dual(K, y, p, U, tol=1e-9)
    return K, y, p, U, sol, y * (K @ (sol.alpha * y)) - p


@pytest.mark.parametrize("seed", range(3))
def test_loo_cython_matches_numpy_transcription(seed):
    K, y, p, U, sol, G = _loo_inputs(seed)
    a = smo.loo_decision_values(K, y, p, U, sol.alpha, G, sol.b, 1e-9, 100_000)
    b = smo_ref.loo_decision_values(K, y, p, U, sol.alpha, G, sol.b, 1e-9, 100_000)
    assert a[1] == b[1] > 0
    np.testing.assert_allclose(a[0], b[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_loo_values_equal_solves_without_each_example(seed):
    """f_{-i}(x_i) from the seeded re-solve equals a cold solve on the other n - 1 examples."""
    K, y, p, U, sol, G = _loo_inputs(seed)
    values, _, gap = smo.loo_decision_values(K, y, p, U, sol.alpha, G, sol.b, 1e-10, 100_000)
    assert gap < 1e-10
    assert 0 < np.sum(sol.alpha > 0) < len(y)  # both branches: support vectors and the others
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        ref = solve_dual(K[np.ix_(keep, keep)], y[keep], p[keep], U[keep], tol=1e-10)
        assert values[i] == pytest.approx(K[i, keep] @ (ref.alpha * y[keep]) + ref.b, abs=1e-6)


def test_zero_box_leaves_an_example_out():
    """U_i = 0 with alpha_i = 0 removes example i from the problem (used by the leave-one-out)."""
    K, y, p, U = _problem(2, n=25)
    U0 = U.copy()
    U0[4] = 0.0
    keep = np.arange(25) != 4
    alpha, G = np.zeros(25), -p.copy()
    smo.smo_solve(K, y, p, U0, alpha, G, 1e-10, 100_000)
    ref = solve_dual(K[np.ix_(keep, keep)], y[keep], p[keep], U[keep], tol=1e-10)
    assert alpha[4] == 0.0
    np.testing.assert_allclose(alpha[keep], ref.alpha, atol=1e-6)
