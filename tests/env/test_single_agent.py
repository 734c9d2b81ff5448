"""Tests of the single-agent Gymnasium environment ``TrashSingleAgent-v0`` (:mod:`trash_env.single_agent`).

One learner seat plays against opponents that move inside ``reset``/``step``. Rules are cited by
their section of the rule book (``RULES.md``): R10 (rewards from the learner's seat), R13 (actions, forced
moves and the first-move rule), R3 (stacked decks), R8 (end of a hand), R9 (match), R7 (truncation).
Every test is deterministic: all randomness comes from fixed seeds.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from helpers.decks import stacked_deck

import trash_env
from agents.baselines import GreedyAgent
from agents.registry import make_agent
from trash_env import TrashSingleAgentEnv
from trash_env.single_agent import uniform_random_opponent
from trash_env.trash import rules as trash
from trash_env.trash.belief import HIDDEN
from trash_env.trash.config import PRESETS, make_config
from trash_env.view import SeatView

CHECK_CONFIGS = [
    pytest.param({"preset": "standard"}, id="standard-2p"),
    pytest.param({"preset": "pagat", "num_players": 3}, id="pagat-3p"),
    pytest.param({"preset": "seven_up"}, id="seven_up-2p"),
    pytest.param({"preset": "jokers", "num_players": 5, "match": True, "layout_size": 3}, id="jokers-5p-match"),
    pytest.param({"preset": "standard", "num_players": 8}, id="standard-8p"),
]
MAX_STEPS = 50_000  # a safety bound on one episode's learner steps; max_turns (R7) bounds it far below


# --------------------------------------------------------------------------
# Helpers


@dataclass
class Episode:
    """What the learner saw in one episode."""

    seat: int
    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False


def expected_reward(env: TrashSingleAgentEnv) -> float:
    """R10 from the learner's seat, read off the final table independently of ``core.returns``.

    Hand mode: the winners are the seats whose layout is complete (R8); a draw if none is.
    Match mode: the winner is the seat that completed a one-slot layout (R9).
    """
    state = env.state
    if state.truncated:
        return 0.0
    complete = [all(u != trash.FACE_DOWN for u in state.up[seat]) for seat in range(state.num_players)]
    if env.config.match:
        match_winners = [s for s in range(state.num_players) if complete[s] and state.sizes[s] == 1]
        assert len(match_winners) == 1, (match_winners, state)
        return 1.0 if match_winners == [env.seat] else -1.0
    if not any(complete):
        return 0.0
    return 1.0 if complete[env.seat] else -1.0


def check_learner_turn(env: TrashSingleAgentEnv, obs: np.ndarray, info: dict) -> np.ndarray:
    """The invariants of every point where the learner is asked to act; returns the mask."""
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (trash.NUM_ACTIONS,)
    assert info["action_mask"].dtype == np.int8  # what Discrete.sample(mask=...) takes
    np.testing.assert_array_equal(info["action_mask"], mask)
    assert info["seat"] == env.seat
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs, env.observer.encode(env.state, env.seat))
    # R13: the learner is asked only on its own turn, and the mask is exactly the legal actions.
    assert env.state.phase != trash.OVER
    assert env.state.current == env.seat
    assert np.flatnonzero(mask).tolist() == trash.legal_actions(env.state)
    return mask


def play_episode(
    env: TrashSingleAgentEnv,
    seed: int | None,
    rng: np.random.Generator | None = None,
    actions: list[int] | None = None,
    options: dict | None = None,
) -> Episode:
    """Play one episode with random legal learner actions (or the given ``actions``), checking
    every step: masks, observations, the R13 first-move rule and R10 rewards at the end only."""
    obs, info = env.reset(seed=seed, options=options)
    episode = Episode(seat=env.seat)
    episode.observations.append(obs)
    for step in range(MAX_STEPS):
        mask = check_learner_turn(env, obs, info)
        legal = np.flatnonzero(mask)
        # R13: a real choice, except possibly the first move of an episode with no real choice at all.
        assert len(legal) >= 2 or (step == 0 and len(legal) == 1), (step, legal)
        action = int(rng.choice(legal)) if actions is None else actions[step]
        episode.masks.append(mask.copy())
        episode.actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(reward, float)
        episode.observations.append(obs)
        episode.rewards.append(reward)
        if terminated or truncated:
            break
        assert reward == 0.0  # R10: rewards only at the end
        assert len(legal) >= 2  # a forced first move is asked only when the episode then ends (R13)
    else:
        pytest.fail(f"episode not over after {MAX_STEPS} learner steps")
    episode.terminated, episode.truncated = terminated, truncated
    assert env.observation_space.contains(obs)
    assert "illegal_action" not in info
    assert not env.action_masks().any()
    np.testing.assert_array_equal(info["action_mask"], env.action_masks())
    assert env.state.phase == trash.OVER
    assert terminated != truncated and truncated == env.state.truncated
    assert reward in (-1.0, 0.0, 1.0)
    assert reward == trash.returns(env.state)[env.seat]
    assert reward == expected_reward(env)
    return episode


class Recorder:
    """A plain-callable opponent that checks what it is shown and records (episode, seat) per call.

    R13/R15: it must be asked only at a real choice of its own seat, never on the learner's turn,
    and see only its own seat's view: the legal actions, its own observation, a scrubbed state.
    """

    def __init__(self, name: str, env: TrashSingleAgentEnv | None = None) -> None:
        self.name = name
        self.env = env
        self.episode = 0
        self.calls: list[tuple[int, int]] = []

    def __call__(self, view: SeatView, rng: np.random.Generator) -> int:
        assert isinstance(view, SeatView)
        assert isinstance(rng, np.random.Generator)
        if self.env is not None:
            state = self.env.state
            assert view.seat == state.current
            assert view.seat != self.env.seat, "an opponent was asked on the learner's turn"
            assert view.legal_actions == trash.legal_actions(state)
            np.testing.assert_array_equal(view.observation, self.env.observer.encode(state, view.seat))
        assert len(view.legal_actions) >= 2, "an opponent was asked a forced move (R13)"
        assert np.flatnonzero(view.action_mask).tolist() == view.legal_actions
        public = view.public_state
        assert all(card == HIDDEN for row in public.down for card in row)
        assert all(card == HIDDEN for card in public.stock)
        self.calls.append((self.episode, view.seat))
        return view.legal_actions[int(rng.integers(len(view.legal_actions)))]


# --------------------------------------------------------------------------
# 1. Environment checkers


@pytest.mark.parametrize("kwargs", CHECK_CONFIGS)
@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_gymnasium_env_checker(kwargs, render_mode):
    """Gymnasium's ``check_env`` passes, with every checker warning made an error; the env is made
    through ``gymnasium.make`` so that the checker also tries the other render modes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make("TrashSingleAgent-v0", render_mode=render_mode, **kwargs).unwrapped
        assert isinstance(env, TrashSingleAgentEnv)
        gymnasium_check_env(env)


