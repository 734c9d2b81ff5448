"""Ray RLlib: the multi-agent environment over trash_v0, a tiny training run on a local Ray
instance, and the exported policy as an agent of the evaluation command (R10, R13)."""

from __future__ import annotations

import contextlib
import json
import pickle
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from agents.commands import evaluate
from agents.registry import make_agent
from trash_env.trash import rules as trash
from trash_env.trash.config import make_config
from trash_env.trash.rllib_env import TrashRLlibEnv

NUM_ACTIONS = trash.NUM_ACTIONS


def play_episode(env: TrashRLlibEnv, rng: np.random.Generator) -> dict[str, object]:
    """One episode with uniformly random legal actions from the masks; what RLlib would see."""
    obs, _ = env.reset(seed=int(rng.integers(1000)))
    seen: Counter = Counter()
    returns: Counter = Counter()
    final: dict[str, bool] = {}
    for _ in range(10_000):
        assert len(obs) == 1, "an AEC game exposes one agent to act at a time"
        ((agent, observation),) = obs.items()
        assert agent in env.learners
        assert set(observation) == {"observations", "action_mask"}
        assert observation["action_mask"].dtype == np.float32 and observation["action_mask"].shape == (NUM_ACTIONS,)
        assert env.observation_space[agent].contains(observation)
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) >= 1
        assert list(legal) == trash.legal_actions(env.env.game_state)
        seen[agent] += 1
        obs, rewards, terminated, truncated, _ = env.step({agent: int(rng.choice(legal))})
        for name, reward in rewards.items():
            returns[name] += reward
        if terminated["__all__"] or truncated["__all__"]:
            final = {"terminated": terminated["__all__"], "truncated": truncated["__all__"]}
            assert set(obs) <= set(env.learners)
            for name in obs:
                assert terminated[name] or truncated[name]
            return {"seen": seen, "returns": returns, **final, "state": env.env.game_state}
        assert not any(v for k, v in terminated.items() if k != "__all__")
    raise AssertionError("the episode did not end")


@pytest.mark.parametrize("opponents", [None, ["greedy"], ["random", "counter"]], ids=["self-play", "greedy", "pool"])
@pytest.mark.parametrize("num_players", [2, 3])
def test_environment_exposes_the_learner_seats_with_masks(opponents, num_players) -> None:
    """R13: only the exposed seats act through RLlib, every observation carries the legal
    actions as a float mask, and the rewards at the end are R10's for those seats."""
    agents = [make_agent(name) for name in opponents or []]
    env = TrashRLlibEnv({"num_players": num_players, "opponents": agents, "seed": 1})
    rng = np.random.default_rng(0)
    for _ in range(30):
        episode = play_episode(env, rng)
        state = episode["state"]
        assert state.over
        expected = dict(zip(env.env.possible_agents, trash.returns(state)))
        for name in env.learners:
            assert episode["returns"][name] == expected[name]
        if opponents:
            assert len(env.learners) == 1
            assert set(episode["seen"]) <= set(env.learners)
        else:
            assert env.learners == env.env.possible_agents
        assert episode["truncated"] == state.truncated


def test_learner_seat_fixed_and_drawn() -> None:
    """With opponents the learner's seat is drawn per episode, or fixed by learner_seat."""
    drawn = TrashRLlibEnv({"num_players": 3, "opponents": [make_agent("greedy")], "seed": 2})
    fixed = TrashRLlibEnv({"num_players": 3, "opponents": [make_agent("greedy")], "learner_seat": 2, "seed": 2})
    rng = np.random.default_rng(1)
    seats_drawn, seats_fixed = set(), set()
    for _ in range(20):
        play_episode(drawn, rng)
        seats_drawn.add(drawn.learners[0])
        play_episode(fixed, rng)
        seats_fixed.add(fixed.learners[0])
    assert seats_drawn == {"player_0", "player_1", "player_2"}
    assert seats_fixed == {"player_2"}


def test_truncation_is_reported_as_truncated() -> None:
    """R7: a game cut at max_turns ends truncated (0 to all), not terminated."""
    env = TrashRLlibEnv({"num_players": 2, "max_turns": 4, "seed": 3})
    rng = np.random.default_rng(2)
    episodes = [play_episode(env, rng) for _ in range(10)]
    assert any(e["truncated"] and not e["terminated"] for e in episodes)
    for episode in episodes:
        if episode["truncated"]:
            assert all(v == 0 for v in episode["returns"].values())


def test_bad_configuration_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="num_players"):
        TrashRLlibEnv({"num_players": 9})
    with pytest.raises(ValueError, match="help_your_neighbor"):  # an agent of the other game
        TrashRLlibEnv({"opponents": [make_agent("heuristic", "help_your_neighbor")]})
    with pytest.raises(ValueError, match="make_agent"):  # names are resolved by agents, not by trash_env
        TrashRLlibEnv({"opponents": ["greedy"]})


