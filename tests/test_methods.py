"""The method registry: each id's entry and what it supports, read off the estimator it builds."""

import numpy as np
import pytest

from csrepro import methods
from csrepro.probability.calibration import PlattCalibrated
from csrepro.selection.detection_rate import DetectionRateClassifier

COST = np.array([[0.0, 1.0], [5.0, 0.0]])


@pytest.mark.parametrize("name", methods.method_names())
def test_every_entry_describes_the_estimator_it_builds(name):
    spec = methods.get_method(name)
    est = methods.make_estimator(name, cost_matrix=COST if spec.cost_sensitive else None, random_state=0)
    assert type(est) is spec.estimator_class and spec.source and spec.binary
    assert spec.multiclass == methods.supports_multiclass(est)
    probe_costs = methods.PROBE_COST if spec.cost_sensitive else None  # 0-1 costs: REBEL's predict_proba exists
    assert spec.predict_proba == hasattr(methods.make_estimator(name, cost_matrix=probe_costs), "predict_proba")
    assert spec.params == methods.method_params(name, COST)
    assert not set(spec.params) & set(spec.fixed)  # a fixed parameter is not a config field
    # a cost-sensitive id takes the matrix; an id without the parameter is cost-blind
    assert spec.takes_cost_matrix or not spec.cost_sensitive
    assert spec.takes_cost_matrix == ("cost_matrix" in est.get_params(deep=False))


@pytest.mark.parametrize("name", [n for n in methods.method_names() if not methods.get_method(n).cost_sensitive])
def test_a_cost_matrix_given_to_a_cost_blind_id_warns_and_is_validated(name):
    """Issue 28: never silence.  The warning names the id; a bad matrix is an error naming the problem."""
    with pytest.warns(methods.CostBlindWarning, match=f"method '{name}' is cost-blind"):
        est = methods.make_estimator(name, cost_matrix=COST, random_state=0)
    assert est.get_params(deep=False).get("cost_matrix", None) is (COST if methods.get_method(name).takes_cost_matrix
                                                                  else None)
    with pytest.raises(ValueError, match="is not finite"):
        methods.make_estimator(name, cost_matrix=[[0.0, np.nan], [1.0, 0.0]])
    with pytest.raises(ValueError, match="must be square"):
        methods.make_estimator(name, cost_matrix=np.zeros((2, 3)))


def test_cost_blind_estimators_have_no_cost_matrix_parameter():
    """CoMBo, AdaBoost.MM and the other cost-neutral baselines do not take a cost matrix they would ignore."""
    import csrepro

    for name in ("CoMBoClassifier", "AdaBoostMMClassifier", "SMOTEBoostClassifier", "AdaBoostECCClassifier",
                 "AdaBoostMHClassifier", "OneVsAllAdaBoostClassifier", "CWBoostClassifier",
                 "AOSOLogitBoostClassifier", "AdaBoostClassifier", "RealBoostClassifier", "LogitBoostClassifier",
                 "CanonicalGradientBoostClassifier", "SavageBoostClassifier", "TangentBoostClassifier"):
        with pytest.raises(TypeError, match="cost_matrix"):
            getattr(csrepro, name)(cost_matrix=np.eye(3))
    for name in ("combo", "adaboost_mm", "samme", "smoteboost", "adaboost_mh", "ova_adaboost", "adaboost_ecc",
                 "cw_boost", "aoso_logitboost", "adaboost", "realboost", "logitboost"):
        spec = methods.get_method(name)
        assert not spec.cost_sensitive and not spec.takes_cost_matrix
        assert methods.make_estimator(name, cost_matrix=None) is not None  # no warning without a matrix


def test_supports_and_config_fields_of_some_ids():
    gll = methods.get_method("gll_mcboost")
    assert gll.multiclass and gll.predict_proba and gll.cost_sensitive and gll.fixed == {"loss": "gll"}
    assert "n_estimators" in gll.params and "loss" not in gll.params
    dr = methods.get_method("cs_svm_dr_82_5")
    assert not dr.multiclass and not dr.predict_proba and dr.fixed["target_detection_rate"] == 0.825
    assert "C_grid" in dr.params and "target_detection_rate" not in dr.params
    platt_dr = methods.get_method("svm_linear_platt_dr")
    assert platt_dr.estimator_class is DetectionRateClassifier and not platt_dr.multiclass
    assert {"param_grid", "target_detection_rate", "C1"} <= set(platt_dr.params)
    assert methods.get_method("rforest_platt").estimator_class is PlattCalibrated
    assert not methods.get_method("svm").cost_sensitive and not methods.get_method("adaboost").cost_sensitive
    assert methods.accepts("gll_mcboost", "n_estimators", 3) and not methods.accepts("gll_mcboost", "loss", "gel")
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        methods.get_method("nope")
