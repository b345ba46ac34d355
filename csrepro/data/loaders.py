"""Load registry datasets as float64 feature matrices with verified contents.

Sources, in order:
1. a data directory laid out like the mirror (``<root>/<dataset>/<file>``): the ``data_root``
   argument, else ``$CSREPRO_DATA_DIR``, else ``<repo>/../shared/datasets`` when it exists;
2. a user cache (``cache_dir``, else ``$CSREPRO_CACHE_DIR``, else ``~/.cache/csrepro``) with the
   same layout, filled by downloading the original files when ``download`` is true;
3. OpenML, by the registry's OpenML id, when ``download`` is true and the files cannot be fetched.
scikit-learn's bundled sets (``sk_*``) need none of these.

Verification: a file whose sha256 (or, for compressed files, the sha256 of its decompressed bytes)
matches the registry is accepted. A file with other bytes is accepted only when the table parsed
from it has exactly the registry's fingerprint (``table_fingerprint``); otherwise ``ChecksumError``
names the file, the expected and actual sha256 and the fix. Every load checks rows, features and
classes against the registry (``ShapeError``), so a source can never silently give other data.
Parsed datasets are cached per process; every call returns fresh copies of the arrays.

Errors are one line ending in the fix; the settings are named as the command line takes them
(``data.root``, ``data.download``), with the argument of :func:`load_dataset` beside them.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import urllib.error
import urllib.request
import warnings
import zipfile
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from csrepro import __version__
from csrepro.data.registry import DataFile, DatasetSpec, get_spec

ENV_DATA_DIR = "CSREPRO_DATA_DIR"
#: the data directory setting, as the command line and load_dataset take it
ROOT_SETTING = "data.root (data_root= in load_dataset)"
ENV_CACHE_DIR = "CSREPRO_CACHE_DIR"
DOWNLOAD_TIMEOUT_S = 60
#: the default data directory: the mirror beside the repository, used when it exists
DEFAULT_DATA_ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"


class DataError(RuntimeError):
    """A dataset could not be loaded as the registry describes it; ``what`` is the problem without the fix."""

    def __init__(self, message: str, what: str | None = None):
        super().__init__(message)
        self.what = what or message


class ChecksumError(DataError):
    """Files whose bytes and parsed table both differ from the registry's."""


class ShapeError(DataError):
    """A parsed table whose rows, features, classes or test rows differ from the registry's."""


class DownloadError(DataError):
    """No copy of a file could be downloaded."""


