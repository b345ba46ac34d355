"""Registry of every dataset the reproduced papers use: where its files come from and how to parse them.

Dataset ids are the folder names of the offline mirror (``/work/shared/datasets``) plus a few
variants (``ecoli5``, ``nursery_s``, ``cleveland_binary``, ``german_numeric``, and ``car_ord``,
``nursery_ord``, ``nursery_s_ord``, ``connect4_ord``: ordinal codes instead of one-hot columns) and scikit-learn's bundled
sets (``sk_*``). Column numbers are 0-based positions in the raw file.

Checksums: ``DataFile.sha256`` is the sha256 of the mirror's bytes (MANIFEST.csv); for compressed
files ``content_sha256`` is the sha256 of the decompressed bytes (MNIST's original .gz files differ from
the mirror's re-gzipped ones, but not once decompressed). ``DatasetSpec.parsed_sha256`` is a fingerprint
of the parsed table (see ``loaders.table_fingerprint``), computed once from the mirror: it is what accepts
files whose bytes legitimately differ from the mirror's (UCI copies of libras, vehicle and satimage with
LF instead of CRLF line endings, ...) and it guards every load against parser changes. newthyroid's UCI
original lacks the header line the mirror has; a download gets it prepended (``url_format``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from csrepro.data.synthetic import rebel_mixture_2d, two_gaussians

UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_MNIST_MIRRORS = ("https://yann.lecun.com/exdb/mnist", "https://ossci-datasets.s3.amazonaws.com/mnist")


@dataclass(frozen=True)
class DataFile:
    """One raw file: its path under a data root, checksums, and where to download it.

    ``url_format`` says how the download must be converted to the stored file: ``None`` (as is),
    ``"Z"`` (Unix-compress download, stored decompressed), ``"zip:<member>"`` (member of a zip
    archive), ``"xls:<sheet>"`` (Excel sheet, stored as CSV with a header row) or
    ``"prepend:<text>"`` (``<text>`` is put in front, e.g. a header line the mirror added).
    ``role`` is ``"train"``/``"test"`` for datasets whose original comes split into files.
    """

    path: str
    sha256: str
    urls: tuple[str, ...] = ()
    url_format: str | None = None
    content_sha256: str | None = None
    role: str = "all"
    skiprows: int = 0


@dataclass(frozen=True)
class DatasetSpec:
    """How to obtain and parse one dataset, and the shape it must have after parsing.

    Parsing (``reader="csv"``): the files are read with ``sep``/``header``/``skipinitialspace``, rows
    are concatenated in file order, ``label_col`` gives the labels and ``drop_cols``,
    ``test_flag_col`` and ``group_col`` are removed from the features. Tokens in ``na_values`` are
    missing. Rows with a missing label are always dropped; rows with a missing feature are dropped
    when ``missing == "drop_rows"`` and kept as NaN when ``missing == "keep_nan"``.
    ``categorical_cols`` are one-hot encoded (``encoding="onehot"``, one column per observed value,
    values sorted) or mapped to the index of their value in sorted order (``"ordinal"``).
    ``label_map`` renames labels (pairs ``(old, new)``), then rows whose label is in
    ``drop_labels`` are dropped.
    Predefined split: test rows are those of files with ``role="test"``, rows with
    ``test_flag_col == 1``, or rows after the first ``n_train`` ones.
    ``reader="synthetic"``: ``generator()`` returns ``(X, y, test_mask)``, drawn with a fixed seed.
    """

    name: str
    title: str
    files: tuple[DataFile, ...]
    n_rows: int
    n_features: int
    n_classes: int
    parsed_sha256: str
    label_col: int | None = None
    reader: str = "csv"
    sep: str = ","
    header: int | None = None
    skipinitialspace: bool = False
    drop_cols: tuple[int, ...] = ()
    na_values: tuple[str, ...] = ()
    categorical_cols: tuple[int, ...] = ()
    encoding: str = "onehot"
    missing: str = "drop_rows"
    label_map: tuple[tuple, ...] = ()
    drop_labels: tuple = ()
    test_flag_col: int | None = None
    n_train: int | None = None
    n_test: int | None = None
    group_col: int | None = None
    fix_bad_line: Callable[[list[str]], list[str] | None] | None = None
    sklearn_loader: str | None = None
    generator: Callable[[], tuple] | None = None
    openml_id: int | None = None
    uci_page: str = ""
    papers: tuple[str, ...] = ()
    notes: str = ""

    @property
    def has_predefined_split(self) -> bool:
        """True when the original defines a train/test split."""
        return self.n_test is not None


class UnknownDatasetError(ValueError):
    """A dataset id that is not in the registry."""


def _drop_leading_empty_field(fields: list[str]) -> list[str] | None:
    """Echocardiogram line 50 starts with a stray comma: drop the empty first field."""
    return fields[1:] if fields[0] == "" else None


def _f(path, sha256, urls=(), **kw) -> DataFile:
    return DataFile(path, sha256, (urls,) if isinstance(urls, str) else tuple(urls), **kw)


_BEIJBOM = "beijbom2014"
_REBEL = "appel2016"
_COMBO = "koco2013"
_THESIS = "masnadi_shirazi2011"
_OBRIEN = "obrien2008"

_SPECS = [
    DatasetSpec(
        "breasttissue", "Breast Tissue (UCI)",
        (_f("breasttissue/BreastTissue_Data.csv",
            "19f64925c71815380688c7ac08d87df41c6f85d8a6fb513e51aa701ce0c052d9",
            f"{UCI}/00192/BreastTissue.xls", url_format="xls:Data"),),
        106, 9, 6, "1f325103cc2404614ee92c6d70757064ade00ab89c89fa8455a07f9d15fa0323",
        label_col=1, header=0, drop_cols=(0,),
        openml_id=None,  # OpenML has a "breast-tissue" set; its id is not confirmed here
        uci_page="https://archive.ics.uci.edu/dataset/192/breast+tissue", papers=(_BEIJBOM,),
        notes="Sheet 'Data' of UCI's BreastTissue.xls written to CSV (the mirror's BreastTissue_Data.csv); "
              "a download converts the .xls the same way. Column 'Case #' is dropped."),
    DatasetSpec(
        "ecoli", "Ecoli (UCI), all 8 classes",
        (_f("ecoli/ecoli.data", "008bd8fbb1d8b34040c3c8c4e987cac2a7ebf116e008b140cc6441be5261ba1d",
            f"{UCI}/ecoli/ecoli.data"),),
        336, 7, 8, "1b3685c422718912a30402d381c43de953d06b4fc18c674d5672ac0f2bf59889",
        label_col=8, sep=r"\s+", drop_cols=(0,), openml_id=39,
        uci_page="https://archive.ics.uci.edu/dataset/39/ecoli", papers=(_BEIJBOM, _COMBO),
        notes="Column 0 (sequence name) dropped."),
    DatasetSpec(
        "segmentation", "Image Segmentation (UCI), predefined 210/2100 split",
        (_f("segmentation/segmentation.data", "ed5b5aee8081bbe875357149f73f50d7085e22cc0897f5b52eb7b52fea969a5b",
            f"{UCI}/image/segmentation.data", role="train", skiprows=5),
         _f("segmentation/segmentation.test", "2e9e966479d54c6aaec309059376dd9c89c1b46bf3a23aceeefb36d20d93a189",
            f"{UCI}/image/segmentation.test", role="test", skiprows=5)),
        2310, 19, 7, "0093c6ff2a7de4d287be04f94858692f38bcf66791f25cabaaad933af8965d62",
        label_col=0, n_test=2100, openml_id=36,
        uci_page="https://archive.ics.uci.edu/dataset/50/image+segmentation", papers=(_BEIJBOM,),
        notes="5-line preamble skipped; feature REGION-PIXEL-COUNT is constant (9)."),
    DatasetSpec(
        "libras", "Libras Movement (UCI)",
        (_f("libras/movement_libras.data", "97ebdaa6a9b28ab4a2cdd84b14f19a95a7456a46137c362b65a0669eca3c3c4d",
            f"{UCI}/libras/movement_libras.data"),),
        360, 90, 15, "38df5c7105f0e21bc62fbeec85bbfb59391645ecb2f1e3cc344e9ff2e6fa2213",
        label_col=90, openml_id=299,
        uci_page="https://archive.ics.uci.edu/dataset/181/libras+movement", papers=(_BEIJBOM,),
        notes="Mirror file has CRLF line endings (UCI copies with LF parse to the same table)."),
    DatasetSpec(
        "vertebral", "Vertebral Column, 3 classes (UCI column_3C.dat)",
        (_f("vertebral/column_3C.dat", "fb5fc4ae49d9f2586158f3368058309364ec3153954cd2ff01fb15d739fe552f",
            f"{UCI}/00212/vertebral_column_data.zip", url_format="zip:column_3C.dat"),),
        310, 6, 3, "884833c0cbeb9ef6082bed2ffaf1966827654a7662e2dea7cb720e9c74678e87",
        label_col=6, sep=r"\s+",
        openml_id=1523,  # "vertebra-column"; believed to be the 3-class version (the shape check guards)
        uci_page="https://archive.ics.uci.edu/dataset/212/vertebral+column", papers=(_BEIJBOM,)),
    DatasetSpec(
        "vehicle", "Statlog Vehicle Silhouettes (UCI), 9 parts concatenated",
        tuple(_f(f"vehicle/xa{c}.dat", sha, f"{UCI}/statlog/vehicle/xa{c}.dat") for c, sha in zip("abcdefghi", (
            "fc0c8bd7c6df152785d0a6c2d31e41a2e6856aa13d867bfba4adf5f1545149cb",
            "10b4e1e395ced8b59e8983638b254e8b52c49c8063de12f13c16ec4128cf2e07",
            "99e32274bcded7e2093d03b6f6ca5a24833315690a426187b25b40756f9b43d1",
            "7bba11d666a7535bcb1e555c328e65998ef22d839bbdae130d76ef51a71bdd55",
            "fb9d0622644a535c2e82a203a87b9a82e2dba2c1e86e6c9713ec572b46a1a832",
            "5c6801c96a9c0e9947ee141dec7eeaf7b29b8838a936d31ed3502d589c0e1a85",
            "58c46e0f6e2905519318e47f7632034c79bc2b866219d1f7e99fb4d0850e4ea4",
            "20ba5a77150dab9096a54c462a5661fa1a60f73f5b3ee0829f5ba151543ddd2c",
            "8102cf7019524a3a3beb63993fdfbbf7a7f3dd30eea635e2df280387ba8831d3"))),
        846, 18, 4, "5eca4c1f427604ad10add6b394134a05b1e56ec400869c366fa1f97e1483baf7",
        label_col=18, sep=r"\s+", openml_id=54,
        uci_page="https://archive.ics.uci.edu/dataset/149/statlog+vehicle+silhouettes", papers=(_BEIJBOM,),
        notes="CRLF line endings and labels padded to 4 characters ('van ') in the mirror; the padding is "
              "whitespace, i.e. a separator, so labels are 'van', 'bus', 'opel', 'saab'."),
    DatasetSpec(
        "shuttle", "Statlog Shuttle (UCI), predefined 43500/14500 split",
        (_f("shuttle/shuttle.trn", "87b24ee9fb5137e1d417659cf905d84d0e15342bbaa60770f1ae83da1a38200a",
            f"{UCI}/statlog/shuttle/shuttle.trn.Z", url_format="Z", role="train"),
         _f("shuttle/shuttle.tst", "f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661",
            f"{UCI}/statlog/shuttle/shuttle.tst", role="test")),
        58000, 9, 7, "616f3571c89d7468ac87ffbdebccd371a2622a330ffb790f29f61618318346f8",
        label_col=9, sep=r"\s+", n_test=14500, openml_id=40685,
        uci_page="https://archive.ics.uci.edu/dataset/148/statlog+shuttle", papers=(_BEIJBOM,),
        notes="UCI serves the training file only compressed (shuttle.trn.Z); it is stored decompressed."),
    DatasetSpec(
        "pendigits", "Pen-Based Recognition of Handwritten Digits (UCI), predefined 7494/3498 split",
        (_f("pendigits/pendigits.tra", "e2b9eb9f0d0467e2b64a4816a3420edf2b8043447576f4b84337aba44a9f97d3",
            f"{UCI}/pendigits/pendigits.tra", role="train"),
         _f("pendigits/pendigits.tes", "8bd03229c5c5291fefe43e45465dd948d2645bf23328b9d993e0b777666b2015",
            f"{UCI}/pendigits/pendigits.tes", role="test")),
        10992, 16, 10, "3f5e8fecb981df3aee9e92c21a69c53b0e563ac85293ffa162ae4feecac6a377",
        label_col=16, skipinitialspace=True, n_test=3498, openml_id=32,
        uci_page="https://archive.ics.uci.edu/dataset/81/pen+based+recognition+of+handwritten+digits",
        papers=(_BEIJBOM, _REBEL)),
    DatasetSpec(
        "optdigits", "Optical Recognition of Handwritten Digits (UCI), predefined 3823/1797 split",
        (_f("optdigits/optdigits.tra", "e1b683cc211604fe8fd8c4417e6a69f31380e0c61d4af22e93cc21e9257ffedd",
            f"{UCI}/optdigits/optdigits.tra", role="train"),
         _f("optdigits/optdigits.tes", "6ebb3d2fee246a4e99363262ddf8a00a3c41bee6014c373ed9d9216ba7f651b8",
            f"{UCI}/optdigits/optdigits.tes", role="test")),
        5620, 64, 10, "10e9636b9ae8cad5a4cd3c3cf3cd04080da7625dd9cd8a102e3a34e3417d9cb4",
        label_col=64, n_test=1797, openml_id=28,
        uci_page="https://archive.ics.uci.edu/dataset/80/optical+recognition+of+handwritten+digits",
        papers=(_BEIJBOM,)),
    DatasetSpec(
        "satimage", "Statlog Landsat Satellite (UCI), predefined 4435/2000 split",
        (_f("satimage/sat.trn", "6da888aa398f4dd56a85bb7114f7206896a360b7af1d790450f64dbdb8493fc5",
            f"{UCI}/statlog/satimage/sat.trn", role="train"),
         _f("satimage/sat.tst", "0045be0391420a35a69e8d2b0a4ff4b032a4aa03feebba0d89b9aa3e2d42c212",
            f"{UCI}/statlog/satimage/sat.tst", role="test")),
        6435, 36, 6, "786c846e71eadcff8fa78394c9c0fb6a763c4fda157fa467dc61df72296d0ace",
        label_col=36, sep=r"\s+", n_test=2000, openml_id=182,
        uci_page="https://archive.ics.uci.edu/dataset/146/statlog+landsat+satellite",
        papers=(_BEIJBOM, _REBEL, _COMBO),
        notes="Labels {1,2,3,4,5,7} (no class 6). Mirror files have CRLF line endings. "
              "Beijbom's 'Satellite Image' and REBEL's 'Landsat'."),
    DatasetSpec(
        "glass", "Glass Identification (UCI)",
        (_f("glass/glass.data", "dd67373f4baf2807345df02cbfef2093d342e61ad0d82a4fb79af43ef8ce449d",
            f"{UCI}/glass/glass.data"),),
        214, 9, 6, "08d137ce449b42e2137dae4c2bd41f29731d59e07161fbe31886b0d716424009",
        label_col=10, drop_cols=(0,), openml_id=41,
        uci_page="https://archive.ics.uci.edu/dataset/42/glass+identification", papers=(_REBEL, _COMBO),
        notes="Column 0 (Id) dropped; labels 1,2,3,5,6,7 (no class 4)."),
    DatasetSpec(
        "vowel", "Vowel Recognition, Deterding (UCI), predefined 528/462 split",
        (_f("vowel/vowel-context.data", "1e5c40bdd0b6705c75586eb23f5d9c3078e9588f48bc5c2c98da219fe83fff29",
            f"{UCI}/undocumented/connectionist-bench/vowel/vowel-context.data"),),
        990, 10, 11, "74c05a77d5138b9164d06bd9f981af65ac775405a9c5d2d08c721791a412392c",
        label_col=13, sep=r"\s+", drop_cols=(1, 2), test_flag_col=0, n_test=462,
        openml_id=307,  # OpenML "vowel" also carries the train/test flag, speaker and sex columns
        uci_page="https://archive.ics.uci.edu/dataset/152/connectionist+bench+vowel+recognition+deterding+data",
        papers=(_REBEL,),
        notes="Column 0 is the train/test flag (1 = test); speaker and sex (cols 1-2) dropped."),
    DatasetSpec(
        "newthyroid", "Thyroid, new-thyroid (UCI)",
        (_f("newthyroid/new-thyroid.data", "d6858944c0ccb3703411f27d123421f11ee1a4bb0455f3ff14dd1cd89865daae",
            f"{UCI}/thyroid-disease/new-thyroid.data",
            url_format="prepend:y,T3-resin,Thyroxin,T3,TSH,DiffTSH\n"),),
        215, 5, 3, "9bc6a2e1da3a90e7a3fc9d3c2a65aec50c03e5af20dada4f1c7d26b1e3702e57",
        label_col=0, header=0,
        openml_id=None,  # OpenML has a "thyroid-new" set; its id is not confirmed here
        uci_page="https://archive.ics.uci.edu/dataset/102/thyroid+disease", papers=(_COMBO,),
        notes="The mirror file has a header line added by its source repo; a UCI download gets the same "
              "line prepended."),
    DatasetSpec(
        "balance", "Balance Scale (UCI)",
        (_f("balance/balance-scale.data", "5611187ef7345d807aa8ae22615945ade52a190537c0b1434bd44c3e877c5bb4",
            f"{UCI}/balance-scale/balance-scale.data"),),
        625, 4, 3, "ad113dd42ffa5d02837a23acbd6210dfbd4871086c828ddb450254e5d222eba9",
        label_col=0, openml_id=11,
        uci_page="https://archive.ics.uci.edu/dataset/12/balance+scale", papers=(_COMBO,),
        notes="The 4 attributes are numeric (1-5) and kept numeric."),
    DatasetSpec(
        "car", "Car Evaluation (UCI)",
        (_f("car/car.data", "b703a9ac69f11e64ce8c223c0a40de4d2e9d769f7fb20be5f8f2e8a619893d83",
            f"{UCI}/car/car.data"),),
        1728, 21, 4, "797322baf281f6211260d4f530efa0a346c3a9c37477bb26ef8c59c83dc72831",
        label_col=6, categorical_cols=tuple(range(6)), openml_id=40975,
        uci_page="https://archive.ics.uci.edu/dataset/19/car+evaluation", papers=(_COMBO,)),
    DatasetSpec(
        "nursery", "Nursery (UCI), all 5 classes",
        (_f("nursery/nursery.data", "8e0389c3dd37590248a921c2726d869ee96b817761a35eb8416afa24f31f931d",
            f"{UCI}/nursery/nursery.data"),),
        12960, 27, 5, "99f6ce5184ecb7593f47cac81b82012c443ec21a0bd2ed3829091f0311637a02",
        label_col=8, categorical_cols=tuple(range(8)), openml_id=26,
        uci_page="https://archive.ics.uci.edu/dataset/76/nursery", papers=(_COMBO,)),
    DatasetSpec(
        "yeast", "Yeast (UCI)",
        (_f("yeast/yeast.data", "7cf61776fc04f527f93bf57a327b863893a1225d82df02d457e8950173218258",
            f"{UCI}/yeast/yeast.data"),),
        1484, 8, 10, "4e5f460285e5017d88c2c271472124fb551aca4a4d95151a94ccedd3ce91e325",
        label_col=9, sep=r"\s+", drop_cols=(0,), openml_id=181,
        uci_page="https://archive.ics.uci.edu/dataset/110/yeast", papers=(_COMBO,),
        notes="Column 0 (sequence name) dropped."),
    DatasetSpec(
        "pima", "Pima Indians Diabetes (UCI)",
        (_f("pima/pima-indians-diabetes.data", "06f5b7c2cd7bca686fda4f92eab5f61e7ff6426a9acefa2e3dda04fc54293cf5",
            f"{UCI}/pima-indians-diabetes/pima-indians-diabetes.data"),),
        768, 8, 2, "da64ec2d26fbe74dc6c49a4e1348442203e00a9d170839c88f2a1c8305678967",
        label_col=8, openml_id=37,
        uci_page="https://archive.ics.uci.edu/ml/machine-learning-databases/pima-indians-diabetes/",
        papers=(_THESIS,),
        notes="Zeros that encode missing values (glucose, blood pressure, skin, insulin, BMI) are kept as 0, "
              "as in the thesis, which drops only explicit missing values. UCI has withdrawn this file; "
              "OpenML 37 ('diabetes') is the fallback."),
    DatasetSpec(
        "bupa", "Liver Disorders, BUPA (UCI)",
        (_f("bupa/bupa.data", "a166a3e7a6f4dc41aaaedc59a107e57d8adcaeb8821f0873d756982f1ea74c92",
            f"{UCI}/liver-disorders/bupa.data"),),
        345, 6, 2, "3b23b306633780008af0ac0482469d39fb09bc37cc77ef5c48cf4df2ee5ed036",
        label_col=6,
        openml_id=None,  # OpenML "liver-disorders" (id 8) targets 'drinks', not the selector
        uci_page="https://archive.ics.uci.edu/dataset/60/liver+disorders", papers=(_THESIS,),
        notes="Column 6 ('selector') is the class, as in the thesis; column 5 (drinks) is a feature."),
    DatasetSpec(
        "wdbc", "Breast Cancer Wisconsin, Diagnostic (UCI)",
        (_f("wdbc/wdbc.data", "d606af411f3e5be8a317a5a8b652b425aaf0ff38ca683d5327ffff94c3695f4a",
            f"{UCI}/breast-cancer-wisconsin/wdbc.data"),),
        569, 30, 2, "b49ce222762e119727847146b743149329a7ae653de41ba096fb00fa4c863775",
        label_col=1, drop_cols=(0,), openml_id=1510,
        uci_page="https://archive.ics.uci.edu/dataset/17/breast+cancer+wisconsin+diagnostic", papers=(_THESIS,),
        notes="Column 0 (ID) dropped."),
    DatasetSpec(
        "wpbc", "Breast Cancer Wisconsin, Prognostic (UCI), rows with missing values dropped",
        (_f("wpbc/wpbc.data", "f2bd5ccdb6086fa832370dc043319907430cf6bfcfd3b96a3961a357be345c8e",
            f"{UCI}/breast-cancer-wisconsin/wpbc.data"),),
        194, 33, 2, "6123b30a1d4f59b56d8e25fd2319e395a3c6f49514541c1f29b40cccaab325fb",
        label_col=1, drop_cols=(0,), na_values=("?",), openml_id=None,
        uci_page="https://archive.ics.uci.edu/dataset/16/breast+cancer+wisconsin+prognostic", papers=(_THESIS,),
        notes="Column 0 (ID) dropped; the 4 rows with '?' lymph-node status are dropped (198 -> 194)."),
    DatasetSpec(
        "breastw", "Breast Cancer Wisconsin, Original (UCI), rows with missing values dropped",
        (_f("breastw/breast-cancer-wisconsin.data", "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64",
            f"{UCI}/breast-cancer-wisconsin/breast-cancer-wisconsin.data"),),
        683, 9, 2, "0a087fff4c663577e5043d4aa2d487f29e7be279f5df95d6a1234c668525924a",
        label_col=10, drop_cols=(0,), na_values=("?",), openml_id=15,
        uci_page="https://archive.ics.uci.edu/dataset/15/breast+cancer+wisconsin+original", papers=(_THESIS,),
        notes="Column 0 (ID) dropped; the 16 rows with '?' bare nuclei are dropped (699 -> 683)."),
    DatasetSpec(
        "sonar", "Connectionist Bench, Sonar (UCI)",
        (_f("sonar/sonar.all-data", "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d",
            f"{UCI}/undocumented/connectionist-bench/sonar/sonar.all-data"),),
        208, 60, 2, "4cb41163abb47c553cc3566f1f113c4ec64bcb72bfb22d666cdd12281fedfc73",
        label_col=60, openml_id=40,
        uci_page="https://archive.ics.uci.edu/dataset/151/connectionist+bench+sonar+mines+vs+rocks",
        papers=(_THESIS,)),
    DatasetSpec(
        "echocardiogram", "Echocardiogram (UCI), label alive-at-1, rows with missing values dropped",
        (_f("echocardiogram/echocardiogram.data", "3d7dc4b3daef837f1b3b3c042e561697d6add718a2d6694de824faf1f1e340d4",
            f"{UCI}/echocardiogram/echocardiogram.data"),),
        62, 8, 2, "7e8912091f170d21ea5b2a5d65cd9d2a322854486d68114f57ea9a6e424b40a2",
        label_col=12, drop_cols=(0, 1, 10, 11), na_values=("?",), fix_bad_line=_drop_leading_empty_field,
        openml_id=None,
        uci_page="https://archive.ics.uci.edu/dataset/38/echocardiogram", papers=(_THESIS,),
        notes="Label = alive-at-1 (col 12). Features: age, pericardial-effusion, fractional-shortening, epss, "
              "lvdd, wall-motion-score, wall-motion-index, mult (cols 2-9). survival and still-alive "
              "(cols 0-1) define the label and are dropped, as are name and group (cols 10-11). Rows with a "
              "missing label or feature are dropped. Line 50's stray leading comma is removed."),
    DatasetSpec(
        "cleveland", "Heart Disease, Cleveland processed (UCI), 5 classes, rows with missing values dropped",
        (_f("cleveland/processed.cleveland.data", "a74b7efa387bc9d108d7d0115d831fe9b414b29ae7124f331b622b4efa0427c8",
            f"{UCI}/heart-disease/processed.cleveland.data"),),
        297, 13, 5, "07e1cd11967bb15482d8cf2f60717cb2138ae8652d541d8013eb09bafe253664",
        label_col=13, na_values=("?",),
        openml_id=None,  # OpenML "heart-c" is binarised; no confirmed id for the 5-class table
        uci_page="https://archive.ics.uci.edu/dataset/45/heart+disease", papers=(_THESIS,),
        notes="Label num (0-4); the 6 rows with '?' (ca, thal) are dropped (303 -> 297). "
              "Categorical attributes are kept as their numeric codes, as in the processed file."),
    DatasetSpec(
        "tictactoe", "Tic-Tac-Toe Endgame (UCI)",
        (_f("tictactoe/tic-tac-toe.data", "a996a756484d0cf8cbad1680d823aadbfcff8ae2d78c450e6999362d580301c5",
            f"{UCI}/tic-tac-toe/tic-tac-toe.data"),),
        958, 27, 2, "c88bee2af1e4784deeaa23cf853c0632b608ee3cf07d5cc576d041061f069560",
        label_col=9, categorical_cols=tuple(range(9)), openml_id=50,
        uci_page="https://archive.ics.uci.edu/dataset/101/tic+tac+toe+endgame", papers=(_THESIS,)),
    DatasetSpec(
        "haberman", "Haberman's Survival (UCI)",
        (_f("haberman/haberman.data", "b4b7a32586a5668f9f4d6dc8be9d1bc8cd4822523affb1f6b5bfc350681ef3e2",
            f"{UCI}/haberman/haberman.data"),),
        306, 3, 2, "e68364f047aa854bcb618bab1d30727dff0f314cb9a5b01ca78685131d887592",
        label_col=3, openml_id=43,
        uci_page="https://archive.ics.uci.edu/dataset/43/haberman+s+survival", papers=(_THESIS,)),
    DatasetSpec(
        "german", "Statlog German Credit (UCI german.data), categorical attributes one-hot",
        (_f("german/german.data", "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
            f"{UCI}/statlog/german/german.data"),),
        1000, 61, 2, "a4cf163a61234a981ffc5edc88ca6a478510b867fa1f5107ef28a8c85be6d3de",
        label_col=20, sep=r"\s+", categorical_cols=(0, 2, 3, 5, 6, 8, 9, 11, 13, 14, 16, 18, 19), openml_id=31,
        uci_page="https://archive.ics.uci.edu/dataset/144/statlog+german+credit+data", papers=(_THESIS,),
        notes="Labels 1 = good (700), 2 = bad (300). The 13 qualitative attributes are one-hot encoded."),
    DatasetSpec(
        "letter", "Letter Recognition (UCI), conventional 16000/4000 split",
        (_f("letter/letter-recognition.data", "2b89f3602cf768d3c8355267d2f13f2417809e101fc2b5ceee10db19a60de6e2",
            f"{UCI}/letter-recognition/letter-recognition.data"),),
        20000, 16, 26, "478261f23482861ace6570ff6a50aa0a3d79ee68c6d0b849500d1bb514388463",
        label_col=0, n_train=16000, n_test=4000, openml_id=6,
        uci_page="https://archive.ics.uci.edu/dataset/59/letter+recognition", papers=(_THESIS,),
        notes="The first 16000 rows are the conventional training set (Frey & Slate 1991), recorded as the "
              "predefined split."),
    DatasetSpec(
        "adult", "Adult (UCI), predefined 30162/15060 split after dropping rows with missing values",
        (_f("adult/adult.data", "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
            f"{UCI}/adult/adult.data", role="train"),
         _f("adult/adult.test", "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
            f"{UCI}/adult/adult.test", role="test", skiprows=1)),
        45222, 104, 2, "a80974b113387c5ff0535814011ab3df5b03a395abae7c503f516af4b45d08e5",
        label_col=14, skipinitialspace=True, na_values=("?",), categorical_cols=(1, 3, 5, 6, 7, 8, 9, 13),
        label_map=(("<=50K.", "<=50K"), (">50K.", ">50K")), n_test=15060, openml_id=1590,
        uci_page="https://archive.ics.uci.edu/dataset/2/adult", papers=(_THESIS,),
        notes="Rows with '?' dropped as in the thesis (30162 train, 15060 test). Test labels lose their "
              "trailing '.'. One-hot categories are the values seen in train and test."),
    DatasetSpec(
        "connect4", "Connect-4 (UCI)",
        (_f("connect4/connect-4.data.Z", "14c886b817783ac9b642f42ec78a2e67f727a3d41c94913af8954d454eee2367",
            f"{UCI}/connect-4/connect-4.data.Z",
            content_sha256="063152e6eadbb424c7ef4645df76e493a43812edd9c992400983da4fa54f8cba"),),
        67557, 126, 3, "286f68435945f2863f2e18f8957621d5f8f24e49d2cef4c1480abbf72e47697c",
        label_col=42, categorical_cols=tuple(range(42)), openml_id=40668,
        uci_page="https://archive.ics.uci.edu/dataset/26/connect+4", papers=(_COMBO,),
        notes="Stored Unix-compressed as UCI distributes it; the 42 squares (x/o/b) are one-hot encoded."),
    DatasetSpec(
        "mnist", "MNIST (LeCun et al.), predefined 60000/10000 split",
        tuple(_f(f"mnist/{stem}-idx{d}-ubyte.gz", sha, tuple(f"{m}/{stem}-idx{d}-ubyte.gz" for m in _MNIST_MIRRORS),
                 content_sha256=content, role=role)
              for stem, d, sha, content, role in (
                  ("train-images", 3, "0b367032e93c5d0cea0925647cfdb18614af8ee15f83e6f2fc2ad904a6835971",
                   "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db", "train"),
                  ("train-labels", 1, "1787548bbe0bff1ec2ecdc0ef292b02df999e2d1a6002d27500982c652b17203",
                   "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5", "train"),
                  ("t10k-images", 3, "1a1a05eab793c14bb050b398624a11b0ffd1a2953baed553b1b9bd079e2a20be",
                   "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7", "test"),
                  ("t10k-labels", 1, "b91679a0acfe4ba0e50a2437a903084cba1f5f92592b016a25a7dfd00455798b",
                   "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2", "test"))),
        70000, 784, 10, "582bca0e1485de377a8732898a695eb5465822ff602260e7d659eb8a765c59ad",
        reader="idx", n_test=10000, openml_id=554,
        uci_page="http://yann.lecun.com/exdb/mnist/", papers=(_REBEL,),
        notes="IDX files; the mirror re-gzipped them, so the decompressed sha256 is what is checked. "
              "Pixels are kept as 0-255."),
    DatasetSpec(
        "musk2", "Musk version 2 (UCI clean2, as converted by the 'mil' package)",
        (_f("musk2/musk2.csv", "14040c8891369392f87f4ce8969a20657e615e40e042f02d1a2fe2cabab01717"),),
        6598, 166, 2, "ff9aa5a8009be3c49dbc0bd9608b7e6673997eb818e976f9b6f8b0dbba04c1f5",
        label_col=0, group_col=1,
        openml_id=None,  # OpenML "musk" keeps molecule/conformation names; not the same table
        uci_page="https://archive.ics.uci.edu/dataset/75/musk+version+2", papers=(_THESIS,),
        notes="Not the raw UCI clean2.data (no copy available): a CSV with label (1 = musk) in col 0 and the "
              "molecule (bag) id in col 1, returned as meta['groups']. No download URL: UCI's clean2.data.Z "
              "has another layout."),
]

_VARIANTS = [
    replace(next(s for s in _SPECS if s.name == "ecoli"), name="ecoli5", title="Ecoli (UCI), 5 classes as in CoMBo",
            parsed_sha256="c17df2eb7728e965b14362d83b6b48fcbd4d3bcf51f543c70eb11ea760065293",
            n_rows=327, n_classes=5, drop_labels=("imL", "imS", "omL"), papers=(_COMBO,),
            notes="Column 0 dropped; classes imL, imS and omL (2+2+5 rows) dropped."),
    replace(next(s for s in _SPECS if s.name == "nursery"), name="nursery_s",
            parsed_sha256="36a3c92531fc9d38d53dfe39797cb7755d32198e6a88eaef811f81bfd0b391fc",
            title="Nursery-s (UCI Nursery without the 2 'recommend' rows)", n_rows=12958, n_classes=4,
            drop_labels=("recommend",), notes="The 2 rows of class 'recommend' dropped, as in CoMBo."),
    replace(next(s for s in _SPECS if s.name == "cleveland"), name="cleveland_binary",
            parsed_sha256="a90f87c8fe74320fe1c7365b27ccaae9dcebeb7faac8eff9bbddd4bd6d1d6363",
            title="Heart Disease, Cleveland (UCI), presence (num > 0) vs absence", n_classes=2,
            label_map=((2, 1), (3, 1), (4, 1)),
            notes="Label 1 = num in 1-4, 0 = num 0; the 6 rows with '?' dropped (297 rows: 160/137)."),
    DatasetSpec(
        "german_numeric", "Statlog German Credit (UCI german.data-numeric, 24 numeric attributes)",
        (_f("german/german.data-numeric", "2752b044394958ab6dd193a0b56ca0f0b3a2d8bc7cb8c008e35a5e84bbec02f8",
            f"{UCI}/statlog/german/german.data-numeric"),),
        1000, 24, 2, "cc108234962a6caff10e9f429ad0c0bb4686fddb448c23cc677bdb79ea4bc295",
        label_col=24, sep=r"\s+", openml_id=None,
        uci_page="https://archive.ics.uci.edu/dataset/144/statlog+german+credit+data", papers=(_THESIS,),
        notes="The 24-attribute numeric version the thesis uses (Table V.1). Labels 1 = good, 2 = bad."),
]

_LETTERS = tuple(chr(c) for c in range(ord("A"), ord("Z") + 1))
_LETTER = next(s for s in _SPECS if s.name == "letter")
_THESIS_LETTER = ("Binary version of [18] (Caruana et al. 2004) with the thesis' sizes (Sec. III.G.3): 4000 "
                  "training and 16000 test rows; the training rows are the file's first 4000 (our choice: the "
                  "thesis does not say which).")
_VARIANTS += [
    replace(_LETTER, name="letter_p1", title="LETTER.p1: letter 'O' (1) vs the other 25 letters (0), 4000/16000",
            parsed_sha256="bfeae4b35d0f9ac66020cbb642add6bf310527abf9cb29f2ed1db71cca940eaa", n_classes=2, n_train=4000, n_test=16000,
            label_map=tuple((c, int(c == "O")) for c in _LETTERS), notes=_THESIS_LETTER),
    replace(_LETTER, name="letter_p2", title="LETTER.p2: letters N-Z (1) vs A-M (0), 4000/16000",
            parsed_sha256="6a4fc80416989a27e3631c271527a077fd0041c6ef24427947d9aff215ad172c", n_classes=2, n_train=4000, n_test=16000,
            label_map=tuple((c, int(c >= "N")) for c in _LETTERS), notes=_THESIS_LETTER),
]


def _ordinal(base: str, parsed_sha256: str, n_attributes: int) -> DatasetSpec:
    """Copy of categorical set ``base`` with its categorical attributes as ordinal codes (one column each)."""
    spec = next(s for s in _SPECS + _VARIANTS if s.name == base)
    return replace(
        spec, name=f"{base}_ord", title=f"{spec.title}, categorical attributes as ordinal codes",
        encoding="ordinal", n_features=n_attributes, parsed_sha256=parsed_sha256, papers=(_OBRIEN,),
        notes=f"Ordinal codes of the categorical attributes, for categorical naive Bayes (O'Brien et al. 2008); "
              f"same rows and labels as {base}. One column per attribute; the code is the index of the value "
              f"among the attribute's observed values sorted as strings (the order of {base}'s one-hot columns), "
              f"not the attribute's semantic order.")


_VARIANTS += [
    _ordinal("car", "c3056d69759c7721e9a17aa84844f32f63db6226ef969f1c56e6c75d42d02dbb", 6),
    _ordinal("nursery", "3eee493f82c4470498ccd40d0e127bd63bb6d13f75f192c319a29e3e83a1a46b", 8),
    _ordinal("connect4", "aee7fa4dd0c5538b90631304859fb40c177b190a69273ad1c4436b286dd1775a", 42),
    _ordinal("nursery_s", "158d39307d0376e0f4c72c5ce94b88220ed0963fa62491ab573ee118ec2fc346", 8),
]


def _two_gaussians_pool() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thesis Sec. III.G.1 pool: 50000 training rows per class (seed 0), then 10000 test rows (5000 per class, seed 1)."""
    X_train, y_train = two_gaussians(50_000, random_state=0)
    X_test, y_test = two_gaussians(5_000, random_state=1)
    mask = np.repeat([False, True], [len(y_train), len(y_test)])
    return np.concatenate([X_train, X_test]), np.concatenate([y_train, y_test]), mask


