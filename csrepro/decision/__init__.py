"""Decisions from class-probability estimates (O'Brien, Gupta & Gray 2008; issue 20).

:mod:`csrepro.decision.rules`: eq. (1), the minimum-expected-cost rule (:func:`decide`, the library's one copy),
the equal-risk point (Property 2), Mossman's rule (3) and a partition matrix for it (13).
:mod:`csrepro.decision.bayes_rule`: the rule over any probability model (:class:`BayesRuleClassifier`) and over
calibrated probabilities (:class:`CalibratedBayesClassifier`).  :mod:`csrepro.decision.partition`: the exact greedy
partition-matrix search (eq. 12, Sec. 5.1) and the estimators :class:`PartitionMatrixClassifier`,
:class:`LachicheFlachClassifier`, :class:`MossmanClassifier`.  :mod:`csrepro.decision.metacost`:
:class:`MetaCostClassifier` (Domingos 1999).
"""

from .bayes_rule import BayesRuleClassifier, CalibratedBayesClassifier
from .metacost import MetaCostClassifier
from .partition import (
    LachicheFlachClassifier,
    MossmanClassifier,
    PartitionMatrixClassifier,
    learn_lf_weights,
    learn_mossman_thresholds,
    learn_partition,
    line_search,
    nstar,
    training_cost,
    update_partition,
)
from .rules import decide, equal_risk_point, expected_costs, mossman_partition_matrix, mossman_rule

__all__ = [
    "BayesRuleClassifier",
    "CalibratedBayesClassifier",
    "LachicheFlachClassifier",
    "MetaCostClassifier",
    "MossmanClassifier",
    "PartitionMatrixClassifier",
    "decide",
    "equal_risk_point",
    "expected_costs",
    "learn_lf_weights",
    "learn_mossman_thresholds",
    "learn_partition",
    "line_search",
    "mossman_partition_matrix",
    "mossman_rule",
    "nstar",
    "training_cost",
    "update_partition",
]
