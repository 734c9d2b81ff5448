"""Tests of training and evaluation on the batched engine: :class:`trash_env.trash.vec_env.TrashVecEnv`
(a Stable-Baselines3 ``VecEnv`` over :mod:`trash_env.trash.batched`), the ``engine`` argument of
:func:`agents.evaluation.duplicate.run_pairings` (and ``--engine`` of ``trash-evaluate``), and
``train.py --batched``.

Rules are cited by their section of RULES.md: R7 (truncation at ``max_turns``), R8-R10 (the end of
a hand or match and its rewards), R13 (forced moves are played for a seat; the learner is asked at
its real choices). The engine itself is compared with the core move by move in
``tests/trash/test_batched_vs_core.py``; here the vector env is checked against SB3's ``VecEnv`` contract and,
statistically, against the scalar single-agent env it mirrors, and the batched evaluation against
the scalar one game by game. Every run is seeded; training runs are tiny and use one torch thread.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from helpers.batched import assert_learners_see_the_cores, assert_model_plays_legal_moves
from helpers.tiny_training import tiny_batched_args

pytest.importorskip("numba")
pytest.importorskip("stable_baselines3")

import agents.evaluation.duplicate as evaluation
from agents.base import Agent, SeatView
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.commands.evaluate import main as evaluate_main
from agents.evaluation.duplicate import run_pairings, run_tournament
from agents.evaluation.seatings import GameResult, games_per_deal
from agents.evaluation.stats import Interval, pair_summaries
from agents.registry import make_agent
from trash_env import TrashSingleAgentEnv
from trash_env.neighbor.rules import make_config as neighbor_config
from trash_env.trash import batched
from trash_env.trash import rules as trash
from trash_env.trash.config import make_config
from trash_env.trash.observation import TrashObserver
from trash_env.trash.vec_env import TrashVecEnv

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


# --------------------------------------------------------------------------
# Fixtures and helpers


tiny_args = tiny_batched_args  # train.Args for a tiny in-process --batched run (tests/helpers/tiny_training.py)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def lowest_legal(masks: np.ndarray) -> np.ndarray:
    """The lowest legal action per row: draw from the stock, then the lowest slot (R13 numbering)."""
    return np.asarray(masks).argmax(axis=1)


def check_observations(env: TrashVecEnv, obs: np.ndarray) -> None:
    assert isinstance(obs, np.ndarray)
    assert obs.shape == (env.num_envs, TrashObserver(env.config).size) == (env.num_envs, *env.observation_space.shape)
    assert obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0


def checked_rollout(env: TrashVecEnv, steps: int, seed: int) -> dict[str, int]:
    """Uniformly random legal play for ``steps`` steps, checking SB3's ``VecEnv`` contract at each:
    observations, masks (at least one legal action, at least two except at an episode's first
    move, R13), rewards only at ends (R10), ``infos`` of finished games (the final observation
    with the game over, ``TimeLimit.truncated``), the next game dealt at once; and, through the
    engine's state, that each observation is the learner's view of its game as the scalar
    :class:`TrashObserver` encodes it, with the core's legal actions. Returns counts."""
    n, size = env.num_envs, env.observation_space.shape[0]
    observer = TrashObserver(env.config)
    rng = np.random.default_rng(seed)
    obs = env.reset()
    check_observations(env, obs)
    first = np.ones(n, bool)  # an episode's first learner move (R13 may ask it though forced)
    counts = {"episodes": 0, "truncated": 0, "forced_first": 0, "wins": 0, "losses": 0}
    for _ in range(steps):
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (n, trash.NUM_ACTIONS)
        np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
        legal = masks.sum(axis=1)
        assert (legal >= 1).all()
        assert (legal[~first] >= 2).all(), "the learner was asked a forced move after its first (R13)"
        counts["forced_first"] += int((legal == 1).sum())
        assert_learners_see_the_cores(env, obs, masks, observer, trash)

        obs, rewards, dones, infos = env.step(random_legal(masks, rng))
        check_observations(env, obs)
        assert rewards.shape == (n,) and dones.shape == (n,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == n and all(isinstance(info, dict) for info in infos)
        assert (rewards[~dones] == 0).all()
        for b in np.flatnonzero(~dones):
            assert "terminal_observation" not in infos[b]
        for b in np.flatnonzero(dones):
            info, reward = infos[b], float(rewards[b])
            counts["episodes"] += 1
            assert reward in (-1.0, 0.0, 1.0)
            terminal = info["terminal_observation"]
            assert isinstance(terminal, np.ndarray) and terminal.shape == (size,) and terminal.dtype == np.float32
            assert terminal.min() >= 0.0 and terminal.max() <= 1.0
            pieces = observer.view(terminal)
            assert not pieces["current"].any() and not pieces["phase"].any() and not pieces["held"].any()
            truncated = info["TimeLimit.truncated"]
            assert isinstance(truncated, bool)
            counts["truncated"] += truncated
            counts["wins"] += reward == 1.0
            counts["losses"] += reward == -1.0
            if truncated:
                assert reward == 0.0  # R7: a truncated game is a draw
            elif not env.config.match:  # R8, R10: in a hand the winners are the seats that completed
                assert bool(pieces["completed"][0]) == (reward == 1.0)
                if reward == -1.0:
                    assert pieces["completed"].any()
            new = observer.view(obs[b])  # the next game, at the learner's first move
            assert not np.array_equal(obs[b], terminal)
            assert new["phase"].sum() == 1 and new["current"][0] == 1 and new["current"].sum() == 1
        first = dones.copy()
    return counts


# --------------------------------------------------------------------------
# 1. TrashVecEnv: SB3's VecEnv contract


ROLLOUT_CASES = [
    pytest.param("standard", {}, ["random"], id="standard-2p-random"),
    pytest.param("pagat", {"num_players": 3}, ["random", "greedy"], id="pagat-3p"),
    pytest.param("eight_card", {"match": True}, ["counter"], id="eight_card-match"),
    pytest.param("jokers", {"num_players": 5}, ["random", "greedy", "counter"], id="jokers-5p"),
]


@pytest.mark.parametrize(("preset", "overrides", "opponents"), ROLLOUT_CASES)
def test_vec_env_follows_the_vecenv_contract(preset: str, overrides: dict[str, Any], opponents: list[str]) -> None:
    """300 steps of 16 games of random legal play: every step keeps the contract of
    :func:`checked_rollout`; games end (with wins and losses), none is truncated at the default
    ``max_turns`` (R7), and the spaces are those of the scalar single-agent env."""
    env = TrashVecEnv(16, preset, opponents=opponents, seed=1, **overrides)
    scalar = TrashSingleAgentEnv(preset, **overrides)
    assert env.observation_space == scalar.observation_space
    assert env.action_space == scalar.action_space
    assert env.config == make_config(preset, **overrides)
    counts = checked_rollout(env, 300, seed=2)
    assert counts["episodes"] >= 30
    assert counts["wins"] > 0 and counts["losses"] > 0
    assert counts["truncated"] == 0


@pytest.mark.parametrize("vec_env", ["trash", "neighbor"])
def test_a_steps_arrays_are_not_changed_by_the_next_steps(vec_env: str) -> None:
    """SB3 keeps what ``step`` returned: its rollouts store this step's ``dones`` as the next step's
    episode starts, and add bootstrapped values to the rewards. So the observations, rewards and
    dones a step returns are the caller's own, unchanged by later steps (a reused buffer here once
    gave MaskablePPO wrong episode starts, and it learned less)."""
    from trash_env.neighbor.vec_env import NeighborVecEnv

    env = TrashVecEnv(8, seed=6) if vec_env == "trash" else NeighborVecEnv(8, num_players=2, seed=6)
    env.reset()
    rng = np.random.default_rng(7)
    kept = []
    for _ in range(60):
        obs, rewards, dones, _ = env.step(random_legal(env.action_masks(), rng))
        kept.append(((obs, rewards, dones), (obs.copy(), rewards.copy(), dones.copy())))
    assert any(copies[2].any() for _, copies in kept)  # games ended along the way
    for returned, copies in kept:
        for array, copy in zip(returned, copies, strict=True):
            np.testing.assert_array_equal(array, copy)


def test_truncation_sets_timelimit_truncated_and_deals_a_new_game() -> None:
    """R7 with ``max_turns=6``: a 2-player hand of 10 slots seldom finishes in 6 turns (a lucky
    chain of placements can), so nearly every episode is truncated: reward 0,
    ``TimeLimit.truncated`` True, the final observation that of a game over; the others were won
    or lost (R8, R10). After every end the game in that slot is a new one (fewer than 6 turns
    played, learner to act)."""
    env = TrashVecEnv(8, max_turns=6, seed=3)
    counts = checked_rollout(env, 40, seed=4)
    assert counts["episodes"] >= 20
    assert counts["truncated"] >= 0.9 * counts["episodes"]
    assert counts["wins"] + counts["losses"] == counts["episodes"] - counts["truncated"]
    rng = np.random.default_rng(5)
    for _ in range(20):
        _, rewards, dones, infos = env.step(random_legal(env.action_masks(), rng))
        turns = env.batch.state[:, batched.TURN]
        assert (turns < 6).all()
        assert (env.batch.state[:, batched.PHASE] != trash.OVER).all()
        for b in np.flatnonzero(dones):
            assert infos[b]["TimeLimit.truncated"] == bool(rewards[b] == 0.0)


def test_seven_up_episodes_are_one_forced_first_move() -> None:
    """seven_up has no wilds and never lets a player take the discard (R11), so no seat ever has a
    real choice (R13): each episode is the learner's first move, asked though forced, and ends at
    once with R10's reward."""
    env = TrashVecEnv(8, "seven_up", seed=6)
    env.reset()
    for _ in range(10):
        masks = env.action_masks()
        assert (masks.sum(axis=1) == 1).all()
        _, rewards, dones, infos = env.step(lowest_legal(masks))
        assert dones.all()
        assert set(np.abs(rewards).tolist()) <= {0.0, 1.0}
        assert all(info["TimeLimit.truncated"] is False for info in infos)


def test_illegal_actions_raise_a_value_error_naming_the_game() -> None:
    """The batched env never replaces or punishes an illegal action: it refuses the whole step with
    a ``ValueError`` naming the first bad game (an illegal, negative or out-of-range action, or the
    wrong number of actions), and the games are left as they were."""
    env = TrashVecEnv(4, seed=7)
    env.reset()
    masks = env.action_masks()
    state = env.batch.state.copy()
    cases = {2: int(np.flatnonzero(~masks[2])[0]), 1: trash.NUM_ACTIONS, 3: -1}
    for game, action in cases.items():
        actions = lowest_legal(masks)
        actions[game] = action
        with pytest.raises(ValueError, match=rf"action {action} is illegal in game {game}"):
            env.step(actions)
    with pytest.raises(ValueError, match="expected 4 actions, got 3"):
        env.step(lowest_legal(masks)[:3])
    np.testing.assert_array_equal(env.batch.state, state)
    np.testing.assert_array_equal(env.action_masks(), masks)
    env.step(lowest_legal(masks))  # still usable


def trajectory(env: TrashVecEnv, steps: int, seed: int = 0) -> list[np.ndarray]:
    """Everything a learner sees over ``steps`` random legal steps from a reset."""
    rng = np.random.default_rng(seed)
    seen = [env.reset().copy()]
    for _ in range(steps):
        masks = env.action_masks()
        obs, rewards, dones, infos = env.step(random_legal(masks, rng))
        terminals = [info["terminal_observation"] for info in infos if "terminal_observation" in info]
        seen += [masks, obs, rewards, dones, np.array([info.get("TimeLimit.truncated", -1) for info in infos])]
        seen += terminals
    return seen


def assert_same(one: list[np.ndarray], two: list[np.ndarray]) -> None:
    assert len(one) == len(two)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_the_same_seed_gives_the_same_trajectories() -> None:
    """Deals, opponents' seats and choices come from the seed: two envs with one seed give the same
    trajectories, another seed others; ``env.seed(s)`` then ``reset()`` (SB3's way) starts over as
    a new env with seed ``s`` does, whatever was played before."""
    first = trajectory(TrashVecEnv(8, opponents=["random", "greedy"], seed=11), 100)
    assert_same(first, trajectory(TrashVecEnv(8, opponents=["random", "greedy"], seed=11), 100))
    other = trajectory(TrashVecEnv(8, opponents=["random", "greedy"], seed=12), 100)
    assert not np.array_equal(first[0], other[0])
    env = TrashVecEnv(8, opponents=["random", "greedy"], seed=99)
    trajectory(env, 30, seed=1)
    assert env.seed(11) == list(range(11, 19))
    assert_same(first, trajectory(env, 100))
    env.seed(11)
    assert_same(first, trajectory(env, 100))


def test_parallel_stepping_gives_the_same_trajectories() -> None:
    """Each game owns its generator, so stepping the games on Numba's threads changes nothing."""
    serial = trajectory(TrashVecEnv(16, "jokers", opponents=["random", "counter"], seed=4, parallel=False), 80)
    parallel = trajectory(TrashVecEnv(16, "jokers", opponents=["random", "counter"], seed=4, parallel=True), 80)
    assert_same(serial, parallel)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "random"}, "list of baseline names"),
        ({"opponents": ["greedy", "search"]}, "'search' is not an in-engine baseline"),
        ({"opponents": ["heuristic"]}, "'heuristic' is not an in-engine baseline"),
        ({"opponents": []}, "non-empty list"),
        ({"learner_seat": 2}, "learner_seat=2"),
        ({"preset": "bogus"}, "preset='bogus'"),
    ],
)
def test_bad_arguments_raise_a_value_error(kwargs: dict[str, Any], message: str) -> None:
    """Opponents are a list of in-engine baselines (random, greedy, counter), the learner seat a
    seat of the table, the preset one of R11."""
    with pytest.raises(ValueError, match=message):
        TrashVecEnv(4, **kwargs)


