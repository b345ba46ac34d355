"""scikit-learn parameter validation of every csrepro estimator (``_parameter_constraints``).

The harness validates each experiment's parameters before any trial with
:func:`csrepro.methods.validate_params`; ``fit`` runs the same validation (``_fit_context``).
"""

import re

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.utils._param_validation import InvalidParameterError, StrOptions

import csrepro
from csrepro import methods
from csrepro.boosting.binary import AdaBoostClassifier, LogitBoostClassifier
from csrepro.boosting.cost_sensitive import CSAdaBoostClassifier, CSLogitBoostClassifier
from csrepro.boosting.margin import CanonicalGradientBoostClassifier, SavageBoostClassifier, TangentBoostClassifier
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.boosting.rebel import REBELClassifier
from csrepro.decision.bayes_rule import BayesRuleClassifier
from csrepro.probability.calibration import PlattCalibrated
from csrepro.decision.metacost import MetaCostClassifier
from csrepro.selection.detection_rate import DetectionRateClassifier
from csrepro.selection.rounds import RoundsOnValidation
from csrepro.selection.svm import CostRatioSVC, DetectionRateSVC
from csrepro.svm import CostSensitiveSVC

COST = np.array([[0.0, 1.0], [5.0, 0.0]])


ESTIMATORS = [getattr(csrepro, name) for name in csrepro.__all__]  # every public estimator: tests/test_estimators.py
#: the smallest valid arguments of the estimators whose defaults are refused at fit
VALID_ARGS = {PlattCalibrated: {"estimator": AdaBoostClassifier(n_estimators=2)},
              DetectionRateClassifier: {"estimator": LogisticRegression()},
              CostRatioSVC: {"cost_matrix": COST},
              BayesRuleClassifier: {"estimator": LogisticRegression()},
              RoundsOnValidation: {"estimator": REBELClassifier(n_estimators=2)},
              MetaCostClassifier: {"estimator": LogisticRegression()}}


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    return X, (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)


def test_the_walk_finds_the_estimators():
    assert {MCBoostClassifier, CostSensitiveSVC, DetectionRateSVC, CostRatioSVC, DetectionRateClassifier,
            PlattCalibrated, CSAdaBoostClassifier, TangentBoostClassifier, LogitBoostClassifier} <= set(ESTIMATORS)
    assert len(ESTIMATORS) >= 22


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_has_a_constraint(cls):
    """Fails when a parameter is added without a constraint (scikit-learn would not validate it) or a
    constraint names no parameter."""
    assert set(cls._parameter_constraints) == set(cls().get_params(deep=False))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_valid_defaults_pass(cls):
    methods.validate_params(cls(**VALID_ARGS.get(cls, {})))


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if hasattr(c, "WEAK_LEARNERS")], ids=lambda c: c.__name__)
def test_weak_learner_options_are_the_class_learners(cls):
    """A booster that narrows WEAK_LEARNERS must narrow its constraint too."""
    options = [c for c in cls._parameter_constraints["weak_learner"] if isinstance(c, StrOptions)]
    assert [c.options for c in options] == [set(cls.WEAK_LEARNERS)]


@pytest.mark.parametrize("name", methods.method_names())
def test_every_method_id_validates(name):
    costs = COST if methods.get_method(name).cost_sensitive else None  # a cost-blind id would warn
    methods.validate_params(methods.make_estimator(name, cost_matrix=costs, random_state=0))


BAD = [
    (MCBoostClassifier, {"n_estimators": -5}),
    (MCBoostClassifier, {"n_estimators": 0}),
    (MCBoostClassifier, {"n_estimators": "abc"}),
    (MCBoostClassifier, {"n_estimators": 2.5}),
    (MCBoostClassifier, {"decision": "bays"}),
    (MCBoostClassifier, {"loss": "hinge"}),
    (MCBoostClassifier, {"line_search_tol": 0.0}),
    (MCBoostClassifier, {"line_search_max_iter": 0}),
    (MCBoostClassifier, {"cost_matrix": "0-1"}),
    (AdaBoostClassifier, {"n_estimators": 0}),
    (AdaBoostClassifier, {"weak_learner": "histogram"}),
    (AdaBoostClassifier, {"weak_learner": object()}),
    (AdaBoostClassifier, {"max_bins": 1}),
    (AdaBoostClassifier, {"hist_bins": 0}),
    (AdaBoostClassifier, {"smoothing": 0.0}),
    (AdaBoostClassifier, {"random_state": "seed"}),
    (LogitBoostClassifier, {"z_max": 0.0}),
    (LogitBoostClassifier, {"z_max": np.inf}),
    (CSAdaBoostClassifier, {"C1": -1.0}),
    (CSAdaBoostClassifier, {"C2": 0.0}),
    (CSAdaBoostClassifier, {"class_balanced": "yes"}),
    (CSLogitBoostClassifier, {"weak_learner": "histograms"}),
    (CSLogitBoostClassifier, {"newton_weights": 1}),
    (CanonicalGradientBoostClassifier, {"loss": "exponential"}),
    (CanonicalGradientBoostClassifier, {"a": 0.0}),
    (CanonicalGradientBoostClassifier, {"output": "x"}),
    (CanonicalGradientBoostClassifier, {"step": "x"}),
    (SavageBoostClassifier, {"weighting": "x"}),
    (TangentBoostClassifier, {"weights": "x"}),
    (CostSensitiveSVC, {"variant": "cost"}),
    (CostSensitiveSVC, {"kernel": "poly"}),
    (CostSensitiveSVC, {"C": 0.0}),
    (CostSensitiveSVC, {"C": np.inf}),
    (CostSensitiveSVC, {"C1": -2.0}),
    (CostSensitiveSVC, {"gamma": "wide"}),
    (CostSensitiveSVC, {"gamma": 0.0}),
    (CostSensitiveSVC, {"threshold": np.nan}),
    (CostSensitiveSVC, {"tol": 0.0}),
    (CostSensitiveSVC, {"max_iter": -1}),
    (PlattCalibrated, {"estimator": None}),
    (PlattCalibrated, {"estimator": "svm"}),
    (PlattCalibrated, {"cv": 1}),
    (DetectionRateClassifier, {"estimator": None}),
    (BayesRuleClassifier, {"estimator": None}),
    (BayesRuleClassifier, {"estimator": LinearSVC()}),  # no predict_proba
    (RoundsOnValidation, {"param_grid": "max_depth"}),  # a grid is a dict of lists
    (RoundsOnValidation, {"criterion": "accuracy"}),
    (RoundsOnValidation, {"val_size": 1.5}),
    (DetectionRateClassifier, {"target_detection_rate": 0.0}),
    (DetectionRateClassifier, {"target_detection_rate": 1.5}),
    (DetectionRateClassifier, {"positive": "majority"}),
    (DetectionRateClassifier, {"cv": 1}),
    (DetectionRateClassifier, {"param_grid": "C"}),
    (DetectionRateSVC, {"variant": "cost"}),
    (DetectionRateSVC, {"cv": 1}),
    (DetectionRateSVC, {"cv": "leave-one-out"}),
    (DetectionRateSVC, {"target_detection_rate": 1.5}),
    (DetectionRateSVC, {"positive": "majority"}),
    (DetectionRateSVC, {"C_grid": 3.0}),
    (DetectionRateSVC, {"random_state": np.random.RandomState(0)}),  # the fold seed goes to np.random.default_rng
    (CostRatioSVC, {"cost_matrix": None}),
    (CostRatioSVC, {"gamma": -1.0}),
]


