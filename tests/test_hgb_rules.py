"""The O'Brien rules on calibrated HistGradientBoosting probabilities (issue 30; csrepro.methods:
``model: hgb`` = hgb_probabilities, ``model_params``): the model is gbdt_calibrated's, built without costs, the
rules of one seed learn on the same out-of-fold probabilities, and they share the model's fits
(csrepro.probability.shared._SharedFitClassifier)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from csrepro.baselines import TunedCalibratedBayesClassifier
from csrepro.cache import clear_caches
from csrepro.methods import PROBABILITY_MODELS, gbdt_calibrated, hgb_probabilities, make_estimator
from csrepro.probability.shared import SHARED_FITS, _SharedFitClassifier

SMALL = {"n_estimators": 8, "max_depth_grid": [1, 2]}
C = np.array([[0, 1, 6], [2, 0, 1], [9, 3, 0]], dtype=float)


def test_the_model_is_gbdt_calibrated_without_costs():
    shared = PROBABILITY_MODELS["hgb"](**SMALL)
    assert PROBABILITY_MODELS["hgb"] is hgb_probabilities and isinstance(shared, _SharedFitClassifier)
    model = shared.estimator
    assert isinstance(model, TunedCalibratedBayesClassifier) and model.cost_matrix is None
    reference = gbdt_calibrated(library="sklearn", random_state=0, **SMALL)
    def plain(params):  # estimators compare by identity: compare them by their own parameters
        return {k: (type(v).__name__, v.get_params()) if hasattr(v, "get_params") else v for k, v in params.items()}

    assert plain(model.get_params()) == plain(reference.get_params())


@pytest.mark.parametrize("rule", ["partition_matrix", "lachiche_flach", "bayes_rule"])
def test_model_params_reach_the_model(rule):
    rule_estimator = make_estimator(rule, cost_matrix=C, random_state=0, model="hgb", model_params=SMALL)
    inner = rule_estimator.estimator.estimator
    assert inner.estimator.n_estimators == 8 and inner.param_grid == {"max_depth": [1, 2]}


def test_the_model_validates_on_the_trials_rows():
    """Under the trial's selection seed the rules' model splits its validation part as hgb_calibrated does (the same
    seed: on the whole training part, the same rows); without one, seed 0 as before."""
    rule = make_estimator("partition_matrix", cost_matrix=C, random_state=3, model="hgb", model_params=SMALL,
                          selection_seed=11)
    assert rule.random_state == 11 and rule.estimator.estimator.random_state == 11
    assert make_estimator("gbdt_calibrated", cost_matrix=C, random_state=3, selection_seed=11).random_state == 11
    assert make_estimator("partition_matrix", cost_matrix=C, random_state=3, model="hgb",
                          model_params=SMALL).estimator.estimator.random_state == 0


def test_rules_of_one_seed_share_the_out_of_fold_probabilities():
    X, y = load_iris(return_X_y=True)
    clear_caches("shared_fits")
    fitted = [make_estimator("partition_matrix", cost_matrix=C, random_state=7, model="hgb", model_params=SMALL,
                             cv=3, **form).fit(X, y) for form in ({}, {"form": "full"})]
    # initial_cost_: the training cost of eq. (1) with C on the out-of-fold probabilities -- equal only if equal
    assert fitted[0].initial_cost_ == fitted[1].initial_cost_
    np.testing.assert_allclose(fitted[0].predict_proba(X), fitted[1].predict_proba(X))
    assert set(fitted[0].predict(X)) <= {0, 1, 2}
    # the second rule reused the first one's 3 fold models and its model on all rows
    assert SHARED_FITS.misses == 4 and SHARED_FITS.hits == 4 and fitted[1].estimator_.shared_


def test_shared_fits_give_what_a_refit_gives():
    X, y = load_iris(return_X_y=True)
    clear_caches("shared_fits")
    first, second = (hgb_probabilities(**SMALL).fit(X, y) for _ in range(2))
    assert not first.shared_ and second.shared_
    fresh = gbdt_calibrated(library="sklearn", random_state=0, **SMALL).fit(X, y)
    np.testing.assert_array_equal(second.predict_proba(X), fresh.predict_proba(X))
    third = hgb_probabilities(**SMALL).fit(X[:-1], y[:-1])  # other rows: a fit of its own
    assert not third.shared_
    other = hgb_probabilities(n_estimators=9, max_depth_grid=[1, 2]).fit(X, y)  # other settings: too
    assert not other.shared_


@parametrize_with_checks([_SharedFitClassifier(LogisticRegression())])
def test_shared_fit_classifier_is_a_scikit_learn_classifier(estimator, check):
    check(estimator)
