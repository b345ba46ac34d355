"""Cost-sensitive SVMs (Masnadi-Shirazi thesis, Ch. V): CS-SVM, BP-SVM, BM-SVM and the SMO dual solver."""

from csrepro.svm.cs_svm import (
    CostSensitiveSVC,
    DualSolution,
    dual_terms,
    kernel_matrix,
    resolve_costs,
    solve_dual,
)

__all__ = ["CostSensitiveSVC", "DualSolution", "dual_terms", "kernel_matrix", "resolve_costs", "solve_dual"]
