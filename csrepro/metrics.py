"""Evaluation metrics and the statistics used to summarise and compare methods.

Classification metrics take class indices 0..K-1 (sorted-label order, CONTRACT.md); map
labels with ``np.searchsorted(classes, y)``.  ``n_classes=None`` means 1 + the largest index.
"""

import warnings
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from scipy import stats
from sklearn.metrics import confusion_matrix, make_scorer, roc_auc_score

from csrepro.costs import validate_cost_matrix
from csrepro.validation import check_labels, codes_of

__all__ = [
    "DetectionResult",
    "average_rank",
    "best_set",
    "confusion_norm",
    "detection_at_rate",
    "detection_stats",
    "error",
    "error_confusion",
    "g_mean",
    "make_cost_scorer",
    "mauc",
    "mean_se",
    "paired_bootstrap_means",
    "paired_ttest",
    "percentile_interval",
    "per_class_recall",
    "probabilistic_confusion",
    "ranks",
    "risk",
    "zero_crossing",
]


# ----------------------------------------------------------------------------- input checks


def _indices(y, name):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise ValueError(
            f"{name} must hold integer class indices 0..K-1, got dtype {y.dtype}; "
            "map labels to indices with np.searchsorted(classes, labels)"
        )
    return y


def _pair(y_true, y_pred, n_classes=None):
    """Validated (y_true, y_pred, K): equal non-zero lengths, indices in [0, K)."""
    t, p = _indices(y_true, "y_true"), _indices(y_pred, "y_pred")
    if len(t) != len(p):
        raise ValueError(f"y_true has {len(t)} entries but y_pred has {len(p)}; pass one prediction per example")
    if len(t) == 0:
        raise ValueError("y_true is empty; metrics need at least one example")
    K = int(max(t.max(), p.max())) + 1 if n_classes is None else int(n_classes)
    for y, name in ((t, "y_true"), (p, "y_pred")):
        if y.min() < 0 or y.max() >= K:
            raise ValueError(
                f"{name} has class index {y.min() if y.min() < 0 else y.max()} outside [0, {K}); "
                f"indices must be 0..{K - 1} (n_classes={K})"
            )
    return t, p, K


def _values(x, name, ndim):
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != ndim or x.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains nan or inf; drop or impute missing results first")
    return x


# ----------------------------------------------------------------------------- classification metrics


def risk(y_true, y_pred, C):
    """Empirical risk (1/n) sum_i C[z_i, h(x_i)] (Beijbom et al. 2014, eq. 5)."""
    C = validate_cost_matrix(C)
    t, p, _ = _pair(y_true, y_pred, C.shape[0])
    return float(C[t, p].mean())


def _mean_cost(y_true, y_pred, cost_matrix, labels):
    """Mean ``cost_matrix[true, predicted]`` over the rows, labels located in ``labels``."""
    t = codes_of(labels, np.asarray(y_true), "true labels")
    p = codes_of(labels, np.asarray(y_pred), "predicted labels")
    return float(cost_matrix[t, p].mean())


def make_cost_scorer(cost_matrix, *, labels):
    """A scikit-learn scorer (:func:`sklearn.metrics.make_scorer`) for model selection by expected cost, e.g.
    ``GridSearchCV(..., scoring=make_cost_scorer(C, labels=classes))``: greater is better, so it returns the
    *negative* mean cost -mean_n C[y_n, prediction_n] of the estimator's ``predict``.

    ``cost_matrix[j, k]`` = cost of predicting ``labels[k]`` when the truth is ``labels[j]`` (rows true class,
    columns predicted class, both in the order of ``labels``, kept as given); validated as
    :func:`csrepro.costs.validate_cost_matrix`.  ``labels`` (required, each class once) lists every class, so that a
    fold lacking one is still scored with the right rows and columns; a true or predicted label outside it is a
    ValueError naming it."""
    if labels is None:
        raise ValueError("make_cost_scorer needs labels=[...]: the classes in the order of the cost matrix's rows "
                         "and columns")
    labels = check_labels(labels)
    C = validate_cost_matrix(cost_matrix, len(labels))
    return make_scorer(_mean_cost, greater_is_better=False, cost_matrix=C, labels=labels)


