"""NumPy reference of :mod:`csrepro._kernels.histogram`."""

import numpy as np


def histogram(codes, offsets, channels, samples, out):
    """``out[offsets[j] + codes[i, j], c] = sum_i channels[i, c]`` over ``samples`` (None: all rows)."""
    rows = np.arange(len(codes)) if samples is None else np.asarray(samples, dtype=np.intp)
    flat = (codes[rows] + offsets).ravel()  # row-major: sample t, feature j at t * d + j
    per = np.repeat(channels[rows], codes.shape[1], axis=0)
    for c in range(channels.shape[1]):
        out[:, c] = np.bincount(flat, weights=per[:, c], minlength=out.shape[0])
    return out


def node_sums(channels, node, out):
    """``out[v] = sum channels[i]`` over the rows with ``node[i] == v`` (-1: none; None: all in node 0), in row
    order."""
    v = np.zeros(len(channels), dtype=np.intp) if node is None else np.asarray(node, dtype=np.intp)
    keep = v >= 0
    for c in range(channels.shape[1]):  # bincount adds in input order: the kernel's bits
        out[:, c] = np.bincount(v[keep], weights=channels[keep, c], minlength=out.shape[0])
    return out


def histogram_nodes(codes_t, offsets, n_bins, default, indptr, indices, channels, node, out):
    """``out[v]``: the histogram of the rows with ``node[i] == v``; a sparse feature (``default[j] >= 0``) reads only
    ``indices[indptr[j]:indptr[j + 1]]`` and its default bin is the node total less its other bins."""
    V, B, k = out.shape
    v = np.zeros(codes_t.shape[1], dtype=np.intp) if node is None else np.asarray(node, dtype=np.intp)
    d, n = codes_t.shape
    rows = [np.arange(n) if default[j] < 0 else indices[indptr[j]:indptr[j + 1]] for j in range(d)]
    feature = np.repeat(np.arange(d), [len(r) for r in rows])
    rows = np.concatenate(rows + [np.empty(0, np.intp)]).astype(np.intp)
    keep = v[rows] >= 0
    rows, feature = rows[keep], feature[keep]
    flat = v[rows] * B + offsets[feature] + codes_t[feature, rows]  # per bin: one feature, rows increasing
    for c in range(k):
        out[:, :, c] = np.bincount(flat, weights=channels[rows, c], minlength=V * B).reshape(V, B)
    total = node_sums(channels, node, np.empty((V, k)))
    for j in np.flatnonzero(np.asarray(default) >= 0):
        o, m, df = offsets[j], n_bins[j], default[j]
        others = np.delete(out[:, o:o + m], df, axis=1)
        out[:, o + df] = total - (np.cumsum(others, axis=1)[:, -1] if m > 1 else 0.0)  # cumsum: sequential
    return out


def route_rows(codes_t, node, feature, threshold_bin, left, right):
    """In place: a row of node v >= 0 goes to ``left[v]`` if ``feature[v] < 0`` or its code <= ``threshold_bin[v]``,
    else to ``right[v]``."""
    rows = np.flatnonzero(node >= 0)
    v = node[rows]
    j = feature[v]
    goes_left = (j < 0) | (codes_t[np.maximum(j, 0), rows] <= threshold_bin[v])
    node[rows] = np.where(goes_left, left[v], right[v])
    return node


def node_scan(H, offsets, n_bins, counted, distinct, L, R, valid, index, total, minus=None, diff=None, scores=None,
              b0=0.0, d0=0.0, rtol=0.0):
    """Left / right sums (k', w) of the splits "code_j <= b" of the node with histogram ``H``, from one cumulative
    sum over the flat bin axis: every one, or (``distinct``) those whose left sums differ in some bit from the
    previous candidate's of the same feature; ``valid``: both sides hold samples (``counted``: H's last channel
    counts them); ``index``: their positions among all candidates.  ``minus`` (not None): the node's histogram is
    H - minus, written to ``diff`` first (None: a new array).  Returns w; with ``scores`` (2C,), also
    :func:`weighted_errors` of the w candidates (channels (pos, neg), base ``b0``, ``d0``) into ``scores[:2w]``, and
    returns (w, its pick)."""
    if minus is not None:
        H = np.subtract(H, minus, out=diff)
    offsets, n_bins = np.asarray(offsets), np.asarray(n_bins)
    last = offsets + n_bins - 1
    flat = np.setdiff1d(np.arange(H.shape[0]), last)
    feature = np.searchsorted(offsets, flat, side="right") - 1
    cum = np.cumsum(np.ascontiguousarray(H.T), axis=1)  # channel-major: each channel's sums contiguous
    before = np.take(cum, offsets - 1, axis=1)  # sums of the bins before feature j
    before[:, 0] = 0.0
    totals = np.take(cum, last, axis=1) - before
    left = np.take(cum, flat, axis=1) - np.take(before, feature, axis=1)
    right = np.take(totals, feature, axis=1) - left
    kk = H.shape[1] - bool(counted)
    fresh = np.ones(len(flat), dtype=bool)
    if distinct:
        bits = np.ascontiguousarray(left).view(np.int64)
        fresh[1:] = (feature[1:] != feature[:-1]) | np.any(bits[:, 1:] != bits[:, :-1], axis=0)
    keep = np.flatnonzero(fresh)
    w = len(keep)
    valid[:w] = ((left[-1] > 0.5) & (right[-1] > 0.5))[keep] if counted else 1
    L[:, :w], R[:, :w], index[:w] = left[:kk, keep], right[:kk, keep], keep
    total[:] = totals[:kk, 0] if len(offsets) else 0.0
    if scores is None:
        return w
    return (w, *weighted_errors(L[0, :w], R[0, :w], L[1, :w], R[1, :w], valid[:w], b0, d0, rtol, scores[:2 * w]))


