"""Every public estimator of csrepro: found by walking the package, exported by ``csrepro``, and passing
scikit-learn's estimator checks."""

import importlib
import inspect
import pkgutil

import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

import csrepro
from csrepro.baselines import GradientBoostingPeer
from csrepro.boosting.binary import AdaBoostClassifier
from csrepro.boosting.rebel import REBELClassifier
from csrepro.probability.naive_bayes import QuantizedNaiveBayes


def _public_estimators() -> dict:
    """name -> class: the BaseEstimator subclasses defined in a csrepro module whose name has no leading '_'
    (``__main__`` modules are scripts and are not imported)."""
    found = {}
    for info in pkgutil.walk_packages(csrepro.__path__, "csrepro."):
        if info.name.endswith(".__main__"):
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if (inspect.isclass(cls) and issubclass(cls, BaseEstimator) and cls.__module__ == module.__name__
                    and not cls.__name__.startswith("_")):
                assert found.setdefault(cls.__name__, cls) is cls, f"two estimators named {cls.__name__}"
    return found


ESTIMATORS = _public_estimators()

#: constructor arguments of the checked instances (one instance per entry), for speed or because they are
#: required; a class not listed is checked as constructed by default
CHECKED_WITH = {
    "AdaBoostClassifier": [{"n_estimators": 5}],
    "RealBoostClassifier": [{"n_estimators": 5}],
    "LogitBoostClassifier": [{"n_estimators": 5, "weak_learner": "tree4"}],
    "CSAdaBoostClassifier": [{"C1": 2.0, "n_estimators": 5}],
    "CSRealBoostClassifier": [{"C1": 2.0, "n_estimators": 5}],
    "CSLogitBoostClassifier": [{"C1": 2.0, "n_estimators": 5}],
    **{name: [{"C1": 2.0, "n_estimators": 4}] for name in ("CSB0Classifier", "CSB1Classifier", "CSB2Classifier",
                                                            "AdaC1Classifier", "AdaC2Classifier", "AdaC3Classifier",
                                                            "AdaCostClassifier")},
    "PlattCalibrated": [{"estimator": AdaBoostClassifier(n_estimators=3)}],
    "CanonicalGradientBoostClassifier": [{"n_estimators": 8},
                                         {"loss": "canonical_laplacian", "a": 2.0, "n_estimators": 8,
                                          "weak_learner": "stump"}],
    "SavageBoostClassifier": [{"n_estimators": 8}],
    "TangentBoostClassifier": [{"n_estimators": 8},
                               {"n_estimators": 8, "weights": "gauss_newton", "weak_learner": "tree4"}],
    "MCBoostClassifier": [{"n_estimators": 5}],
    **{name: [{"n_estimators": 5}] for name in ("OneVsAllAdaBoostClassifier", "REBELClassifier")},
    "AdaBoostMHClassifier": [{"n_estimators": 5}, {"n_estimators": 5, "predictions": "discrete"}],
    "AdaBoostECCClassifier": [{"n_estimators": 5}],
    "AOSOLogitBoostClassifier": [{"n_estimators": 5}],
    "CWBoostClassifier": [{"n_estimators": 8}],
    "AdaBoostMMClassifier": [{"n_estimators": 5}],
    "CoMBoClassifier": [{"n_estimators": 5}],
    "SMOTEBoostClassifier": [{"n_estimators": 5, "random_state": 0}],
    "CostSensitiveSVC": [{"variant": "cs", "C1": 3.0, "C_minus1": 1.5}, {"variant": "bm", "C1": 3.0, "C_minus1": 1.5}],
    # cv=2: the checks' smallest training sets (10 rows, 3 of one class) have too few rows for 5 stratified
    # folds, which fit refuses with an error naming the fix.  AdaBoost's discrete scores tie with the
    # threshold, where predict and decision_function must still agree.
    "DetectionRateClassifier": [{"estimator": LogisticRegression(), "param_grid": {"C": [1.0]},
                                 "target_detection_rate": 0.8, "cv": 2},
                                {"estimator": AdaBoostClassifier(n_estimators=3), "cv": 2}],
    "DetectionRateSVC": [{"cv": 2}],
    "RoundsOnValidation": [{"estimator": REBELClassifier(n_estimators=4), "val_size": 0.3}],
    "BayesRuleClassifier": [{"estimator": REBELClassifier(n_estimators=4)}],
    "CostRatioSVC": [{"cost_matrix": [[0, 1], [5, 0]], "cv": 2}],
    # O'Brien et al. 2008: the checks' tiny classes need few inner folds; MetaCost refuses estimator=None at fit
    **{name: [{"cv": 3}] for name in ("PartitionMatrixClassifier", "LachicheFlachClassifier", "MossmanClassifier")},
    "MetaCostClassifier": [{"estimator": QuantizedNaiveBayes(), "n_resamples": 3, "random_state": 0}],
    "CalibratedBayesClassifier": [{"cv": 2}, {"method": "sigmoid", "cv": 2}],
    "CostSensitiveReduction": [{"reduction": "filter_tree"}],  # wap and csoaa need the peers extra
    # issue 21's baselines: few rounds for speed; LightGBM and XGBoost are the bench extra (in dev too)
    "GradientBoostingPeer": [{"n_estimators": 5, "random_state": 0},
                             {"library": "lightgbm", "n_estimators": 5, "random_state": 0},
                             {"library": "xgboost", "n_estimators": 5, "weighting": "cost", "random_state": 0}],
    "TunedCalibratedBayesClassifier": [{"estimator": GradientBoostingPeer(n_estimators=4), "param_grid":
                                        {"max_depth": [1, 2]}, "val_size": 0.3, "cv": 2, "random_state": 0}],
}


def test_checked_configurations_name_public_estimators():
    assert set(CHECKED_WITH) <= set(ESTIMATORS)


def test_package_exports_every_public_estimator():
    assert sorted(csrepro.__all__) == sorted(ESTIMATORS)
    for name, cls in ESTIMATORS.items():
        assert getattr(csrepro, name) is cls


@parametrize_with_checks([ESTIMATORS[name](**kwargs) for name in sorted(ESTIMATORS)
                          for kwargs in CHECKED_WITH.get(name, [{}])],
                         # a learned decision rule is not the argmax of predict_proba (each class says why)
                         expected_failed_checks=lambda est: getattr(type(est), "_expected_failed_checks", {}))
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_missing_attribute_of_the_package_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'MCBoost'"):
        csrepro.MCBoost  # noqa: B018
