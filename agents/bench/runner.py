"""One benchmark run (protocol v2), its result file and policy, and sweeps of runs (processes or Ray), resumable.

A run trains one algorithm on one task with one seed at one budget fraction (:func:`run_one`), in
three steps, each in its own process (:mod:`agents.bench.worker`), so that this process never
imports an algorithm's code:

1. **training** (``python -m agents.bench.worker train JOB``, from the working directory, so that
   ``module:attribute`` plugins import from it): the algorithm trains through the task's context,
   whose environments count its timesteps; at each checkpoint the policy is scored on the
   **validation deals** (the first deals of ``task.validation_seed``; the anchors measured on those
   same deals); the final policy is saved weights-only (:func:`agents.bench.artifacts.save_artifact`)
   with the curve, the counted steps, the checkpoint log and the process's provenance;
2. here: the run's **validity** (:func:`validity`), and the **test seed**, drawn now with
   :mod:`secrets` in ``TEST_SEEDS`` (after training: no part of the training process can know it);
3. **evaluation** (``python -m agents.bench.worker evaluate JOB``, a fresh process that only loads
   the saved policy, :func:`agents.bench.artifacts.load_artifact`): the final score on the test deals
   against the task's reference and against each held-out opponent, each normalised with ``random``'s
   and the reference agent's scores against that opponent **on the same deals**
   (:func:`final_evaluation`).

Then the policy goes beside the result file (``seed_N.policy.zip``/``.npz``/``.json``) and the
result file is written (format 2, :mod:`agents.bench.results`), atomically: at
``RESULTS/TASK/ALGORITHM/seed_N.json`` for the full budget, ``RESULTS/TASK/ALGORITHM/fraction_F/
seed_N.json`` for a fraction ``F`` (:func:`agents.bench.store.result_location`). A child's failure is one
line naming the run and the child's last error line (a ValueError; the child's whole output, a plugin's prints and
a traceback, is kept in a log named there); Ctrl-C kills the child's whole process group, and a child
dies with its parent.

A run that broke the protocol is still written, with ``"valid": false`` and its reasons
(:func:`validity`): nothing counted, more counted steps than the budget and its :func:`slack`, or a
checkpoint claiming more timesteps than were counted when it was called; reports leave it out.
:func:`reevaluate` (``trash-bench evaluate``) scores a kept policy again: on a result's own test
seed and deals, its stored final exactly.

A run's identity is (task, task version, algorithm name, seed, budget fraction, protocol): a sweep
(:func:`sweep`) skips exactly the runs whose result file has that identity (:func:`plan`), so a
stopped sweep resumes, a 1% smoke run never stands in for a full one (another path), and a file of
another task version or protocol at the same path is run again (and replaced, with a warning).

Every result file read here is checked first (:mod:`agents.bench.results`, the schema), and so is
every file written (the runner never writes one its readers refuse). A folder holding a bad file
(damaged, edited, misfiled) is refused by :func:`agents.bench.store.load_results` and :func:`plan` with a line per bad
file; asked to skip them, :func:`plan` leaves each as it is and does not run its run again.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, NamedTuple

from agents.bench import provenance, store
from agents.bench import results as schema
from agents.bench.tasks import MAX_TRAINING_SEED, PROTOCOL_VERSION, TEST_SEEDS, Task, get_task, task_imports
from agents.processes import worker_setup
from trash_env.files import atomic_path, read_bounded, write_json

RESULT_FORMAT = schema.FORMAT
POLICY = "policy"  # the name the evaluated policy plays under in an evaluation's pairs
ROLLOUT_SLACK = 256  # steps per env of the slack beyond the budget: one rollout of the widest vector env
WORKER = "agents.bench.worker"
WORKER_ERROR = "trash-bench worker: error: "  # the prefix of a child's last line when it fails
OUTPUT_LIMIT = 64 << 20  # a child's output file: a curve, a log, provenance (a few kB)
# How long a child may take before it is killed and its run fails with the reason (a plugin that hangs, a
# policy stuck in a game): loading an algorithm, CHILD_GRACE seconds; training, that and a second for every
# SLOWEST_RATE timesteps of the budget (the v2 runs trained at 1,300 timesteps/s and more); the final
# evaluation, that and a second for every SLOWEST_DEALS deals.
CHILD_GRACE = 900.0
SLOWEST_RATE = 20
SLOWEST_DEALS = 10


def child_timeouts(budget: int, final_deals: int) -> dict[str, float]:
    """The seconds each child of a run may take (training and the final evaluation), from its budget."""
    return {
        "describe": CHILD_GRACE,
        "train": CHILD_GRACE + budget / SLOWEST_RATE,
        "evaluate": CHILD_GRACE + final_deals / SLOWEST_DEALS,
    }


MODULE_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*")


def package_version() -> str:
    import trash_env

    return trash_env.__version__


# ---------------------------------------------------------------------- names and places


@functools.cache
def result_name(algorithm_spec: str) -> str:
    """The name an algorithm's results are filed under: a built-in's own name, or the ``name`` of a
    ``module:attribute`` plugin, read in a child process (this one never imports a plugin). A
    ValueError in one line for an unknown or unimportable algorithm, or a name that is not plain."""
    from agents.bench.algorithms import BUILTIN

    if algorithm_spec in BUILTIN:
        return algorithm_spec
    if "@" in str(algorithm_spec):  # a built-in with the package's named settings
        from agents.bench.tuned_settings import settings_name

        return settings_name(algorithm_spec)
    if not isinstance(algorithm_spec, str) or not MODULE_SPEC.fullmatch(algorithm_spec):
        raise ValueError(
            f"unknown algorithm {algorithm_spec!r}: built in are {sorted(BUILTIN)}, or give module:attribute"
        )
    with tempfile.TemporaryDirectory(prefix="trash-bench-") as temp:
        job = {"algorithm_spec": algorithm_spec, "sys_path": _importable(), "output": str(Path(temp) / "name.json")}
        name = _child("describe", job, Path(temp), f"algorithm {algorithm_spec}")["name"]
    schema.check_name(name, f"algorithm {algorithm_spec}'s name")
    if name in BUILTIN:
        raise ValueError(
            f"algorithm {algorithm_spec} is named {name!r}, the name of a built-in: give it a name of its own"
        )
    return name


def draw_test_seed() -> int:
    """A fresh test seed from the system's randomness, in ``TEST_SEEDS`` (never a training or
    validation seed), drawn after training: what the final score is measured on."""
    low, high = TEST_SEEDS
    return low + secrets.randbelow(high - low)


# ---------------------------------------------------------------------- scores


def play(task: Task, pairs: Sequence[tuple[str, str]], deals: int, seed: int, agent: Any = None) -> dict:
    """The score difference per deal of each pair (``(first, second)``: specs, :data:`POLICY` for
    ``agent``) on the first ``deals`` duplicate deals of ``seed``: ``{pair: Interval}``."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries

    prebuilt = {POLICY: agent} if agent is not None else None
    played = run_pairings(task.config(), list(pairs), deals, seed=seed, prebuilt=prebuilt)
    return {(summary.first, summary.second): summary.score_difference for summary in pair_summaries(played)}


