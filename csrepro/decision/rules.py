"""Decision rules on class-probability estimates (O'Brien, Gupta & Gray 2008, Secs. 1, 3.2, 4, 5).

Orientation.  The project's ``C[j, k]`` is the cost of predicting k when the true class is j (row = true,
column = predicted; :mod:`csrepro.costs`).  The paper's c_{i|j} is the cost of assigning i when the true class
is j (row = assigned, column = true), so ``c = C.T``.  Every function here takes and returns the project
orientation; docstrings give the paper's form too.  The paper's "row i" (all costs of assigning i) is the
project's column i; its "column j" (all costs for true class j) is the project's row j.

* :func:`expected_costs`, :func:`decide`: eq. (1), g(p; c) = argmin_i sum_j c_{i|j} p_j, the minimum-expected-cost
  (Bayes) rule; :func:`decide` is the library's one copy of it, called by every estimator that decides from
  probabilities.
* :func:`equal_risk_point`: Property 2.
* :func:`mossman_rule`: Mossman's 3-class rule, eq. (3).
* :func:`mossman_partition_matrix`: a partition matrix of the form of eq. (13); see its docstring for what
  was reconstructed from the damaged text.
"""

from __future__ import annotations

import numpy as np

__all__ = ["decide", "equal_risk_point", "expected_costs", "mossman_partition_matrix", "mossman_rule"]


def _as_probabilities(P):
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        raise ValueError(f"P must be 2-D (n_samples, n_classes), got shape {P.shape}")
    if not np.all(np.isfinite(P)):
        raise ValueError("P contains nan or inf; pass finite class-probability estimates")
    return P


def _as_matrix(C, K=None, name="cost matrix"):
    try:
        C = np.array(C, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric (K, K) array, got {type(C).__name__}") from None
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] < 2:
        raise ValueError(f"{name} must be a square (K, K) array with K >= 2, got shape {C.shape}")
    if K is not None and C.shape[0] != K:
        raise ValueError(f"{name} is {C.shape[0]}x{C.shape[0]} but P has {K} columns (one per class)")
    if not np.all(np.isfinite(C)):
        raise ValueError(f"{name} contains nan or inf; pass finite entries")
    return C


def expected_costs(P, C):
    """Expected cost of predicting each class, ``P @ C`` (n, K).

    Column i is sum_j P[:, j] C[j, i] = sum_j c_{i|j} p_j in the paper's notation (eq. 1).  ``C`` may be any
    finite (K, K) matrix: a cost matrix, a partition matrix (Sec. 5), or one with a non-zero diagonal (Sec. 4).
    """
    P = _as_probabilities(P)
    return P @ _as_matrix(C, P.shape[1])


def decide(P, C):
    """The minimum-expected-cost rule, eq. (1): g(p; c) = argmin_i sum_j c_{i|j} p_j, i.e.
    argmin_k sum_j P[:, j] C[j, k] (Beijbom et al. 2014, eq. 3), as class indices (n,); exact ties go to the lowest
    index.

    ``P`` (n, K): finite class-probability estimates, columns in class order (any non-negative scaling of a row gives
    the same decision).  ``C`` in project orientation (``C[j, k]``: cost of predicting k when the truth is j;
    ``c = C.T``): a cost matrix, or any finite (K, K) matrix (a partition matrix with negative entries,
    ``bounded=False``; a non-zero diagonal, Sec. 4).
    """
    return np.argmin(expected_costs(P, C), axis=1)