@pytest.mark.parametrize("kwargs", CHECK_CONFIGS)
def test_stable_baselines3_env_checker(kwargs):
    """Stable-Baselines3's ``check_env`` passes, with every warning made an error."""
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(TrashSingleAgentEnv(**kwargs), warn=True)


@pytest.mark.parametrize("num_players", [2, 3, 8])
def test_registered_id_and_spaces(num_players):
    """``import trash_env`` registers ``TrashSingleAgent-v0``; its spaces are R13's ``Discrete(13)``
    and a float32 ``Box(0, 1)`` of the size the module docstring gives, 62 + 44 n."""
    assert "TrashSingleAgent-v0" in gymnasium.registry
    env = gymnasium.make("TrashSingleAgent-v0", preset="pagat", num_players=num_players, learner_seat=1)
    assert isinstance(env.unwrapped, TrashSingleAgentEnv)
    assert env.unwrapped.config == make_config("pagat", num_players=num_players)
    assert env.action_space == gymnasium.spaces.Discrete(13)
    space = env.observation_space
    assert space.shape == (62 + 44 * num_players,) and space.dtype == np.float32
    assert space.low.min() == 0.0 and space.high.max() == 1.0
    obs, info = env.reset(seed=0)
    assert obs.shape == space.shape and obs.dtype == np.float32
    assert info["seat"] == 1
    obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert space.contains(obs)


# --------------------------------------------------------------------------
# 2. Every preset, 2-8 players, hand and match


