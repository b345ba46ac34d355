"""Loading every registry dataset from the mirror, its content rules, and the error paths of local sources."""

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

from csrepro.data import loaders
from csrepro.data.loaders import (
    ChecksumError,
    DataNotFoundError,
    ShapeError,
    load_dataset,
    resolve_cache_dir,
    resolve_data_root,
    table_fingerprint,
)
from csrepro.data.registry import DATASETS, UnknownDatasetError, get_spec, list_datasets

HEAVY = {"mnist", "connect4", "adult"}


def _absent_files(name):
    try:
        root = resolve_data_root()
    except DataNotFoundError:
        root = None
    if root is None:
        return [f.path for f in DATASETS[name].files]
    return [f.path for f in DATASETS[name].files if not (root / f.path).is_file()]


_ABSENT = {name: _absent_files(name) for name in list_datasets()}
_ABSENT = {name: files for name, files in _ABSENT.items() if files}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else n
                                  for n in list_datasets()])
def test_every_dataset_loads_with_registered_shape(name, tmp_path):
    if name in _ABSENT:
        pytest.skip(f"absent from the mirror: {sorted(_ABSENT)} (files: {_ABSENT[name]})")
    spec = get_spec(name)
    ds = load_dataset(name, cache_dir=tmp_path, download=False)
    assert ds.name == name
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous and ds.X.ndim == 2
    assert ds.X.shape == (spec.n_rows, spec.n_features) == (len(ds.y), len(ds.feature_names))
    assert len(ds.classes) == spec.n_classes
    assert ds.y.dtype.kind in "iU"
    assert not np.isnan(ds.X).any()
    if spec.has_predefined_split:
        assert ds.predefined_test.dtype == bool and ds.predefined_test.sum() == spec.n_test
    else:
        assert ds.predefined_test is None
    assert table_fingerprint(ds.X, ds.y, ds.predefined_test) == spec.parsed_sha256
    assert ds.meta["source"] == (spec.reader if spec.reader in ("sklearn", "synthetic") else "data_root")
    assert ds.meta.get("byte_differences", []) == []
    assert not list(tmp_path.iterdir()), "a mirror load must not write to the cache"


def _counts(ds):
    labels, counts = np.unique(ds.y, return_counts=True)
    return dict(zip(labels.tolist(), counts.tolist()))


# Class counts as documented by UCI and the papers (CoMBo Table 1, thesis Sec. III.G.3).
@pytest.mark.parametrize("name, counts", [
    ("ecoli", {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20, "omL": 5, "imL": 2, "imS": 2}),
    ("ecoli5", {"cp": 143, "im": 77, "pp": 52, "imU": 35, "om": 20}),
    ("nursery_s", {"not_recom": 4320, "priority": 4266, "spec_prior": 4044, "very_recom": 328}),
    ("cleveland", {0: 160, 1: 54, 2: 35, 3: 35, 4: 13}),
    ("cleveland_binary", {0: 160, 1: 137}),
    ("satimage", {1: 1533, 2: 703, 3: 1358, 4: 626, 5: 707, 7: 1508}),
    ("vehicle", {"opel": 212, "saab": 217, "bus": 218, "van": 199}),
    ("breastw", {2: 444, 4: 239}),
    ("wpbc", {"N": 148, "R": 46}),
    ("echocardiogram", {0: 44, 1: 18}),
    ("newthyroid", {1: 150, 2: 35, 3: 30}),
    ("breasttissue", {"car": 21, "fad": 15, "mas": 18, "gla": 16, "con": 14, "adi": 22}),
    pytest.param("adult", {"<=50K": 34014, ">50K": 11208}, marks=pytest.mark.slow),
    pytest.param("connect4", {"win": 44473, "loss": 16635, "draw": 6449}, marks=pytest.mark.slow),
])
def test_class_counts(mirror, name, counts):
    assert _counts(load_dataset(name)) == counts


def test_first_rows_match_the_raw_files(mirror):
    ecoli = load_dataset("ecoli")  # "AAT_ECOLI   0.49  0.29  0.48  0.50  0.56  0.24  0.35   cp"
    np.testing.assert_array_equal(ecoli.X[0], [0.49, 0.29, 0.48, 0.50, 0.56, 0.24, 0.35])
    assert ecoli.y[0] == "cp" and ecoli.feature_names[0] == "x1"
    thyroid = load_dataset("newthyroid")  # header line, then "1,107,10.1,2.2,0.9,2.7"
    np.testing.assert_array_equal(thyroid.X[0], [107, 10.1, 2.2, 0.9, 2.7])
    assert thyroid.feature_names == ["T3-resin", "Thyroxin", "T3", "TSH", "DiffTSH"] and thyroid.y[0] == 1
    car = load_dataset("car")  # "vhigh,vhigh,2,2,small,low,unacc"; buying values high < low < med < vhigh
    assert car.feature_names[:4] == ["x0=high", "x0=low", "x0=med", "x0=vhigh"]
    np.testing.assert_array_equal(car.X[0, :4], [0, 0, 0, 1])
    assert car.X[:, :4].sum(axis=1).tolist() == [1.0] * 1728
    tissue = load_dataset("breasttissue")  # "1,car,524.7940719572033,..."
    assert tissue.X[0, 0] == 524.7940719572033 and tissue.y[0] == "car" and tissue.feature_names[0] == "I0"


