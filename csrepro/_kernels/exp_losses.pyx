# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exponential-family multiclass losses along a line in score space (NumPy reference: exp_losses_ref.py).

A loss is ``gamma(G)`` with, for a sample of class z with score row s (Beijbom et al. 2014):
  family 0 ("margin",   eqs. 20-22): G = sum_j c_j exp(s_j - s_z)
  family 1 ("plain",    eq. 12):     G = sum_j c_j exp(s_j)
  family 2 ("pairwise", eq. 14):     G = (sum_j c_j exp(s_j)) (sum_k exp(-s_k))
and gamma the identity (outer 0) or log(1 + .) (outer 1), where c = C[z].

Coordinate descent keeps these terms, not the scores, as its state: per sample the costly
terms ``P[i, j] = c_j exp(a_j) / e^{m_P}`` (a_j = s_j - s_z for the margin family, s_j
otherwise) and, for the pairwise family, ``Q[i, j] = exp(-s_j) / e^{m_Q}``, each row scaled
to a largest entry of 1 and floored at ``TINY`` times its cost; ``scale[i]`` is e^m (identity
outer) or e^-m (log1p), m = m_P + m_Q, so that G = e^m sum_j P_ij (times sum_k Q_ik).  An update
of one predictor coordinate, s += alpha g_i v (eq. 32, v = y_{., r} / 2), multiplies each term
by exp(alpha g_i (v_j - v_z)) (margin) or exp(+-alpha g_i v_j): the factors the line search
has just computed at that alpha, so a step costs no exponential beyond the line search's.
Along the line all terms with the same v_j move together; the line search works on their
per-sample sums (the "groups" of the distinct values ``uniq`` of v).
"""

from libc.math cimport exp, log1p, INFINITY
import numpy as np

cdef extern from *:
    """
    static inline double csr_max(double a, double b) { return a > b ? a : b; }  /* one maxsd, no branch */
    """
    double csr_max(double a, double b) noexcept nogil

# Arguments of the vectorised exp are floored here: exp(-700) ~ 1e-304 relative to the
# largest term changes no sum, and it keeps NumPy's SIMD exp off its slow underflow path
# (results below ~1e-308 are ~20x slower to compute).
cdef double EXP_FLOOR = -700.0
# Relative floor of a state term (per unit cost): a term this small is kept, not lost to underflow.
cdef double TINY = exp(EXP_FLOOR)

FAMILIES = {"margin": 0, "plain": 1, "pairwise": 2}
OUTERS = {"identity": 0, "log1p": 1}


cdef inline double _floored(double x) noexcept nogil:
    return csr_max(x, EXP_FLOOR)


cdef inline void _grouped_moments(const double* A, const double* X, const double* uniq,
                                  Py_ssize_t nu, double sign, double off, double g, int nd,
                                  double* s) noexcept nogil:
    """Moments s[p] = sum_u A_u X_u b_u^p (p = 0..nd) with b_u = g (sign uniq_u - off), X_u = exp(alpha b_u);
    nd is 1 or 3 (s[2] = s[3] = 0 for 1)."""
    cdef Py_ssize_t u
    cdef double b, e, s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0  # register accumulators
    for u in range(nu):
        b = g * (sign * uniq[u] - off)
        e = A[u] * X[u]
        s0 += e
        e *= b
        s1 += e
        if nd == 3:
            e *= b
            s2 += e
            s3 += e * b
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3


cdef inline void _sample_derivs(const double* A, const double* B, const double* XA, const double* XB,
                                Py_ssize_t nu, const double* uniq, double off, double g, double scale,
                                int family, int outer, int nd, double* d) noexcept nogil:
    """First nd (1 or 3) alpha-derivatives d[0..nd-1] of one sample's loss from its groups and exp factors."""
    cdef double s[4]
    cdef double b[4]
    cdef double inv, r1, r2
    _grouped_moments(A, XA, uniq, nu, 1.0, off, g, nd, s)
    if family == 2:  # derivatives of the product of the two sums (Leibniz)
        _grouped_moments(B, XB, uniq, nu, -1.0, 0.0, g, nd, b)
        s[3] = s[3] * b[0] + 3.0 * (s[2] * b[1] + s[1] * b[2]) + s[0] * b[3]
        s[2] = s[2] * b[0] + 2.0 * s[1] * b[1] + s[0] * b[2]
        s[1] = s[1] * b[0] + s[0] * b[1]
        s[0] = s[0] * b[0]
    if outer == 0:
        d[0] = scale * s[1]
        d[1] = scale * s[2]
        d[2] = scale * s[3]
    else:
        # derivatives of log(1 + e^m s0) = log(s0 + e^-m) + m; scale = e^-m
        inv = 1.0 / (s[0] + scale)
        r1 = s[1] * inv
        r2 = s[2] * inv
        d[0] = r1
        d[1] = r2 - r1 * r1
        d[2] = s[3] * inv - 3.0 * r1 * r2 + 2.0 * r1 * r1 * r1


