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
