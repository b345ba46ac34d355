"""Full-scale regression of thesis Table IV.3 (Letter-1, 1000 iterations; a few seconds on 4000 training rows).

Thesis findings: the exponential-loss boosters (AdaBoost, RealBoost) have "disproportionately high
error", the logistic and bounded losses improve on them, and TangentBoost is best.  Reproduced:
LogitBoost beats both exponential-loss boosters and SavageBoost beats RealBoost.  Not reproduced
(see experiments/thesis/NOTES.md): AdaBoost's collapse (3621 errors) and a TangentBoost that
learns (ours predicts "not O" everywhere: 604 errors, the published 602 being about the same).
"""

import pytest


@pytest.fixture(scope="module")
def full(run_reduced):
    return run_reduced("thesis_letter1", [], needs=["letter"])


def test_logistic_and_savage_losses_beat_the_exponential_loss(full):
    rows, comparison, _ = full
    errors = rows.set_index("method")["errors"]
    assert errors["logitboost"] < min(errors["adaboost"], errors["realboost"])
    assert errors["savageboost"] < errors["realboost"]
    assert comparison.loc[("Table IV.3", "letter_p1", "tangentboost"), "within"]


@pytest.mark.xfail(reason="TangentBoost predicts the majority class on Letter-1 (NOTES.md)", strict=True)
def test_tangentboost_is_best(full):
    rows, _, _ = full
    errors = rows.set_index("method")["errors"]
    assert errors["tangentboost"] < errors.drop("tangentboost").min()
