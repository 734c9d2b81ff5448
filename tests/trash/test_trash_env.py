"""Tests of the PettingZoo environment ``trash_v0`` (:mod:`trash_env.trash.env`) and its wrapper.

Rules are cited by their section of the rule book (``RULES.md``) (R1..R15). The reference
for the wrapper is PettingZoo's own stack of classic wrappers,
``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw_env, -1)))``.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from helpers.aec_play import MAX_STEPS, named_render_test, play, strict_api_test
from helpers.decks import stacked_deck
from pettingzoo.test import seed_test
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

import trash_env
from trash_env.trash import env as trash
from trash_env.trash import rules as trash_rules
from trash_env.trash.config import PRESETS, make_config
from trash_env.trash.observation import TrashObserver, observation_pieces
from trash_env.trash.text import render_table

# --------------------------------------------------------------------------
# Helpers


def pettingzoo_stack(preset: str = "standard", **kwargs):
    """``raw_env`` in PettingZoo's standard classic wrappers, the reference for ``env()``."""
    raw = trash_env.raw_env(preset, **kwargs)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, illegal_reward=-1)))


def is_done(env, agent: str) -> bool:
    return env.terminations[agent] or env.truncations[agent]


def legal_mask(state: trash_rules.TrashState) -> np.ndarray:
    mask = np.zeros(trash_rules.NUM_ACTIONS, dtype=np.int8)
    mask[trash_rules.legal_actions(state)] = 1
    return mask


def advance(env, rng: np.random.Generator, steps: int) -> None:
    """Take ``steps`` random legal actions (the episode must last that long)."""
    for _ in range(steps):
        obs = env.observe(env.agent_selection)
        assert not is_done(env, env.agent_selection), "the episode ended too early for this test"
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def illegal_actions(obs) -> list[int]:
    return np.flatnonzero(obs["action_mask"] == 0).tolist()


# --------------------------------------------------------------------------
# 1. PettingZoo's own tests on a matrix of configurations

PZ_CASES = [
    # every preset (R11) with 2 players
    pytest.param("standard", {}, id="standard-2p"),
    pytest.param("pagat", {}, id="pagat-2p"),
    pytest.param("jokers", {}, id="jokers-2p"),
    pytest.param("eight_card", {}, id="eight_card-2p"),
    pytest.param("seven_up", {}, id="seven_up-2p"),
    # more players (R1: two and three decks)
    pytest.param("standard", {"num_players": 3}, id="standard-3p"),
    pytest.param("standard", {"num_players": 5}, id="standard-5p"),
    pytest.param("standard", {"num_players": 8}, id="standard-8p"),
    # matches (R9)
    pytest.param("standard", {"match": True}, id="standard-match-2p"),
    pytest.param("pagat", {"match": True, "num_players": 3}, id="pagat-match-3p"),
    pytest.param("seven_up", {"match": True, "num_players": 5}, id="seven_up-match-5p"),
    pytest.param("eight_card", {"match": True, "num_players": 8}, id="eight_card-match-8p"),
    # every move asked (R13)
    pytest.param("standard", {"skip_forced": False}, id="standard-asked-2p"),
    pytest.param("pagat", {"skip_forced": False, "num_players": 5}, id="pagat-asked-5p"),
    pytest.param("seven_up", {"skip_forced": False}, id="seven_up-asked-2p"),
]


@pytest.mark.parametrize(("preset", "kwargs"), PZ_CASES)
def test_pettingzoo_api_test(preset, kwargs):
    """PettingZoo's ``api_test`` passes, with its warnings treated as errors (except the two
    it gives for every Dict observation), on every preset of R11, 2-8 players (R1), matches (R9)
    and with every move asked (R13)."""
    strict_api_test(trash_env.env(preset, **kwargs))


@pytest.mark.parametrize(("preset", "kwargs"), PZ_CASES)
def test_pettingzoo_seed_test(preset, kwargs):
    """PettingZoo's ``seed_test``: two environments reset with the same seed play identically
    (the shuffle of R3 and the reshuffles of R7 come from the seed)."""
    seed_test(lambda: trash_env.env(preset, **kwargs), num_cycles=1000)


@pytest.mark.parametrize(("preset", "kwargs"), PZ_CASES)
def test_pettingzoo_render_test(preset, kwargs):
    """PettingZoo's ``render_test`` for both render modes; each ansi frame also names every agent."""
    agents = trash_env.raw_env(preset, **kwargs).possible_agents
    named_render_test(lambda render_mode: trash_env.env(preset, render_mode=render_mode, **kwargs), agents)


# --------------------------------------------------------------------------
# 2. env() is equivalent to PettingZoo's standard wrapper stack

# (preset, overrides, chance of an illegal action): Seven Up asks one move per episode (R13),
# so it needs a higher chance to see both kinds of ending.
EQUIVALENCE_CASES = [
    ("standard", {}, 0.02),
    ("pagat", {"num_players": 3}, 0.02),
    ("jokers", {"num_players": 5}, 0.02),
    ("eight_card", {"num_players": 8}, 0.02),
    ("seven_up", {}, 0.5),
    ("standard", {"match": True}, 0.02),
    ("pagat", {"match": True, "num_players": 4}, 0.02),
    ("standard", {"skip_forced": False, "num_players": 3}, 0.02),
]


