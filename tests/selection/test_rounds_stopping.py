"""Issue 30's data rule in RoundsOnValidation and the harness: rounds by early stopping (``patience``) up to the cap,
the chosen settings refitted on every training row (``refit``), the validation rows shared by the methods of a trial
(``protocol.selection_seed: trial``) and the choice stored as ``selected`` for every method."""

import json

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV

from csrepro.boosting.rebel import REBELClassifier
from csrepro.data.protocols import holdout
from csrepro.data.synthetic import gaussian_mixture_2d
from csrepro.selection.rounds import RoundsOnValidation, patience_stop, rounds_param, staged_scores


FITS = []  # the size of every fit of a _Grown (clones copy their parameters, so not one of them)


class _Grown(ClassifierMixin, BaseEstimator):
    """Stage t predicts class ``plan[t]`` for every row; ``n_estimators`` stages are fitted; :data:`FITS` records the
    size of every fit."""

    def __init__(self, plan=None, n_estimators=10):
        self.plan = plan
        self.n_estimators = n_estimators

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        FITS.append(self.n_estimators)
        return self

    def staged_predict(self, X):
        for label in self.plan[: self.n_estimators]:
            yield np.full(len(X), label)

    def predict(self, X):
        return np.full(len(X), self.plan[self.n_estimators - 1])


_Y = np.repeat([0, 1, 2], 30)
_C = np.array([[0.0, 1, 1], [1, 0, 1], [1, 1, 0]]) * np.array([[1.0], [2.0], [3.0]])  # a wrong row j costs j + 1


def _data(seed=0, n=300):
    return gaussian_mixture_2d(n, n_classes=3, n_clusters_per_class=2, random_state=seed)


def test_patience_stop_by_hand():
    scores = [5, 4, 4, 3, 3, 3, 3, 2]
    # best so far: round 4 (score 3); rounds 5, 6, 7 do not improve: at round 7 three rounds have passed
    assert patience_stop(scores, 3) == (4, True)
    assert patience_stop(scores, 4) == (8, False)  # round 8 improves before four rounds pass; the end is reached
    assert patience_stop(scores, None) == (8, False)
    assert patience_stop([1, 1, 1], 1) == (1, True)  # an equal score is no improvement
    assert patience_stop([3], 1) == (1, False)


def test_patience_grows_the_model_by_doubling_and_stops_at_the_right_round():
    X, y = np.zeros((90, 1)), _Y
    # a stage predicts one class everywhere; its validation cost (classes balanced, a wrong row j costs j + 1):
    # class 0 (2 + 3) / 3, class 1 (1 + 3) / 3, class 2 (1 + 2) / 3 = 1
    plan = [0, 1, 1, 2, 1, 1, 0, 2] + [2] * 40  # best first at round 4; rounds 5-7 do not improve on it
    FITS.clear()
    wrapper = RoundsOnValidation(_Grown(plan, n_estimators=40), criterion="cost", cost_matrix=_C,
                                 patience=3, random_state=0).fit(X, y)
    assert FITS == [6, 12]  # 2 * patience, then doubled: the rule stops at round 7 inside the fit of 12
    assert wrapper.best_n_estimators_ == 4 and wrapper.stopped_early_
    assert wrapper.n_estimators_cap_ == 40
    assert wrapper.selected_params_ == {"n_estimators": 4, "n_estimators_cap": 40, "patience": 3, "refit": False,
                                        "stopped_early": True}
    # the same choice as one fit at the cap with the rule applied to all its rounds
    train, val = holdout(y, test_size=1 / 3, random_state=0)
    full = _Grown(plan, n_estimators=40).fit(X[train], y[train])
    assert patience_stop(staged_scores(full, X[val], y[val], "cost", _C), 3) == (4, True)


def test_patience_that_never_fires_fits_the_cap_and_keeps_the_best_round():
    FITS.clear()
    plan = [0, 0, 1, 1, 2, 2]  # costs 5/3, 5/3, 4/3, 4/3, 1, 1: an improvement every second round
    wrapper = RoundsOnValidation(_Grown(plan, n_estimators=6), criterion="cost", cost_matrix=_C,
                                 patience=2, random_state=0).fit(np.zeros((90, 1)), _Y)
    assert FITS == [4, 6]  # 2 * patience, then the cap
    assert wrapper.best_n_estimators_ == 5 and not wrapper.stopped_early_


def test_the_rounds_parameter_is_found_in_a_wrapper():
    from csrepro.decision.bayes_rule import BayesRuleClassifier

    assert rounds_param(REBELClassifier()) == "n_estimators"
    assert rounds_param(BayesRuleClassifier(REBELClassifier())) == "estimator__n_estimators"
    assert rounds_param(BayesRuleClassifier()) is None


def test_patience_chooses_as_one_fit_at_the_cap_would():
    X, y = _data()
    wrapper = RoundsOnValidation(REBELClassifier(n_estimators=60), patience=4, random_state=3).fit(X, y)
    train, val = holdout(y, test_size=1 / 3, random_state=3)
    full = REBELClassifier(n_estimators=60, labels=np.unique(y)).fit(X[train], y[train])
    assert (wrapper.best_n_estimators_, wrapper.stopped_early_) == patience_stop(
        staged_scores(full, X[val], y[val]), 4)


def test_refit_is_a_fresh_fit_at_the_chosen_settings_on_all_rows():
    X, y = _data(2)
    wrapper = RoundsOnValidation(REBELClassifier(n_estimators=40), param_grid={"max_depth": [1, 2]}, patience=5,
                                 refit=True, random_state=1).fit(X, y)
    depth, n = wrapper.best_params_["max_depth"], wrapper.best_n_estimators_
    fresh = REBELClassifier(n_estimators=n, max_depth=depth, labels=np.unique(y)).fit(X, y)
    np.testing.assert_array_equal(wrapper.predict(X), fresh.predict(X))
    np.testing.assert_allclose(wrapper.decision_function(X), fresh.decision_function(X))
    assert len(wrapper.estimator_.estimators_) == n  # the refitted model, not the tuning fit truncated
    assert wrapper.selected_params_["refit"] is True and wrapper.selected_params_["n_estimators"] == n
    # without refit the chosen model is the tuning fit (on the rows outside the validation part), truncated
    kept = RoundsOnValidation(REBELClassifier(n_estimators=40), param_grid={"max_depth": [1, 2]}, patience=5,
                              random_state=1).fit(X, y)
    assert (kept.best_params_, kept.best_n_estimators_) == (wrapper.best_params_, n)
    train, _ = holdout(y, test_size=1 / 3, random_state=1)
    part = REBELClassifier(n_estimators=n, max_depth=depth, labels=np.unique(y)).fit(X[train], y[train])
    np.testing.assert_array_equal(kept.predict(X), part.predict(X))


def test_refit_of_an_unstaged_estimator_refits_the_chosen_grid_point():
    from csrepro.baselines import MultinomialLogisticRegression

    X, y = _data(4)
    wrapper = RoundsOnValidation(MultinomialLogisticRegression(), param_grid={"C": [0.01, 1.0, 100.0]}, refit=True,
                                 random_state=0).fit(X, y)
    fresh = MultinomialLogisticRegression(C=wrapper.best_params_["C"]).fit(X, y)
    np.testing.assert_allclose(wrapper.predict_proba(X), fresh.predict_proba(X))
    assert wrapper.best_n_estimators_ is None and "n_estimators" not in wrapper.selected_params_


def test_patience_needs_a_rounds_parameter():
    from csrepro.boosting.mcboost import MCBoostClassifier

    class _NoCount(MCBoostClassifier):
        def get_params(self, deep=True):
            return {k: v for k, v in super().get_params(deep).items() if k != "n_estimators"}

    X, y = _data()
    with pytest.raises(ValueError, match="patience needs the number of rounds"):
        RoundsOnValidation(_NoCount(), patience=3).fit(X, y)


