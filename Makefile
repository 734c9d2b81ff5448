# Every target sets up what it needs in .venv on first use (python3 with venv and pip required).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test bench lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,eval,bench]"
	touch $@

## The main job: watch a rendered game between random legal players.
demo: $(VENV)/.installed
	$(PY) -m trash_env.demo

## The test suite (lint first, then pytest on both cores).
test: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2

## Speed figures for the README.
bench: $(VENV)/.installed
	$(PY) benchmarks/bench_env.py

clean:
	rm -rf $(VENV) runs .pytest_cache