def _anchor_pairs(task: Task, opponent: str) -> list[tuple[str, str]]:
    return [("random", opponent)] + ([(task.reference, opponent)] if task.reference != opponent else [])


def _anchors_of(task: Task, opponent: str, scores: dict, deals: int, seed: int) -> dict[str, float]:
    """``random``'s and the reference agent's scores against ``opponent`` (the reference against itself:
    0, by the symmetry of duplicate deals), which must make a scale."""
    anchors = {
        "random": scores[("random", opponent)].mean,
        "reference": 0.0 if task.reference == opponent else scores[(task.reference, opponent)].mean,
    }
    if not anchors["reference"] > anchors["random"]:
        raise ValueError(
            f"{task.name}: on {deals} deals of seed {seed}, random scores {anchors['random']:+.4f} against "
            f"{opponent}, not below {task.reference}'s {anchors['reference']:+.4f}: no normalised score on so few "
            "deals (a larger --budget-fraction, or more --deals)"
        )
    return anchors


def measure_anchors(task: Task, opponent: str, deals: int, seed: int) -> dict[str, float]:
    """``random``'s and the reference agent's scores against ``opponent`` on the first ``deals`` deals
    of ``seed``: the 0 and the 1 of a score measured there."""
    return _anchors_of(task, opponent, play(task, _anchor_pairs(task, opponent), deals, seed), deals, seed)


def _point(interval: Any, anchors: dict[str, float]) -> dict[str, float]:
    point = {"score": interval.mean, "low": interval.low, "high": interval.high}
    return {**point, "normalized": (point["score"] - anchors["random"]) / (anchors["reference"] - anchors["random"])}