def test_fixed_learner_seat() -> None:
    """``learner_seat`` fixes the learner's seat in every episode (drawn per episode otherwise)."""
    env = TrashVecEnv(8, num_players=3, learner_seat=2, seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert (env.batch.state[:, batched.LEARNER] == 2).all()
        assert (env.batch.seats == 2).all()
        env.step(random_legal(env.action_masks(), rng))
    drawn = TrashVecEnv(64, num_players=3, seed=0)
    drawn.reset()
    assert set(drawn.batch.state[:, batched.LEARNER].tolist()) == {0, 1, 2}


class CheckedAsked(Agent):
    """A batch-deciding opponent for ``TrashVecEnv`` that checks, at every call, that it is asked only
    for seats that are not the learner's, on their turn, with that seat's view as the scalar
    :class:`TrashObserver` encodes it and the core's legal actions (R13); it plays the lowest legal
    action and counts its decisions."""

    batchable = True
    name = "checked"

    def __init__(self, env_ref: list[TrashVecEnv]) -> None:
        self.env_ref = env_ref
        self.decisions = 0
        self.calls = 0

    def check_config(self, config: Any) -> None:
        pass

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        raise AssertionError("the batched env asks act_batch only")

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Any) -> np.ndarray:
        env = self.env_ref[0]
        observer = TrashObserver(env.config)
        (code,) = [code for code, agent in env._asked.items() if agent is self]
        rows = np.flatnonzero(
            (env.batch.policies[np.arange(env.num_envs), env.batch.seats] == code) & (env.batch.status > 0)
        )
        assert len(rows) == len(observations) == len(masks) == len(rngs)
        for row, obs, mask in zip(rows, observations, masks):
            state = env.batch.game_state(int(row))
            seat = state.current
            assert seat != int(env.batch.state[row, batched.LEARNER])
            np.testing.assert_array_equal(obs, observer.encode(state, seat))
            np.testing.assert_array_equal(
                np.asarray(mask, bool), trash.action_mask(trash.legal_actions(state)).astype(bool)
            )
        self.calls += 1
        self.decisions += len(observations)
        return lowest_legal(masks)


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [pytest.param("standard", {}, id="standard-2p"), pytest.param("jokers", {"num_players": 4}, id="jokers-4p")],
)
def test_opponents_asked_outside_the_engine_see_their_own_seat(preset: str, overrides: dict[str, Any]) -> None:
    """An opponent that decides in batches (a self-play snapshot) plays inside ``TrashVecEnv`` beside the
    in-engine baselines: it is asked only at its own seats' turns, with their observations and legal
    actions, for many games at once; the VecEnv contract holds throughout."""
    ref: list[TrashVecEnv] = []
    asked = CheckedAsked(ref)
    env = TrashVecEnv(16, preset, opponents=["random", asked], seed=3, **overrides)
    ref.append(env)
    counts = checked_rollout(env, 200, seed=1)
    assert counts["episodes"] > 20
    assert asked.decisions > 200 and asked.decisions > 2 * asked.calls, "it should be asked for many games at once"


