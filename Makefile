# The two commands: `make html` builds the site, `make test` runs every test.
# Both create .venv from requirements.txt when it is missing or older than it (or than
# pyproject.toml), and install the project itself in it (pip install -e .: the recipebook
# command and the recipebook_sphinx extension, from _ext/).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BUILD  := _build
SPHINXOPTS ?= -j auto
SPHINXBUILD = $(BIN)/sphinx-build -W --keep-going -c $(CONFDIR) $(SPHINXOPTS)
# The site's facts live in conf.py (recipebook_languages, recipebook_versions); read them from there.
CONF = $(shell $(PYTHON) -c "import runpy; c = runpy.run_path('conf.py'); print(c['$(1)'] if '$(2)' == '' else c['$(1)']['$(2)'])")
# (make html gives them to the make that builds each language, which does not read conf.py again;
# read only for a goal that builds the languages: a Python started for nothing costs 0.1 s)
ifneq ($(origin LANGUAGES),command line)
ifneq ($(filter html html-% search-report,$(MAKECMDGOALS)),)
LANGUAGES := $(shell $(PYTHON) -c "import runpy; print(*runpy.run_path('conf.py')['recipebook_languages'])")
endif
endif
# Where the portal publishes the site; canonical URLs, hreflang and the sitemap use it.
SITE_URL ?=
# Where readers report a result ("report a result" links on every explorer); empty: no link.
REPOSITORY_URL ?=
# A variable given on the command line (NAME=, VLLM=, SITE_URL=, ...) reaches a command as one
# shell word: single-quoted, each ' in it written '\'' (never as shell text of its own).
arg = '$(subst ','\'',$($(1)))'
SITEOPTS = $(if $(SITE_URL),-D recipebook_site_url=$(call arg,SITE_URL)) $(if $(REPOSITORY_URL),-D recipebook_repository_url=$(call arg,REPOSITORY_URL))

.PHONY: catalogs html html-en html-ko livehtml test test-js test-python test-batch system validate lint bench search-report clean venv recipe-page gettext intl-update intl-stats vocabulary drift crosscheck routerchart

venv: $(STAMP)

# the project without build isolation or dependencies: requirements.txt pins them all, setuptools too;
# a copy of the project that links another checkout's .venv (make test-batch, the portals) leaves
# that checkout installed
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	test -L $(VENV) || $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

# The languages build side by side (one sphinx-build each, on their own cores);
# LANGUAGE_JOBS=1 builds them one after the other, with the same output.
LANGUAGE_JOBS ?= $(words $(LANGUAGES))
# Every recipe is checked once, first, on every core (`recipebook validate`, its verdicts kept in
# $(VERDICTS) for the language builds, which read them instead of checking again); its words are
# printed at the end, once (each language's build fails on a recipe error without repeating it:
# recipebook_problems=fail). Only errors fail; STRICT=1 fails on a recipe warning too (validate -W).
STRICT ?=
SOURCEDIR ?= source
CONFDIR   ?= .
RECIPES   ?= recipes
VERDICTS   = $(abspath $(BUILD))/verdicts
# The translation catalogs are checked, then compiled, before anything is built or written
# (recipebook_sphinx/i18n/po_check.py): a catalog with a problem stops the build here, each problem
# at FILE:LINE. Each language's build checks them again when its extension loads, each catalog
# only if it changed since it was last checked and compiled (its stamp: po_check.py).
LOCALEDIR ?= locale
CATALOGS   = $(BIN)/python -m recipebook_sphinx.i18n --compile $(LOCALEDIR)
# The check runs only when what it reads differs from what last passed it, so an unchanged
# project's make html starts no Python for it: what it reads is hashed when make starts (a few
# milliseconds of find and sha256sum: every entry of the locale folder by its kind and name, each
# file's bytes, a link followed; the checker's code; conf.py, the site's MyST extensions), and a
# check that passes leaves a stamp named by the hash of the folder as it left it (its .mo
# written); the installed parsers are $(STAMP)'s. The hash is by content, not by time: a catalog
# edited in the same clock tick as a stamp is still seen.
CATALOGS_KEY = { (cd $(LOCALEDIR) && find -L . -mindepth 1 -not -name '.*' \( -type f -exec sha256sum {} + -o -printf '%y %p\n' \)) 2>&1; \
	find _ext/recipebook _ext/recipebook_sphinx -name '*.py' -exec sha256sum {} +; sha256sum conf.py; } | sha256sum | cut -c1-32
