"""Small bounded in-process caches keyed on array fingerprints: the memos of the library in one place.

Work that several fits on the same training data repeat (the binning of a training part, MCBoost's
cost-free trainings, the cross-validations of a detection-rate grid, SVM kernel matrices and
leave-one-out paths) is kept in a named :class:`LRUCache`, keyed on :func:`fingerprint` of the data
and of every setting the result depends on.  Each cached value is a pure function of its key, so a
hit returns what a recomputation would: caches save time and never change results.

Every cache is registered by name when its module creates it (:func:`named_cache`), so that they
can be inspected (:func:`cache_info`: size, maxsize, hits, misses) and emptied (:func:`clear_caches`,
e.g. before timing a fit).  They are per process and bounded: the least recently used entry is
dropped once a cache holds ``maxsize`` entries.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CacheInfo", "LRUCache", "cache_info", "clear_caches", "fingerprint", "named_cache"]


def fingerprint(*parts) -> str:
    """Hex digest of ``parts``: NumPy arrays by dtype, shape and bytes; anything else by its ``repr``.

    Arrays that differ in dtype, shape or any value give different fingerprints (so do a list and the
    array of its values); settings are told apart by ``repr``, so pass values whose ``repr`` shows
    everything the cached result depends on (numbers, strings, tuples, dicts of them).
    """
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        if isinstance(part, np.ndarray):
            a = np.ascontiguousarray(part)
            data = repr(a.tolist()).encode() if a.dtype.hasobject else a.tobytes()
            head = f"array {a.dtype.str} {part.shape} {len(data)}:".encode()
        else:
            data = repr(part).encode()
            head = f"repr {len(data)}:".encode()
        h.update(head)
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True)
class CacheInfo:
    """Counters of one cache: entries held, the bound, and lookups that found / missed their key."""

    name: str
    size: int
    maxsize: int
    hits: int
    misses: int


class LRUCache:
    """At most ``maxsize`` values by key, the least recently used dropped first."""

    def __init__(self, name: str, maxsize: int):
        if not (isinstance(maxsize, int) and maxsize >= 1):
            raise ValueError(f"maxsize must be an int >= 1, got {maxsize!r}")
        self.name, self.maxsize = name, maxsize
        self.hits = self.misses = 0
        self._data: OrderedDict = OrderedDict()

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value of ``key``, computed by ``compute()`` and kept when missing (nothing is kept when it
        raises); the key becomes the most recently used."""
        if key in self._data:
            self.hits += 1
            self._data.move_to_end(key)
            return self._data[key]
        self.misses += 1
        value = compute()
        self._data[key] = value
        while len(self._data) > self.maxsize:
            self._data.popitem(last=False)
        return value

    def __contains__(self, key) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def keys(self) -> list:
        """Keys, least recently used first."""
        return list(self._data)

    def clear(self) -> None:
        """Drop every entry and reset the counters."""
        self._data.clear()
        self.hits = self.misses = 0

    def info(self) -> CacheInfo:
        return CacheInfo(self.name, len(self._data), self.maxsize, self.hits, self.misses)

    def __repr__(self) -> str:
        i = self.info()
        return f"LRUCache({i.name!r}, size={i.size}, maxsize={i.maxsize}, hits={i.hits}, misses={i.misses})"


_CACHES: dict[str, LRUCache] = {}


def named_cache(name: str, maxsize: int) -> LRUCache:
    """The registered cache ``name``, created with ``maxsize`` on first use (a module reloaded gets
    its cache back); a second ``maxsize`` for the same name is an error."""
    cache = _CACHES.get(name)
    if cache is None:
        cache = _CACHES[name] = LRUCache(name, maxsize)
    elif cache.maxsize != maxsize:
        raise ValueError(f"cache {name!r} is registered with maxsize={cache.maxsize}, not {maxsize}; "
                         "give the new cache another name")
    return cache


def cache_info() -> dict[str, CacheInfo]:
    """Counters of every registered cache, by name (caches of modules not imported yet are absent)."""
    return {name: cache.info() for name, cache in sorted(_CACHES.items())}


def clear_caches(*names: str) -> None:
    """Empty the caches ``names`` (none given: all); an unknown name is an error that lists the known ones."""
    unknown = sorted(set(names) - set(_CACHES))
    if unknown:
        raise KeyError(f"unknown cache(s) {unknown}; registered: {sorted(_CACHES)}")
    for name in names or list(_CACHES):
        _CACHES[name].clear()