def test_set_opponents_swaps_asked_agents_in_for_new_deals() -> None:
    """``set_opponents`` replaces the pool for games dealt from then on; an asked agent whose games
    are still running keeps playing them; a pool of only asked agents is played without baselines."""
    ref: list[TrashVecEnv] = []
    first, second = CheckedAsked(ref), CheckedAsked(ref)
    env = TrashVecEnv(8, opponents=[first], seed=0)
    ref.append(env)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(random_legal(env.action_masks(), rng))
    assert first.decisions > 0 and second.decisions == 0
    env.set_opponents([second])
    for _ in range(300):
        env.step(random_legal(env.action_masks(), rng))
    seen = second.decisions
    assert seen > 0
    before = first.decisions
    for _ in range(100):
        env.step(random_legal(env.action_masks(), rng))
    assert first.decisions == before, "games dealt after set_opponents must not ask the old agent"
    assert second.decisions > seen
    with pytest.raises(ValueError, match="cannot play in the batched engine"):
        env.set_opponents([GreedyAgent()])


def test_train_batched_self_play_plays_its_snapshots(train: ModuleType, tmp_path: Path) -> None:
    """``train.py --batched --self-play-only`` trains against snapshots of the learner asked in batches
    inside the engine: the snapshots are written every ``--snapshot-every`` steps and the policy loads."""
    args = tiny_args(
        train, tmp_path / "out", self_play_only=True, opponents=[], snapshot_every=1024, final_eval_deals=2
    )
    result = train.train(args)
    steps = sorted(int(path.stem.split("_")[1]) for path in (result.run_dir / "snapshots").glob("step_*.zip"))
    assert steps[0] == 0 and 1024 in steps
    assert result.timesteps == 2048
    assert make_agent(str(result.policy)).metadata["num_timesteps"] == 2048