def error(y_true, y_pred):
    """Misclassification rate (1/n) sum_i [z_i != h(x_i)] (risk (5) with 0-1 costs)."""
    t, p, _ = _pair(y_true, y_pred)
    return float(np.mean(t != p))


def per_class_recall(y_true, y_pred, n_classes=None):
    """Recall of each class, P(pred = j | true = j); nan for classes absent from ``y_true``."""
    t, p, K = _pair(y_true, y_pred, n_classes)
    counts = confusion_matrix(t, p, labels=np.arange(K))
    m = counts.sum(axis=1)
    return np.divide(np.diag(counts), m, out=np.full(K, np.nan), where=m > 0)


def probabilistic_confusion(y_true, y_pred, n_classes=None):
    """Empirical confusion matrix A_S, a_lj = (1/m_l) sum_i [h(x_i) = j][y_i = l].

    Koço & Capponi 2013, Definition 1: row l (true class) sums to 1.  Rows of classes absent
    from ``y_true`` are all zero (sklearn's ``normalize="true"``).
    """
    t, p, K = _pair(y_true, y_pred, n_classes)
    return confusion_matrix(t, p, labels=np.arange(K), normalize="true")


def error_confusion(y_true, y_pred, n_classes=None):
    """Error-focused confusion matrix C_S: A_S with a zeroed diagonal (Koço & Capponi 2013, eq. 1)."""
    A = probabilistic_confusion(y_true, y_pred, n_classes)
    np.fill_diagonal(A, 0.0)
    return A


def confusion_norm(y_true, y_pred, n_classes=None):
    """Operator (spectral) norm ||C_S|| = sqrt(lambda_max(C_S* C_S)), the criterion of
    Koço & Capponi 2013, eqs. (4) and (8), of the error-focused confusion matrix (eq. 1)."""
    return float(np.linalg.norm(error_confusion(y_true, y_pred, n_classes), ord=2))


def g_mean(y_true, y_pred, n_classes=None):
    """Geometric mean of the per-class recalls (Sun et al. 2006, as used by Koço & Capponi
    2013, Sec. 5.2), over the classes present in ``y_true``; 0 if any such recall is 0."""
    r = per_class_recall(y_true, y_pred, n_classes)
    r = r[~np.isnan(r)]
    return float(np.prod(r) ** (1.0 / len(r)))


def mauc(y_true, P):
    """Hand & Till (2001) multi-class AUC, M = 2/(c(c-1)) sum_{i<j} (A(i|j) + A(j|i))/2.

    A(i|j) is the AUC of the score P[:, i] separating class i from class j, on the examples
    of those two classes (ties count 1/2).  ``P`` (n, K) holds class probabilities (rows
    summing to 1).  The sum runs over the c classes present in ``y_true`` (c >= 2).  For
    c >= 3 this is sklearn's ``roc_auc_score(multi_class="ovo")`` (its Hand & Till
    implementation); for c = 2 the single pair is computed from the two binary AUCs.
    """
    P = _values(P, "P", 2)
    t = _indices(y_true, "y_true")
    _pair(t, t, P.shape[1])
    if len(t) != len(P):
        raise ValueError(f"y_true has {len(t)} entries but P has {len(P)} rows; pass one row per example")
    if not np.allclose(P.sum(axis=1), 1.0):
        raise ValueError("rows of P must be class probabilities summing to 1; pass predict_proba output")
    present = np.unique(t)
    if len(present) < 2:
        raise ValueError(f"MAUC needs examples of >= 2 classes in y_true, got only classes {present.tolist()}")
    if len(present) > 2:
        return float(roc_auc_score(t, P, multi_class="ovo", average="macro", labels=np.arange(P.shape[1])))
    keep = np.isin(t, present)
    return float(np.mean([roc_auc_score(t[keep] == c, P[keep, c]) for c in present]))


class DetectionResult(NamedTuple):
    """Detector operating point: predict positive iff score >= threshold."""

    threshold: float
    detection_rate: float
    false_positives: int
    false_positive_rate: float


