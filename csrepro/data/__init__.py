"""Datasets: registry, verified loaders, evaluation protocols and synthetic generators."""

from csrepro.data.loaders import Dataset, load_dataset
from csrepro.data.protocols import make_splits
from csrepro.data.registry import DATASETS, get_spec, list_datasets

__all__ = ["DATASETS", "Dataset", "get_spec", "list_datasets", "load_dataset", "make_splits"]