def forced_first_episodes(opponent: str, steps: int = 400) -> tuple[int, int]:
    """Play the lowest legal action in 64 standard games against ``opponent``; of the episodes
    whose first learner move was forced (one legal action), how many there were and how many then
    asked the learner again."""
    env = TrashVecEnv(64, opponents=[opponent], seed=0)
    env.reset()
    forced = env.action_masks().sum(axis=1) == 1
    length = np.zeros(64, int)
    total = asked_again = 0
    for _ in range(steps):
        _, _, dones, _ = env.step(lowest_legal(env.action_masks()))
        length += 1
        total += int((dones & forced).sum())
        asked_again += int((dones & forced & (length > 1)).sum())
        length[dones] = 0
        forced = np.where(dones, env.action_masks().sum(axis=1) == 1, forced)
    return total, asked_again


@pytest.mark.parametrize(
    "opponent",
    [
        "greedy",
        "random",
    ],
)
def test_a_forced_first_move_is_asked_only_when_the_learner_has_no_real_choice(opponent: str) -> None:
    """R13 as the scalar env (and the vector env's docstring) state it: the learner's first move is
    asked though forced only when it would have no real choice in the whole game, so such an
    episode ends after that one decision."""
    total, asked_again = forced_first_episodes(opponent)
    assert total > 20
    assert asked_again == 0, f"{asked_again} of {total} episodes asked a forced first move, then real choices"


