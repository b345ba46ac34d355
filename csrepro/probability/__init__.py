"""Probability models and calibration.

The probability estimators of O'Brien, Gupta & Gray 2008, Sec. 6: Laplace-corrected naive Bayes over quantised
features (:class:`QuantizedNaiveBayes`) and regularised QDA (:class:`RegularizedDiscriminantAnalysis`);
Platt's sigmoid calibration with the cost-sensitive threshold around any binary classifier
(:class:`PlattCalibrated`, :mod:`csrepro.probability.calibration`)."""

from csrepro.probability.calibration import PlattCalibrated
from csrepro.probability.naive_bayes import QuantizedNaiveBayes
from csrepro.probability.rda import RegularizedDiscriminantAnalysis

__all__ = ["PlattCalibrated", "QuantizedNaiveBayes", "RegularizedDiscriminantAnalysis"]
