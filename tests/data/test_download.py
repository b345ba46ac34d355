"""Download into the cache (from a local HTTP server) and the OpenML fallback (monkeypatched)."""

import dataclasses
import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from csrepro.data import loaders
from csrepro.data.loaders import (
    ChecksumError,
    DataNotFoundError,
    ShapeError,
    convert_download,
    load_dataset,
)
from csrepro.data.registry import DATASETS, get_spec


def _serve(monkeypatch, name, base, **changes):
    """Register ``name`` with its files' URLs pointing at ``base`` (same relative paths as the mirror)."""
    spec = get_spec(name)
    files = tuple(dataclasses.replace(f, urls=(f"{base}/{f.path}",)) for f in spec.files)
    monkeypatch.setitem(DATASETS, name, dataclasses.replace(spec, files=files, **changes))


def _put(www, relpath, data: bytes):
    path = www / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _load(name, tmp_path, **kw):
    empty = tmp_path / "empty_root"
    empty.mkdir(exist_ok=True)
    return load_dataset(name, data_root=empty, cache_dir=tmp_path / "cache", **kw)


def test_download_fills_cache_and_then_cache_is_used(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    _put(www, "ecoli/ecoli.data", (mirror / "ecoli/ecoli.data").read_bytes())
    _serve(monkeypatch, "ecoli", base)
    ds = _load("ecoli", tmp_path)
    assert ds.meta["source"] == "download" and ds.X.shape == (336, 7)
    cached = tmp_path / "cache/ecoli/ecoli.data"
    assert cached.read_bytes() == (mirror / "ecoli/ecoli.data").read_bytes()
    (www / "ecoli/ecoli.data").unlink()  # the server can no longer help: the cache must
    assert _load("ecoli", tmp_path, download=False).meta["source"] == "cache"


def test_download_with_other_line_endings_is_accepted_by_table_fingerprint(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    _put(www, "ecoli/ecoli.data", (mirror / "ecoli/ecoli.data").read_bytes().replace(b"\n", b"\r\n"))
    _serve(monkeypatch, "ecoli", base)
    ds = _load("ecoli", tmp_path)
    assert ds.meta["byte_differences"] == [str(tmp_path.resolve() / "cache/ecoli/ecoli.data")]


def test_corrupted_download_is_rejected_and_removed(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    _put(www, "ecoli/ecoli.data", (mirror / "ecoli/ecoli.data").read_bytes().replace(b"0.49", b"0.94", 1))
    _serve(monkeypatch, "ecoli", base)
    with pytest.raises(ChecksumError, match="(?s)ecoli.data: expected sha256.*downloaded file.*deleted"):
        _load("ecoli", tmp_path)
    assert not (tmp_path / "cache/ecoli/ecoli.data").exists()


def test_truncated_download_reports_row_count(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    lines = (mirror / "ecoli/ecoli.data").read_bytes().splitlines(keepends=True)
    _put(www, "ecoli/ecoli.data", b"".join(lines[:300]))
    _serve(monkeypatch, "ecoli", base)
    with pytest.raises(ChecksumError, match="parsed 300 rows"):
        _load("ecoli", tmp_path)


def test_download_converts_zip_member(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("column_2C.dat", b"unused")
        archive.writestr("column_3C.dat", (mirror / "vertebral/column_3C.dat").read_bytes())
    _put(www, "vertebral/column_3C.dat", buffer.getvalue())
    _serve(monkeypatch, "vertebral", base)
    assert _load("vertebral", tmp_path).meta["byte_differences"] == []


def test_download_converts_excel_sheet(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    _put(www, "breasttissue/BreastTissue_Data.csv", (mirror / "breasttissue/BreastTissue.xls").read_bytes())
    _serve(monkeypatch, "breasttissue", base)
    ds = _load("breasttissue", tmp_path)
    assert ds.meta["byte_differences"] == []  # the converted sheet is byte-identical to the mirror's CSV


def test_download_prepends_newthyroid_header(monkeypatch, tmp_path, http_server, mirror):
    www, base = http_server
    original = (mirror / "newthyroid/new-thyroid.data").read_bytes().split(b"\n", 1)[1]  # UCI has no header
    _put(www, "newthyroid/new-thyroid.data", original)
    _serve(monkeypatch, "newthyroid", base)
    assert _load("newthyroid", tmp_path).meta["byte_differences"] == []


def test_unix_compress_conversion_gives_registered_content(mirror):
    data = convert_download((mirror / "connect4/connect-4.data.Z").read_bytes(), "Z")
    assert loaders._sha256(data) == get_spec("connect4").files[0].content_sha256
    with pytest.raises(ValueError, match="unknown url_format"):
        convert_download(b"", "rar")


def test_no_url_and_no_openml_is_not_found(tmp_path):
    with pytest.raises(DataNotFoundError, match="(?s)no download URL.*no OpenML id"):
        _load("musk2", tmp_path)


# --- OpenML fallback ------------------------------------------------------------------------------------------

class _FakeOpenML:
    """Stands in for an OpenMLDataset: ``get_data`` returns (features, target, categorical flags, names)."""

    default_target_attribute = "class"

    def __init__(self, features: pd.DataFrame, target: pd.Series):
        self.features, self.target = features, target

    def get_data(self, target=None):
        assert target == "class"
        categorical = [isinstance(t, pd.CategoricalDtype) for t in self.features.dtypes]
        return self.features, self.target, categorical, list(self.features.columns)


def _fake_get_dataset(monkeypatch, frame_by_id, calls):
    import openml

    def get_dataset(dataset_id, **kwargs):
        calls.append(dataset_id)
        if dataset_id not in frame_by_id:
            raise ConnectionError("openml.org unreachable")
        return frame_by_id[dataset_id]

    monkeypatch.setattr(openml.datasets, "get_dataset", get_dataset)


def _car_as_openml(mirror):
    raw = pd.read_csv(mirror / "car/car.data", header=None)
    names = ["buying", "maint", "doors", "persons", "lug_boot", "safety"]
    features = pd.DataFrame({n: pd.Categorical(raw[i].astype(str)) for i, n in enumerate(names)})
    return _FakeOpenML(features, pd.Series(pd.Categorical(raw[6].astype(str)), name="class"))


def test_openml_fallback_after_failed_download(monkeypatch, tmp_path, http_server, mirror):
    _, base = http_server  # serves nothing: every download is a 404
    _serve(monkeypatch, "car", base)
    calls = []
    _fake_get_dataset(monkeypatch, {40975: _car_as_openml(mirror)}, calls)
    ds = _load("car", tmp_path)
    assert calls == [40975] and ds.meta["source"] == "openml"
    reference = load_dataset("car")
    np.testing.assert_array_equal(ds.X, reference.X)
    np.testing.assert_array_equal(ds.y, reference.y)
    assert ds.feature_names[:2] == ["buying=high", "buying=low"]


def test_openml_fallback_checks_shape(monkeypatch, tmp_path, http_server, mirror):
    _, base = http_server
    _serve(monkeypatch, "car", base)
    fake = _car_as_openml(mirror)
    fake.features, fake.target = fake.features.iloc[:-5], fake.target.iloc[:-5]
    _fake_get_dataset(monkeypatch, {40975: fake}, [])
    with pytest.raises(ShapeError, match="parsed 1723 rows.*expects 1728 rows"):
        _load("car", tmp_path)


def test_openml_without_predefined_split_warns(monkeypatch, tmp_path, http_server, mirror):
    _, base = http_server
    _serve(monkeypatch, "vertebral", base, n_test=100)  # pretend the original had a predefined split
    raw = pd.read_csv(mirror / "vertebral/column_3C.dat", header=None, sep=r"\s+")
    fake = _FakeOpenML(raw.iloc[:, :6].add_prefix("V"), pd.Series(pd.Categorical(raw[6]), name="class"))
    _fake_get_dataset(monkeypatch, {1523: fake}, [])
    with pytest.warns(UserWarning, match="no predefined train/test split"):
        ds = _load("vertebral", tmp_path)
    assert ds.predefined_test is None and ds.X.shape == (310, 6)


def test_unreachable_openml_is_listed_in_not_found_error(monkeypatch, tmp_path, http_server):
    _, base = http_server
    _serve(monkeypatch, "car", base)
    _fake_get_dataset(monkeypatch, {}, [])
    with pytest.raises(DataNotFoundError, match="(?s)download of car/car.data failed.*OpenML id 40975: "
                                                "ConnectionError"):
        _load("car", tmp_path)
