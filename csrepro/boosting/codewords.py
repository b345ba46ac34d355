"""Simplex codewords for MCBoost (Saberian & Vasconcelos 2011; Beijbom et al. 2014 eq. 23)."""

import numpy as np


def simplex_codewords(n_classes: int) -> np.ndarray:
    """Codewords y_1..y_M as the rows of an (M, M-1) array.

    Construction: the columns of the (M-1) x M Helmert matrix (row r has r entries
    1/sqrt(r(r+1)), then -r/sqrt(r(r+1)), then zeros) scaled by sqrt(M/(M-1)).  The rows
    then have unit norm, sum to zero and pairwise inner product -1/(M-1).  Coordinate r
    (0-based) separates class r+1 from classes 0..r; classes above r+1 are 0 there.
    """
    M = int(n_classes)
    if M < 2:
        raise ValueError(f"simplex codewords need at least 2 classes, got {M}")
    H = np.zeros((M - 1, M))
    for r in range(1, M):
        H[r - 1, :r] = 1.0
        H[r - 1, r] = -r
        H[r - 1] /= np.sqrt(r * (r + 1))
    return np.sqrt(M / (M - 1)) * H.T