def assert_same(ours, theirs) -> None:
    """Everything an agent can read is identical in both environments."""
    assert ours.agents == theirs.agents
    if not ours.agents:
        return
    assert ours.agent_selection == theirs.agent_selection
    assert ours.rewards == theirs.rewards  # PettingZoo's stack writes int 0 where we write 0.0: equal
    assert ours.terminations == theirs.terminations
    assert ours.truncations == theirs.truncations
    assert ours.infos == theirs.infos
    obs1, reward1, term1, trunc1, info1 = ours.last()
    obs2, reward2, term2, trunc2, info2 = theirs.last()
    assert obs1.keys() == obs2.keys()
    for key in obs1:
        assert obs1[key].dtype == obs2[key].dtype, key
        np.testing.assert_array_equal(obs1[key], obs2[key], err_msg=key)
    assert (reward1, term1, trunc1, info1) == (reward2, term2, trunc2, info2)
    assert type(reward1) is type(reward2)


@pytest.mark.parametrize(("preset", "kwargs", "illegal_chance"), EQUIVALENCE_CASES, ids=str)
def test_env_matches_pettingzoo_stack(preset, kwargs, illegal_chance):
    """The same seeded games, with the same seeded random actions of which some (2% of the
    steps) are illegal but in bounds, give identical ``last()``, ``agent_selection``, ``rewards``,
    ``terminations``, ``truncations``, ``infos`` and ``agents`` at every step through
    ``env()`` and through PettingZoo's stack, until no agent is left (R10, R13)."""
    rng = np.random.default_rng(12345)
    illegal_played = natural_ends = 0
    for seed in range(12):
        ours, theirs = trash_env.env(preset, **kwargs), pettingzoo_stack(preset, **kwargs)
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        illegal_this_game = False
        for _ in range(MAX_STEPS):
            assert_same(ours, theirs)
            if not ours.agents:
                break
            obs, _, terminated, truncated, _ = ours.last()
            if terminated or truncated:
                action = None
            else:
                pool = np.flatnonzero(obs["action_mask"])
                if rng.random() < illegal_chance and illegal_actions(obs):
                    pool = np.asarray(illegal_actions(obs))
                    illegal_this_game = True
                action = rng.choice(pool)  # a numpy integer: both must accept it
                if rng.random() < 0.5:
                    action = int(action)
            ours.step(action)
            theirs.step(action)
        else:
            raise AssertionError("the episode did not end")
        illegal_played += illegal_this_game
        natural_ends += not illegal_this_game
    # Both kinds of ending were compared (the seeds are fixed, so this is deterministic).
    assert illegal_played > 0
    if not kwargs.get("match"):
        assert natural_ends > 0


@pytest.mark.parametrize("make", [trash_env.env, pettingzoo_stack], ids=["env", "pettingzoo_stack"])
@pytest.mark.parametrize("action", [trash_rules.NUM_ACTIONS, -1, 100])
def test_out_of_bounds_action_raises_assertion_error(make, action):
    """An action outside ``Discrete(13)`` (R13) is an AssertionError in ``env()`` as in
    PettingZoo's stack, and changes nothing: the game goes on with a legal action."""
    env = make()
    env.reset(seed=3)
    before = env.last()
    state = trash_rules.clone(env.unwrapped.game_state)
    applied = len(env.unwrapped.actions)
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(action)
    assert env.unwrapped.game_state == state
    after = env.last()
    np.testing.assert_array_equal(before[0]["observation"], after[0]["observation"])
    assert before[1:] == after[1:]
    env.step(int(np.flatnonzero(after[0]["action_mask"])[0]))
    assert len(env.unwrapped.actions) > applied  # the legal action was applied


@pytest.mark.parametrize("action", [trash_rules.NUM_ACTIONS, -1])
def test_out_of_bounds_action_of_done_agent_raises_assertion_error(action):
    """Once the game is over, an out-of-bounds action of a done agent is an AssertionError in
    PettingZoo's stack (AssertOutOfBoundsWrapper) and must be one in ``env()`` too."""
    envs = []
    for make in (pettingzoo_stack, trash_env.env):
        env = make()
        env.reset(seed=0)
        env.step(illegal_actions(env.last()[0])[0])  # ends the game: everyone is done
        assert is_done(env, env.agent_selection)
        envs.append(env)
    theirs, ours = envs
    with pytest.raises(AssertionError):
        theirs.step(action)
    with pytest.raises(AssertionError):
        ours.step(action)


