# sampan: the two commands are `make test` and `make demo`; everything else follows from them.
#
#   make setup   Debian packages, .venv with requirements.txt, Jupyter kernel "sampan"
#   make build   configure (once) and build into build/
#   make test    C++ tests (ctest), Python tests (pytest), notebooks at SAMPAN_SCALE=small
#   make demo    the notebooks at SAMPAN_SCALE=full, executed into build/demo (HTML too)
#   make bench   bench/*.py and the C++ benchmark binaries in build/bench/
#   make clean   remove build/ (make distclean also removes .venv/)
#
# Environment: SAMPAN_JOBS (parallel compile jobs, default: all cores), CCACHE_DIR (default
# ~/.cache/sampan-ccache), SAMPAN_NOTEBOOK_TIMEOUT (seconds per notebook cell, default 600).

SHELL := /bin/bash
.DEFAULT_GOAL := build

BUILD_DIR := build
VENV_PYTHON := $(CURDIR)/.venv/bin/python
SAMPAN_JOBS ?= $(shell nproc)
export CCACHE_DIR ?= $(HOME)/.cache/sampan-ccache
# Paths under the checkout are hashed relative to it, so clones in other folders share the cache.
export CCACHE_BASEDIR ?= $(CURDIR)

CMAKE_CONFIGURE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release \
	-DPython3_EXECUTABLE=$(VENV_PYTHON)

.PHONY: setup build test demo bench clean distclean

setup:
	@bash scripts/setup.sh

build: setup
	@if [ ! -f $(BUILD_DIR)/build.ninja ]; then \
	  echo "build: configuring CMake into $(BUILD_DIR)/"; \
	  cmake -S . -B $(BUILD_DIR) $(CMAKE_CONFIGURE_FLAGS); \
	fi
	cmake --build $(BUILD_DIR) -j$(SAMPAN_JOBS)

# The three stages all run, so that one failure does not hide another; the target fails at the
# end if any did. pytest's exit status 5 ("no tests collected") is a warning, not a failure.
test: build
	@failed=""; \
	echo "== test: C++ tests (ctest)"; \
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j2 || failed="$$failed ctest"; \
	echo "== test: Python tests (pytest)"; \
	if [ -d tests/python ]; then \
	  $(VENV_PYTHON) -m pytest tests/python -q; status=$$?; \
	  if [ $$status -eq 5 ]; then echo "warning: pytest collected no tests in tests/python"; \
	  elif [ $$status -ne 0 ]; then failed="$$failed pytest"; fi; \
	else echo "warning: tests/python does not exist; no Python tests run"; fi; \
	echo "== test: notebooks (SAMPAN_SCALE=small)"; \
	SAMPAN_SCALE=small $(VENV_PYTHON) scripts/run_notebooks.py --out $(BUILD_DIR)/test-notebooks \
	  || failed="$$failed notebooks"; \
	if [ -n "$$failed" ]; then echo "make test: FAILED stage(s):$$failed"; exit 1; fi; \
	echo "make test: ctest, pytest and notebooks all succeeded"

demo: build
	SAMPAN_SCALE=full $(VENV_PYTHON) scripts/run_notebooks.py --out $(BUILD_DIR)/demo

bench: build
	@bash scripts/setup_bench.sh
	@failed=""; ran=0; \
	for script in bench/*.py; do \
	  [ -f "$$script" ] || continue; ran=$$((ran + 1)); \
	  echo "== bench: $$script"; \
	  $(CURDIR)/.venv-bench/bin/python "$$script" || failed="$$failed $$script"; \
	done; \
	for binary in $(BUILD_DIR)/bench/*; do \
	  [ -f "$$binary" ] && [ -x "$$binary" ] || continue; \
	  case "$$binary" in *.so|*.a|*.cmake) continue;; esac; \
	  ran=$$((ran + 1)); \
	  echo "== bench: $$binary"; \
	  "$$binary" || failed="$$failed $$binary"; \
	done; \
	if [ $$ran -eq 0 ]; then echo "warning: no benchmarks found (bench/*.py, $(BUILD_DIR)/bench/*)"; fi; \
	if [ -n "$$failed" ]; then echo "make bench: FAILED:$$failed"; exit 1; fi

clean:
	rm -rf $(BUILD_DIR)

distclean: clean
	rm -rf .venv .venv-bench .pytest_cache

# The guides (docs/*.md) and the API reference (docs/api/: the Python API from its docstrings, the
# ops from the op registry) as HTML in build/docs/html. Every warning is an error (-W; --keep-going
# lists them all before failing), and -E reads every page afresh so that no warning hides behind an
# incremental build. Sphinx imports sampan from python/, hence the dependency on build.
.PHONY: docs
docs: build
	$(VENV_PYTHON) -m sphinx -E -W --keep-going -b html -d $(BUILD_DIR)/docs/doctrees docs $(BUILD_DIR)/docs/html
