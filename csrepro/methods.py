"""The method registry: how an experiment's method id becomes a scikit-learn estimator, and what it supports.

Each id of :data:`METHODS` maps to a :class:`MethodSpec`: an estimator factory (an estimator class,
or a function such as :func:`make_base` that builds one), the parameters the id fixes, its source
(paper and equations) and whether its predictions use the costs.  What an id supports -- two or more
classes, ``predict_proba`` -- and the config fields it takes are read off the estimator it builds
(scikit-learn tags, its methods, ``get_params``), not typed a second time; whether it takes a ``cost_matrix``
is read off the factory's signature.

Costs: :func:`make_estimator` takes the experiment's cost matrix for every id (the runner scores every method
with it).  A cost-sensitive id gets it (``C[j, k]`` = cost of predicting class k when the truth is j, rows and
columns in the order of the estimator's ``classes_``).  A cost-blind id (``cost_sensitive=False``: its predictions
do not use the costs) is refused nothing but told: the matrix is validated, a :class:`CostBlindWarning` names the
id, and the matrix is passed on only where the estimator has the parameter (most cost-blind estimators do not:
a parameter an estimator does not use is not in its signature).
Config validation (:mod:`csrepro.config`) and the runner build every estimator through
:func:`make_estimator`.

Ids by source:

* Koço & Capponi 2013 (CoMBo): ``combo``, ``adaboost_mm``, and the baselines we add, ``samme`` (:func:`samme`,
  scikit-learn's AdaBoostClassifier) and ``smoteboost`` (:class:`~csrepro.boosting.smoteboost.SMOTEBoostClassifier`);
* Beijbom et al. 2014 (guess-averse MCBoost): ``mcboost``, ``p_mcboost``, ``gel_mcboost``,
  ``gll_mcboost``, ``ls_mcboost``, ``lt_mcboost``;
* Masnadi-Shirazi 2011 thesis Ch. III-IV (margin losses): ``adaboost``, ``realboost``, ``logitboost``,
  ``canonical_gradientboost``, ``savageboost``, ``tangentboost``;
* thesis Ch. V (cost-sensitive SVMs): ``cs_svm``, ``bp_svm``, ``bm_svm``, ``svm``, each also with
  ``_cv`` (Table V.1: C and cost scale by cross-validated cost), ``_dr`` and ``_dr_<rate>`` (Table V.2:
  parameters and threshold for a detection rate, :data:`DETECTION_RATES`);
* thesis Ch. VI (cost-sensitive boosting and its baselines): a booster at fixed costs
  (:data:`BOOSTERS`: ``cs_adaboost``, ``cs_realboost``, ``cs_logitboost``, ``csb0``-``csb2``,
  ``adac1``-``adac3``, ``adacost``; :func:`make_base`), a Platt-calibrated baseline with the
  cost-sensitive threshold (:data:`CALIBRATED`: ``adaboost_platt``, ``realboost_platt``,
  ``logitboost_platt``, ``svm_linear_platt``, ``svm_gauss_platt``, ``rforest_platt`` with 17 trees of
  4 leaves, Sec. VI.E.2; :func:`platt`), and any of these plus ``_dr``: its parameters
  (``param_grid``) and threshold chosen for a target detection rate on the training part
  (:func:`detection_rate`; Sec. VI.E's protocol);
* O'Brien, Gupta & Gray 2008 (decisions from probability estimates, :func:`rule_on_model`): a decision rule of
  :data:`DECISION_RULES` on a probability model of :data:`PROBABILITY_MODELS` (``model: nb | rda | lr | hgb``):
  ``bayes_rule`` (eq. 1 on the raw estimates), ``partition_matrix`` (eq. 12, ``form``), ``lachiche_flach``,
  ``mossman``, ``metacost``, and the peers ``calibrated_bayes`` / ``calibrated_isotonic`` / ``calibrated_sigmoid``
  (scikit-learn's CalibratedClassifierCV + eq. 1) and
  ``cs_reduction`` (the ``costsensitive`` package's reductions, :class:`~csrepro.baselines.CostSensitiveReduction`);
  ``model: lr`` is multinomial logistic regression (:class:`~csrepro.baselines.MultinomialLogisticRegression`, C=1);
* the leaderboard's modern baselines (issue 21, :mod:`csrepro.baselines`), each tuned *inside* its factory by
  :class:`~csrepro.selection.rounds.RoundsOnValidation` -- the same rule as an entry's ``rounds_on_validation``:
  one stratified validation part (``val_size``, default 1/3 of the training part), every grid point fitted on the
  rest, the (grid point, rounds) of least validation cost kept, no refit by default (issue 30's options:
  ``patience``, early-stopped rounds; ``refit``, the choice refitted on all rows; ``selection_seed``, the trial's
  seed of the validation split, csrepro.trials).  The tuning lives in the factory because
  an entry-level ``rounds_on_validation`` wraps the whole estimator, i.e. it would wrap the calibrator of
  ``gbdt_calibrated`` instead of the booster; so do not give these ids that key (config refuses it for
  ``gbdt_calibrated``, which has no ``staged_predict``).

  - ``gbdt_calibrated`` (:func:`gbdt_calibrated`; ``library: sklearn | lightgbm | xgboost``): cost-blind
    :class:`~csrepro.baselines.GradientBoostingPeer`, its ``max_depth`` (``max_depth_grid``, default {1, 3, 6}) and
    rounds (<= ``n_estimators``, default 200) chosen once by the validation cost of its minimum-expected-cost
    decisions, then the booster with those settings sigmoid-calibrated (``method``) by ``cv``-fold (3)
    cross-validation (:class:`~csrepro.baselines.TunedCalibratedBayesClassifier`: ``cv`` boosters on the folds'
    training parts, each calibrated on its held-out fold, probabilities averaged), then the minimum-expected-cost
    rule.  Tuning inside every calibration fold instead (CalibratedBayesClassifier around RoundsOnValidation) took
    12-24 s per fit on pendigits and tuned on 4/9 of the training part; tuning once uses the other methods' split;
  - ``gbdt_weighted`` (:func:`gbdt_weighted`): the booster trained with cost-derived example weights (mean
    misclassification cost of the example's class), depth and rounds chosen by validation cost, argmax decisions;
  - ``logistic_bayes`` (:func:`logistic_bayes`): multinomial logistic regression, C chosen from ``C_grid`` (default
    {0.01, 0.1, 1, 10, 100}) by the validation cost of the minimum-expected-cost rule on its probabilities, that
    rule at test time.  It expects standardised features (the experiment's ``preprocessing: {standardize: true}``).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.ensemble import AdaBoostClassifier as SKAdaBoostClassifier
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import ParameterGrid
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import get_tags

from csrepro.baselines import (
    CostSensitiveReduction,
    GradientBoostingPeer,
    MultinomialLogisticRegression,
    TunedCalibratedBayesClassifier,
)
from csrepro.baselines.reductions import reduction_base
from csrepro.boosting.aoso import AOSOLogitBoostClassifier
from csrepro.boosting.binary import (
    AdaBoostClassifier,
    LogitBoostClassifier,
    RealBoostClassifier,
)
from csrepro.boosting.combo import AdaBoostMMClassifier, CoMBoClassifier
from csrepro.boosting.cost_sensitive import (
    CSAdaBoostClassifier,
    CSLogitBoostClassifier,
    CSRealBoostClassifier,
)
from csrepro.boosting.cost_sensitive_baselines import (
    AdaC1Classifier,
    AdaC2Classifier,
    AdaC3Classifier,
    AdaCostClassifier,
    CSB0Classifier,
    CSB1Classifier,
    CSB2Classifier,
)
from csrepro.boosting.cwboost import CWBoostClassifier
from csrepro.boosting.ecc import AdaBoostECCClassifier
from csrepro.boosting.margin import (
    CanonicalGradientBoostClassifier,
    SavageBoostClassifier,
    TangentBoostClassifier,
)
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.boosting.multiclass_baselines import AdaBoostMHClassifier, OneVsAllAdaBoostClassifier
from csrepro.boosting.rebel import REBELClassifier
from csrepro.boosting.smoteboost import SMOTEBoostClassifier
from csrepro.costs import validate_cost_matrix
from csrepro.decision.bayes_rule import BayesRuleClassifier, CalibratedBayesClassifier
from csrepro.decision.metacost import MetaCostClassifier
from csrepro.decision.partition import LachicheFlachClassifier, MossmanClassifier, PartitionMatrixClassifier
from csrepro.probability.calibration import PlattCalibrated
from csrepro.probability.naive_bayes import QuantizedNaiveBayes
from csrepro.probability.rda import RegularizedDiscriminantAnalysis
from csrepro.probability.shared import _SharedFitClassifier
from csrepro.selection.detection_rate import DetectionRateClassifier
from csrepro.selection.rounds import RoundsOnValidation
from csrepro.selection.svm import CostRatioSVC, DetectionRateSVC
from csrepro.svm import CostSensitiveSVC

#: the cost matrix the registry builds an id with to read off what it supports (binary, 0-1 costs)
PROBE_COST = np.array([[0.0, 1.0], [1.0, 0.0]])


class CostBlindWarning(UserWarning):
    """A cost matrix was given to a cost-blind method id: it scores the predictions but does not shape them."""


@dataclass(frozen=True)
class MethodSpec:
    """A method id: its estimator factory, fixed parameters, source, and what it supports.

    ``factory(random_state=..., **fixed, **params)`` builds the estimator, with ``cost_matrix=...`` when the
    factory has that parameter (:attr:`takes_cost_matrix`); ``cost_sensitive`` says whether its predictions use
    the costs (:meth:`build` warns when a cost-blind id is given a cost matrix).  The properties below the fields
    are derived from the estimator built with :data:`PROBE_COST`.
    """

    factory: Callable[..., Any]
    fixed: dict = field(default_factory=dict)
    source: str = ""
    cost_sensitive: bool = True

    def build(self, cost_matrix=None, random_state=None, **params):
        """The estimator with ``cost_matrix``, ``random_state``, the fixed parameters and ``params``.

        A cost matrix given to a cost-blind id (``cost_sensitive=False``) is validated
        (:func:`csrepro.costs.validate_cost_matrix`, a :class:`~csrepro.costs.CostMatrixError` naming the problem)
        and a :class:`CostBlindWarning` says that it is not used; it is passed on only where the factory takes it.
        """
        if cost_matrix is not None and not self.cost_sensitive:
            validate_cost_matrix(cost_matrix)
            name = next((key for key, spec in METHODS.items() if spec is self), getattr(self.factory, "__name__", ""))
            warnings.warn(f"method {name!r} is cost-blind: cost_matrix does not change its predictions (it only "
                          "scores them); build it with cost_matrix=None, or choose a cost-sensitive method",
                          CostBlindWarning, stacklevel=3)
        return self._build(cost_matrix, random_state, params)

    def _build(self, cost_matrix, random_state, params):
        """:meth:`build` without the warning: ``cost_matrix`` passed on where the factory takes it."""
        costs = {"cost_matrix": cost_matrix} if self.takes_cost_matrix else {}
        return self.factory(**costs, random_state=random_state, **self.fixed, **params)

    @functools.cached_property
    def probe(self):
        """The estimator as built with :data:`PROBE_COST` and default parameters (unfitted)."""
        return self._build(PROBE_COST, 0, {})

    @property
    def estimator_class(self) -> type:
        return type(self.probe)

    @property
    def binary(self) -> bool:
        """Whether it fits two-class problems: every classifier does."""
        return is_classifier(self.probe)

    @property
    def multiclass(self) -> bool:
        """Whether it fits more than two classes (scikit-learn's ``multi_class`` tag)."""
        return supports_multiclass(self.probe)

    @property
    def predict_proba(self) -> bool:
        """Whether the estimator has ``predict_proba`` when built with 0-1 costs (:data:`PROBE_COST`; REBEL has it for
        0-1 costs only)."""
        return hasattr(self.probe, "predict_proba")

    @property
    def takes_cost_matrix(self) -> bool:
        """Whether the factory has a ``cost_matrix`` parameter (see ``cost_sensitive`` for whether it is used)."""
        return "cost_matrix" in inspect.signature(self.factory).parameters

    @functools.cached_property
    def params(self) -> list[str]:
        """The config fields (keyword parameters) the id takes, see :meth:`keywords`."""
        return self.keywords(PROBE_COST)

    def accepts(self, name: str, value, cost_matrix=None) -> bool:
        """Whether the id takes the keyword ``name`` (whatever it makes of ``value``)."""
        try:
            self._build(cost_matrix, 0, {name: value})
        except TypeError:
            return False
        except Exception:  # noqa: BLE001 -- the keyword was taken; only its value (or the method's fixed params) objected
            return name not in self.fixed
        return True

    def keywords(self, cost_matrix=None) -> list[str]:
        """The keywords the id takes: its estimator's parameters, or, for a factory that passes keywords
        on to an inner estimator (e.g. a ``_dr`` id), the inner parameter names it takes."""
        names = {}
        for key, value in self._build(cost_matrix, 0, {}).get_params().items():
            parts = key.split("__")
            for i in range(len(parts)):
                names.setdefault("__".join(parts[i:]), value)
        return sorted(name for name, value in names.items() if self.accepts(name, value, cost_matrix))


# ----- thesis Ch. VI: cost-sensitive boosting and its baselines ---------------------------------
THESIS = "Masnadi-Shirazi 2011 thesis"
#: id -> (class, source) of the boosters at fixed costs
BOOSTERS = {
    "cs_adaboost": (CSAdaBoostClassifier, f"{THESIS} Alg. 4, (VI.37)-(VI.42)"),
    "cs_realboost": (CSRealBoostClassifier, f"{THESIS} Alg. 5, (VI.43)-(VI.46)"),
    "cs_logitboost": (CSLogitBoostClassifier, f"{THESIS} Alg. 6, (VI.47)-(VI.53)"),
    "csb0": (CSB0Classifier, "Ting 2000 (CSB0)"),
    "csb1": (CSB1Classifier, "Ting 2000 (CSB1)"),
    "csb2": (CSB2Classifier, f"Ting 2000 (CSB2); {THESIS} (VI.31)"),
    "adac1": (AdaC1Classifier, "Sun, Kamel, Wong & Wang 2007 (AdaC1)"),
    "adac2": (AdaC2Classifier, "Sun, Kamel, Wong & Wang 2007 (AdaC2)"),
    "adac3": (AdaC3Classifier, "Sun, Kamel, Wong & Wang 2007 (AdaC3)"),
    "adacost": (AdaCostClassifier, "Fan, Stolfo, Zhang & Chan 1999 (AdaCost)"),
}
#: id -> (estimator factory taking the base params, source) of the Platt-calibrated baselines
CALIBRATED = {
    "adaboost_platt": (AdaBoostClassifier, "AdaBoost + Platt 1999 (thesis Sec. VI.E.2)"),
    "realboost_platt": (RealBoostClassifier, "RealBoost + Platt 1999 (thesis Sec. VI.E.2)"),
    "logitboost_platt": (LogitBoostClassifier, "LogitBoost + Platt 1999 (thesis Sec. VI.E.2)"),
    "svm_linear_platt": (lambda **kw: SVC(kernel="linear", **kw), "linear SVM + Platt 1999 (thesis Sec. VI.E.2)"),
    "svm_gauss_platt": (lambda **kw: SVC(kernel="rbf", **kw), "Gaussian SVM + Platt 1999 (thesis Sec. VI.E.2)"),
    "rforest_platt": (lambda **kw: RandomForestClassifier(**{"n_estimators": 17, "max_leaf_nodes": 4,
                                                             "random_state": 0, **kw}),
                      "Breiman 2001 random forest (17 trees, 4 leaves) + Platt 1999 (thesis Sec. VI.E.2)"),
}


def platt(base, platt_cv=3, C1=None, C2=None, cost_matrix=None, random_state=None, **base_params):
    """:class:`PlattCalibrated` around the ``CALIBRATED[base]`` estimator built with ``base_params``."""
    if base not in CALIBRATED:
        raise ValueError(f"unknown Platt base {base!r}; choose one of {sorted(CALIBRATED)}")
    return PlattCalibrated(CALIBRATED[base][0](**base_params), cv=platt_cv, C1=C1, C2=C2, cost_matrix=cost_matrix,
                           random_state=random_state)


def make_base(base, cost_matrix=None, random_state=None, **params):
    """The estimator of a booster or Platt id (without ``_dr``) with ``params``.

    Costs: ``C1``/``C2`` when ``params`` give either, and then ``cost_matrix`` (the runner's, which
    still scores the predictions) is not passed on, since the estimators refuse conflicting costs
    (e.g. Figure VI.2 sweeps C1 under the 0-1 matrix); else ``cost_matrix``.
    """
    if params.get("C1") is not None or params.get("C2") is not None:
        cost_matrix = None
    if base in BOOSTERS:
        return BOOSTERS[base][0](cost_matrix=cost_matrix, random_state=random_state, **params)
    if base in CALIBRATED:
        return platt(base, cost_matrix=cost_matrix, random_state=random_state, **params)
    raise ValueError(f"unknown base method {base!r}; choose one of {sorted(BOOSTERS) + sorted(CALIBRATED)}")


def detection_rate(base, target_detection_rate=0.9, param_grid=None, positive="last", cv=5, cv_seed=0,
                   random_state=None, **base_params):
    """:class:`DetectionRateClassifier` over ``make_base(base, **base_params)``; ``param_grid`` names
    the base's parameters (e.g. {"C1": [1, 2, 4]}; Platt ids: {"estimator__C": [...]}).  No ``cost_matrix``: the
    detection-rate target replaces the costs (the base's own costs are ``C1``/``C2`` or the grid's)."""
    return DetectionRateClassifier(make_base(base, **base_params), param_grid=param_grid,
                                   target_detection_rate=target_detection_rate, positive=positive, cv=cv,
                                   cv_seed=cv_seed, random_state=random_state)


def rebel_standard(cost_matrix=None, random_state=None, labels=None, **rebel_params):
    """Appel et al. 2016 Fig. 3's "standard approach": :class:`REBELClassifier` trained with 0-1 costs, its
    posterior estimates (``predict_proba``: sigmoid(2 H_k), normalised) and the Bayes rule for ``cost_matrix``
    at test time (:class:`~csrepro.decision.BayesRuleClassifier`)."""
    return BayesRuleClassifier(REBELClassifier(**rebel_params), cost_matrix=cost_matrix, labels=labels,
                               random_state=random_state)


def samme(n_estimators=200, max_depth=3, learning_rate=1.0, random_state=None):
    """SAMME (Zhu, Zou, Rosset & Hastie 2009): scikit-learn's :class:`~sklearn.ensemble.AdaBoostClassifier` on
    depth-``max_depth`` :class:`~sklearn.tree.DecisionTreeClassifier` trees, ``n_estimators`` rounds; ``random_state``
    seeds the trees (scikit-learn's feature order at ties).  Cost-neutral, with no ``cost_matrix`` or ``labels``
    (the runner spreads ``predict_proba`` over the dataset's classes).  ``algorithm="SAMME"`` is passed where the
    installed scikit-learn still has the parameter (from 1.6 SAMME is its only algorithm)."""
    extra = {"algorithm": "SAMME"} if "algorithm" in inspect.signature(SKAdaBoostClassifier).parameters else {}
    return SKAdaBoostClassifier(DecisionTreeClassifier(max_depth=max_depth), n_estimators=n_estimators,
                                learning_rate=learning_rate, random_state=random_state, **extra)


# ----- O'Brien, Gupta & Gray 2008: decisions from probability estimates -------------------------
OBRIEN = "O'Brien, Gupta & Gray 2008"
#: ``model`` -> the probability model of O'Brien et al. Sec. 6 (naive Bayes for discrete features, regularised QDA)
def hgb_probabilities(selection_seed=None, **params):
    """Cost-blind calibrated scikit-learn HistGradientBoosting probabilities, the model under the O'Brien rules of
    the leaderboard (issue 30): :func:`gbdt_calibrated` (``library="sklearn"``) without costs -- depth and rounds
    chosen on a validation part by the 0-1 error, then sigmoid calibration -- with ``params`` (its keywords, e.g.
    ``n_estimators``, ``max_depth_grid``).  The model is seeded 0 and its validation split by ``selection_seed``
    (the trial's, given by :func:`rule_on_model`; None: 0), so that the fitted model is a function of its training
    rows and the trial -- fitted on the whole training part it validates on the same rows as every other method of
    the trial -- and its fits are shared by the rules of a trial
    (:class:`~csrepro.probability.shared._SharedFitClassifier`)."""
    return _SharedFitClassifier(gbdt_calibrated(library="sklearn", random_state=0, selection_seed=selection_seed,
                                                **params))


PROBABILITY_MODELS = {"nb": QuantizedNaiveBayes, "rda": RegularizedDiscriminantAnalysis,
                      "lr": MultinomialLogisticRegression,  # lr: a modern peer (issue 21), C=1, lbfgs
                      "hgb": hgb_probabilities}  # hgb: calibrated gradient boosting (issue 30)
#: rule (its method id) -> (meta-estimator taking ``estimator``, ``cost_matrix``, ``labels``, ``random_state``; source)
DECISION_RULES = {
    "bayes_rule": (BayesRuleClassifier, f"{OBRIEN} eq. (1) on the model's own estimates"),
    "partition_matrix": (PartitionMatrixClassifier, f"{OBRIEN} eq. (12), Sec. 5.1 (greedy exact change-point search)"),
    "lachiche_flach": (LachicheFlachClassifier, f"Lachiche & Flach 2003, {OBRIEN} eqs. (4)-(5)"),
    "mossman": (MossmanClassifier, f"Mossman 1999, {OBRIEN} eq. (3)"),
    "metacost": (MetaCostClassifier, "Domingos 1999 MetaCost"),
    "calibrated_bayes": (CalibratedBayesClassifier, "Zadrozny & Elkan 2002 / Platt 1999 (scikit-learn "
                   f"CalibratedClassifierCV) + {OBRIEN} eq. (1)"),
}


def rule_on_model(rule, model="rda", cost_matrix=None, random_state=None, labels=None, selection_seed=None,
                  model_params=None, **params):
    """``DECISION_RULES[rule]`` (with ``params``) around a default ``PROBABILITY_MODELS[model]``.  The rule's
    ``random_state`` (its inner folds, e.g. the out-of-fold probabilities of the partition matrix, or MetaCost's
    resamples) is ``selection_seed`` when given -- the trial's, shared by every method of a trial under the
    leaderboard's ``protocol.selection_seed: trial`` (csrepro.trials) -- else ``random_state``; a model tuned on
    validation (``hgb``) splits off its validation rows with ``selection_seed`` too.  ``model_params``: the
    probability model's keywords (e.g. ``{n_estimators: 100}`` for ``model: hgb``)."""
    if rule not in DECISION_RULES:
        raise ValueError(f"unknown decision rule {rule!r}; choose one of {sorted(DECISION_RULES)}")
    if model not in PROBABILITY_MODELS:
        raise ValueError(f"unknown probability model {model!r}; choose one of {sorted(PROBABILITY_MODELS)}")
    seed = _split_seed(random_state, selection_seed)
    factory = PROBABILITY_MODELS[model]
    takes_seed = "selection_seed" in inspect.signature(factory).parameters  # a model tuned on validation (hgb)
    probabilities = factory(**(model_params or {}), **({"selection_seed": selection_seed} if takes_seed else {}))
    return DECISION_RULES[rule][0](probabilities, cost_matrix=cost_matrix, labels=labels, random_state=seed, **params)


def cs_reduction(reduction="wap", base="linear", onehot_max_values=None, cost_matrix=None, labels=None,
                 random_state=None):
    """:class:`~csrepro.baselines.CostSensitiveReduction` over :func:`~csrepro.baselines.reductions.reduction_base`
    (``base``: ``"linear"`` -- logistic regression, C=1, or ridge regression for ``"csoaa"`` -- or ``"tree"``, a
    depth-4 tree; ``onehot_max_values``: one-hot coding of the attributes with at most that many values).  Its
    parameters are tuned on validation by their pipeline names, e.g. ``estimator__model__C``."""
    return CostSensitiveReduction(reduction_base(reduction, base, onehot_max_values, random_state),
                                  cost_matrix=cost_matrix, reduction=reduction, labels=labels, random_state=random_state)


# ----- issue 21: modern baselines, tuned on validation by one rule (RoundsOnValidation) ---------------------------
# Seeds (issue 30): ``random_state`` seeds the model (the boosters' libraries); the validation split is seeded by
# ``selection_seed`` when given (the trial's, the same rows for every method of a trial: csrepro.trials), else by
# ``random_state``.  ``patience`` and ``refit``: RoundsOnValidation's (early-stopped rounds; the chosen settings
# refitted on every training row), None / False by default (the issue-21 protocol).
#: tree depths and logistic-regression C values the leaderboard baselines choose from on validation
GBDT_DEPTHS = (1, 3, 6)
LOGISTIC_CS = (0.01, 0.1, 1.0, 10.0, 100.0)


def _split_seed(random_state, selection_seed):
    """The validation split's seed: ``selection_seed`` when given, else ``random_state``."""
    return random_state if selection_seed is None else selection_seed


def gbdt_calibrated(library="sklearn", n_estimators=200, max_depth_grid=GBDT_DEPTHS, learning_rate=0.1, max_bins=255,
                    val_size=1 / 3, method="sigmoid", cv=3, patience=None, refit=False, cost_matrix=None, labels=None,
                    random_state=None, selection_seed=None):
    """Cost-blind gradient boosting with calibrated probabilities and the minimum-expected-cost rule (module
    docstring): :class:`~csrepro.baselines.TunedCalibratedBayesClassifier` -- ``max_depth`` and rounds chosen once
    on validation by the cost of the booster's minimum-expected-cost decisions, then ``cv``-fold ``method``
    calibration of the booster with those settings (with ``refit``: one booster on all rows, calibrated on
    out-of-fold predictions), then the rule."""
    booster = GradientBoostingPeer(library=library, n_estimators=n_estimators, learning_rate=learning_rate,
                                   max_bins=max_bins, cost_matrix=cost_matrix, weighting="none",
                                   random_state=random_state)
    return TunedCalibratedBayesClassifier(booster, param_grid={"max_depth": list(max_depth_grid)}, val_size=val_size,
                                          method=method, cv=cv, cost_matrix=cost_matrix, labels=labels,
                                          random_state=_split_seed(random_state, selection_seed), patience=patience,
                                          refit=refit)


def gbdt_weighted(library="sklearn", n_estimators=200, max_depth_grid=GBDT_DEPTHS, learning_rate=0.1, max_bins=255,
                  val_size=1 / 3, patience=None, refit=False, cost_matrix=None, labels=None, random_state=None,
                  selection_seed=None):
    """Gradient boosting trained with cost-derived example weights (:func:`~csrepro.baselines.cost_weights`),
    ``max_depth`` and rounds chosen by validation cost (:class:`RoundsOnValidation`), argmax decisions."""
    booster = GradientBoostingPeer(library=library, n_estimators=n_estimators, learning_rate=learning_rate,
                                   max_bins=max_bins, cost_matrix=cost_matrix, weighting="cost", labels=labels,
                                   random_state=random_state)
    return RoundsOnValidation(booster, val_size=val_size, criterion="cost", cost_matrix=cost_matrix,
                              param_grid={"max_depth": list(max_depth_grid)}, labels=labels,
                              random_state=_split_seed(random_state, selection_seed), patience=patience, refit=refit)


def logistic_bayes(C_grid=LOGISTIC_CS, max_iter=1000, val_size=1 / 3, refit=False, cost_matrix=None, labels=None,
                   random_state=None, selection_seed=None):
    """Multinomial logistic regression, C chosen from ``C_grid`` by the validation cost of the minimum-expected-cost
    rule on its probabilities (:class:`RoundsOnValidation` over :class:`BayesRuleClassifier`), that rule at test
    time (with ``refit``: the chosen C refitted on all rows)."""
    model = BayesRuleClassifier(MultinomialLogisticRegression(max_iter=max_iter), cost_matrix=cost_matrix)
    return RoundsOnValidation(model, val_size=val_size, criterion="cost", cost_matrix=cost_matrix,
                              param_grid={"estimator__C": list(C_grid)}, labels=labels,
                              random_state=_split_seed(random_state, selection_seed), refit=refit)


# ----- the registry ------------------------------------------------------------------------------
METHODS: dict[str, MethodSpec] = {
    "mcboost": MethodSpec(MCBoostClassifier, {"loss": "mcboost"}, "Saberian & Vasconcelos 2011; Beijbom 2014 eq. 22", False),
    "p_mcboost": MethodSpec(MCBoostClassifier, {"loss": "mcboost", "decision": "bayes"}, "Beijbom 2014 eqs. 33 + 3"),
    "gel_mcboost": MethodSpec(MCBoostClassifier, {"loss": "gel"}, "Beijbom 2014 eq. 20"),
    "gll_mcboost": MethodSpec(MCBoostClassifier, {"loss": "gll"}, "Beijbom 2014 eq. 21"),
    "ls_mcboost": MethodSpec(MCBoostClassifier, {"loss": "ls"}, "Beijbom 2014 eq. 12"),
    "lt_mcboost": MethodSpec(MCBoostClassifier, {"loss": "lt"}, "Beijbom 2014 eq. 14"),
    "rebel": MethodSpec(REBELClassifier, {}, "Appel, Burgos-Artizzu & Perona 2016, eqs. 1-3 and Sec. 4", True),
    "rebel_standard": MethodSpec(rebel_standard, {}, "Appel, Burgos-Artizzu & Perona 2016 Sec. 5, Fig. 3 standard "
                                 "approach: cost-neutral REBEL + posteriors + Bayes rule (Beijbom 2014 eq. 3)", True),
    "adaboost_mh": MethodSpec(AdaBoostMHClassifier, {}, "Schapire & Singer 1999 AdaBoost.MH (Sec. 6 / Fig. 5) with "
                              "Sec. 4.2 real vector stumps; REBEL baseline", False),
    "ova_adaboost": MethodSpec(OneVsAllAdaBoostClassifier, {}, "Freund & Schapire 1997 AdaBoost, one-vs-all "
                               "(Schapire & Singer 1999 Sec. 6); REBEL baseline", False),
    "adaboost_ecc": MethodSpec(AdaBoostECCClassifier, {}, "Guruswami & Sahai 1999 AdaBoost.ECC (random-half colourings, "
                               "per-side votes alpha/beta) with uniform-threshold stumps; REBEL baseline", False),
    "cw_boost": MethodSpec(CWBoostClassifier, {}, "Shen & Hao 2011 CW-Boost (totally-corrective column generation, exp "
                           "loss, l1, class-wise stumps); REBEL baseline", False),
    "aoso_logitboost": MethodSpec(AOSOLogitBoostClassifier, {}, "Sun, Reid & Zhou 2012 AOSO-LogitBoost (ICML; arXiv "
                                  "1110.3907), stumps, per-node adaptive class pair + Newton step; REBEL baseline", False),
    "combo": MethodSpec(CoMBoClassifier, {}, "Koco & Capponi 2013, Algorithm 1, eqs. (11)-(13)", False),
    "adaboost_mm": MethodSpec(AdaBoostMMClassifier, {}, "Mukherjee & Schapire 2013 AdaBoost.MM, as summarised in Koco & "
                              "Capponi 2013 Sec. 2.2", False),
    "samme": MethodSpec(samme, {}, "Zhu, Zou, Rosset & Hastie 2009 SAMME (scikit-learn's AdaBoostClassifier, depth-d "
                        "trees); a baseline added to Koco & Capponi 2013 (not in the paper)", False),
    "smoteboost": MethodSpec(SMOTEBoostClassifier, {}, "Chawla, Lazarevic, Hall & Bowyer 2003 SMOTEBoost (AdaBoost.M2 "
                             "pseudo-loss, SMOTE every round); run by us, Koco & Capponi 2013 copy Wang & Yao 2012's",
                             False),
    "cs_svm": MethodSpec(CostSensitiveSVC, {"variant": "cs"}, "Masnadi-Shirazi 2011 thesis eqs. V.41-V.43"),
    "bp_svm": MethodSpec(CostSensitiveSVC, {"variant": "bp"}, "Masnadi-Shirazi 2011 thesis eq. V.1"),
    "bm_svm": MethodSpec(CostSensitiveSVC, {"variant": "bm"}, "Masnadi-Shirazi 2011 thesis Sec. V.A (boundary movement)"),
    "svm": MethodSpec(CostSensitiveSVC, {"variant": "svm"}, "standard SVM (thesis Sec. V.D)", False),
    "adaboost": MethodSpec(AdaBoostClassifier, {}, "Freund & Schapire 1997; thesis (VI.17)-(VI.22)", False),
    "realboost": MethodSpec(RealBoostClassifier, {}, "Friedman, Hastie & Tibshirani 2000 Alg. 2; thesis (VI.23)-(VI.24)", False),
    "logitboost": MethodSpec(LogitBoostClassifier, {}, "Friedman, Hastie & Tibshirani 2000 Alg. 3; thesis (VI.26)", False),
    "canonical_gradientboost": MethodSpec(CanonicalGradientBoostClassifier, {},
                                          "Masnadi-Shirazi 2011 thesis Alg. 1, (III.57)-(III.60)", False),
    "savageboost": MethodSpec(SavageBoostClassifier, {}, "Masnadi-Shirazi 2011 thesis Alg. 2, (IV.14)-(IV.18)", False),
    "tangentboost": MethodSpec(TangentBoostClassifier, {}, "Masnadi-Shirazi 2011 thesis Alg. 3, (IV.30)-(IV.38)", False),
}
DETECTION_RATES = (80.0, 82.5, 85.0, 87.5, 90.0, 92.5, 95.0)  # thesis Sec. V.E: 80% to 95% in steps of 2.5%
for _variant, _base in (("cs", "cs_svm"), ("bp", "bp_svm"), ("bm", "bm_svm"), ("svm", "svm")):
    _source = f"Masnadi-Shirazi 2011 thesis Sec. V.E, Table V.2 ({_base}: C, C1, C_-1 and b tuned to a detection rate)"
    # the _dr ids choose their parameters and threshold for a detection rate: the cost matrix is not used
    METHODS[f"{_base}_dr"] = MethodSpec(DetectionRateSVC, {"variant": _variant}, _source, False)
    # cost-sensitive for every variant: C (and the cost scale) are chosen by cross-validated cost
    METHODS[f"{_base}_cv"] = MethodSpec(CostRatioSVC, {"variant": _variant}, "Masnadi-Shirazi 2011 thesis Sec. V.E, "
                                        f"Table V.1 ({_base}: C and cost scale by cross-validated cost)", True)
    for _rate in DETECTION_RATES:  # e.g. cs_svm_dr_82_5: target_detection_rate 0.825
        METHODS[f"{_base}_dr_{_rate:g}".replace(".", "_")] = MethodSpec(
            DetectionRateSVC, {"variant": _variant, "target_detection_rate": _rate / 100}, _source, False)
for _rule, (_, _source) in DECISION_RULES.items():
    METHODS[_rule] = MethodSpec(rule_on_model, {"rule": _rule}, _source, True)
for _method in ("isotonic", "sigmoid"):  # named ids: an entry's `method:` key names the registry id
    METHODS[f"calibrated_{_method}"] = MethodSpec(rule_on_model, {"rule": "calibrated_bayes", "method": _method},
                                                  DECISION_RULES["calibrated_bayes"][1], True)
METHODS["cs_reduction"] = MethodSpec(cs_reduction, {}, "Beygelzimer et al. 2005-2009 cost-sensitive reductions "
                                     "(weighted all-pairs, filter tree, csoaa; the costsensitive package)")
_GBDT = ("gradient-boosted trees (scikit-learn HistGradientBoosting, LightGBM or XGBoost: `library`; Friedman 2001; "
         "Ke et al. 2017; Chen & Guestrin 2016), depth and rounds on validation by cost")
METHODS["gbdt_calibrated"] = MethodSpec(gbdt_calibrated, {}, f"{_GBDT}; Platt 1999 sigmoid by 3-fold CV "
                                        f"(scikit-learn CalibratedClassifierCV) + {OBRIEN} eq. (1)", True)
METHODS["gbdt_weighted"] = MethodSpec(gbdt_weighted, {}, f"{_GBDT}; example weights = mean misclassification cost of "
                                      "the class (Elkan 2001; Zhou & Liu 2006), argmax", True)
METHODS["logistic_bayes"] = MethodSpec(logistic_bayes, {}, "multinomial logistic regression (scikit-learn, lbfgs), C "
                                       f"on validation by cost + {OBRIEN} eq. (1)", True)
for _base, (_, _source) in {**BOOSTERS, **CALIBRATED}.items():
    METHODS[_base] = MethodSpec(make_base, {"base": _base}, _source, True)
    METHODS[f"{_base}_dr"] = MethodSpec(detection_rate, {"base": _base},
                                        f"{_source}; parameters and threshold for a detection rate, {THESIS} Sec. VI.E",
                                        False)
del _variant, _base, _source, _rate, _rule, _method


def method_names() -> list[str]:
    """All registered method ids, sorted."""
    return sorted(METHODS)


def get_method(name: str) -> MethodSpec:
    """The spec of ``name``; the error lists the valid ids."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r}; choose one of {method_names()}") from None


def validate_params(estimator) -> None:
    """scikit-learn's parameter validation (``_parameter_constraints``, as fit runs it) of ``estimator``,
    of every estimator among its parameters and of its inner ``estimator`` at each point of its
    ``param_grid``; raises InvalidParameterError (a ValueError)."""
    estimator._validate_params()
    params = estimator.get_params(deep=False)
    for value in params.values():
        if isinstance(value, BaseEstimator):
            validate_params(value)
    inner, grid = params.get("estimator"), params.get("param_grid")
    if isinstance(inner, BaseEstimator) and grid:
        for point in ParameterGrid(grid):
            validate_params(clone(inner).set_params(**point))


def supports_multiclass(estimator) -> bool:
    """Whether ``estimator`` fits more than two classes (scikit-learn's ``multi_class`` tag)."""
    return get_tags(estimator).classifier_tags.multi_class


def make_estimator(name: str, cost_matrix=None, random_state=None, **params):
    """Build method ``name`` with ``cost_matrix``, ``random_state`` and extra ``params``.

    ``cost_matrix[j, k]`` = cost of predicting class k when the truth is class j (rows true, columns predicted, in
    the order of the estimator's ``classes_``: its ``labels`` as given, else sorted).  A cost-blind id warns
    (:class:`CostBlindWarning`, :meth:`MethodSpec.build`).  Parameters fixed by the method id (e.g. the loss of
    ``gll_mcboost``) cannot be overridden; the error names the clash.
    """
    spec = get_method(name)
    clash = sorted(set(params) & set(spec.fixed))
    if clash:
        raise ValueError(f"method {name!r} fixes {clash}; remove them from its params or pick another method id")
    return spec.build(cost_matrix=cost_matrix, random_state=random_state, **params)


def accepts(name: str, keyword: str, value, cost_matrix=None) -> bool:
    """Whether method ``name`` takes the keyword ``keyword`` (whatever it makes of ``value``)."""
    return get_method(name).accepts(keyword, value, cost_matrix)


def method_params(name: str, cost_matrix=None) -> list[str]:
    """The keywords method ``name`` takes (:meth:`MethodSpec.keywords`) when built with ``cost_matrix``."""
    return get_method(name).keywords(cost_matrix)