class DataNotFoundError(DataError, FileNotFoundError):
    """No source holds the dataset."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded dataset.

    ``X``: float64 (n, d), C-contiguous; ``y``: labels (int64 or str) as in the original;
    ``predefined_test``: bool mask of the original test rows, or None when there is no predefined split;
    ``meta``: source, files, registry notes and, for musk2, ``groups`` (bag ids).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    predefined_test: np.ndarray | None
    description: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def classes(self) -> np.ndarray:
        """Sorted distinct labels."""
        return np.unique(self.y)


def resolve_data_root(data_root=None) -> Path | None:
    """The data directory: ``data_root``, else ``$CSREPRO_DATA_DIR``, else ``<repo>/../shared/datasets`` if present."""
    if data_root is not None:
        path, origin = Path(data_root).expanduser(), ROOT_SETTING
    elif os.environ.get(ENV_DATA_DIR):
        path, origin = Path(os.environ[ENV_DATA_DIR]).expanduser(), f"${ENV_DATA_DIR}"
    else:
        return DEFAULT_DATA_ROOT.resolve() if DEFAULT_DATA_ROOT.is_dir() else None
    if not path.is_dir():
        raise DataNotFoundError(
            f"{origin} = {str(path)!r} is not a directory; point it at a folder laid out like the dataset "
            f"mirror (<dataset>/<file>, see its MANIFEST.csv) or unset it")
    return path.resolve()


def resolve_cache_dir(cache_dir=None) -> Path:
    """The download cache: ``cache_dir``, else ``$CSREPRO_CACHE_DIR``, else ``~/.cache/csrepro``."""
    if cache_dir is None:
        cache_dir = os.environ.get(ENV_CACHE_DIR) or Path.home() / ".cache" / "csrepro"
    return Path(cache_dir).expanduser().resolve()


def load_dataset(name: str, data_root=None, cache_dir=None, download: bool = True) -> Dataset:
    """Load registry dataset ``name`` (see the module docstring for the sources and checks)."""
    spec = get_spec(name)
    if spec.reader in ("sklearn", "synthetic"):
        dataset = _load_cached(spec, None, None, False)
    else:
        root = resolve_data_root(data_root)
        dataset = _load_cached(spec, root and str(root), str(resolve_cache_dir(cache_dir)), bool(download))
    return replace(
        dataset, X=dataset.X.copy(), y=dataset.y.copy(), feature_names=list(dataset.feature_names),
        predefined_test=None if dataset.predefined_test is None else dataset.predefined_test.copy(),
        meta={k: v.copy() if isinstance(v, (np.ndarray, list)) else v for k, v in dataset.meta.items()})


def clear_cache() -> None:
    """Forget the datasets parsed so far in this process."""
    _load_cached.cache_clear()


def table_fingerprint(X: np.ndarray, y: np.ndarray, predefined_test: np.ndarray | None) -> str:
    """sha256 of a parsed table: X as little-endian float64 (C order, shape included), labels, test mask."""
    X = np.ascontiguousarray(X, dtype="<f8")
    if np.isnan(X).any():
        X = np.where(np.isnan(X), np.nan, X)
    h = hashlib.sha256(f"X{X.shape}".encode())
    h.update(memoryview(X).cast("B"))
    h.update(f"y:{y.dtype.kind}:".encode() + "\x1f".join(map(str, y.tolist())).encode())
    h.update(b"m:" + (b"none" if predefined_test is None else np.asarray(predefined_test, np.uint8).tobytes()))
    return h.hexdigest()


@functools.lru_cache(maxsize=64)
def _load_cached(spec: DatasetSpec, root: str | None, cache: str | None, download: bool) -> Dataset:
    if spec.reader == "sklearn":
        return _verified(spec, _parse_sklearn(spec), {"source": "sklearn"})
    if spec.reader == "synthetic":
        X, y, mask = spec.generator()
        return _verified(spec, {"X": X, "y": y, "names": [f"x{i}" for i in range(X.shape[1])], "mask": mask,
                                "groups": None}, {"source": "synthetic"})
    tried = []
    if root is None:
        tried.append(f"no data directory (data.root not given, ${ENV_DATA_DIR} unset, "
                     f"{DEFAULT_DATA_ROOT} absent)")
    else:
        paths = _complete_files(spec, Path(root))
        if paths:
            return _load_files(spec, paths, "data_root")
        tried.append(f"data directory {root} (no {spec.name} files)")
    cache_dir = Path(cache)
    missing = [f for f in spec.files if not (cache_dir / f.path).is_file()]
    if not missing:
        return _load_files(spec, [cache_dir / f.path for f in spec.files], "cache")
    tried.append(f"cache {cache_dir} (missing {', '.join(f.path for f in missing)})")
    if download:
        try:
            _download(missing, cache_dir)
        except DownloadError as exc:
            tried.append(str(exc))
        else:
            return _load_downloaded(spec, cache_dir, missing)
        if spec.openml_id is None:
            tried.append("no OpenML id is registered")
        else:
            try:
                features, target, categorical = _openml_fetch(spec.openml_id)
            except Exception as exc:  # noqa: BLE001 - any failure (no package, network, server) = not available
                tried.append(f"OpenML id {spec.openml_id}: {type(exc).__name__}: {exc}")
            else:
                return _from_openml(spec, features, target, categorical)
    advice = ("or retry where the download URLs or OpenML are reachable" if download
              else "or allow downloads into the cache (data.download=true; download=True in load_dataset)")
    raise DataNotFoundError(
        f"dataset {spec.name!r} not found. Tried: {'; '.join(tried)}. Fix: set {ENV_DATA_DIR} to a folder "
        f"laid out like the mirror (e.g. export {ENV_DATA_DIR}=/path/to/shared/datasets, holding "
        f"{spec.files[0].path}) or give it as {ROOT_SETTING}, {advice}.")


def _complete_files(spec: DatasetSpec, root: Path) -> list[Path] | None:
    """The spec's files under ``root``; None when none is there; an error when only some are."""
    paths = [root / f.path for f in spec.files]
    present = [p.is_file() for p in paths]
    if not any(present):
        return None
    if not all(present):
        lost = [str(p) for p, ok in zip(paths, present) if not ok]
        raise DataNotFoundError(
            f"data directory {root} holds only some files of {spec.name!r}; missing: {lost}. Fix: copy them "
            f"from the dataset mirror (MANIFEST.csv lists them), or remove the folder "
            f"{root / Path(spec.files[0].path).parent} so the dataset is taken from the cache or downloaded")
    return paths


