"""The bounded caches of csrepro.cache: hits and misses, LRU eviction, the bound, fingerprints, the registry."""

import numpy as np
import pytest

from csrepro import cache
from csrepro.cache import LRUCache, fingerprint, named_cache


def counting(value):
    """compute() returning ``value`` and recording its calls."""
    calls = []

    def compute():
        calls.append(value)
        return value
    return compute, calls


def test_hits_and_misses():
    c = LRUCache("t", maxsize=3)
    compute, calls = counting("A")
    assert c.get("a", compute) == "A" and c.get("a", compute) == "A"
    assert calls == ["A"]  # computed once
    assert (c.info().hits, c.info().misses, c.info().size, c.info().maxsize) == (1, 1, 1, 3)
    c.clear()
    assert (len(c), c.hits, c.misses) == (0, 0, 0)


def test_least_recently_used_is_evicted_first_and_the_bound_holds():
    c = LRUCache("t", maxsize=3)
    for key in "abc":
        c.get(key, lambda k=key: k.upper())
    c.get("a", lambda: pytest.fail("a is cached"))  # a becomes the most recently used
    c.get("d", lambda: "D")  # evicts b, the least recently used
    assert c.keys() == ["c", "a", "d"] and "b" not in c and len(c) == 3
    for i in range(10):
        c.get(i, lambda i=i: i)
        assert len(c) <= 3
    assert c.keys() == [7, 8, 9]


def test_nothing_is_kept_when_compute_raises():
    c = LRUCache("t", maxsize=2)

    def boom():
        raise RuntimeError("no")
    with pytest.raises(RuntimeError):
        c.get("k", boom)
    assert "k" not in c and c.misses == 1
    with pytest.raises(ValueError, match="maxsize"):
        LRUCache("t", maxsize=0)


def test_fingerprint_tells_dtype_shape_and_values_apart():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    base = fingerprint(a, "rbf", 0.5)
    assert fingerprint(a.copy(), "rbf", 0.5) == base
    assert fingerprint(np.asfortranarray(a), "rbf", 0.5) == base  # same values, other memory layout
    assert fingerprint(a.astype(np.float32), "rbf", 0.5) != base  # dtype
    assert fingerprint(a.reshape(3, 2), "rbf", 0.5) != base  # shape, same bytes
    b = a.copy()
    b[1, 2] = np.nextafter(b[1, 2], np.inf)
    assert fingerprint(b, "rbf", 0.5) != base  # one value by one ulp
    assert fingerprint(a, "rbf", 0.25) != base and fingerprint(a, "linear", 0.5) != base  # settings
    assert fingerprint(a.tolist(), "rbf", 0.5) != base  # a list is not the array
    assert fingerprint("ab", "c") != fingerprint("a", "bc")  # parts do not run into each other
    assert fingerprint(np.array(["x", 1], dtype=object)) != fingerprint(np.array(["x", 2], dtype=object))


def test_named_caches_are_registered_visible_and_cleared():
    c = named_cache("test_cache_registry", maxsize=2)
    assert named_cache("test_cache_registry", maxsize=2) is c
    with pytest.raises(ValueError, match="maxsize=2"):
        named_cache("test_cache_registry", maxsize=3)
    c.get("k", lambda: 1)
    assert cache.cache_info()["test_cache_registry"] == cache.CacheInfo("test_cache_registry", 1, 2, 0, 1)
    cache.clear_caches("test_cache_registry")
    assert len(c) == 0
    with pytest.raises(KeyError, match="test_cache_registry"):
        cache.clear_caches("no_such_cache")


def test_the_library_caches_keep_their_bounds():
    """The memos the caches replaced kept 8 binnings, 8 MCBoost fits, 8 detection-rate cross-validations,
    2 kernel matrices and 64 SVM paths."""
    import csrepro.boosting.mcboost  # noqa: F401 -- registers its cache
    import csrepro.selection.detection_rate  # noqa: F401
    import csrepro.selection.svm  # noqa: F401
    import csrepro.weak.binning  # noqa: F401

    sizes = {name: info.maxsize for name, info in cache.cache_info().items()}
    assert {k: sizes[k] for k in ("binned_data", "mcboost_fits", "detection_rate_cv", "svm_kernels", "svm_paths")} == {
        "binned_data": 8, "mcboost_fits": 8, "detection_rate_cv": 8, "svm_kernels": 2, "svm_paths": 64}


def test_a_cached_fit_is_shared_and_counted():
    from csrepro.boosting.binary import AdaBoostClassifier
    from csrepro.weak.binning import BINNED

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    BINNED.clear()
    a = AdaBoostClassifier(n_estimators=3).fit(X, y)
    b = AdaBoostClassifier(n_estimators=3).fit(X.copy(), y)
    assert BINNED.info().misses == 1 and BINNED.info().hits >= 1  # the second fit reuses the first's binning
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