def evaluate(
    task: Task,
    agent: Any,
    deals: int,
    seed: int | None = None,
    opponent: str | None = None,
    anchors: dict[str, float] | None = None,
) -> dict[str, float]:
    """The agent's score difference per deal against ``opponent`` (default: the task's reference) on
    the first ``deals`` duplicate deals of ``seed`` (default: the validation seed), with its 95%
    interval over deals, normalised with ``anchors`` (default: measured on the same deals). On the
    batched engine where it can play them: the same games, faster."""
    seed = task.validation_seed if seed is None else seed
    opponent = task.reference if opponent is None else opponent
    pairs = [(POLICY, opponent)] + ([] if anchors is not None else _anchor_pairs(task, opponent))
    scores = play(task, pairs, deals, seed, agent)
    if anchors is None:
        anchors = _anchors_of(task, opponent, scores, deals, seed)
    return _point(scores[(POLICY, opponent)], anchors)


def final_evaluation(
    task: Task, agent: Any, seed: int, deals: int, exact: bool = True, exploitability: bool = True
) -> dict[str, Any]:
    """The final score of ``agent`` on the first ``deals`` test deals of ``seed``, against the task's
    reference (``final``) and each held-out opponent (``heldout``), each with the anchors measured on
    those deals, and on an exact task for a batchable agent each also exactly (``exact``;
    :mod:`agents.bench.exact_scores`) unless told not to (``exact=False``: the run's curve was not, and a
    result is exact all through or not at all); ``scoring`` says which: the fields of a result file
    (:mod:`agents.bench.results`). On a task that has it, the final's exact exploitability too
    (``exploitability``; :mod:`agents.bench.exploitability_scores`), unless told not to (the curve's
    points had none: all or none, as for exact scores)."""
    from agents.bench import exact_scores, exploitability_scores

    scored = exact and exact_scores.applies(task, agent)
    tables = exact_scores.tables_of(agent) if scored else None
    entries = []
    for opponent in (task.reference, *task.heldout):
        scores = play(task, [(POLICY, opponent), *_anchor_pairs(task, opponent)], deals, seed, agent)
        anchors = _anchors_of(task, opponent, scores, deals, seed)
        entry = {**_point(scores[(POLICY, opponent)], anchors), "deals": deals, "anchors": anchors}
        if tables is not None:
            entry["exact"] = exact_scores.exact_entry(task, tables, opponent)
        entries.append((opponent, entry))
    (_, final), heldout = entries[0], entries[1:]
    if exploitability and exploitability_scores.applies(task, agent):
        final["exploitability"] = exploitability_scores.entry(task, agent, tables)
    return {
        "final": {**final, "seed": seed},
        "heldout": [{"opponent": opponent, **entry} for opponent, entry in heldout],
        "scoring": "exact" if tables is not None else "sampled",
    }


class ValidationDeals:
    """The task's validation deals, as training sees them: a policy's score on the first ``deals`` of
    them (the curve's points, ``context.validate``), normalised with anchors measured on those same
    deals (once per number of deals)."""

    def __init__(self, task: Task, default_deals: int) -> None:
        self.task, self.default_deals = task, default_deals
        self._anchors: dict[int, dict[str, float]] = {}

    def anchors(self, deals: int) -> dict[str, float]:
        if deals not in self._anchors:
            self._anchors[deals] = measure_anchors(self.task, self.task.reference, deals, self.task.validation_seed)
        return self._anchors[deals]

    def score(self, agent: Any, deals: int | None = None) -> dict[str, Any]:
        """``{"score", "low", "high", "normalized", "deals"}`` on the first ``deals`` validation deals
        (default: a curve point's); ``context.validate`` calls this."""
        deals = self.default_deals if deals is None else deals
        if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
            raise ValueError(f"validation deals must be an integer of at least 2, got {deals!r}")
        point = evaluate(self.task, agent, deals, self.task.validation_seed, anchors=self.anchors(deals))
        return {**point, "deals": deals}


# ---------------------------------------------------------------------- child processes


def _importable() -> list[str]:
    """This process's import path, for a child to add what it lacks (a plugin found here is found
    there: the working directory, and what a test or a caller put on ``sys.path``)."""
    return [entry for entry in sys.path if isinstance(entry, str) and entry]