def _load_downloaded(spec: DatasetSpec, cache_dir: Path, fetched: list[DataFile]) -> Dataset:
    """Load after a download; files just fetched are deleted again when they prove wrong."""
    try:
        return _load_files(spec, [cache_dir / f.path for f in spec.files], "download")
    except DataError:
        for f in fetched:
            (cache_dir / f.path).unlink(missing_ok=True)
        raise


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _bytes_match(f: DataFile, raw: bytes) -> bool:
    if _sha256(raw) == f.sha256:
        return True
    if f.content_sha256 is None:
        return False
    try:
        return _sha256(_decompress(raw, f.path)) == f.content_sha256
    except (OSError, EOFError, ValueError, zlib.error, subprocess.CalledProcessError):
        return False


_FIX = {
    "data_root": "replace the file(s) with the mirror's copies (sha256 in MANIFEST.csv), or point "
                 f"{ROOT_SETTING} or ${ENV_DATA_DIR} at a correct mirror",
    "cache": "delete the file(s) so that they are downloaded again",
    "download": "the downloaded file(s) were deleted; the server's copy is not the registered one. Retry later, "
                f"or set ${ENV_DATA_DIR} to a verified mirror",
}


def _load_files(spec: DatasetSpec, paths: list[Path], source: str) -> Dataset:
    raws = [p.read_bytes() for p in paths]
    differ = [(p, f, _sha256(raw)) for p, f, raw in zip(paths, spec.files, raws) if not _bytes_match(f, raw)]
    meta = {"source": source, "files": [str(p) for p in paths],
            "byte_differences": [str(p) for p, _, _ in differ]}
    try:
        contents = [_decompress(raw, f.path) for f, raw in zip(spec.files, raws)]
        parser = _parse_idx if spec.reader == "idx" else _parse_csv
        return _verified(spec, parser(spec, contents), meta)
    except Exception as exc:
        if not differ:
            raise
        files = "; ".join(f"{p}: expected sha256 {f.sha256}, got {got}" for p, f, got in differ)
        parsed = getattr(exc, "what", None) or f"{type(exc).__name__}: {exc}"
        raise ChecksumError(
            f"{spec.name}: file(s) differ from the registered checksums ({files}) and do not parse to the "
            f"registered table ({parsed}). Fix: {_FIX[source]}.") from exc


def _decompress(raw: bytes, path: str) -> bytes:
    if path.endswith(".gz"):
        return gzip.decompress(raw)
    if path.endswith(".Z"):
        return _unlzw(raw)
    return raw


