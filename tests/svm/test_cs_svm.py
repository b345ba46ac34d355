"""Cost-sensitive hinge (V.38-V.39), CS-SVM (V.41-V.43), BP-SVM (V.1), BM-SVM: maths and sklearn API."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from csrepro._kernels.backend import use_backend
from csrepro.losses.binary import HINGE, CostSensitiveHinge, check_cs_svm_costs
from csrepro.report.figures import paper_module
from csrepro.svm import CostSensitiveSVC, resolve_costs
from csrepro.svm.cs_svm import dual_terms, kernel_matrix, solve_dual, standard_form

# ----------------------------------------------------------------------------- loss (V.38), risk (V.39)


def test_hinge_hand_values():
    loss = CostSensitiveHinge(4.0, 2.0)  # a = 3, kappa = 1/3
    assert (loss.slope_negative, loss.kappa, loss.gamma) == (3.0, 1 / 3, 1 / 3)
    np.testing.assert_allclose(loss.value(1, [-1.0, 0.0, 0.5, 1.0, 2.0]), [8.0, 4.0, 2.0, 0.0, 0.0])
    np.testing.assert_allclose(loss.value(-1, [1.0, 0.0, -1 / 3, -1.0]), [4.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(HINGE.value(np.array([1, 1, -1, -1]), [0.5, 2.0, 0.5, -2.0]), [0.5, 0.0, 1.5, 0.0])


def test_min_conditional_risk_hand_values():
    """(V.39): 2 C_1 eta below gamma, 2 C_{-1} (1 - eta) from gamma on; both sides meet at gamma."""
    loss = CostSensitiveHinge(4.0, 2.0)
    g = loss.gamma
    peak = 2 * 4 * 2 / 6
    np.testing.assert_allclose(loss.min_conditional_risk([0.0, 0.2, g - 1e-12, g, 0.5, 1.0]),
                               [0.0, 1.6, peak, peak, 2.0, 0.0], atol=1e-10)
    eta = np.linspace(0, 1, 11)
    np.testing.assert_allclose(HINGE.min_conditional_risk(eta), 1 - np.abs(2 * eta - 1), atol=1e-12)
    # Theorem 42 property 2 (type-II symmetry, V.25): C*(gamma - C_-1 eps) = C*(gamma + C_1 eps)
    eps = np.linspace(0, 1 / 6, 7)
    np.testing.assert_allclose(loss.min_conditional_risk(g - 2 * eps), loss.min_conditional_risk(g + 4 * eps))


@pytest.mark.parametrize("C1, Cm", [(1.0, 1.0), (3.0, 1.0), (4.0, 2.0), (9.0, 3.0)])
def test_grid_minimum_of_conditional_risk(C1, Cm):
    """Minimising C(eta, f) = eta L(f, 1) + (1 - eta) L(f, -1) (V.21) over f reproduces (V.39)
    only for C_{-1} = 1.

    For C_{-1} > 1 the loss (V.38) is minimised at f in {-kappa, 1}, not {-1, 1}: the minimum is
    min(C_1 (1 + kappa) eta, 2 C_{-1} (1 - eta)) < (V.39) below the kink, and the sign of the
    minimiser switches at eta = a / (C_1 + a), a = 2 C_{-1} - 1, instead of gamma = C_{-1}/(C_1 + C_{-1})
    (they agree iff C_{-1} = 1).  The grid contains f = -kappa, -1 and 1 exactly.
    """
    loss = CostSensitiveHinge(C1, Cm)
    a, k = loss.slope_negative, loss.kappa
    eta = np.linspace(0.005, 0.995, 199)
    f = np.unique(np.r_[np.linspace(-3, 3, 601), -k])
    R = loss.conditional_risk(eta[:, None], f[None, :])
    exact = np.minimum(C1 * (1 + k) * eta, 2 * Cm * (1 - eta))
    np.testing.assert_allclose(R.min(axis=1), exact, atol=1e-12)
    v39 = loss.min_conditional_risk(eta)
    assert np.all(R.min(axis=1) <= v39 + 1e-12)
    if Cm == 1:
        np.testing.assert_allclose(R.min(axis=1), v39, atol=1e-12)
    else:
        assert np.any(R.min(axis=1) < v39 - 0.1)
    fstar = f[R.argmin(axis=1)]
    switch = a / (C1 + a)
    away = np.abs(eta - switch) > 1e-9
    np.testing.assert_array_equal((fstar > 0)[away], (eta > switch)[away])


def test_cost_constraints_errors():
    with pytest.raises(ValueError, match=r"C_minus1 must be >= 1 \(thesis V.41-V.42\); got 0.5"):
        check_cs_svm_costs(2.0, 0.5)
    with pytest.raises(ValueError, match=r"C1 must be >= 2\*C_minus1 - 1 = 5"):
        CostSensitiveHinge(4.0, 3.0)
    with pytest.raises(ValueError, match="C_minus1 must be >= 1"):
        CostSensitiveSVC(C1=4.0, C_minus1=0.5).fit(*_blobs(0))


# ----------------------------------------------------------------------------- data helpers


def _blobs(seed, n=60, d=2, shift=1.0, labels=(0, 1)):
    """Two overlapping Gaussian classes; labels[1] is the positive class."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    pos = X[:, 0] + 0.8 * rng.normal(size=n) > 0
    X[pos] += shift / 2
    X[~pos] -= shift / 2
    return X, np.where(pos, labels[1], labels[0])