cdef inline double _times_max(double* row, const double* f, const Py_ssize_t* group,
                              Py_ssize_t M) noexcept nogil:
    """row[j] *= f[group[j]] (``f = NULL``: unchanged); returns max(TINY, largest entry)."""
    cdef Py_ssize_t j
    cdef double x, rho = TINY  # a row whose terms all underflowed stays at the floor
    for j in range(M):
        x = row[j] if f == NULL else row[j] * f[group[j]]
        row[j] = x
        rho = csr_max(rho, x)
    return rho


cdef inline void _divide_floored(double* row, double rho, const double* c, Py_ssize_t M) noexcept nogil:
    """row[j] = max(row[j] / rho, TINY c[j]) (``c = NULL``: floor TINY)."""
    cdef Py_ssize_t j
    cdef double inv = 1.0 / rho
    if c == NULL:
        for j in range(M):
            row[j] = csr_max(row[j] * inv, TINY)
    else:
        for j in range(M):
            row[j] = csr_max(row[j] * inv, TINY * c[j])


cdef inline void _rescale(double* scale, double rho, int outer) noexcept nogil:
    """Fold a row divisor rho into e^m (identity outer) or e^-m (log1p)."""
    if outer == 0:
        scale[0] *= rho
    else:
        scale[0] /= rho


def load_state(const double[:, ::1] S, const Py_ssize_t[::1] z, const double[:, ::1] C,
               int family, int outer, double[:, ::1] P, double[:, ::1] Q, double[::1] scale):
    """Fill the state (``P``, ``Q``, ``scale``; see the module docstring) at scores ``S``.

    ``Q`` is only written for the pairwise family.  Zero-cost terms are held at 0.
    """
    cdef Py_ssize_t i, j, n = S.shape[0], M = S.shape[1]
    cdef double m, mb, sz, x
    cdef const double* c
    with nogil:
        for i in range(n):
            c = &C[z[i], 0]
            sz = S[i, z[i]] if family == 0 else 0.0
            m = -INFINITY
            for j in range(M):  # shift by the largest costly exponent
                x = S[i, j] - sz if c[j] > 0.0 else -INFINITY
                m = x if x > m else m
            for j in range(M):  # zero-cost terms get a harmless exponent; they are zeroed below
                P[i, j] = _floored(S[i, j] - sz - m) if c[j] > 0.0 else 0.0
            if family == 2:
                mb = -INFINITY
                for j in range(M):
                    mb = -S[i, j] if -S[i, j] > mb else mb
                for j in range(M):
                    Q[i, j] = _floored(-S[i, j] - mb)
                m = m + mb
            scale[i] = m if outer == 0 else -m
    with np.errstate(over="ignore"):
        np.exp(P, out=np.asarray(P))
        np.exp(scale, out=np.asarray(scale))
        if family == 2:
            np.exp(Q, out=np.asarray(Q))
    with nogil:
        for i in range(n):
            c = &C[z[i], 0]
            for j in range(M):
                P[i, j] = c[j] * P[i, j] if c[j] > 0.0 else 0.0
    _rescale_rows(P, Q, scale, z, C, NULL, NULL, 0, NULL, family, outer)


cdef void _rescale_rows(double[:, ::1] P, double[:, ::1] Q, double[::1] scale, const Py_ssize_t[::1] z,
                        const double[:, ::1] C, const double* factors, const Py_ssize_t* group,
                        Py_ssize_t stride, const Py_ssize_t* rows, int family, int outer):
    """Multiply row i's terms by their group factors (row i, or ``rows[i]`` unless NULL, of
    ``factors``, with ``stride`` entries; NULL: no factors), then scale every row to a largest
    entry of 1 and floor it.

    Two passes over the rows: normalising a row right after writing it stalls store forwarding.
    """
    cdef Py_ssize_t i, n = P.shape[0], M = P.shape[1], nu = stride // 2
    cdef double[::1] rho = np.empty(n)
    cdef double[::1] rho_q = np.empty(n if family == 2 else 0)
    cdef const double* f = NULL
    with nogil:
        for i in range(n):
            if factors != NULL:
                f = factors + (i if rows == NULL else rows[i]) * stride
            rho[i] = _times_max(&P[i, 0], f, group, M)
            if family == 2:
                rho_q[i] = _times_max(&Q[i, 0], NULL if f == NULL else f + nu, group, M)
        for i in range(n):
            _divide_floored(&P[i, 0], rho[i], &C[z[i], 0], M)
            _rescale(&scale[i], rho[i], outer)
            if family == 2:
                _divide_floored(&Q[i, 0], rho_q[i], NULL, M)
                _rescale(&scale[i], rho_q[i], outer)


