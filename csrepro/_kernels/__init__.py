"""Cython kernels for the hot loops, each with a NumPy reference (``*_ref.py``) used by the tests."""
