"""``roller`` (:class:`agents.heuristic.NeighborRoller`): the Help Your Neighbor heuristic without its
guard, a held-out evaluation opponent of the benchmark (R12, R14: 0 roll, 1 end the turn, 2 + j
uncover the j-th marker).

- it is a baseline of Help Your Neighbor in the registry, not a training default;
- at every roll-or-end choice of played games it rolls again, where the heuristic sometimes ends
  the turn (its guard); after a 7 it uncovers what the heuristic uncovers;
- it decides in batches exactly as one position at a time, from the observation alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Agent, SeatView
from agents.baselines import RandomAgent
from agents.evaluation.seatings import play_game
from agents.heuristic import NeighborHeuristic, NeighborRoller
from agents.registry import baselines, default_baselines, make_agent
from trash_env.neighbor.rules import CHOOSE, END_TURN, ROLL_DICE, UNCOVER, make_config
from trash_env.trash.config import make_config as trash_config

GAME = "help_your_neighbor"


def test_it_is_a_batchable_baseline_of_help_your_neighbor_only() -> None:
    assert baselines(GAME)["roller"].make is NeighborRoller
    assert "roller" not in baselines("trash") and "roller" not in default_baselines(GAME)
    agent = make_agent("roller", GAME)
    assert isinstance(agent, NeighborRoller) and agent.name == "roller" and agent.batchable
    with pytest.raises(ValueError, match="plays help_your_neighbor, not trash"):
        agent.check_config(trash_config("standard"))


class Recording(Agent):
    """Plays ``agent`` and keeps every view it is asked at."""

    games = (GAME,)

    def __init__(self, agent: Agent) -> None:
        self.agent, self.views = agent, []

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        self.views.append(view)
        return self.agent.act(view, rng)


@pytest.mark.parametrize("num_players", [2, 4])
def test_it_is_the_heuristic_without_its_guard_in_played_games(num_players: int) -> None:
    config = make_config(num_players=num_players)
    recorders = []
    for seed in range(30):
        recorder = Recording(NeighborHeuristic())
        agents = [recorder if seat % 2 == 0 else RandomAgent() for seat in range(num_players)]
        rngs = [np.random.default_rng([seed, seat]) for seat in range(num_players)]
        play_game(config, agents, np.random.default_rng(seed), rngs)
        recorders.append(recorder)
    views = [view for recorder in recorders for view in recorder.views]
    roller, heuristic, rng = NeighborRoller(), NeighborHeuristic(), np.random.default_rng(0)
    phases = {CHOOSE: 0, UNCOVER: 0}
    guarded = 0
    for view in views:
        phase = view.public_state.phase
        phases[phase] += 1
        action = roller.act(view, rng)
        assert action in view.legal_actions
        if phase == CHOOSE:
            assert action == ROLL_DICE
            guarded += heuristic.act(view, rng) == END_TURN
        else:
            assert action == heuristic.act(view, rng)
    assert phases[CHOOSE] > 200 and phases[UNCOVER] > 5
    if num_players == 2:
        assert guarded >= 1  # the positions include some where the heuristic's guard ends the turn
    observations = np.stack([view.observation for view in views])
    masks = np.stack([view.action_mask for view in views])
    one_by_one = [roller.act(view, rng) for view in views]
    assert roller.act_batch(observations, masks, [None] * len(views)).tolist() == one_by_one
