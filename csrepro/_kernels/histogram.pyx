# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Per-(feature, bin) sums of per-sample channels (NumPy reference: histogram_ref.py).

Binned features are integer codes ``codes[i, j]`` (C-contiguous, shape (n, d)); the bins of
all features lie in one flat axis, feature j's bin b at ``offsets[j] + b``.  For per-sample
channels ``channels[i, c]`` (e.g. w_i 1[y_i = +1], w_i 1[y_i = -1], or w_i, w_i z_i) the
histogram is ``out[offsets[j] + codes[i, j], c] = sum_i channels[i, c]`` over the samples i of
a subset (a tree node) or of all rows: one pass over the rows, no Python objects per sample.

* :func:`histogram` (row-major int32 codes) and :func:`histogram_fm` (feature-major uint8 or uint16 codes, the
  same bits): every feature read densely (quantile binnings).
* :func:`histogram_nodes`: every node of a tree layer at once (each row labelled by its node), and features read
  sparsely -- only the rows outside their most frequent bin, which gets the node total less the other bins
  (LightGBM's trick; uniform binnings, :class:`csrepro.weak.binning.SparseLayout`).
* :func:`node_sums` (the channel sums of each node) and :func:`route_rows` (rows to their child nodes).
* :func:`class_channels`, :func:`logit_channels` and :func:`with_counts` (a booster's class channels, LogitBoost's
  least-squares channels; a tree's channels and a count).
* :func:`node_scan` (a node's split candidates: left / right sums from its histogram, or from its histogram less
  another's, and in the same pass, optionally, AdaBoost's scores of them), :func:`error_sums` (their labelled splits'
  error sums), :func:`weighted_errors` (AdaBoost's scores of them), :func:`least_squares_losses` (LogitBoost's) and
  :func:`best_score` (the first score within a tolerance of the least), the stumps' and trees' split search.

The SSE2 / AVX / AVX2 inner loops are C in ``include/histogram_simd.h``, declared in ``_simd_histogram.pxd``.
"""

from libc.math cimport INFINITY, NAN
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

from csrepro._kernels._simd_histogram cimport (
    SCAN_MAXK, _add, _default3, _dense3x4, _errors, _errors_end, _errors_start, _max_id_avx2, _node_scan, _route,
    _route_avx2, _route_has_avx2, _route_split, _run, _run32, _score_range, _sparse3, _weighted_errors, _zero_bins,
)


def _rows(codes, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t[::1] offsets, const double[:, ::1] channels,
          samples, double[:, ::1] out):
    """The row indices of ``samples`` as a contiguous intp array (an empty one for None: all n rows),
    after checking that ``offsets``, ``channels`` and ``out`` (at least as many columns as channels) fit ``codes``
    (its shape, described)."""
    if channels.shape[0] != n or offsets.shape[0] != d or out.shape[1] < channels.shape[1]:
        raise ValueError(f"shape mismatch: {codes}, offsets {offsets.shape[0]}, channels "
                         f"{channels.shape[0]}x{channels.shape[1]}, out {out.shape[0]}x{out.shape[1]}")
    return np.ascontiguousarray(np.empty(0) if samples is None else samples, dtype=np.intp)


cdef void _zero_columns(double[:, ::1] out, Py_ssize_t k) noexcept nogil:
    """``out[:, :k] = 0.0`` (+0.0: all bits zero): one memset where k spans out's rows, else a loop of stores (not
    Cython's element-by-element slice assignment)."""
    cdef Py_ssize_t B = out.shape[0], ks = out.shape[1], i, c
    cdef double* o
    if B == 0 or k == 0:
        return
    o = &out[0, 0]
    if k == ks:
        memset(o, 0, B * ks * sizeof(double))
    elif k == 2:  # a tree root's two channels beside its count column
        for i in range(B):
            o[i * ks] = 0.0
            o[i * ks + 1] = 0.0
    else:
        for i in range(B):
            for c in range(k):
                o[i * ks + c] = 0.0


def histogram(const int[:, ::1] codes, const Py_ssize_t[::1] offsets, const double[:, ::1] channels,
              samples, double[:, ::1] out):
    """Fill ``out`` (shape (total_bins, k') with k' >= k; its first k columns zeroed first) with the channel sums in
    its first k columns, the others left as they are (e.g. a sample-count column); returns ``out``.

    ``samples``: int array of row indices (duplicates count twice), or None for all rows.
    """
    cdef Py_ssize_t n = codes.shape[0], d = codes.shape[1], k = channels.shape[1]
    cdef Py_ssize_t m, t, i, j, c, b
    cdef bint every = samples is None
    cdef const Py_ssize_t[::1] rows = _rows(f"codes {n}x{d}", n, d, offsets, channels, samples, out)
    m = n if every else rows.shape[0]
    with nogil:
        _zero_columns(out, k)
        if k == 2:  # the common case (two class weights, or w and w z): unrolled
            for t in range(m):
                i = t if every else rows[t]
                for j in range(d):
                    b = offsets[j] + codes[i, j]
                    out[b, 0] += channels[i, 0]
                    out[b, 1] += channels[i, 1]
        elif k == 3:  # two channels and a sample count (tree nodes)
            for t in range(m):
                i = t if every else rows[t]
                for j in range(d):
                    b = offsets[j] + codes[i, j]
                    out[b, 0] += channels[i, 0]
                    out[b, 1] += channels[i, 1]
                    out[b, 2] += channels[i, 2]
        else:
            for t in range(m):
                i = t if every else rows[t]
                for j in range(d):
                    b = offsets[j] + codes[i, j]
                    for c in range(k):
                        out[b, c] += channels[i, c]
    return np.asarray(out)


ctypedef unsigned char code8
ctypedef unsigned short code16
ctypedef fused code_t:  # feature-major codes: uint8 (every feature < 257 bins) or uint16 (< 65,537)
    code8
    code16


cdef inline void _four(double* base, Py_ssize_t ks, const double* src, Py_ssize_t k, const code_t* c0,
                       const code_t* c1, const code_t* c2, const code_t* c3, Py_ssize_t o0, Py_ssize_t o1,
                       Py_ssize_t o2, Py_ssize_t o3, const Py_ssize_t* rows, Py_ssize_t t0,
                       Py_ssize_t t1) noexcept nogil:
    """:func:`histogram_fm`'s adds of four features (codes c0..c3, first bins o0..o3), or of two (c2 NULL), for the
    rows t0..t1 of a block (rows[t], or t when ``rows`` is NULL): row t's k channels at src + (t - t0) k, into bins ks
    apart (called with constant k and ks where they are hot)."""
    cdef Py_ssize_t t, i
    for t in range(t0, t1):
        i = t if rows == NULL else rows[t]
        _add(base + (o0 + c0[i]) * ks, src + (t - t0) * k, k)
        _add(base + (o1 + c1[i]) * ks, src + (t - t0) * k, k)
        if c2 != NULL:
            _add(base + (o2 + c2[i]) * ks, src + (t - t0) * k, k)
            _add(base + (o3 + c3[i]) * ks, src + (t - t0) * k, k)


cdef inline void _group(double* base, Py_ssize_t ks, const double* src, Py_ssize_t k, const code_t* c0,
                        const code_t* c1, const code_t* c2, const code_t* c3, Py_ssize_t o0, Py_ssize_t o1,
                        Py_ssize_t o2, Py_ssize_t o3, const Py_ssize_t* rows, Py_ssize_t t0,
                        Py_ssize_t t1) noexcept nogil:
    """:func:`_four` with the hot k and ks constant."""
    if k == 2 and ks == 2:  # a stump's two channels: the strides constant, the adds unrolled
        _four(base, 2, src, 2, c0, c1, c2, c3, o0, o1, o2, o3, rows, t0, t1)
    elif k == 2 and ks == 3:  # a tree root's two channels, beside its count column
        _four(base, 3, src, 2, c0, c1, c2, c3, o0, o1, o2, o3, rows, t0, t1)
    elif k == 3 and ks == 3:  # a tree node's two channels and count
        _four(base, 3, src, 3, c0, c1, c2, c3, o0, o1, o2, o3, rows, t0, t1)
    else:
        _four(base, ks, src, k, c0, c1, c2, c3, o0, o1, o2, o3, rows, t0, t1)


def histogram_fm(const code_t[:, ::1] codes_t, const Py_ssize_t[::1] offsets,
                 const double[:, ::1] channels, samples, double[:, ::1] out, bint counts=False):
    """:func:`histogram` from feature-major codes ``codes_t`` (d, n), uint8 (every feature < 257 bins) or uint16.

    Same result, bit for bit (``out`` as there: k' >= k columns, the sums in the first k): every bin receives its
    samples' channels one addition at a time in the order of ``samples`` (rows 0..n-1 for None), starting from 0.0,
    as :func:`histogram` does.  Only the loop order differs: blocks of rows (whose channels stay in cache), within a
    block one feature at a time (so its bins stay in cache too): for 8..24 channels (even) a run of consecutive
    samples in one bin (a dominant bin, e.g. MNIST's zero pixels) is summed in registers (SSE2, or AVX where the CPU
    has it) and stored once; otherwise four features are interleaved (independent additions; two of the last three
    or two), and for a subset the block's channels are first gathered into one contiguous buffer in the order of
    ``samples`` (HistGradientBoosting's "ordered gradients": one scattered read per row rather than one per feature).

    ``counts``: out's column k (out has at least k + 1 columns) also gets each bin's row count, as a last channel of
    ones would (1.0 added per row): a ones column is added to the gathered channels (those of every row are then
    gathered too).
    """
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], kin = channels.shape[1], ks = out.shape[1]
    cdef Py_ssize_t k = kin + counts  # the channels summed
    cdef Py_ssize_t m, t, t0, t1, i, j, step
    cdef Py_ssize_t o0, o1, o2, o3
    cdef const code_t* c0
    cdef const code_t* c1
    cdef const code_t* c2
    cdef const code_t* c3
    cdef const double* ch
    cdef const double* src
    cdef double* base
    cdef double* gathered = NULL
    cdef const Py_ssize_t* rp = NULL
    cdef bint every = samples is None
    cdef const Py_ssize_t[::1] rows = _rows(f"codes_t {d}x{n}", n, d, offsets, channels, samples, out)
    if ks < k:
        raise ValueError(f"shape mismatch: {kin} channels and a count, out {out.shape[0]}x{ks}")
    if counts and every:
        rows, every = np.arange(n, dtype=np.intp), False
    m = n if every else rows.shape[0]
    step = max(256, 32768 // max(k, 1))  # a block's channels: about 256 KiB
    _zero_columns(out, k)
    if m == 0 or k == 0 or d == 0:
        return np.asarray(out)
    if not every:
        rp = &rows[0]
        gathered = <double*>malloc(step * k * sizeof(double))
        if gathered == NULL:
            raise MemoryError()
    with nogil:
        ch = &channels[0, 0]
        base = &out[0, 0]
        t0 = 0
        while t0 < m:
            t1 = min(t0 + step, m)
            if code_t is code8 and ks == k and not counts:  # runs in registers: uint8 codes, bins k apart
                if _run(base, &codes_t[0, 0], offsets[0], ch, k, rp, t0, t1):
                    for j in range(1, d):
                        _run(base, &codes_t[j, 0], offsets[j], ch, k, rp, t0, t1)
                    t0 = t1
                    continue
            src = ch + t0 * k  # the block's channels, row t - t0 at src + (t - t0) k
            if not every:
                for t in range(t0, t1):
                    memcpy(gathered + (t - t0) * k, ch + rows[t] * kin, kin * sizeof(double))
                    if counts:
                        gathered[(t - t0) * k + kin] = 1.0
                src = gathered
            j = 0
            while j + 4 <= d:
                c0, c1, c2, c3 = &codes_t[j, 0], &codes_t[j + 1, 0], &codes_t[j + 2, 0], &codes_t[j + 3, 0]
                o0, o1, o2, o3 = offsets[j], offsets[j + 1], offsets[j + 2], offsets[j + 3]
                _group(base, ks, src, k, c0, c1, c2, c3, o0, o1, o2, o3, rp, t0, t1)
                j += 4
            if j + 2 <= d:  # two of the last features together too
                c0, c1, o0, o1 = &codes_t[j, 0], &codes_t[j + 1, 0], offsets[j], offsets[j + 1]
                _group(base, ks, src, k, c0, c1, NULL, NULL, o0, o1, 0, 0, rp, t0, t1)
                j += 2
            while j < d:
                c0, o0 = &codes_t[j, 0], offsets[j]
                for t in range(t0, t1):
                    i = t if every else rows[t]
                    _add(base + (o0 + c0[i]) * ks, src + (t - t0) * k, k)
                j += 1
            t0 = t1
    free(gathered)
    return np.asarray(out)


def _nodes(node, Py_ssize_t n, Py_ssize_t n_nodes):
    """``node`` as a contiguous int32 array after checking it (n values in -1..n_nodes-1); an empty one for None."""
    if node is None:
        if n_nodes < 1:
            raise ValueError("node=None puts every row in node 0: out needs at least one node")
        return np.empty(0, dtype=np.int32)
    nd = np.ascontiguousarray(node, dtype=np.int32)
    if nd.shape != (n,) or (n and (nd.min() < -1 or nd.max() >= n_nodes)):
        raise ValueError(f"node must hold {n} node ids in -1..{n_nodes - 1}")
    return nd


def node_sums(const double[:, ::1] channels, node, double[:, ::1] out):
    """Fill ``out`` (n_nodes, k): ``out[v] = sum channels[i]`` over the rows with ``node[i] == v`` (-1: no node;
    None: every row in node 0), added one row at a time in increasing i from 0.0.  Returns ``out``."""
    cdef Py_ssize_t n = channels.shape[0], k = channels.shape[1], i, v
    cdef bint every = node is None
    if out.shape[1] != k:
        raise ValueError(f"shape mismatch: channels {n}x{k}, out {out.shape[0]}x{out.shape[1]}")
    cdef const int[::1] nd = _nodes(node, n, out.shape[0])
    out[:, :] = 0.0
    if n == 0 or k == 0:
        return np.asarray(out)
    with nogil:
        for i in range(n):
            v = 0 if every else nd[i]
            if v >= 0:
                _add(&out[v, 0], &channels[i, 0], k)
    return np.asarray(out)


def histogram_nodes(const unsigned char[:, ::1] codes_t, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins,
                    const int[::1] default, const Py_ssize_t[::1] indptr, const int[::1] indices,
                    const double[:, ::1] channels, node, double[:, :, ::1] out):
    """Every node's histogram in one pass over the rows: ``out[v]`` (total_bins, k) sums the channels of the rows
    with ``node[i] == v`` (-1: in no node; None: every row in node 0); ``out`` (n_nodes, total_bins, k).

    Feature-major uint8 codes ``codes_t`` (d, n).  A feature j with ``default[j] < 0`` is dense: every row is
    read.  Otherwise it is sparse: ``indices[indptr[j]:indptr[j + 1]]`` are, increasing, the rows whose code is
    not ``default[j]``; only those are read, and the default bin gets the node total less the feature's other
    bins.  Exactly (the NumPy reference gives the same bits): each bin but a sparse feature's default receives
    its rows' channels one addition at a time in increasing row order, from 0.0; the node total T_v likewise
    (:func:`node_sums`); a default bin is T_v - S, S the feature's other bins added in increasing bin order
    from 0.0.  Loop order: blocks of rows (about 4 MiB of channels: larger blocks pass over the bins fewer
    times); within a block each dense feature, then each sparse feature's entries in the block (a cursor per
    feature); with one node and 8..24 channels (even), runs of one bin are summed in registers (SSE2, or AVX
    where the CPU has it), as in :func:`histogram_fm`, otherwise dense features go four at a time.  When the
    features' bins tile 0..total_bins-1 (a mapper's offsets), each feature's bins (of every node) are zeroed just
    before the first block reads that feature rather than all at the start, and a sparse feature's default bins are
    computed as soon as the last block has read it, while its bins are still in cache.  Rows labelled by node with
    3 channels (a tree layer): the adds unrolled.  None of this changes an addition or its order.
    Returns ``out``.
    """
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], k = channels.shape[1]
    cdef Py_ssize_t V = out.shape[0], B = out.shape[1]
    cdef Py_ssize_t t, t0, t1, i, j, q, p, e, v, b, c, o, m, df, step
    cdef Py_ssize_t o0, o1, o2, o3
    cdef const unsigned char* c0
    cdef const unsigned char* c1
    cdef const unsigned char* c2
    cdef const unsigned char* c3
    cdef const double* ch
    cdef const double* src
    cdef double* base
    cdef double* nb
    cdef double* dst
    cdef bint every = node is None, done
    if (channels.shape[0] != n or offsets.shape[0] != d or n_bins.shape[0] != d or default.shape[0] != d
            or indptr.shape[0] != d + 1 or out.shape[2] != k or indptr[0] != 0 or indptr[d] != indices.shape[0]):
        raise ValueError(f"shape mismatch: codes_t {d}x{n}, offsets {offsets.shape[0]}, n_bins {n_bins.shape[0]}, "
                         f"default {default.shape[0]}, indptr {indptr.shape[0]} (ends {np.asarray(indptr)[-1:]}), "
                         f"indices {indices.shape[0]}, channels {channels.shape[0]}x{k}, out {V}x{B}x{out.shape[2]}")
    cdef const int[::1] nd = _nodes(node, n, V)
    is_sparse = np.asarray(default) >= 0
    cdef const Py_ssize_t[::1] dense = np.flatnonzero(~is_sparse).astype(np.intp)
    cdef const Py_ssize_t[::1] sparse = np.flatnonzero(is_sparse).astype(np.intp)
    cdef Py_ssize_t n_dense = dense.shape[0], n_sparse = sparse.shape[0]
    cdef Py_ssize_t[::1] cur = np.array(indptr[:d], dtype=np.intp)
    cdef double[:, ::1] tot = np.zeros((V, k))
    cdef double[::1] s = np.zeros(k)
    cdef const unsigned char* cs[4]
    cdef Py_ssize_t os[4]
    cdef Py_ssize_t last = d - 1 if d else 0
    cdef bint lazy = n > 0 and k > 0 and d > 0 and offsets[0] == 0 and offsets[last] + n_bins[last] == B
    for j in range(1, d):
        lazy = lazy and n_bins[j - 1] >= 0 and offsets[j] == offsets[j - 1] + n_bins[j - 1]
    if not lazy:  # else each feature's bins are zeroed just before the first block reads the feature
        out[:, :, :] = 0.0
    if n == 0 or k == 0 or d == 0:
        return np.asarray(out)
    step = max(1024, 524288 // k)  # a block's channels: about 4 MiB (more blocks: more passes over the bins)
    cdef bint layer = k == 3 and not every  # a tree layer's rows: the adds unrolled
    with nogil:
        ch = &channels[0, 0]
        base = &out[0, 0, 0]
        if n_sparse:
            for i in range(n):
                v = 0 if every else nd[i]
                if v >= 0:
                    _add(&tot[v, 0], ch + i * k, k)
        t0 = 0
        while t0 < n:
            t1 = min(t0 + step, n)
            q = 0
            if lazy and t0 == 0 and n_dense:
                _zero_bins(base, V, B, k, offsets[dense[0]], n_bins[dense[0]])
            if every and n_dense and _run(base, &codes_t[dense[0], 0], offsets[dense[0]], ch, k, NULL, t0, t1):
                for q in range(1, n_dense):
                    if lazy and t0 == 0:
                        _zero_bins(base, V, B, k, offsets[dense[q]], n_bins[dense[q]])
                    _run(base, &codes_t[dense[q], 0], offsets[dense[q]], ch, k, NULL, t0, t1)
                q = n_dense
            while q + 4 <= n_dense:
                if lazy and t0 == 0:
                    for c in range(4):
                        _zero_bins(base, V, B, k, offsets[dense[q + c]], n_bins[dense[q + c]])
                c0, c1, c2, c3 = &codes_t[dense[q], 0], &codes_t[dense[q + 1], 0], &codes_t[dense[q + 2], 0], \
                    &codes_t[dense[q + 3], 0]
                o0, o1, o2, o3 = offsets[dense[q]], offsets[dense[q + 1]], offsets[dense[q + 2]], offsets[dense[q + 3]]
                if layer:  # the adds unrolled (the same IEEE additions, in the same order)
                    cs[0], cs[1], cs[2], cs[3] = c0, c1, c2, c3
                    os[0], os[1], os[2], os[3] = o0, o1, o2, o3
                    _dense3x4(base, B * k, cs, os, ch, &nd[0], t0, t1)
                    q += 4
                    continue
                for i in range(t0, t1):
                    v = 0 if every else nd[i]
                    if v < 0:
                        continue
                    nb, src = base + v * B * k, ch + i * k
                    _add(nb + (o0 + c0[i]) * k, src, k)
                    _add(nb + (o1 + c1[i]) * k, src, k)
                    _add(nb + (o2 + c2[i]) * k, src, k)
                    _add(nb + (o3 + c3[i]) * k, src, k)
                q += 4
            while q < n_dense:
                if lazy and t0 == 0:
                    _zero_bins(base, V, B, k, offsets[dense[q]], n_bins[dense[q]])
                c0, o0 = &codes_t[dense[q], 0], offsets[dense[q]]
                for i in range(t0, t1):
                    v = 0 if every else nd[i]
                    if v >= 0:
                        _add(base + (v * B + o0 + c0[i]) * k, ch + i * k, k)
                q += 1
            for q in range(n_sparse):
                j = sparse[q]
                c0, o0, p, e = &codes_t[j, 0], offsets[j], cur[j], indptr[j + 1]
                if lazy and t0 == 0:
                    _zero_bins(base, V, B, k, o0, n_bins[j])
                if layer:
                    cur[j] = _sparse3(base, B * k, c0, o0, ch, &nd[0], &indices[0], p, e, t1)
                else:
                    done = False
                    if every:  # runs of one bin in registers (8..24 channels)
                        e = p
                        while e < indptr[j + 1] and indices[e] < t1:
                            e += 1
                        if _run32(base, c0, o0, ch, k, &indices[0], p, e):
                            cur[j] = e
                            done = True
                    if not done:
                        while p < e and indices[p] < t1:
                            i = indices[p]
                            v = 0 if every else nd[i]
                            if v >= 0:
                                _add(base + (v * B + o0 + c0[i]) * k, ch + i * k, k)
                            p += 1
                        cur[j] = p
                if t1 < n:
                    continue
                # the feature is complete: its default bins now, while its bins are in cache
                o, m, df = offsets[j], n_bins[j], default[j]
                if k == 3:
                    _default3(base, V, B * k, o, m, df, &tot[0, 0])
                    continue
                for v in range(V):
                    s[:] = 0.0
                    nb = base + (v * B + o) * k
                    for b in range(m):
                        if b != df:
                            _add(&s[0], nb + b * k, k)
                    dst = nb + df * k
                    for c in range(k):
                        dst[c] = tot[v, c] - s[c]
            t0 = t1
    return np.asarray(out)


def route_rows(const unsigned char[:, ::1] codes_t, node, const Py_ssize_t[::1] feature,
               const Py_ssize_t[::1] threshold_bin, const int[::1] left, const int[::1] right):
    """Move each row to its child, in place: a row of node v = ``node[i]`` >= 0 goes to ``left[v]`` when
    ``feature[v] < 0`` (v not split) or ``codes_t[feature[v], i] <= threshold_bin[v]``, else to ``right[v]``;
    rows with node -1 stay.  Returns ``node``.

    A per-node table (the feature row read, 0 when not split; the bin above which a row goes right, 255 when not
    split: never; left; right - left), so that the row loop has no branch on the data; with AVX2 (where the CPU
    has it), at most 16 nodes and d x n < 2^31, eight rows at a time (table in registers, codes gathered)."""
    cdef int[::1] nd = node
    cdef Py_ssize_t d = codes_t.shape[0], n = codes_t.shape[1], V = feature.shape[0], i, v, t0 = 0
    cdef Py_ssize_t bad = 0
    cdef int top
    if nd.shape[0] != n or threshold_bin.shape[0] != V or left.shape[0] != V or right.shape[0] != V:
        raise ValueError(f"shape mismatch: codes_t {d}x{n}, node {nd.shape[0]}, feature {V}, threshold_bin "
                         f"{threshold_bin.shape[0]}, left {left.shape[0]}, right {right.shape[0]}")
    cdef Py_ssize_t W = max(V, 16)
    cdef Py_ssize_t off_s[16]
    cdef int tab_s[64]
    cdef Py_ssize_t[::1] off_h
    cdef int[::1] tab_h
    cdef Py_ssize_t* off = off_s
    cdef int* tab = tab_s  # rows of W: above, left, step, feature x n (int32)
    if V > 16:
        off_h, tab_h = np.empty(W, dtype=np.intp), np.empty(4 * W, dtype=np.int32)
        off, tab = &off_h[0], &tab_h[0]
    cdef bint vec = V <= 16 and d * n < 2**31 - 16 and _route_has_avx2()
    for v in range(W):
        off[v], tab[v], tab[W + v], tab[2 * W + v], tab[3 * W + v] = 0, 255, 0, 0, 0
    cdef int S = 0  # the split nodes: their ids, feature rows, bins
    cdef int su[8]
    cdef int sab[8]
    cdef Py_ssize_t soff[8]
    for v in range(V):
        bad += feature[v] >= d
        tab[W + v] = left[v]
        if feature[v] >= 0 and feature[v] < d and V <= 16:
            if S < 8:
                su[S], soff[S], sab[S] = v, feature[v] * n, min(max(threshold_bin[v], -1), 255)
            S += 1
        if feature[v] >= 0 and feature[v] < d:  # codes are 0..255: a bin outside -1..255 as -1 or 255
            off[v] = feature[v] * n
            tab[v] = min(max(threshold_bin[v], -1), 255)
            tab[2 * W + v], tab[3 * W + v] = right[v] - left[v], feature[v] * n
    if n == 0 or bad:
        if bad:
            raise ValueError(f"a feature id >= {d} or a node id >= {V}: ids out of range")
        return node
    with nogil:
        if vec:  # ids checked before any write
            top = _max_id_avx2(&nd[0], n)
            bad = top >= V
        else:
            for i in range(n):
                bad += nd[i] >= V
        if bad == 0 and d == 0:  # no feature: no node is split
            for i in range(n):
                if nd[i] >= 0:
                    nd[i] = left[nd[i]]
        elif bad == 0:
            if vec and S <= 8:
                t0 = _route_split(&codes_t[0, 0], &nd[0], n, V, S, su, soff, sab, tab + W, tab + 2 * W)
            elif vec:
                t0 = _route_avx2(&codes_t[0, 0], &nd[0], n, V, tab + 3 * W, tab, tab + W, tab + 2 * W)
            _route(&codes_t[0, 0], &nd[0], t0, n, off, tab, tab + W, tab + 2 * W)
    if bad:
        raise ValueError(f"a feature id >= {d} or a node id >= {V}: ids out of range")
    return node


cdef inline Py_ssize_t _first_within(const double* s, Py_ssize_t n, double lo, double top, double rtol) noexcept nogil:
    """The first i with s[i] <= lo + ``rtol`` x ``top`` (lo, top: the least finite entry and the largest finite
    |entry|); 0 when lo is not finite (no entry finite)."""
    cdef Py_ssize_t i
    cdef double thr = lo + rtol * top
    if lo < INFINITY:
        for i in range(n):
            if s[i] <= thr:
                return i
    return 0


def node_scan(const double[:, ::1] H, const Py_ssize_t[::1] offsets, const Py_ssize_t[::1] n_bins, bint counted,
              bint distinct, double[:, ::1] L, double[:, ::1] R, unsigned char[::1] valid, Py_ssize_t[::1] index,
              double[::1] total, const double[:, ::1] minus=None, double[:, ::1] diff=None, double[::1] scores=None,
              double b0=0.0, double d0=0.0, double rtol=0.0):
    """The splits "code_j <= b" of a node from its flat histogram ``H`` (B, k): b below feature j's last bin,
    features in order, then b (the C candidates of :attr:`csrepro.weak.binning.BinnedData.candidates`).

    For each candidate written (the first w columns; w returned): ``L`` / ``R`` (k', C) its channel sums left /
    right (k' = k - 1 when ``counted``: H's last channel counts samples and is left out), ``valid`` 1 where both
    sides hold samples (always when not ``counted``), ``index`` its position among the C; ``total`` (k',) the node's
    sums (feature 0's bins).  Every candidate is written, or with ``distinct`` only those whose left sums (every
    channel, bit for bit) differ from the previous candidate's of the same feature: a run of bins without a row
    of the node gives equal sums, hence equal scores, and the first of the run is the one a tie goes to.  The
    features' bins must tile 0..B-1 in order (a mapper's offsets); k <= 256.  The reference's arithmetic, bit for bit: one
    running sum S per channel over the flat bin axis from 0.0 (as ``np.cumsum``); with P = S at the bin before
    feature j (0.0 for j = 0), L = S_b - P, the feature's total T = S at its last bin - P, and R = T - L.

    ``minus``: None, or a histogram (B, k) that the node's lacks: the node's histogram is then H - ``minus`` (each
    entry one subtraction, as ``np.subtract``; e.g. a tree node's from its parent's and its sibling's), written to
    ``diff`` (B, k; H itself allowed) in the same pass, or not kept (``diff`` None: e.g. a node that will not need
    its histogram after its scan).

    ``scores``: None, or (2C,) for two channels (k' = 2): the candidates written are also scored as by
    :func:`weighted_errors` (the channels as (pos, neg), the base ``b0``, ``d0``) into ``scores[:2w]``, in the pass
    that writes R; then (w, :func:`best_score` of those scores with ``rtol``) is returned, the same values.
    """
    cdef Py_ssize_t B = H.shape[0], k = H.shape[1], d = offsets.shape[0], kk = k - (1 if counted else 0)
    cdef Py_ssize_t C = 0, j, w
    for j in range(d):
        if n_bins[j] < 1 or offsets[j] != C + j:
            raise ValueError("offsets and n_bins must tile the flat bin axis in order (a mapper's)")
        C += n_bins[j] - 1
    if kk < 0 or (counted and k < 1) or C + d != B or L.shape[0] != kk or R.shape[0] != kk or L.shape[1] != C \
            or R.shape[1] != C or valid.shape[0] != C or index.shape[0] != C or total.shape[0] != kk:
        raise ValueError(f"shape mismatch: H {B}x{k}, {d} features with {C} candidates, L {L.shape[0]}x{L.shape[1]}, "
                         f"R {R.shape[0]}x{R.shape[1]}, valid {valid.shape[0]}, index {index.shape[0]}, "
                         f"total {total.shape[0]}")
    if k > SCAN_MAXK:
        raise ValueError(f"node_scan sums at most {SCAN_MAXK} channels, got {k}")
    if scores is not None and (kk != 2 or scores.shape[0] != 2 * C):
        raise ValueError(f"scores: two channels (got {kk}) and 2C = {2 * C} entries (got {scores.shape[0]})")
    if (minus is None and diff is not None) or (minus is not None and (minus.shape[0] != B or minus.shape[1] != k)) \
            or (diff is not None and (diff.shape[0] != B or diff.shape[1] != k)):
        raise ValueError(f"minus and diff: None or {B}x{k} (H's shape), diff only with minus")
    cdef double* left = NULL  # the left count of each candidate written of the feature in hand
    cdef double dummy = 0.0
    cdef const double* M = NULL
    cdef double* D = NULL
    cdef _errors E
    cdef _errors* Ep = NULL
    cdef double lo = INFINITY, every = INFINITY, top = 0.0
    cdef bint nan
    total[:] = 0.0
    if (B == 0 or k == 0) and scores is None:
        return 0
    if B == 0 or k == 0:
        return 0, 0, NAN
    if minus is not None:
        M = &minus[0, 0]
    if diff is not None:
        D = &diff[0, 0]
    if scores is not None and C:
        _errors_start(&E, &scores[0], b0, d0)
        Ep = &E
    if counted:
        left = <double*>malloc(B * sizeof(double))
        if left == NULL:
            raise MemoryError()
    with nogil:  # the loop in C (include/histogram_simd.h): one running sum per channel, in registers for k <= 3
        w = _node_scan(k, &H[0, 0], &n_bins[0], d, counted, distinct, &L[0, 0] if C else &dummy, L.strides[0] // 8,
                       &R[0, 0] if C else &dummy, R.strides[0] // 8, &valid[0] if C else NULL,
                       &index[0] if C else NULL, &total[0] if kk else &dummy, left, M, D, Ep)
    free(left)
    if scores is None:
        return w
    if w == 0:
        return w, 0, NAN
    nan = _errors_end(&E, w, &every, &lo, &top)
    return w, _first_within(&scores[0], 2 * w, lo, top, rtol), (NAN if nan else every)


def class_channels(const double[::1] w, const double[::1] y, double[:, ::1] out):
    """Fill ``out`` (n, 2) with the class channels (w_i 1[y_i > 0], w_i 1[y_i <= 0]) (NaN y: the second), each the
    product of w_i and 1.0 or 0.0, as NumPy's ``w * mask``; returns ``out``."""
    cdef Py_ssize_t n = w.shape[0], i
    cdef double p
    if y.shape[0] != n or out.shape[0] != n or out.shape[1] != 2:
        raise ValueError(f"shape mismatch: w {n}, y {y.shape[0]}, out {out.shape[0]}x{out.shape[1]}")
    with nogil:
        for i in range(n):
            p = <double>(y[i] > 0)  # 1.0 or 0.0 without a branch (the labels come in no order)
            out[i, 0] = w[i] * p
            out[i, 1] = w[i] * (1.0 - p)
    return np.asarray(out)


def logit_channels(const double[::1] t, const double[::1] y, sw, double floor, double z_max, double[:, ::1] out):
    """Fill ``out`` (n, 2) with LogitBoost's weighted least-squares channels (w_i, w_i z_i) from t = tanh(F) (NumPy's
    ``np.tanh``): p = 0.5 (1 + t), w = max(p (1 - p), ``floor``), z = clip((0.5 (y + 1) - p) / w, -``z_max``,
    ``z_max``), then w times ``sw`` (the sample weights, (n,); None: none) -- NumPy's operations in its order, so its
    bits for finite t, y.  Returns ``out``."""
    cdef Py_ssize_t n = t.shape[0], i
    cdef const double[::1] s = None if sw is None else np.ascontiguousarray(sw, dtype=np.float64)
    cdef double p, w, z
    cdef bint weighted = s is not None
    if y.shape[0] != n or out.shape[0] != n or out.shape[1] != 2 or (weighted and s.shape[0] != n):
        raise ValueError(f"shape mismatch: t {n}, y {y.shape[0]}, sw {None if sw is None else s.shape[0]}, out "
                         f"{out.shape[0]}x{out.shape[1]}")
    with nogil:
        for i in range(n):
            p = 0.5 * (1.0 + t[i])
            w = p * (1.0 - p)
            if not w >= floor:  # np.maximum: the floor where w is below it (NaN stays NaN)
                w = w if w != w else floor
            z = (0.5 * (y[i] + 1.0) - p) / w
            if z < -z_max:  # np.clip, z_max > 0
                z = -z_max
            elif z > z_max:
                z = z_max
            if weighted:
                w = w * s[i]
            out[i, 0] = w
            out[i, 1] = w * z
    return np.asarray(out)


def with_counts(const double[:, ::1] channels, double[:, ::1] out):
    """Fill ``out`` (n, k + 1) with ``channels`` (n, k) and a last channel of ones (a tree's sample counts); returns
    ``out``."""
    cdef Py_ssize_t n = channels.shape[0], k = channels.shape[1], i
    if out.shape[0] != n or out.shape[1] != k + 1:
        raise ValueError(f"shape mismatch: channels {n}x{k}, out {out.shape[0]}x{out.shape[1]}")
    if n == 0:
        return np.asarray(out)
    with nogil:
        if k == 2:  # a booster's two class channels: no call per row
            for i in range(n):
                out[i, 0] = channels[i, 0]
                out[i, 1] = channels[i, 1]
                out[i, 2] = 1.0
        else:
            for i in range(n):
                if k:
                    memcpy(&out[i, 0], &channels[i, 0], k * sizeof(double))
                out[i, k] = 1.0
    return np.asarray(out)


def error_sums(const double[::1] pos_left, const double[::1] pos_right, const double[::1] neg_left,
               const double[::1] neg_right, double b0, double d0, double[::1] b, double[::1] d):
    """A node's error sums of its labelled splits (:func:`csrepro.weak.splits.discrete_scores`), C candidates: at
    2c ("left -1, right +1") b = ``pos_left[c]`` + ``b0``, d = ``neg_right[c]`` + ``d0``; at 2c + 1 b =
    ``pos_right[c]`` + ``b0``, d = ``neg_left[c]`` + ``d0`` (one addition each, NumPy's bits; a base of 0.0 leaves
    every sum of non-negative weights as it is).  ``b``, ``d``: (2C,)."""
    cdef Py_ssize_t C = pos_left.shape[0], c
    if pos_right.shape[0] != C or neg_left.shape[0] != C or neg_right.shape[0] != C or b.shape[0] != 2 * C \
            or d.shape[0] != 2 * C:
        raise ValueError(f"shape mismatch: sums {C}, {pos_right.shape[0]}, {neg_left.shape[0]}, "
                         f"{neg_right.shape[0]}; b {b.shape[0]}, d {d.shape[0]} (2C)")
    with nogil:
        for c in range(C):
            b[2 * c] = pos_left[c] + b0
            b[2 * c + 1] = pos_right[c] + b0
            d[2 * c] = neg_right[c] + d0
            d[2 * c + 1] = neg_left[c] + d0


def weighted_errors(const double[::1] pos_left, const double[::1] pos_right, const double[::1] neg_left,
                    const double[::1] neg_right, const unsigned char[::1] valid, double b0, double d0, double rtol,
                    double[::1] scores):
    """The scores d + b of AdaBoost's weighted error (:func:`csrepro.weak.criteria.weighted_error`) of a node's
    labelled splits, C candidates, with :func:`error_sums`' b and d (each one addition, then their sum: NumPy's
    bits), and inf where ``valid`` is 0: at 2c d = ``neg_right[c]`` + ``d0``, b = ``pos_left[c]`` + ``b0``; at
    2c + 1 d = ``neg_left[c]`` + ``d0``, b = ``pos_right[c]`` + ``b0``; into ``scores`` (2C,).  Returns
    :func:`best_score` of them with ``rtol``: its range pass done as the scores are written (one pass)."""
    cdef Py_ssize_t C = pos_left.shape[0]
    cdef double lo = INFINITY, every = INFINITY, top = 0.0
    cdef bint nan
    if pos_right.shape[0] != C or neg_left.shape[0] != C or neg_right.shape[0] != C or valid.shape[0] != C \
            or scores.shape[0] != 2 * C:
        raise ValueError(f"shape mismatch: sums {C}, {pos_right.shape[0]}, {neg_left.shape[0]}, "
                         f"{neg_right.shape[0]}; valid {valid.shape[0]}, scores {scores.shape[0]} (2C)")
    if C == 0:
        return 0, NAN
    with nogil:
        nan = _weighted_errors(&pos_left[0], &pos_right[0], &neg_left[0], &neg_right[0], &valid[0], b0, d0, C,
                               &scores[0], &every, &lo, &top)
    return _first_within(&scores[0], 2 * C, lo, top, rtol), (NAN if nan else every)


def least_squares_losses(const double[::1] w_left, const double[::1] wz_left, const double[::1] w_right,
                         const double[::1] wz_right, const unsigned char[::1] valid, double ridge, double[::1] out):
    """The losses of a node's C candidates under :class:`csrepro.weak.criteria.LeastSquares` (``cell_losses``):
    loss(L) + loss(R), loss(S) = -S_1 v, v = S_1 / (S_0 + ``ridge``) (0 where S_0 + ``ridge`` is not > 0), from
    the sums (S_0, S_1) = (sum w, sum w z) left and right; inf where ``valid`` is 0; into ``out`` (C,), NumPy's
    bits."""
    cdef Py_ssize_t C = w_left.shape[0], c
    cdef double den, vl, vr
    if wz_left.shape[0] != C or w_right.shape[0] != C or wz_right.shape[0] != C or valid.shape[0] != C \
            or out.shape[0] != C:
        raise ValueError(f"shape mismatch: sums {C}, {wz_left.shape[0]}, {w_right.shape[0]}, {wz_right.shape[0]}; "
                         f"valid {valid.shape[0]}, out {out.shape[0]}")
    with nogil:
        for c in range(C):
            if valid[c]:
                den = w_left[c] + ridge
                vl = wz_left[c] / den if den > 0 else 0.0
                den = w_right[c] + ridge
                vr = wz_right[c] / den if den > 0 else 0.0
                out[c] = -wz_left[c] * vl + -wz_right[c] * vr
            else:
                out[c] = INFINITY
    return np.asarray(out)


def best_score(const double[::1] scores, double rtol):
    """(i, low): i the first index whose score is at most low' + ``rtol`` x max |score| over the finite scores
    (low' their least; 0 when none is finite), and low = ``scores.min()`` (NaN when a score is NaN; NaN for no
    scores).  Candidates tied to rounding are so broken by position; one pass and a short second one."""
    cdef Py_ssize_t n = scores.shape[0]
    cdef double lo = INFINITY, every = INFINITY, top = 0.0
    cdef bint nan = n == 0
    if n == 0:
        return 0, NAN
    with nogil:  # the least entry, the least finite one and the largest finite |entry| in one SIMD pass
        nan = _score_range(&scores[0], n, &every, &lo, &top)
    return _first_within(&scores[0], n, lo, top, rtol), (NAN if nan else every)


def tree_leaves(const double[:, :] X, const Py_ssize_t[:] feature, const double[:] threshold,
                const Py_ssize_t[:] left, const Py_ssize_t[:] right, const Py_ssize_t[:] leaf, Py_ssize_t[::1] out):
    """Fill ``out`` (n,) with the leaf of each row of ``X`` (n, d), any strides (node arrays too): from node 0, a node
    v with ``feature[v] >= 0`` sends the row to ``left[v]`` when ``X[i, feature[v]] <= threshold[v]`` (NaN: right),
    else to ``right[v]``; at a node with ``feature[v] < 0`` the row gets ``leaf[v]``.  Children must have larger ids
    than their parents (checked), so every walk ends.  Returns ``out``.

    Up to 8 split nodes (e.g. four leaves): each split's test is one bit of a row's pattern, and a table of the
    2^S patterns (each walked down the tree once) gives the leaf: per row S independent tests, no walk.  More
    splits: each row walks down, a leaf stepping to itself for as many steps as the tree is deep."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], V = feature.shape[0], i, v, s, p, depth = 0, S = 0
    if threshold.shape[0] != V or left.shape[0] != V or right.shape[0] != V or leaf.shape[0] != V or out.shape[0] != n:
        raise ValueError(f"shape mismatch: X {n}x{d}, {V} nodes (threshold {threshold.shape[0]}, left "
                         f"{left.shape[0]}, right {right.shape[0]}, leaf {leaf.shape[0]}), out {out.shape[0]}")
    if V == 0:
        raise ValueError("a tree has at least one node")
    for v in range(V):
        if feature[v] >= d or (feature[v] >= 0 and not (v < left[v] < V and v < right[v] < V)):
            raise ValueError(f"node {v}: feature {feature[v]} (X has {d}) or children {left[v]}, {right[v]} "
                             f"out of range (they must follow it, below {V})")
        S += feature[v] >= 0
    cdef Py_ssize_t[:, ::1] step = np.empty((V, 3), dtype=np.intp)  # per node: column, left, right - left
    cdef Py_ssize_t[::1] level = np.zeros(V, dtype=np.intp), bit = np.zeros(V, dtype=np.intp)
    cdef double[::1] at = np.empty(V)
    cdef Py_ssize_t cols[8]
    cdef double tops[8]
    cdef Py_ssize_t[::1] table = np.empty(1 << min(S, 8), dtype=np.intp)
    S = 0
    for v in range(V):
        if feature[v] >= 0:
            step[v, 0], step[v, 1], step[v, 2], at[v] = feature[v], left[v], right[v] - left[v], threshold[v]
            level[left[v]] = level[right[v]] = level[v] + 1
            depth = max(depth, level[v] + 1)
            if S < 8:
                cols[S], tops[S], bit[v] = feature[v], threshold[v], S
            S += 1
        else:  # a leaf: column 0 (any), and both children itself
            step[v, 0], step[v, 1], step[v, 2], at[v] = 0, v, 0, 0.0
    if d == 0:  # no column to read: the root is the only node a row reaches (checked: it is not split)
        out[:] = leaf[0]
        return np.asarray(out)
    with nogil:
        if S <= 8:
            for p in range(table.shape[0]):  # bit s of p set: the test of split s holds (go left)
                v = 0
                for s in range(depth):
                    v = step[v, 1] + step[v, 2] * ((p >> bit[v]) & 1 == 0)
                table[p] = leaf[v]
            for i in range(n):
                p = 0
                for s in range(S):
                    p |= (X[i, cols[s]] <= tops[s]) << s
                out[i] = table[p]
        else:
            for i in range(n):
                v = 0
                for s in range(depth):
                    v = step[v, 1] + step[v, 2] * (not (X[i, step[v, 0]] <= at[v]))
                out[i] = leaf[v]
    return np.asarray(out)


ctypedef fused column_t:  # one feature's codes: those of codes_t, or int32 (beyond 65,536 bins)
    code8
    code16
    int


def partition_rows(const column_t[::1] column, rows, Py_ssize_t threshold_bin, Py_ssize_t[::1] out):
    """Split the rows ``rows`` (increasing or not; None: 0..n-1, n = len(column)) by ``column[i] <= threshold_bin``:
    ``out`` (as many as rows) gets those rows first, then the others, each part in the order of ``rows``.  Returns
    the number that go left.  One pass, the rows' codes read in order (a tree node's split); ValueError for a row
    outside 0..n-1 (``out`` then undefined)."""
    cdef Py_ssize_t n = column.shape[0], m, t, i, nl = 0, nr
    cdef bint every = rows is None, bad = False
    cdef const Py_ssize_t[::1] r = np.ascontiguousarray(np.empty(0) if every else rows, dtype=np.intp)
    m = n if every else r.shape[0]
    if out.shape[0] != m:
        raise ValueError(f"shape mismatch: {m} rows, out {out.shape[0]}")
    with nogil:
        for t in range(m):  # left rows to the front; right rows, as they come, to the back (reversed below)
            i = t if every else r[t]
            if <size_t>i >= <size_t>n:  # a row out of range (none read there): raised below
                bad = True
                break
            out[nl] = i  # both places, no branch: the one not kept is written over later (or holds i again)
            out[m - 1 - (t - nl)] = i
            nl += column[i] <= threshold_bin
        nr = m - nl
        for t in range(0 if bad else nr // 2):
            i = out[nl + t]
            out[nl + t] = out[m - 1 - t]
            out[m - 1 - t] = i
    if bad:
        raise ValueError(f"rows must lie in 0..{n - 1}")
    return nl


def split_outputs(const column_t[::1] column, Py_ssize_t threshold_bin, double left, double right, double[::1] out,
                  rows=None):
    """``out[i]`` = ``left`` where ``column[i] <= threshold_bin``, else ``right``, for every row i, or those of
    ``rows`` (the others left as they are): a stump's outputs on the training rows from its feature's codes, or a
    tree's last split's on its node's rows (copies of the two values, without a branch); returns ``out`` (as many
    entries as ``column``).  ValueError for a row outside 0..n-1 (``out`` then partly written)."""
    cdef Py_ssize_t n = column.shape[0], m, t, i
    cdef double values[2]
    cdef bint every = rows is None, bad = False
    cdef const Py_ssize_t[::1] r = np.ascontiguousarray(np.empty(0) if every else rows, dtype=np.intp)
    if out.shape[0] != n:
        raise ValueError(f"shape mismatch: column {n}, out {out.shape[0]}")
    m = n if every else r.shape[0]
    values[0], values[1] = left, right
    with nogil:
        for t in range(m):
            i = t if every else r[t]
            if <size_t>i >= <size_t>n:  # a row out of range: raised below
                bad = True
                break
            out[i] = values[<int>(column[i] > threshold_bin)]  # an indexed load: no branch on the codes
    if bad:
        raise ValueError(f"rows must lie in 0..{n - 1}")
    return np.asarray(out)
