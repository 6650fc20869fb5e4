# The two commands of the README: `make demo` and `make test`. Both set everything up first
# (idempotent: a stamp in .venv records what was installed for which pyproject.toml).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: demo test lint install install-test browser clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.stamp-runtime: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[browser]'
	touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-runtime
	$(PIP) install -q -e '.[test,ray]'
	touch $@

install: $(VENV)/.stamp-runtime
install-test: $(VENV)/.stamp-test

demo: install
	$(BIN)/citation-verifier demo

lint: install-test
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

test: lint browser
	$(BIN)/pytest

# Debian's Chromium, for JavaScript rendering and browser tests: Playwright drives it at
# /usr/bin/chromium (Playwright's own browser download cannot work without the internet).
browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=600 chromium >/dev/null)

clean:
	rm -rf $(VENV) build src/*.egg-info
