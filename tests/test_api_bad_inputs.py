"""The estimator API's bad-input catalogue (issue 28): one row per bad call of a public estimator (or of the
registry / scorer), each with the exception it must raise and its one-line message (a regex).  Every bad input
stops with one line naming the problem; none gives a silent result."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import csrepro
from csrepro.methods import CostBlindWarning, make_estimator
from csrepro.metrics import make_cost_scorer
from csrepro.probability.naive_bayes import QuantizedNaiveBayes

RNG = np.random.default_rng(0)
X = RNG.normal(size=(36, 3))
Y = np.array(["cat", "dog", "bird"] * 12)
Y2 = np.array(["no", "yes"] * 18)
C3 = np.array([[0.0, 1.0, 20.0], [2.0, 0.0, 1.0], [10.0, 3.0, 0.0]])
C2 = np.array([[0.0, 1.0], [3.0, 0.0]])
Y_NONE = np.array(["cat", None, "bird"] * 12, dtype=object)

#: cost-sensitive multiclass estimators with a ``cost_matrix`` and ``labels`` (small, fast settings)
COST_SENSITIVE = {
    "MCBoostClassifier": lambda **kw: csrepro.MCBoostClassifier(n_estimators=2, **kw),
    "REBELClassifier": lambda **kw: csrepro.REBELClassifier(n_estimators=2, **kw),
    "BayesRuleClassifier": lambda **kw: csrepro.BayesRuleClassifier(QuantizedNaiveBayes(), **kw),
    "PartitionMatrixClassifier": lambda **kw: csrepro.PartitionMatrixClassifier(cv=2, **kw),
    "MetaCostClassifier": lambda **kw: csrepro.MetaCostClassifier(QuantizedNaiveBayes(), n_resamples=2, **kw),
    "CalibratedBayesClassifier": lambda **kw: csrepro.CalibratedBayesClassifier(LogisticRegression(), cv=2, **kw),
    "CostSensitiveReduction": lambda **kw: csrepro.CostSensitiveReduction(reduction="filter_tree", **kw),
    "GradientBoostingPeer": lambda **kw: csrepro.GradientBoostingPeer(n_estimators=2, **kw),
}

BAD_COST_MATRICES = [
    ("2x2 for 3 classes", C2, r"cost matrix is 2x2 but there are 3 classes"),
    ("NaN entry", [[0, np.nan, 1], [1, 0, 1], [1, 1, 0]], r"cost matrix entry C\[0, 1\] = nan is not finite"),
    ("negative entry", [[0, -1, 1], [1, 0, 1], [1, 1, 0]], r"cost matrix entry C\[0, 1\] = -1 is negative"),
    ("strings", [["0", "a", "1"], ["1", "0", "1"], ["1", "1", "0"]], r"cost matrix must be a numeric array"),
    ("not square", np.ones((3, 2)), r"cost matrix must be square, got shape \(3, 2\)"),
    ("1-D", np.ones(9), r"cost matrix must be 2-D with shape \(K, K\), got shape \(9,\)"),
    ("row without cost", [[0, 1, 1], [0, 0, 0], [1, 1, 0]], r"cost matrix row 1 \(true class '.*'\) has no positive"),
]

BAD_LABELS = [
    ("duplicate", ["cat", "dog", "cat", "bird"], r"labels has duplicates \['cat'\]"),
    ("unknown training label", ["cat", "dog"], r"training labels \['bird'\] are not in labels=\['cat', 'dog'\]"),
    ("None in labels", ["cat", None, "bird"], r"labels\[1\] is None; every entry of labels must be a class label"),
    ("empty", [], r"labels must be a non-empty flat sequence of class labels"),
]


def _rows():
    rows = []
    for name, make in COST_SENSITIVE.items():
        for what, C, message in BAD_COST_MATRICES:
            if name == "REBELClassifier" and what == "row without cost":
                message = r"cost matrix row 1 \(true class '.*'\) has no positive"
            rows.append(pytest.param(lambda make=make, C=C: make(cost_matrix=C).fit(X, Y), ValueError, message,
                                     id=f"{name}-cost matrix {what}"))
        for what, labels, message in BAD_LABELS:
            rows.append(pytest.param(lambda make=make, labels=labels: make(labels=labels).fit(X, Y), ValueError,
                                     message, id=f"{name}-labels {what}"))
    return rows


#: y with a missing label, for every public estimator that fits multiclass data from defaults (or simple ones)
Y_NONE_ESTIMATORS = {
    **COST_SENSITIVE,
    "CoMBoClassifier": lambda **kw: csrepro.CoMBoClassifier(n_estimators=2, **kw),
    "AdaBoostMMClassifier": lambda **kw: csrepro.AdaBoostMMClassifier(n_estimators=2, **kw),
    "SMOTEBoostClassifier": lambda **kw: csrepro.SMOTEBoostClassifier(n_estimators=2, **kw),
    "AdaBoostMHClassifier": lambda **kw: csrepro.AdaBoostMHClassifier(n_estimators=2, **kw),
    "QuantizedNaiveBayes": lambda **kw: csrepro.QuantizedNaiveBayes(**kw),
    "RegularizedDiscriminantAnalysis": lambda **kw: csrepro.RegularizedDiscriminantAnalysis(**kw),
    "MultinomialLogisticRegression": lambda **kw: csrepro.MultinomialLogisticRegression(**kw),
    "AdaBoostClassifier": lambda **kw: csrepro.AdaBoostClassifier(n_estimators=2, **kw),
    "CSAdaBoostClassifier": lambda **kw: csrepro.CSAdaBoostClassifier(n_estimators=2, **kw),
    "CostSensitiveSVC": lambda **kw: csrepro.CostSensitiveSVC(**kw),
}

MISSING_LABEL = r"Unknown label type: y holds a missing label \(None or NaN\) at index 1"

ROWS = [
    *_rows(),
    *[pytest.param(lambda make=make: make().fit(X, Y_NONE), ValueError, MISSING_LABEL, id=f"{name}-y with None")
      for name, make in Y_NONE_ESTIMATORS.items()],
    pytest.param(lambda: csrepro.MCBoostClassifier(n_estimators=2).fit(X, np.array([1, None, 2] * 12, dtype=object)),
                 ValueError, MISSING_LABEL, id="MCBoostClassifier-numeric y with None"),
    # sample_weight: unsupported ones are refused under the public name, supported ones are checked
    *[pytest.param(lambda make=make: make().fit(X, Y, sample_weight=np.ones(len(Y))), TypeError,
                   rf"^{name}\.fit\(\) got an unexpected keyword argument 'sample_weight'$",
                   id=f"{name}-unsupported sample_weight")
      for name, make in (("PartitionMatrixClassifier", COST_SENSITIVE["PartitionMatrixClassifier"]),
                         ("LachicheFlachClassifier", lambda: csrepro.LachicheFlachClassifier(cv=2)),
                         ("MossmanClassifier", lambda: csrepro.MossmanClassifier(cv=2)),
                         ("MetaCostClassifier", COST_SENSITIVE["MetaCostClassifier"]),
                         ("BayesRuleClassifier", COST_SENSITIVE["BayesRuleClassifier"]))],
    *[pytest.param(lambda make=make, w=w, y=Y2 if name == "AdaBoostClassifier" else Y: make().fit(X, y,
                                                                                                   sample_weight=w),
                   ValueError, message, id=f"{name}-sample_weight {what}")
      for name, make in (("AdaBoostClassifier", Y_NONE_ESTIMATORS["AdaBoostClassifier"]),
                         ("CoMBoClassifier", Y_NONE_ESTIMATORS["CoMBoClassifier"]),
                         ("AdaBoostMMClassifier", Y_NONE_ESTIMATORS["AdaBoostMMClassifier"]),
                         ("REBELClassifier", COST_SENSITIVE["REBELClassifier"]),
                         ("MCBoostClassifier", COST_SENSITIVE["MCBoostClassifier"]))
      for what, w, message in (("wrong length", np.ones(5), r"sample_weight.shape == \(5,\), expected \(36,\)"),
                               ("negative", -np.ones(36), r"Negative values in data passed to `sample_weight`"),
                               ("all zero", np.zeros(36), r"Sample weights must contain at least one non-zero"))],
    # hyperparameters (scikit-learn's parameter validation, one line naming the parameter)
    *[pytest.param(lambda cls=cls, v=v: cls(n_estimators=v).fit(X, Y), ValueError,
                   rf"The 'n_estimators' parameter of {cls.__name__} must be an int in the range \[1, inf\)",
                   id=f"{cls.__name__}-n_estimators={v!r}")
      for cls in (csrepro.MCBoostClassifier, csrepro.REBELClassifier, csrepro.CoMBoClassifier)
      for v in (0, -3, "abc", 2.5, True)],
    *[pytest.param(lambda cls=cls: cls(n_estimators=True).fit(X, Y), ValueError,
                   rf"The 'n_estimators' parameter of {cls.__name__} must be an int in the range \[1, inf\)\. Got True",
                   id=f"{cls.__name__}-n_estimators=True")
      for cls in (csrepro.AdaBoostMMClassifier, csrepro.SMOTEBoostClassifier, csrepro.AdaBoostMHClassifier,
                  csrepro.AdaBoostClassifier, csrepro.CSAdaBoostClassifier, csrepro.GradientBoostingPeer)],
    pytest.param(lambda: csrepro.MCBoostClassifier(loss="nope").fit(X, Y), ValueError,
                 r"The 'loss' parameter of MCBoostClassifier must be a str among", id="MCBoostClassifier-loss"),
    pytest.param(lambda: csrepro.REBELClassifier(max_depth=9).fit(X, Y), ValueError,
                 r"The 'max_depth' parameter of REBELClassifier must be an int in the range \[1, 4\]",
                 id="REBELClassifier-max_depth"),
    pytest.param(lambda: csrepro.CoMBoClassifier(weak_learner="forest").fit(X, Y), ValueError,
                 r"The 'weak_learner' parameter of CoMBoClassifier must be a str among", id="CoMBoClassifier-weak"),
    pytest.param(lambda: csrepro.CSAdaBoostClassifier(C1=-1.0).fit(X, Y2), ValueError,
                 r"The 'C1' parameter of CSAdaBoostClassifier must be", id="CSAdaBoostClassifier-C1 negative"),
    pytest.param(lambda: csrepro.CSAdaBoostClassifier(C1=2.0, cost_matrix=[[0, 1], [3, 0]]).fit(X, Y2), ValueError,
                 r"C1=2.0 conflicts with cost_matrix C\[1, 0\]=3.0", id="CSAdaBoostClassifier-C1 vs cost_matrix"),
    pytest.param(lambda: csrepro.CSAdaBoostClassifier(cost_matrix=C3).fit(X, Y2), ValueError,
                 r"cost matrix is 3x3 but there are 2 classes", id="CSAdaBoostClassifier-3x3 costs"),
    pytest.param(lambda: csrepro.AdaBoostClassifier(n_estimators=2).fit(X, Y), ValueError,
                 r"Only binary classification is supported\. AdaBoostClassifier got 3 classes",
                 id="AdaBoostClassifier-3 classes"),
    pytest.param(lambda: csrepro.MossmanClassifier(cv=2).fit(np.vstack([X, X[:12]]), np.r_[Y, ["emu"] * 12]),
                 ValueError, r"MossmanClassifier implements Mossman's 3-class rule \(3\) but there are 4 classes",
                 id="MossmanClassifier-4 classes"),
    pytest.param(lambda: csrepro.RoundsOnValidation(csrepro.MCBoostClassifier(n_estimators=2), criterion="cost")
                 .fit(X, Y), ValueError, r"criterion='cost' needs a cost_matrix", id="RoundsOnValidation-no costs"),
    pytest.param(lambda: csrepro.RoundsOnValidation(csrepro.MCBoostClassifier(n_estimators=2), criterion="cost",
                                                    cost_matrix=C3, labels=["cat", "cat", "dog"]).fit(X, Y),
                 ValueError, r"labels has duplicates \['cat'\]", id="RoundsOnValidation-duplicate labels"),
    # the scorer
    pytest.param(lambda: make_cost_scorer(C3, labels=["cat", "dog", "cat"]), ValueError,
                 r"labels has duplicates \['cat'\]", id="make_cost_scorer-duplicate labels"),
    pytest.param(lambda: make_cost_scorer(C3, labels=None), ValueError, r"make_cost_scorer needs labels=",
                 id="make_cost_scorer-no labels"),
    pytest.param(lambda: make_cost_scorer(C2, labels=["cat", "dog", "bird"]), ValueError,
                 r"cost matrix is 2x2 but there are 3 classes", id="make_cost_scorer-wrong size"),
    pytest.param(lambda: make_cost_scorer(C3, labels=["cat", "dog", "emu"])(
        csrepro.MCBoostClassifier(n_estimators=1).fit(X, Y), X, Y), ValueError,
                 r"true labels \['bird'\] are not in labels=\['cat', 'dog', 'emu'\]", id="make_cost_scorer-unknown"),
    # the registry: a bad matrix for a cost-blind id is an error too (and a good one a warning, tested below)
    pytest.param(lambda: make_estimator("combo", cost_matrix=[[0, np.nan], [1, 0]]), ValueError,
                 r"cost matrix entry C\[0, 1\] = nan is not finite", id="registry-combo NaN costs"),
    pytest.param(lambda: make_estimator("adaboost_mm", cost_matrix=[["a", "b"], ["c", "d"]]), ValueError,
                 r"cost matrix must be a numeric array", id="registry-adaboost_mm string costs"),
]


@pytest.mark.parametrize("call, error, message", ROWS)
def test_bad_estimator_call_stops_with_one_line(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert "\n" not in str(info.value).strip(), str(info.value)


def test_the_catalogue_is_large():
    assert len(ROWS) >= 60


@pytest.mark.parametrize("name", ["combo", "adaboost_mm", "samme", "smoteboost", "adaboost_mh", "mcboost"])
def test_a_cost_matrix_for_a_cost_blind_id_warns(name):
    with pytest.warns(CostBlindWarning, match=f"method '{name}' is cost-blind"):
        make_estimator(name, cost_matrix=C3)


@pytest.mark.parametrize("sample_weight", [pytest.param(np.arange(36) % 4, id="integers with zeros"),
                                           pytest.param([0.5] * 36, id="a list of one constant"),
                                           pytest.param(np.linspace(0.1, 2.0, 36), id="floats")])
def test_mcboost_accepts_sample_weight(sample_weight):
    """MCBoost's algorithm takes example weights (the weighted risk (8)): sample_weight is accepted, a constant one
    changes nothing, others change the model (tests/boosting/test_mcboost.py checks what they mean)."""
    plain = csrepro.MCBoostClassifier(n_estimators=2, loss="gll", cost_matrix=C3).fit(X, Y)
    est = csrepro.MCBoostClassifier(n_estimators=2, loss="gll", cost_matrix=C3).fit(X, Y, sample_weight=sample_weight)
    assert set(est.predict(X)) <= set(Y)
    assert np.array_equal(est.coef_, plain.coef_) == (np.ptp(sample_weight) == 0)