def test_predefined_splits_follow_the_original_files(mirror):
    seg = load_dataset("segmentation")
    assert not seg.predefined_test[:210].any() and seg.predefined_test[210:].all()
    vowel = load_dataset("vowel")
    assert vowel.predefined_test.sum() == 462 and not vowel.predefined_test[:528].any()
    letter = load_dataset("letter")
    assert not letter.predefined_test[:16000].any() and letter.predefined_test[16000:].all()
    assert letter.y[0] == "T"  # first line of letter-recognition.data: "T,2,8,3,5,1,8,13,0,6,6,10,8,0,8,0,8"


@pytest.mark.slow
def test_adult_drops_missing_rows_and_merges_test_labels(mirror):
    adult = load_dataset("adult")
    test = adult.predefined_test
    assert (~test).sum() == 30162 and test.sum() == 15060
    assert set(adult.y[test]) == {"<=50K", ">50K"}
    assert (adult.y[test] == ">50K").sum() == 3700 and (adult.y[~test] == ">50K").sum() == 7508


@pytest.mark.slow
def test_mnist_pixels_and_split(mirror):
    mnist = load_dataset("mnist")
    assert mnist.X.min() == 0 and mnist.X.max() == 255
    assert mnist.y[:5].tolist() == [5, 0, 4, 1, 9]  # first training labels of the canonical files
    assert mnist.predefined_test[60000:].all() and not mnist.predefined_test[:60000].any()


def test_musk2_groups_are_the_bags(mirror):
    musk = load_dataset("musk2")
    groups = musk.meta["groups"]
    assert len(groups) == 6598 and len(np.unique(groups)) == 102
    assert len(np.unique(groups[musk.y == 1])) == 39


def test_pima_keeps_zeros(mirror):
    pima = load_dataset("pima")
    assert (pima.X[:, 4] == 0).sum() == 374  # insulin: zeros stand for missing and are kept


def test_returned_arrays_are_private_copies(mirror):
    first = load_dataset("glass")
    first.X[:] = -1
    first.y[:] = 0
    assert load_dataset("glass").X.min() >= 0
    assert 0 not in load_dataset("glass").y


def test_unknown_dataset_lists_valid_ids():
    with pytest.raises(UnknownDatasetError, match="choose one of .*'ecoli'"):
        load_dataset("ecolli")


def test_sklearn_sets_need_no_data_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("CSREPRO_DATA_DIR", str(tmp_path / "nowhere"))
    ds = load_dataset("sk_iris", download=False)
    assert ds.X.shape == (150, 4) and ds.meta["source"] == "sklearn"


# --- resolution of the data directory and cache ------------------------------------------------------------

def test_data_root_resolution_order(monkeypatch, tmp_path):
    """data_root, else $CSREPRO_DATA_DIR, else the default directory when it exists, else None."""
    default = tmp_path / "shared" / "datasets"
    monkeypatch.setattr(loaders, "DEFAULT_DATA_ROOT", default)
    monkeypatch.delenv("CSREPRO_DATA_DIR", raising=False)
    assert resolve_data_root() is None
    default.mkdir(parents=True)
    assert resolve_data_root() == default.resolve()
    monkeypatch.setenv("CSREPRO_DATA_DIR", str(tmp_path))
    assert resolve_data_root() == tmp_path.resolve()
    explicit = tmp_path / "explicit"
    explicit.mkdir()
    assert resolve_data_root(explicit) == explicit.resolve()
    monkeypatch.setenv("CSREPRO_DATA_DIR", str(tmp_path / "missing"))
    with pytest.raises(DataNotFoundError, match="CSREPRO_DATA_DIR.*is not a directory"):
        resolve_data_root()


def test_default_data_root_is_the_shared_folder_beside_the_repository():
    repo = Path(__file__).resolve().parents[2]
    assert loaders.DEFAULT_DATA_ROOT == repo.parent / "shared" / "datasets"


def test_cache_dir_resolution_order(monkeypatch, tmp_path):
    monkeypatch.delenv("CSREPRO_CACHE_DIR", raising=False)
    assert resolve_cache_dir().parts[-2:] == (".cache", "csrepro")
    monkeypatch.setenv("CSREPRO_CACHE_DIR", str(tmp_path))
    assert resolve_cache_dir() == tmp_path.resolve()
    assert resolve_cache_dir(tmp_path / "x") == (tmp_path / "x").resolve()


def test_env_data_dir_is_used(monkeypatch, tmp_path, copy_dataset):
    copy_dataset("glass", tmp_path / "root")
    monkeypatch.setenv("CSREPRO_DATA_DIR", str(tmp_path / "root"))
    ds = load_dataset("glass", cache_dir=tmp_path / "cache", download=False)
    assert ds.meta["files"] == [str((tmp_path / "root" / "glass" / "glass.data").resolve())]


