"""Fixtures shared by the test modules that train or play policies."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from trash_env.trash import rules as core
from trash_env.trash.config import RulesConfig

ROOT = Path(__file__).resolve().parents[1]
# One math thread per process, for the tests here and the processes they start (set before torch is
# imported): pytest runs two workers on two cores, and torch's threads spinning beside another busy
# process make tiny networks train an order of magnitude slower.
os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="module")
def one_torch_thread() -> Iterator[None]:
    """One torch thread while a module trains and plays policies: two pytest workers each running
    torch on both cores slow tiny networks down by an order of magnitude."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def load_script(name: str) -> ModuleType:
    """A top-level script of the repository (``train``, ``train_rllib``: scripts, not package
    modules) imported from the repository root, once per process."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def train() -> ModuleType:
    """The training library behind ``trash-train`` and ``train.py`` (:mod:`agents.training.sb3`)."""
    pytest.importorskip("sb3_contrib")
    return importlib.import_module("agents.training.sb3")


@pytest.fixture
def next_decks(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """Decks for the hands the core deals after the first (R9 next hand, R7 redeal),
    in order. The core would shuffle a new deck; here it takes the next one."""
    decks: list[list[int]] = []

    def take_next(config: RulesConfig, rng: np.random.Generator) -> list[int]:
        assert decks, "the core dealt a hand the test did not stack"
        return decks.pop(0)

    monkeypatch.setattr(core, "shuffled_deck", take_next)
    return decks


@pytest.fixture(autouse=True)
def signal_handlers_restored() -> Iterator[None]:
    """Every test leaves the process's SIGINT and SIGTERM handlers as it found them: a handler left
    behind (SIG_IGN above all, which processes started later inherit) would change what later tests
    and the commands they start do on Ctrl-C."""
    import signal

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    yield
    after = {signum: signal.getsignal(signum) for signum in before}
    for signum, handler in before.items():
        signal.signal(signum, handler)  # restored either way, so one leak does not fail every later test
    changed = [signal.Signals(s).name for s in before if after[s] != before[s]]
    assert not changed, f"the test left {', '.join(changed)} handled by {[after[s] for s in before]}"