@pytest.mark.parametrize("match", [False, True], ids=["hand", "match"])
@pytest.mark.parametrize("num_players", range(2, 9))
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_masked_play(preset, num_players, match):
    """Random masked play over many episodes: every episode ends; every learner step has a non-empty
    mask equal to ``info["action_mask"]`` and to the legal actions of R13 on the learner's own turn,
    with at least two legal actions except possibly the first step (R13 first-move rule, after which
    the episode ends); observations lie in the space; rewards are 0 until the end and then R10 from
    the learner's seat, in {-1, 0, 1}, equal to ``core.returns(env.state)[env.seat]``."""
    env = TrashSingleAgentEnv(preset, num_players=num_players, match=match)
    rng = np.random.default_rng([num_players, match, sorted(PRESETS).index(preset)])
    episodes = 12 if match else 50
    results = [play_episode(env, seed, rng) for seed in range(episodes)]
    rewards = [episode.rewards[-1] for episode in results]
    assert {episode.seat for episode in results} <= set(range(num_players))
    if preset == "seven_up":
        # R13: every move in Seven Up is forced, so each episode is the one forced first move.
        assert all(len(episode.actions) == 1 for episode in results)
        assert all(episode.masks[0].tolist() == [True] + [False] * 12 for episode in results)
    else:
        assert sum(len(episode.actions) for episode in results) > episodes
    assert set(rewards) <= {-1.0, 0.0, 1.0}


def test_deals_without_a_learner_move_are_replaced():
    """R9/R13 with one-slot layouts in a pagat match of 8, learner in the last seat: an earlier seat
    often wins the match at once (R9) before the learner moves. Every reset still returns a live
    episode at the learner's turn (such deals are replaced by the next deal), and play goes on."""
    env = TrashSingleAgentEnv("pagat", num_players=8, match=True, layout_size=1, learner_seat=7)
    rng = np.random.default_rng(6)
    for seed in range(40):
        episode = play_episode(env, seed, rng)
        assert episode.seat == 7


@pytest.mark.parametrize("preset", ["standard", "pagat"])
def test_truncation_is_a_draw(preset):
    """R7/R10: an episode cut at ``max_turns`` is truncated (not terminated) with reward 0."""
    env = TrashSingleAgentEnv(preset, max_turns=6, learner_seat=0)
    rng = np.random.default_rng(0)
    truncated = 0
    for seed in range(10):
        episode = play_episode(env, seed, rng)
        assert env.state.turn <= 6
        if episode.truncated:
            truncated += 1
            assert env.state.turn == 6 and episode.rewards[-1] == 0.0 and not episode.terminated
    assert truncated


# --------------------------------------------------------------------------
# 3. Opponents


def test_agent_objects_and_callables_are_opponents():
    """An agent object (``make_agent("greedy")``, used through its ``act``) and a plain callable doing
    the same thing give the same episodes; a default-opponent env plays differently."""
    greedy = make_agent("greedy")
    calls = []

    def greedy_callable(view, rng):
        calls.append(view.seat)
        return greedy.act(view, rng)

    class SpyGreedy(GreedyAgent):
        def __init__(self):
            self.asked = 0

        def act(self, view, rng):
            self.asked += 1
            return super().act(view, rng)

    spy = SpyGreedy()
    trajectories = {}
    for name, opponents in [
        ("agent", [greedy]),
        ("spy", [spy]),
        ("callable", [greedy_callable]),
        ("random", None),
    ]:
        env = TrashSingleAgentEnv("standard", num_players=3, opponents=opponents)
        episodes = [play_episode(env, seed, np.random.default_rng(seed)) for seed in range(8)]
        trajectories[name] = [(e.seat, [o.tolist() for o in e.observations], e.rewards) for e in episodes]
    assert spy.asked > 0 and calls
    assert trajectories["agent"] == trajectories["callable"] == trajectories["spy"]
    assert trajectories["agent"] != trajectories["random"]


def test_opponents_see_only_their_own_seat_view():
    """R13/R15: opponents are asked only at real choices of their own seat, never on the learner's
    turn, with a ``SeatView`` of that seat (legal actions, own observation, hidden cards scrubbed).
    The checks run inside the recording opponent."""
    for preset, num_players in [("standard", 2), ("pagat", 4), ("jokers", 6)]:
        env = TrashSingleAgentEnv(preset, num_players=num_players)
        recorder = Recorder("r", env)
        env.set_opponents([recorder])
        rng = np.random.default_rng(1)
        for seed in range(15):
            recorder.episode = seed
            episode = play_episode(env, seed, rng)
            assert all(seat != episode.seat for ep, seat in recorder.calls if ep == seed)
        assert len(recorder.calls) > 15