def _unlzw(raw: bytes) -> bytes:
    """Decompress Unix ``compress`` (.Z) data with ``gzip -dc``, or the ``unlzw3`` package without gzip."""
    gzip_exe = shutil.which("gzip")
    if gzip_exe:
        return subprocess.run([gzip_exe, "-dc"], input=raw, capture_output=True, check=True).stdout
    import unlzw3

    return unlzw3.unlzw(raw)


def _fetch(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": f"csrepro/{__version__}"})
    with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_S) as response:
        return response.read()


def _download(files: list[DataFile], cache_dir: Path) -> None:
    """Fetch ``files`` (first URL that answers), convert them per ``url_format`` and store them in the cache."""
    for f in files:
        if not f.urls:
            raise DownloadError(f"no download URL is registered for {f.path}")
        errors = []
        for url in f.urls:
            try:
                data = _fetch(url)
                break
            except (urllib.error.URLError, OSError) as exc:
                errors.append(f"{url}: {exc}")
        else:
            raise DownloadError(f"download of {f.path} failed ({'; '.join(errors)})")
        try:
            data = convert_download(data, f.url_format)
        except Exception as exc:
            raise ChecksumError(f"{url} did not give a valid {f.url_format!r} file for {f.path}: "
                                f"{type(exc).__name__}: {exc}. Fix: retry later, or set ${ENV_DATA_DIR} "
                                f"to a verified mirror.") from exc
        dest = cache_dir / f.path
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(f"{dest.name}.{os.getpid()}.part")
        part.write_bytes(data)
        os.replace(part, dest)


def convert_download(data: bytes, url_format: str | None) -> bytes:
    """Turn downloaded bytes into the stored file (see ``DataFile.url_format``)."""
    kind, _, arg = (url_format or "").partition(":")
    if not kind:
        return data
    if kind == "Z":
        return _unlzw(data)
    if kind == "zip":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.read(arg)
    if kind == "xls":
        return pd.read_excel(io.BytesIO(data), sheet_name=arg, engine="xlrd").to_csv(index=False).encode()
    if kind == "prepend":
        return arg.encode() + data
    raise ValueError(f"unknown url_format {url_format!r}; use None, 'Z', 'zip:<member>', 'xls:<sheet>' "
                     f"or 'prepend:<text>'")


def _openml_fetch(openml_id: int):
    """Download OpenML dataset ``openml_id``: (features DataFrame, target Series, categorical flags)."""
    import openml

    dataset = openml.datasets.get_dataset(openml_id, download_data=True)
    features, target, categorical, _ = dataset.get_data(target=dataset.default_target_attribute)
    return features, target, categorical


def _from_openml(spec: DatasetSpec, features: pd.DataFrame, target: pd.Series, categorical) -> Dataset:
    features = features.reset_index(drop=True)
    cats = {c for c, is_cat in zip(features.columns, categorical) if is_cat}
    table = _assemble(spec, features, [str(c) for c in features.columns], cats,
                      pd.Series(np.asarray(target, dtype=object)), None, None)
    if spec.has_predefined_split:
        warnings.warn(f"{spec.name}: the OpenML copy (id {spec.openml_id}) has no predefined train/test split; "
                      f"predefined_test is None, so split protocols fall back to a random split", stacklevel=3)
    return _verified(spec, table, {"source": "openml", "openml_id": spec.openml_id}, exact=False)


# --- parsing -------------------------------------------------------------------------------------------