BEFORE_RESET_CALLS = {
    "step": lambda env: env.step(0),
    "observe": lambda env: env.observe("player_0"),
    "last": lambda env: env.last(),
    "render": lambda env: env.render(),
    "state": lambda env: env.state(),
    "agent_iter": lambda env: env.agent_iter(),
    "agents": lambda env: env.agents,
    "rewards": lambda env: env.rewards,
    "agent_selection": lambda env: env.agent_selection,
    "terminations": lambda env: env.terminations,
    "truncations": lambda env: env.truncations,
    "infos": lambda env: env.infos,
    "num_agents": lambda env: env.num_agents,
}
EXPECTED_BEFORE_RESET = {
    "step": AssertionError,
    "observe": AssertionError,
    "last": AttributeError,
    "render": AssertionError,
    "state": AssertionError,
    "agent_iter": AssertionError,
    "agents": AttributeError,
    "rewards": AttributeError,
    "agent_selection": AttributeError,
    "terminations": AttributeError,
    "truncations": AttributeError,
    "infos": AttributeError,
    "num_agents": AttributeError,
}


@pytest.mark.parametrize("name", sorted(BEFORE_RESET_CALLS))
def test_use_before_reset_raises_like_pettingzoo(name):
    """Calls and reads before ``reset()`` raise the same exception in ``env()`` as in PettingZoo's
    OrderEnforcingWrapper: AssertionError for step/observe/render/state/agent_iter, AttributeError
    for last() and for reading agents, rewards, agent_selection and the other per-agent dicts."""
    call = BEFORE_RESET_CALLS[name]
    expected = EXPECTED_BEFORE_RESET[name]
    with pytest.raises(expected):
        call(pettingzoo_stack(render_mode="ansi"))
    with pytest.raises(expected):
        call(trash_env.env(render_mode="ansi"))


def test_env_is_an_order_enforcing_wrapper():
    """``env()`` is an OrderEnforcingWrapper around ``raw_env``, so PettingZoo's checked
    ``agent_iter`` accepts it and a whole game can be played through it."""
    env = trash_env.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.unwrapped, trash_env.raw_env)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    seen = set()
    for agent in env.agent_iter():
        seen.add(agent)
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    assert seen == set(env.possible_agents)


@pytest.mark.parametrize("make", [trash_env.env, pettingzoo_stack], ids=["env", "pettingzoo_stack"])
def test_step_after_all_agents_done_only_warns(make):
    """Once every agent is done and removed, ``step()`` only logs PettingZoo's warning, as
    OrderEnforcingWrapper does, and changes nothing."""
    env = make()
    env.reset(seed=2)
    play(env, np.random.default_rng(2))
    assert env.agents == []
    state = trash_rules.clone(env.unwrapped.game_state)
    EnvLogger.flush()
    env.step(0)
    env.step(None)
    assert sum("step() called after all agents are terminated" in str(m) for m in EnvLogger.mqueue) >= 2
    assert env.agents == []
    assert env.unwrapped.game_state == state
    EnvLogger.flush()


def test_raw_env_illegal_action_raises_and_changes_nothing():
    """R13: ``raw_env`` rejects every illegal action with a ValueError naming the action, and
    the rejected action changes neither the game state nor anything the agents read."""
    raw = trash_env.raw_env(num_players=3, skip_forced=False)
    raw.reset(seed=4)
    rng = np.random.default_rng(4)
    tried = 0
    for _ in range(40):  # the first 40 moves: draw and place phases, forced and free
        obs = raw.observe(raw.agent_selection)
        state = trash_rules.clone(raw.game_state)
        snapshot = (
            raw.agent_selection,
            dict(raw.rewards),
            dict(raw._cumulative_rewards),
            dict(raw.terminations),
            dict(raw.truncations),
            list(raw.actions),
        )
        for action in illegal_actions(obs):
            with pytest.raises(ValueError, match=rf"^action {action} \(.*\) is illegal"):
                raw.step(action)
            tried += 1
            assert raw.game_state == state
            assert snapshot == (
                raw.agent_selection,
                raw.rewards,
                raw._cumulative_rewards,
                raw.terminations,
                raw.truncations,
                raw.actions,
            )
            np.testing.assert_array_equal(raw.observe(raw.agent_selection)["observation"], obs["observation"])
        raw.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert tried > 40


@pytest.mark.parametrize("offender_seat", [0, 1, 2])
def test_illegal_action_through_env_ends_the_game(offender_seat):
    """Through ``env()`` an illegal (in-bounds) action ends the game at once: -1 to the offender,
    0 to every other agent, every agent terminated (and truncated, as PettingZoo's
    TerminateIllegalWrapper does); each done agent then reads its reward from ``last()``."""
    env = trash_env.env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    offender = f"player_{offender_seat}"
    while env.agent_selection != offender:
        advance(env, rng, 1)
    EnvLogger.flush()
    env.step(illegal_actions(env.last()[0])[0])
    assert any("Illegal move" in str(m) for m in EnvLogger.mqueue)
    EnvLogger.flush()
    expected = {agent: (-1.0 if agent == offender else 0.0) for agent in env.possible_agents}
    assert env.rewards == expected
    assert all(env.terminations.values())
    assert all(env.truncations.values())
    rewards_read = {}
    while env.agents:
        obs, reward, terminated, truncated, _ = env.last()
        assert terminated
        assert truncated
        assert not obs["action_mask"].any()
        rewards_read[env.agent_selection] = reward
        env.step(None)
    assert rewards_read == expected