def apply_step(double[:, ::1] P, double[:, ::1] Q, double[::1] scale, const Py_ssize_t[::1] z,
               const double[:, ::1] C, const double[:, ::1] factors, const Py_ssize_t[::1] group,
               int family, int outer, const Py_ssize_t[::1] rows=None):
    """Update (32) of the state: term j of sample i times ``factors[i, group[j]]`` (and Q's
    times ``factors[i, U + group[j]]``), as filled by :func:`line_factors` at the step alpha;
    with ``rows``, sample i reads row ``rows[i]`` of ``factors`` (factors per cell).
    """
    _rescale_rows(P, Q, scale, z, C, &factors[0, 0], &group[0], factors.shape[1],
                  NULL if rows is None else &rows[0], family, outer)


cdef inline double _group_sums(const double* row, const Py_ssize_t* order, const Py_ssize_t* starts,
                               Py_ssize_t nu, bint moments, const double* uniq, double sign, double off,
                               double* out, double* total) noexcept nogil:
    """out[u] = sum of row over the terms order[starts[u]:starts[u + 1]].  With ``moments`` (pass
    a constant), also the sums' total (``total[0]``) and returns their first moment sum_u out[u]
    (sign uniq[u] - off), the terms' slope at alpha = 0 along g = 1 (before the scale; as
    :func:`_grouped_moments`, same operations), taken from the sums still in registers: reading
    ``out`` back would stall store forwarding."""
    cdef Py_ssize_t u, k
    cdef double acc, s0 = 0.0, s1 = 0.0
    for u in range(nu):
        acc = 0.0
        for k in range(starts[u], starts[u + 1]):
            acc += row[order[k]]
        out[u] = acc
        if moments:
            s0 += acc
            s1 += acc * (sign * uniq[u] - off)
    total[0] = s0
    return s1


def prepare_step(const double[:, ::1] P, const double[:, ::1] Q, const double[::1] scale,
                 const Py_ssize_t[::1] order, const Py_ssize_t[::1] starts, const double[::1] uniq,
                 const double[::1] off, int family, int outer, double[:, ::1] wh,
                 double[:, ::1] A, double[:, ::1] B, bint with_loss=False):
    """Weights (34)-(37) for one coordinate, and the grouped terms the line search needs.

    ``wh[p, i]`` receives the (p+1)-th derivative of sample i's loss with respect to the
    coordinate f_r: ``wh[0]`` are the weights w^r, and sum_i wh[p, i] g_i^(p+1) the line
    search's derivatives at alpha = 0 (:func:`line_start`); ``wh`` has 3 rows, or 1 when only
    the weights are wanted.
    ``uniq`` holds the distinct values of the score direction v = y_{., r} / 2; the terms j
    with v_j = uniq[u] are ``order[starts[u]:starts[u + 1]]``; ``off[i]`` = v_{z_i} for the
    margin family (else 0).  ``A[i, u]`` receives the sum of sample i's P terms of group u
    (``B`` likewise from Q, pairwise family).  Returns the summed loss when ``with_loss``, else 0.
    """
    cdef Py_ssize_t i, n = P.shape[0], nu = uniq.shape[0]
    cdef int nd = 3 if wh.shape[0] == 3 else 1
    cdef double s0, s1, b0 = 1.0, b1 = 0.0, total = 0.0
    cdef double d[3]
    cdef double[::1] ones = np.ones(nu)
    cdef bint slope = nd == 1 and outer == 0  # the weights are the slope: no second pass
    with nogil:
        if slope or with_loss:
            for i in range(n):
                s1 = _group_sums(&P[i, 0], &order[0], &starts[0], nu, True, &uniq[0], 1.0, off[i], &A[i, 0], &s0)
                if family == 2:
                    b1 = _group_sums(&Q[i, 0], &order[0], &starts[0], nu, True, &uniq[0], -1.0, 0.0, &B[i, 0], &b0)
                    s1 = s1 * b0 + s0 * b1  # the product's slope (Leibniz)
                    s0 = s0 * b0
                if slope:
                    wh[0, i] = scale[i] * s1
                if with_loss:
                    total += scale[i] * s0 if outer == 0 else log1p(s0 / scale[i])
        else:
            for i in range(n):
                _group_sums(&P[i, 0], &order[0], &starts[0], nu, False, NULL, 0.0, 0.0, &A[i, 0], &s0)
                if family == 2:
                    _group_sums(&Q[i, 0], &order[0], &starts[0], nu, False, NULL, 0.0, 0.0, &B[i, 0], &b0)
        # the higher derivatives (or the log1p outer) in a second pass: reading the sums right
        # after writing them would stall store forwarding
        for i in range(0 if slope else n):
            _sample_derivs(&A[i, 0], &B[i, 0], &ones[0], &ones[0], nu, &uniq[0], off[i], 1.0,
                           scale[i], family, outer, nd, d)
            wh[0, i] = d[0]
            if nd == 3:
                wh[1, i] = d[1]
                wh[2, i] = d[2]
    return total


