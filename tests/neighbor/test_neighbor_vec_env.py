"""Tests of :class:`trash_env.neighbor.vec_env.NeighborVecEnv`, the Stable-Baselines3 ``VecEnv`` over the
batched Help Your Neighbor engine, and of ``train.py --game help_your_neighbor --batched``.

The engine is compared with the rules core move by move in ``tests/neighbor/test_neighbor_batched_engine.py``;
here the vector env is checked against SB3's ``VecEnv`` contract (R12: rewards and truncation at the
turn limit; R14: the learner is asked at its real choices), its opponents (in-engine baselines and
agents asked in batches), and training on it: MaskablePPO, ``train.py --batched``, batched self-play.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from helpers.batched import assert_learners_see_the_cores, assert_model_plays_legal_moves
from helpers.tiny_training import tiny_batched_args

pytest.importorskip("numba")
pytest.importorskip("stable_baselines3")

import trash_env
from agents.baselines import GreedyAgent, RandomAgent
from agents.heuristic import NeighborHeuristic
from agents.registry import make_agent
from trash_env.neighbor import batched
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.vec_env import NeighborVecEnv

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``masks``."""
    return (rng.random(masks.shape) * masks).argmax(axis=1).astype(np.int64)


def checked_rollout(env: NeighborVecEnv, steps: int, seed: int) -> dict[str, int]:
    """Random legal play for ``steps`` steps, checking SB3's ``VecEnv`` contract at each: observations
    (the learner's view of its game, as the scalar observer encodes it), masks (the core's legal
    actions, at least two but at an episode's first move, R14), rewards only at ends (R12), the
    ``infos`` of finished games (the final observation with the game over, ``TimeLimit.truncated``)
    and the next game at once. Returns counts."""
    n = env.num_envs
    observer = NeighborObserver(env.config)
    rng = np.random.default_rng(seed)
    obs = env.reset()
    first = np.ones(n, bool)
    counts = {"episodes": 0, "truncated": 0, "wins": 0, "losses": 0, "forced_first": 0}
    for _ in range(steps):
        assert obs.shape == (n, observer.size) and obs.dtype == np.float32 and 0 <= obs.min() <= obs.max() <= 1
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (n, neighbor.NUM_ACTIONS)
        np.testing.assert_array_equal(np.stack(env.env_method("action_masks")), masks)
        legal = masks.sum(axis=1)
        assert (legal >= 1).all() and (legal[~first] >= 2).all()
        counts["forced_first"] += int((legal == 1).sum())
        assert_learners_see_the_cores(env, obs, masks, observer, neighbor)
        obs, rewards, dones, infos = env.step(random_legal(masks, rng))
        assert rewards.shape == (n,) and dones.shape == (n,) and dones.dtype == np.bool_ and len(infos) == n
        assert (rewards[~dones] == 0).all()
        assert all("terminal_observation" not in infos[b] for b in np.flatnonzero(~dones))
        for b in np.flatnonzero(dones):
            info, reward = infos[b], float(rewards[b])
            terminal = info["terminal_observation"]
            assert terminal.shape == (observer.size,) and terminal.dtype == np.float32
            pieces = observer.view(terminal)
            assert not pieces["current"].any() and not pieces["phase"].any()  # the game is over
            truncated = info["TimeLimit.truncated"]
            assert isinstance(truncated, bool)
            if truncated:
                assert reward == 0.0  # R12: a game at the turn limit is a draw
            else:  # R12: +1 to the first to cover all ten markers, -1 to the others
                assert (pieces["left"][0] == 0) == (reward == 1.0) and reward != 0.0
                assert (pieces["left"] == 0).sum() == 1
            counts["episodes"] += 1
            counts["truncated"] += truncated
            counts["wins"] += reward == 1.0
            counts["losses"] += reward == -1.0
            assert not np.array_equal(obs[b], terminal)
        first = dones.copy()
    return counts


