"""Seeded evaluation protocols: index splits of a label vector.

Stratification rules (no silent fallback is needed):
* k-fold: the members of each class are shuffled and dealt to the folds in turn, so each class's
  count differs by at most one between folds and fold sizes differ by at most one. A class with
  fewer members than folds is in the test part of only some folds (and, with one member, absent
  from the training part of the fold that tests it).
* holdout: each class gives ``test_size`` of its members to the test part (largest-remainder
  rounding, total exactly ``ceil(test_size * n)``, or exactly ``test_count`` rows), but never its
  last member: every class stays in the training part. A three-way holdout takes the test part first, then the validation part
  from the rest under the same rule. If the requested parts leave too few rows to keep every class
  in training, a ValueError says so.
With ``stratify=False`` rows are shuffled without regard to labels (no class guarantee).
All index arrays are sorted int64.

Sizes of a protocol (:func:`holdout_sizes`) are a fraction or a count under two named keys, so
that no value means both: ``test_size`` is a float in (0, 1), ``test_count`` an int >= 2 (rows);
likewise ``val_size``/``val_count``. (The function :func:`holdout` itself takes either, as
scikit-learn's ``train_test_split`` does: a float is a fraction, an int a count.)
"""

from __future__ import annotations

import math

import numpy as np

PROTOCOLS: dict[str, dict] = {
    "predefined": {},
    "holdout": {"test_size": 0.2, "test_count": None, "val_size": None, "val_count": None, "stratify": True},
    "predefined_or_holdout": {"test_size": 0.2, "test_count": None, "stratify": True},
    "kfold": {"n_splits": 5, "stratify": True},
    "repeated_kfold": {"n_splits": 5, "n_repeats": 10, "stratify": True},
    "loo": {},
    "group_kfold": {"n_splits": 10},
}
#: options any protocol accepts, applied to each split's training part by the runner (not by make_splits):
#: ``train_size`` (subsample_train), ``label_noise`` and ``label_noise_draw`` (the ``fraction`` and ``draw`` of
#: csrepro.data.synthetic.contaminate_labels)
TRAINING_OPTIONS: dict = {"train_size": None, "label_noise": 0.0, "label_noise_draw": "other"}
#: a part's size as a fraction and as a count: each key's alternative (one of the two is given, not both)
SIZE_KEYS: dict[str, str] = {"test_size": "test_count", "test_count": "test_size",
                             "val_size": "val_count", "val_count": "val_size"}


