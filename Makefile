# Stoker — set-up and test entry points. Needs only Python 3.11+ and make.
PYTHON ?= $(shell for p in python3.13 python3.12 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $$p && break; done)
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?=
# the suite's files run in this many processes (pytest-xdist; each file stays in one process, so a
# file's module fixtures start once); its tests wait on workers and sockets more than on the CPU
PYTEST_WORKERS ?= 4

.PHONY: demo test lint install install-test services browser keystone tempest bench bench-cloud clean

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

## make test: install the test extras, lint and type-check, start what the tests need, run the
## whole suite (its layer test, tests/unit/test_purity.py, checks every import against DESIGN.md).
## The suite starts hundreds of Python processes (workers, beat, APIs, CLIs): app/ and tests/ are
## byte-compiled first and the run may write bytecode even where PYTHONDONTWRITEBYTECODE is set,
## so no process compiles the project's modules again (~0.6 s CPU a process start).
test: lint services browser keystone
	$(BIN)/python -m compileall -q -j 0 app tests bench > /dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

## make lint: ruff over app/ and tests/, mypy --strict on the pure packages and the runtime
lint: install-test
	$(BIN)/python -m ruff check app tests
	$(BIN)/python -m mypy --strict app/templates app/engine app/convergence

## make keystone: the real Keystone of the identity tests, in its own venv (.keystone-venv, pinned)
keystone:
	@bash scripts/keystone-venv.sh

services:
	@bash scripts/ensure-services.sh

## make browser: Debian's chromium for the live stack page's browser test (playwright drives it)
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		DEBIAN_FRONTEND=noninteractive apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium; }

bench: install
	$(BIN)/python bench/engine_bench.py

## make bench-cloud: 200 servers + ports + volumes on the sandbox, 1 s per action (needs PostgreSQL + Redis)
bench-cloud: install services
	$(BIN)/python bench/cloud_bench.py

clean:
	rm -rf $(VENV) .keystone-venv .tempest-venv .pytest_cache

## make tempest: Heat's own suite (heat-tempest-plugin 3.0.0 api, functional and scenario tests,
## tempest 47.0.0, in .tempest-venv) against `stoker up --auth keystone` on the sandbox cloud;
## prints the counts, fails on any failure (scripts/tempest.sh; .ci/run runs it after make test)
tempest: install
	@STOKER_PYTHON=$(CURDIR)/$(BIN)/python bash scripts/tempest.sh
