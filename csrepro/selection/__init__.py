"""Inner model selection on a training part: every search an estimator runs before its final fit.

* :mod:`csrepro.selection.detection_rate` -- parameters and threshold of any binary classifier for a
  target detection rate (thesis Sec. VI.E): :class:`DetectionRateClassifier`, and the folds,
  detected class and operating point shared with the SVM searches;
* :mod:`csrepro.selection.svm` -- the Ch. V SVM grids (thesis Sec. V.E): :class:`DetectionRateSVC`
  (Table V.2, a detection rate) and :class:`CostRatioSVC` (Table V.1, cross-validated cost), with
  kernel matrices and warm-started leave-one-out paths shared between fits;
* :mod:`csrepro.selection.inner_cv` -- :func:`inner_cv`, the grid search of an experiment entry's
  ``inner_cv: {param, values, folds}`` (csrepro.config.MethodEntry).

Work shared between fits on the same training part is kept in the bounded caches of
:mod:`csrepro.cache`.
"""