def equal_risk_point(C, rtol=1e-10):
    """Property 2: the point e with sum_i e_i = 1 at which every class has the same expected cost.

    In the paper's orientation (c = C.T) e solves c e = lambda 1, 1^T e = 1.  For full-rank c,
    e = c^{-1} 1 / (1^T c^{-1} 1); in general the bordered system [[c, -1], [1^T, 0]] [e; lambda] = [0; 1].
    e may lie outside the simplex (negative entries).  Returns e (K,) when the solution is unique; returns
    ``None`` when there is no solution (the point is "at infinity": 1^T c^{-1} 1 = 0 for full-rank c, or an
    inconsistent system); raises ``ValueError`` when the solutions form a line or hyperplane (no unique point).
    Singularity is judged by the bordered matrix's singular values (smallest <= ``rtol`` * largest).
    """
    c = _as_matrix(C).T
    K = c.shape[0]
    M = np.zeros((K + 1, K + 1))
    M[:K, :K] = c
    M[:K, K] = -1.0
    M[K, :K] = 1.0
    rhs = np.zeros(K + 1)
    rhs[K] = 1.0
    s = np.linalg.svd(M, compute_uv=False)
    if s[-1] > rtol * s[0]:
        return np.linalg.solve(M, rhs)[:K]
    sol, *_ = np.linalg.lstsq(M, rhs, rcond=None)
    if np.linalg.norm(M @ sol - rhs) > 1e-8 * max(1.0, np.linalg.norm(sol)):
        return None
    raise ValueError("the equal-risk conditions of Property 2 have a line (or hyperplane) of solutions, "
                     "not a unique point: the bordered system [[c, -1], [1^T, 0]] is singular but consistent")


def mossman_rule(P, theta1, theta2):
    """Mossman's 3-class rule, eq. (3), as class indices 0, 1, 2 (the paper's classes 1, 2, 3).

    class 3 if p3 > theta1; else class 1 if p2 - p1 <= theta2, class 2 if p2 - p1 > theta2.  The inequality
    signs are lost in the extracted text; these (<= / >) are used.  ``P`` (n, 3) in class order.
    """
    P = _as_probabilities(P)
    if P.shape[1] != 3:
        raise ValueError(f"Mossman's rule (3) is defined for 3 classes, P has {P.shape[1]} columns")
    out = np.where(P[:, 1] - P[:, 0] <= theta2, 0, 1)
    return np.where(P[:, 2] > theta1, 2, out)


def mossman_partition_matrix(theta1, theta2, L=1e6):
    """A partition matrix (project orientation) whose eq.-(1) decisions approach rule (3) as L -> infinity.

    Reconstructed, not copied: eq. (13) is garbled in the extracted text (legible: a 3x3 matrix with zero
    diagonal, entries built from 1 - theta2, 1 + theta2, theta1/(1 - theta1), halves, and L >> 1).  Derived
    here from rule (3), in the paper's orientation a = A.T (a_{i|j}: assign i, true j), with
    M = L / (1 - theta1)::

        a = [[0,                        1 - theta2,               L - theta2/2],
             [1 + theta2,               0,                        L + theta2/2],
             [M theta1 + (1 + theta2)/2, M theta1 + (1 - theta2)/2, 0          ]]

    With d = p2 - p1 - theta2 and p on the simplex: r_1 - r_2 = d exactly (the 1|2 boundary of (3)), and
    r_3 - min(r_1, r_2) = M (theta1 - p3) + |d|/2, so class 3 is chosen iff p3 > theta1 + (1 - theta1)|d|/(2L):
    rule (3) except in a band of width <= (1 - theta1)/L beside p3 = theta1 (no linear partition reproduces
    (3) exactly: its 1|3 and 2|3 boundaries coincide).  Needs 0 < theta1 < 1, |theta2| < 1 and L > 1/2 for
    positive off-diagonal entries (Property 4).
    """
    theta1, theta2, L = float(theta1), float(theta2), float(L)
    if not (0 < theta1 < 1 and -1 < theta2 < 1 and L > 0.5):
        raise ValueError(f"need 0 < theta1 < 1, -1 < theta2 < 1, L > 1/2; got {theta1}, {theta2}, {L}")
    M = L / (1 - theta1)
    a = np.array([[0.0, 1 - theta2, L - theta2 / 2],
                  [1 + theta2, 0.0, L + theta2 / 2],
                  [M * theta1 + (1 + theta2) / 2, M * theta1 + (1 - theta2) / 2, 0.0]])
    return a.T