def _kill_group(process: subprocess.Popen) -> None:
    """End ``process`` and everything it started (its process group) at once, and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        process.kill()
    process.wait()


def _tail_lines(log: Path, size: int = 1 << 16) -> list[str]:
    """The non-empty lines of the end of a child's log (its last ``size`` bytes: a plugin may print a lot)."""
    with log.open("rb") as stream:
        stream.seek(max(0, log.stat().st_size - size))
        text = stream.read().decode(errors="replace")
    return [line.strip() for line in text.splitlines() if line.strip()]


def _last_line(log: Path) -> str:
    lines = _tail_lines(log)
    return lines[-1].removeprefix(WORKER_ERROR) if lines else "no output"


def _keep_log(log: Path, label: str) -> str:
    """A copy of a failed child's log where it outlives the run's temporary folder (when there is more
    in it than the error line: a traceback, the plugin's output), and where it is, in words."""
    if len(_tail_lines(log)) <= 1:
        return ""
    handle, kept = tempfile.mkstemp(prefix=f"trash-bench-{re.sub(r'[^A-Za-z0-9_.-]+', '_', label)}-", suffix=".log")
    os.close(handle)
    shutil.copyfile(log, kept)
    return f" (its output: {kept})"


def _child(command: str, job: dict[str, Any], temp: Path, label: str, timeout: float = CHILD_GRACE) -> dict[str, Any]:
    """Run ``python -m agents.bench.worker COMMAND JOB`` (in the working directory, in a process group
    of its own) and return what it wrote to ``job["output"]``. Its output goes to a log; a failure is a
    one-line ValueError naming ``label`` and the child's last line; any exception here (Ctrl-C)
    kills the child's group first, so no child outlives the run; so does ``timeout`` (seconds), after which
    the run fails with that reason."""
    job = {**job, "parent": os.getpid()}
    job_path, log = temp / f"{command}.job.json", temp / f"{command}.log"
    write_json(job_path, job)
    with log.open("wb") as stream:
        process = subprocess.Popen(
            [sys.executable, "-m", WORKER, command, str(job_path)],
            stdin=subprocess.DEVNULL,
            stdout=stream,
            stderr=subprocess.STDOUT,
            process_group=0,
        )
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            code = None
        except BaseException:
            _kill_group(process)
            raise
    what = {"describe": "loading it", "train": "training", "evaluate": "the final evaluation"}[command]
    if code is None:
        raise ValueError(f"{label}: {what} took longer than its limit of {timeout:,.0f} s and was stopped")
    if code != 0:
        if code < 0:
            raise ValueError(f"{label}: {what} failed: its process was killed by {signal.Signals(-code).name}")
        raise ValueError(f"{label}: {what} failed: {_last_line(log)}{_keep_log(log, label)}")
    return json.loads(read_bounded(job["output"], OUTPUT_LIMIT))


# ---------------------------------------------------------------------- one run


