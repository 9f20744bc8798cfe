# The two commands of the README: `make run` and `make test`. Both set themselves up.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

run: $(VENV)/.installed
	$(PY) -m app

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --strict

test: lint
	scripts/ensure-debian-packages
	$(PY) -m pytest -q -rs -n 3 --dist loadgroup --durations=25

bench: $(VENV)/.installed
	$(PY) benchmarks/evaluators.py
	$(PY) benchmarks/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