def _parse_csv(spec: DatasetSpec, contents: list[bytes]) -> dict:
    frames, test = [], []
    for f, content in zip(spec.files, contents):
        frame = pd.read_csv(
            io.BytesIO(content), sep=spec.sep, header=spec.header, skiprows=f.skiprows,
            skipinitialspace=spec.skipinitialspace, na_values=list(spec.na_values), keep_default_na=False,
            **({"engine": "python", "on_bad_lines": spec.fix_bad_line} if spec.fix_bad_line else {}))
        frames.append(frame)
        test.append(np.full(len(frame), f.role == "test"))
    header = [str(c) for c in frames[0].columns]
    for frame in frames:
        frame.columns = range(frame.shape[1])
    raw = pd.concat(frames, ignore_index=True)
    if spec.test_flag_col is not None:
        mask = raw[spec.test_flag_col].to_numpy() == 1
    elif spec.n_train is not None:
        mask = np.arange(len(raw)) >= spec.n_train
    else:
        mask = np.concatenate(test) if spec.has_predefined_split else None
    drop = {spec.label_col, spec.test_flag_col, spec.group_col, *spec.drop_cols}
    keep = [c for c in raw.columns if c not in drop]
    names = [header[c] if spec.header is not None else f"x{c}" for c in keep]
    groups = None if spec.group_col is None else raw[spec.group_col].to_numpy()
    return _assemble(spec, raw[keep], names, set(spec.categorical_cols), raw[spec.label_col], mask, groups)


def _parse_idx(spec: DatasetSpec, contents: list[bytes]) -> dict:
    """MNIST-style IDX files: per role, one image file (magic 0x803) and one label file (magic 0x801)."""
    parts = {"train": {}, "test": {}}
    for f, data in zip(spec.files, contents):
        magic, n = int.from_bytes(data[:4], "big"), int.from_bytes(data[4:8], "big")
        if magic == 0x803:
            rows, cols = int.from_bytes(data[8:12], "big"), int.from_bytes(data[12:16], "big")
            parts[f.role]["X"] = np.frombuffer(data, np.uint8, offset=16).reshape(n, rows * cols)
        elif magic == 0x801:
            parts[f.role]["y"] = np.frombuffer(data, np.uint8, offset=8).reshape(n)
        else:
            raise DataError(f"{f.path}: IDX magic number {magic:#x} is neither 0x803 (images) nor 0x801 (labels)")
    X = np.concatenate([parts["train"]["X"], parts["test"]["X"]]).astype(np.float64)
    y = np.concatenate([parts["train"]["y"], parts["test"]["y"]]).astype(np.int64)
    mask = np.arange(len(y)) >= len(parts["train"]["y"])
    return {"X": X, "y": y, "names": [f"px{i}" for i in range(X.shape[1])], "mask": mask, "groups": None}


def _parse_sklearn(spec: DatasetSpec) -> dict:
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, spec.sklearn_loader)()
    return {"X": np.ascontiguousarray(bunch.data, dtype=np.float64), "y": np.asarray(bunch.target, np.int64),
            "names": [str(n) for n in bunch.feature_names], "mask": None, "groups": None}


def _labels(values: pd.Series, spec: DatasetSpec) -> np.ndarray:
    """Labels as an object array (NaN where missing), integer-valued labels as int, then ``label_map`` applied."""
    missing = values.isna().to_numpy()
    out = values.to_numpy(dtype=object)
    present = [str(v) for v in out[~missing]]
    try:
        as_float = np.array(present, dtype=float)
        if np.array_equal(as_float, np.round(as_float)):
            present = as_float.astype(np.int64).tolist()
    except ValueError:
        pass
    out[~missing] = present
    mapping = dict(spec.label_map)
    return np.array([mapping.get(v, v) for v in out], dtype=object)


def _assemble(spec, features: pd.DataFrame, names: list[str], categorical: set, labels: pd.Series,
              mask, groups) -> dict:
    """Apply the label, missing-value and encoding rules of ``spec`` to a raw feature frame."""
    y = _labels(labels, spec)
    keep = ~pd.isna(y)
    if spec.missing == "drop_rows":
        keep &= ~features.isna().any(axis=1).to_numpy()
    elif spec.missing != "keep_nan":
        raise ValueError(f"{spec.name}: missing={spec.missing!r}; use 'drop_rows' or 'keep_nan'")
    if spec.drop_labels:
        keep &= np.array([v not in spec.drop_labels for v in y], dtype=bool)
    features = features[keep].reset_index(drop=True)
    X, names = _encode(features, names, categorical, spec.encoding)
    y = y[keep].tolist()
    y = np.array(y, dtype=np.int64) if all(isinstance(v, int) for v in y) else np.array(y, dtype=str)
    return {"X": X, "y": y, "names": names, "mask": None if mask is None else mask[keep],
            "groups": None if groups is None else groups[keep]}


