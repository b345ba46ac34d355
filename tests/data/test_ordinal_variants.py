"""The ordinal-coded variants (``car_ord``, ``nursery_ord``, ``nursery_s_ord``, ``connect4_ord``) against their one-hot bases."""

import numpy as np
import pytest

from csrepro.data.loaders import load_dataset
from csrepro.data.registry import get_spec

VARIANTS = {  # variant: (base, rows, attributes, one-hot columns, classes)
    "car_ord": ("car", 1728, 6, 21, 4),
    "nursery_ord": ("nursery", 12960, 8, 27, 5),
    "nursery_s_ord": ("nursery_s", 12958, 8, 27, 4),
    "connect4_ord": ("connect4", 67557, 42, 126, 3),
}
PARAMS = [pytest.param(name, marks=pytest.mark.slow) if name == "connect4_ord" else name for name in VARIANTS]


@pytest.mark.parametrize("name", VARIANTS)
def test_spec_is_the_base_with_ordinal_encoding(name):
    base_name, n_rows, n_attributes, n_onehot, n_classes = VARIANTS[name]
    spec, base = get_spec(name), get_spec(base_name)
    assert spec.encoding == "ordinal" and base.encoding == "onehot"
    assert (spec.n_rows, spec.n_features, spec.n_classes) == (n_rows, n_attributes, n_classes)
    assert (base.n_rows, base.n_features, base.n_classes) == (n_rows, n_onehot, n_classes)
    assert len(spec.categorical_cols) == n_attributes and spec.categorical_cols == base.categorical_cols
    assert spec.files == base.files and spec.label_col == base.label_col and not spec.has_predefined_split
    assert "obrien2008" in spec.papers and f"same rows and labels as {base_name}" in spec.notes
    assert spec.parsed_sha256 != base.parsed_sha256


@pytest.mark.parametrize("name", PARAMS)
def test_codes_decode_to_the_one_hot_base(mirror, name):
    base_name, n_rows, n_attributes, n_onehot, _ = VARIANTS[name]
    ordinal, onehot = load_dataset(name, download=False), load_dataset(base_name, download=False)
    assert ordinal.X.shape == (n_rows, n_attributes) and onehot.X.shape == (n_rows, n_onehot)
    np.testing.assert_array_equal(ordinal.y, onehot.y)
    assert ordinal.y.dtype == onehot.y.dtype and ordinal.predefined_test is None is onehot.predefined_test
    # one-hot names are "<attribute>=<value>" with the values sorted, so block j of the base is attribute j
    attributes = [n.split("=", 1)[0] for n in onehot.feature_names]
    assert list(dict.fromkeys(attributes)) == ordinal.feature_names
    start = 0
    for j, attribute in enumerate(ordinal.feature_names):
        width = attributes.count(attribute)
        block = onehot.X[:, start:start + width]
        values = [n.split("=", 1)[1] for n in onehot.feature_names[start:start + width]]
        assert values == sorted(values)
        np.testing.assert_array_equal(block.sum(axis=1), 1.0)
        codes = ordinal.X[:, j]
        np.testing.assert_array_equal(codes, np.round(codes))
        np.testing.assert_array_equal(codes, block.argmax(axis=1))
        assert set(np.unique(codes).tolist()) == set(range(width))  # every observed value has a code
        start += width
    assert start == n_onehot


def test_car_codes_follow_the_sorted_value_strings(mirror):
    """car's buying price is vhigh/high/med/low in the file; sorted as strings: high=0, low=1, med=2, vhigh=3."""
    car = load_dataset("car_ord", download=False)
    raw = (mirror / get_spec("car").files[0].path).read_text().split()
    buying = [line.split(",")[0] for line in raw]
    code = {"high": 0, "low": 1, "med": 2, "vhigh": 3}
    np.testing.assert_array_equal(car.X[:, 0], [code[v] for v in buying])
