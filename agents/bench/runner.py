"""One benchmark run, its result file, and sweeps of runs (processes or Ray), resumable.

A run trains one algorithm on one task with one seed (:func:`run_one`), evaluating the policy at
the task's points and at the end on the task's duplicate deals (evaluation seed
``task.eval_seed``, never a training seed), and writes one JSON file (:func:`result_path`):

    {"format": 1, "task", "task_version", "algorithm", "seed", "budget", "budget_fraction",
     "curve": [{"timesteps", "score", "low", "high", "normalized"}, ...],
     "final": {"score", "low", "high", "normalized", "deals"},
     "reference": {"random", "reference"}, "evaluation": {"opponent", "deals", "final_deals", "seed"},
     "wall_seconds", "package_version", "complete": true}

``score`` is the policy's score difference per deal against the evaluation opponent with its 95%
interval over deals; ``normalized`` rescales it (0: random, 1: the reference agent). The file is
written once the run is finished (atomically), so a sweep stopped half-way resumes by skipping the
runs whose files exist (:func:`sweep`).

Every result file read here is checked first (:mod:`agents.bench.results`, the schema), and so is
every file written (the runner never writes one its readers refuse). A folder holding a bad file
(damaged, edited, misfiled) is refused by :func:`load_results` and :func:`plan` with a line per bad
file; asked to skip them, :func:`plan` leaves each as it is and does not run its run again.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, NamedTuple

from agents.bench import results as schema
from agents.bench.tasks import MAX_TRAINING_SEED, Task, get_task
from agents.processes import set_threads, worker_setup
from trash_env.files import PARTIAL_MARK, write_json

RESULT_FORMAT = schema.FORMAT
LAYOUT = "RESULTS/TASK/ALGORITHM/seed_N.json"


def package_version() -> str:
    import trash_env

    return trash_env.__version__


def result_name(algorithm_spec: str) -> str:
    """The name an algorithm's results are filed under: a built-in's name, ``module.attribute`` for
    ``module:attribute``."""
    return algorithm_spec.replace(":", ".")


def result_path(results: Path, task: Task, algorithm: str, seed: int) -> Path:
    return Path(results) / task.name / algorithm / f"seed_{seed}.json"


def read_result(path: Path) -> schema.Result | None:
    """The finished run whose file is ``path``, checked (:func:`agents.bench.results.read`); None if
    there is no file; a ValueError naming the file and what is wrong if it is bad."""
    if not Path(path).exists():
        return None
    return schema.read(path)


def evaluate(task: Task, agent: Any, deals: int) -> dict[str, float]:
    """The agent's score difference per deal against the task's evaluation opponent, on the task's
    evaluation deals (the batched engine where it can play them: the same games, faster)."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries

    results = run_pairings(
        task.config(), [("policy", task.reference)], deals, seed=task.eval_seed, prebuilt={"policy": agent}
    )
    difference = pair_summaries(results)[0].score_difference
    point = {"score": difference.mean, "low": difference.low, "high": difference.high}
    return {**point, "normalized": task.normalize(point["score"])}


def run_one(
    task_name: str, algorithm_spec: str, seed: int, results: str, fraction: float = 1.0, threads: int = 1
) -> dict[str, Any]:
    """Train ``algorithm_spec`` on the task with ``seed`` and write the result file; returns it.
    ``threads``: torch's, OpenMP's and Numba's (one: runs go side by side, one per core)."""
    from agents.bench.algorithms import TaskContext, as_agent, load_algorithm, make_opponents

    set_threads(threads)
    task = get_task(task_name)
    name = schema.check_name(result_name(algorithm_spec))
    algorithm = load_algorithm(algorithm_spec)
    points = task.points(fraction)
    point_deals, final_deals = task.scaled_deals(fraction)
    start = time.perf_counter()
    curve: list[dict[str, Any]] = []

    def checkpoint(timesteps: int, policy: Any) -> None:
        if not int(timesteps) >= 0:
            raise ValueError(f"checkpoint at {timesteps} timesteps: a checkpoint is at 0 timesteps or more")
        curve.append({"timesteps": int(timesteps), **evaluate(task, as_agent(policy, task), point_deals)})

    with tempfile.TemporaryDirectory(prefix="trash-bench-") as work:
        context = TaskContext(task, seed, task.scaled_budget(fraction), points, Path(work), make_opponents(task))
        policy = algorithm.train(context, checkpoint)
        final = {**evaluate(task, as_agent(policy, task), final_deals), "deals": final_deals}
    result = {
        "format": RESULT_FORMAT,
        "task": task.name,
        "task_version": task.version,
        "algorithm": name,
        "seed": seed,
        "budget": task.scaled_budget(fraction),
        "budget_fraction": fraction,
        "curve": sorted(curve, key=lambda point: point["timesteps"]),
        "final": final,
        "reference": task.reference_scores,
        "evaluation": {
            "opponent": task.reference,
            "deals": point_deals,
            "final_deals": final_deals,
            "seed": task.eval_seed,
        },
        "wall_seconds": round(time.perf_counter() - start, 1),
        "package_version": package_version(),
        "complete": True,
    }
    path = result_path(Path(results), task, name, seed)
    schema.check(result, path)  # what every reader checks: never a file they would refuse
    write_json(path, result)
    return result


