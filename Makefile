# exactalign — every target works from a fresh clone with only Python 3 installed.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
JOBS   ?= 1

.PHONY: install test test-slow bench experiments experiments-quick figures lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)            ## default suite (< 10 min on 2 cores); pilot-data tests skip without data
	$(PY) -m pytest -q

test-slow: $(STAMP)       ## the slow tests only
	$(PY) -m pytest -q -m slow

bench: $(STAMP)           ## pytest-benchmark timings (not assertions)
	$(PY) -m pytest -q -m "not slow" --benchmark-enable --benchmark-only tests/bench

experiments: $(STAMP)     ## every experiment, full size, writing results/
	$(PY) -m experiments run --all --out results --jobs $(JOBS)
	$(PY) -m experiments figures --out results

experiments-quick: $(STAMP)  ## every experiment on a small slice (< 3 min), into results-quick/
	$(PY) -m experiments run --all --quick --out results-quick --jobs $(JOBS)
	$(PY) -m experiments figures --out results-quick

figures: $(STAMP)         ## figures from results/*/rows.csv only
	$(PY) -m experiments figures --out results

lint: $(STAMP)
	$(PY) -m ruff check exactalign experiments tests

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis .benchmarks .ruff_cache results-quick
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
