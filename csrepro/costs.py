"""Cost matrices: validation, generators, the cost of guessing.

Convention (CONTRACT.md): ``C[j, k]`` is the cost of predicting class k when the true class
is j (rows: true class, columns: predicted class); classes are indexed 0..K-1 in the order of the
estimator's ``classes_``: its ``labels`` exactly as given, else the sorted labels of ``y``.  A valid matrix is K x K (K >= 2),
finite, non-negative, has a zero diagonal and a positive entry in every row (Beijbom et al.
2014, Sec. 2: C_jj = 0 and sum_k C_jk > 0).
"""

import inspect
from itertools import count

import numpy as np

__all__ = [
    "COST_KINDS",
    "CostMatrixError",
    "binary",
    "check_cost_matrix_for_labels",
    "class_frequency",
    "cost_matrix_of",
    "expected_guessing_cost",
    "hierarchy_distance",
    "make_cost_matrix",
    "random_symmetric",
    "rebel_random",
    "resolve_counts",
    "validate_cost_matrix",
    "zero_one",
]


class CostMatrixError(ValueError):
    """A cost matrix (or a request for one) is invalid; the message names the problem and the fix."""


def _class_name(j, classes):
    return f"class {j}" if classes is None else f"class {np.asarray(classes).tolist()[j]!r}"