def _binary_split(y_true, scores, pos_label):
    y = np.asarray(y_true)
    s = _values(scores, "scores", 1)
    if y.ndim != 1 or len(y) != len(s):
        raise ValueError(f"y_true (shape {y.shape}) and scores (shape {s.shape}) must be 1-D of equal length")
    labels = np.unique(y)
    if pos_label is None:
        if len(labels) != 2:
            raise ValueError(f"y_true must hold exactly 2 labels, got {labels.tolist()}; or pass pos_label")
        pos_label = labels[1]
    pos = y == pos_label
    if pos.all() or not pos.any():
        raise ValueError(
            f"y_true needs both positives (label {pos_label!r}) and negatives; got {int(pos.sum())} positives "
            f"of {len(y)}"
        )
    return s[pos], s[~pos]


def detection_stats(y_true, scores, threshold, pos_label=None):
    """Detection rate (fraction of positives with score >= threshold) and false positives
    (negatives with score >= threshold) of the detector sign[f(x) - T] (Masnadi-Shirazi
    thesis, eq. VI.5).  ``pos_label`` defaults to the larger of the two labels."""
    s_pos, s_neg = _binary_split(y_true, scores, pos_label)
    fp = int(np.sum(s_neg >= threshold))
    return DetectionResult(float(threshold), float(np.mean(s_pos >= threshold)), fp, fp / len(s_neg))


def detection_at_rate(y_true, scores, target, pos_label=None):
    """Operating point with detection rate >= ``target`` on this set and fewest false positives.

    The threshold is the largest one that still detects ceil(target * n_pos) positives: the
    k-th largest positive score, k = ceil(target * n_pos) (as in the thesis' experiments, a
    target detection rate is met and false positives are counted; Table VI.5).  Ties: every
    example scoring exactly the threshold is predicted positive, so tied positives can raise
    the detection rate above the target and tied negatives count as false positives.
    """
    if not (isinstance(target, (int, float, np.integer, np.floating)) and 0 < target <= 1):
        raise ValueError(f"target detection rate must be a number in (0, 1], got {target!r}")
    s_pos, _ = _binary_split(y_true, scores, pos_label)
    k = int(np.ceil(target * len(s_pos) * (1 - 1e-12)))  # guard 0.9 * 10 = 9.000000000000002
    threshold = np.sort(s_pos)[::-1][max(k, 1) - 1]
    return detection_stats(y_true, scores, threshold, pos_label)


def zero_crossing(estimator, lo=-4.0, hi=4.0, n=8001) -> float:
    """Zero crossing x* of a fitted binary classifier of one feature: the threshold t on a grid of
    [lo, hi] whose rule sign(x - t) best agrees with sign F(x), F its ``decision_function``
    (Masnadi-Shirazi thesis, Sec. VI.E.1).

    For a monotone F this is its zero crossing; for the step functions of stumps and histograms
    it is the crossing that explains the most of the decision (robust to small wiggles).
    """
    grid = np.linspace(lo, hi, n)
    positive = np.asarray(estimator.decision_function(grid[:, None])) > 0
    # disagreements of sign(x - grid[k]) with F: positives left of k plus negatives from k on
    left_pos = np.concatenate([[0], np.cumsum(positive)])[:-1]
    right_neg = np.cumsum((~positive)[::-1])[::-1]
    return float(grid[int(np.argmin(left_pos + right_neg))])


# ----------------------------------------------------------------------------- summaries and tests


def mean_se(values):
    """(mean, standard error) with SE = sample std (ddof=1) / sqrt(n); SE is nan for n = 1."""
    x = _values(values, "values", 1)
    se = float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
    return float(np.mean(x)), se


def paired_ttest(a, b):
    """Two-sided paired t-test p-value (``scipy.stats.ttest_rel``).

    When all differences a_i - b_i are equal the t statistic is 0/0 or +-inf: the p-value is
    1.0 for identical vectors and 0.0 for a constant non-zero shift.
    """
    a, b = _values(a, "a", 1), _values(b, "b", 1)
    if len(a) != len(b) or len(a) < 2:
        raise ValueError(f"paired t-test needs two vectors of equal length >= 2, got {len(a)} and {len(b)}")
    d = a - b
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    return float(stats.ttest_rel(a, b).pvalue)


