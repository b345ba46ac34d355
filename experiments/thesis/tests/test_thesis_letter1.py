"""Full-scale regression of thesis Table IV.3 (Letter-1, 1000 iterations; a few seconds on 4000 training rows).

Thesis findings: the exponential-loss boosters (AdaBoost, RealBoost) have "disproportionately high
error", the logistic and bounded losses improve on them, and TangentBoost is best.  Reproduced:
LogitBoost beats both exponential-loss boosters and SavageBoost beats RealBoost.  Not reproduced
(see experiments/thesis/NOTES.md): AdaBoost's collapse (3621 errors) and a TangentBoost that
learns (ours predicts "not O" everywhere: 604 errors, the published 602 being about the same).
"""

import numpy as np
import pytest

from csrepro.data.loaders import load_dataset


@pytest.fixture(scope="module")
def full(run_reduced):
    return run_reduced("thesis_letter1", [], needs=["letter"])


def test_logistic_and_savage_losses_beat_the_exponential_loss(full):
    rows, comparison, _ = full
    errors = rows.set_index("method")["errors"]
    assert errors["logitboost"] < min(errors["adaboost"], errors["realboost"])
    assert errors["savageboost"] < errors["realboost"]
    # Table IV.3's one cell within tolerance (Tangent, 604 vs 602) is TangentBoost predicting "not O" everywhere
    # (NOTES.md), so it is checked as that, not as a match: its errors are the test set's O's.
    n_o = comparison.loc[("Table IV.3", "letter_p1", "tangentboost"), "reproduced"]
    letter = load_dataset("letter_p1")
    assert errors["tangentboost"] == n_o == np.sum(letter.y[letter.predefined_test] == np.max(letter.y))


@pytest.mark.xfail(reason="TangentBoost predicts the majority class on Letter-1 (NOTES.md)", strict=True)
def test_tangentboost_is_best(full):
    rows, _, _ = full
    errors = rows.set_index("method")["errors"]
    assert errors["tangentboost"] < errors.drop("tangentboost").min()


def test_logitboost_with_algorithm_3s_lines_predicts_never_o(full):
    """Reading L (NOTES.md, "Linear weak learners"): LogitBoost with TangentBoost's least-squares lines, 1000
    iterations, predicts no O, so its errors are the test part's O's: those of the run's TangentBoost, and about the
    published Logit's 616."""
    from csrepro.boosting.binary import LogitBoostClassifier

    rows, _, _ = full
    letter = load_dataset("letter_p1")
    train, test = ~letter.predefined_test, letter.predefined_test
    clf = LogitBoostClassifier(n_estimators=1000, weak_learner="line").fit(letter.X[train], letter.y[train])
    predicted = clf.predict(letter.X[test])
    assert not (predicted == np.max(letter.y)).any()
    assert np.sum(predicted != letter.y[test]) == rows.set_index("method")["errors"]["tangentboost"]
