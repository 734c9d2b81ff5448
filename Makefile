# Every target sets up what it needs in .venv on first use (python3 with venv and pip required).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: train demo test test-all docs bench clean

# Where pip looks for torch. Empty: pip's own configuration. `pip install torch==2.13.0` gets the CPU
# build only where pip has a CPU wheel source (as on this project's machines, a local wheel); from PyPI
# on Linux it is a CUDA build of several GB. For the CPU build anywhere:
#   make test TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first, from TORCH_INDEX if given, so that the extras below find it installed.
	$(PY) -m pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -c "import torch; print('torch', torch.__version__, '(CUDA build)' if torch.version.cuda else '(CPU build)')"
	$(PY) -m pip install --quiet -e ".[dev,eval,bench,train,batched,rllib,render,video,web,docs]"
	touch $@

## The main job: train MaskablePPO on a small budget, then print its evaluation table.
train: $(VENV)/.installed
	$(PY) train.py

## Watch a rendered game between random legal players.
demo: $(VENV)/.installed
	$(VENV)/bin/trash-demo

# pytest's selection for `make test`: everything but the tests marked slow (about 15 s or more each) and
# those that drive a browser; `make test-all` runs those too.
FAST := not slow and not browser

## The fast tests (at most 5 minutes on an idle 2-core machine): lint, pytest on both cores without the slow
## and browser tests, then the documentation site built with --strict.
test: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 -m "$(FAST)"
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir $(VENV)/site

## Every test: the fast ones, the slow ones and the browser ones (Debian's chromium: .ci/run installs it).
test-all: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir $(VENV)/site

## Serve the documentation site at http://127.0.0.1:8000/ (rebuilt as pages change).
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8000

## Speed figures for the README.
bench: $(VENV)/.installed
	$(PY) benchmarks/bench_env.py
	$(PY) benchmarks/bench_eval.py
	$(PY) benchmarks/bench_batched.py
	$(PY) benchmarks/bench_selfplay.py

clean:
	rm -rf $(VENV) runs .pytest_cache