def test_opponent_pool_is_drawn_per_seat_per_reset():
    """Each opponent seat draws one opponent of the pool at every reset: both opponents of a pool of
    two get used, a seat keeps its opponent for the whole episode, the same seat gets different
    opponents in different episodes, and one episode can mix both."""
    env = TrashSingleAgentEnv("standard", num_players=3, learner_seat=0)
    first, second = Recorder("first", env), Recorder("second", env)
    env.set_opponents([first, second])
    rng = np.random.default_rng(2)
    for seed in range(40):
        first.episode = second.episode = seed
        play_episode(env, seed, rng)
    assert first.calls and second.calls
    by_first, by_second = set(first.calls), set(second.calls)
    assert not by_first & by_second, "a seat changed opponent within an episode"
    for seat in (1, 2):
        assert any(s == seat for _, s in by_first) and any(s == seat for _, s in by_second)
    mixed = {ep for ep, _ in by_first} & {ep for ep, _ in by_second}
    assert mixed, "no episode had both opponents"


def test_set_opponents_replaces_the_pool_at_the_next_reset():
    """``set_opponents`` replaces the pool; as documented it takes effect at the next reset, so the
    episode under way keeps its opponents."""
    env = TrashSingleAgentEnv("pagat", num_players=3, learner_seat=1)
    old, new = Recorder("old", env), Recorder("new", env)
    env.set_opponents([old])
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    before = len(old.calls)
    env.set_opponents([new])
    for _ in range(MAX_STEPS):
        _obs, _reward, terminated, truncated, _info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            break
    assert len(old.calls) > before, "the scenario should ask the opponent after set_opponents"
    assert new.calls == []
    old_calls = len(old.calls)
    for seed in range(5):
        play_episode(env, seed, rng)
    assert len(old.calls) == old_calls
    assert new.calls


@pytest.mark.parametrize("bad", [[5], [None], ["greedy"], [make_agent("greedy"), 3.5], []])
def test_invalid_opponents_raise(bad):
    """An opponent that is neither an agent with ``act`` nor a callable, or an empty pool, is a
    ``ValueError`` in the constructor and in ``set_opponents``; a rejected pool leaves the old one."""
    with pytest.raises(ValueError):
        TrashSingleAgentEnv(opponents=bad)
    env = TrashSingleAgentEnv(num_players=2, learner_seat=0)
    keep = Recorder("keep", env)
    env.set_opponents([keep])
    with pytest.raises(ValueError):
        env.set_opponents(bad)
    rng = np.random.default_rng(4)
    for seed in range(5):
        play_episode(env, seed, rng)
    assert keep.calls


def test_default_opponent_is_uniform_random_over_legal_actions():
    """The default opponent plays a legal action, uniformly over ``view.legal_actions``."""
    state = trash.new_game(make_config("standard"), np.random.default_rng(0))
    trash.apply_action(state, trash.DRAW_STOCK, np.random.default_rng(0))
    state.held = 13  # a King (R6): any face-down slot or the discard
    view = SeatView(state, 0, TrashSingleAgentEnv().observer)
    rng = np.random.default_rng(0)
    picks = [uniform_random_opponent(view, rng) for _ in range(1100)]
    assert set(picks) == set(view.legal_actions) and len(view.legal_actions) == 11
    assert min(np.bincount(picks)[view.legal_actions]) > 50


def test_illegal_opponent_action_is_an_error():
    """An opponent's illegal action is never replaced by a legal one: it raises the core's
    ``IllegalActionError`` (a ``ValueError``)."""

    def cheat(view, rng):
        return next(a for a in range(trash.NUM_ACTIONS) if a not in view.legal_actions)

    env = TrashSingleAgentEnv("pagat", num_players=2, learner_seat=1, opponents=[cheat])
    with pytest.raises(trash.IllegalActionError):
        for seed in range(20):
            play_episode(env, seed, np.random.default_rng(seed))


# --------------------------------------------------------------------------
# 4. Learner seat


def test_fixed_learner_seat():
    """``learner_seat=1`` puts the learner in seat 1 at every reset, in 3 players."""
    env = TrashSingleAgentEnv("standard", num_players=3, learner_seat=1)
    rng = np.random.default_rng(5)
    for seed in range(20):
        episode = play_episode(env, seed, rng)
        assert episode.seat == env.seat == 1


