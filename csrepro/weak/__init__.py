"""Weak learners: small Python faces over the kernels in :mod:`csrepro._kernels`."""

from csrepro.weak.linear import LinearWeakLearner

__all__ = ["LinearWeakLearner"]
