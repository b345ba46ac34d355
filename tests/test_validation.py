"""csrepro.validation.check_targets against scikit-learn's check_classification_targets: the same targets pass and
fail, including those its fast path for 1-D integer, boolean and unicode arrays (LABEL_KINDS) lets through unchecked
(bytes labels, which scikit-learn refuses, are not among them)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.utils.multiclass import check_classification_targets

from csrepro.validation import LABEL_KINDS, check_targets

# scikit-learn's type_of_target casts NaN and inf to int while it checks float labels
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")


def _passes(check, y) -> bool:
    try:
        check(y)
    except (ValueError, TypeError):
        return False
    return True


@given(hnp.arrays(st.sampled_from([np.int8, np.int64, np.uint16, np.bool_, "U3", "S2", np.float64]),
                  hnp.array_shapes(min_dims=1, max_dims=2, max_side=6)))
def test_check_targets_agrees_with_scikit_learn(y):
    assert _passes(check_targets, y) == _passes(check_classification_targets, y)


@pytest.mark.parametrize("y", [np.arange(5), np.array([True, False]), np.array(["a", "b", "a"]),
                               np.array([], dtype=np.int64)], ids=lambda y: y.dtype.str)
def test_the_fast_path_covers_exactly_valid_targets(y):
    assert y.dtype.kind in LABEL_KINDS and _passes(check_classification_targets, y) and _passes(check_targets, y)


@pytest.mark.parametrize("y", [np.array([0.5, 1.0]), np.array([[0.5, 1.0], [1.0, 0.0]]), np.array([b"x", b"y"]),
                               np.array([1.0, np.nan])], ids=["continuous", "continuous-2d", "bytes", "nan"])
def test_what_scikit_learn_refuses_is_refused(y):
    assert not _passes(check_classification_targets, y) and not _passes(check_targets, y)


def test_a_missing_string_label_is_named():
    with pytest.raises(ValueError, match=r"missing label \(None or NaN\) at index 1"):
        check_targets(np.array(["a", None], dtype=object))
