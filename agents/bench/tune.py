"""Tuning on equal terms: ``trash-bench tune ALGORITHM --tasks ... --trials N`` (issue 51).

Every algorithm gets the same search: Optuna's TPE sampler proposes settings from the algorithm's
search space (:data:`SEARCH_SPACES`, written down here and in ``docs/suite.md``), and each trial
trains the algorithm with them on every tuning task at the same counted budget (the task's, times
``--budget-fraction``) with seed ``1000 + trial number`` (never a seed of the suite's runs, 0..9).
A trial's value is the mean, over the tasks, of its final policy's normalised score on the task's
*validation* deals (as many as a curve point); the test deals are never drawn (their seed comes
from ``trash-bench run``, after training). After each task the mean so far is reported, and
Optuna's median pruner stops a trial that falls below the median of the earlier trials at the same
task (after :data:`STARTUP_TRIALS` trials).

The study lives in an SQLite file (``--storage``): a stopped tuning (Ctrl-C, a crash, a reboot)
resumes with the same command, and ``--trials`` counts the trials that ended (completed, pruned,
or failed by an error of the algorithm's); a trial cut off by a crash has no heartbeat and Optuna
marks it failed, uncounted. ``--export FILE --name NAME`` writes the best settings of each tuned
algorithm into a settings file (:class:`SettingsFile`), with the study's summary (trials, the best
value, each setting's importance, the cost); the package ships them in ``agents/bench/tuned/``, and
``trash-bench run --algorithm A --settings NAME`` trains with them (results filed as ``A-NAME``,
the settings recorded in each result).
"""

from __future__ import annotations

import math
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.bench.tasks import Task
from agents.bench.tuned_settings import SEARCH_SPACES, Study, Tuned
from trash_env.schema import short

STARTUP_TRIALS = 5  # trials before the pruner prunes (and TPE's random start)
FIRST_TRIAL_SEED = 1000  # trial k trains with seed 1000 + k: never a seed of the suite's runs
HEARTBEAT_SECONDS = 60  # a running trial's heartbeat; one silent for GRACE_SECONDS died with its process
GRACE_SECONDS = 600
MAX_TRIALS = 10_000


def validation_score(algorithm: Any, task: Task, seed: int, fraction: float, work: Path) -> tuple[float, int]:
    """Train ``algorithm`` on ``task`` at ``fraction`` of its budget with ``seed``; its final policy's
    normalised score on the task's validation deals (a curve point's), and the counted timesteps."""
    from agents.bench.algorithms import TaskContext, as_agent, make_opponents
    from agents.bench.runner import ValidationDeals

    deals = task.scaled_deals(fraction)[0]
    validation = ValidationDeals(task, deals)
    context = TaskContext(
        task,
        seed,
        task.scaled_budget(fraction),
        task.points(fraction),
        work,
        make_opponents(task),
        validator=validation.score,
    )
    policy = algorithm.train(context, lambda timesteps, policy: None)
    return float(validation.score(as_agent(policy, task), deals)["normalized"]), context.counted_steps


