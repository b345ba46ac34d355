"""Probability estimators of O'Brien, Gupta & Gray 2008, Sec. 6: Laplace-corrected naive Bayes over quantised
features (:class:`QuantizedNaiveBayes`) and regularised QDA (:class:`RegularizedDiscriminantAnalysis`)."""

from csrepro.probability.naive_bayes import QuantizedNaiveBayes
from csrepro.probability.rda import RegularizedDiscriminantAnalysis

__all__ = ["QuantizedNaiveBayes", "RegularizedDiscriminantAnalysis"]
