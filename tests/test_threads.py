"""csrepro.threads.one_thread: one thread inside the block, the pools as before after it, and a fresh scan of the
libraries once a module has been imported since the last."""

import sys
import types

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from csrepro import threads


def _threads(user_api):
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == user_api}


@pytest.mark.parametrize("user_api", ["blas", "openmp"])
def test_one_thread_inside_the_block_and_the_pools_restored_after(user_api):
    import sklearn.ensemble  # noqa: F401  (loads scikit-learn's OpenMP runtime)

    if not _threads(user_api):
        pytest.skip(f"no {user_api} library loaded in this process")
    with threadpool_limits(limits=2, user_api=user_api):  # two threads (make test runs with one) ...
        assert set(_threads(user_api).values()) == {2}
        with threads.one_thread(user_api):  # ... one in the block ...
            assert set(_threads(user_api).values()) == {1}
        assert set(_threads(user_api).values()) == {2}  # ... and two again after it


def test_the_libraries_are_scanned_again_after_an_import(monkeypatch):
    with threads.one_thread("blas"):
        pass
    first = threads._scan[1]
    with threads.one_thread("blas"):
        pass
    assert threads._scan[1] is first  # nothing imported in between: the same scan
    monkeypatch.setitem(sys.modules, "csrepro_test_new_module", types.ModuleType("csrepro_test_new_module"))
    with threads.one_thread("blas"):
        pass
    assert threads._scan[1] is not first
