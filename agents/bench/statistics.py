"""Statistics across benchmark runs, after rliable (Agarwal et al., 2021).

Scores are normalised scores, one per (run, task): for each algorithm a dict task -> array of its
runs' scores (one per seed). The aggregate functions (:func:`iqm`, :func:`mean`,
:func:`optimality_gap`) take a [runs, tasks] matrix; :func:`stratified_bootstrap` puts a 95%
interval on any of them by resampling the runs *within each task* (the tasks are fixed, the seeds
are the random part), and :func:`probability_of_improvement` and :func:`performance_profile` follow
rliable's definitions.

Why not a library: rliable, the reference implementation, was archived in 2025; SciPy's
``scipy.stats.bootstrap`` resamples one sample (or paired samples) and has no stratification, so
the stratified resampling is written here (a few lines of NumPy), while the per-task interval is
the evaluation's Student-t interval (:func:`per_task`). Tested against hand-computed values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple

import numpy as np
from scipy import stats

from agents.evaluation.stats import Interval

Scores = Mapping[str, np.ndarray]  # task -> the runs' scores


def iqm(matrix: np.ndarray) -> float:
    """The interquartile mean of every (run, task) score: the mean of the middle 50%."""
    return float(stats.trim_mean(np.asarray(matrix, dtype=float).ravel(), 0.25))


def mean(matrix: np.ndarray) -> float:
    return float(np.mean(matrix))


def optimality_gap(matrix: np.ndarray, threshold: float = 1.0) -> float:
    """How far the scores fall short of ``threshold`` (the reference agent's 1), on average; scores
    above it count as reaching it."""
    return float(np.mean(np.maximum(threshold - np.asarray(matrix, dtype=float), 0.0)))


AGGREGATES: dict[str, Callable[[np.ndarray], float]] = {"IQM": iqm, "mean": mean, "optimality gap": optimality_gap}


def per_task(scores: Scores) -> dict[str, tuple[float, float, float, int]]:
    """Per task: the mean over runs with its 95% Student-t interval, and the number of runs
    (:meth:`agents.evaluation.stats.Interval.of`: one run has an unbounded interval, -inf to inf)."""
    return {task: astuple(Interval.of(values)) for task, values in scores.items()}


def _matrix(scores: Scores, tasks: Sequence[str], samples: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """[runs, tasks] (tasks with fewer runs are padded by resampling; equal run counts need none)."""
    columns = [np.asarray(scores[task] if samples is None else samples[i], dtype=float) for i, task in enumerate(tasks)]
    runs = max(len(column) for column in columns)
    return np.stack([np.resize(column, runs) for column in columns], axis=1)


def stratified_bootstrap(
    scores: Scores,
    statistic: Callable[[np.ndarray], float],
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """``statistic`` of the [runs, tasks] scores with a 95% percentile interval from resampling the runs
    of each task with replacement, independently per task."""
    tasks = sorted(scores)
    rng = np.random.default_rng(seed)
    point = statistic(_matrix(scores, tasks))
    values = np.empty(resamples)
    for k in range(resamples):
        samples = [rng.choice(np.asarray(scores[task]), size=len(scores[task]), replace=True) for task in tasks]
        values[k] = statistic(_matrix(scores, tasks, samples))
    low, high = np.percentile(values, [2.5, 97.5])
    return point, float(low), float(high)


def probability_of_improvement(x: Scores, y: Scores) -> float:
    """P(X > Y): for each task the probability that a run of X scores above a run of Y (ties count
    half: the Mann-Whitney statistic over all pairs of runs), averaged over the tasks both ran."""
    tasks = sorted(set(x) & set(y))
    per = []
    for task in tasks:
        a, b = np.asarray(x[task], dtype=float)[:, None], np.asarray(y[task], dtype=float)[None, :]
        per.append(float(np.mean((a > b) + 0.5 * (a == b))))
    return float(np.mean(per))


def probability_of_improvement_interval(
    x: Scores, y: Scores, resamples: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """:func:`probability_of_improvement` with a 95% interval (both algorithms' runs resampled per task)."""
    tasks = sorted(set(x) & set(y))
    rng = np.random.default_rng(seed)
    values = np.empty(resamples)
    for k in range(resamples):
        xs = {t: rng.choice(np.asarray(x[t]), size=len(x[t])) for t in tasks}
        ys = {t: rng.choice(np.asarray(y[t]), size=len(y[t])) for t in tasks}
        values[k] = probability_of_improvement(xs, ys)
    low, high = np.percentile(values, [2.5, 97.5])
    return probability_of_improvement(x, y), float(low), float(high)


def performance_profile(scores: Scores, thresholds: np.ndarray) -> np.ndarray:
    """For each threshold tau, the fraction of all (run, task) scores above tau (rliable's run-score
    distribution; every task weighs the same)."""
    tasks = sorted(scores)
    per_task_fraction = [np.mean(np.asarray(scores[t])[:, None] > thresholds[None, :], axis=0) for t in tasks]
    return np.mean(per_task_fraction, axis=0)
