"""The registry against the mirror's MANIFEST.csv, and its own consistency."""

import re

import pandas as pd
import pytest

from csrepro.data.registry import DATASETS, UnknownDatasetError, get_spec, list_datasets

HEX64 = re.compile(r"[0-9a-f]{64}")
# Mirror data files that no spec reads: the original Excel workbook of breasttissue (its "Data" sheet is
# what BreastTissue_Data.csv holds and what a download converts).
UNREAD = {"breasttissue/BreastTissue.xls"}


@pytest.fixture(scope="module")
def manifest(mirror):
    path = mirror / "MANIFEST.csv"
    if not path.is_file():
        pytest.skip(f"{path} absent")
    table = pd.read_csv(path)
    return table[table["n_rows"].notna()]


def test_every_mirror_dataset_is_registered(manifest):
    assert set(manifest["id"]) <= set(DATASETS)


def test_registry_checksums_equal_the_manifest(manifest):
    listed = dict(zip(manifest["file"], manifest["sha256"]))
    registered = {f.path: f.sha256 for spec in DATASETS.values() for f in spec.files}
    assert registered == {path: sha for path, sha in listed.items() if path not in UNREAD}


def test_specs_are_complete():
    for name, spec in DATASETS.items():
        assert spec.name == name
        assert HEX64.fullmatch(spec.parsed_sha256), name
        assert spec.missing in ("drop_rows", "keep_nan") and spec.encoding in ("onehot", "ordinal")
        assert spec.reader in ("csv", "idx", "sklearn", "synthetic")
        assert (spec.reader in ("sklearn", "synthetic")) == (not spec.files), name
        assert (spec.reader == "synthetic") == (spec.generator is not None), name
        for f in spec.files:
            assert HEX64.fullmatch(f.sha256) and f.role in ("all", "train", "test"), f.path
            assert f.content_sha256 is None or HEX64.fullmatch(f.content_sha256)
            assert all(u.startswith(("http://", "https://")) for u in f.urls)
        if spec.reader == "csv":
            assert spec.label_col is not None, name
        split_files = any(f.role == "test" for f in spec.files)
        assert spec.has_predefined_split == (split_files or spec.test_flag_col is not None
                                             or spec.n_train is not None or spec.reader in ("idx", "synthetic")), name
    assert len({s.parsed_sha256 for s in DATASETS.values()}) == len(DATASETS)


def test_registry_holds_the_papers_variants():
    assert get_spec("ecoli").n_rows == 336 and get_spec("ecoli5").n_rows == 327
    assert get_spec("nursery_s").n_rows == 12958 and get_spec("cleveland_binary").n_classes == 2
    assert {"sk_digits", "sk_breast_cancer", "sk_wine", "sk_iris"} <= set(DATASETS)
    with_split = {n for n, s in DATASETS.items() if s.has_predefined_split}
    assert with_split == {"segmentation", "shuttle", "pendigits", "optdigits", "satimage", "vowel", "adult",
                          "mnist", "letter", "letter_p1", "letter_p2", "two_gaussians", "gaussians_1d",
                          *(f"rebel_synth_{i}" for i in range(10))}


def test_list_and_unknown_id():
    assert list_datasets() == sorted(DATASETS)
    with pytest.raises(UnknownDatasetError, match=r"unknown dataset 'iris'; choose one of \[.*'sk_iris'"):
        get_spec("iris")
