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
