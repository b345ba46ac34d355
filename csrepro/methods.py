"""Registry of named methods: how an experiment's method id becomes a scikit-learn estimator."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import get_tags

from csrepro.boosting.binary import (
    AdaBoostClassifier,
    LogitBoostClassifier,
    RealBoostClassifier,
)
from csrepro.boosting.margin import (
    CanonicalGradientBoostClassifier,
    SavageBoostClassifier,
    TangentBoostClassifier,
)
from csrepro.boosting.mcboost import MCBoostClassifier
from csrepro.svm import CostSensitiveSVC
from csrepro.svm.selection import CostRatioSVC, DetectionRateSVC


@dataclass(frozen=True)
class MethodSpec:
    """A method id: its estimator class, fixed parameters, and where it comes from."""

    estimator: Callable[..., Any]
    fixed: dict = field(default_factory=dict)
    paper: str = ""
    cost_sensitive: bool = True


METHODS: dict[str, MethodSpec] = {
    "mcboost": MethodSpec(MCBoostClassifier, {"loss": "mcboost"}, "Saberian & Vasconcelos 2011; Beijbom 2014 eq. 22", False),
    "p_mcboost": MethodSpec(MCBoostClassifier, {"loss": "mcboost", "decision": "bayes"}, "Beijbom 2014 eqs. 33 + 3"),
    "gel_mcboost": MethodSpec(MCBoostClassifier, {"loss": "gel"}, "Beijbom 2014 eq. 20"),
    "gll_mcboost": MethodSpec(MCBoostClassifier, {"loss": "gll"}, "Beijbom 2014 eq. 21"),
    "ls_mcboost": MethodSpec(MCBoostClassifier, {"loss": "ls"}, "Beijbom 2014 eq. 12"),
    "lt_mcboost": MethodSpec(MCBoostClassifier, {"loss": "lt"}, "Beijbom 2014 eq. 14"),
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
    METHODS[f"{_base}_dr"] = MethodSpec(DetectionRateSVC, {"variant": _variant}, _source, _variant != "svm")
    METHODS[f"{_base}_cv"] = MethodSpec(CostRatioSVC, {"variant": _variant}, "Masnadi-Shirazi 2011 thesis Sec. V.E, "
                                        f"Table V.1 ({_base}: C and cost scale by cross-validated cost)",
                                        _variant != "svm")
    for _rate in DETECTION_RATES:  # e.g. cs_svm_dr_82_5: target_detection_rate 0.825
        METHODS[f"{_base}_dr_{_rate:g}".replace(".", "_")] = MethodSpec(
            DetectionRateSVC, {"variant": _variant, "target_detection_rate": _rate / 100}, _source, _variant != "svm")
del _variant, _base, _source, _rate


from csrepro.boosting.cs_methods import CS_BOOST_METHODS

METHODS.update({_name: MethodSpec(*_spec) for _name, _spec in CS_BOOST_METHODS.items()})


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

    Parameters fixed by the method id (e.g. the loss of ``gll_mcboost``) cannot be
    overridden; the error names the clash.
    """
    spec = get_method(name)
    clash = sorted(set(params) & set(spec.fixed))
    if clash:
        raise ValueError(f"method {name!r} fixes {clash}; remove them from its params or pick another method id")
    return spec.estimator(cost_matrix=cost_matrix, random_state=random_state, **spec.fixed, **params)