torch = pytest.importorskip("torch")


class Payload:
    """Unpickling this writes ``marker``: what a crafted policy file could do instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


@pytest.mark.slow
def test_tiny_run_on_local_ray_and_the_exported_policy_round_trip(tmp_path: Path, capsys) -> None:
    """A couple of PPO iterations on a local Ray instance: the policy is exported with its
    configuration, loads as an agent that plays only legal actions, goes through the
    evaluation command, and refuses another configuration."""
    from agents.training import rllib as train_rllib

    result = train_rllib.train(
        train_rllib.Args(
            out_dir=tmp_path,
            run_name="tiny",
            iterations=2,
            batch_size=400,
            minibatch_size=200,
            epochs=1,
            hidden=[32],
            final_eval_deals=10,
            eval_workers=1,
            eval_baselines=["random"],
        )
    )
    policy = result.policy
    assert policy == tmp_path / "tiny" / "policy" == result.run_dir / "policy"
    assert (policy / "trash_rl.json").is_file() and (policy / "module").is_dir()
    metadata = json.loads((policy / "trash_rl.json").read_text())
    assert metadata["game"] == "trash_v0" and metadata["algorithm"] == "RLlib PPO"
    assert [row["iteration"] for row in result.history] == [1, 2]
    assert result.timesteps == result.history[-1]["env_steps"] >= 800
    assert json.loads((tmp_path / "tiny" / "final_eval.json").read_text())["deals"] == 10
    assert result.summary is not None and [pair["second"] for pair in result.summary["pairs"]] == ["random"]
    assert (result.interrupted, result.exit_status, result.checkpoint) == (False, 0, None)
    assert result.agent.metadata == metadata

    agent = make_agent(str(policy))
    config = make_config("standard")
    agent.check_config(config)
    from agents.evaluation.seatings import play_game

    for seed in range(5):
        rng = np.random.default_rng(seed)
        state = play_game(config, [agent, make_agent("random")], rng, [rng, rng])  # an illegal action would raise
        assert state.over
    with pytest.raises(ValueError, match="num_players"):
        agent.check_config(make_config("standard", num_players=3))

    out = tmp_path / "eval.json"
    code = evaluate.main([str(policy), "random", "--deals", "20", "--quiet", "--json", str(out)])
    assert code == 0
    summary = json.loads(out.read_text())
    assert summary["pairs"][0]["first"] == str(policy)
    assert evaluate.main([str(policy), "random", "--deals", "5", "--quiet", "--num-players", "3"]) == 2
    assert "trained for another configuration" in capsys.readouterr().err

    broken = tmp_path / "broken"
    shutil.copytree(policy, broken)
    (broken / "trash_rl.json").write_text(json.dumps({k: v for k, v in metadata.items() if k != "config"}))
    with pytest.raises(ValueError, match="no config"):
        make_agent(str(broken))
    (broken / "trash_rl.json").write_text(json.dumps(metadata))
    (broken / "weights.npz").unlink()
    with pytest.raises(ValueError, match="weights"):
        make_agent(str(broken))
    (broken / "trash_rl.json").unlink()
    with pytest.raises(ValueError, match="not an RLlib policy"):
        make_agent(str(broken))

    # The agent is RLlib's own module: the same logits as RLlib's loader gives, without its pickles.
    from ray.rllib.core.rl_module.rl_module import RLModule

    rllib_module = RLModule.from_checkpoint(str((policy / "module").resolve()))
    observations = torch.rand(5, metadata["observation_size"])

    def batch() -> dict:  # a fresh one per call: the module's forward pass rewrites its input
        return {"obs": {"observations": observations, "action_mask": torch.ones(5, 13)}}

    with torch.no_grad():
        ours = agent.module.forward_inference(batch())["action_dist_inputs"]
        theirs = rllib_module.forward_inference(batch())["action_dist_inputs"]
    assert torch.allclose(ours, theirs)

    # A folder whose pickles carry a payload: loading it as an agent (and evaluating it) runs nothing.
    crafted = tmp_path / "crafted"
    shutil.copytree(policy, crafted)
    marker = tmp_path / "payload_ran"
    for name in ("class_and_ctor_args.pkl", "module_state.pkl"):
        (crafted / "module" / name).write_bytes(pickle.dumps(Payload(marker)))
    agent = make_agent(str(crafted))
    assert evaluate.main([str(crafted), "random", "--deals", "3", "--quiet"]) == 0
    assert not marker.exists()
    with contextlib.suppress(Exception):  # RLlib's own loader does unpickle them: the threat is real
        RLModule.from_checkpoint(str((crafted / "module").resolve()))
    assert marker.exists()