# (hashed only for a goal that checks the catalogs)
ifneq ($(filter catalogs html test-python $(if $(RECIPE_VERDICTS),,html-%),$(MAKECMDGOALS)),)
CATALOGS_CHECKED := $(LOCALEDIR)/.catalogs-$(shell $(CATALOGS_KEY)).checked
endif
$(CATALOGS_CHECKED): $(STAMP)
	@$(CATALOGS)
	@rm -f $(LOCALEDIR)/.catalogs-*.checked; touch $(LOCALEDIR)/.catalogs-$$($(CATALOGS_KEY)).checked

# the catalogs checked and compiled, as make html does first (and nothing else)
catalogs: $(STAMP) $(CATALOGS_CHECKED)

html: $(STAMP) $(CATALOGS_CHECKED)
	@mkdir -p $(BUILD); status=0; \
	$(BIN)/python -m recipebook validate $(if $(STRICT),--strict) --verdicts $(VERDICTS) $(filter-out %/schema.json,$(wildcard $(RECIPES)/*.json)) >$(BUILD)/validate.out 2>$(BUILD)/validate.err || status=1; \
	$(MAKE) --no-print-directory -j$(LANGUAGE_JOBS) $(addprefix html-,$(LANGUAGES)) LANGUAGES='$(LANGUAGES)' RECIPE_PROBLEMS=fail RECIPE_VERDICTS=$(VERDICTS) || status=$$?; \
	cat $(BUILD)/validate.out; cat $(BUILD)/validate.err >&2; exit $$status

$(addprefix html-,$(LANGUAGES)): html-%: $(STAMP) $(if $(RECIPE_VERDICTS),,$(CATALOGS_CHECKED))
	$(SPHINXBUILD) -b html -d $(BUILD)/doctrees/$* -D language=$* $(SITEOPTS) $(if $(RECIPE_PROBLEMS),-D recipebook_problems=$(RECIPE_PROBLEMS)) $(if $(RECIPE_VERDICTS),-D recipebook_verdicts=$(RECIPE_VERDICTS)) $(SOURCEDIR) $(BUILD)/html/$*

livehtml: $(STAMP)
	$(BIN)/sphinx-autobuild -c . -d $(BUILD)/doctrees/live --watch recipes --watch _ext source $(BUILD)/live

# Translators: extract, merge into locale/ko (sphinx-intl keeps translations, marks
# changed ones fuzzy, keeps removed ones as obsolete), and count.
gettext: $(STAMP)
	rm -rf $(BUILD)/gettext
	SOURCE_DATE_EPOCH=1767225600 $(BIN)/sphinx-build -q -W -b gettext -c . -d $(BUILD)/doctrees/gettext source $(BUILD)/gettext
	$(BIN)/python -m recipebook_sphinx.i18n.catalogs $(BUILD)/gettext

# Catalog lines are never rewrapped (recipebook_sphinx.i18n.catalogs.WIDTH), so a changed
# sentence is a small diff.
intl-update: gettext
	$(BIN)/python -m recipebook_sphinx.i18n.catalogs --update $(BUILD)/gettext locale ko

intl-stats: $(STAMP)
	$(BIN)/sphinx-intl stat -d locale -l ko

validate: $(STAMP)
	$(BIN)/python -m recipebook validate $(if $(STRICT),--strict)

recipe-page: $(STAMP)
	@test -n $(call arg,NAME) || { echo "usage: make recipe-page NAME=<recipe name>"; exit 2; }
	$(BIN)/python -m recipebook_sphinx.newpage $(call arg,NAME)

# Ruff, the engine's layers as import-linter contracts (pyproject.toml [tool.importlinter]), and
# mypy --strict on the engine and the adapter (pyproject.toml [tool.mypy]).
lint: $(STAMP)
	$(BIN)/ruff check _ext tests bench tools conf.py
	$(BIN)/ruff format --check _ext tests bench tools conf.py
	$(BIN)/lint-imports --no-cache --no-logo
	$(BIN)/mypy

# The outside judges from npm (axe-core, the Nu Html Checker), exactly as package-lock.json
# pins them (npm ci refuses a lock that package.json's dependencies disagree with; the rest of
# package.json, its test script, installs nothing); install scripts are skipped (vnu-jar's would
# download a Java runtime; Debian's is used, see .ci/run).
# A node_modules linked from another checkout (a worktree, make test-batch's copy) is that
# checkout's: npm ci would empty it through the link while others read it, so it is left alone.
node_modules/.installed: package-lock.json | system
	test -L node_modules || { npm ci --no-audit --no-fund --ignore-scripts && touch $@; }

# The Debian packages the tests drive (Chromium, shellcheck, msgfmt, Java, a CJK font, Node.js and
# npm, python3-venv): tools/system-packages installs the missing ones as root (apt-get), or says
# which to install. `make test` alone is what a new machine and CI (.ci/run) run.
system:
	@tools/system-packages

# make test: the lint, the JavaScript tests that need no site (`npm test`, in Node.js: tests/js/)
# and pytest, side by side (-j 3): the first two take single seconds of one core while pytest's
# workers start. Their output is printed whole when each ends (-O); pytest's as it runs (its line
# starts with +, which -O leaves alone). Any of them failing fails make test, once all have ended.
# pytest: one worker per core (pytest-xdist); the tests of a file run on one worker, in order, so
# what a file builds once (a portal, a site of its own) is built once. The workers take the files
# in the order tests/conftest.py gives them, heaviest first (--no-loadscope-reorder keeps it; xdist
# would sort the files by their number of tests). TEST_JOBS=0: no workers.
TEST_JOBS ?= auto
test: system $(STAMP) node_modules/.installed
	@$(MAKE) --no-print-directory -O -j 3 lint test-js test-python

test-js: node_modules/.installed
	npm --silent test

# (the checkout's catalogs checked and compiled first, once, when they changed: the suite's builds and
# its copies of the project then find them compiled, and stamped, instead of each doing it)
# The suite starts a few hundred Python processes on the same sources: each writes the bytecode it
# compiles (__pycache__, ignored by git) for the next to read, even where the environment turns
# that off (PYTHONDONTWRITEBYTECODE=1: every process, and each worker's assertion rewriting of every
# test module, compiled the sources again; about 1.7 core-s a worker's start alone).
test-python: $(STAMP) $(CATALOGS_CHECKED)
	+PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

# `make test` in a temporary copy of the project with the recipes of tests/batch added (their
# pages and Korean entries too): any valid recipe keeps the suite green (tests/batch/run.py).
test-batch: $(STAMP) node_modules/.installed
	$(BIN)/python tests/batch/run.py $(PYTEST_ARGS)

# Build and engine figures (bench/run.py), ratios measured in one run, and the peak memory of each
# step's processes: prints the table, writes it to _build/bench.md and the figures to
# _build/bench.json (never into README.md). BENCH_ARGS=--quick: every step at its smallest, once.
bench: $(STAMP)
	mkdir -p $(BUILD)
	$(BIN)/python bench/run.py --markdown $(BUILD)/bench.md --json $(BUILD)/bench.json $(BENCH_ARGS)

# The search's figures on the reader query sets and the summaries of ten common queries per
# language, measured in Chromium on the built site (bench/search_report.py), written to
# _build/search-report.md, and on the test suite's portal (built in _build/portal, bench/portal.py
# --suite) its own sets. SEARCH_ARGS=--before DIR adds another built tree's figures.
search-report: html
	$(BIN)/python bench/search_report.py --out $(BUILD)/search-report.md --portal $(BUILD)/portal $(SEARCH_ARGS)

# Regenerate the vllm serve vocabulary (flags, JSON fields, env names) from the released
# source of a vLLM / vllm-rbln pair; needs the network, unlike the build and the tests.
# (read from conf.py by the targets that use them, only)
PINNED_VLLM = $(call CONF,recipebook_versions,vllm)
VLLM      ?= $(PINNED_VLLM)
VLLM_RBLN ?= $(call CONF,recipebook_versions,vllm-rbln)
vocabulary: $(STAMP)
	$(BIN)/python -m tools.vocabulary --vllm $(call arg,VLLM) --vllm-rbln $(call arg,VLLM_RBLN)

# What a vLLM / vllm-rbln release breaks in the recipes: write its vocabulary (downloads like
# `make vocabulary`; the file is overwritten), then report every flag, value,
# JSON field and environment name it removed, renamed or retyped, at file:line:col.
# Example: make drift VLLM=0.33.0 VLLM_RBLN=0.12.0
# CROSSCHECK=1 also parses every command with that release's real parser (make crosscheck's venv
# for that release, set up on first use: pip, about 6 minutes and 5.6 GB), beside the offline report.
CROSSCHECK ?=
drift: $(STAMP)
	@test $(call arg,VLLM) != "$(PINNED_VLLM)" || { echo "usage: make drift VLLM=<other release> VLLM_RBLN=<its vllm-rbln> [CROSSCHECK=1]"; exit 2; }
	$(BIN)/python -m tools.vocabulary --vllm $(call arg,VLLM) --vllm-rbln $(call arg,VLLM_RBLN)
	$(BIN)/python -m recipebook drift --vocabulary _ext/recipebook/data/vllm-$(call arg,VLLM).json $(if $(CROSSCHECK),|| status=$$?; $(BIN)/python -m tools.crosscheck --vllm $(call arg,VLLM) --vllm-rbln $(call arg,VLLM_RBLN) --parse-only && exit $${status:-0})

# Every command of every recipe judged by the real vLLM and vllm-rbln (the pinned ones, or
# VLLM=/VLLM_RBLN=): sets up its own venv once in .crosscheck/ with pip (about 6 minutes and
# 5.6 GB; CPU torch, vllm-rbln without its NPU dependencies, a stand-in for the RBLN SDK), then
# compares the vocabulary with vLLM's parser and env getters, parses every command, builds the
# config objects that take no model, evaluates every VLLM_* value. Exit 1 on any difference or refusal.
# ROUTER_CHART=<a git directory or work tree of llm-d/llm-d-router> also renders each router's
# values with the chart (helm template, through helm-python-sdk from PyPI).
ROUTER_CHART ?=
crosscheck: $(STAMP)
	$(BIN)/python -m tools.crosscheck --vllm $(call arg,VLLM) --vllm-rbln $(call arg,VLLM_RBLN) $(if $(ROUTER_CHART),--router-chart $(call arg,ROUTER_CHART))

# Regenerate the router chart's vocabulary from a checkout the maintainer fetched
# (ROUTER_CHART=<git directory or work tree of llm-d/llm-d-router>, ROUTER_REF=<its tag>).
ROUTER_REF ?= v0.10.0
routerchart: $(STAMP)
	@test -n $(call arg,ROUTER_CHART) || { echo "usage: make routerchart ROUTER_CHART=<llm-d/llm-d-router checkout> [ROUTER_REF=v0.10.0]"; exit 2; }
	$(BIN)/python -m tools.routerchart $(if $(wildcard $(ROUTER_CHART)/HEAD),--git,--source) $(call arg,ROUTER_CHART) --ref $(call arg,ROUTER_REF)

clean:
	rm -rf $(BUILD)