# --------------------------------------------------------------------------
# 2. MaskablePPO on the batched env


class CheckedVecEnv(TrashVecEnv):
    """Counts the learner's decisions, episodes and truncations; asserts every action legal before
    the env's own check (which would raise)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.decisions = self.episodes = self.truncations = 0

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(-1)
        assert self.action_masks()[np.arange(self.num_envs), actions].all(), "MaskablePPO chose an illegal action"
        self.decisions += self.num_envs
        super().step_async(actions)

    def step_wait(self):
        obs, rewards, dones, infos = super().step_wait()
        self.episodes += int(dones.sum())
        self.truncations += sum(info.get("TimeLimit.truncated", False) for info in infos)
        return obs, rewards, dones, infos


def test_maskable_ppo_trains_on_the_batched_env() -> None:
    """sb3-contrib's MaskablePPO learns for 3 updates of 16 games x 64 steps without error and
    only ever samples legal actions (it reads ``env_method("action_masks")``); with
    ``max_turns=24`` some episodes are truncated (R7), so SB3 bootstraps from the final
    observations. The trained policy's masked predictions are legal."""
    from sb3_contrib import MaskablePPO
    env = CheckedVecEnv(16, opponents=["random", "greedy"], max_turns=24, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=2, seed=0, device="cpu", verbose=0)
    model.learn(3 * 16 * 64)
    assert model.num_timesteps == env.decisions == 3 * 16 * 64
    assert env.episodes > 100 and env.truncations > 0
    assert_model_plays_legal_moves(model, env)


# --------------------------------------------------------------------------
# 3. The same statistics as the scalar env


def scalar_episodes(preset: str, overrides: dict[str, Any], opponent: Agent, episodes: int) -> tuple[Any, Any]:
    """Rewards and lengths (learner decisions) of ``episodes`` episodes of the lowest legal action
    on the scalar single-agent env."""
    env = TrashSingleAgentEnv(preset, opponents=[opponent], **overrides)
    _, info = env.reset(seed=0)
    rewards, lengths, length = [], [], 0
    while len(rewards) < episodes:
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        length += 1
        if terminated or truncated:
            rewards.append(reward)
            lengths.append(length)
            length = 0
            _, info = env.reset()
    return np.array(rewards), np.array(lengths)


def batched_episodes(preset: str, overrides: dict[str, Any], opponent: str, episodes: int) -> tuple[Any, Any]:
    """The same on the batched env: the first ``episodes / 50`` episodes of each of 50 games (so
    short episodes are not favoured)."""
    num_envs = 50
    per_game = episodes // num_envs
    env = TrashVecEnv(num_envs, preset, opponents=[opponent], seed=0, **overrides)
    env.reset()
    done_count, length = np.zeros(num_envs, int), np.zeros(num_envs, int)
    rewards, lengths = [], []
    while (done_count < per_game).any():
        _, reward, dones, _ = env.step(lowest_legal(env.action_masks()))
        length += 1
        keep = dones & (done_count < per_game)
        rewards += reward[keep].tolist()
        lengths += length[keep].tolist()
        done_count += dones
        length[dones] = 0
    return np.array(rewards), np.array(lengths)


def assert_agree(one: np.ndarray, two: np.ndarray, what: str) -> None:
    """Two sample means within 4 standard errors of their difference."""
    se = np.sqrt(one.var(ddof=1) / len(one) + two.var(ddof=1) / len(two))
    assert abs(one.mean() - two.mean()) < 4 * se, f"{what}: {one.mean():.4f} vs {two.mean():.4f} (se {se:.4f})"


@pytest.mark.parametrize(
    ("preset", "overrides", "opponent", "agent"),
    [
        pytest.param("standard", {}, "random", RandomAgent(), id="standard-2p-random"),
        pytest.param("jokers", {"num_players": 3}, "greedy", GreedyAgent(), id="jokers-3p-greedy"),
        pytest.param("pagat", {"num_players": 2}, "counter", CountingAgent(), id="pagat-2p-counter"),
    ],
)
def test_win_rate_and_episode_length_agree_with_the_scalar_env(
    preset: str, overrides: dict[str, Any], opponent: str, agent: Agent
) -> None:
    """A fixed policy (always the lowest legal action) over 3,000 episodes on each env: the mean
    reward (R10), the win rate and the learner decisions per episode (R13) agree within 4 standard
    errors, and are far from trivial."""
    s_rewards, s_lengths = scalar_episodes(preset, overrides, agent, 3000)
    b_rewards, b_lengths = batched_episodes(preset, overrides, opponent, 3000)
    assert len(s_rewards) == len(b_rewards) == 3000
    assert_agree(s_rewards, b_rewards, "mean reward")
    assert_agree(s_rewards == 1, b_rewards == 1, "win rate")
    assert_agree(s_lengths, b_lengths, "decisions per episode")
    assert 0.02 < (b_rewards == 1).mean() < 0.98
    assert b_lengths.mean() > 2