# --------------------------------------------------------------------------
# 3. Forced moves (R13)


@pytest.mark.parametrize(
    ("preset", "kwargs"),
    [
        ("standard", {}),
        ("pagat", {"num_players": 3}),
        ("jokers", {"num_players": 5}),
        ("eight_card", {"num_players": 8}),
        ("standard", {"match": True}),
        ("pagat", {"match": True, "num_players": 3}),
    ],
    ids=str,
)
def test_skip_forced_asks_only_real_choices(preset, kwargs):
    """R13: with ``skip_forced=True`` an agent is asked only when it has at least two legal
    actions (no episode here is without any choice, so the first move is no exception)."""
    sizes = []
    for seed in range(10):
        env = trash_env.env(preset, **kwargs)
        env.reset(seed=seed)
        play(env, np.random.default_rng(seed), lambda env, agent, obs: sizes.append(int(obs["action_mask"].sum())))
    assert sizes
    assert min(sizes) >= 2


@pytest.mark.parametrize("kwargs", [{}, {"num_players": 5}, {"match": True}, {"match": True, "num_players": 3}])
def test_seven_up_asks_its_forced_first_move(kwargs):
    """R13: in Seven Up every move is forced, so the episode would end with no choice at all;
    the environment asks for the first move instead (a mask with exactly one action, the draw
    of R4), the episode is not over before that step, and it is over right after it."""
    for seed in range(5):
        env = trash_env.env("seven_up", **kwargs)
        env.reset(seed=seed)
        obs, reward, terminated, truncated, _ = env.last()
        assert env.agent_selection == "player_0"  # R3
        assert obs["action_mask"].tolist() == [1] + [0] * 12
        assert (reward, terminated, truncated) == (0.0, False, False)
        assert not any(env.terminations.values())
        assert not any(env.truncations.values())
        assert env.unwrapped.actions == []  # nothing applied before the first step
        assert not env.unwrapped.game_state.over
        env.step(0)
        assert all(is_done(env, agent) for agent in env.agents)
        assert env.unwrapped.game_state.over
        assert len(env.unwrapped.actions) > 1


def test_hand_without_any_choice_asks_the_first_move():
    """R13 with R5/R8/R10: a stacked standard hand in which player_0 completes on the first
    turn by mandatory placements and player_1's final turn (R8) is forced too has no choice at
    all, so the first move (the draw, mask [0]) is asked; after it the hand is over and
    player_0 has won."""
    config = make_config("standard")
    # player_0: A from the stock goes to slot 0, turning up 2, 3, ... 10, then a Queen
    # (unplayable, R6) that is discarded at once as the layout is complete. player_1 cannot
    # take that Queen (R4 playable) and draws the second Queen: unplayable, discarded.
    deck = stacked_deck(config, [[2, 3, 4, 5, 6, 7, 8, 9, 10, 12], [1, 1, 1, 5, 5, 5, 7, 7, 7, 9]], stock=[1, 12])
    env = trash_env.env("standard")
    env.reset(seed=0, options={"deck": deck})
    obs, *_ = env.last()
    assert env.agent_selection == "player_0"
    assert obs["action_mask"].tolist() == [1] + [0] * 12
    assert not any(env.terminations.values())
    env.step(0)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.unwrapped.game_state.up[0] == list(range(1, 11))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_not_skipping_forced_first_move_is_the_draw(preset):
    """R13/R3/R4: with ``skip_forced=False`` the first move of an episode is asked, and its
    only legal action is the draw from the stock: the discard pile starts empty."""
    for seed in range(3):
        env = trash_env.env(preset, skip_forced=False)
        env.reset(seed=seed)
        assert env.unwrapped.game_state.discard == []
        assert env.agent_selection == "player_0"
        assert env.last()[0]["action_mask"].tolist() == [1] + [0] * 12


def test_not_skipping_forced_asks_every_move():
    """R13: with ``skip_forced=False`` every move of the core is asked (forced ones included,
    so some asks offer a single action) and the record holds exactly the asked actions."""
    sizes = []
    env = trash_env.env("standard", num_players=3, skip_forced=False)
    env.reset(seed=6)
    asks = play(env, np.random.default_rng(6), lambda env, agent, obs: sizes.append(int(obs["action_mask"].sum())))
    assert asks == len(env.unwrapped.game_record()["actions"])
    assert 1 in sizes
    assert max(sizes) >= 2