@pytest.mark.parametrize(
    ("overrides", "opponents"),
    [
        pytest.param({}, ["random"], id="2p-random"),
        pytest.param({"num_players": 3}, ["heuristic", "roller"], id="3p"),
        pytest.param({"num_players": 8}, ["random", "heuristic"], id="8p"),
        pytest.param({}, ["optimal", "heuristic"], id="2p-optimal"),
    ],
)
def test_vec_env_follows_the_vecenv_contract(overrides: dict, opponents: list[str], request: Any) -> None:
    """SB3's contract over many episodes: shapes, masks, rewards only at ends, terminal observations."""
    tables = None
    if "optimal" in opponents:  # the session's solution (solved once), not a cache file
        solution, _ = request.getfixturevalue("solved")
        tables = (solution.roll_again(), solution.uncover())
    env = NeighborVecEnv(16, opponents=opponents, seed=1, optimal_tables=tables, **overrides)
    counts = checked_rollout(env, 150, seed=2)
    assert counts["episodes"] > 30 and counts["wins"] > 0 and counts["losses"] > 0, counts


def test_truncation_sets_timelimit_truncated() -> None:
    """R12 (as R7): at the turn limit the episode is a draw, ``TimeLimit.truncated`` is set and a new
    game follows; R14: a learner whose only move is its forced first roll is asked it, once."""
    env = NeighborVecEnv(16, opponents=["heuristic"], seed=3, num_players=3, max_turns=6)
    counts = checked_rollout(env, 100, seed=4)
    assert counts["truncated"] > 20 and counts["forced_first"] > 0, counts


def test_the_vec_env_is_exported_and_seeded() -> None:
    """``trash_env.NeighborVecEnv`` (lazily, beside ``TrashVecEnv``); the same seed gives the same
    trajectories, and ``seed()`` restarts them."""
    assert trash_env.NeighborVecEnv is NeighborVecEnv and "NeighborVecEnv" in trash_env.__all__

    def trajectory(env: NeighborVecEnv) -> list[np.ndarray]:
        rng = np.random.default_rng(0)
        out = [env.reset()]
        for _ in range(60):
            obs, rewards, dones, _ = env.step(random_legal(env.action_masks(), rng))
            out += [obs, rewards, dones]
        return out

    one = trajectory(NeighborVecEnv(8, opponents=["random", "heuristic"], seed=5, num_players=4))
    reseeded = NeighborVecEnv(8, opponents=["random", "heuristic"], seed=6, num_players=4)
    reseeded.seed(5)
    for a, b in zip(one, trajectory(reseeded)):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(one, trajectory(NeighborVecEnv(8, seed=7, num_players=4))))


def test_parallel_stepping_gives_the_same_trajectories() -> None:
    envs = [NeighborVecEnv(300, opponents=["random", "roller"], seed=2, parallel=p, num_players=3) for p in (1, 0)]
    rng = [np.random.default_rng(1), np.random.default_rng(1)]
    for env in envs:
        env.reset()
    for _ in range(40):
        steps = [env.step(random_legal(env.action_masks(), r)) for env, r in zip(envs, rng)]
        for a, b in zip(steps[0][:3], steps[1][:3]):
            np.testing.assert_array_equal(a, b)


def test_illegal_actions_and_bad_arguments_raise_a_value_error() -> None:
    env = NeighborVecEnv(4, seed=0)
    env.reset()
    masks = env.action_masks()
    actions = masks.argmax(axis=1)
    actions[2] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(ValueError, match="illegal in game 2"):
        env.step(actions)
    with pytest.raises(ValueError, match="expected 4 actions"):
        env.step(actions[:3])
    for kwargs, message in [
        ({"opponents": "random"}, "list"),
        ({"opponents": ["greedy"]}, "not an in-engine baseline"),
        ({"opponents": ["optimal"], "num_players": 3}, "two players"),
        ({"learner_seat": 2}, "learner_seat"),
        ({"num_players": 9}, "num_players"),
    ]:
        with pytest.raises(ValueError, match=message):
            NeighborVecEnv(4, **kwargs)