# --------------------------------------------------------------------------
# 4. Evaluation on the batched engine


@pytest.fixture
def batched_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Records the pairs :func:`agents.evaluation.duplicate.play_deals_batched` is called for."""
    calls: list[tuple[str, str]] = []
    real = evaluation.play_deals_batched

    def spy(config, pair, deals, seed, duplicate, agents):
        calls.append(pair)
        return real(config, pair, deals, seed, duplicate, agents)

    monkeypatch.setattr(evaluation, "play_deals_batched", spy)
    return calls


EQUAL_CASES = [
    pytest.param(make_config("standard"), 200, True, id="standard-2p"),
    pytest.param(make_config("standard"), 100, False, id="standard-2p-independent"),
    pytest.param(make_config("standard", max_turns=14), 100, True, id="standard-2p-truncated"),
    pytest.param(make_config("pagat", num_players=3, match=True), 30, True, id="pagat-3p-match"),
    pytest.param(make_config("jokers", num_players=5), 60, True, id="jokers-5p"),
    pytest.param(make_config("seven_up"), 200, True, id="seven_up", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("config", "deals", "duplicate"), EQUAL_CASES)
def test_batched_tournament_plays_the_scalar_games(
    config: Any, deals: int, duplicate: bool, batched_calls: list[tuple[str, str]]
) -> None:
    """greedy and counter choose deterministically, and the exact mode of the batched engine deals
    the same decks and reshuffles (R7) and later hands (R9) as the core: the tournament gives the
    same list of games, field by field (rewards, turns, truncation), on either engine; ``auto``
    picks the batched engine for them."""
    scalar = run_tournament(config, ["greedy", "counter"], deals, seed=7, duplicate=duplicate, engine="scalar")
    assert batched_calls == []
    assert len(scalar) == deals * games_per_deal(("greedy", "counter"), config.num_players)
    on_batch = run_tournament(config, ["greedy", "counter"], deals, seed=7, duplicate=duplicate, engine="batched")
    assert batched_calls == [("greedy", "counter")]
    assert on_batch == scalar
    assert all(isinstance(game, GameResult) for game in on_batch)
    auto = run_tournament(config, ["greedy", "counter"], deals, seed=7, duplicate=duplicate)
    assert batched_calls == [("greedy", "counter")] * 2
    assert auto == scalar
    if config.max_turns == 14:
        assert 0 < sum(game.truncated for game in scalar) < len(scalar)
    assert run_tournament(config, ["greedy", "counter"], deals, seed=8, engine="batched") != scalar


def test_auto_plays_other_agents_and_games_on_the_scalar_engine(batched_calls: list[tuple[str, str]]) -> None:
    """``auto`` falls back to the core when an agent cannot play on the engine (search), with the same
    results as ``scalar``; Help Your Neighbor (R12) plays on its own batched engine, again with the
    scalar games; a prebuilt agent object plays wherever its kind can (a GreedyAgent inside the
    engine), again with the scalar games."""
    standard = make_config("standard")
    with_search = run_tournament(standard, ["greedy", "search:samples=2"], 2, seed=1)
    assert with_search == run_tournament(standard, ["greedy", "search:samples=2"], 2, seed=1, engine="scalar")
    neighbor = neighbor_config(num_players=3)
    dice = run_pairings(neighbor, [("random", "random")], 5, seed=1)
    assert dice == run_pairings(neighbor, [("random", "random")], 5, seed=1, engine="scalar")
    assert len(dice) == 15
    assert batched_calls == [("random", "random")]
    prebuilt = run_pairings(standard, [("mine", "random")], 5, seed=1, prebuilt={"mine": GreedyAgent()})
    assert batched_calls == [("random", "random"), ("mine", "random")]
    scalar = run_pairings(standard, [("greedy", "random")], 5, seed=1, engine="scalar")
    assert [(g.deal, g.rotation, g.rewards, g.turns) for g in prebuilt] == [
        (g.deal, g.rotation, g.rewards, g.turns) for g in scalar
    ]


@pytest.mark.parametrize(
    ("config", "pairs", "engine", "message"),
    [
        (make_config("standard"), [("greedy", "search")], "batched", "cannot play greedy vs search: the batched"),
        (make_config("standard"), [("greedy", "search:samples=2")], "batched", "cannot play greedy vs search:samples"),
        (neighbor_config(max_turns=40_000), [("random", "random")], "batched", "within their limits"),
        (make_config("standard", max_turns=40_000), [("greedy", "random")], "batched", "within their limits"),
        (make_config("standard"), [("greedy", "random")], "numba", "engine='numba'"),
        (make_config("standard"), [("greedy", "random")], "Batched", "engine='Batched'"),
    ],
)
def test_engines_that_cannot_play_raise_a_value_error(
    config: Any, pairs: list[tuple[str, str]], engine: str, message: str
) -> None:
    """``engine="batched"`` insists: an agent or a game the engine cannot play is a ``ValueError``,
    as is an unknown engine name."""
    with pytest.raises(ValueError, match=message):
        run_pairings(config, pairs, 2, engine=engine)


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(make_config("standard"), id="standard"),
        pytest.param(make_config("pagat", num_players=3, match=True), id="pagat-3p-match", marks=pytest.mark.slow),
        pytest.param(make_config("jokers", num_players=5), id="jokers-5p", marks=pytest.mark.slow),
    ],
)
def test_a_pair_plays_the_same_games_in_any_tournament_on_either_engine(config: Any) -> None:
    """``random`` draws inside the engine from the keyed streams the scalar path gives it, so a pair
    with a given seed plays the very same games on either engine and whatever else is in the
    tournament: random vs counter alone, beside greedy (a pair the engine plays) or beside search
    (one it cannot), scalar, batched or auto. Each deal's games depend only on the seed, the deal
    and the seats: not on how many deals are played."""
    deals = 60 if config.num_players > 2 else 300

    def pair_games(specs: list[str], engine: str) -> list[GameResult]:
        return [
            g for g in run_tournament(config, specs, deals, seed=3, engine=engine) if g.pairing == ("random", "counter")
        ]

    scalar = pair_games(["random", "counter"], "scalar")
    assert pair_games(["random", "counter"], "batched") == scalar
    assert pair_games(["random", "greedy", "counter"], "auto") == scalar
    assert pair_games(["random", "greedy", "counter"], "scalar") == scalar
    assert pair_games(["random", "search:samples=1", "counter"], "auto") == scalar
    smaller = run_tournament(config, ["random", "counter"], deals // 2, seed=3, engine="batched")
    assert smaller == scalar[: len(smaller)]
    one = pair_summaries(scalar)[0].score_difference
    assert isinstance(one, Interval) and one.n == deals and one.high < 0  # counter beats random


def test_batched_chunks_do_not_change_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals are played in chunks of ``BATCH_CHUNK`` games; smaller chunks give the same games
    (random choices included) and report progress deal by deal."""
    config = make_config("jokers", num_players=3)  # 6 games a deal (both alternations of the pair)
    whole = run_tournament(config, ["random", "counter"], 40, seed=2, engine="batched")
    monkeypatch.setattr(evaluation, "BATCH_CHUNK", 13)
    progress: list[int] = []
    chunked = run_tournament(config, ["random", "counter"], 40, seed=2, engine="batched", on_progress=progress.append)
    assert chunked == whole
    assert sum(progress) == 40 and len(progress) == 20  # 13 // 6 = 2 deals per chunk


