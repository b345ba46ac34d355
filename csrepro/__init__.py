"""csrepro: reproduce and compare cost-sensitive classification methods."""

__version__ = "0.1.0"
