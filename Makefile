# The two commands of the README: `make demo` and `make test`. Both set everything up first
# (idempotent: a stamp in .venv records what was installed for which pyproject.toml).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip

.PHONY: demo test lint install install-test plugins browser postgres train train-venv train-lodo train-behaviour clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

# llama-cpp-python has no wheel on PyPI: pip builds it (about 10 minutes on 2 cores, cached by pip
# afterwards). A native build (-march=native) has crashed here at the first inference, and a
# generic one runs without AVX2 (several times slower), so the x86-64-v3 features are named; on a
# CPU without them the judge refuses to load with a message (judge/llama.py). Override CMAKE_ARGS
# for other CPUs.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF

$(VENV)/.stamp-runtime: pyproject.toml | $(BIN)/python
	@echo "Installing (the first run builds llama.cpp: about 10 minutes on 2 cores)"
	$(PIP) install -q -e '.[browser,local-llm]'
	$(BIN)/citation-verifier model install
	touch $@

$(VENV)/.stamp-test: pyproject.toml $(VENV)/.stamp-runtime
	$(PIP) install -q -e '.[test,ray]'
	touch $@

# The evaluation-framework plug-ins are tested against the frameworks themselves, in a venv of
# their own (ragas and DeepEval pin older rich and click than the CLI's) and, for promptfoo, the
# npm package under .plugins-node (its last release for Node.js 20).
PLUGINS := .venv-plugins
PROMPTFOO_VERSION := 0.121.20

$(PLUGINS)/.stamp: pyproject.toml
	$(PYTHON) -m venv $(PLUGINS)
	$(PLUGINS)/bin/python -m pip install -q --upgrade pip
	$(PLUGINS)/bin/python -m pip install -q -e '.[plugins]' 'pytest>=8' 'pytest-asyncio>=0.23' \
		'pytest-socket>=0.7' 'pytest-timeout>=2.3'
	touch $@

.plugins-node/.stamp-$(PROMPTFOO_VERSION):
	npm install --prefix .plugins-node --no-audit --no-fund --loglevel=error promptfoo@$(PROMPTFOO_VERSION)
	touch $@

plugins: $(PLUGINS)/.stamp .plugins-node/.stamp-$(PROMPTFOO_VERSION)

# JavaScript rendering is an embedded default: the first command sets up Chromium too.
install: $(VENV)/.stamp-runtime browser
install-test: $(VENV)/.stamp-test

demo: install
	$(BIN)/citation-verifier demo

lint: install-test
	$(BIN)/ruff check src tests tests_integrations bench
	$(BIN)/ruff format --check src tests tests_integrations bench
	$(BIN)/mypy
	$(BIN)/mypy tests_integrations

test: lint browser postgres plugins
	$(BIN)/pytest
	$(PLUGINS)/bin/pytest tests_integrations

# Debian's packages need root: apt-get runs through sudo for other users.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT  := $(SUDO) apt-get install -y -qq -o DPkg::Lock::Timeout=600

# Debian's Chromium, for JavaScript rendering and browser tests: Playwright drives it at
# /usr/bin/chromium (Playwright's own browser download cannot work without the internet).
browser:
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update -qq && $(APT) chromium >/dev/null)

# Debian's PostgreSQL server, for the audit tests: they start a throwaway cluster of their own on
# a loopback port (tests/pg_server.py) and stop it afterwards; nothing is left running.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		($(SUDO) apt-get update -qq && $(APT) postgresql >/dev/null)

# Train the claim checker from ../shared (docs/CHECKER_MODEL.md): its own venv with torch's CPU
# wheel, never the runtime's. Resumable: rerun after an interruption. Then export the ONNX model
# that ships (src/citation_verifier/data/checker/). Not run by CI.
TRAIN_VENV := .venv-train
TRAIN_RUNS ?= training/runs
TRAIN      := $(TRAIN_VENV)/bin/python -m training.train
EXPORT     := $(TRAIN_VENV)/bin/python -m training.export

train-venv:
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -q -e '.[train]'

train: train-venv
	$(TRAIN) --out $(TRAIN_RUNS)/checker
	$(EXPORT) $(TRAIN_RUNS)/checker/checkpoint.pt --ship fp32

# The behaviour stage (docs/CHECKER_MODEL.md; measured, not shipped): the shipped weights back
# from their ONNX file, then a second stage on the behavioural suite's train half
# (docs/BEHAVIOUR.md) with a replay of shared/train and the licensed rows; resumable like
# `make train`. Exported beside the run (CHECKER_MODEL_PATH=$(TRAIN_RUNS)/behaviour/model.onnx),
# never over the shipped file. The measured run changed its horizon from 398 to 260 steps at
# step 179 (to fit a session): this recipe is the 260-step one.
BEHAVIOUR := $(TRAIN_RUNS)/behaviour
train-behaviour: train-venv
	test -f $(TRAIN_RUNS)/shipped/checkpoint.pt || \
		$(TRAIN_VENV)/bin/python -m training.from_onnx $(TRAIN_RUNS)/shipped/checkpoint.pt
	$(TRAIN) --out $(BEHAVIOUR) --init-from $(TRAIN_RUNS)/shipped/checkpoint.pt \
		--in-domain-repeats 1 --shared-rows 2500 --behaviour-passages 800 --lr 2e-5 --warmup 20 \
		--horizon 260 --curve-every 100000
	$(EXPORT) $(BEHAVIOUR)/checkpoint.pt

# Leave-one-dataset-out (docs/CHECKER_MODEL.md): a general stage on shared/train alone, then an
# in-domain stage from its weights on the licensed sets' training rows (with a replay of
# shared/train): once with all four sets, once without each; then each set scored with the model
# that never saw it (bench/leave_one_dataset_out.py; needs `make install`).
LODO       := $(TRAIN_RUNS)/lodo
IN_DOMAIN  := --init-from $(LODO)/general/checkpoint.pt --in-domain-repeats 2 \
	--shared-rows 1200 --lr 4e-5 --warmup 10 --horizon 0
train-lodo: train-venv
	$(TRAIN) --out $(LODO)/general --in-domain-repeats 0 --horizon 2400
	$(EXPORT) $(LODO)/general/checkpoint.pt
	$(TRAIN) --out $(LODO)/all $(IN_DOMAIN)
	$(EXPORT) $(LODO)/all/checkpoint.pt
	for set in wice expertqa factcheckgpt checkcovid; do \
		$(TRAIN) --out $(LODO)/without-$$set $(IN_DOMAIN) --exclude $$set && \
		$(EXPORT) $(LODO)/without-$$set/checkpoint.pt || exit 1; \
	done
	$(VENV)/bin/python bench/leave_one_dataset_out.py --runs $(LODO)

clean:
	rm -rf $(VENV) $(TRAIN_VENV) build src/*.egg-info
