"""Fixtures shared by the test modules that train or play policies."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from helpers import EXTRA_OF_MODULE, missing_extra

from trash_env.trash import rules as trash
from trash_env.trash.config import TrashConfig

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

    def take_next(config: TrashConfig, rng: np.random.Generator) -> list[int]:
        assert decks, "the core dealt a hand the test did not stack"
        return decks.pop(0)

    monkeypatch.setattr(trash, "shuffled_deck", take_next)
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


def numba_threads_started() -> bool:
    """Whether Numba's thread pool has started in this process (its size is fixed from then on)."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return bool(getattr(parallel, "_is_initialized", False))


@pytest.fixture(autouse=True)
def numba_threads_kept() -> Iterator[None]:
    """No test leaves ``NUMBA_NUM_THREADS`` in the environment other than the size Numba's running thread
    pool was started with: Numba reads the environment again at every compile, and a different value
    then makes it refuse to run ("Cannot set NUMBA_NUM_THREADS to a different value once the threads
    have been launched"), failing every later test of the worker that compiles a kernel, whatever its
    file. The environment is set back to the pool's size and the test fails naming the values. (Before
    the pool starts, a command's ``--threads`` sets it for Numba to read: that is left as it is.)"""
    before = os.environ.get("NUMBA_NUM_THREADS")
    yield
    if not numba_threads_started():
        return
    config = sys.modules["numba"].config
    after = os.environ.get("NUMBA_NUM_THREADS")
    read = config.NUMBA_DEFAULT_NUM_THREADS if after is None else int(after) if after.strip().isdigit() else None
    if read == config.NUMBA_NUM_THREADS:
        return
    os.environ["NUMBA_NUM_THREADS"] = str(config.NUMBA_NUM_THREADS)
    raise AssertionError(
        f"the test changed NUMBA_NUM_THREADS from {before!r} to {after!r} while Numba's "
        f"{config.NUMBA_NUM_THREADS} threads ran"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A test that fails only because an optional extra is not installed is reported as skipped,
    naming the extra (the core suite runs with none of them; CI installs them all, so there this
    changes nothing). ``tests/test_layering.py`` checks separately that the core needs none."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None and call.when in ("setup", "call"):
        extra = missing_extra(call.excinfo.value)
        if extra is not None:
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"Skipped: needs the {extra} extra")


MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """A test module that cannot be imported only because an optional extra is missing is skipped,
    naming the extra, rather than an error."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and (match := MISSING_MODULE.search(str(report.longrepr))):
        top = match.group(1).partition(".")[0]
        extra = EXTRA_OF_MODULE.get(top)
        if extra is not None and importlib.util.find_spec(top) is None:
            report.outcome = "skipped"
            report.longrepr = (str(collector.path), 0, f"Skipped: needs the {extra} extra")