def _ray_run_one(*job: Any) -> dict[str, Any]:
    """:func:`run_one` as a Ray task (Ray runs one task per CPU; ``run_one`` sets its threads)."""
    return run_one(*job)


class Plan(NamedTuple):
    """A sweep's runs: those to do, those finished (their files are good and of the task's current
    version), and the bad result files of the folder (one line each) when asked to skip them."""

    todo: list[tuple[Task, int]]
    done: list[tuple[Task, int]]
    skipped: list[str]


def plan(
    tasks: Sequence[Task], algorithm: str, seeds: Sequence[int], results: Path, skip_bad_results: bool = False
) -> Plan:
    """The (task, seed) runs to do and those already finished. Every result file of the folder is
    checked first: a bad one is a :class:`agents.bench.results.BadResultsError` naming each, unless
    ``skip_bad_results``: then they are listed in ``skipped``, and a run whose file is bad is neither
    done nor to do (its file is left as it is, never overwritten)."""
    for seed in seeds:
        if not 0 <= seed < MAX_TRAINING_SEED:
            raise ValueError(f"training seeds are 0..{MAX_TRAINING_SEED - 1}, got {seed}")
    name = schema.check_name(result_name(algorithm))
    good, bad = scan(results)
    if bad and not skip_bad_results:
        raise schema.BadResultsError(results, list(bad.values()))
    todo, done = [], []
    for task in tasks:
        for seed in seeds:
            path = result_path(results, task, name, seed)
            if path in bad:
                continue
            existing = good.get(path)
            finished = existing is not None and existing.task_version == task.version
            (done if finished else todo).append((task, seed))
    return Plan(todo, done, list(bad.values()))


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
    tasks), each with ``threads`` threads; finished runs are skipped, so a stopped sweep resumes where
    it stopped. A folder with bad result files is refused, or with ``skip_bad_results`` they are left
    alone (:func:`plan`)."""
    todo = plan(tasks, algorithm, seeds, results, skip_bad_results).todo
    jobs = [(task.name, algorithm, seed, str(results), fraction, threads) for task, seed in todo]
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
            process.terminate()
        raise
    pool.shutdown()
    return finished


def scan(results: Path) -> tuple[dict[Path, schema.Result], dict[Path, str]]:
    """Every result file under ``results`` (``seed_*.json``; never a file still being written, whose
    name has ``.partial``), checked: the good ones, and for each bad one a line naming it and what is
    wrong (one at another place than ``RESULTS/TASK/ALGORITHM/seed_N.json`` included)."""
    root = Path(results)
    good: dict[Path, schema.Result] = {}
    bad: dict[Path, str] = {}
    for path in sorted(root.rglob("seed_*.json")):
        if PARTIAL_MARK in path.name:
            continue
        try:
            if len(path.relative_to(root).parts) != 3:
                raise ValueError(f"{path}: not where a result file goes ({LAYOUT})")
            good[path] = schema.read(path)
        except ValueError as error:
            bad[path] = str(error)
    return good, bad


def load_results(results: Path) -> list[schema.Result]:
    """Every finished result file under ``results``, checked (:func:`scan`); a folder with a bad one
    is a :class:`agents.bench.results.BadResultsError` naming each."""
    good, bad = scan(results)
    if bad:
        raise schema.BadResultsError(results, list(bad.values()))
    return list(good.values())
