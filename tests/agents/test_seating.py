"""Every place an agent is seated checks it against the rules it will play (R11, R12).

A policy trained for one configuration reads observations whose pieces mean something else under
another (layout sizes, wild ranks, the number of seats), so it must be refused where it is seated:
the single-agent envs, the batched vector env, RLlib's env, terminal play, evaluation and
train.py, each with a ``ValueError`` (or, on the command line, a one-line error) naming the fields.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.heuristic import NeighborHeuristic
from agents.registry import make_agent
from trash_env import NeighborSingleAgentEnv, TrashSingleAgentEnv

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_POLICY = str(ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip")


@pytest.fixture(scope="module")
def shipped():
    pytest.importorskip("sb3_contrib")
    return make_agent(SHIPPED_POLICY)


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("pagat", {}, "wild: trained 'K', asked 'J'"),
        ("standard", {"layout_size": 9}, "layout_size: trained 10, asked 9"),
        ("standard", {"num_players": 3}, "num_players: trained 2, asked 3"),
        ("standard", {"match": True}, "match: trained False, asked True"),
    ],
)
def test_single_agent_env_refuses_a_policy_for_other_rules(shipped, preset: str, overrides: dict, message: str) -> None:
    """The shipped standard policy as an opponent in a pagat, 9-slot, 3-player or match env: a
    ValueError naming the field, at construction and through set_opponents."""
    with pytest.raises(ValueError, match=message):
        TrashSingleAgentEnv(preset, opponents=[shipped], **overrides)
    env = TrashSingleAgentEnv(preset, **overrides)
    with pytest.raises(ValueError, match=message):
        env.set_opponents([make_agent("random"), shipped])


def test_single_agent_env_accepts_the_policy_for_its_own_rules(shipped) -> None:
    env = TrashSingleAgentEnv("standard", opponents=[shipped], max_turns=50)  # max_turns does not change what it sees
    env.reset(seed=0)


def test_single_agent_envs_refuse_an_agent_of_the_other_game(shipped) -> None:
    with pytest.raises(ValueError, match="plays help_your_neighbor, not trash"):
        TrashSingleAgentEnv("standard", opponents=[NeighborHeuristic()])
    with pytest.raises(ValueError, match="trained for trash_v0, not help_your_neighbor_v0"):
        NeighborSingleAgentEnv(opponents=[shipped])


def test_vector_env_seats_only_its_in_engine_baselines() -> None:
    """The batched vector env plays opponents inside the engine: a name that is not an in-engine
    baseline (a policy file included) is a ValueError."""
    pytest.importorskip("stable_baselines3")
    from trash_env.trash.vec_env import TrashVecEnv

    with pytest.raises(ValueError, match="not an in-engine baseline"):
        TrashVecEnv(2, "pagat", opponents=[SHIPPED_POLICY])


def test_rllib_env_refuses_a_policy_for_other_rules() -> None:
    pytest.importorskip("ray.rllib")
    from agents.registry import make_agent
    from trash_env.trash.rllib_env import TrashRLlibEnv

    with pytest.raises(ValueError, match="num_players: trained 2, asked 3"):
        TrashRLlibEnv({"num_players": 3, "opponents": [make_agent(SHIPPED_POLICY)]})


def test_evaluation_play_and_training_refuse_a_policy_for_other_rules(train, capsys) -> None:
    """Evaluation (from Python), terminal play and train.py (as an opponent) name the fields."""
    from agents.commands import play
    from agents.evaluation.duplicate import run_pairings
    from trash_env.trash.config import make_config

    with pytest.raises(ValueError, match="layout_size: trained 10, asked 8"):
        run_pairings(make_config("eight_card"), [(SHIPPED_POLICY, "greedy")], 2)
    assert play.main(["--opponents", SHIPPED_POLICY, "--preset", "jokers"], input_fn=lambda prompt: "q") == 2
    assert "jokers: trained False, asked True" in capsys.readouterr().err
    from agents.commands.train import main as train_main

    assert train_main(["--preset", "seven_up", "--opponents", SHIPPED_POLICY]) == 2
    assert "trained for another configuration" in capsys.readouterr().err
