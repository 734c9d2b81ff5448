"""``agents.evaluation.evaluate``: any policy in memory (a callable, an agent object, an agent's name)
against another on duplicate deals, without registering anything."""

from __future__ import annotations

import numpy as np
import pytest

from agents.evaluation import CallableAgent, evaluate, run_pairings
from agents.evaluation.stats import pair_summaries
from agents.registry import make_agent
from trash_env.games import get_game


def random_legal(view, rng: np.random.Generator) -> int:
    """The registry's ``random``, as a callable: the same one draw per decision (the seat's stream)."""
    legal = view.legal_actions
    return legal[int(rng.random() * len(legal))]


def test_a_callable_plays_the_very_games_its_agent_would() -> None:
    """A callable that plays as ``random`` does gets ``random``'s figures against ``greedy`` exactly: the
    same duplicate deals and seat streams as ``run_pairings`` of the registered agents."""
    found = evaluate(random_legal, "greedy", deals=60, seed=3)
    config = get_game("trash").make_config(num_players=2)
    (expected,) = pair_summaries(run_pairings(config, [("random", "greedy")], 60, seed=3))
    assert found.first == "random_legal" and found.second == "greedy" and found.deals == 60
    assert found.score_difference == expected.score_difference


def test_an_agent_object_or_a_name_on_either_game_and_any_rules() -> None:
    heuristic = make_agent("heuristic", "help_your_neighbor")
    found = evaluate(heuristic, "random", game="help_your_neighbor", num_players=3, deals=40)
    assert found.deals == 40 and found.games > 2 * 40 and found.score_difference.mean > 0  # every seating
    mirror = evaluate("greedy", make_agent("greedy", "trash"), deals=20)
    assert mirror.first != mirror.second and mirror.score_difference.mean == 0
    config = get_game("trash").make_config("pagat", num_players=2)
    assert evaluate(lambda view, rng: view.legal_actions[-1], "random", config=config, deals=10).first == "policy"


def test_bad_policies_and_arguments_are_one_line() -> None:
    with pytest.raises(TypeError, match="a policy is an agent, a name or a callable"):
        CallableAgent(42)
    with pytest.raises(ValueError, match="chose 99, not a legal action"):
        evaluate(lambda view, rng: 99, "random", deals=2)
    with pytest.raises(ValueError, match="returned 'draw', not an action"):
        evaluate(lambda view, rng: "draw", "random", deals=2)
    with pytest.raises(ValueError, match="give config or rules fields, not both"):
        evaluate("random", "greedy", config=get_game("trash").make_config(), num_players=3)
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate("nobody", "greedy", deals=2)
    with pytest.raises(ValueError, match="deals must be at least 1"):
        evaluate(random_legal, "greedy", deals=0)