# --------------------------------------------------------------------------
# 5. The evaluate command line


def test_evaluate_cli_engine_batched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--engine batched`` runs the tournament on the batched engine (exit 0); for greedy and
    counter it writes the same summary as ``--engine scalar``."""
    args = ["greedy", "counter", "--deals", "50", "--quiet", "--bootstrap", "20"]
    assert evaluate_main([*args, "--engine", "batched", "--json", str(tmp_path / "batched.json")]) == 0
    out = capsys.readouterr().out
    assert "50 duplicate deals per pair" in out and "greedy" in out and "counter" in out
    assert evaluate_main([*args, "--engine", "scalar", "--json", str(tmp_path / "scalar.json")]) == 0
    assert json.loads((tmp_path / "batched.json").read_text()) == json.loads((tmp_path / "scalar.json").read_text())


def test_evaluate_cli_engine_batched_refuses_search(capsys: pytest.CaptureFixture[str]) -> None:
    """``--engine batched`` with an agent the engine cannot play: exit 2, the reason on stderr."""
    assert evaluate_main(["greedy", "search", "--deals", "5", "--quiet", "--engine", "batched"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("trash-evaluate: error: ") and "batched engine" in captured.err
    with pytest.raises(SystemExit) as exit_info:
        evaluate_main(["greedy", "counter", "--engine", "gpu"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'gpu'" in capsys.readouterr().err


# --------------------------------------------------------------------------
# 6. train.py --batched


class LegalOnly(Agent):
    """Wraps a learned agent: asserts every action it returns is legal (R13) and counts them."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = "policy"
        self.decisions = 0

    def check_config(self, config: Any) -> None:
        self.agent.check_config(config)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        action = self.agent.act(view, rng)
        assert action in view.legal_actions, f"illegal action {action} (legal: {view.legal_actions})"
        self.decisions += 1
        return int(action)