def test_drawn_learner_seat_covers_all_seats():
    """``learner_seat=None`` draws the seat at each reset: over many resets every seat occurs."""
    for num_players in (2, 4, 8):
        env = TrashSingleAgentEnv("standard", num_players=num_players)
        seats = set()
        for seed in range(30 * num_players):
            _, info = env.reset(seed=seed)
            assert info["seat"] == env.seat and env.state.current == env.seat
            seats.add(env.seat)
        assert seats == set(range(num_players))


def test_numpy_integer_learner_seat_is_accepted():
    """A numpy integer seat (as drawn by ``rng.integers``) is a seat like a Python int."""
    env = TrashSingleAgentEnv("standard", num_players=3, learner_seat=np.int64(1))
    env.reset(seed=0)
    assert env.seat == 1


@pytest.mark.parametrize("bad", [-1, 3, 4, "0", 1.0, True, False])
def test_invalid_learner_seat_raises(bad):
    """A learner seat that is not an int seat 0..n-1 (3 players here) is a ``ValueError``."""
    with pytest.raises(ValueError, match="learner_seat"):
        TrashSingleAgentEnv("standard", num_players=3, learner_seat=bad)


# --------------------------------------------------------------------------
# 5. Seeding


@pytest.mark.parametrize("kwargs", CHECK_CONFIGS)
def test_same_seed_same_episode(kwargs):
    """``reset(seed=s)`` twice, with the same learner actions, gives the identical episode:
    seats, observations, masks and rewards, including the opponents' random moves; unseeded resets
    that follow a seeded one continue identically too."""
    env = TrashSingleAgentEnv(**kwargs)
    for seed in (0, 7):
        first = play_episode(env, seed, np.random.default_rng(seed))
        follow = play_episode(env, None, np.random.default_rng(seed + 100))
        second = play_episode(env, seed, None, actions=first.actions)
        follow_again = play_episode(env, None, None, actions=follow.actions)
        other_env = play_episode(TrashSingleAgentEnv(**kwargs), seed, None, actions=first.actions)
        for a, b in [(first, second), (first, other_env), (follow, follow_again)]:
            assert a.seat == b.seat and a.actions == b.actions and a.rewards == b.rewards
            assert len(a.observations) == len(b.observations)
            for x, y in zip(a.observations + a.masks, b.observations + b.masks):
                np.testing.assert_array_equal(x, y)


def test_different_seeds_differ():
    """Different seeds give different episodes: with the same learner policy (the same random stream),
    seeds 0..9 deal ten different decks and give ten different trajectories."""
    env = TrashSingleAgentEnv("standard", num_players=3)
    decks, trajectories = [], set()
    for seed in range(10):
        episode = play_episode(env, seed, np.random.default_rng(0))
        decks.append(tuple(env.state.deck))
        trajectories.add((episode.seat, b"".join(o.tobytes() for o in episode.observations)))
    assert len(set(decks)) == 10
    assert len(trajectories) == 10


# --------------------------------------------------------------------------
# 6. Illegal and invalid actions


def test_illegal_action_ends_the_episode():
    """An action outside the mask ends the episode at once with ``illegal_reward`` and
    ``info["illegal_action"] is True``; it is not applied nor replaced by a legal one; a further step
    is a ``RuntimeError``; a reset starts a fresh episode."""
    env = TrashSingleAgentEnv("standard", num_players=2, illegal_reward=-2.5)
    obs, info = env.reset(seed=0)
    mask = env.action_masks()
    illegal = int(np.flatnonzero(~mask)[0])
    before = trash.clone(env.state)
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert reward == -2.5
    assert terminated is True and truncated is False
    assert info["illegal_action"] is True
    assert not info["action_mask"].any() and not env.action_masks().any()
    assert env.state == before
    np.testing.assert_array_equal(obs2, obs)
    assert env.observation_space.contains(obs2)
    with pytest.raises(RuntimeError):
        env.step(int(np.flatnonzero(mask)[0]))
    play_episode(env, 0, np.random.default_rng(0))


@pytest.mark.parametrize("action", [0.0, 1.5, "0", None, True, np.bool_(False), np.array([0]), [0]])
def test_non_integer_action_raises_value_error(action):
    """A non-integer action is a ``ValueError``; nothing is applied and the episode goes on."""
    env = TrashSingleAgentEnv("standard", num_players=2)
    env.reset(seed=1)
    before = trash.clone(env.state)
    with pytest.raises(ValueError):
        env.step(action)
    assert env.state == before
    play_episode(env, 1, np.random.default_rng(1))


