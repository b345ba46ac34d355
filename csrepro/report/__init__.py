"""Reports: published vs reproduced tables, comparison.csv, figures and FIDELITY.md (``python -m csrepro.report``)."""

from csrepro.report.compare import tolerance, within

__all__ = ["tolerance", "within"]
