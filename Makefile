# Two entry points (see README): `make demo` and `make test`.
# Both create their own virtual environment in .venv (runtime deps for the demo,
# the dev extra on top for the tests).
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
BASE    = $(VENV)/.installed-base
DEV     = $(VENV)/.installed-dev

.PHONY: demo test explore bench clean

$(BASE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[plot,progress]'   # the report's diagrams need matplotlib
	touch $(BASE)

$(DEV): $(BASE)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(DEV)

## Set up and run the main job: audit + calibrate the bundled demo data, the knowledge-graph
## example and the train/calibration/test study; then write the HTML report and print its path.
demo: $(BASE)
	$(VENV)/bin/veracity demo
	@$(VENV)/bin/veracity report --out report.html --quiet >/dev/null
	@echo "report: $(CURDIR)/report.html (open it in a browser; it works offline)"

## Set up and run the whole test suite (browser tests use Debian's chromium), after the type
## checker (mypy, configured in pyproject.toml: every error code on every module, strict on the core).
## Bytecode is cached (in the checkout's git-ignored __pycache__ folders) even where the environment
## says PYTHONDONTWRITEBYTECODE: else each of the suite's ~300 Python processes (the CLI run by the
## docs examples, the store's writer processes, ...) compiles veracity from source again.
test: $(DEV)
	bash scripts/ensure-chromium.sh
	bash scripts/ensure-java.sh
	$(PY) -m mypy
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 2 --dist loadgroup tests src/veracity

## The property tests with a new random search each run (`make test` repeats one fixed search)
explore: $(DEV)
	VERACITY_HYPOTHESIS=explore $(PY) -m pytest -n 2 --dist loadgroup tests

## Benchmarks (not part of the tests): each prints times and ratios against the peers.
bench: $(DEV)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	$(PY) benchmarks/bench_audit.py
	$(PY) benchmarks/bench_calibrators.py
	$(PY) benchmarks/bench_decisions.py
	$(PY) benchmarks/bench_honest.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache
