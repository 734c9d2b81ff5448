"""The benchmark suite's tasks: named, versioned training settings with a fixed evaluation protocol.

Importable without torch (the runner, result files and statistics are in :mod:`agents.bench`).
Each :class:`Task` fixes everything a benchmark number depends on:

- the game and its rules configuration (a preset of R11 with overrides, or Help Your Neighbor, R12);
- the learner's seat (drawn per episode) and its opponents during training: baselines, or
  self-play only (the learner's own frozen snapshots);
- the training budget in timesteps (learner decisions);
- the evaluation: the opponent (the task's reference agent), the duplicate deals at each
  evaluation point and at the end, the points along the budget, and an evaluation seed that no
  training seed can equal (training seeds are below ``MAX_TRAINING_SEED``);
- the **normalised score**: the policy's score difference per deal against the evaluation opponent,
  rescaled so that 0 is what ``random`` scores there and 1 what the reference agent scores (itself
  against itself: 0, by symmetry of duplicate deals) on the same evaluation deals. The two anchor
  scores are stored with the task (``reference_scores``); ``trash-bench references`` recomputes them.

A task's ``version`` changes whenever anything above changes, so results of different versions are
never compared.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import DEFAULT_BASELINES

MAX_TRAINING_SEED = 1_000_000  # training seeds are 0 .. MAX_TRAINING_SEED - 1
EVAL_SEED = 1_000_003  # the seed of every task's evaluation deals: never a training seed
SELF_PLAY = "self-play"
REFERENCES = Path(__file__).with_name("references.json")


@functools.cache
def load_references() -> dict[str, dict[str, Any]]:
    """The stored reference scores of every task (package data, written by ``trash-bench references``)."""
    return json.loads(REFERENCES.read_text()) if REFERENCES.is_file() else {}


@dataclass(frozen=True)
class Task:
    """One benchmark task (see the module docstring)."""

    name: str
    version: int
    tests: str  # one line: what the task tests
    game: str  # "trash" or "help_your_neighbor"
    preset: str
    rules: dict[str, Any]  # rules fields on top of the preset (num_players, match, ...)
    opponents: tuple[str, ...]  # training opponents, or (SELF_PLAY,)
    budget: int  # training timesteps (learner decisions)
    reference: str  # the reference agent, also the evaluation opponent
    eval_points: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)  # fractions of the budget
    eval_deals: int = 500  # duplicate deals at each evaluation point
    final_deals: int = 2000  # duplicate deals of the final evaluation
    eval_seed: int = EVAL_SEED

    @property
    def self_play(self) -> bool:
        return self.opponents == (SELF_PLAY,)

    @property
    def num_players(self) -> int:
        return int(self.rules.get("num_players", 2))

    @property
    def rules_text(self) -> str:
        """The rules in a few words: ``"pagat, num_players=4, match=True"``; Help Your Neighbor, whose
        only preset is its standard game, is named instead of its preset."""
        fields = [f"{key}={value}" for key, value in self.rules.items()]
        return ", ".join([self.preset if self.game == "trash" else "Help Your Neighbor", *fields])

    def config(self) -> Any:
        """The task's rules configuration (R11, or R12 for Help Your Neighbor)."""
        from trash_env.games import get_game

        return get_game(self.game).make_config(self.preset, **self.rules)

    def points(self, fraction: float = 1.0) -> list[int]:
        """The evaluation points in timesteps, for a budget scaled by ``fraction``."""
        budget = self.scaled_budget(fraction)
        return sorted({round(point * budget) for point in self.eval_points})

    def scaled_budget(self, fraction: float = 1.0) -> int:
        return max(1, round(self.budget * fraction))

    def scaled_deals(self, fraction: float = 1.0) -> tuple[int, int]:
        """(deals at each point, deals at the end), scaled down with the budget (at least 2)."""
        return max(2, round(self.eval_deals * fraction)), max(2, round(self.final_deals * fraction))

    @property
    def reference_scores(self) -> dict[str, float]:
        """``random``'s and the reference agent's scores against the evaluation opponent on the final
        evaluation deals (``task_references.json``, written by ``trash-bench references``)."""
        stored = load_references().get(self.name)
        if stored is None or stored.get("version") != self.version:
            raise ValueError(
                f"task {self.name} v{self.version} has no stored reference scores: run trash-bench references"
            )
        return {"random": stored["random"], "reference": stored["reference"]}

    def normalize(self, score: float) -> float:
        """0 = ``random``'s score against the evaluation opponent, 1 = the reference agent's."""
        references = self.reference_scores
        low, high = references["random"], references["reference"]
        return (score - low) / (high - low)


