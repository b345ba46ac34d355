"""NumPy reference of :mod:`csrepro._kernels.vector_scan`."""

import numpy as np


def exp_vector_scores(hist, offsets, n_bins, out):
    """``out[offsets[j] + b]`` = sum_k 2 sqrt(A_k B_k) of the split "code_j <= b"; inf at each feature's last bin.

    ``hist`` (total_bins, 2K): channels 0..K-1 sum w+, K..2K-1 sum w-; with L / R the sums left / right,
    A = R[+] + L[-] and B = L[+] + R[-] (negative rounding residues clipped to 0).
    """
    K = hist.shape[1] // 2
    out[:] = np.inf
    for o, m in zip(offsets, n_bins):
        cum = np.cumsum(hist[o:o + m], axis=0)
        L, R = cum[:-1], cum[-1] - cum[:-1]
        A = np.maximum(R[:, :K] + L[:, K:], 0.0)
        B = np.maximum(L[:, :K] + R[:, K:], 0.0)
        out[o:o + m - 1] = 2.0 * np.sqrt(A * B).sum(axis=1)
    return out


def labelled_split_scores(hist, offsets, n_bins, out, best, rtol=1e-12):
    """``out[v, 2 (o + b)]`` = R_0 + L_1, ``out[v, 2 (o + b) + 1]`` = L_0 + R_1 of node v's split "code_j <= b" on
    ``hist`` (n_nodes, total_bins, 3) = (loss if +1, loss if -1, count); inf where a side is empty and at last bins;
    ``best[v]`` the first index within ``rtol`` x (largest finite |score|) of row v's least score (0: none finite)."""
    out[:] = np.inf
    for o, m in zip(offsets, n_bins):
        cum = np.cumsum(hist[:, o:o + m], axis=1)  # sequential: the kernel's running sums
        L, R = cum[:, :-1], cum[:, -1:] - cum[:, :-1]
        valid = (L[..., 2] > 0.5) & (R[..., 2] > 0.5)
        out[:, 2 * o:2 * (o + m - 1):2] = np.where(valid, R[..., 0] + L[..., 1], np.inf)
        out[:, 2 * o + 1:2 * (o + m - 1):2] = np.where(valid, L[..., 0] + R[..., 1], np.inf)
    finite = np.isfinite(out)
    low = np.where(finite, out, np.inf).min(axis=1, initial=np.inf)
    top = np.where(finite, np.abs(out), 0.0).max(axis=1, initial=0.0)
    best[:] = np.argmax(out <= (low + rtol * top)[:, None], axis=1) if out.shape[1] else 0
    return out


def layer_channels(channels, up, down, out):
    """``out`` (n, 3) = (sum_k w+_k up_k + w-_k down_k, sum_k w+_k down_k + w-_k up_k, 1) for [w+ | w-] = ``channels``,
    each sum from 0.0 in channel order (w+ terms, then w- terms)."""
    K = len(up)
    s0, s1 = np.zeros(len(channels)), np.zeros(len(channels))
    for c in range(K):
        s0 += channels[:, c] * up[c]
        s1 += channels[:, c] * down[c]
    for c in range(K):
        s0 += channels[:, K + c] * down[c]
        s1 += channels[:, K + c] * up[c]
    out[:, 0], out[:, 1], out[:, 2] = s0, s1, 1.0
    return out
