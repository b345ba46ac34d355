"""Cost-sensitive SVMs (Masnadi-Shirazi thesis, Ch. V): CS-SVM, BP-SVM, BM-SVM and the SMO dual solver.

Their model selection (Sec. V.E, Tables V.1-V.2) is :mod:`csrepro.selection.svm`.
"""

from csrepro.svm.cs_svm import (
    CostSensitiveSVC,
    DualSolution,
    dual_terms,
    kernel_matrix,
    resolve_costs,
    solve_dual,
)

__all__ = ["CostSensitiveSVC", "DualSolution", "dual_terms", "kernel_matrix", "resolve_costs", "solve_dual"]