# The tasks that train against baselines train against DEFAULT_BASELINES: a change of those changes
# these tasks, so bump their versions (and recompute their references) with it.
TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        Task(
            "trash-standard-2p",
            1,
            "the standard game, two players, single hands: the easy case every masked learner reaches",
            "trash",
            "standard",
            {"num_players": 2},
            DEFAULT_BASELINES["trash"],
            100_000,
            "greedy",
        ),
        Task(
            "trash-standard-4p",
            1,
            "four players: the learner's seat and three opponents' moves between its choices",
            "trash",
            "standard",
            {"num_players": 4},
            DEFAULT_BASELINES["trash"],
            150_000,
            "greedy",
        ),
        Task(
            "trash-standard-6p",
            1,
            "six players and three decks: a long wait between choices and more cards unaccounted for",
            "trash",
            "standard",
            {"num_players": 6},
            DEFAULT_BASELINES["trash"],
            150_000,
            "greedy",
        ),
        Task(
            "trash-pagat-2p",
            1,
            "Jacks wild, any discard may be taken, no final round (R11 pagat): more real choices per hand",
            "trash",
            "pagat",
            {"num_players": 2},
            DEFAULT_BASELINES["trash"],
            100_000,
            "greedy",
        ),
        Task(
            "trash-jokers-3p",
            1,
            "three players with Jokers (R6): more wild cards, so more choices of where to put them",
            "trash",
            "jokers",
            {"num_players": 3},
            DEFAULT_BASELINES["trash"],
            150_000,
            "greedy",
        ),
        Task(
            "trash-standard-2p-match",
            1,
            "matches (R9): one reward after several hands and hundreds of decisions",
            "trash",
            "standard",
            {"num_players": 2, "match": True},
            DEFAULT_BASELINES["trash"],
            200_000,
            "greedy",
        ),
        Task(
            "trash-pagat-4p-match",
            1,
            "pagat matches with four players: one reward after thousands of decisions, the hardest credit assignment",
            "trash",
            "pagat",
            {"num_players": 4, "match": True},
            DEFAULT_BASELINES["trash"],
            200_000,
            "greedy",
        ),
        Task(
            "trash-pagat-2p-match",
            1,
            "pagat matches, two players: the per-hand edges of pagat's extra choices, compounded over a match (R9)",
            "trash",
            "pagat",
            {"num_players": 2, "match": True},
            DEFAULT_BASELINES["trash"],
            200_000,
            "greedy",
        ),
        Task(
            "trash-standard-2p-selfplay",
            1,
            "self-play only: trained against its own snapshots, never a baseline, evaluated against greedy",
            "trash",
            "standard",
            {"num_players": 2},
            (SELF_PLAY,),
            100_000,
            "greedy",
        ),
        Task(
            "hyn-2p",
            1,
            "Help Your Neighbor, two players: the solved game, so the reference is the optimum itself",
            "help_your_neighbor",
            "standard",
            {"num_players": 2},
            DEFAULT_BASELINES["help_your_neighbor"],
            150_000,
            "optimal",
        ),
        Task(
            "hyn-2p-selfplay",
            1,
            "self-play on the solved game: does training against itself find the optimum without a teacher?",
            "help_your_neighbor",
            "standard",
            {"num_players": 2},
            (SELF_PLAY,),
            150_000,
            "optimal",
        ),
        Task(
            "hyn-4p",
            1,
            "Help Your Neighbor, four players: the privilege passes the dice around, against the heuristic",
            "help_your_neighbor",
            "standard",
            {"num_players": 4},
            DEFAULT_BASELINES["help_your_neighbor"],
            150_000,
            "heuristic",
        ),
    )
}


def get_task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}: tasks are {sorted(TASKS)}")
    return TASKS[name]


GROUPS = {
    "all": lambda task: True,
    "baseline-opponents": lambda task: not task.self_play,  # where self-play can be added to baselines
    "self-play": lambda task: task.self_play,
}


def select_tasks(names: list[str]) -> list[Task]:
    """Tasks by name, or a group (``all``, ``baseline-opponents``, ``self-play``), in registry order."""
    chosen: dict[str, Task] = {}
    for name in names:
        if name in GROUPS:
            chosen.update({task.name: task for task in TASKS.values() if GROUPS[name](task)})
        else:
            chosen[name] = get_task(name)
    return [task for task in TASKS.values() if task.name in chosen]