def class_channels(w, y, out):
    """out (n, 2): w 1[y > 0], w 1[y <= 0] (NaN y: the second)."""
    pos = np.asarray(y) > 0
    np.multiply(w, pos, out=out[:, 0])
    np.multiply(w, ~pos, out=out[:, 1])
    return out


def logit_channels(t, y, sw, floor, z_max, out):
    """out (n, 2): (w, w z) with p = (1 + t) / 2, w = max(p (1 - p), floor) (times ``sw`` unless None),
    z = clip(((y + 1) / 2 - p) / w, -z_max, z_max)."""
    p = 0.5 * (1.0 + t)
    w = np.maximum(p * (1.0 - p), floor)
    z = np.clip((0.5 * (y + 1.0) - p) / w, -z_max, z_max)
    if sw is not None:
        w = w * sw
    out[:, 0], out[:, 1] = w, w * z
    return out


def with_counts(channels, out):
    """out (n, k + 1): the channels, then ones."""
    out[:, :-1], out[:, -1] = channels, 1.0
    return out


def error_sums(pos_left, pos_right, neg_left, neg_right, b0, d0, b, d):
    """b, d (2C,): at 2c (pos_left, neg_right), at 2c + 1 (pos_right, neg_left), plus (b0, d0)."""
    b[0::2], b[1::2], d[0::2], d[1::2] = pos_left, pos_right, neg_right, neg_left
    b += b0
    d += d0


def weighted_errors(pos_left, pos_right, neg_left, neg_right, valid, b0, d0, rtol, scores):
    """scores (2C,): d + b of :func:`error_sums`' b, d, inf where ``valid`` is 0; returns their
    :func:`best_score` with ``rtol``."""
    b, d = np.empty(len(scores)), np.empty(len(scores))
    error_sums(pos_left, pos_right, neg_left, neg_right, b0, d0, b, d)
    scores[:] = np.where(np.repeat(np.asarray(valid, dtype=bool), 2), d + b, np.inf)
    return best_score(scores, rtol)


def least_squares_losses(w_left, wz_left, w_right, wz_right, valid, ridge, out):
    """out (C,): -wz_l v_l - wz_r v_r, v = wz / (w + ridge) (0 where that is not > 0), inf where ``valid`` is 0."""
    def loss(w, wz):
        den = w + ridge
        return -wz * np.divide(wz, den, out=np.zeros(len(den)), where=den > 0)

    out[:] = np.where(np.asarray(valid, dtype=bool), loss(w_left, wz_left) + loss(w_right, wz_right), np.inf)
    return out


def best_score(scores, rtol):
    """(the first index whose score is within ``rtol`` x (largest finite |score|) of the least finite one, 0 when
    none is finite; ``scores.min()``, NaN for no scores)."""
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return 0, np.nan
    finite = scores[np.isfinite(scores)]
    if len(finite) == 0:
        return 0, float(scores.min())
    low = finite.min()
    return int(np.argmax(scores <= low + rtol * np.abs(finite).max())), float(scores.min())


def tree_leaves(X, feature, threshold, left, right, leaf, out):
    """``out[i]``: the leaf reached by row i of X from node 0 (x_feature <= threshold: left; NaN: right)."""
    node = np.zeros(len(X), dtype=np.intp)
    for v in np.flatnonzero(np.asarray(feature) >= 0):  # parents have lower ids than their children
        here = node == v
        node[here] = np.where(X[here, feature[v]] <= threshold[v], left[v], right[v])
    out[:] = np.asarray(leaf)[node]
    return out


def partition_rows(column, rows, threshold_bin, out):
    """``out``: the rows with ``column[row] <= threshold_bin``, then the others, each in the order of ``rows`` (None:
    all); returns how many go left."""
    rows = np.arange(len(column)) if rows is None else np.asarray(rows, dtype=np.intp)
    left = column[rows] <= threshold_bin
    out[:] = np.concatenate([rows[left], rows[~left]])
    return int(left.sum())


def split_outputs(column, threshold_bin, left, right, out, rows=None):
    """out: ``left`` where ``column <= threshold_bin``, else ``right`` (at ``rows`` only, unless None)."""
    rows = slice(None) if rows is None else np.asarray(rows, dtype=np.intp)
    out[rows] = np.array([left, right])[(np.asarray(column)[rows] > threshold_bin).view(np.uint8)]
    return out
