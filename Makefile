# Every target sets up what it needs in .venv on first use (python3 with venv and pip required), and no
# more: `make train` the training extras, `make test` what the fast tests need, `make test-all`
# everything (Ray, the video and benchmark extras too). A later target adds its extras to the same .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: train demo test test-all docs bench clean

# torch, installed before the extras that need it (pyproject.toml asks only torch>=2.13). The default
# names the tested version because `pip install torch==2.13.0` finds a CPU wheel where pip has a CPU
# wheel source (as on this project's machines, a local wheel), while a bare `torch` or a range from PyPI
# on Linux is a CUDA build of several GB. For the CPU build anywhere:
#   make train TORCH_INDEX=https://download.pytorch.org/whl/cpu
# and TORCH_SPEC='torch>=2.13' (say) for another version.
TORCH_SPEC ?= torch==2.13.0
TORCH_INDEX ?=

# The extras each target installs (pyproject.toml's [project.optional-dependencies]).
EXTRAS_train := train,batched
EXTRAS_test := dev,train,tune,batched,render,web,docs
EXTRAS_all := dev,eval,bench,train,tune,batched,rllib,render,video,web,docs,openspiel,interop
EXTRAS_docs := docs
EXTRAS_demo :=

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	touch $@

$(VENV)/.torch: $(VENV)/.created
	$(PY) -m pip install --quiet "$(TORCH_SPEC)" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PY) -c "import torch; print('torch', torch.__version__, '(CUDA build)' if torch.version.cuda else '(CPU build)')"
	touch $@

# .installed-NAME: the package with the extras of EXTRAS_NAME (the core alone for an empty list; torch
# first where they need it).
$(VENV)/.installed-train $(VENV)/.installed-test $(VENV)/.installed-all: $(VENV)/.torch
$(VENV)/.installed-%: pyproject.toml $(VENV)/.created
	$(PY) -m pip install --quiet -e ".$(if $(EXTRAS_$*),[$(EXTRAS_$*)])"
	touch $@

## The main job: train MaskablePPO on a small budget, then print its evaluation table.
train: $(VENV)/.installed-train
	$(PY) train.py

## Watch a game between random legal players, the table printed at every decision.
demo: $(VENV)/.installed-demo
	$(VENV)/bin/trash-demo

# pytest's selection for `make test`: everything but the tests marked slow (about 5 s or more each) and
# those that drive a browser; `make test-all` runs those too.
FAST := not slow and not browser

## The fast tests (at most 5 minutes on an idle 2-core machine): lint, pytest on both cores without the slow
## and browser tests, then the documentation site built with --strict.
test: $(VENV)/.installed-test
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2 -m "$(FAST)"
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir $(VENV)/site

## Every test: the fast ones, the slow ones and the browser ones (Debian's chromium: .ci/run installs it).
test-all: $(VENV)/.installed-all
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -n 2
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir $(VENV)/site

## Serve the documentation site at http://127.0.0.1:8000/ (rebuilt as pages change).
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8000

## Speed figures: each script prints its figures and writes them to docs/speed/, then the README's
## headline table and the docs' speed tables are generated from those files.
bench: $(VENV)/.installed-all
	$(PY) benchmarks/bench_env.py --json docs/speed/env.json
	$(PY) benchmarks/bench_eval.py --deals 40000 --json docs/speed/eval.json
	$(PY) benchmarks/bench_batched.py --json docs/speed/batched.json
	$(PY) benchmarks/bench_vector_env.py --json docs/speed/vector_env.json
	$(PY) benchmarks/bench_selfplay.py --json docs/speed/selfplay.json
	$(PY) benchmarks/bench_selfplay.py --n-envs 64 --batch-size 512 --n-epochs 10 \
		--json docs/speed/selfplay_sb3_defaults.json
	$(PY) benchmarks/threads.py --json docs/speed/threads.json
	$(PY) benchmarks/bench_neighbor_batched.py --json docs/speed/neighbor_batched.json
	$(PY) benchmarks/bench_exact.py --json docs/speed/exact.json
	$(PY) benchmarks/compile_cost.py --json docs/speed/compile.json
	$(PY) benchmarks/action_check.py
	$(PY) benchmarks/fast_ppo.py --json docs/speed/fast_ppo.json
	$(PY) benchmarks/time_to_score.py --json docs/speed/time_to_score.json
	$(PY) benchmarks/time_to_score.py --algorithms maskable_ppo fast_ppo@tuned-v1 maskable_ppo@tuned-v1 \
		--json docs/speed/time_to_score_tuned.json
	$(PY) benchmarks/time_to_score.py --task hyn-2p --algorithms maskable_ppo fast_ppo_throughput --fractions 1 10 \
		--target 0.8 --json docs/speed/hyn_ten_times.json
	$(PY) scripts/readme_tables.py

clean:
	rm -rf $(VENV) runs .pytest_cache
