"""The benchmark suite's tasks: named, versioned training settings with a fixed evaluation protocol.

Importable without torch (the runner, result files and statistics are in :mod:`agents.bench`).
Each :class:`Task` fixes everything a benchmark number depends on:

- the game and its rules configuration (a preset of R11 with overrides, or Help Your Neighbor, R12);
- the learner's seat (drawn per episode) and its opponents during training: baselines, or
  self-play only (the learner's own frozen snapshots);
- the training budget in timesteps (learner decisions), counted by the environments the algorithm
  is given (:mod:`agents.bench.algorithms`);
- the evaluation (protocol v2, :data:`PROTOCOL_VERSION`): against the task's reference agent, and
  against its **held-out opponents** (``heldout``: baselines never used in training), on duplicate
  deals. Two sets of deals:

  - **validation deals**, the first deals of :data:`VALIDATION_SEED` (never a training seed:
    those are below :data:`MAX_TRAINING_SEED`): the learning curve at the task's points, and what a
    plugin may use for model selection (``context.validate``);
  - **test deals**, from a seed drawn at random in ``[TEST_SEEDS)`` by the runner after training,
    in a fresh process that only loads the saved policy: the final score. Nothing in training can
    know that seed (it does not exist yet), so no plugin can tune itself to the final deals.

- the **normalised score**: the policy's score difference per deal against an opponent, rescaled so
  that 0 is what ``random`` scores against that opponent and 1 what the reference agent scores
  (against itself: 0, by the symmetry of duplicate deals), both measured on **the very deals the
  policy was measured on** (the runner measures them with every score and stores them beside it).
  The stored anchors (``references.json``, written by ``trash-bench references``) are those of the
  first ``final_deals`` validation deals, with the baselines' scores there: the report's baseline
  columns.

On the solved tasks (``exact``: ``hyn-2p`` and ``hyn-2p-selfplay``) every score is also computed
exactly, without deals, for a policy that decides in batches (:mod:`agents.bench.exact_scores`): the curve's
points, the final and the held-out scores, each beside its sampled estimate, which stays as a check;
a result file's ``scoring`` says which it has, and the report takes the exact figures where present.

Each task has a **tier** (:attr:`Task.tier`): *headline*, a task where learners still differ (the
best learner measurably short of the reference, or scored by exact exploitability with room left),
the only tasks in the headline aggregate; or *sanity*, a saturated task that every working masked
learner reaches, reported pass or fail. The tier is how a task is reported, not what it measures,
so it changes no version; docs/suite.md states each task's tier with the figure that puts it there.

A task's ``version`` changes whenever anything above changes, so results of different versions are
never compared. The tasks' versions move together, so that one report covers the suite: protocol v2
made every task version 2, and exact scoring (which changed only the solved tasks) every task
version 3. A run's **budget fraction**
(``--budget-fraction``) scales the budget, the evaluation points and the deals (:meth:`Task.points`,
:meth:`Task.scaled_deals`); the smallest a task allows (:attr:`Task.min_fraction`) leaves a budget
of :func:`minimum_budget` timesteps, in which every built-in algorithm still learns. A fraction
above 1 (up to :data:`MAX_FRACTION`) is the **open-budget track**: the budget and the evaluation
points grow, the deals stay those of the full budget, and the report keeps such runs in their own
section, beside the fixed-budget one (``docs/strong-agents.md``).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import default_baselines
from trash_env.games import NEIGHBOR, TRASH, get_game
from trash_env.trash.reduced import REDUCED_PRESETS

PROTOCOL_VERSION = 2  # what a run is measured by (results record it): v2 has the held-out test
MAX_TRAINING_SEED = 1_000_000  # training seeds are 0 .. MAX_TRAINING_SEED - 1
VALIDATION_SEED = 1_000_003  # the seed of every task's validation deals (the curve): never a training seed
# The final's seed is drawn in [low, high) after training: never a training or validation seed, and an
# integer every JSON reader holds exactly (below 2**53: 53 bits of the system's randomness).
TEST_SEEDS = (2**32, 2**53)
MIN_POINT_DEALS = 10  # validation deals at each point at least, whatever the fraction (anchors on them)
MIN_FINAL_DEALS = 50  # test deals of the final at least, whatever the fraction
MAX_FRACTION = 10_000.0  # the open-budget track's largest budget fraction (1.5 billion timesteps on hyn-2p)
MIN_ROLLOUT_STEPS = 16  # steps per env of the shortest rollout a built-in uses (A2C's) at any fraction
SELF_PLAY = "self-play"
HEADLINE, SANITY = "headline", "sanity"  # a task's tier (Task.tier)
TIERS = (HEADLINE, SANITY)
SATURATED = 0.95  # a task whose best learner's mean normalised score is this or more has no headroom: sanity
REFERENCES = Path(__file__).with_name("references.json")


@functools.cache
def load_references() -> dict[str, dict[str, Any]]:
    """The stored reference scores of every task (package data, written by ``trash-bench references``)."""
    return json.loads(REFERENCES.read_text()) if REFERENCES.is_file() else {}


def minimum_budget() -> int:
    """The smallest scaled budget a run may have: every built-in on-policy algorithm then still
    collects rollouts of :data:`MIN_ROLLOUT_STEPS` steps per env (A2C's own length, the shortest any
    built-in uses at the full budget) :data:`~agents.bench.settings.UPDATES_AT_LEAST` times over,
    so every evaluation point is a distinct timestep at least one rollout after the one before, and
    the off-policy ones start learning before a quarter of it (512 timesteps with the built-in
    settings)."""
    from agents.bench.settings import ON_POLICY, SETTINGS, UPDATES_AT_LEAST

    widest = max(settings["n_envs"] for settings in SETTINGS.values() if settings["algo"] in ON_POLICY)
    return UPDATES_AT_LEAST * widest * MIN_ROLLOUT_STEPS


@dataclass(frozen=True)
class Task:
    """One benchmark task (see the module docstring)."""

    name: str
    version: int
    tests: str  # one line: what the task tests
    game: str  # the game's name (trash_env.games)
    preset: str
    rules: dict[str, Any]  # rules fields on top of the preset (num_players, match, ...)
    opponents: tuple[str, ...]  # training opponents, or (SELF_PLAY,)
    budget: int  # training timesteps (learner decisions)
    reference: str  # the reference agent, also the evaluation opponent
    heldout: tuple[str, ...] = ()  # held-out evaluation opponents: never trained against
    eval_points: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)  # fractions of the budget
    eval_deals: int = 500  # validation deals at each evaluation point
    final_deals: int = 2000  # test deals of the final evaluation
    validation_seed: int = VALIDATION_SEED
    exact: bool = False  # scored exactly too where the policy decides in batches (agents.bench.exact_scores)
    exploitability: bool = False  # exact exploitability at every point too (agents.bench.exploitability_scores)
    min_deals: tuple[int, int] = (MIN_POINT_DEALS, MIN_FINAL_DEALS)  # scaled_deals' floors (a game of many draws: more)
    tier: str = SANITY  # HEADLINE: measured headroom, in the headline aggregate; SANITY: saturated, pass or fail

    @property
    def self_play(self) -> bool:
        return self.opponents == (SELF_PLAY,)

    @property
    def num_players(self) -> int:
        return int(self.rules.get("num_players", 2))

    @property
    def rules_text(self) -> str:
        """The rules in a few words: ``"pagat, num_players=4, match=True"``; a game of one preset (Help
        Your Neighbor, whose only preset is its standard game) is named instead of its preset."""
        game = get_game(self.game)
        fields = [f"{key}={value}" for key, value in self.rules.items()]
        return ", ".join([self.preset if len(game.presets) > 1 else game.title, *fields])

    def config(self) -> Any:
        """The task's rules configuration (R11, or R12 for Help Your Neighbor)."""
        return get_game(self.game).make_config(self.preset, **self.rules)

    def points(self, fraction: float = 1.0) -> list[int]:
        """The evaluation points in timesteps, for a budget scaled by ``fraction``."""
        budget = self.scaled_budget(fraction)
        return sorted({round(point * budget) for point in self.eval_points})

    def scaled_budget(self, fraction: float = 1.0) -> int:
        return max(1, round(self.budget * fraction))

    def scaled_deals(self, fraction: float = 1.0) -> tuple[int, int]:
        """(validation deals at each point, test deals at the end), scaled down with the budget, at
        least ``min_deals`` (by default :data:`MIN_POINT_DEALS` and :data:`MIN_FINAL_DEALS`): enough that
        ``random``'s score and the reference agent's, measured on the same few deals, stay apart (a
        reduced game, most of whose deals are draws, needs more)."""
        fraction = min(fraction, 1.0)  # the open-budget track is evaluated as the full budget is
        return (
            max(self.min_deals[0], round(self.eval_deals * fraction)),
            max(self.min_deals[1], round(self.final_deals * fraction)),
        )

    @property
    def min_fraction(self) -> float:
        """The smallest ``--budget-fraction`` this task allows: the one that leaves
        :func:`minimum_budget` timesteps, rounded up to three significant digits (0.00512 for a
        budget of 100,000; 0.00342 for 150,000)."""
        exact = minimum_budget() / self.budget
        scale = 10.0 ** (2 - math.floor(math.log10(exact)))
        return math.ceil(exact * scale - 1e-9) / scale

    def check_fraction(self, fraction: float) -> float:
        """``fraction`` if a run of this task may be scaled by it; a one-line ValueError otherwise."""
        if not (isinstance(fraction, (int, float)) and math.isfinite(fraction) and 0 < fraction <= MAX_FRACTION):
            raise ValueError(
                f"--budget-fraction must be in (0, 1], or up to {MAX_FRACTION:g} for the open-budget track; "
                f"got {fraction}"
            )
        if fraction < self.min_fraction - 1e-12:
            raise ValueError(
                f"--budget-fraction {fraction} is below {self.name}'s smallest, {self.min_fraction:g} (a budget "
                f"of at least {minimum_budget()} of its {self.budget:,} timesteps, the least in which every built-in "
                "algorithm still learns)"
            )
        return float(fraction)

    def _stored(self) -> dict[str, Any]:
        stored = load_references().get(self.name)
        if stored is None or stored.get("version") != self.version:
            raise ValueError(
                f"task {self.name} v{self.version} has no stored reference scores: run trash-bench references"
            )
        return stored

    @property
    def reference_scores(self) -> dict[str, float]:
        """``random``'s and the reference agent's scores against the evaluation opponent on the first
        ``final_deals`` validation deals (``references.json``, written by ``trash-bench references``)."""
        stored = self._stored()
        return {"random": stored["random"], "reference": stored["reference"]}

    def heldout_reference_scores(self, opponent: str) -> dict[str, float]:
        """``random``'s and the reference agent's scores against the held-out ``opponent``, on the same
        stored validation deals."""
        stored = self._stored().get("heldout", {}).get(opponent)
        if stored is None:
            raise ValueError(f"task {self.name} v{self.version} has no stored scores against {opponent!r}")
        return {"random": stored["random"], "reference": stored["reference"]}

    def normalize(self, score: float, opponent: str | None = None) -> float:
        """A score against the evaluation opponent (or the held-out ``opponent``), normalised with the
        stored anchors: 0 = ``random``'s score there, 1 = the reference agent's. (A run's own scores
        are normalised with the anchors measured on its deals, stored in its result file.)"""
        references = self.reference_scores if opponent is None else self.heldout_reference_scores(opponent)
        low, high = references["random"], references["reference"]
        return (score - low) / (high - low)