def slack(budget: int, largest_batch: int) -> int:
    """How far past its budget a run may step and stay valid: a twentieth of the budget, or one
    rollout (:data:`ROLLOUT_SLACK` steps) of the widest vector env the context built, the larger."""
    return max(budget // 20, ROLLOUT_SLACK * largest_batch)


def validity(trained: dict[str, Any], budget: int) -> list[str]:
    """Why a trained run is outside the protocol (none: valid): nothing counted (the algorithm trained
    on environments of its own), more counted steps than the budget and its :func:`slack`, or a
    checkpoint reported at more timesteps than were counted when it was called."""
    counted, allowed = trained["counted_steps"], slack(budget, trained["largest_batch"])
    reasons = []
    if counted == 0:
        reasons.append(
            "no timestep was counted: the algorithm did not step the context's environments (its own "
            "environments are outside the protocol)"
        )
    if counted > budget + allowed:
        reasons.append(f"counted {counted:,} timesteps, over the budget of {budget:,} and its slack of {allowed:,}")
    ahead = [entry for entry in trained["checkpoints"] if entry["timesteps"] > entry["counted"]]
    if ahead:
        first = ahead[0]
        others = f" (and {len(ahead) - 1} more)" if len(ahead) > 1 else ""
        reasons.append(
            f"a checkpoint was reported at {first['timesteps']:,} timesteps when {first['counted']:,} had been "
            f"counted{others}"
        )
    return reasons


def run_one(
    task_name: str,
    algorithm_spec: str,
    seed: int,
    results: str,
    fraction: float = 1.0,
    threads: int = 1,
    name: str | None = None,
    exact_threads: int | None = None,
) -> dict[str, Any]:
    """Train ``algorithm_spec`` on the task with ``seed`` at ``fraction`` of its budget, evaluate it on
    fresh test deals, and write the result file and the policy beside it; returns the result.
    ``threads``: torch's, OpenMP's and Numba's in the training process (one: runs go side by side,
    one per core). ``name``: the algorithm's results name when the caller has it (:func:`result_name`).
    ``exact_threads``: the threads of the exact solver's sweeps on a solved task, whose results do not
    depend on them (default: every core, for a run alone; :func:`sweep` shares them out)."""
    task = get_task(task_name)
    fraction = task.check_fraction(fraction)
    if not 0 <= seed < MAX_TRAINING_SEED:
        raise ValueError(f"training seeds are 0..{MAX_TRAINING_SEED - 1}, got {seed}")
    name = schema.check_name(name if name is not None else result_name(algorithm_spec))
    path = store.result_location(Path(results), task, name, seed, fraction)
    label = f"{task.name} {name} seed {seed}" + (f" at fraction {fraction!r}" if fraction != 1.0 else "")
    budget, (point_deals, final_deals) = task.scaled_budget(fraction), task.scaled_deals(fraction)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="trash-bench-") as temp_name:
        temp = Path(temp_name)
        (temp / "work").mkdir()
        job = {
            "task": task.name,
            "algorithm_spec": algorithm_spec,
            "name": name,
            "seed": seed,
            "fraction": fraction,
            "threads": threads,
            "exact_threads": (exact_threads or os.cpu_count() or 1) if task.exact else None,
            "work_dir": str(temp / "work"),
            "artifact_stem": str(temp / POLICY),
            "sys_path": _importable(),
            "imports": task_imports(task),
            "output": str(temp / "trained.json"),
        }
        timeouts = child_timeouts(budget, final_deals)
        trained = _child("train", job, temp, label, timeouts["train"])
        reasons = validity(trained, budget)
        if trained.get("builtin") is not None and not trained.get("declares_baseline"):
            reasons.append(
                f"its kept policy is the built-in agent {trained['builtin']!r}, not one it learned (an algorithm "
                "that is a baseline says so: baseline = True)"
            )
        test_seed = draw_test_seed()  # now, after training: nothing there could know it
        artifact = Path(trained["artifact"])
        job = {"task": task.name, "artifact": str(artifact), "seed": test_seed, "deals": final_deals}
        job.update(sys_path=_importable(), imports=task_imports(task))
        job["exact_threads"] = (exact_threads or os.cpu_count() or 1) if task.exact else None
        job["exact"] = all("exact" in point for point in trained["curve"])  # else the final's would be dropped
        job["exploitability"] = all("exploitability" in point for point in trained["curve"])
        job["output"] = str(temp / "evaluated.json")
        evaluated = _child("evaluate", job, temp, label, timeouts["evaluate"])
        final = evaluated["final"]
        result = {
            "format": RESULT_FORMAT,
            "task": task.name,
            "task_version": task.version,
            "algorithm": name,
            "seed": seed,
            "budget": budget,
            "budget_fraction": fraction,
            "curve": sorted(trained["curve"], key=lambda point: point["timesteps"]),
            "final": final,
            "reference": final["anchors"],
            "evaluation": {
                "opponent": task.reference,
                "deals": point_deals,
                "final_deals": final_deals,
                "seed": task.validation_seed,
            },
            "wall_seconds": round(time.perf_counter() - start, 1),
            "package_version": package_version(),
            "complete": True,
            "protocol": PROTOCOL_VERSION,
            "algorithm_spec": algorithm_spec,
            "valid": not reasons,
            "invalid_reasons": reasons,
            "counted_steps": trained["counted_steps"],
            "validation": trained["validation"],
            "heldout": evaluated["heldout"],
            "artifact": store.artifact_location(path, artifact.suffix).name,
            "provenance": trained["provenance"],
            "scoring": _scoring(trained["curve"], evaluated["scoring"]),
        }
        if trained.get("settings") is not None:
            result["settings"] = trained["settings"]
        result["artifact_sha256"] = store.file_sha256(artifact)
        store.check(result, path)  # what every reader checks: never a file they would refuse
        _place_artifact(artifact, store.artifact_location(path, artifact.suffix))
        write_json(path, result)
    return result


