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