# ----- the leaderboard's baselines (csrepro.methods, csrepro.baselines) --------------------------------------------
def test_calibrated_refit_is_one_booster_on_all_rows_calibrated_out_of_fold():
    pytest.importorskip("sklearn")
    from csrepro.methods import make_estimator

    X, y = _data(5, n=240)
    C = np.array([[0.0, 1, 4], [2, 0, 1], [1, 3, 0]])
    est = make_estimator("gbdt_calibrated", cost_matrix=C, random_state=0, n_estimators=30, max_depth_grid=[1, 2],
                         patience=5, refit=True, selection_seed=9).fit(X, y)
    inner = est.calibrated_.calibrated_  # CalibratedBayesClassifier(ensemble=False)'s CalibratedClassifierCV
    assert isinstance(inner, CalibratedClassifierCV) and inner.ensemble is False
    booster = inner.calibrated_classifiers_[0].estimator  # the one booster, on all rows
    assert len(inner.calibrated_classifiers_) == 1
    assert booster.max_depth == est.selected_params_["max_depth"]
    assert booster.n_estimators == est.selected_params_["n_estimators"] and booster.n_iter_ == booster.n_estimators
    assert booster.random_state == 0 and est.random_state == 9  # the model's seed, the validation split's seed
    assert est.selected_params_["calibration"] == "sigmoid" and est.selected_params_["refit"] is True
    assert est.selected_params_["n_estimators_cap"] == 30
    P = est.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmin(P @ C, axis=1)])


def test_the_baselines_split_by_the_selection_seed_and_seed_the_model_by_random_state():
    from csrepro.methods import make_estimator, rule_on_model

    C = np.array([[0.0, 1, 1], [1, 0, 1], [1, 1, 0]])
    weighted = make_estimator("gbdt_weighted", cost_matrix=C, random_state=1, selection_seed=7)
    assert weighted.random_state == 7 and weighted.estimator.random_state == 1
    assert make_estimator("gbdt_weighted", cost_matrix=C, random_state=1).random_state == 1  # without: as before
    assert make_estimator("logistic_bayes", cost_matrix=C, random_state=1, selection_seed=7).random_state == 7
    assert rule_on_model("partition_matrix", cost_matrix=C, random_state=1, selection_seed=7).random_state == 7
    assert rule_on_model("metacost", cost_matrix=C, random_state=1).random_state == 1


# ----- the harness: protocol.selection_seed, the rounds_on_validation keys, the stored choice ----------------------
def _config(root, methods_cfg, protocol=None, datasets=("sk_wine",), n_trials=1):
    exp = {"name": "t_stop", "paper": "p", "datasets": list(datasets), "n_trials": n_trials,
           "protocol": {"name": "holdout", "test_size": 0.25, **(protocol or {})}, "cost": {"kind": "rebel_random"},
           "methods": methods_cfg, "metrics": ["error", "risk"], "preprocessing": {"standardize": True}}
    return {"exp": exp, "runner": {"progress": False}, "results": {"root": str(root)}}


def test_a_trial_seed_is_shared_by_the_methods_of_a_trial_only_when_asked(tmp_path):
    from csrepro.config import config_hash, validate_config
    from csrepro.trials import plan_trials

    methods_cfg = {"rebel": {"n_estimators": 5}, "combo": {"n_estimators": 5}}
    _, plain = plan_trials(validate_config(_config(tmp_path, methods_cfg, n_trials=2)).exp)
    _, shared = plan_trials(validate_config(_config(tmp_path, methods_cfg, {"selection_seed": "trial"},
                                                    n_trials=2)).exp)
    assert all(t.selection_seed is None for t in plain)
    seeds = {(t.trial, t.method): t.selection_seed for t in shared}
    assert seeds[0, "rebel"] == seeds[0, "combo"] != seeds[1, "rebel"] == seeds[1, "combo"]
    assert [t.model_seed for t in plain] == [t.model_seed for t in shared]  # the models' randomness unchanged
    # a config without the key keeps its hash (and trial ids); "method" is the default but, written, a new setting
    hashed = dict(exp="t_stop", cost={"kind": "rebel_random"}, standardize=True, metrics=["error", "risk"])
    assert plain[0].config_hash == config_hash(protocol={"name": "holdout", "test_size": 0.25}, **hashed)
    assert shared[0].config_hash != plain[0].config_hash


@pytest.mark.parametrize("protocol, rounds, message", [
    ({"selection_seed": "dataset"}, {}, r"selection_seed\): 'dataset' is not valid; choose one of \['method', "),
    ({}, {"patience": 0}, "rounds_on_validation.patience must be an int >= 1"),
    ({}, {"refit": "yes"}, "rounds_on_validation.refit must be true or false"),
])
def test_bad_settings_are_one_line_config_errors(tmp_path, protocol, rounds, message):
    from csrepro.config import ConfigError, validate_config

    cfg = _config(tmp_path, {"rebel": {"rounds_on_validation": {"criterion": "cost", **rounds}}}, protocol)
    with pytest.raises(ConfigError, match=message) as err:
        validate_config(cfg)
    assert "\n" not in str(err.value)


