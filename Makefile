# Stoker — set-up and test entry points. Needs only Python 3.11+ and make.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $$p && break; done)
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?=

.PHONY: demo test install install-test services bench bench-cloud clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Python 3.11+ is required"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e .
	@touch $@

$(VENV)/.installed-test: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

## make demo: the main job on the embedded default (SQLite + private Redis + sandbox cloud)
demo: install
	$(BIN)/stoker demo

## make test: install the test extras, start what the tests need, run the whole suite
test: install-test services
	$(BIN)/python -m pytest $(PYTEST_ARGS)

services:
	@bash scripts/ensure-services.sh

bench: install
	$(BIN)/python bench/engine_bench.py

## make bench-cloud: 200 servers + ports + volumes on the sandbox, 1 s per action (needs PostgreSQL + Redis)
bench-cloud: install services
	$(BIN)/python bench/cloud_bench.py

clean:
	rm -rf $(VENV) .pytest_cache
