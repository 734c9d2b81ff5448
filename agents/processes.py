"""Processes and signals: what training, evaluation workers and sweeps share.

- :class:`GracefulStop`: SIGINT and SIGTERM become a request to stop at the next
  safe point; a second signal exits at once, removing only the temporary files
  of writes in progress (:mod:`trash_env.files`), so no finished file is lost;
  :func:`run_stoppable` runs a prepared job under it.
- :func:`worker_setup`: the initializer of a worker process that runs beside others (Ctrl-C left
  to the main process, death with the parent, one thread per process).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TextIO

from trash_env.files import remove_partial_files

_PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies


def run_stoppable(
    settings: Any, prepare: Callable[[Any], Any], run: Callable[[Any, GracefulStop], Any], safe_point: str
) -> Any:
    """``run(prepare(settings), stop)`` with Ctrl-C and SIGTERM turned into ``stop`` requests;
    ``prepare`` checks everything (a ValueError) before ``run`` writes anything."""
    setup = prepare(settings)
    with GracefulStop(safe_point) as stop:
        return run(setup, stop)


def worker_signals() -> None:
    """In a worker process: leave Ctrl-C (SIGINT, sent by a terminal to the whole process group)
    to the main process, which stops its workers itself; let SIGTERM end the worker (a forked
    worker inherits the main process's handler); and on Linux, end with the main process: the
    kernel sends SIGKILL when the parent dies, so a killed or crashed main process leaves no
    orphans. (Not SIGTERM: a worker that trains installs :class:`GracefulStop`, which would turn
    it into a stop of the current run only, and the orphan would go on to the jobs still queued
    and write their result files.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))


THREADS_HELP = (
    "threads for torch, OpenMP and Numba (default: OMP_NUM_THREADS when set, else 1: the small networks here run "
    "fastest on one thread, and more threads fight over the cores with anything else running)"
)


def default_threads() -> int:
    """The thread count a command uses unless told: ``OMP_NUM_THREADS`` when it is set to a positive
    integer, else 1."""
    value = os.environ.get("OMP_NUM_THREADS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else 1


def set_threads(threads: int | None = None) -> int:
    """torch, OpenMP and Numba's parallel kernels to ``threads`` threads (None: :func:`default_threads`),
    for this process and the processes it starts; returns the count. Modules not imported yet read it
    from the environment when they are.

    Why one by default: torch's default is one thread per core, and for the 128x128 networks trained
    here the threads spend their time synchronising; with anything else running on the machine they
    also fight for the cores. ``benchmarks/threads.py`` measures it (docs/speed.md)."""
    count = default_threads() if threads is None else threads
    if count < 1:
        raise ValueError(f"--threads must be at least 1, got {count}")
    os.environ["OMP_NUM_THREADS"] = str(count)
    numba = sys.modules.get("numba")
    if numba is None:
        os.environ["NUMBA_NUM_THREADS"] = str(count)
    else:
        with contextlib.suppress(Exception):  # at most the count Numba was started with
            numba.set_num_threads(min(count, numba.config.NUMBA_NUM_THREADS))
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)
    return count


@contextlib.contextmanager
def numba_threads(count: int | None) -> Iterator[None]:
    """Numba's parallel kernels on ``count`` threads while the block runs (at most the count Numba was
    started with; None: as they are), then as before. For kernels whose results do not depend on the
    thread count (the exact solver's sweeps), so that they may use the cores a run has to itself. torch's
    count is kept: Numba's thread pool, started by its first call, sets OpenMP's count, torch's default.
    (Not torch's own threads: beside Numba's pool, which waits spinning, two of them made a network's
    forward passes slower, not faster.)"""
    numba, torch = sys.modules.get("numba"), sys.modules.get("torch")
    if count is None or numba is None:
        yield
        return
    torch_before = torch.get_num_threads() if torch is not None else None  # before Numba's first call
    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(count, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)
        if torch_before is not None:
            torch.set_num_threads(torch_before)


def one_thread_per_process() -> None:
    """In a worker process that runs beside others (one per core): one thread for torch, OpenMP and
    Numba's parallel kernels. Without it each worker's thread pools (libgomp's spin-waiting threads
    among them) compete with the other workers for the same cores, which made parallel benchmark
    runs several times slower."""
    set_threads(1)


def worker_setup() -> None:
    """The initializer of a worker process that runs beside others (evaluation workers, benchmark
    runs): Ctrl-C left to the main process (:func:`worker_signals`) and one thread per process
    (:func:`one_thread_per_process`)."""
    worker_signals()
    one_thread_per_process()


def end_child_processes() -> None:
    """Terminate this process's multiprocessing children (evaluation workers, subprocess envs)."""
    import multiprocessing

    for child in multiprocessing.active_children():
        with contextlib.suppress(Exception):
            child.terminate()


class GracefulStop:
    """SIGINT and SIGTERM as a request to stop at the next safe point (a context manager).

    While active, the first signal sets :attr:`requested` and says so on stderr; the
    program checks it at its safe points, saves what it has and exits with
    :attr:`exit_code` (128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM). A
    second signal exits at once. Inside :meth:`at_once` the first signal already exits
    at once, for work that has nothing left to save. An immediate exit removes the
    temporary files of writes in progress first; every finished file stays as it was.
    Outside the main thread (where Python cannot handle signals) it does nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, safe_point: str = "the next safe point", stream: TextIO | None = None) -> None:
        self.safe_point = safe_point
        self.signum: int | None = None
        self._immediate: str | None = None
        self._stream = stream
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def exit_code(self) -> int:
        return 128 + self.signum if self.signum is not None else 0

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""

    def __enter__(self) -> GracefulStop:
        if threading.current_thread() is threading.main_thread():
            self._previous = {signum: signal.signal(signum, self._handle) for signum in self.SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    @contextlib.contextmanager
    def at_once(self, message: str) -> Iterator[None]:
        """A section that any signal ends at once, printing ``message`` (what is saved, and
        how to do the rest by hand)."""
        self._immediate = message
        try:
            yield
        finally:
            self._immediate = None

    def _say(self, text: str) -> None:
        print(text, file=self._stream or sys.stderr, flush=True)

    def _handle(self, signum: int, frame: Any) -> None:
        name = signal.Signals(signum).name
        if self._immediate is not None or self.requested:
            self._say(f"\n{name}: exiting now. {self._immediate or 'Files already written are complete.'}")
            remove_partial_files()
            end_child_processes()
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            os._exit(128 + signum)
        self.signum = signum
        self._say(
            f"\n{name}: stopping at {self.safe_point} to save the work so far; "
            "send it again (Ctrl-C) to exit at once without saving more."
        )