def test_the_runner_shares_the_validation_rows_refits_and_stores_every_choice(tmp_path):
    from csrepro.runner import run_experiment

    rounds = {"criterion": "cost", "patience": 3, "refit": True}
    cfg = _config(tmp_path, {"rebel": {"n_estimators": 20, "rounds_on_validation": rounds},
                             "rebel_fixed": {"method": "rebel", "n_estimators": 20},
                             "logistic": {"method": "logistic_bayes", "refit": True},
                             "partition": {"method": "partition_matrix", "model": "rda"},
                             "partition_hgb": {"method": "partition_matrix", "model": "hgb", "cv": 2, "model_params": {
                                 "n_estimators": 12, "max_depth_grid": [1], "patience": 2, "refit": True}}},
                  {"selection_seed": "trial"}, n_trials=2)
    rows = run_experiment(cfg)
    selected = rows.assign(chosen=rows["selected"].map(json.loads))
    per_trial = selected.groupby("trial")["chosen"].apply(lambda c: {s["selection_seed"] for s in c})
    assert per_trial.map(len).eq(1).all() and per_trial.iloc[0] != per_trial.iloc[1]
    rebel = selected[selected["method"] == "rebel"]["chosen"]
    assert all(c["refit"] and c["patience"] == 3 and c["n_estimators_cap"] == 20 and 1 <= c["n_estimators"] <= 20
               for c in rebel)
    assert all("estimator__C" in c and c["refit"] for c in selected[selected["method"] == "logistic"]["chosen"])
    assert all(set(c) == {"selection_seed"} for c in selected[selected["method"] == "rebel_fixed"]["chosen"])
    assert all(set(c) == {"selection_seed"} for c in selected[selected["method"] == "partition"]["chosen"])
    # a rule over a tuned probability model stores the model's choice (the model refitted on the training part)
    assert all(c["model"]["max_depth"] == 1 and 1 <= c["model"]["n_estimators"] <= 12 and c["model"]["refit"]
               for c in selected[selected["method"] == "partition_hgb"]["chosen"])


def test_fits_that_differ_only_in_ignored_parameters_are_shared_and_exact():
    """CoMBo's training ignores ``random_state`` (``_fit_ignores``): two fits with different seeds are the same model
    (the claim the sharing rests on); RoundsOnValidation over CoMBo with another seed and another cost matrix reuses
    the first one's fits (hits in rounds.FITS) and chooses and predicts exactly as without the cache."""
    from csrepro.boosting.combo import CoMBoClassifier
    from csrepro.cache import clear_caches
    from csrepro.selection import rounds

    X, y = gaussian_mixture_2d(240, n_classes=3, random_state=4)
    a = CoMBoClassifier(n_estimators=8, max_depth=2, random_state=1).fit(X, y)
    b = CoMBoClassifier(n_estimators=8, max_depth=2, random_state=2).fit(X, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    costs = (1 - np.eye(3), np.array([[0.0, 1.0, 9.0], [2.0, 0.0, 1.0], [5.0, 3.0, 0.0]]))

    def tuned(C, seed):
        return RoundsOnValidation(CoMBoClassifier(n_estimators=40, random_state=seed), criterion="cost",
                                  cost_matrix=C, param_grid={"max_depth": [1, 2]}, patience=4, refit=True,
                                  random_state=0).fit(X, y)

    fresh = []
    for C, seed in zip(costs, (11, 12)):
        clear_caches("rounds_fits")
        fresh.append(tuned(C, seed))
    clear_caches("rounds_fits")
    tuned(costs[0], 11)
    hits = rounds.FITS.hits
    second = tuned(costs[1], 12)
    assert rounds.FITS.hits > hits
    assert second.selected_params_ == fresh[1].selected_params_
    np.testing.assert_array_equal(second.predict_proba(X), fresh[1].predict_proba(X))
    for got, want in zip(second.validation_scores_, fresh[1].validation_scores_):
        np.testing.assert_array_equal(got, want)