# ----------------------------------------------------------------------------- CS-SVM (V.41)-(V.43)


@pytest.mark.parametrize("seed, C, C1, Cm", [(0, 1.0, 4.0, 2.0), (1, 0.3, 7.0, 3.0), (2, 2.0, 1.5, 1.0)])
def test_cs_svm_solves_its_primal(seed, C, C1, Cm):
    """The linear CS-SVM's (w, b) is optimal for the primal (V.41), certified by its duality gap.

    The primal is written here from (V.41)-(V.42): slack weights C beta = C C_1 (positives) and
    C lambda = C (2 C_{-1} - 1) (negatives), margins 1 and kappa = 1/lambda, so negatives need
    w'x + b <= -kappa + xi.  Its Lagrange dual is (V.43): D(alpha) = sum_i margin_i alpha_i - 1/2 |w|^2
    over 0 <= alpha_i <= weight_i, y' alpha = 0, with w = sum_i alpha_i y_i x_i.  The fitted alpha, w
    and intercept b (the class-wise KKT rule) give P - D = sum_i alpha_i r_i^+ + (weight_i - alpha_i) r_i^-,
    r_i = y_i f(x_i) - margin_i, which is >= 0 and, with every KKT violation below tol, <= tol sum_i weight_i.
    """
    X, y = _blobs(seed, n=24)
    tol = 1e-10
    clf = CostSensitiveSVC(C=C, C1=C1, C_minus1=Cm, kernel="linear", tol=tol).fit(X, y)
    ys = np.where(y == 1, 1.0, -1.0)
    lam, kap = 2 * Cm - 1, 1 / (2 * Cm - 1)
    weight = C * np.where(ys > 0, C1, lam)  # C beta, C lambda (V.42)
    margin = np.where(ys > 0, 1.0, kap)
    alpha = np.zeros(len(y))
    alpha[clf.support_] = clf.dual_coef_[0] * ys[clf.support_]
    assert np.all((alpha >= 0) & (alpha <= weight)) and abs(alpha @ ys) < 1e-10
    w, b = clf.coef_[0], clf.intercept_[0]
    primal = 0.5 * w @ w + weight @ np.maximum(0.0, margin - ys * (X @ w + b))  # (V.41) at the optimal slacks
    dual = margin @ alpha - 0.5 * w @ w
    assert -1e-12 <= primal - dual <= tol * weight.sum()


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_unit_costs_equal_sklearn_svc(kernel):
    """C_1 = C_{-1} = 1 is the standard SVM: same alphas and decision function as SVC (libsvm).

    Tolerance 1e-4 relative to max|f| (observed ~2e-7): both stop at KKT violation 1e-8, but
    libsvm keeps its kernel cache in single precision.
    """
    X, y = _blobs(3, n=80, d=3)
    a = CostSensitiveSVC(C=2.0, C1=1.0, C_minus1=1.0, kernel=kernel, gamma=0.3, tol=1e-8).fit(X, y)
    b = SVC(C=2.0, kernel=kernel, gamma=0.3, tol=1e-8).fit(X, y)
    fa, fb = a.decision_function(X), b.decision_function(X)
    np.testing.assert_allclose(fa, fb, atol=1e-4 * np.abs(fb).max())
    coef_a, coef_b = np.zeros(len(y)), np.zeros(len(y))
    coef_a[a.support_], coef_b[b.support_] = a.dual_coef_[0], b.dual_coef_[0]
    np.testing.assert_allclose(coef_a, coef_b, atol=1e-4 * 2.0)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("C, C1, Cm", [(1.0, 4.0, 2.0), (0.3, 7.0, 3.0), (5.0, 2.5, 1.5)])