@pytest.mark.parametrize("wrap", [int, np.int64, np.int32, np.array])
def test_numpy_integer_actions_are_accepted(wrap):
    """Integer actions come as Python ints, numpy integers or 0-d arrays (what ``predict`` returns)."""
    env = TrashSingleAgentEnv("standard", num_players=2)
    env.reset(seed=2)
    while True:
        _obs, _reward, terminated, truncated, info = env.step(wrap(np.flatnonzero(env.action_masks())[-1]))
        assert "illegal_action" not in info
        if terminated or truncated:
            break


def test_step_before_reset_raises():
    """``step`` before the first ``reset`` is a ``RuntimeError``."""
    env = TrashSingleAgentEnv()
    with pytest.raises(RuntimeError):
        env.step(0)


def test_step_after_the_end_raises():
    """Once an episode has ended normally, ``step`` is a ``RuntimeError`` until ``reset``."""
    env = TrashSingleAgentEnv("standard", num_players=2)
    play_episode(env, 3, np.random.default_rng(3))
    with pytest.raises(RuntimeError):
        env.step(0)


# --------------------------------------------------------------------------
# 7. R13 first-move rule


@pytest.mark.parametrize("match", [False, True], ids=["hand", "match"])
@pytest.mark.parametrize("num_players", [2, 5, 8])
def test_seven_up_asks_the_forced_first_move(num_players, match):
    """R13: in Seven Up every move is forced (R11: no wild, ``discard_draw="never"``), yet the learner
    is asked its first move, the draw, as the only legal action; the episode (hand or match) ends
    with that step, with the R10 reward; no opponent is ever asked."""
    env = TrashSingleAgentEnv("seven_up", num_players=num_players, match=match)
    recorder = Recorder("never", env)
    env.set_opponents([recorder])
    for seed in range(10):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].tolist() == [True] + [False] * 12
        assert env.state.phase == trash.DRAW and env.state.current == env.seat
        _obs, reward, terminated, truncated, info = env.step(0)
        assert terminated or truncated
        assert reward == trash.returns(env.state)[env.seat] == expected_reward(env)
        with pytest.raises(RuntimeError):
            env.step(0)
    assert recorder.calls == []


# --------------------------------------------------------------------------
# 8. Stacked decks