def test_cache_is_used_when_the_data_directory_lacks_the_dataset(tmp_path, copy_dataset):
    (tmp_path / "root").mkdir()
    copy_dataset("glass", tmp_path / "cache")
    ds = load_dataset("glass", data_root=tmp_path / "root", cache_dir=tmp_path / "cache", download=False)
    assert ds.meta["source"] == "cache"


def test_nothing_found_without_download_says_how_to_fix(tmp_path):
    (tmp_path / "root").mkdir()
    with pytest.raises(DataNotFoundError, match="CSREPRO_DATA_DIR.*download=True") as err:
        load_dataset("glass", data_root=tmp_path / "root", cache_dir=tmp_path / "cache", download=False)
    assert "glass/glass.data" in str(err.value)


# --- damaged local files --------------------------------------------------------------------------------------

def _corrupt(path, old: bytes, new: bytes):
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


def test_changed_value_is_a_checksum_error_naming_file_and_fix(tmp_path, copy_dataset):
    root = copy_dataset("ecoli", tmp_path / "root")
    _corrupt(root / "ecoli/ecoli.data", b"0.49  0.29", b"0.94  0.29")
    with pytest.raises(ChecksumError) as err:
        load_dataset("ecoli", data_root=root, cache_dir=tmp_path / "cache", download=False)
    msg = str(err.value)
    assert str((root / "ecoli/ecoli.data").resolve()) in msg
    assert get_spec("ecoli").files[0].sha256 in msg and "got" in msg
    assert "MANIFEST.csv" in msg and "CSREPRO_DATA_DIR" in msg


def test_missing_row_is_reported_with_the_row_count(tmp_path, copy_dataset):
    root = copy_dataset("ecoli", tmp_path / "root")
    path = root / "ecoli/ecoli.data"
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))
    with pytest.raises(ChecksumError, match=r"(?s)expected sha256.*parsed 335 rows.*expects 336 rows"):
        load_dataset("ecoli", data_root=root, cache_dir=tmp_path / "cache", download=False)


def test_wrong_row_count_with_intact_files_is_a_shape_error(monkeypatch, mirror):
    monkeypatch.setitem(DATASETS, "ecoli", dataclasses.replace(get_spec("ecoli"), n_rows=337))
    with pytest.raises(ShapeError, match="parsed 336 rows.*expects 337 rows"):
        load_dataset("ecoli", download=False)


def test_fingerprint_mismatch_with_intact_files_is_reported(monkeypatch, mirror):
    monkeypatch.setitem(DATASETS, "glass", dataclasses.replace(get_spec("glass"), parsed_sha256="0" * 64))
    with pytest.raises(ChecksumError, match="fingerprint"):
        load_dataset("glass", download=False)


def test_byte_different_file_with_identical_table_is_accepted(tmp_path, copy_dataset):
    root = copy_dataset("ecoli", tmp_path / "root")
    path = root / "ecoli/ecoli.data"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))  # CRLF, as some UCI copies have
    ds = load_dataset("ecoli", data_root=root, cache_dir=tmp_path / "cache", download=False)
    assert ds.meta["byte_differences"] == [str(path.resolve())]
    assert table_fingerprint(ds.X, ds.y, None) == get_spec("ecoli").parsed_sha256


def test_corrupt_compressed_file_is_a_checksum_error(tmp_path, copy_dataset):
    root = copy_dataset("connect4", tmp_path / "root")
    path = root / "connect4/connect-4.data.Z"
    data = bytearray(path.read_bytes())
    data[1000:1010] = b"\xff" * 10
    path.write_bytes(bytes(data))
    with pytest.raises(ChecksumError, match="connect-4.data.Z: expected sha256"):
        load_dataset("connect4", data_root=root, cache_dir=tmp_path / "cache", download=False)


def test_partial_dataset_in_data_directory_names_missing_file(tmp_path, copy_dataset):
    root = copy_dataset("vehicle", tmp_path / "root")
    (root / "vehicle/xai.dat").unlink()
    with pytest.raises(DataNotFoundError, match="xai.dat"):
        load_dataset("vehicle", data_root=root, cache_dir=tmp_path / "cache", download=False)


def test_corrupt_cache_file_says_delete_it(tmp_path, copy_dataset):
    cache = copy_dataset("glass", tmp_path / "cache")
    _corrupt(cache / "glass/glass.data", b"1.52101", b"9.52101")
    (tmp_path / "root").mkdir()
    with pytest.raises(ChecksumError, match="delete the file"):
        load_dataset("glass", data_root=tmp_path / "root", cache_dir=cache, download=False)


def test_decompression_falls_back_to_unlzw3(monkeypatch, mirror):
    raw = (mirror / "connect4/connect-4.data.Z").read_bytes()
    with_gzip = loaders._unlzw(raw)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert loaders._unlzw(raw) == with_gzip
    assert loaders._sha256(with_gzip) == get_spec("connect4").files[0].content_sha256