def ranks(scores, higher_is_better=False):
    """Rank methods within each dataset: ``scores`` (n_datasets, n_methods) -> ranks of the same
    shape, 1 = best (lowest score unless ``higher_is_better``), ties get their average rank."""
    x = _values(scores, "scores", 2)
    return stats.rankdata(-x if higher_is_better else x, method="average", axis=1)


def average_rank(scores, higher_is_better=False):
    """Mean over datasets of :func:`ranks` (the "Avg. Rank" row of Beijbom et al. 2014, Table 2)."""
    return ranks(scores, higher_is_better).mean(axis=0)


def best_set(values, alpha=0.05, higher_is_better=False):
    """Methods not significantly worse than the best-mean one (bold cells, Beijbom et al. 2014, Table 2).

    ``values`` is (n_trials, n_methods) of paired per-trial results on one dataset, or a
    mapping method -> per-trial vector.  The best method (best mean, first on ties) is
    kept, and every other method whose two-sided paired t-test against it has p >= alpha.
    Returns a boolean mask over methods, or the kept names (in order) for a mapping.
    """
    names = list(values) if isinstance(values, Mapping) else None
    if names is not None:
        lengths = {n: len(values[n]) for n in names}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"paired per-trial vectors must have equal lengths, got {lengths}")
        values = np.column_stack([values[n] for n in names])
    x = _values(values, "values", 2)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    means = x.mean(axis=0)
    best = int(np.argmax(means) if higher_is_better else np.argmin(means))
    keep = np.array([m == best or paired_ttest(x[:, m], x[:, best]) >= alpha for m in range(x.shape[1])])
    return keep if names is None else [n for n, k in zip(names, keep) if k]


def significant_best(values, alpha=0.05, higher_is_better=False):
    """The best-mean method alone, when it is significantly better than every other one; else none (Koço & Capponi
    2013's bold: "a significantly best measure ... over all the others", Tables 2-3 captions).

    Same ``values`` as :func:`best_set`: the best (best mean, first on ties) is kept when each other method's
    two-sided paired t-test against it has p < alpha.  Returns a boolean mask, or the kept names for a mapping.
    """
    names = list(values) if isinstance(values, Mapping) else None
    keep = best_set(values, alpha, higher_is_better)
    mask = np.asarray(keep if names is None else [n in keep for n in names], dtype=bool)
    mask = mask if mask.sum() == 1 else np.zeros_like(mask)
    return mask if names is None else [n for n, k in zip(names, mask) if k]


def paired_bootstrap_means(values, n_boot=2000, random_state=0):
    """Bootstrap means of paired trials: ``values`` (n_problems, n_methods, n_trials), trial t of a problem
    being one split that every method ran (NaN: a missing trial).  Each replicate draws, per problem, n_trials
    trial indices with replacement -- the same indices for every method of the problem, so comparisons stay
    paired -- and takes each method's mean over them (NaN-aware).  Returns (n_boot, n_problems, n_methods).
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 3 or x.size == 0 or np.isinf(x).any():
        raise ValueError(f"values must be a non-empty 3-D array of finite values or NaN, got shape {x.shape}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot!r}")
    n_problems, _, n_trials = x.shape
    rng = np.random.default_rng(random_state)
    idx = rng.integers(0, n_trials, size=(n_boot, n_problems, n_trials))
    picked = np.take_along_axis(x[None, :, :, :], idx[:, :, None, :], axis=3)  # (B, P, M, T)
    if not np.isnan(x).any():
        return picked.mean(axis=3)
    with warnings.catch_warnings():  # a replicate that drew only missing trials: NaN, as documented
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(picked, axis=3)


def percentile_interval(samples, level=0.95, axis=0):
    """The (lower, upper) percentile interval of bootstrap ``samples`` along ``axis`` at confidence ``level``."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    tail = 100 * (1 - level) / 2
    return np.nanpercentile(samples, tail, axis=axis), np.nanpercentile(samples, 100 - tail, axis=axis)