@pytest.mark.parametrize(
    ("preset", "kwargs"), [("standard", {}), ("pagat", {"num_players": 3}), ("jokers", {"match": True})], ids=str
)
def test_skipping_forced_moves_plays_the_same_game(preset, kwargs):
    """R13: skipping forced moves only spares the agents the asking. Taking the same choices,
    the same seeded episode with ``skip_forced=True`` and ``False`` applies the same actions
    and ends in the same state."""
    for seed in range(4):
        choices_skip = np.random.default_rng(seed)
        choices_ask = np.random.default_rng(seed)
        skipping = trash_env.env(preset, **kwargs)
        skipping.reset(seed=seed)
        play(skipping, choices_skip)
        asking = trash_env.env(preset, skip_forced=False, **kwargs)
        asking.reset(seed=seed)
        while asking.agents:
            obs, _, terminated, truncated, _ = asking.last()
            legal = np.flatnonzero(obs["action_mask"])
            if terminated or truncated:
                asking.step(None)
            elif len(legal) == 1:
                asking.step(int(legal[0]))
            else:
                asking.step(int(choices_ask.choice(legal)))
        assert skipping.unwrapped.actions == asking.unwrapped.actions
        assert skipping.unwrapped.game_state == asking.unwrapped.game_state


def test_max_turns_truncates_as_a_draw():
    """R7/R10: an episode that reaches ``max_turns`` is truncated (not terminated) as a draw,
    0 to everyone, and never before its first step (R13)."""
    for seed in range(5):
        env = trash_env.env("standard", num_players=3, max_turns=4)
        env.reset(seed=seed)
        assert not any(env.truncations.values())
        rng = np.random.default_rng(seed)
        while not is_done(env, env.agent_selection):
            advance(env, rng, 1)
        assert all(env.truncations.values())
        assert not any(env.terminations.values())
        assert env.rewards == dict.fromkeys(env.possible_agents, 0.0)
        assert env.unwrapped.game_state.turn == 4


# --------------------------------------------------------------------------
# 4. Observations (R15)

DOC = trash.__doc__


def documented_pieces(num_players: int) -> list[tuple[str, int, int]]:
    """The index table of the module docstring as (piece, start, length) for ``num_players``."""
    table = DOC.split("| index | piece | meaning |", 1)[1].split("\n\n", 1)[0]
    pieces = []
    offset = 0
    for line in table.strip().splitlines()[1:]:  # skip the |---| line
        index, name = (cell.strip() for cell in line.strip("|").split("|")[:2])
        n = num_players
        if m := re.fullmatch(r"(\d+)-(\d+)", index):
            start, length = int(m[1]), int(m[2]) - int(m[1]) + 1
        elif m := re.fullmatch(r"(\d+) \.\. (\d+)\+(\d+)n-1", index):
            start, length = int(m[1]), int(m[2]) + int(m[3]) * n - int(m[1])
        elif m := re.fullmatch(r"next (n|\d+)", index):
            start, length = offset, n if m[1] == "n" else int(m[1])
        else:
            raise AssertionError(f"unreadable index {index!r} in the docstring table")
        pieces.append((name, start, length))
        offset = start + length
    return pieces


def test_docstring_offsets_for_two_players_match_observer():
    """R15: the docstring's "for 2 players the pieces start at ..." offsets and vector size are
    those of ``TrashObserver`` (parsed from the docstring, so the docs cannot drift)."""
    m = re.search(r"For 2 players the pieces start at ([\d,\s]+?) and\s+the vector has (\d+) entries", DOC)
    assert m, "the docstring no longer states the 2-player offsets"
    starts = [int(x) for x in m[1].split(",")]
    observer = TrashObserver(make_config(num_players=2))
    assert starts == list(observer.offsets.values())
    assert int(m[2]) == observer.size


@pytest.mark.parametrize("num_players", range(2, 9))
def test_docstring_index_table_matches_observer(num_players):
    """R15: every row of the docstring's index table (piece name, start, length, in order)
    agrees with ``TrashObserver`` for 2..8 players."""
    observer = TrashObserver(make_config(num_players=num_players))
    actual = [(name, observer.offsets[name], int(np.prod(observer.shapes[name]))) for name, _, _ in observer.pieces]
    assert documented_pieces(num_players) == actual
    _, last_start, last_length = actual[-1]
    assert last_start + last_length == observer.size


def test_docstring_size_formula_matches_observer():
    """R15: the size formula of the docstring ("62 + 44 n", in the header table and in the
    Observation Space section, and its 2-player value) is ``TrashObserver.size`` for 2..8 players."""
    formulas = re.findall(r"\((\d+) \+ (\d+) n,\)", DOC)
    assert len(formulas) >= 2, "the docstring no longer states the size formula"
    example = re.search(r"\((\d+) for 2 players\)", DOC)
    assert example
    sizes = {n: TrashObserver(make_config(num_players=n)).size for n in range(2, 9)}
    for a, b in formulas:
        assert {n: int(a) + int(b) * n for n in sizes} == sizes
    assert int(example[1]) == sizes[2]


OBSERVATION_CASES = [
    ("standard", {}),
    ("jokers", {"num_players": 3}),
    ("pagat", {"match": True, "num_players": 4}),
    ("seven_up", {"match": True}),
    ("eight_card", {"num_players": 8, "skip_forced": False}),
]