def test_cs_svm_is_class_weighted_svm_with_shifted_threshold(kernel, C, C1, Cm):
    """CS-SVM = class-weighted SVM + threshold move, exactly.

    Finding: with kappa = 1/(2 C_{-1} - 1), substitute w' = 2 w/(1 + kappa),
    b' = (2 b - 1 + kappa)/(1 + kappa), xi' = 2 xi/(1 + kappa) in (V.41).  The positive
    constraint w'x + b >= 1 - xi becomes w''x + b' >= 1 - xi', the negative one
    w'x + b <= -kappa + xi becomes w''x + b' <= -1 + xi', and the objective becomes
    ((1 + kappa)/2)^2 [1/2 |w'|^2 + C'(beta sum_+ xi' + lambda sum_- xi')] with
    C' = 2 C/(1 + kappa).  So the CS-SVM solution is the standard SVM with soft-margin weight
    C' and class weights beta = C_1 (positives), lambda = 2 C_{-1} - 1 (negatives), i.e. a
    BP-SVM (V.1) with those weights, and its predictor is
    f = (1 + kappa)/2 f' + (1 - kappa)/2: it predicts positive iff f' > -(1 - kappa)/(1 + kappa),
    the BP-SVM's threshold moved by (1 - kappa)/(1 + kappa) towards the negatives (a BM move).
    Both SVMs have the same margin slab {|f'| <= 1} = {-kappa <= f <= 1}; the CS-SVM only places
    its boundary at the fraction kappa/(1 + kappa) of the slab from the negative side.  This
    holds for any kernel and C; here it is checked against libsvm (sklearn SVC with
    class_weight) to 1e-4 of max|f| (observed <= 1.3e-6; libsvm's kernel cache is single
    precision).
    """
    X, y = _blobs(4, n=90, d=2, labels=("neg", "pos"))
    lam = 2 * Cm - 1
    kap = 1 / lam
    cs = CostSensitiveSVC(C=C, C1=C1, C_minus1=Cm, kernel=kernel, gamma=0.5, tol=1e-9).fit(X, y)
    svc = SVC(C=2 * C / (1 + kap), kernel=kernel, gamma=0.5, tol=1e-9, class_weight={"pos": C1, "neg": lam}).fit(X, y)
    f_cs = cs.decision_function(X)
    f_eq = (1 + kap) / 2 * svc.decision_function(X) + (1 - kap) / 2
    np.testing.assert_allclose(f_cs, f_eq, atol=1e-4 * np.abs(f_cs).max())
    bp = CostSensitiveSVC(variant="bp", C=2 * C / (1 + kap), C1=C1, C_minus1=lam, kernel=kernel, gamma=0.5,
                          tol=1e-9, threshold=(1 - kap) / (1 + kap)).fit(X, y)
    np.testing.assert_allclose(bp.decision_function(X), 2 * f_cs / (1 + kap), atol=1e-6)


@pytest.mark.parametrize("variant, C, C1, Cm", [("cs", 1.0, 4.0, 2.0), ("cs", 0.3, 7.0, 3.0), ("cs", 2.0, 3.0, 1.0),
                                             ("bp", 0.5, 3.0, 2.0), ("bm", 2.0, 5.0, 1.0), ("svm", 1.5, 1.0, 1.0)])
def test_standard_form_solves_the_variant_dual(variant, C, C1, Cm):
    """alpha = scale alpha', b = scale b' + shift from the weighted SVM solve the variant's own dual."""
    X, y = _blobs(6, n=70, d=2, labels=(-1, 1))
    ys = y.astype(float)
    K = kernel_matrix("rbf", X, X, 0.5)
    f = standard_form(variant, C, C1, Cm)
    upper_w = f.C * np.where(ys > 0, f.w_pos, f.w_neg)
    weighted = solve_dual(K, ys, np.ones(len(ys)), upper_w, tol=1e-10)
    p, upper = dual_terms(variant, ys, C, C1, Cm)
    own = solve_dual(K, ys, p, upper, tol=1e-10)
    np.testing.assert_allclose(f.scale * weighted.alpha, own.alpha, atol=1e-6)
    assert f.scale * weighted.b + f.shift == pytest.approx(own.b, abs=1e-6)
    np.testing.assert_allclose(f.scale * upper_w, upper)  # same boxes


