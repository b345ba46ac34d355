"""The O'Brien rules on calibrated HistGradientBoosting probabilities (issue 30; csrepro.methods:
``model: hgb`` = hgb_probabilities, ``model_params``): the model is gbdt_calibrated's, built without costs, and the
rules of one seed learn on the same out-of-fold probabilities."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from csrepro.baselines import TunedCalibratedBayesClassifier
from csrepro.methods import PROBABILITY_MODELS, gbdt_calibrated, hgb_probabilities, make_estimator

SMALL = {"n_estimators": 8, "max_depth_grid": [1, 2]}
C = np.array([[0, 1, 6], [2, 0, 1], [9, 3, 0]], dtype=float)


def test_the_model_is_gbdt_calibrated_without_costs():
    model = PROBABILITY_MODELS["hgb"](**SMALL)
    assert model is not None and PROBABILITY_MODELS["hgb"] is hgb_probabilities
    assert isinstance(model, TunedCalibratedBayesClassifier) and model.cost_matrix is None
    reference = gbdt_calibrated(library="sklearn", random_state=0, **SMALL)
    def plain(params):  # estimators compare by identity: compare them by their own parameters
        return {k: (type(v).__name__, v.get_params()) if hasattr(v, "get_params") else v for k, v in params.items()}

    assert plain(model.get_params()) == plain(reference.get_params())


@pytest.mark.parametrize("rule", ["partition_matrix", "lachiche_flach", "bayes_rule"])
def test_model_params_reach_the_model(rule):
    rule_estimator = make_estimator(rule, cost_matrix=C, random_state=0, model="hgb", model_params=SMALL)
    inner = rule_estimator.estimator
    assert inner.estimator.n_estimators == 8 and inner.param_grid == {"max_depth": [1, 2]}


def test_rules_of_one_seed_share_the_out_of_fold_probabilities():
    X, y = load_iris(return_X_y=True)
    fitted = [make_estimator("partition_matrix", cost_matrix=C, random_state=7, model="hgb", model_params=SMALL,
                             cv=3, **form).fit(X, y) for form in ({}, {"form": "full"})]
    # initial_cost_: the training cost of eq. (1) with C on the out-of-fold probabilities -- equal only if equal
    assert fitted[0].initial_cost_ == fitted[1].initial_cost_
    np.testing.assert_allclose(fitted[0].predict_proba(X), fitted[1].predict_proba(X))
    assert set(fitted[0].predict(X)) <= {0, 1, 2}