@pytest.mark.parametrize(("preset", "kwargs"), OBSERVATION_CASES, ids=str)
def test_every_observation_lies_in_the_observation_space(preset, kwargs):
    """R15: every agent's observation, at every step and at the end, lies in its observation
    space: a float32 vector in [0, 1] of ``TrashObserver.size`` entries and an int8 mask of 13."""
    checked = 0

    def check_all(env, agent, obs):
        nonlocal checked
        for other in env.agents:
            seen = env.observe(other)
            space = env.observation_space(other)
            assert space.contains(seen), other
            assert seen["observation"].dtype == np.float32
            assert seen["observation"].shape == (env.unwrapped.observer.size,)
            assert seen["action_mask"].dtype == np.int8
            assert seen["action_mask"].shape == (trash_rules.NUM_ACTIONS,)
            assert seen["observation"].min() >= 0.0
            assert seen["observation"].max() <= 1.0
            checked += 1

    for seed in range(4):
        env = trash_env.env(preset, **kwargs)
        env.reset(seed=seed)
        play(env, np.random.default_rng(seed), check_all)
        for agent in env.possible_agents:  # the final observations too
            assert env.observation_space(agent).contains(env.observe(agent))
    assert checked >= 2 * 4  # every agent, at least once per episode


@pytest.mark.parametrize(("preset", "kwargs"), OBSERVATION_CASES, ids=str)
def test_action_mask_is_the_legal_actions_of_the_agent_to_act(preset, kwargs):
    """R13: the acting agent's mask is exactly the legal actions of ``env.unwrapped.game_state``;
    every other agent's mask is all zeros, and so is everyone's once the episode is over."""

    def check_masks(env, agent, obs):
        state = env.unwrapped.game_state
        assert agent == env.possible_agents[state.current]
        np.testing.assert_array_equal(obs["action_mask"], legal_mask(state))
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any(), other

    for seed in range(4):
        env = trash_env.env(preset, **kwargs)
        env.reset(seed=seed)
        play(env, np.random.default_rng(seed), check_masks)
        for agent in env.possible_agents:
            assert not env.observe(agent)["action_mask"].any()


def test_describe_names_every_piece():
    """R15: ``TrashObserver.describe()`` gives one line per named piece, naming each, and
    ``view()`` splits the vector into pieces of the documented shapes."""
    for num_players in (2, 5):
        env = trash_env.env(num_players=num_players, match=True)
        env.reset(seed=0)
        observer = env.unwrapped.observer
        vector = env.last()[0]["observation"]
        lines = observer.describe(vector).splitlines()
        names = [name for name, _, _ in observation_pieces(num_players)]
        assert len(lines) == len(names)
        for line, name in zip(lines, names):
            assert line.split()[0] == name
        view = observer.view(vector)
        assert list(view) == names
        assert all(view[name].shape == shape for name, shape, _ in observation_pieces(num_players))


def test_observation_ignores_hidden_cards():
    """R2/R15: an observation (and the rendered table) never depends on which card lies under
    which face-down slot nor on the order of the stock: reshuffling every hidden card changes
    no seat's observation."""
    rng = np.random.default_rng(7)
    env = trash_env.env(num_players=3)
    env.reset(seed=7)
    advance(env, rng, 12)
    raw = env.unwrapped
    state = raw.game_state
    before = [raw.observer.encode(state, seat) for seat in range(3)]
    text = render_table(state)
    changed = 0
    for _ in range(5):
        hidden = state.hidden_cards()
        shuffled = rng.permutation(hidden).tolist()
        changed += shuffled != hidden
        other = trash_rules.clone(state)
        cards = iter(shuffled)
        for seat in range(3):
            for slot, up in enumerate(other.up[seat]):
                if up == trash_rules.FACE_DOWN:
                    other.down[seat][slot] = next(cards)
        other.stock = list(cards)
        assert len(other.stock) == len(state.stock)
        for seat in range(3):
            np.testing.assert_array_equal(raw.observer.encode(other, seat), before[seat])
        assert render_table(other) == text
    assert changed


# --------------------------------------------------------------------------
# 5. reset options (R3)


@pytest.mark.parametrize(
    ("preset", "num_players"), [("standard", 2), ("standard", 3), ("eight_card", 2), ("jokers", 5)], ids=str
)
@pytest.mark.parametrize("skip_forced", [True, False])
def test_stacked_deck_deals_the_given_layouts(preset, num_players, skip_forced):
    """R3: ``reset(options={"deck": ...})`` deals round-robin from the first card, so the cards
    under the layouts are the stacked ones and the stock's top cards are the stacked stock."""
    config = make_config(preset, num_players=num_players)
    size = config.layout_size
    layouts = [[(seat + slot) % 10 + 1 for slot in range(size)] for seat in range(num_players)]
    stock = [13, 12, 11]
    deck = stacked_deck(config, layouts, stock)
    env = trash_env.env(preset, num_players=num_players, skip_forced=skip_forced)
    env.reset(seed=0, options={"deck": deck})
    state = env.unwrapped.game_state
    assert state.down == layouts
    assert state.deck == deck
    if not skip_forced:  # nothing drawn yet
        assert state.stock[::-1][: len(stock)] == stock
        assert len(state.stock) == config.deck_size - num_players * size
    assert env.unwrapped.game_record()["deck_source"] == "given"