def _scoring(curve: list[dict[str, Any]], final: str) -> str:
    """``"exact"`` if the curve and the final were both scored exactly, else ``"sampled"`` (a final
    policy of another kind than the curve's, say, drops the curve's exact scores: all or none)."""
    if final == "exact" and all("exact" in point for point in curve):
        return "exact"
    for point in curve:
        point.pop("exact", None)
    return "sampled"


def _place_artifact(source: Path, target: Path) -> None:
    """The policy beside its result file (atomically), and no other artifact of a run it replaces."""
    for suffix in store.ARTIFACT_SUFFIXES:
        other = store.artifact_location(target.with_name(target.name.split(".", 1)[0] + ".json"), suffix)
        if other != target:
            other.unlink(missing_ok=True)
    with atomic_path(target) as partial:
        shutil.copyfile(source, partial)


def _ray_run_one(*job: Any) -> dict[str, Any]:
    """:func:`run_one` as a Ray task (Ray runs one task per CPU; ``run_one`` sets its threads)."""
    return run_one(*job)


# ---------------------------------------------------------------------- re-evaluation


RESULT_FILE = re.compile(r"seed_-?\d+\.json")


def reevaluate(
    target: Path, task_name: str | None = None, seed: int | None = None, deals: int | None = None
) -> dict[str, Any]:
    """Evaluate a saved policy again, without retraining (``trash-bench evaluate``): ``target`` is a
    result file (its policy, task, test seed and deals, each overridable) or a policy artifact (with
    ``task_name``; a fresh test seed unless ``seed``; the task's final deals unless ``deals``).
    Returns ``{"task", "artifact", "seed", "deals", "final", "heldout", "stored"}``, ``stored`` being
    the result file's own final and held-out scores when evaluated on its seed and deals (else None),
    which they reproduce exactly on the same machine and versions. One-line ValueErrors for bad input."""
    from agents.bench import exact_scores
    from agents.bench.artifacts import load_artifact

    target = Path(target)
    if not target.exists():
        raise ValueError(f"{target} does not exist")
    stored, differences = None, None
    if RESULT_FILE.fullmatch(target.name):
        result = store.read(target)
        if result.format < 2 or result.artifact is None:
            raise ValueError(f"{target}: a format-{result.format} result keeps no policy: nothing to re-evaluate")
        task = get_task(result.task)
        if task_name is not None and task_name != task.name:
            raise ValueError(f"--task {task_name}, but {target} is a run of {task.name}")
        if result.task_version != task.version:
            raise ValueError(
                f"{target} is a run of {task.name} v{result.task_version}; this version has v{task.version}"
            )
        artifact = store.kept_policy(target, result)
        seed = result.final.seed if seed is None else seed
        deals = result.final.deals if deals is None else deals
        if (seed, deals) == (result.final.seed, result.final.deals):
            data = result.to_json()
            stored = json.loads(json.dumps({"final": data["final"], "heldout": data["heldout"]}))
            differences = provenance.provenance_differences(data["provenance"])
    else:
        if task_name is None:
            raise ValueError(f"{target}: give --task: a policy file does not say which task it is evaluated on")
        task, artifact = get_task(task_name), target
        seed = draw_test_seed() if seed is None else seed
        deals = task.final_deals if deals is None else deals
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise ValueError(f"--deals must be at least 2, got {deals}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"--seed must be 0 or more and below 2**64, got {seed}")
    agent = load_artifact(artifact, task)
    evaluated = json.loads(json.dumps(final_evaluation(task, agent, seed, deals)))  # as a file holds it
    again = {"final": evaluated["final"], "heldout": evaluated["heldout"]}
    return {
        "task": task.name,
        "artifact": str(artifact),
        "seed": seed,
        "deals": deals,
        **evaluated,
        "stored": stored,
        "reproduced": None if stored is None else exact_scores.reproduced(again, stored),
        "provenance_differences": differences,
    }


# ---------------------------------------------------------------------- sweeps


class Plan(NamedTuple):
    """A sweep's runs: those to do, those finished (a good result file of exactly their identity),
    the bad result files of the folder (one line each) when asked to skip them, and the good files of
    another identity at a run's path (another task version or protocol), which that run replaces."""

    todo: list[tuple[Task, int]]
    done: list[tuple[Task, int]]
    skipped: list[str]
    replaced: list[str]


def identity(task: Task, algorithm: str, seed: int, fraction: float) -> tuple[str, int, str, int, float, int]:
    """The identity of a run this version would make (:attr:`agents.bench.results.Result.identity`)."""
    return (task.name, task.version, algorithm, seed, float(fraction), PROTOCOL_VERSION)


def plan(
    tasks: Sequence[Task],
    algorithm: str,
    seeds: Sequence[int],
    results: Path,
    skip_bad_results: bool = False,
    fraction: float = 1.0,
    name: str | None = None,
) -> Plan:
    """The (task, seed) runs to do at ``fraction`` and those already finished: exactly those whose
    result file has the run's identity (:func:`identity`). Every result file of the folder is checked
    first: a bad one is a :class:`agents.bench.results.BadResultsError` naming each, unless
    ``skip_bad_results``: then they are listed in ``skipped``, and a run whose file is bad is neither
    done nor to do (its file is left as it is, never overwritten). Good files of other fractions,
    versions or algorithms are no reason to refuse anything."""
    for seed in seeds:
        if not 0 <= seed < MAX_TRAINING_SEED:
            raise ValueError(f"training seeds are 0..{MAX_TRAINING_SEED - 1}, got {seed}")
    for task in tasks:
        task.check_fraction(fraction)
    name = schema.check_name(name if name is not None else result_name(algorithm))
    good, bad = store.scan(results)
    if bad and not skip_bad_results:
        raise schema.BadResultsError(results, list(bad.values()))
    todo, done, replaced = [], [], []
    for task in tasks:
        for seed in seeds:
            path = store.result_location(results, task, name, seed, fraction)
            if path in bad:
                continue
            existing = good.get(path)
            finished = existing is not None and existing.identity == identity(task, name, seed, fraction)
            (done if finished else todo).append((task, seed))
            if existing is not None and not finished:
                was = f"v{existing.task_version}, protocol v{existing.protocol_version}"
                replaced.append(
                    f"{path}: a run of {existing.task} {was}, is replaced by one of v{task.version}, "
                    f"protocol v{PROTOCOL_VERSION}"
                )
    return Plan(todo, done, list(bad.values()), replaced)


def sweep(
    tasks: Sequence[Task],
    algorithm: str,
    seeds: Sequence[int],
    results: Path,
    workers: int = 1,
    fraction: float = 1.0,
    ray_address: str | None = None,
    use_ray: bool = False,
    on_result: Callable[[dict[str, Any]], None] | None = None,
    threads: int = 1,
    skip_bad_results: bool = False,
) -> list[dict[str, Any]]:
    """Every (task, seed) run not finished yet, ``workers`` at a time in worker processes (or as Ray
    tasks), each training with ``threads`` threads; finished runs are skipped, so a stopped sweep
    resumes where it stopped. A folder with bad result files is refused, or with ``skip_bad_results``
    they are left alone (:func:`plan`)."""
    name = result_name(algorithm)
    todo = plan(tasks, algorithm, seeds, results, skip_bad_results, fraction, name).todo
    # The exact solver's sweeps share the cores among the runs side by side (one each on Ray: a CPU a task).
    exact_threads = 1 if use_ray else max(1, (os.cpu_count() or 1) // max(1, min(workers, len(todo))))
    jobs = [(task.name, algorithm, seed, str(results), fraction, threads, name, exact_threads) for task, seed in todo]
    finished: list[dict[str, Any]] = []

    def record(result: dict[str, Any]) -> None:
        finished.append(result)
        if on_result:
            on_result(result)

    if not jobs:
        return finished
    if use_ray:
        import ray

        ray.init(address=ray_address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
        remote = ray.remote(num_cpus=1)(_ray_run_one)
        pending = [remote.remote(*job) for job in jobs]
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                record(ray.get(ready[0]))
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
        return finished
    if workers == 1:
        for job in jobs:
            record(run_one(*job))
        return finished
    pool = ProcessPoolExecutor(max_workers=workers, initializer=worker_setup)
    try:
        futures = {pool.submit(run_one, *job) for job in jobs}
        while futures:
            done, futures = wait(futures, return_when=FIRST_COMPLETED)
            for future in done:
                record(future.result())
    except BaseException:
        processes = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()  # its training child dies with it (the parent-death signal)
        raise
    pool.shutdown()
    return finished
