# exactalign — every target works from a fresh clone with only Python 3 installed.
#
# Installs are pinned: every target installs through requirements/constraints.txt (the lock,
# compiled by `make lock` from pyproject.toml's ranges, requirements/tools.in and the deliberate
# holds in requirements/holds.in, for Python 3.10-3.13). `make test-latest` tries the newest
# release of every dependency in a separate venv, so a breaking release shows as a failing target.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
LOCK   := requirements/constraints.txt
LATEST := .venv-latest
JOBS   ?= 1
# `make test` runs a test file per worker on this many cores (pytest-xdist; 0: no workers).
TEST_JOBS ?= auto
# The lock also applies to the isolated build of the editable install (setuptools, wheel).
PIP_INSTALL = PIP_CONSTRAINT=$(abspath $(LOCK)) $(1) -m pip install --quiet --disable-pip-version-check

.PHONY: install data data-status test test-slow test-latest lock bench bench-peers bench-doc \
        experiments experiments-quick experiments-synthetic figures docs lint clean

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(call PIP_INSTALL,$(PY)) pip
	$(call PIP_INSTALL,$(PY)) -e '.[dev,peers,experiments,docs]'
	touch $(STAMP)

install: $(STAMP)         ## .venv with exactalign, its dev tools and the peer scorers, as locked

data: $(STAMP)            ## the pilot data from its public sources, verified, into the cache
	$(PY) -m exactalign data fetch

data-status: $(STAMP)     ## which data directory is in use, and its files verified
	$(PY) -m exactalign data status

test: $(STAMP)            ## default suite (TEST_JOBS workers, every core); pilot-data tests skip without data
	$(PY) -m pytest -q -n $(TEST_JOBS) --dist loadfile

test-slow: $(STAMP)       ## the slow tests only
	$(PY) -m pytest -q -m slow -n $(TEST_JOBS) --dist loadfile

test-latest:              ## the suite on the newest release of every dependency (no lock), own venv
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(LATEST)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade \
	    --upgrade-strategy eager -e '.[dev,peers,experiments,docs]'
	$(LATEST)/bin/python -m pip list --disable-pip-version-check --format=freeze \
	    | grep -i -E '^(highspy|numpy|scipy|pulp|penman|smatch|smatchpp|metametric|scorch)=='
	$(LATEST)/bin/python -m pytest -q -p no:cacheprovider -n $(TEST_JOBS) --dist loadfile

lock: $(STAMP)            ## recompile requirements/constraints.txt (newest releases within the ranges)
	$(call PIP_INSTALL,$(PY)) uv
	$(VENV)/bin/uv pip compile pyproject.toml requirements/tools.in --extra dev --extra peers --extra experiments --extra docs \
	    --universal --python-version 3.10 -c requirements/holds.in --upgrade \
	    --annotation-style line --custom-compile-command "make lock" -o $(LOCK)

bench: $(STAMP)           ## pytest-benchmark timings (not assertions)
	$(PY) -m pytest -q -m "not slow" --benchmark-enable --benchmark-only tests/bench

bench-peers: $(STAMP)     ## exactalign vs each peer, one run: results/performance/ (set EXACTALIGN_EVMEVAL, EXACTALIGN_CONLL_SCORER, EXACTALIGN_TE3_TOOLKIT to your checkouts, or their rows are skipped)
	$(PY) -m experiments run performance --out results --fresh
	$(PY) -m experiments figures --out results performance

bench-doc: $(STAMP)       ## exact Smatch on held-out document pairs (250-3,000 variables, 50 x 1,000) vs the peers: results/doc_scale/ (fetches the Bio AMR banks first)
	$(PY) -m exactalign data fetch --only heldout/amr-bio \
	    || echo "bench-doc: Bio AMR banks not fetched: synthetic documents" >&2
	$(PY) -m experiments run doc_scale --out results --fresh
	$(PY) -m experiments figures --out results doc_scale

experiments: $(STAMP)     ## every experiment, full size, writing results/ (results-synthetic/ without pilot data)
	$(PY) -m experiments run --all --jobs $(JOBS)
	$(PY) -m experiments figures

experiments-quick: $(STAMP)  ## every experiment on a small slice (< 3 min), into results-quick/
	$(PY) -m experiments run --all --quick --out results-quick --jobs $(JOBS)
	$(PY) -m experiments figures --out results-quick

experiments-synthetic: $(STAMP)  ## experiments-quick with the pilot data switched off, checked
	EXACTALIGN_DATA=none $(MAKE) experiments-quick
	EXACTALIGN_DATA=none EXACTALIGN_NO_DATA_RESULTS=results-quick $(PY) -m pytest -q \
		-p no:cacheprovider tests/test_experiments.py -k without_pilot_data

figures: $(STAMP)         ## figures from results/*/rows.csv only
	$(PY) -m experiments figures --out results

docs: $(STAMP)            ## the documentation site into site/ (mkdocs build --strict)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

lint: $(STAMP)
	$(PY) -m ruff check exactalign experiments tests

clean:
	rm -rf $(VENV) $(LATEST) build dist *.egg-info .pytest_cache .hypothesis .benchmarks \
	    .ruff_cache results-quick site
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