def _short(deck):
    return deck[:-1]


def _rank_14(deck):
    return deck[:5] + [14] + deck[6:]


def _two_for_an_ace(deck):
    return [2 if card == 1 and i == deck.index(1) else card for i, card in enumerate(deck)]


def _joker(deck):
    return [0, *deck[1:]]


def _text(deck):
    return "A23456789"


BAD_DECKS = [
    pytest.param(_short, r"the deck has 51 cards but the configuration uses 52", id="wrong-length"),
    pytest.param(_rank_14, r"deck\[5\] = 14 is not a rank", id="rank-14"),
    pytest.param(_two_for_an_ace, r"the deck has 3 copies of A \(rank 1\); the configuration has 4", id="counts"),
    pytest.param(_joker, r"copies of Jk \(rank 0\); the configuration has 0", id="joker-without-jokers"),
    pytest.param(_text, r"a deck must be a list of ranks", id="string"),
]


@pytest.mark.parametrize(("spoil", "message"), BAD_DECKS)
def test_wrong_deck_raises_value_error_then_reset_still_works(spoil, message):
    """R3: a deck that does not hold exactly the configured cards is a ValueError saying what is
    wrong; the environment then still resets, with a good deck or a shuffle."""
    config = make_config("standard")
    good = stacked_deck(config, [[1, 1, 5, 5, 6, 6, 7, 7, 8, 8], [3, 3, 4, 4, 9, 9, 10, 10, 2, 2]], [9])
    env = trash_env.env()
    with pytest.raises(ValueError, match=message):
        env.reset(seed=0, options={"deck": spoil(list(good))})
    env.reset(seed=0, options={"deck": good})
    assert env.unwrapped.game_state.deck == good
    with pytest.raises(ValueError, match=message):
        env.reset(options={"deck": spoil(list(good))})
    env.reset(seed=1)
    assert env.agents == env.possible_agents
    play(env, np.random.default_rng(1))


def test_rejected_reset_leaves_the_running_episode_intact():
    """R3: a reset rejected for a wrong deck changes nothing: the episode under way keeps its
    seed and its random generator, so its game record still replays to its state."""
    env = trash_env.env()
    env.reset(seed=1)
    advance(env, np.random.default_rng(1), 5)
    seed = env.unwrapped.game_record()["seed"]
    with pytest.raises(ValueError):
        env.reset(options={"deck": [1] * 52})
    record = env.unwrapped.game_record()
    assert record["seed"] == seed
    assert trash_env.replay(record) == env.unwrapped.game_state


@pytest.mark.parametrize("options", [{"options": 1}, {"foo": "bar", "deck_size": 3}, {}, None])
def test_unknown_reset_options_are_ignored(options):
    """R3: option keys other than ``deck`` are ignored: the episode is the one the seed alone gives."""
    plain, optioned = trash_env.env(num_players=3), trash_env.env(num_players=3)
    plain.reset(seed=11)
    optioned.reset(seed=11, options=options)
    assert optioned.unwrapped.game_state == plain.unwrapped.game_state
    assert optioned.unwrapped.game_record() == plain.unwrapped.game_record()
    np.testing.assert_array_equal(optioned.last()[0]["observation"], plain.last()[0]["observation"])


# --------------------------------------------------------------------------
# 6. Rendering and arguments


@pytest.mark.parametrize("num_players", [2, 8])
def test_ansi_render_shows_every_agent_and_face_down_cards(num_players):
    """R2: the ansi rendering is a str naming every agent, face-down cards shown as ``##``
    (at the deal every card is face down); at the end it says the game is over."""
    env = trash_env.env(render_mode="ansi", num_players=num_players, skip_forced=False)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str)
    for agent in env.possible_agents:
        assert agent in text
    assert text.count("##") == num_players * 10
    play(env, np.random.default_rng(0))
    assert "over" in env.render()


def test_human_render_prints_and_returns_none(capsys):
    """``render_mode="human"`` prints the table to stdout (at reset and on render()) and
    ``render()`` returns None."""
    env = trash_env.env(render_mode="human", num_players=3)
    env.reset(seed=0)
    assert "player_2" in capsys.readouterr().out
    assert env.render() is None
    out = capsys.readouterr().out
    for agent in env.possible_agents:
        assert agent in out
    assert "##" in out