@dataclass
class Tuning:
    """One algorithm's tuning: its study in ``storage`` on ``tasks`` at ``fraction`` of their budgets."""

    algorithm: str
    tasks: Sequence[Task]
    storage: Path
    fraction: float = 1.0
    sampler_seed: int = 0
    log: Callable[[str], None] = print

    def __post_init__(self) -> None:
        if self.algorithm not in SEARCH_SPACES:
            raise ValueError(f"{self.algorithm} cannot be tuned: the tunable ones are {', '.join(SEARCH_SPACES)}")
        if not self.tasks:
            raise ValueError("tuning needs at least one task")
        for task in self.tasks:
            task.check_fraction(self.fraction)

    def study(self) -> Any:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # the heartbeat
        self.storage.parent.mkdir(parents=True, exist_ok=True)
        storage = optuna.storages.RDBStorage(
            f"sqlite:///{self.storage.resolve()}", heartbeat_interval=HEARTBEAT_SECONDS, grace_period=GRACE_SECONDS
        )
        study = optuna.create_study(
            study_name=self.algorithm,
            storage=storage,
            load_if_exists=True,
            direction="maximize",
            sampler=optuna.samplers.TPESampler(seed=self.sampler_seed, n_startup_trials=STARTUP_TRIALS),
            pruner=optuna.pruners.MedianPruner(n_startup_trials=STARTUP_TRIALS, n_warmup_steps=0),
        )
        tasks, stored = [task.name for task in self.tasks], study.user_attrs.get("tasks")
        if stored is None:
            study.set_user_attr("tasks", tasks)
            study.set_user_attr("budget_fraction", self.fraction)
        elif stored != tasks or study.user_attrs.get("budget_fraction") != self.fraction:
            raise ValueError(
                f"{self.storage}: its {self.algorithm} study tunes on {stored} at budget fraction "
                f"{study.user_attrs.get('budget_fraction')}, not {tasks} at {self.fraction}: use another --storage"
            )
        return study

    def objective(self, trial: Any) -> float:
        import optuna

        from agents.bench.algorithms import with_settings

        values = SEARCH_SPACES[self.algorithm](trial)
        algorithm = with_settings(self.algorithm, values)
        seed, scores, counted, start = FIRST_TRIAL_SEED + trial.number, [], 0, time.perf_counter()
        try:
            with tempfile.TemporaryDirectory(prefix="trash-bench-tune-") as work:
                for index, task in enumerate(self.tasks):
                    score, steps = validation_score(algorithm, task, seed, self.fraction, Path(work))
                    scores.append(score)
                    counted += steps
                    trial.report(statistics.fmean(scores), step=index)
                    if trial.should_prune():
                        raise optuna.TrialPruned()
        except (ValueError, RuntimeError, FloatingPointError) as error:  # the algorithm failed: counted
            trial.set_user_attr("error", short(str(error)))
            raise
        finally:
            trial.set_user_attr("seconds", round(time.perf_counter() - start, 1))
            trial.set_user_attr("timesteps", counted)
            trial.set_user_attr("scores", scores)
        value = statistics.fmean(scores)
        if not math.isfinite(value):
            raise ValueError(f"trial {trial.number} scored {value}")
        return value

    def ended(self, study: Any) -> list[Any]:
        """The trials that count toward ``--trials``: completed, pruned, or failed by an error."""
        from optuna.trial import TrialState

        return [
            trial
            for trial in study.get_trials(deepcopy=False)
            if trial.state in (TrialState.COMPLETE, TrialState.PRUNED)
            or (trial.state == TrialState.FAIL and "error" in trial.user_attrs)
        ]

    def run(self, trials: int) -> Any:
        """Run trials until ``trials`` have ended in the study (none if they have); the study."""
        from optuna.trial import TrialState

        study = self.study()
        while len(self.ended(study)) < trials:
            study.optimize(self.objective, n_trials=1, catch=(ValueError, RuntimeError, FloatingPointError))
            last = study.get_trials(deepcopy=False)[-1]
            if last.state == TrialState.PRUNED:  # Optuna keeps the last reported mean as its value
                done = f"{len(last.intermediate_values)} of {len(self.tasks)} tasks"
                shown = f"pruned after {done} ({last.value:.3f} so far)"
            else:
                shown = f"{last.value:.3f}" if last.value is not None else last.state.name.lower()
            self.log(
                f"{self.algorithm} trial {last.number}: {shown} ({last.user_attrs.get('seconds', 0):.0f} s), "
                f"{len(self.ended(study))} of {trials} ended"
            )
        return study

    def summary(self, study: Any) -> Tuned:
        """The best trial's settings, with the study's summary."""
        import optuna
        from optuna.trial import TrialState

        from agents.bench.runner import package_version

        ended = self.ended(study)
        completed = [trial for trial in ended if trial.state == TrialState.COMPLETE]
        if not completed:
            raise ValueError(f"{self.storage}: the {self.algorithm} study has no completed trial yet")
        best = max(completed, key=lambda trial: trial.value)
        values = SEARCH_SPACES[self.algorithm](optuna.trial.FixedTrial(best.params))
        try:
            with warnings.catch_warnings():  # with few trials PED-ANOVA warns and calls them all equal
                warnings.simplefilter("ignore", UserWarning)
                importance = optuna.importance.get_param_importances(
                    study, evaluator=optuna.importance.PedAnovaImportanceEvaluator()
                )
        except (RuntimeError, ValueError):  # too few trials to tell
            importance = {}
        return Tuned(
            values=values,
            study=Study(
                tasks=tuple(task.name for task in self.tasks),
                budget_fraction=self.fraction,
                trials=len(ended),
                completed=len(completed),
                pruned=sum(trial.state == TrialState.PRUNED for trial in ended),
                best_value=round(best.value, 4),
                best_trial=best.number,
                importance={name: round(float(value), 4) for name, value in importance.items()},
                seconds=round(sum(trial.user_attrs.get("seconds", 0.0) for trial in ended), 1),
                timesteps=sum(int(trial.user_attrs.get("timesteps", 0)) for trial in ended),
                package_version=package_version(),
            ),
        )