def _validate(C, n_classes=None, classes=None):
    try:
        C = np.array(C, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CostMatrixError(
            f"cost matrix must be a numeric array of shape (K, K), got {type(C).__name__} ({exc}); "
            "pass a list of lists or an ndarray of numbers"
        ) from None
    if C.ndim != 2:
        raise CostMatrixError(
            f"cost matrix must be 2-D with shape (K, K), got shape {C.shape}; "
            "give C[j, k] = cost of predicting class k for true class j"
        )
    if C.shape[0] != C.shape[1]:
        raise CostMatrixError(
            f"cost matrix must be square, got shape {C.shape}; rows are true classes and "
            "columns predicted classes, so both need one entry per class"
        )
    K = C.shape[0]
    if K < 2:
        raise CostMatrixError(f"cost matrix is {K}x{K}; cost-sensitive classification needs K >= 2 classes")
    if n_classes is not None and K != n_classes:
        labels = "" if classes is None else f" (labels {np.asarray(classes).tolist()!r})"
        raise CostMatrixError(
            f"cost matrix is {K}x{K} but there are {n_classes} classes{labels}; build a "
            f"{n_classes}x{n_classes} matrix in the order of the classes (`labels` as given, else sorted; a "
            "training split that lacks a class needs `labels`, a stratified split or a matrix restricted to the "
            "present classes)"
        )
    bad = np.argwhere(~np.isfinite(C))
    if len(bad):
        j, k = bad[0]
        raise CostMatrixError(
            f"cost matrix entry C[{j}, {k}] = {C[j, k]} is not finite; replace inf/nan by a finite cost"
        )
    bad = np.argwhere(C < 0)
    if len(bad):
        j, k = bad[0]
        raise CostMatrixError(f"cost matrix entry C[{j}, {k}] = {C[j, k]:g} is negative; all costs must be >= 0")
    bad = np.flatnonzero(np.diag(C) != 0)
    if len(bad):
        j = bad[0]
        raise CostMatrixError(
            f"cost matrix diagonal C[{j}, {j}] = {C[j, j]:g} is not zero: a correct prediction must cost "
            "nothing; set the diagonal to 0 (subtracting C[j, j] from row j leaves Bayes decisions unchanged)"
        )
    bad = np.flatnonzero(~(C > 0).any(axis=1))
    if len(bad):
        j = bad[0]
        raise CostMatrixError(
            f"cost matrix row {j} (true {_class_name(j, classes)}) has no positive entry: every class needs "
            "at least one costly mistake; give that row a positive off-diagonal cost"
        )
    return C


def validate_cost_matrix(C, n_classes=None):
    """Return ``C`` as a new float64 (K, K) array, or raise :class:`CostMatrixError`.

    Checks: numeric, square, K >= 2, K == ``n_classes`` when given, finite, non-negative,
    zero diagonal, every row has a positive entry.
    """
    return _validate(C, n_classes)


def check_cost_matrix_for_labels(C, classes):
    """Validated float64 cost matrix for an estimator fitted on labels ``classes`` (its ``classes_``, the order of the
    matrix's rows = true class and columns = predicted class).

    ``C=None`` means 0-1 costs.  Raises :class:`CostMatrixError` naming the labels when the
    size of ``C`` does not match, e.g. when a training split lacks a class.
    """
    classes = np.asarray(classes)
    if C is None:
        return zero_one(len(classes))
    return _validate(C, len(classes), classes)


# ----------------------------------------------------------------------------- generators


def _check_n_classes(n_classes):
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise CostMatrixError(f"n_classes must be an integer >= 2, got {n_classes!r}")
    return int(n_classes)


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise CostMatrixError(f"parameter {name} must be a number, got {value!r}")
    if not np.isfinite(value):
        raise CostMatrixError(f"parameter {name} must be finite, got {value!r}")
    return float(value)


def _check_positive(name, value):
    value = _number(name, value)
    if value <= 0:
        raise CostMatrixError(f"parameter {name} must be > 0, got {value!r}")
    return value


def zero_one(n_classes):
    """0-1 costs: C = 1 - I (cost-insensitive; Beijbom et al. 2014, Sec. 2)."""
    K = _check_n_classes(n_classes)
    return 1.0 - np.eye(K)


def random_symmetric(n_classes, random_state=None, low=1.0, high=10.0):
    """Random symmetric costs, C_jk = C_kj ~ U[low, high] for j < k, zero diagonal.

    Beijbom et al. 2014, Sec. 5.1 ("C_jk, j != k, drawn uniformly from [1, 10]").  The
    K(K-1)/2 draws fill the upper triangle in row-major order.
    """
    K = _check_n_classes(n_classes)
    low, high = _number("low", low), _check_positive("high", high)
    if not 0 <= low <= high:
        raise CostMatrixError(f"parameters need 0 <= low <= high, got low={low!r}, high={high!r}")
    rng = np.random.default_rng(random_state)
    iu = np.triu_indices(K, 1)
    C = np.zeros((K, K))
    C[iu] = rng.uniform(low, high, size=len(iu[0]))
    return C + C.T


def rebel_random(n_classes, random_state=None):
    """REBEL's random costs (Appel et al. 2016, Sec. 5, Fig. 3 experiment).

    The paper: "zeros along the diagonals and (positive) normally-distributed off-diagonal
    entries, normalized such that random classification results in unit cost".  Here:
    C_jk = |N(0, 1)| drawn independently (not symmetric) for j != k in row-major order, then
    scaled so that ``expected_guessing_cost(C) == 1``, i.e. (1/K^2) sum_jk C_jk = 1: uniform
    class priors and a guess uniform over all K classes (correct one included, cost 0).
    """
    K = _check_n_classes(n_classes)
    rng = np.random.default_rng(random_state)
    off = ~np.eye(K, dtype=bool)
    C = np.zeros((K, K))
    C[off] = np.abs(rng.standard_normal(K * (K - 1)))
    return C / expected_guessing_cost(C)


def binary(C1, C2):
    """2x2 costs over sorted labels [negative, positive]: [[0, C2], [C1, 0]].

    Masnadi-Shirazi thesis, eq. (VI.2) (also (V.17) with C2 = C_{-1}): C1 is the cost of a
    false negative (a positive, y = +1, predicted negative), C2 that of a false positive.
    """
    C1, C2 = _check_positive("C1", C1), _check_positive("C2", C2)
    return np.array([[0.0, C2], [C1, 0.0]])


def _paths_from_parents(parents):
    try:
        parents = np.asarray(parents)
    except (TypeError, ValueError):
        parents = None
    if parents is None or parents.ndim != 1 or not np.issubdtype(parents.dtype, np.integer):
        raise CostMatrixError(
            "parents must be a flat sequence of integers (parents[v] = parent node of node v, -1 for the root)"
        )
    n = len(parents)
    roots = np.flatnonzero(parents == -1)
    if len(roots) != 1:
        raise CostMatrixError(f"parents must mark exactly one root with -1, found {len(roots)} roots")
    bad = np.flatnonzero((parents < -1) | (parents >= n))
    if len(bad):
        raise CostMatrixError(f"parents[{bad[0]}] = {parents[bad[0]]} is not a node id in [0, {n}) or -1")
    paths = []
    for v in range(n):
        path = [v]
        while parents[path[-1]] != -1:
            path.append(parents[path[-1]])
            if len(path) > n:
                raise CostMatrixError(f"parents has a cycle above node {v}; every node must lead up to the root")
        paths.append(path[::-1])
    return [paths[v] for v in np.setdiff1d(np.arange(n), parents)]


def _paths_from_nested(nested):
    paths = {}
    counter = count()

    def walk(node, prefix):
        if isinstance(node, (int, np.integer)) and not isinstance(node, bool):
            if node in paths:
                raise CostMatrixError(f"nested tree lists class {node} twice; each class is one leaf")
            paths[int(node)] = prefix + [next(counter)]
            return
        if isinstance(node, (str, bytes)) or not hasattr(node, "__iter__"):
            raise CostMatrixError(f"nested tree leaves must be integer class indices, got {node!r}")
        children = list(node)
        if not children:
            raise CostMatrixError("nested tree has an empty subtree; every inner node needs a child")
        here = prefix + [next(counter)]
        for child in children:
            walk(child, here)

    walk(nested, [])
    K = len(paths)
    if sorted(paths) != list(range(K)):
        raise CostMatrixError(
            f"nested tree leaves must be the class indices 0..{K - 1} once each, got {sorted(paths)}"
        )
    return [paths[k] for k in range(K)]


def _shared_prefix(p, q):
    """Number of leading nodes two root-to-leaf paths share (depth of their LCA + 1)."""
    n = 0
    for a, b in zip(p, q):
        if a != b:
            break
        n += 1
    return n


TREE_VARIANTS = ("path", "lca_height")


def hierarchy_distance(parents=None, nested=None, variant="path", n_classes=None):
    """Taxonomy costs from a class tree (symmetric, zero diagonal); give ``parents`` or ``nested``.

    ``parents``: parents[v] = parent of node v (-1 for the one root); the classes are the
    leaves (nodes that are nobody's parent) in increasing node id.  ``nested``: nested
    lists whose leaves are the class indices 0..K-1, e.g. ``[[0, 1], [2, [3, 4]]]``.
    With d(v) the depth of node v and a the lowest common ancestor of leaves j, k:
    ``variant="path"``: C_jk = d(j) + d(k) - 2 d(a) (edges on the path between j and k);
    ``variant="lca_height"``: C_jk = max(d(j), d(k)) - d(a) (levels from the deeper leaf up
    to a; half the path length in a balanced tree).  Such taxonomy costs are used by
    Beijbom et al. 2014 (Sec. 5) and Appel et al. 2016 (Sec. 5.2).
    """
    if (parents is None) == (nested is None):
        raise CostMatrixError("hierarchy_distance needs exactly one of parents=... or nested=...")
    if variant not in TREE_VARIANTS:
        raise CostMatrixError(f"variant={variant!r} is not valid; choose one of {TREE_VARIANTS}")
    paths = _paths_from_parents(parents) if nested is None else _paths_from_nested(nested)
    K = len(paths)
    if K < 2:
        raise CostMatrixError(f"the class tree has {K} leaf; it needs one leaf per class, K >= 2")
    if n_classes is not None and K != n_classes:
        raise CostMatrixError(f"the class tree has {K} leaves but n_classes={n_classes}; give one leaf per class")
    depth = np.array([len(p) - 1 for p in paths])
    lca = np.array([[_shared_prefix(p, q) - 1 for q in paths] for p in paths])
    if variant == "path":
        C = depth[:, None] + depth[None, :] - 2 * lca
    else:
        C = np.maximum(depth[:, None], depth[None, :]) - lca
    return C.astype(np.float64)


def class_frequency(y=None, class_counts=None, n_classes=None):
    """Inverse class-frequency costs: C_jk = n / (K m_j) for j != k, C_jj = 0.

    m_j = number of examples of class j (from labels ``y``, classes in sorted order, or from
    ``class_counts``), n = sum_j m_j.  Koço & Capponi 2013 weight each example by 1/m_{y_i}
    (eqs. 7, 11, 13; Algorithm 1 initialises D_1(i, l) = 1/m_{y_i}).  The factor n/K makes
    balanced classes give 0-1 costs and makes the empirical risk (Beijbom et al. 2014,
    eq. 5) on the counted set equal (1/K) sum_l sum_{j != l} c_hat_{l,j} (the sum in
    Koço & Capponi eq. 6), i.e. the balanced error rate.
    """
    if (y is None) == (class_counts is None):
        raise CostMatrixError("class_frequency needs exactly one of y=... (labels) or class_counts=...; in an "
                              "experiment config set `counts: train` to count each training part")
    if y is not None:
        counts = np.unique(np.asarray(y), return_counts=True)[1]
    else:
        try:
            counts = np.asarray(class_counts, dtype=np.float64)
        except (TypeError, ValueError):
            counts = np.array([np.nan])
        if counts.ndim != 1 or not np.all(np.isfinite(counts) & (counts > 0)):
            raise CostMatrixError(
                f"class_counts must be a 1-D sequence of positive counts, got {class_counts!r}; "
                "a class with no examples has no frequency weight"
            )
    K = len(counts)
    if K < 2:
        raise CostMatrixError(f"class_frequency needs >= 2 classes, got {K}")
    if n_classes is not None and K != n_classes:
        raise CostMatrixError(
            f"the counts cover {K} classes but n_classes={n_classes}; pass class_counts with one "
            "positive count per class"
        )
    w = counts.sum() / (K * counts.astype(np.float64))
    return w[:, None] * (1.0 - np.eye(K))


def resolve_counts(params: dict, y_codes=None, n_classes: int | None = None) -> dict:
    """``params`` with ``counts: train`` replaced by ``class_counts`` of the training labels.

    ``y_codes``: training labels as class indices 0..n_classes-1 (None when only checking a
    config: every class then counts 1).  Lets ``class_frequency`` costs come from each training
    part; a class missing from it gets count 0, which :func:`class_frequency` rejects by name.
    """
    params = dict(params)
    counts = params.pop("counts", None)
    if counts is None:
        return params
    if counts != "train":
        raise CostMatrixError(f"counts={counts!r} is not valid; use counts: train (class counts of each training "
                              "part, for kind: class_frequency)")
    params["class_counts"] = np.ones(n_classes) if y_codes is None else np.bincount(y_codes, minlength=n_classes)
    return params


COST_KINDS = {
    "zero_one": zero_one,
    "random_symmetric": random_symmetric,
    "rebel_random": rebel_random,
    "binary": binary,
    "hierarchy": hierarchy_distance,
    "class_frequency": class_frequency,
}


def make_cost_matrix(kind, n_classes, random_state=None, **params):
    """Build a validated (n_classes, n_classes) cost matrix of ``kind`` (a key of ``COST_KINDS``).

    ``params`` go to the generator (e.g. ``low``/``high``, ``C1``/``C2``, ``parents``/``nested``/
    ``variant``, ``y``/``class_counts``); ``random_state`` is used by the random kinds only.
    """
    if kind not in COST_KINDS:
        raise CostMatrixError(f"unknown cost kind {kind!r}; valid kinds: {sorted(COST_KINDS)}")
    n_classes = _check_n_classes(n_classes)
    func = COST_KINDS[kind]
    signature = inspect.signature(func).parameters
    fixed = {"n_classes": n_classes, "random_state": random_state}
    allowed = [p for p in signature if p not in fixed]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise CostMatrixError(
            f"cost kind {kind!r} got unknown parameter(s) {unknown}; valid parameters: {allowed or 'none'}"
        )
    missing = [p for p in allowed if signature[p].default is inspect.Parameter.empty and p not in params]
    if missing:
        raise CostMatrixError(f"cost kind {kind!r} needs parameter(s) {missing}")
    C = func(**{k: v for k, v in fixed.items() if k in signature}, **params)
    if C.shape[0] != n_classes:
        raise CostMatrixError(
            f"cost kind {kind!r} builds a {C.shape[0]}x{C.shape[0]} matrix but n_classes={n_classes}"
        )
    return _validate(C, n_classes)


def cost_matrix_of(spec: dict, n_classes: int, y_codes=None, random_state=None):
    """The cost matrix of a config's ``cost`` mapping (``kind`` and its parameters, ``counts: train`` resolved
    from the training labels ``y_codes``; None when only checking a config) -- the one place the harness builds a
    trial's matrix (the runner) and checks a config's (csrepro.config, ``y_codes=None``)."""
    params = resolve_counts(spec, y_codes, n_classes)
    return make_cost_matrix(params.pop("kind", None), n_classes, random_state=random_state, **params)


def expected_guessing_cost(C, priors=None):
    """Expected cost of guessing uniformly at random: sum_j prior_j (1/K) sum_k C_jk.

    ``priors`` default to uniform (1/K each), giving mean(C).  This is the "random
    classification" cost that REBEL normalises to 1 (Appel et al. 2016, Sec. 5).
    """
    C = _validate(C)
    K = C.shape[0]
    if priors is None:
        priors = np.full(K, 1.0 / K)
    priors = np.asarray(priors, dtype=np.float64)
    if priors.shape != (K,) or not np.all(np.isfinite(priors) & (priors >= 0)) or not np.isclose(priors.sum(), 1):
        raise ValueError(f"priors must be {K} non-negative numbers summing to 1, got {priors.tolist()}")
    return float(priors @ C.mean(axis=1))