# ids without memory addresses ("<object object at 0x...>"): pytest-xdist workers must collect the same ids
@pytest.mark.parametrize("cls, bad", BAD, ids=[f"{c.__name__}-{k}={re.sub(' at 0x[0-9a-fA-F]+', '', repr(v))}"
                                               for c, b in BAD for k, v in b.items()])
def test_bad_parameters_raise_before_any_work(cls, bad):
    """validate_params (config time) and fit raise scikit-learn's one-line error naming the parameter."""
    est = cls(**{**VALID_ARGS.get(cls, {}), **bad})
    (param,) = bad
    match = rf"^The '{param}' parameter of {cls.__name__} must be .* Got .* instead\.$"
    with pytest.raises(InvalidParameterError, match=match):
        methods.validate_params(est)
    X, y = _data()
    with pytest.raises(InvalidParameterError, match=match):
        est.fit(X, y)


def test_the_message_is_scikit_learns():
    with pytest.raises(InvalidParameterError) as err:
        MCBoostClassifier(n_estimators=-5).fit(*_data())
    assert str(err.value) == ("The 'n_estimators' parameter of MCBoostClassifier must be an int in the range "
                              "[1, inf). Got -5 instead.")


def test_validation_recurses_into_inner_estimators():
    bad_inner = MCBoostClassifier(n_estimators=0)
    outer = DetectionRateClassifier(bad_inner, {"decision": ["argmax"]})
    outer._validate_params()  # the outer parameters are valid: the inner estimator has fit and decision_function
    with pytest.raises(InvalidParameterError, match="'n_estimators' parameter of MCBoostClassifier"):
        methods.validate_params(outer)
    with pytest.raises(InvalidParameterError, match="'weak_learner' parameter of AdaBoostClassifier"):
        methods.validate_params(PlattCalibrated(AdaBoostClassifier(weak_learner="line")))
    two_deep = DetectionRateClassifier(PlattCalibrated(AdaBoostClassifier(n_estimators=0)))
    with pytest.raises(InvalidParameterError, match="'n_estimators' parameter of AdaBoostClassifier"):
        methods.validate_params(two_deep)
    # a method id's inner parameters, as the config check builds them
    dr = methods.make_estimator("adaboost_platt_dr", random_state=0, n_estimators=0)  # cost-blind: no matrix
    with pytest.raises(InvalidParameterError, match="'n_estimators' parameter of AdaBoostClassifier"):
        methods.validate_params(dr)


@pytest.mark.parametrize("outer", [DetectionRateClassifier(AdaBoostClassifier(n_estimators=0), cv=2),
                                   PlattCalibrated(AdaBoostClassifier(n_estimators=0), cv=2)],
                         ids=["DetectionRateClassifier", "PlattCalibrated"])
def test_meta_estimators_fit_validates_the_inner_estimator(outer):
    """Their fit does not skip nested validation: the inner estimator's fit checks its parameters.  (Inside
    CalibratedClassifierCV, scikit-learn's cross_val_predict puts its own name in the message.)"""
    with pytest.raises(InvalidParameterError, match=r"'n_estimators' parameter of \w+ must be an int in the range "
                                                    r"\[1, inf\)\. Got 0 instead"):
        outer.fit(*_data())


def test_validation_covers_each_point_of_an_inner_param_grid():
    """A ``_dr`` method's grid values are checked before any work, as the inner fit would check them."""
    grid = DetectionRateClassifier(AdaBoostClassifier(), {"n_estimators": [5, -1]})
    with pytest.raises(InvalidParameterError, match="'n_estimators' parameter of AdaBoostClassifier.*Got -1"):
        methods.validate_params(grid)
    methods.validate_params(DetectionRateClassifier(AdaBoostClassifier(), {"n_estimators": [5, 10]}))
