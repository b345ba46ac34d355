"""Loss functions: multiclass score losses (``multiclass``) and binary margin losses (``binary``)."""

from csrepro.losses.multiclass import MULTICLASS_LOSSES, get_loss

__all__ = ["MULTICLASS_LOSSES", "get_loss"]