def test_separable_cs_svm_gives_positives_the_larger_margin():
    """Separable data (Fig. V.1 right): SVM and CS-SVM share the maximal slab, but the CS-SVM
    boundary sits kappa/(1 + kappa) of the way from the negatives (positive margin = 1/kappa
    times the negative one)."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(2, 0.5, (15, 2)), rng.normal(-2, 0.5, (15, 2))]
    y = np.r_[np.ones(15), -np.ones(15)]
    svm = CostSensitiveSVC(variant="svm", C=1e4, kernel="linear", tol=1e-9).fit(X, y)
    cs = CostSensitiveSVC(C=1e4, C1=4.0, C_minus1=2.0, kernel="linear", tol=1e-9).fit(X, y)

    def margins(clf):
        dist = clf.decision_function(X) / np.linalg.norm(clf.coef_)
        return dist[y > 0].min(), -dist[y < 0].max()

    (sp, sn), (cp, cn) = margins(svm), margins(cs)
    assert sp == pytest.approx(sn, rel=1e-6)
    assert cp + cn == pytest.approx(sp + sn, rel=1e-6)
    assert cp / cn == pytest.approx(3.0, rel=1e-6)


# ----------------------------------------------------------------------------- BP-SVM, BM-SVM, costs


def test_bp_svm_is_svc_with_class_weights():
    X, y = _blobs(5, n=70)
    bp = CostSensitiveSVC(variant="bp", C=0.7, C1=5.0, C_minus1=2.0, kernel="rbf", gamma=0.5, tol=1e-8).fit(X, y)
    svc = SVC(C=0.7, kernel="rbf", gamma=0.5, tol=1e-8, class_weight={1: 5.0, 0: 2.0}).fit(X, y)
    np.testing.assert_allclose(bp.decision_function(X), svc.decision_function(X), atol=1e-4)


def test_bm_svm_moves_the_svm_threshold():
    X, y = _blobs(6, n=70)
    svm = CostSensitiveSVC(variant="svm", C=1.0, kernel="linear").fit(X, y)
    bm = CostSensitiveSVC(variant="bm", C=1.0, C1=5.0, C_minus1=1.0, kernel="linear", threshold=0.25).fit(X, y)
    np.testing.assert_allclose(bm.decision_function(X), svm.decision_function(X) + 4 / 6 + 0.25, atol=1e-12)
    assert (bm.predict(X) == 1).sum() >= (svm.predict(X) == 1).sum()


def test_cost_matrix_rules():
    Cm = [[0.0, 1.0], [5.0, 0.0]]  # false positive 1, miss 5 (German credit, V.E)
    assert resolve_costs("cs", None, None, Cm) == (5.0, 1.0)
    assert resolve_costs("cs", None, 2.0, Cm) == (10.0, 2.0)
    assert resolve_costs("bp", 3.0, None, Cm) == (3.0, 0.6)
    assert resolve_costs("cs", 4.0, 2.0, Cm) == (4.0, 2.0)  # explicit values win
    assert resolve_costs("cs", None, None, [[0, 0.5], [1.0, 0]]) == (2.0, 1.0)  # scaled up to C_-1 = 1
    c1, cm = resolve_costs("cs", None, None, [[0, 2.5], [3.0, 0]])  # scaled down to C1 = 2 C_-1 - 1
    assert c1 / cm == pytest.approx(1.2) and c1 == pytest.approx(2 * cm - 1) and cm >= 1
    assert resolve_costs("svm", 7.0, 3.0, Cm) == (1.0, 1.0)
    with pytest.raises(ValueError, match=r"C\[1, 0\]/C\[0, 1\] = 0.5"):
        resolve_costs("cs", None, None, [[0, 2.0], [1.0, 0]])
    clf = CostSensitiveSVC(cost_matrix=Cm, C_minus1=2.0).fit(*_blobs(0))
    assert (clf.C1_, clf.C_minus1_) == (10.0, 2.0)


# ----------------------------------------------------------------------------- sklearn API


def test_labels_backends_and_errors():
    X, y = _blobs(7, labels=("b", "a"))  # positive = "b" given first, but classes_ is sorted
    clf = CostSensitiveSVC(C1=4.0, C_minus1=2.0).fit(X, y)
    assert clf.classes_.tolist() == ["a", "b"]
    f = clf.decision_function(X)
    assert f.shape == (len(y),)
    np.testing.assert_array_equal(clf.predict(X), np.where(f > 0, "b", "a"))
    with use_backend("numpy"):
        ref = CostSensitiveSVC(C1=4.0, C_minus1=2.0).fit(X, y)
    np.testing.assert_allclose(ref.decision_function(X), f, rtol=1e-10, atol=1e-12)
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "coef_")
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        CostSensitiveSVC().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="1 class"):
        CostSensitiveSVC().fit(X, np.zeros(len(y)))
    with pytest.warns(ConvergenceWarning, match="max_iter=1 "):
        CostSensitiveSVC(max_iter=1).fit(X, y)
    for bad, match in [({"variant": "cost"}, "variant"), ({"kernel": "poly"}, "kernel"), ({"C": -1.0}, "'C' parameter"),
                       ({"gamma": "wide"}, "gamma")]:
        with pytest.raises(ValueError, match=match):
            clone(clf).set_params(**bad).fit(X, y)



def test_plot_figure_v1(tmp_path):
    paths = paper_module("cs_svm").plot_figure_v1(tmp_path)
    assert [p.name for p in paths] == ["figure_v1.png"] and paths[0].stat().st_size > 10_000