def test_fixed_learner_seat() -> None:
    env = NeighborVecEnv(16, opponents=["heuristic"], learner_seat=2, seed=0, num_players=3)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(100):
        assert (env.batch.seats == 2).all() and (env.batch.state[:, batched.LEARNER] == 2).all()
        env.step(random_legal(env.action_masks(), rng))


class Counted(NeighborHeuristic):
    """The heuristic asked in batches from outside the engine, counting its decisions and checking that
    every row it is asked is a real choice of the seat it plays."""

    def __init__(self) -> None:
        self.decisions = 0

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Any) -> np.ndarray:
        assert (np.asarray(masks).sum(axis=1) >= 2).all()
        assert (NeighborObserver.of_size(observations.shape[1]).view_batch(observations)["current"][:, 0] == 1).all()
        self.decisions += len(observations)
        return super().act_batch(observations, masks, rngs)


@pytest.mark.parametrize("players", [2, 4])
def test_an_agent_asked_in_batches_plays_as_its_in_engine_twin(players: int) -> None:
    """An opponent that decides in batches (``act_batch``, as a frozen snapshot does) is asked outside
    the engine for all its waiting games at once, from its own seat's view; the heuristic asked that
    way gives the very trajectories of the in-engine heuristic (it draws nothing, and the seatings are
    drawn alike)."""
    outside = Counted()
    envs = [
        NeighborVecEnv(32, opponents=["heuristic"], seed=4, num_players=players),
        NeighborVecEnv(32, opponents=[outside], seed=4, num_players=players),
    ]
    first = [env.reset() for env in envs]
    np.testing.assert_array_equal(*first)
    rng = np.random.default_rng(3)
    for _ in range(100):
        actions = random_legal(envs[0].action_masks(), rng)
        (obs0, r0, d0, i0), (obs1, r1, d1, i1) = (env.step(actions) for env in envs)
        np.testing.assert_array_equal(obs0, obs1)
        np.testing.assert_array_equal(r0, r1)
        np.testing.assert_array_equal(d0, d1)
        for a, b in zip(i0, i1):
            assert a.keys() == b.keys()
            if "terminal_observation" in a:
                np.testing.assert_array_equal(a["terminal_observation"], b["terminal_observation"])
    assert outside.decisions > 500


