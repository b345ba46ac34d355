"""Which implementation of the kernels runs: the Cython kernels (the default) or their NumPy references.

A private switch for the tests that compare each kernel with its reference and for ``make bench``, not a
parameter of any estimator::

    with use_backend("numpy"):
        model = REBELClassifier().fit(X, y)

Code that runs a kernel reads :func:`current` when it runs (a :class:`~csrepro.weak.binning.BinnedData` when
it is made, and keeps it).  The setting is one per process (threads share it; joblib's worker processes
run the default).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["BACKENDS", "current", "use_backend"]

BACKENDS = ("cython", "numpy")
_current = "cython"


def current() -> str:
    """The backend in use: "cython", or "numpy" inside :func:`use_backend`."""
    return _current


@contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Run the ``with`` block on backend ``name`` ("cython" or "numpy"), then restore the previous one."""
    global _current
    if name not in BACKENDS:
        raise ValueError(f"backend {name!r} is not valid; choose one of {list(BACKENDS)}")
    previous, _current = _current, name
    try:
        yield
    finally:
        _current = previous
