# Two entry points (see README): `make demo` and `make test`.
# Both create their own virtual environment in .venv.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## Set up and run the main job: audit + calibrate the bundled demo data, then the seed demos.
demo: $(STAMP)
	$(VENV)/bin/veracity demo

## Set up and run the whole test suite (browser tests use Debian's chromium).
test: $(STAMP)
	bash scripts/ensure-chromium.sh
	$(PY) -m pytest -n 2 tests src/veracity

bench: $(STAMP)
	$(PY) benchmarks/bench_audit.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