def line_factors(const double[::1] uniq, const double[::1] off, const double[::1] g, int family,
                 double alpha, double[:, ::1] work):
    """``work[i, u]`` = exp(alpha g_i (uniq_u - off_i)), and for the pairwise family
    ``work[i, U + u]`` = exp(-alpha g_i uniq_u): each group's factor along g at ``alpha``.
    """
    cdef Py_ssize_t i, u, n = g.shape[0], nu = uniq.shape[0]
    cdef double ag
    with nogil:
        for i in range(n):
            ag = alpha * g[i]
            for u in range(nu):
                work[i, u] = _floored(ag * (uniq[u] - off[i]))
            if family == 2:
                for u in range(nu):
                    work[i, nu + u] = _floored(-ag * uniq[u])
    with np.errstate(over="ignore"):
        np.exp(work, out=np.asarray(work))


def line_derivatives(const double[:, ::1] A, const double[:, ::1] B, const double[::1] scale,
                     const double[::1] uniq, const double[::1] off, const double[::1] g,
                     int family, int outer, double alpha, double[:, ::1] work,
                     const Py_ssize_t[::1] rows=None, const double[::1] row_g=None,
                     const double[::1] row_off=None):
    """Summed first three alpha-derivatives of the loss at ``alpha`` along g (31).

    Uses the groups of :func:`prepare_step`; leaves :func:`line_factors` at ``alpha`` in
    ``work`` (shape (n, U), or (n, 2U) for the pairwise family).  With ``rows``, the factors
    are computed once per cell (``row_g``, ``row_off``: each cell's g and offset; samples of a
    cell share them) into ``work`` and sample i reads row ``rows[i]``.
    """
    cdef Py_ssize_t i, r, n = A.shape[0], nu = A.shape[1]
    cdef double d[3]
    cdef double t1 = 0.0, t2 = 0.0, t3 = 0.0
    cdef const Py_ssize_t* rp = NULL
    if rows is None:
        line_factors(uniq, off, g, family, alpha, work)
    else:
        line_factors(uniq, row_off, row_g, family, alpha, work)
        rp = &rows[0]
    with nogil:
        for i in range(n):
            r = i if rp == NULL else rp[i]
            _sample_derivs(&A[i, 0], &B[i, 0], &work[r, 0], &work[r, nu], nu, &uniq[0], off[i],
                           g[i], scale[i], family, outer, 3, d)
            t1 += d[0]
            t2 += d[1]
            t3 += d[2]
    return t1, t2, t3


def aggregate_cells(const double[:, ::1] A, const double[:, ::1] B, const double[::1] scale,
                    const Py_ssize_t[::1] rows, int family, double[:, ::1] out):
    """Per-cell sums of the scaled grouped terms, for a loss with the identity outer.

    ``out[c, u] = sum_{i: rows[i] = c} scale_i A[i, u]``, and for the pairwise family
    ``out[c, u U + k] = sum scale_i A[i, u] B[i, k]`` (the product's terms, whose exponent
    along the line is alpha g (uniq_u - uniq_k)).  Samples in one cell share g and the offset,
    so :func:`line_derivatives` on ``out`` (unit scale) gives the summed derivatives exactly.
    """
    cdef Py_ssize_t i, u, k, c, n = A.shape[0], nu = A.shape[1]
    cdef double x
    out[:, :] = 0.0
    with nogil:
        for i in range(n):
            c = rows[i]
            if family == 2:
                for u in range(nu):
                    x = scale[i] * A[i, u]
                    for k in range(nu):
                        out[c, u * nu + k] += x * B[i, k]
            else:
                for u in range(nu):
                    out[c, u] += scale[i] * A[i, u]


def line_start(const double[::1] x, double a, double b, const double[:, ::1] wh, double[::1] g):
    """Fill ``g`` with the weak learner g_i = a x_i + b (``x``: the chosen feature's column) and
    return the line's first three derivatives at alpha = 0, sum_i wh[p, i] g_i^(p+1), from
    :func:`prepare_step`'s ``wh``.
    """
    cdef Py_ssize_t i, n = x.shape[0]
    cdef double gi, d1 = 0.0, d2 = 0.0, d3 = 0.0
    with nogil:
        for i in range(n):
            gi = a * x[i] + b
            g[i] = gi
            d1 += wh[0, i] * gi
            d2 += wh[1, i] * gi * gi
            d3 += wh[2, i] * gi * gi * gi
    return d1, d2, d3