@pytest.mark.parametrize("mode", ["rgb_arrays", "text", ""])
def test_invalid_render_mode_raises_value_error(mode):
    """A render mode other than None, "ansi", "human" and "rgb_array" is a ValueError naming render_mode."""
    with pytest.raises(ValueError, match="render_mode"):
        trash_env.env(render_mode=mode)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"layout_size": 11}, "layout_size"),
        ({"layout_size": 0}, "layout_size"),
        ({"wild": "Q"}, "wild"),
        ({"jokers": "yes"}, "jokers"),
        ({"discard_draw": "sometimes"}, "discard_draw"),
        ({"final_turn": 1}, "final_turn"),
        ({"match": "no"}, "match"),
        ({"starter": "loser"}, "starter"),
        ({"num_decks": 0}, "num_decks"),
        ({"num_players": 8, "num_decks": 1}, "num_decks"),
        ({"max_turns": 0}, "max_turns"),
        ({"colour": "red"}, "colour"),
        ({"preset": "poker"}, "preset"),
        ({"skip_forced": "yes"}, "skip_forced"),
    ],
    ids=str,
)
def test_invalid_configuration_raises_value_error_naming_the_field(overrides, field):
    """R1/R11: an invalid preset, field value or unknown field is a ValueError naming the field."""
    with pytest.raises(ValueError, match=re.escape(field)):
        trash_env.env(**overrides)


# --------------------------------------------------------------------------
# 7. Game records


@pytest.mark.parametrize(
    ("preset", "kwargs"), [("standard", {}), ("pagat", {"num_players": 3, "match": True}), ("seven_up", {})], ids=str
)
def test_game_record_is_json_and_replays(preset, kwargs):
    """The game record is JSON-serialisable (a ``json`` round trip gives it back unchanged),
    holds config, seed, deck and actions, and replays to the environment's state, mid-game
    and at the end (reshuffles of R7 and later deals of R9 come from the seed)."""
    env = trash_env.env(preset, **kwargs)
    with pytest.raises(RuntimeError):
        env.unwrapped.game_record()
    env.reset(seed=21)
    config = env.unwrapped.config
    first_deck = list(env.unwrapped.game_state.deck)
    records = [env.unwrapped.game_record()]
    if preset != "seven_up":
        advance(env, np.random.default_rng(21), 3)
        records.append(env.unwrapped.game_record())
    play(env, np.random.default_rng(22))
    records.append(env.unwrapped.game_record())
    for record in records:
        loaded = json.loads(json.dumps(record))
        assert loaded == record
        assert loaded["config"] == config.to_dict()
        assert isinstance(loaded["seed"], int)
        assert loaded["deck"] == first_deck
        assert sorted(loaded["deck"]) == trash_rules.full_deck(config)
        assert all(isinstance(a, int) and 0 <= a < trash_rules.NUM_ACTIONS for a in loaded["actions"])
    assert len(records[-1]["actions"]) > len(records[0]["actions"])
    assert records[-1]["over"]
    assert trash_env.replay(json.loads(json.dumps(records[-1]))) == env.unwrapped.game_state


def test_game_record_seed_and_deck_follow_the_reset_seed():
    """R3: the same reset seed gives the same record (seed, deck); another seed another deck."""
    records = []
    for seed in (5, 5, 6):
        env = trash_env.env()
        env.reset(seed=seed)
        records.append(env.unwrapped.game_record())
    assert records[0] == records[1]
    assert records[0]["seed"] != records[2]["seed"]
    assert records[0]["deck"] != records[2]["deck"]


def test_discard_playable_says_whether_the_top_discard_fits_the_observers_layout():
    """R4, R5, R15: ``discard_playable`` is 1 for an observer whose layout can take the top
    discard now (a face-down slot of its rank, a wild in that slot, or a wild card with a
    face-down slot left) and 0 otherwise, for every seat."""
    cfg = make_config()
    # Seat 0 draws a Queen (dead for everyone) and discards it; then the top discard is edited.
    layouts = [[2, 3, 4, 5, 6, 7, 8, 9, 10, 1], [2, 3, 4, 5, 6, 7, 8, 9, 10, 1]]
    state = trash_rules.new_game(cfg, np.random.default_rng(0), stacked_deck(cfg, layouts, [12, 1]))
    trash_rules.apply_action(state, trash_rules.DRAW_STOCK, np.random.default_rng(0))  # seat 0 draws the Queen
    trash_rules.apply_action(state, trash_rules.DISCARD, np.random.default_rng(0))  # a dead card on the pile
    observer = TrashObserver(cfg)
    for seat in range(2):
        assert observer.view(observer.encode(state, seat))["discard_playable"][0] == 0
    state.discard[-1] = 7  # a Seven: both layouts have the Seven slot face down
    for seat in range(2):
        assert observer.view(observer.encode(state, seat))["discard_playable"][0] == 1
    state.up[1][6] = 7  # seat 1 has filled its Seven slot: the Seven no longer fits there
    assert observer.view(observer.encode(state, 1))["discard_playable"][0] == 0
    assert observer.view(observer.encode(state, 0))["discard_playable"][0] == 1
    state.discard[-1] = 13  # a King is wild while a face-down slot is left
    assert observer.view(observer.encode(state, 1))["discard_playable"][0] == 1