def _encode(features: pd.DataFrame, names: list[str], categorical: set, encoding: str):
    if encoding not in ("onehot", "ordinal"):
        raise ValueError(f"encoding={encoding!r}; use 'onehot' or 'ordinal'")
    blocks, out_names = [], []
    for col, name in zip(features.columns, names):
        column = features[col]
        if col in categorical:
            cat = pd.Categorical(column.where(column.isna(), column.astype(str)))
            codes = cat.codes.astype(np.int64)
            if encoding == "onehot":
                block = (codes[:, None] == np.arange(len(cat.categories))).astype(np.float64)
                out_names += [f"{name}={v}" for v in cat.categories]
            else:
                block = codes[:, None].astype(np.float64)
                out_names.append(name)
            block[codes < 0] = np.nan
        else:
            try:
                block = pd.to_numeric(column).to_numpy(dtype=np.float64)[:, None]
            except (ValueError, TypeError) as exc:
                raise DataError(f"feature {name!r} has non-numeric values ({exc}); the file is damaged or the "
                                f"registry should list it in categorical_cols") from exc
            out_names.append(name)
        blocks.append(block)
    X = np.hstack(blocks) if blocks else np.empty((len(features), 0))
    return np.ascontiguousarray(X, dtype=np.float64), out_names


def _verified(spec: DatasetSpec, table: dict, meta: dict, exact: bool = True) -> Dataset:
    """Check the table's shape against ``spec`` (``exact``: also its test rows and fingerprint); wrap it."""
    X, y, mask = table["X"], table["y"], table["mask"]
    got = (X.shape[0], X.shape[1], len(np.unique(y)), None if mask is None else int(mask.sum()))
    want = (spec.n_rows, spec.n_features, spec.n_classes, spec.n_test if exact else None)
    if got != want:
        what = (f"parsed {got[0]} rows, {got[1]} features, {got[2]} classes, {got[3]} predefined test rows from "
                f"{meta.get('files') or meta['source']}; the registry expects {want[0]} rows, {want[1]} features, "
                f"{want[2]} classes, {want[3]} test rows")
        raise ShapeError(f"{spec.name}: {what}. Fix: use the registered files (see MANIFEST.csv of the mirror) or "
                         f"point {ROOT_SETTING} or ${ENV_DATA_DIR} at a correct mirror.", what)
    if exact:
        digest = table_fingerprint(X, y, mask)
        if digest != spec.parsed_sha256:
            what = (f"the parsed table's fingerprint is {digest}, the registry expects {spec.parsed_sha256} "
                    f"(from {meta.get('files') or meta['source']})")
            # files reach this check only when their bytes match the registry (_load_files): the code changed
            cause = ("the files match their registered sha256, so the parser or pandas/numpy changed behaviour"
                     if meta.get("files") else f"the {meta['source']} data changed (scikit-learn/numpy version?)")
            raise ChecksumError(f"{spec.name}: {what}; {cause}. Fix: compare with the versions the registry was "
                                "made with before trusting results.", what)
    if table["groups"] is not None:
        meta = {**meta, "groups": table["groups"]}
    meta = {**meta, "title": spec.title, "uci_page": spec.uci_page, "papers": list(spec.papers),
            "openml_id": spec.openml_id}
    return Dataset(spec.name, X, y, table["names"], mask, f"{spec.title}. {spec.notes}".strip(), meta)
