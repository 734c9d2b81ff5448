"""The benchmark's child processes: ``python -m agents.bench.worker COMMAND JOB.json``.

:func:`agents.bench.runner.run_one` starts them (so that the process running a sweep never imports
an algorithm's code, and the final score is measured where training never ran); each reads its job
(a JSON file written by the runner), writes its output to ``job["output"]`` and exits 0, or ends
its output with one line ``trash-bench worker: error: WHAT`` (after the traceback of an error that
is not a ValueError) and exits 1:

- ``describe``: the algorithm's results name (``name``), to file its results under;
- ``train``: trains the algorithm through the task's :class:`~agents.bench.algorithms.TaskContext`
  (environments that count its steps, ``context.validate`` on validation deals), scores each
  checkpoint's policy on the validation deals (the curve), saves the final policy
  (:func:`agents.bench.artifacts.save_artifact`) and writes the curve, the counted steps, the largest
  batch, the checkpoint log, the validation anchors and the process's provenance;
- ``evaluate``: loads a saved policy (:func:`agents.bench.artifacts.load_artifact`, weights-only)
  and writes its final scores on the job's test deals (:func:`agents.bench.runner.final_evaluation`).

Each sets its threads, dies with its parent (the parent-death signal on Linux, and a check that the
parent that wrote the job is still its parent) and leaves Ctrl-C to the runner, which kills the
child's process group.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import numbers
import os
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.arguments import one_line
from agents.bench import results as schema
from agents.bench.runner import OUTPUT_LIMIT, WORKER_ERROR, ValidationDeals, final_evaluation
from agents.bench.tasks import get_task
from agents.processes import set_threads, worker_signals
from trash_env.files import read_bounded, write_json


def _extend_path(entries: Sequence[str], imports: Sequence[str] = ()) -> None:
    """The runner's import path entries this process lacks, after its own first one (the working
    directory): a plugin importable there is importable here; then the modules that register the
    run's task (a plug-in task's, ``agents.bench.tasks.task_imports``)."""
    for position, entry in enumerate(entry for entry in entries if entry not in sys.path):
        sys.path.insert(1 + position, entry)
    for module in imports:
        importlib.import_module(module)


def start_threads(threads: int, exact_threads: int | None) -> None:
    """This process's torch, OpenMP and Numba threads (``threads``), with room for the exact solver's
    sweeps to use ``exact_threads`` (:func:`agents.bench.exact_scores.set_solver_threads`): Numba, started
    now, may go up to the larger of the two (unless the environment caps it lower)."""
    from agents.bench.exact_scores import set_solver_threads

    capped = "NUMBA_NUM_THREADS" in os.environ or "numba" in sys.modules  # by the caller: left so
    set_threads(threads)  # first: OpenMP reads OMP_NUM_THREADS once, when the first library starts it
    if exact_threads and not capped:
        os.environ["NUMBA_NUM_THREADS"] = str(max(threads, exact_threads, 1))
        with contextlib.suppress(ImportError):
            import numba  # started with room for exact_threads, running ``threads`` until they are asked for

            numba.set_num_threads(threads)
        if importlib.util.find_spec("torch") is not None:  # Numba's pool, started, changed torch's default
            import torch

            torch.set_num_threads(threads)
    set_solver_threads(exact_threads)


def describe(job: dict[str, Any]) -> dict[str, Any]:
    from agents.bench.algorithms import load_algorithm

    _extend_path(job["sys_path"])
    return {"name": str(load_algorithm(job["algorithm_spec"]).name)}


def _timesteps(value: Any) -> int:
    """A checkpoint's timesteps as an integer of 0 or more (and of a size a result file holds)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != int(value) or value < 0:
        raise ValueError(f"checkpoint at {value!r} timesteps: a checkpoint is at 0 timesteps or more (an integer)")
    if int(value) > schema.MAX_INTEGER:
        raise ValueError(f"checkpoint at {value!r} timesteps: beyond {schema.MAX_INTEGER:,}, no budget's count")
    return int(value)