def make_splits(y, protocol: str, random_state=None, predefined_test=None, groups=None,
                **params) -> list[tuple[np.ndarray, ...]]:
    """Index splits of ``y`` under ``protocol`` (see ``PROTOCOLS`` for each one's params and defaults).

    Returns a list of ``(train_idx, test_idx)``; ``holdout`` with ``val_size`` gives one
    ``(train_idx, val_idx, test_idx)``. ``predefined`` uses the mask ``predefined_test`` (True = test);
    ``predefined_or_holdout`` uses it when given, else a holdout of ``test_size`` (or ``test_count``).  ``group_kfold``
    keeps each group (e.g. a MUSK molecule, ``groups`` = bag ids) in one fold: scikit-learn's
    StratifiedGroupKFold, shuffled with ``random_state``.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {sorted(PROTOCOLS)}")
    unknown = sorted(set(params) - set(PROTOCOLS[protocol]))
    if unknown:
        raise ValueError(f"protocol {protocol!r} takes no parameter(s) {unknown}; "
                         f"valid: {sorted(PROTOCOLS[protocol]) or 'none'}")
    p = {**PROTOCOLS[protocol], **params}
    codes = np.unique(np.asarray(y), return_inverse=True)[1].ravel()
    n = len(codes)
    if n < 2:
        raise ValueError(f"need at least 2 samples to split, got {n}")
    rng = np.random.default_rng(random_state)
    if protocol in ("holdout", "predefined_or_holdout"):
        test, val = holdout_sizes(params)
    if protocol == "predefined_or_holdout":
        if predefined_test is not None:
            return [_predefined(predefined_test, n)]
        protocol = "holdout"
    if protocol == "predefined":
        if predefined_test is None:
            raise ValueError("protocol 'predefined' needs predefined_test (the dataset's mask); "
                             "use 'predefined_or_holdout' for datasets without a predefined split")
        return [_predefined(predefined_test, n)]
    if protocol == "holdout":
        return [holdout(codes, test, val, rng, p["stratify"], names=_size_names(params))]
    if protocol == "loo":
        return [(np.delete(np.arange(n), i), np.array([i])) for i in range(n)]
    if protocol == "group_kfold":
        if groups is None or len(groups) != n:
            raise ValueError("protocol 'group_kfold' needs one group id per row (the dataset's meta['groups'], "
                             "e.g. musk2's molecules); use 'kfold' for datasets without groups")
        from sklearn.model_selection import StratifiedGroupKFold

        folds = StratifiedGroupKFold(_check_int("n_splits", p["n_splits"], 2, n), shuffle=True,
                                     random_state=int(rng.integers(2**31)))
        return [(np.sort(tr), np.sort(te)) for tr, te in folds.split(np.zeros(n), codes, groups)]
    n_repeats = _check_int("n_repeats", p.get("n_repeats", 1), 1, None)
    n_splits = _check_int("n_splits", p["n_splits"], 2, n)
    return [split for _ in range(n_repeats) for split in _kfold(codes, n_splits, rng, p["stratify"])]


def inner_splits(y, train_idx, protocol: str = "kfold", random_state=None, **params) -> list[tuple[np.ndarray, ...]]:
    """Splits of the training rows ``train_idx`` for nested model selection, as indices into ``y``."""
    train_idx = np.asarray(train_idx, dtype=np.int64)
    splits = make_splits(np.asarray(y)[train_idx], protocol, random_state, **params)
    return [tuple(train_idx[part] for part in split) for split in splits]


def subsample_train(y, train_idx, size, random_state=None) -> np.ndarray:
    """A stratified random subset of the training rows ``train_idx`` (sorted indices into ``y``).

    ``size``: a float in (0, 1] keeps that fraction of each class (rounded, at least one row per
    class), an int keeps that many rows of each class (a ValueError names a class with fewer).
    """
    train_idx = np.asarray(train_idx, dtype=np.int64)
    labels, codes = np.unique(np.asarray(y)[train_idx], return_inverse=True)
    rng = np.random.default_rng(random_state)
    counts = np.bincount(codes.ravel(), minlength=len(labels))
    if isinstance(size, (float, np.floating)):
        if not 0 < size <= 1:
            raise ValueError(f"train_size must be a fraction in (0, 1] or an int count per class, got {size!r}")
        keep = np.maximum(1, np.round(size * counts).astype(np.int64))
    else:
        size = _check_int("train_size", size, 1, None)
        short = labels[counts < size]
        if len(short):
            raise ValueError(f"train_size={size} rows per class, but the training part has fewer of class(es) "
                             f"{short.tolist()} ({counts[counts < size].tolist()}); use a smaller train_size")
        keep = np.full(len(labels), size)
    chosen = [rng.permutation(train_idx[codes.ravel() == c])[:k] for c, k in enumerate(keep)]
    return np.sort(np.concatenate(chosen))


class SizeError(ValueError):
    """A bad part size; ``key`` is the parameter it names (``test_size``, ``test_count``, ...)."""

    def __init__(self, message: str, key: str):
        super().__init__(message)
        self.key = key


def holdout_sizes(params: dict) -> tuple[float | int, float | int | None]:
    """The (test, val) sizes of a holdout's ``params``: a fraction (``test_size``, ``val_size``: a float in
    (0, 1)) or a number of rows (``test_count``, ``val_count``: an int >= 2); test defaults to the fraction
    0.2, val to none. A value that could mean either (``test_size=1``), or both keys of a part, is a
    :class:`SizeError` naming the key and the fix."""
    sizes = []
    for fraction, count, default in (("test_size", "test_count", 0.2), ("val_size", "val_count", None)):
        given = {key: params[key] for key in (fraction, count) if params.get(key) is not None}
        if len(given) == 2:
            raise SizeError(f"{fraction}={given[fraction]!r} and {count}={given[count]!r} both size the "
                            f"{fraction[:-5]} part; keep one ({fraction}: a fraction, {count}: a number of rows)",
                            fraction)
        if fraction in given:
            sizes.append(_fraction(fraction, count, given[fraction]))
        elif count in given:
            sizes.append(_count(fraction, count, given[count]))
        else:
            sizes.append(default)
    return sizes[0], sizes[1]


def _fraction(key: str, alternative: str, value) -> float:
    if isinstance(value, (float, np.floating)) and 0 < value < 1:
        return float(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise SizeError(f"{key} must be a fraction in (0, 1), got {value!r}", key)
    if value == 1:
        raise SizeError(f"{key}={value!r} is ambiguous (one row, or every row?); give a fraction in (0, 1), "
                        f"e.g. {key}=0.2, or a number of rows >= 2 as {alternative}", key)
    if isinstance(value, (int, np.integer)) and value >= 2:
        raise SizeError(f"{key}={value!r} is not a fraction in (0, 1); for {value} rows write {alternative}={value} "
                        f"(and remove {key})", key)
    raise SizeError(f"{key} must be a fraction in (0, 1), got {value!r}", key)


def _count(key: str, alternative: str, value) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= 2:
        return int(value)
    if isinstance(value, (float, np.floating)) and 0 < value < 1:
        raise SizeError(f"{alternative}={value!r} is a number of rows; for a fraction write {key}={value} "
                        f"(and remove {alternative})", alternative)
    raise SizeError(f"{alternative} must be a number of rows, an int >= 2, got {value!r}"
                    + (f" (a fraction goes to {key})" if value == 1 else ""), alternative)


def _size_names(params: dict) -> tuple[str, str]:
    """The keys the caller sized the test and val parts with (for error messages)."""
    return ("test_count" if params.get("test_count") is not None else "test_size",
            "val_count" if params.get("val_count") is not None else "val_size")


def holdout(y, test_size=0.2, val_size=None, random_state=None, stratify: bool = True,
            names=("test_size", "val_size")) -> tuple[np.ndarray, ...]:
    """Random ``(train, test)`` indices, or ``(train, val, test)`` when ``val_size`` is given (module rules).

    A size is a fraction (float in (0, 1)) or a number of rows (int), as in scikit-learn's
    ``train_test_split``; ``names`` are the parameter names errors use.
    """
    codes = np.unique(np.asarray(y), return_inverse=True)[1].ravel()
    rng = np.random.default_rng(random_state)
    n = len(codes)
    n_test = _n_take(names[0], test_size, n)
    n_val = 0 if val_size is None else _n_take(names[1], val_size, n)
    if n_test + n_val >= n:
        taken = f"{names[0]} and {names[1]} take" if val_size is not None else f"{names[0]}={test_size!r} takes"
        raise ValueError(f"{taken} {n_test + n_val} of the {n} rows; leave some for training")
    stratify = _check_bool("stratify", stratify)
    rest, parts = np.arange(n), []
    for size in [n_test] + ([n_val] if val_size is not None else []):
        taken = _take(codes[rest], size, rng, stratify)
        parts.append(np.sort(rest[taken]))
        rest = np.delete(rest, taken)
    return (rest, *parts[::-1])


def _predefined(mask, n: int) -> tuple[np.ndarray, np.ndarray]:
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != (n,):
        raise ValueError(f"predefined_test must be a bool mask of shape ({n},), got {mask.dtype} {mask.shape}")
    if mask.all() or not mask.any():
        raise ValueError("predefined_test must mark some but not all rows as test")
    return np.flatnonzero(~mask), np.flatnonzero(mask)


def _kfold(codes: np.ndarray, n_splits: int, rng: np.random.Generator, stratify) -> list[tuple[np.ndarray, np.ndarray]]:
    n = len(codes)
    if _check_bool("stratify", stratify):
        order = np.concatenate([rng.permutation(np.flatnonzero(codes == c)) for c in range(codes.max() + 1)])
    else:
        order = rng.permutation(n)
    fold = np.empty(n, dtype=np.int64)
    fold[order] = rng.permutation(n_splits)[np.arange(n) % n_splits]
    return [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_splits)]


def _take(codes: np.ndarray, size: int, rng: np.random.Generator, stratify: bool) -> np.ndarray:
    """Positions of ``size`` rows drawn from ``codes``; stratified draws leave one row of every class."""
    if not stratify:
        return rng.permutation(len(codes))[:size]
    counts = np.bincount(codes)
    cap = np.maximum(counts - 1, 0)
    if size > cap.sum():
        raise ValueError(f"cannot take {size} of {len(codes)} rows and keep every class ({len(counts)}) "
                         f"in training; use smaller test/val sizes or stratify=False")
    quota = size * counts / len(codes)
    take = np.minimum(np.floor(quota).astype(np.int64), cap)
    while take.sum() < size:
        room = np.flatnonzero(take < cap)
        room = room[np.lexsort((rng.random(len(room)), take[room] - quota[room]))]
        take[room[: size - take.sum()]] += 1
    return np.concatenate([rng.permutation(np.flatnonzero(codes == c))[:k] for c, k in enumerate(take)])


def _n_take(name: str, size, n: int) -> int:
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a fraction in (0, 1) or a row count, got {size!r}")  # noqa: TRY004
    if isinstance(size, (float, np.floating)):
        if not 0 < size < 1:
            raise ValueError(f"{name} must be a fraction in (0, 1) or a row count, got {size!r}")
        return max(1, math.ceil(size * n))
    if not 1 <= size < n:
        raise ValueError(f"{name}={size!r} rows, but the data has {n} rows; give a number below {n} to leave some "
                         "for training")
    return int(size)


def _check_int(name: str, value, low: int, high: int | None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be an int in [{low}, {high if high is not None else 'inf'}], got {value!r}")
    return int(value)


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")  # noqa: TRY004
    return bool(value)
