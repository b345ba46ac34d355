"""Split protocols: determinism, coverage, stratification rules, parameter validation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from csrepro.data.protocols import PROTOCOLS, holdout, inner_splits, make_splits

class_counts = st.lists(st.integers(1, 30), min_size=2, max_size=6)


def _labels(counts, seed=0):
    y = np.repeat(np.arange(len(counts)), counts)
    return np.random.default_rng(seed).permutation(y)


def _assert_partition(parts, n):
    joined = np.concatenate(parts)
    assert len(joined) == n and np.array_equal(np.sort(joined), np.arange(n))
    for part in parts:
        assert part.dtype == np.int64 and np.all(np.diff(part) > 0)


@settings(max_examples=60, deadline=None)
@given(counts=class_counts, n_splits=st.integers(2, 7), seed=st.integers(0, 2**32 - 1))
def test_kfold_partitions_and_stratifies(counts, n_splits, seed):
    y = _labels(counts)
    if n_splits > len(y):
        return
    splits = make_splits(y, "kfold", seed, n_splits=n_splits)
    assert len(splits) == n_splits
    _assert_partition([test for _, test in splits], len(y))
    for train, test in splits:
        _assert_partition([train, test], len(y))
    per_fold = np.array([np.bincount(y[test], minlength=len(counts)) for _, test in splits])
    assert np.all(per_fold.max(axis=0) - per_fold.min(axis=0) <= 1)
    sizes = [len(test) for _, test in splits]
    assert max(sizes) - min(sizes) <= 1


@settings(max_examples=60, deadline=None)
@given(counts=class_counts, test_size=st.floats(0.05, 0.5), seed=st.integers(0, 2**32 - 1))
def test_holdout_keeps_every_class_in_train(counts, test_size, seed):
    y = _labels(counts)
    n_test = int(np.ceil(test_size * len(y)))
    if n_test > len(y) - len(counts):
        with pytest.raises(ValueError, match="keep every class"):
            make_splits(y, "holdout", seed, test_size=test_size)
        return
    [(train, test)] = make_splits(y, "holdout", seed, test_size=test_size)
    _assert_partition([train, test], len(y))
    assert len(test) == n_test
    assert set(y[train]) == set(range(len(counts)))
    cap = np.array(counts) - 1
    got = np.bincount(y[test], minlength=len(counts))
    assert np.all(got <= cap)
    assert np.all(got >= np.minimum(np.floor(n_test * np.array(counts) / len(y)), cap))


def test_holdout_hand_computed_allocation():
    y = np.array([0] * 8 + [1] * 2)
    # n_test = ceil(0.2 * 10) = 2; quotas 1.6 and 0.4 -> floors 1 and 0; largest remainder (0.6) goes to class 0
    for seed in range(5):
        [(_, test)] = make_splits(y, "holdout", seed, test_size=0.2)
        assert np.bincount(y[test], minlength=2).tolist() == [2, 0]
    # a class of one member always stays in training
    y = np.array([0] * 9 + [1])
    assert all(9 in make_splits(y, "holdout", s, test_size=0.5)[0][0] for s in range(10))


def test_three_way_holdout():
    y = _labels([40, 30, 30])
    train, val, test = holdout(y, test_size=0.25, val_size=0.25, random_state=3)
    _assert_partition([train, val, test], 100)
    assert (len(train), len(val), len(test)) == (50, 25, 25)
    assert np.bincount(y[test]).tolist() == [10, 8, 7] or np.bincount(y[test]).tolist() == [10, 7, 8]
    [split] = make_splits(y, "holdout", 3, test_size=0.25, val_size=0.25)
    assert all(np.array_equal(a, b) for a, b in zip(split, (train, val, test)))


def test_unstratified_holdout_sizes():
    [(train, test)] = make_splits(np.zeros(10), "holdout", 0, test_count=3, stratify=False)
    assert len(test) == 3 and len(train) == 7


def test_a_count_splits_as_the_holdout_function_with_an_int():
    """test_count=k draws what holdout(test_size=k) draws, so stores written when counts were ints under
    test_size keep their splits."""
    y = _labels([20, 15, 5])
    for seed in range(5):
        [split] = make_splits(y, "predefined_or_holdout", seed, test_count=7, stratify=False)
        old = holdout(y, 7, None, np.random.default_rng(seed), False)
        assert all(np.array_equal(a, b) for a, b in zip(split, old)) and len(split[1]) == 7
    [(_, val, test)] = make_splits(y, "holdout", 0, test_size=0.25, val_count=4)
    assert (len(val), len(test)) == (4, 10)


@pytest.mark.parametrize("protocol, params", [
    ("kfold", {"n_splits": 3}), ("repeated_kfold", {"n_splits": 3, "n_repeats": 4}),
    ("holdout", {"test_size": 0.3}), ("predefined_or_holdout", {}),
])
def test_seeded_determinism(protocol, params):
    y = _labels([20, 15, 5])
    first = make_splits(y, protocol, 11, **params)
    again = make_splits(y, protocol, 11, **params)
    other = make_splits(y, protocol, 12, **params)

    def flat(splits):
        return np.concatenate([np.concatenate(s) for s in splits])

    assert np.array_equal(flat(first), flat(again))
    assert not np.array_equal(flat(first), flat(other))
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    from_a, from_b = make_splits(y, protocol, rng_a, **params), make_splits(y, protocol, rng_b, **params)
    assert np.array_equal(flat(from_a), flat(from_b))


def test_repeated_kfold_counts_and_repeats_differ():
    y = _labels([30, 20])
    splits = make_splits(y, "repeated_kfold", 0, n_splits=5, n_repeats=10)
    assert len(splits) == 50
    for r in range(10):
        _assert_partition([test for _, test in splits[5 * r: 5 * r + 5]], 50)
    assert not np.array_equal(splits[0][1], splits[5][1])
    assert len(make_splits(y, "repeated_kfold", 0)) == 50  # default 10 x 5


def test_leave_one_out():
    y = np.array(["a", "b", "a", "b"])
    splits = make_splits(y, "loo", None)
    assert [test.tolist() for _, test in splits] == [[0], [1], [2], [3]]
    assert splits[2][0].tolist() == [0, 1, 3]


def test_predefined_and_fallback():
    y = _labels([10, 10])
    mask = np.zeros(20, dtype=bool)
    mask[15:] = True
    [(train, test)] = make_splits(y, "predefined", None, predefined_test=mask)
    assert train.tolist() == list(range(15)) and test.tolist() == list(range(15, 20))
    assert make_splits(y, "predefined_or_holdout", 0, predefined_test=mask)[0][1].tolist() == test.tolist()
    [(train, test)] = make_splits(y, "predefined_or_holdout", 7)
    [(_, test_h)] = make_splits(y, "holdout", 7, test_size=0.2)
    assert np.array_equal(test, test_h) and len(test) == 4


def test_predefined_split_of_a_real_dataset(mirror):
    from csrepro.data import load_dataset

    seg = load_dataset("segmentation")
    [(train, test)] = make_splits(seg.y, "predefined_or_holdout", 0, predefined_test=seg.predefined_test)
    assert (len(train), len(test)) == (210, 2100)
    ecoli = load_dataset("ecoli")  # no predefined split: 80/20 holdout keeping the 2-member classes in train
    [(train, test)] = make_splits(ecoli.y, "predefined_or_holdout", 0, predefined_test=ecoli.predefined_test)
    assert len(test) == 68 and set(ecoli.y[train]) == set(ecoli.y)


def test_inner_splits_stay_inside_training_rows():
    y = _labels([30, 30, 12])
    [(train, _)] = make_splits(y, "holdout", 1, test_size=0.25)
    inner = inner_splits(y, train, "kfold", 2, n_splits=4)
    assert len(inner) == 4
    _assert_partition([np.searchsorted(train, v) for _, v in inner], len(train))
    for fit, val in inner:
        assert np.isin(fit, train).all() and np.isin(val, train).all() and not np.isin(val, fit).any()
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(inner, inner_splits(y, train, "kfold", 2, n_splits=4)))


@pytest.mark.parametrize("protocol, params, predefined, message", [
    ("bootstrap", {}, None, "unknown protocol 'bootstrap'; choose one of .*'kfold'"),
    ("kfold", {"folds": 5}, None, r"takes no parameter\(s\) \['folds'\]; valid: \['n_splits', 'stratify'\]"),
    ("kfold", {"n_splits": 1}, None, r"n_splits must be an int in \[2, 30\]"),
    ("kfold", {"n_splits": 31}, None, "n_splits must be an int"),
    ("kfold", {"n_splits": 2.0}, None, "n_splits must be an int"),
    ("kfold", {"stratify": "yes"}, None, "stratify must be True or False"),
    ("repeated_kfold", {"n_repeats": 0}, None, "n_repeats must be an int"),
    ("holdout", {"test_size": 1.5}, None, r"test_size must be a fraction in \(0, 1\)"),
    ("holdout", {"test_size": 30}, None, r"test_size=30 is not a fraction in \(0, 1\); for 30 rows write test_count=30"),
    ("holdout", {"test_size": 1}, None, r"test_size=1 is ambiguous \(one row, or every row\?\)"),
    ("holdout", {"test_size": 1.0}, None, r"test_size=1.0 is ambiguous"),
    ("holdout", {"test_size": 0}, None, r"test_size must be a fraction in \(0, 1\), got 0"),
    ("holdout", {"test_size": -0.2}, None, r"test_size must be a fraction in \(0, 1\), got -0.2"),
    ("holdout", {"test_size": True}, None, r"test_size must be a fraction in \(0, 1\), got True"),
    ("holdout", {"test_count": 1}, None, r"test_count must be a number of rows, an int >= 2, got 1 \(a fraction"),
    ("holdout", {"test_count": 0.3}, None, r"test_count=0.3 is a number of rows; for a fraction write test_size=0.3"),
    ("holdout", {"test_count": 30}, None, r"test_count=30 rows, but the data has 30 rows"),
    ("holdout", {"test_size": 0.2, "test_count": 5}, None, r"test_size=0.2 and test_count=5 both size the test part"),
    ("holdout", {"val_size": 2}, None, r"val_size=2 is not a fraction in \(0, 1\); for 2 rows write val_count=2"),
    ("predefined_or_holdout", {"test_size": 1}, None, "test_size=1 is ambiguous"),
    ("holdout", {"test_size": 0.5, "val_size": 0.5}, None, "leave some for training"),
    ("predefined", {}, None, "needs predefined_test"),
    ("predefined", {}, np.ones(30, bool), "some but not all"),
    ("predefined", {}, np.ones(29, bool), "bool mask of shape"),
    ("loo", {"n_splits": 3}, None, "valid: none"),
])
def test_bad_protocol_arguments(protocol, params, predefined, message):
    with pytest.raises(ValueError, match=message):
        make_splits(_labels([15, 15]), protocol, 0, predefined_test=predefined, **params)


def test_protocol_table_lists_defaults():
    assert PROTOCOLS["predefined_or_holdout"]["test_size"] == 0.2
    assert PROTOCOLS["repeated_kfold"] == {"n_splits": 5, "n_repeats": 10, "stratify": True}