def test_stacked_deck_learner_completes_with_forced_moves():
    """R3/R5/R8/R10/R13, standard 2 players, learner in seat 1. Seat 0 draws a King (a real choice:
    the recording opponent puts it on slot 0), turns up a Queen and discards it. The learner can only
    draw (a Queen is unplayable), draws an Ace and completes by forced placements, so it has no real
    choice in the episode and is asked its forced first move (R13). Seat 0 then has its final turn
    (R8) inside ``step``: it draws the other King (asked again), turns up a Queen and does not
    complete. The learner wins: +1."""
    config = make_config("standard")
    opponent_layout = [12, 12, 1, 1, 1, 2, 2, 2, 3, 3]
    learner_layout = [2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
    deck = stacked_deck(config, [opponent_layout, learner_layout], stock=[13, 1, 13])

    def first_legal(view, rng):
        log.append((view.seat, view.legal_actions, env.state.held))
        return view.legal_actions[0]

    log = []
    env = TrashSingleAgentEnv("standard", learner_seat=1, opponents=[first_legal])
    _, info = env.reset(seed=0, options={"deck": deck})
    assert env.state.deck == deck
    assert env.seat == 1
    # Seat 0 has moved inside reset: asked holding a King with all ten slots face down, it put the
    # King on its Ace slot and the Queen from under it was discarded. (The env may also have looked
    # ahead through the episode to find that the learner has no real choice, asking seat 0 more.)
    assert log[0] == (0, list(range(2, 13)), 13)
    assert all(seat == 0 and held == 13 for seat, _, held in log)
    assert env.state.up[0] == [13] + [trash.FACE_DOWN] * 9
    assert env.state.discard == [12]
    assert env.state.current == 1 and env.state.phase == trash.DRAW
    assert info["action_mask"].tolist() == [True] + [False] * 12
    asked_in_reset = len(log)
    _obs, reward, terminated, truncated, info = env.step(0)
    assert len(log) == asked_in_reset + 1  # seat 0's final turn (R8), played inside step
    assert log[-1] == (0, list(range(3, 13)), 13)
    assert env.state.up[1] == list(range(1, 11))
    assert env.state.up[0][:2] == [13, 13] and env.state.up[0][2:] == [trash.FACE_DOWN] * 8
    assert env.state.winners == [1]
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert not info["action_mask"].any()


def _pagat_opponent_wins_first():
    config = make_config("pagat")
    return stacked_deck(config, [[2, 3, 4, 5, 6, 7, 8, 9, 10, 12], [1, 1, 1, 5, 5, 5, 7, 7, 7, 9]], stock=[1])


def test_stacked_deck_opponent_wins_before_the_learner_moves():
    """R8 with ``final_turn=False`` (pagat): seat 0 draws an Ace and completes by forced placements on
    the first turn, ending the hand before the learner (seat 1) ever moves. As documented the env does
    not return a finished episode: it moves on to the next deal (a fresh shuffle) and stops at the
    learner's first move there."""
    deck = _pagat_opponent_wins_first()
    env = TrashSingleAgentEnv("pagat", learner_seat=1)
    obs, info = env.reset(seed=0, options={"deck": deck})
    assert env.state.deck != deck
    assert env.state.phase != trash.OVER and env.state.current == 1 == env.seat
    assert info["action_mask"].any()
    assert env.observation_space.contains(obs)
    episode = play_episode(env, None, np.random.default_rng(0))
    assert episode.terminated or episode.truncated


def test_stacked_deck_learner_wins_with_the_forced_first_move():
    """The same pagat deck with the learner in seat 0: it completes on its first turn without a real
    choice, so it is asked the forced draw (R13) and wins the hand at once (R8, final_turn=False): +1."""
    deck = _pagat_opponent_wins_first()
    env = TrashSingleAgentEnv("pagat", learner_seat=0)
    _, info = env.reset(seed=0, options={"deck": deck})
    assert env.state.deck == deck
    assert info["action_mask"].tolist() == [True] + [False] * 12
    _obs, reward, terminated, truncated, info = env.step(0)
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert env.state.up[0] == list(range(1, 11)) and env.state.winners == [0]


def test_stacked_deck_is_validated():
    """R3: a deck that is not the configured cards is a ``ValueError`` at reset."""
    deck = _pagat_opponent_wins_first()
    env = TrashSingleAgentEnv("pagat")
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": deck[:-1]})
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": [*deck[:-1], 0]})


# --------------------------------------------------------------------------
# 9. MaskablePPO


def test_maskable_ppo_learns_and_predicts_legal_actions():
    """sb3-contrib's MaskablePPO trains briefly on the env (reading ``action_masks()``), and
    ``predict`` with the action masks returns legal actions only."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = gymnasium.make("TrashSingleAgent-v0", preset="pagat", num_players=3)
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=64,
            batch_size=32,
            n_epochs=2,
            seed=0,
            device="cpu",
            policy_kwargs={"net_arch": [32, 32]},
        )
        model.learn(256)
        assert model.num_timesteps >= 256
        steps = 0
        for seed in range(3):
            obs, info = env.reset(seed=seed)
            done = False
            while not done:
                mask = env.unwrapped.action_masks()
                action, _ = model.predict(obs, action_masks=mask, deterministic=seed == 0)
                assert mask[int(action)], (action, mask)
                obs, _reward, terminated, truncated, info = env.step(action)
                assert "illegal_action" not in info
                done = terminated or truncated
                steps += 1
        assert steps > 3
    finally:
        torch.set_num_threads(threads)


# --------------------------------------------------------------------------
# 10. Rendering


def test_render_ansi_and_human(capsys):
    """``render_mode="ansi"`` returns the table as text naming the learner's row; ``"human"`` prints
    it; no render mode renders nothing."""
    env = TrashSingleAgentEnv("standard", num_players=3, learner_seat=2, render_mode="ansi")
    assert env.render() is None  # nothing to show before reset
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str)
    rows = text.splitlines()
    assert rows[-1].startswith("learner>")  # seat 2, to act
    assert rows[-3].startswith("seat_0") and rows[-2].startswith("seat_1")
    human = TrashSingleAgentEnv("standard", num_players=3, learner_seat=2, render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert "learner" in capsys.readouterr().out
    silent = TrashSingleAgentEnv("standard")
    silent.reset(seed=0)
    assert silent.render() is None


def test_human_render_mode_renders_during_reset_and_step(capsys):
    """Gymnasium's render convention: with ``render_mode="human"`` the environment is rendered during
    ``reset`` and ``step`` without calling ``render()`` (as ``trash_v0`` does)."""
    env = TrashSingleAgentEnv("standard", num_players=2, learner_seat=0, render_mode="human")
    env.reset(seed=0)
    assert "learner" in capsys.readouterr().out
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert "learner" in capsys.readouterr().out


@pytest.mark.parametrize("mode", ["rgb", "ANSI", ""])
def test_invalid_render_mode_raises(mode):
    """A render mode other than None, "human" or "ansi" is a ``ValueError``."""
    with pytest.raises(ValueError, match="render_mode"):
        TrashSingleAgentEnv(render_mode=mode)


def test_overrides_reach_the_config():
    """``**overrides`` are rules fields on top of the preset (R11); an unknown one is a ValueError."""
    env = TrashSingleAgentEnv("eight_card", num_players=4, match=True, starter="winner")
    assert env.config == make_config("eight_card", num_players=4, match=True, starter="winner")
    with pytest.raises(ValueError):
        TrashSingleAgentEnv("standard", colour="red")
    with pytest.raises(ValueError):
        TrashSingleAgentEnv("no_such_preset")
    assert trash_env.TrashSingleAgentEnv is TrashSingleAgentEnv


@pytest.mark.parametrize("env_id", ["TrashSingleAgent-v0", "HelpYourNeighborSingleAgent-v0"])
def test_masked_random_play_runs_in_a_gymnasium_vector_env_with_next_step_autoreset(env_id: str) -> None:
    """Gymnasium's ``make_vec`` (sync, its default NEXT_STEP autoreset): ``info["action_mask"]`` is int8,
    so ``Discrete.sample(mask=...)`` takes it; the step that ends an episode has an all-zero mask, for
    which ``sample`` returns 0, and the next step resets that game, its action ignored, with a fresh mask."""
    import gymnasium

    envs = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode="sync")
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    _, info = envs.reset(seed=4)
    space = envs.single_action_space
    ended = np.zeros(3, dtype=bool)
    finished = 0
    for _ in range(400):
        masks = info["action_mask"]
        assert masks.dtype == np.int8 and masks.shape == (3, space.n)
        assert (masks[~ended].sum(axis=1) >= 1).all() and not masks[ended].any()
        actions = np.array([space.sample(mask=mask) for mask in masks])
        assert all(masks[i, a] == 1 for i, a in enumerate(actions) if not ended[i])
        _, _, terminated, truncated, info = envs.step(actions)
        ended = terminated | truncated
        finished += int(ended.sum())
    envs.close()
    assert finished > 3


def test_an_unknown_keyword_is_a_type_error_as_libraries_that_probe_keywords_expect() -> None:
    """TorchRL's ``GymEnv`` passes ``frameskip=`` and retries without it on a ``TypeError`` only: an
    unknown keyword of any env or rules configuration is a ``TypeError`` naming it (and still a
    ``ValueError``, as before)."""
    import gymnasium

    import trash_env
    from trash_env import help_your_neighbor_v0

    calls = [
        lambda: gymnasium.make("TrashSingleAgent-v0", frameskip=4),
        lambda: gymnasium.make("HelpYourNeighborSingleAgent-v0", frameskip=4),
        lambda: trash_env.env(frameskip=4),
        lambda: help_your_neighbor_v0.env(frameskip=4),
        lambda: trash_env.TrashConfig.from_dict({"frameskip": 4}),
    ]
    for call in calls:
        with pytest.raises(TypeError, match=r"field\(s\) \['frameskip'\]") as raised:
            call()
        assert isinstance(raised.value, ValueError)
        assert "unexpected keyword argument 'frameskip'" in str(raised.value)  # Python's words, which TorchRL matches


@pytest.mark.parametrize("env_id", ["TrashSingleAgent-v0", "HelpYourNeighborSingleAgent-v0"])
def test_torchrls_gym_env_makes_the_single_agent_envs_by_id(env_id: str) -> None:
    """TorchRL's ``GymEnv`` on the registered id (it probes ``frameskip=`` and drops it on that TypeError):
    its spec check passes."""
    pytest.importorskip("torchrl")
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    check_env_specs(GymEnv(env_id))