def _gaussians_1d() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thesis Sec. VI.E.1 problem: N(-1, 1) (label 0) and N(+1, 1) (label 1); 10000 training rows per class
    (seed 0), then 2000 test rows (1000 per class, seed 1)."""
    parts = [two_gaussians(n, means=((-1.0,), (1.0,)), labels=(0, 1), random_state=seed)
             for n, seed in ((10_000, 0), (1_000, 1))]
    mask = np.repeat([False, True], [len(parts[0][1]), len(parts[1][1])])
    return np.concatenate([parts[0][0], parts[1][0]]), np.concatenate([parts[0][1], parts[1][1]]), mask


_SYNTHETIC = [
    DatasetSpec(
        "two_gaussians", "Two Gaussian classes in the plane, Bayes error 0.30 (thesis Sec. III.G.1)", (),
        110_000, 2, 2, "0e67479347991db65e3d6d4906c5b2cfcb03bd85ef4a38b654293a176f2066b6", reader="synthetic", generator=_two_gaussians_pool, n_test=10_000, papers=(_THESIS,),
        notes="Identity covariance, means (0, 0) and (0.7416, 0.7416), labels -1/1. A fixed pool: 50000 training "
              "rows per class and a 10000-row test set; experiments draw n training rows per class from the pool "
              "per trial with the protocol option train_size: n."),
    DatasetSpec(
        "gaussians_1d", "Two unit-variance Gaussian classes on the line at -1 and +1 (thesis Sec. VI.E.1)", (),
        22_000, 1, 2, "f7615ce748fdc686b1fe86f2eb61505c2a876e90696f810ccbdac171cca0641e", reader="synthetic",
        generator=_gaussians_1d, n_test=2_000, papers=(_THESIS,),
        notes="Labels 0 (mean -1) and 1 (mean +1); P(1|x) = 1/(1 + e^{-2x}) (VI.55).  10000 training rows per "
              "class and a 2000-row test set (Figure VI.2 uses the training part; its zero crossings do not "
              "depend on the test rows)."),
]

#: parsed sha256 of rebel_synth_0..9 (``rebel_mixture_2d(random_state=i)``)
_REBEL_SYNTH_SHA = (
    "a2ee645c08967471d87f21928c42cb9cd8c2927db2dca4515db53dc716990a92",
    "724678c5b14dbfc9e9c8380eb502eb061525713228c14df0b3a226c157785d7f",
    "ef77e79e3e3440bbcc8179748c0ca01801104da360af9773da37c16c6a1a4528",
    "96b7b8b3b5c5ac88aa73f8f96736481eee511b103c89bcbea3e485f293daf894",
    "bebc379f91b131f78e747a723ab886644935b86e8cb2a012e5be7ef15fefa7a0",
    "881ebd915546013e8070f540b2f33f24ca8468c879b4fb4edb1e9e9fa4e27343",
    "2d0f8838325230a7bfb6f217125c3fef0ddd8a09037058717b64c124ebe6febb",
    "7b5378c87339b27f8db9b8581604702f65ff01511bb4e6f64fada285b9bfea0f",
    "f651f6702f9bc874d83645605ea287b176814433c862ca89b61eafa0ad0d18b9",
    "90e34ea969c491f399fe1fd1bb26e7259e03fbf5e0aecf6dbf4ab5043828d2e1",
)
_SYNTHETIC += [
    DatasetSpec(
        f"rebel_synth_{i}", f"REBEL Fig. 3 random 2-D Gaussian mixture #{i} (4 classes x 3 clusters), 1000/500", (),
        1500, 2, 4, sha, reader="synthetic", generator=functools.partial(rebel_mixture_2d, random_state=i),
        n_test=500, papers=(_REBEL,),
        notes="Appel et al. 2016 Sec. 5 give only 'a mixture of multiple Gaussian clusters'; the mixture is our "
              "choice (csrepro.data.synthetic.rebel_mixture_2d, experiments/rebel/NOTES.md 'Synthetic data "
              "(Fig. 3)'). Predefined split: the first 1000 rows train, the last 500 test.")
    for i, sha in enumerate(_REBEL_SYNTH_SHA)
]

_SKLEARN = [
    DatasetSpec(name, title, (), n, d, k, fp, reader="sklearn", sklearn_loader=loader,
                notes="Bundled with scikit-learn.")
    for name, title, loader, n, d, k, fp in (
        ("sk_digits", "scikit-learn digits (8x8 UCI optdigits test subset)", "load_digits", 1797, 64, 10,
         "a44692a4963fa04dc7f3e560db2a4b1ee7781cf56d388d2400e1db40263f228a"),
        ("sk_breast_cancer", "scikit-learn breast_cancer (UCI wdbc)", "load_breast_cancer", 569, 30, 2,
         "210f47c42f0f7c8a72e132296ce88217465592ca6568642124d6d18438ccb1ea"),
        ("sk_wine", "scikit-learn wine (UCI wine)", "load_wine", 178, 13, 3,
         "9fe5a0b0706936af8ed1e64868de80ab4884b6ef4b7a4dc4d6f747b2d56c632b"),
        ("sk_iris", "scikit-learn iris (UCI iris)", "load_iris", 150, 4, 3,
         "2ecb073cbb4dc4b28a42058688193655df7cea328de0dd86d94a734d3b6b864c"),
    )
]

DATASETS: dict[str, DatasetSpec] = {s.name: s for s in _SPECS + _VARIANTS + _SYNTHETIC + _SKLEARN}


def list_datasets() -> list[str]:
    """All registered dataset ids, sorted."""
    return sorted(DATASETS)


def get_spec(name: str) -> DatasetSpec:
    """The spec of dataset ``name``; the error lists the valid ids."""
    try:
        return DATASETS[name]
    except KeyError:
        raise UnknownDatasetError(f"unknown dataset {name!r}; choose one of {list_datasets()}") from None