def test_set_opponents_swaps_the_pool_for_new_games() -> None:
    """``set_opponents`` takes baseline names and batch-deciding agents; games dealt from then on draw
    from the new pool (an agent no longer in it is not asked in new games); a Trash agent, an agent
    without ``act_batch`` or ``optimal`` with more than two players is a ValueError naming the problem,
    and leaves the pool as it was."""
    first, second = Counted(), Counted()
    env = NeighborVecEnv(16, opponents=[first], seed=1, num_players=3)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(50):
        env.step(random_legal(env.action_masks(), rng))
    assert first.decisions > 0
    env.set_opponents(["random", second])
    for _ in range(300):  # every game has ended and been dealt from the new pool
        env.step(random_legal(env.action_masks(), rng))
    before = first.decisions
    for _ in range(100):
        env.step(random_legal(env.action_masks(), rng))
    assert first.decisions == before and second.decisions > 0
    pool = env.batch.pool.copy()
    with pytest.raises(ValueError, match="trash"):  # a Trash policy: batchable, but for the other game
        env.set_opponents([make_agent(str(ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"))])
    with pytest.raises(ValueError, match="cannot play in the batched engine"):
        env.set_opponents([GreedyAgent()])
    with pytest.raises(ValueError, match="two players"):
        env.set_opponents(["optimal"])
    with pytest.raises(ValueError, match="non-empty"):
        env.set_opponents([])
    np.testing.assert_array_equal(env.batch.pool, pool)
    env.set_opponents([RandomAgent(), "heuristic"])  # RandomAgent decides in batches too


def test_maskable_ppo_trains_on_the_vec_env() -> None:
    """sb3-contrib's MaskablePPO learns for 3 updates of 16 games x 64 steps, sampling only legal actions
    (it reads ``env_method("action_masks")``); with a short turn limit some episodes are truncated, so
    SB3 bootstraps from the final observations."""
    from sb3_contrib import MaskablePPO
    env = NeighborVecEnv(16, opponents=["random", "heuristic"], max_turns=8, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=2, seed=0, device="cpu", verbose=0)
    model.learn(3 * 16 * 64)
    assert model.num_timesteps == 3 * 16 * 64
    assert_model_plays_legal_moves(model, env)


# --------------------------------------------------------------------------
# train.py --game help_your_neighbor --batched


def tiny_args(train: ModuleType, out_dir: Path, **fields: Any) -> Any:
    """A tiny in-process ``train.py --game help_your_neighbor --batched`` run: 16 games, 2,048 decisions."""
    return tiny_batched_args(train, out_dir, **{"game": "help_your_neighbor", **fields})


def test_train_batched_help_your_neighbor(train: ModuleType, tmp_path: Path) -> None:
    """``train.py --game help_your_neighbor --batched`` builds a ``NeighborVecEnv`` with the run's rules and
    opponents (the game's defaults, random and heuristic), trains its 2,048 decisions on it, and writes
    a Help Your Neighbor policy that loads and plays legal moves."""
    args = tiny_args(train, tmp_path / "rules", num_players=3, overrides=["max_turns=50"], n_envs=5)
    train.resolve_baselines(args)
    train.check_batched(args)
    env = train.make_vec_env_for(args, []).venv
    assert isinstance(env, NeighborVecEnv) and env.num_envs == 5
    assert env.config == train.build_config(args) == neighbor.make_config(num_players=3, max_turns=50)
    assert env.batch.pool.tolist() == [batched.POLICY_CODES[name] for name in ("random", "heuristic")]
    result = train.train(tiny_args(train, tmp_path / "out"))
    assert result.timesteps == 2048
    agent = make_agent(str(result.policy), "help_your_neighbor")
    assert agent.metadata["config"] == neighbor.make_config().to_dict()
    from agents.evaluation.duplicate import run_pairings

    games = run_pairings(neighbor.make_config(), [("policy", "heuristic")], 10, seed=1, prebuilt={"policy": agent})
    assert len(games) == 20


def test_train_batched_self_play_for_help_your_neighbor(train: ModuleType, tmp_path: Path) -> None:
    """``--batched --self-play-only``: the learner's snapshots, asked in batches between the engine's
    steps, are its only opponents; ``--batched --self-play`` plays them beside the baselines."""
    result = train.train(
        tiny_args(train, tmp_path / "only", self_play_only=True, opponents=[], snapshot_every=1024, final_eval_deals=2)
    )
    steps = sorted(int(path.stem.split("_")[1]) for path in (result.run_dir / "snapshots").glob("step_*.zip"))
    assert steps[0] == 0 and 1024 in steps and result.timesteps == 2048
    mixed = train.train(tiny_args(train, tmp_path / "mixed", self_play=True, snapshot_every=1024, final_eval_deals=0))
    assert mixed.timesteps == 2048 and list((mixed.run_dir / "snapshots").glob("step_*.zip"))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param({"opponents": ["random", "optimal"], "num_players": 3}, "optimal", id="optimal-3p"),
        pytest.param({"subproc": True}, "drop --subproc", id="subproc"),
        pytest.param({"algo": "ppo"}, "MaskablePPO|mask", id="ppo"),
    ],
)
def test_train_batched_refuses_what_the_engine_cannot_play(
    train: ModuleType, tmp_path: Path, fields: dict[str, Any], message: str
) -> None:
    """A ValueError before anything is written."""
    with pytest.raises(ValueError, match=message):
        train.train(tiny_args(train, tmp_path / "out", **fields))
    assert not (tmp_path / "out").exists()


def test_check_batched_names_the_games_baselines(train: ModuleType, tmp_path: Path) -> None:
    """An opponent that is not one of the game's in-engine baselines is refused by name."""
    args = tiny_args(train, tmp_path, opponents=["random", "policy.zip"])
    with pytest.raises(ValueError, match=r"\['policy.zip'\] are not among the in-engine baselines \['random', 'heu"):
        train.check_batched(args)