# The tasks that train against baselines train against their game's default baselines, and every task is
# evaluated against its game's held-out opponents (its descriptor's ``heldout``: baselines no task trains
# against) beside its reference: a change of those changes these tasks, so
# bump their versions (and recompute their references) with it.
TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        Task(
            "trash-standard-2p",
            3,
            "the standard game, two players, single hands: the easy case every masked learner reaches",
            TRASH.name,
            "standard",
            {"num_players": 2},
            default_baselines(TRASH.name),
            100_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-standard-4p",
            3,
            "four players: the learner's seat and three opponents' moves between its choices",
            TRASH.name,
            "standard",
            {"num_players": 4},
            default_baselines(TRASH.name),
            150_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-standard-6p",
            3,
            "six players and three decks: a long wait between choices and more cards unaccounted for",
            TRASH.name,
            "standard",
            {"num_players": 6},
            default_baselines(TRASH.name),
            150_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-pagat-2p",
            3,
            "Jacks wild, any discard may be taken, no final round (R11 pagat): more real choices per hand",
            TRASH.name,
            "pagat",
            {"num_players": 2},
            default_baselines(TRASH.name),
            100_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-jokers-3p",
            3,
            "three players with Jokers (R6): more wild cards, so more choices of where to put them",
            TRASH.name,
            "jokers",
            {"num_players": 3},
            default_baselines(TRASH.name),
            150_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-standard-2p-match",
            3,
            "matches (R9): one reward after several hands and hundreds of decisions",
            TRASH.name,
            "standard",
            {"num_players": 2, "match": True},
            default_baselines(TRASH.name),
            200_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-pagat-4p-match",
            3,
            "pagat matches with four players: one reward after thousands of decisions, the hardest credit assignment",
            TRASH.name,
            "pagat",
            {"num_players": 4, "match": True},
            default_baselines(TRASH.name),
            200_000,
            "greedy",
            TRASH.heldout,
            tier=HEADLINE,
        ),
        Task(
            "trash-pagat-2p-match",
            3,
            "pagat matches, two players: the per-hand edges of pagat's extra choices, compounded over a match (R9)",
            TRASH.name,
            "pagat",
            {"num_players": 2, "match": True},
            default_baselines(TRASH.name),
            200_000,
            "greedy",
            TRASH.heldout,
            tier=HEADLINE,
        ),
        Task(
            "trash-standard-2p-selfplay",
            3,
            "self-play only: trained against its own snapshots, never a baseline, evaluated against greedy",
            TRASH.name,
            "standard",
            {"num_players": 2},
            (SELF_PLAY,),
            100_000,
            "greedy",
            TRASH.heldout,
        ),
        Task(
            "trash-small-2p-selfplay",
            3,
            "self-play on a reduced Trash (two slots, two turns each): hidden cards, scored by exact exploitability",
            TRASH.name,
            "standard",
            {"num_players": 2, **{key: value for key, value in REDUCED_PRESETS["small"].items() if key != "preset"}},
            (SELF_PLAY,),
            100_000,
            "greedy",
            TRASH.heldout,
            exploitability=True,
            min_deals=(100, 400),  # most deals are draws: random's first 46 validation deals score as greedy's
        ),
        Task(
            "hyn-2p",
            3,
            "Help Your Neighbor, two players: the solved game, so the reference is the optimum itself",
            NEIGHBOR.name,
            "standard",
            {"num_players": 2},
            default_baselines(NEIGHBOR.name),
            150_000,
            "optimal",
            NEIGHBOR.heldout,
            exact=True,
            tier=HEADLINE,
        ),
        Task(
            "hyn-2p-selfplay",
            3,
            "self-play on the solved game: does training against itself find the optimum without a teacher?",
            NEIGHBOR.name,
            "standard",
            {"num_players": 2},
            (SELF_PLAY,),
            150_000,
            "optimal",
            NEIGHBOR.heldout,
            exact=True,
            exploitability=True,
            tier=HEADLINE,
        ),
        Task(
            "hyn-4p",
            3,
            "Help Your Neighbor, four players: the privilege passes the dice around, against the heuristic",
            NEIGHBOR.name,
            "standard",
            {"num_players": 4},
            default_baselines(NEIGHBOR.name),
            150_000,
            "heuristic",
            NEIGHBOR.heldout,
        ),
    )
}


