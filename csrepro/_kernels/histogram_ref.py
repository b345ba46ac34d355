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