def train(job: dict[str, Any]) -> dict[str, Any]:
    from agents.bench import exact_scores as exact
    from agents.bench import exploitability_scores as exploitability
    from agents.bench.algorithms import TaskContext, as_agent, load_algorithm, make_opponents
    from agents.bench.artifacts import save_artifact
    from agents.bench.provenance import provenance

    start_threads(job["threads"], job.get("exact_threads"))
    _extend_path(job["sys_path"], job.get("imports", ()))
    task, fraction = get_task(job["task"]), job["fraction"]
    algorithm = load_algorithm(job["algorithm_spec"])
    if str(algorithm.name) != job["name"]:
        raise ValueError(f"the algorithm's name is {algorithm.name!r} here, {job['name']!r} when the sweep began")
    point_deals = task.scaled_deals(fraction)[0]
    validation = ValidationDeals(task, point_deals)
    curve: list[dict[str, Any]] = []
    checkpoints: list[dict[str, int]] = []
    context = TaskContext(
        task,
        job["seed"],
        task.scaled_budget(fraction),
        task.points(fraction),
        Path(job["work_dir"]),
        make_opponents(task),
        validator=validation.score,
    )

    clock = {"began": time.perf_counter(), "evaluating": 0.0}  # training time: evaluations left out

    def checkpoint(timesteps: Any, policy: Any) -> None:
        called = time.perf_counter()
        counted = context.counted_steps  # what the learner had taken when it called
        steps = _timesteps(timesteps)
        checkpoints.append({"timesteps": steps, "counted": counted})
        agent = as_agent(policy, task)
        point = validation.score(agent, point_deals)
        curve.append({"timesteps": steps, **{key: point[key] for key in ("score", "low", "high", "normalized")}})
        # Exact figures where the task has them (the decision tables read once for both).
        tables = exact.tables_of(agent) if exact.applies(task, agent) else None
        if tables is not None:
            curve[-1]["exact"] = exact.exact_entry(task, tables, task.reference, exact.CURVE_TOLERANCE)
        if exploitability.applies(task, agent):
            curve[-1]["exploitability"] = exploitability.entry(task, agent, tables, exploitability.CURVE_TOLERANCE)
        curve[-1]["train_seconds"] = round(called - clock["began"] - clock["evaluating"], 3)
        clock["evaluating"] += time.perf_counter() - called

    policy = algorithm.train(context, checkpoint)
    counted, largest = context.counted_steps, context.counter.largest_batch
    artifact = save_artifact(policy, task, Path(job["artifact_stem"]))
    builtin = json.loads(read_bounded(artifact, OUTPUT_LIMIT))["agent"] if artifact.suffix == ".json" else None
    return {
        "builtin": builtin,  # the built-in agent kept by name (a baseline, the solution), or None
        "declares_baseline": bool(getattr(algorithm, "baseline", False)),
        "name": str(algorithm.name),
        "curve": curve,
        "counted_steps": int(counted),
        "largest_batch": int(largest),
        "checkpoints": checkpoints,
        "artifact": str(artifact),
        "validation": {"seed": task.validation_seed, "deals": point_deals, "anchors": validation.anchors(point_deals)},
        "provenance": provenance(),
        "settings": _settings(job["algorithm_spec"]),
    }


def _settings(spec: str) -> dict[str, Any] | None:
    """The named settings a ``ALGORITHM@NAME`` spec trains with, as the result records them."""
    import dataclasses

    from agents.bench.tuned_settings import settings_record

    record = settings_record(spec)
    return None if record is None else dataclasses.asdict(record)


def evaluate(job: dict[str, Any]) -> dict[str, Any]:
    from agents.bench.artifacts import load_artifact

    start_threads(1, job.get("exact_threads"))
    _extend_path(job.get("sys_path", ()), job.get("imports", ()))
    task = get_task(job["task"])
    agent = load_artifact(job["artifact"], task)
    return final_evaluation(
        task,
        agent,
        job["seed"],
        job["deals"],
        exact=job.get("exact", True),
        exploitability=job.get("exploitability", True),
    )


COMMANDS = {"describe": describe, "train": train, "evaluate": evaluate}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2 or argv[0] not in COMMANDS:
        print(f"{WORKER_ERROR}usage: python -m agents.bench.worker {{{','.join(COMMANDS)}}} JOB.json", file=sys.stderr)
        return 2
    command, job_path = argv
    job = json.loads(read_bounded(job_path, OUTPUT_LIMIT))
    worker_signals()  # Ctrl-C left to the runner; die with it
    if job.get("parent") is not None and os.getppid() != job["parent"]:
        return 1  # the runner died before the parent-death signal was armed: nobody waits for this
    try:
        output = COMMANDS[command](job)
        write_json(job["output"], output)
    except KeyboardInterrupt:
        print(f"{WORKER_ERROR}interrupted", file=sys.stderr, flush=True)
        return 130
    except Exception as error:  # the runner shows one line; the traceback stays in the log
        message = one_line(error)
        if not isinstance(error, ValueError):
            traceback.print_exc()
            message = f"{type(error).__name__}: {message}" if message else type(error).__name__
        print(f"{WORKER_ERROR}{message}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
