"""The method registry: each id's entry and what it supports, read off the estimator it builds."""

import numpy as np
import pytest

from csrepro import methods
from csrepro.calibration import PlattCalibrated
from csrepro.selection.detection_rate import DetectionRateClassifier

COST = np.array([[0.0, 1.0], [5.0, 0.0]])


@pytest.mark.parametrize("name", methods.method_names())
def test_every_entry_describes_the_estimator_it_builds(name):
    spec = methods.get_method(name)
    est = methods.make_estimator(name, cost_matrix=COST, random_state=0)
    assert type(est) is spec.estimator_class and spec.source and spec.binary
    assert spec.multiclass == methods.supports_multiclass(est)
    assert spec.predict_proba == hasattr(est, "predict_proba")
    assert spec.takes_cost_matrix and spec.params == methods.method_params(name, COST)
    assert not set(spec.params) & set(spec.fixed)  # a fixed parameter is not a config field


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
