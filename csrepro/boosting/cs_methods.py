"""Method ids of thesis Ch. VI (cost-sensitive boosting and its baselines) for :mod:`csrepro.methods`.

Three kinds of id, each a (estimator factory, fixed params, source, cost_sensitive) entry of
:data:`CS_BOOST_METHODS`:

* a booster at fixed costs (C1, C2 or the runner's cost matrix, see :func:`make_base`): ``cs_adaboost``,
  ``cs_realboost``, ``cs_logitboost``, ``csb0``, ``csb1``, ``csb2``, ``adac1``, ``adac2``,
  ``adac3``, ``adacost``;
* a Platt-calibrated baseline with the cost-sensitive threshold (:func:`platt`):
  ``adaboost_platt``, ``realboost_platt``, ``logitboost_platt``, ``svm_linear_platt``,
  ``svm_gauss_platt``, ``rforest_platt`` (17 trees of 4 leaves, Sec. VI.E.2);
* any of these plus ``_dr``: its parameters (``param_grid``) and threshold chosen for a target
  detection rate on the training part (:func:`detection_rate`; Sec. VI.E's protocol).
"""

from __future__ import annotations

from sklearn.ensemble import RandomForestClassifier
from sklearn.svm import SVC

from csrepro.boosting.binary import (
    AdaBoostClassifier,
    LogitBoostClassifier,
    RealBoostClassifier,
)
from csrepro.boosting.cost_sensitive import (
    CSAdaBoostClassifier,
    CSLogitBoostClassifier,
    CSRealBoostClassifier,
)
from csrepro.boosting.cs_baselines import (
    AdaC1Classifier,
    AdaC2Classifier,
    AdaC3Classifier,
    AdaCostClassifier,
    CSB0Classifier,
    CSB1Classifier,
    CSB2Classifier,
    PlattCalibrated,
)
from csrepro.detection_rate import DetectionRateClassifier

__all__ = ["BOOSTERS", "CALIBRATED", "CS_BOOST_METHODS", "detection_rate", "make_base", "platt"]

THESIS = "Masnadi-Shirazi 2011 thesis"
#: id -> (class, source)
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
                   cost_matrix=None, random_state=None, **base_params):
    """:class:`DetectionRateClassifier` over ``make_base(base, **base_params)``; ``param_grid`` names
    the base's parameters (e.g. {"C1": [1, 2, 4]}; Platt ids: {"estimator__C": [...]})."""
    return DetectionRateClassifier(make_base(base, **base_params), param_grid=param_grid,
                                   target_detection_rate=target_detection_rate, positive=positive, cv=cv,
                                   cv_seed=cv_seed, cost_matrix=cost_matrix, random_state=random_state)


CS_BOOST_METHODS: dict[str, tuple] = {}
for _name, (_, _src) in {**BOOSTERS, **CALIBRATED}.items():
    CS_BOOST_METHODS[_name] = (make_base, {"base": _name}, _src, True)
    CS_BOOST_METHODS[f"{_name}_dr"] = (detection_rate, {"base": _name},
                                       f"{_src}; parameters and threshold for a detection rate, {THESIS} Sec. VI.E",
                                       True)
del _name, _src
