# csrepro — every target bootstraps .venv itself (python3 -m venv + pip install -e '.[dev]').
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
N_JOBS ?= 2
# extra overrides for every run / report command of a target, e.g. RUN_ARGS="exp.n_trials=1 results.root=/tmp/r"
RUN_ARGS ?=
REPORT_ARGS ?=

# Data directory: CSREPRO_DATA_DIR if set, else the offline mirror next to the repo when present.
ifeq ($(origin CSREPRO_DATA_DIR), undefined)
  ifneq ($(wildcard ../shared/datasets/MANIFEST.csv),)
    export CSREPRO_DATA_DIR := $(abspath ../shared/datasets)
  endif
endif

.PHONY: install test reproduce-guess-averse report bench clean
# thesis Ch. III-IV (issue 5): one target per table group; reproduce-thesis-robust runs them all, then the reports
THESIS_ROBUST := gaussians uci-margin large outliers letter1 musk2
.PHONY: reproduce-thesis-robust $(addprefix reproduce-thesis-,$(THESIS_ROBUST))

$(STAMP): pyproject.toml setup.py $(wildcard csrepro/_kernels/*.pyx csrepro/_kernels/*.pxd csrepro/_kernels/*.tp \
                                            csrepro/_kernels/include/*.h)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'  # setup.py build_ext --inplace reads pyproject's SPDX license
# an older .venv may hold the GPU xgboost wheel; the CPU-only one (pyproject) installs the same module: remove it
	if [ "$$(uname)" != Darwin ] && $(BIN)/python -m pip show --quiet xgboost >/dev/null 2>&1; then \
	  $(BIN)/python -m pip uninstall --quiet -y xgboost xgboost-cpu nvidia-nccl-cu12; fi
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# the suite over every core (pytest-xdist; each module on one worker, longest first: tests/conftest.py; xdist's own
# order, modules with most tests first, would start the few-test long modules last), then the
# tests marked `pytest.mark.serial` alone in one process (collecting only the files that mark one); both print
# their slowest tests into the log.  One OpenMP/BLAS thread per worker: the workers already fill the cores.
# TEST_WORKERS=0 runs the first part in one process too.
TEST_WORKERS ?= auto
test: $(STAMP)
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not serial" --durations=30
	@serial="$$(grep -rl --include='*.py' --exclude-dir='.*' --exclude-dir=build -e 'mark\.serial' . | sort)"; \
	test -z "$$serial" || { set -x; $(BIN)/python -m pytest -q -p no:xdist -m serial --durations=10 $$serial; }

reproduce-guess-averse: $(STAMP)
	$(BIN)/python -m csrepro.run +exp=guess_averse_uci runner.n_jobs=$(N_JOBS) $(RUN_ARGS)
	$(BIN)/python -m csrepro.report guess_averse_uci $(REPORT_ARGS)
	$(BIN)/python -m csrepro.report --fidelity $(REPORT_ARGS)

$(addprefix reproduce-thesis-,$(THESIS_ROBUST)): reproduce-thesis-%: $(STAMP)
	$(BIN)/python -m csrepro.run +exp=thesis_$(subst -,_,$*) runner.n_jobs=$(N_JOBS) $(RUN_ARGS)
	$(BIN)/python -m csrepro.report thesis_$(subst -,_,$*) $(REPORT_ARGS)

reproduce-thesis-robust: $(addprefix reproduce-thesis-,$(THESIS_ROBUST))
	$(BIN)/python -m csrepro.report --fidelity $(REPORT_ARGS)

# thesis Ch. VI (issue 6): Figure VI.2 (seconds), Tables VI.1-VI.2 (stumps), VI.3-VI.4 (trees),
# with a 10-fold outer pass; the -loo targets use the thesis' leave-one-out outer protocol (hours: see README)
CS_BOOST_TABLES := stumps trees stumps-loo trees-loo
.PHONY: reproduce-cs-boost-synthetic $(addprefix reproduce-cs-boost-,$(CS_BOOST_TABLES))
reproduce-cs-boost-synthetic: $(STAMP)
	$(BIN)/python -m csrepro.run +exp=cs_boost_synthetic runner.n_jobs=$(N_JOBS) $(RUN_ARGS)
	$(BIN)/python -m csrepro.report cs_boost_synthetic $(REPORT_ARGS)

$(addprefix reproduce-cs-boost-,$(CS_BOOST_TABLES)): reproduce-cs-boost-%: $(STAMP)
	$(BIN)/python -m csrepro.run +exp=cs_boost_uci_$(subst -,_,$*) runner.n_jobs=$(N_JOBS) $(RUN_ARGS)
	$(BIN)/python -m csrepro.report cs_boost_uci_$(subst -,_,$*) $(REPORT_ARGS)

# experiments too slow for their paper's generic target, each run by a target of its own
OWN_TARGET := rebel_mnist cs_boost_uci_stumps_loo cs_boost_uci_trees_loo leaderboard_full
.PHONY: reproduce-rebel-mnist
reproduce-rebel-mnist: $(STAMP)
	$(BIN)/python -m csrepro.run +exp=rebel_mnist runner.n_jobs=$(N_JOBS) $(RUN_ARGS)
	$(BIN)/python -m csrepro.report rebel_mnist $(REPORT_ARGS)

# CoMBo cross-check (Koco & Capponi 2013): AdaBoost.MM / CoMBo against scikit-multimodallearn's MumboClassifier /
# MuComboClassifier, which install only beside scikit-learn 1.5.x: their own git-ignored venv, run by the package
# step only (never imports csrepro); the data and compare steps run in $(VENV).  Writes experiments/combo/crosscheck.md,
# full output in $(XC_OUT).  XC_ARGS: extra options of experiments/combo/crosscheck_combo.py, e.g. XC_ARGS="--connect4-rows 0"
XC_VENV  := .venv-crosscheck
XC_BIN   := $(XC_VENV)/bin
XC_STAMP := $(XC_VENV)/.installed
XC_PKGS  := scikit-multimodallearn==0.1.0 scikit-learn==1.5.2 numpy==2.0.2 scipy==1.14.1 cvxopt==1.3.2 six==1.17.0
XC_OUT   ?= results/crosscheck_combo
XC_ARGS  ?=
.PHONY: crosscheck-combo
$(XC_STAMP):
	@start=$$(date +%s); \
	test -x $(XC_BIN)/python || $(PYTHON) -m venv $(XC_VENV) || exit $$?; \
	$(XC_BIN)/python -m pip install --quiet $(XC_PKGS) || exit $$?; \
	echo $$(( $$(date +%s) - start )) > $(XC_VENV)/.install_seconds
	touch $(XC_STAMP)

crosscheck-combo: $(STAMP) $(XC_STAMP)
	$(BIN)/python experiments/combo/crosscheck_combo.py data --out $(XC_OUT) $(XC_ARGS)
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(XC_BIN)/python experiments/combo/crosscheck_combo.py package --out $(XC_OUT) --jobs $(N_JOBS) $(XC_ARGS)
	$(BIN)/python experiments/combo/crosscheck_combo.py compare --out $(XC_OUT) --command "make crosscheck-combo$(if $(XC_ARGS), XC_ARGS=\"$(XC_ARGS)\")" $(XC_ARGS)

# any other paper P: every experiments/*/conf/exp/*.yaml with `paper: P` (dashes read as underscores) but those of OWN_TARGET,
# each run then reported, then FIDELITY.md; e.g. `make reproduce-rebel`
reproduce-%: $(STAMP)
	@exps="$$(grep -l '^paper: $(subst -,_,$*)$$' experiments/*/conf/exp/*.yaml | sed 's|.*/||; s|\.yaml$$||' | grep -vxF $(addprefix -e ,$(OWN_TARGET)))"; \
	test -n "$$exps" || { echo "make: no experiments/*/conf/exp/*.yaml has 'paper: $(subst -,_,$*)'; papers: $$(sed -n 's/^paper: \([a-z0-9_]\{1,\}\)$$/\1/p' experiments/*/conf/exp/*.yaml | sort -u | tr '\n' ' ')" >&2; exit 2; }; \
	for exp in $$exps; do \
	  $(BIN)/python -m csrepro.run +exp=$$exp runner.n_jobs=$(N_JOBS) $(RUN_ARGS) || exit $$?; \
	  $(BIN)/python -m csrepro.report $$exp $(REPORT_ARGS) || exit $$?; \
	done; \
	$(BIN)/python -m csrepro.report --fidelity $(REPORT_ARGS)

# issue 21: the cross-paper leaderboard (experiments/leaderboard/conf/exp/leaderboard.yaml; its peers LightGBM and XGBoost come with the
# `bench` extra), its report (results/leaderboard/) and the results website (results/site/)
.PHONY: leaderboard site
leaderboard: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python -m csrepro.run +exp=leaderboard runner.n_jobs=$(N_JOBS) $(RUN_ARGS)
	$(BIN)/python -m csrepro.report leaderboard $(REPORT_ARGS)
	$(BIN)/python -m csrepro.report --site $(REPORT_ARGS)

site: $(STAMP)
	$(BIN)/python -m csrepro.report --site $(REPORT_ARGS)

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	MALLOC_MMAP_THRESHOLD_=4000000 MALLOC_TRIM_THRESHOLD_=100000000 $(BIN)/python scripts/bench.py

clean:
	rm -rf build csrepro/_kernels/*.c csrepro/_kernels/*.so $(patsubst %.pyx.tp,%.pyx,$(wildcard csrepro/_kernels/*.pyx.tp))