_REGISTERED_BY: dict[str, str] = {}  # a plug-in task's name -> the module that registered it


def register_task(task: Task) -> Task:
    """Add ``task`` to :data:`TASKS` (a plug-in's: a task of a game defined outside the package), so
    that ``trash-bench`` runs it by name; the module that calls this is imported again by the run's
    own processes (:func:`task_imports`). A ValueError if another task has its name."""
    import sys

    if task.tier not in TIERS:
        raise ValueError(f"task {task.name!r}: tier must be one of {list(TIERS)}, got {task.tier!r}")
    if task.name in TASKS and TASKS[task.name] != task:
        raise ValueError(f"a task named {task.name!r} is registered already")
    TASKS[task.name] = task
    _REGISTERED_BY[task.name] = sys._getframe(1).f_globals.get("__name__", "")
    return task


def task_imports(task: Task) -> list[str]:
    """The modules a process imports to find ``task`` (the one that registered a plug-in task)."""
    module = _REGISTERED_BY.get(task.name)
    return [module] if module and module != "__main__" else []


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}: tasks are {sorted(TASKS)}")
    return TASKS[name]


GROUPS = {
    "all": lambda task: True,
    "baseline-opponents": lambda task: not task.self_play,  # where self-play can be added to baselines
    "self-play": lambda task: task.self_play,
    HEADLINE: lambda task: task.tier == HEADLINE,  # the tasks with headroom: the headline aggregate
    SANITY: lambda task: task.tier == SANITY,  # the saturated tasks: a learner that fails them is broken
}


def select_tasks(names: list[str]) -> list[Task]:
    """Tasks by name, or a group (``all``, ``baseline-opponents``, ``self-play``, ``headline``,
    ``sanity``), in registry order."""
    chosen: dict[str, Task] = {}
    for name in names:
        if name in GROUPS:
            chosen.update({task.name: task for task in TASKS.values() if GROUPS[name](task)})
        else:
            chosen[name] = get_task(name)
    return [task for task in TASKS.values() if task.name in chosen]
