"""One thread for a native library's thread pool inside a block, without a scan of the process per call.

``threadpoolctl.threadpool_limits`` scans every loaded shared library each time it is entered (about 7 ms on this
project's machine; a leaderboard trial enters it tens of times). :func:`one_thread` keeps one
``ThreadpoolController`` and scans again only when a module has been imported since (a native library loads with
the module that needs it), so a block costs a fraction of a millisecond.
"""

import sys

from threadpoolctl import ThreadpoolController

#: (len(sys.modules) at the scan, the controller of that scan)
_scan: tuple[int, ThreadpoolController] | None = None


def one_thread(user_api: str):
    """A context manager limiting the pools of ``user_api`` ("blas" or "openmp") to one thread in its block and
    restoring them after, as ``threadpool_limits(limits=1, user_api=user_api)``."""
    global _scan
    if _scan is None or _scan[0] != len(sys.modules):
        _scan = (len(sys.modules), ThreadpoolController())
    return _scan[1].limit(limits=1, user_api=user_api)