@pytest.fixture(scope="module")
def batched_run(train: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A tiny ``train.py --batched`` run in process: MaskablePPO, standard rules, 2 players,
    default opponents (random and greedy); returns what ``train.train`` returns."""
    return train.train(tiny_args(train, tmp_path_factory.mktemp("batched_run")))


def test_train_batched_writes_a_loadable_policy_that_plays_legal_moves(batched_run: Any) -> None:
    """The run trains its 2,048 decisions on the batched env, writes its files, and the saved
    policy loads as a learned agent for standard rules that plays only legal actions (R13) in an
    evaluation on the core."""
    policy, run_dir = batched_run.policy, batched_run.run_dir
    assert batched_run.timesteps == 2048
    for name in ("policy.zip", "args.json", "final_eval.json", "eval_history.json"):
        assert (run_dir / name).is_file(), name
    assert json.loads((run_dir / "args.json").read_text())["batched"] is True
    final = json.loads((run_dir / "final_eval.json").read_text())
    assert [(row["second"], row["deals"]) for row in final["pairs"]] == [("random", 4)]
    agent = make_agent(str(policy))
    assert agent.metadata["algorithm"] == "MaskablePPO"
    assert agent.metadata["num_timesteps"] == 2048
    assert agent.metadata["config"] == make_config("standard").to_dict()
    checked = LegalOnly(agent)
    results = run_pairings(make_config("standard"), [("policy", "greedy")], 10, seed=5, prebuilt={"policy": checked})
    assert len(results) == 20
    assert checked.decisions > 40


def test_batched_training_logs_episode_statistics(train: ModuleType, tmp_path: Path) -> None:
    """``--batched`` runs log SB3's episode statistics (``rollout/ep_rew_mean``, ``ep_len_mean``) to
    TensorBoard as scalar runs do: the vector env is wrapped in ``VecMonitor``, whose
    ``info["episode"]`` holds each finished episode's return (R10: +1, -1 or 0) and length."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    args = tiny_args(train, tmp_path, tensorboard=True, final_eval_deals=0)
    train.train(args)
    events = next((tmp_path / "run" / "tb").rglob("events.out.tfevents.*"))
    accumulator = EventAccumulator(str(events))
    accumulator.Reload()
    assert {"rollout/ep_rew_mean", "rollout/ep_len_mean"} <= set(accumulator.Tags()["scalars"])
    assert all(-1 <= event.value <= 1 for event in accumulator.Scalars("rollout/ep_rew_mean"))

    small = tiny_args(train, tmp_path, n_envs=4)
    train.resolve_baselines(small)
    env = train.make_vec_env_for(small, [])
    env.reset()
    episodes = []
    rng = np.random.default_rng(0)
    while len(episodes) < 10:
        _, _, dones, infos = env.step(random_legal(np.stack(env.env_method("action_masks")), rng))
        episodes += [info["episode"] for info, done in zip(infos, dones) if done]
    assert all(episode["r"] in (-1.0, 0.0, 1.0) and episode["l"] >= 1 for episode in episodes)


def test_make_vec_env_for_batched_builds_the_rules_of_the_run(train: ModuleType, tmp_path: Path) -> None:
    """``--batched`` builds a ``TrashVecEnv`` of ``n_envs`` games with the run's preset, players,
    match and overrides, and its opponents."""
    args = tiny_args(train, tmp_path, preset="pagat", num_players=3, match=True, overrides=["layout_size=6"], n_envs=5)
    train.resolve_baselines(args)
    train.check_batched(args)
    monitored = train.make_vec_env_for(args, [])
    env = monitored.venv
    assert isinstance(env, TrashVecEnv)
    assert env.num_envs == 5
    assert env.config == train.build_config(args) == make_config("pagat", num_players=3, match=True, layout_size=6)
    assert env.batch.pool.tolist() == [batched.POLICY_CODES[name] for name in ("random", "greedy")]
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"subproc": True}, "drop --subproc", id="subproc"),
        pytest.param(
            {"opponents": ["greedy", "search"]},
            r"opponents \['search'\] are not among the in-engine baselines",
            id="search_opponent",
        ),
        pytest.param({"algo": "ppo"}, "MaskablePPO|mask", id="ppo"),
        pytest.param({"algo": "dqn"}, "MaskablePPO|mask", id="dqn"),
    ],
)
def test_train_batched_refuses_what_the_engine_cannot_play(
    train: ModuleType, tmp_path: Path, fields: dict[str, Any], message: str
) -> None:
    """``--batched`` with subprocesses, an opponent that is not an in-engine baseline, or an algorithm
    that ignores masks is a ``ValueError`` before anything is written (Help Your Neighbor's batched
    runs: ``tests/neighbor/test_neighbor_vec_env.py``)."""
    with pytest.raises(ValueError, match=message):
        train.train(tiny_args(train, tmp_path / "out", **fields))
    assert not (tmp_path / "out").exists()
