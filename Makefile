# The two commands: `make html` builds the site, `make test` runs every test.
# Both create .venv from requirements.txt when it is missing or older than it.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SPHINXOPTS ?=
export PYTHONPATH := $(CURDIR)/_ext

.PHONY: html test validate lint livehtml clean venv

venv: $(STAMP)

$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

validate: $(STAMP)
	$(BIN)/python -m recipebook validate

lint: $(STAMP)
	$(BIN)/ruff check _ext tests conf.py
	$(BIN)/ruff format --check _ext tests conf.py

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf _build
