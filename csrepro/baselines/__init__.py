"""Modern baselines and peers, for comparison with the papers' methods.

:mod:`csrepro.baselines.gbdt`: gradient-boosted trees from scikit-learn, LightGBM or XGBoost
(:class:`GradientBoostingPeer`, cost-blind + the minimum-expected-cost rule or cost-weighted) and
:class:`TunedCalibratedBayesClassifier` (depth and rounds on validation, then calibration + the rule; issue 21).
:mod:`csrepro.baselines.logistic`: :class:`MultinomialLogisticRegression`.
:mod:`csrepro.baselines.reductions`: :class:`CostSensitiveReduction`, weighted all-pairs, filter tree and csoaa over a
base learner (issue 20).
"""

from .gbdt import LIBRARIES, GradientBoostingPeer, TunedCalibratedBayesClassifier, cost_weights
from .logistic import MultinomialLogisticRegression
from .reductions import CostSensitiveReduction, example_costs

__all__ = [
    "LIBRARIES",
    "CostSensitiveReduction",
    "GradientBoostingPeer",
    "MultinomialLogisticRegression",
    "TunedCalibratedBayesClassifier",
    "cost_weights",
    "example_costs",
]
