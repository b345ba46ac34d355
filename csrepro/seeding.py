"""Seeds derived from a trial's key, never from execution order."""

import hashlib


def derive_seed(*parts) -> int:
    """Return a uint32 seed from the repr of ``parts`` (stable across runs and processes)."""
    digest = hashlib.sha256(repr(tuple(parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little")
