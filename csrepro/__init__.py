"""csrepro: reproduce and compare cost-sensitive classification methods.

Every public scikit-learn estimator of the library is importable from here (``from csrepro import
MCBoostClassifier``); each is loaded from its module on first use, so ``import csrepro.costs`` stays light.
tests/test_estimators.py checks ``__all__`` against the estimators defined in the package.
"""

import importlib

__version__ = "0.1.0"

#: exported estimator -> the module defining it
_ESTIMATORS = {
    "AdaBoostClassifier": "csrepro.boosting.binary",
    "LogitBoostClassifier": "csrepro.boosting.binary",
    "RealBoostClassifier": "csrepro.boosting.binary",
    "CSAdaBoostClassifier": "csrepro.boosting.cost_sensitive",
    "CSLogitBoostClassifier": "csrepro.boosting.cost_sensitive",
    "CSRealBoostClassifier": "csrepro.boosting.cost_sensitive",
    "AdaC1Classifier": "csrepro.boosting.cost_sensitive_baselines",
    "AdaC2Classifier": "csrepro.boosting.cost_sensitive_baselines",
    "AdaC3Classifier": "csrepro.boosting.cost_sensitive_baselines",
    "AdaCostClassifier": "csrepro.boosting.cost_sensitive_baselines",
    "CSB0Classifier": "csrepro.boosting.cost_sensitive_baselines",
    "CSB1Classifier": "csrepro.boosting.cost_sensitive_baselines",
    "CSB2Classifier": "csrepro.boosting.cost_sensitive_baselines",
    "CanonicalGradientBoostClassifier": "csrepro.boosting.margin",
    "SavageBoostClassifier": "csrepro.boosting.margin",
    "TangentBoostClassifier": "csrepro.boosting.margin",
    "MCBoostClassifier": "csrepro.boosting.mcboost",
    "REBELClassifier": "csrepro.boosting.rebel",
    "AdaBoostMHClassifier": "csrepro.boosting.multiclass_baselines",
    "OneVsAllAdaBoostClassifier": "csrepro.boosting.multiclass_baselines",
    "AOSOLogitBoostClassifier": "csrepro.boosting.aoso",
    "AdaBoostECCClassifier": "csrepro.boosting.ecc",
    "CWBoostClassifier": "csrepro.boosting.cwboost",
    "AdaBoostMMClassifier": "csrepro.boosting.combo",
    "CoMBoClassifier": "csrepro.boosting.combo",
    "SMOTEBoostClassifier": "csrepro.boosting.smoteboost",
    "BayesRuleClassifier": "csrepro.decision.bayes_rule",
    "CalibratedBayesClassifier": "csrepro.decision.bayes_rule",
    "PlattCalibrated": "csrepro.probability.calibration",
    "DetectionRateClassifier": "csrepro.selection.detection_rate",
    "CostSensitiveSVC": "csrepro.svm.cs_svm",
    "CostRatioSVC": "csrepro.selection.svm",
    "DetectionRateSVC": "csrepro.selection.svm",
    "RoundsOnValidation": "csrepro.selection.rounds",
    "PartitionMatrixClassifier": "csrepro.decision.partition",
    "LachicheFlachClassifier": "csrepro.decision.partition",
    "MossmanClassifier": "csrepro.decision.partition",
    "MetaCostClassifier": "csrepro.decision.metacost",
    "QuantizedNaiveBayes": "csrepro.probability.naive_bayes",
    "RegularizedDiscriminantAnalysis": "csrepro.probability.rda",
    "CostSensitiveReduction": "csrepro.baselines.reductions",
    "GradientBoostingPeer": "csrepro.baselines.gbdt",
    "MultinomialLogisticRegression": "csrepro.baselines.logistic",
    "TunedCalibratedBayesClassifier": "csrepro.baselines.gbdt",
}

__all__ = sorted(_ESTIMATORS)


def __getattr__(name):
    if name in _ESTIMATORS:
        return getattr(importlib.import_module(_ESTIMATORS[name]), name)
    raise AttributeError(f"module 'csrepro' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *__all__])
