"""Boosting algorithms; each is a scikit-learn classifier."""

from csrepro.boosting.mcboost import MCBoostClassifier

__all__ = ["MCBoostClassifier"]
