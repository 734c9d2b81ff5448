"""Tests of the PettingZoo environment ``help_your_neighbor_v0`` (:mod:`trash_env.neighbor.env`)
and of its single-agent form ``HelpYourNeighborSingleAgent-v0`` (:class:`NeighborSingleAgentEnv`).

Rules are cited by their section of the rule book (``RULES.md``): R12 (the dice game, its rewards and the
turn limit), R14 (actions; forced moves are skipped as in R13, with R13's first-move rule). Scenarios
stack the dice with ``reset(options={"dice": [...]})``; every other random event comes from a seed.
"""

from __future__ import annotations

import json
import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from helpers.aec_play import MAX_STEPS, named_render_test, play, strict_api_test
from pettingzoo.test import seed_test
from pettingzoo.utils.env_logger import EnvLogger

import trash_env
from trash_env import NeighborSingleAgentEnv, help_your_neighbor_v0
from trash_env.neighbor import env as help_your_neighbor
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.observation import NeighborObserver, neighbor_pieces
from trash_env.neighbor.rules import NUM_ACTIONS, TOTALS, make_config
from trash_env.view import SeatView
from trash_env.wrappers import StandardChecks

# --------------------------------------------------------------------------
# Helpers

PLAYER_COUNTS = [2, 3, 5, 8]
ROLL, END = neighbor.ROLL_DICE, neighbor.END_TURN


def uncover(total: int) -> int:
    """R14: the action that uncovers the marker of ``total``."""
    return neighbor.UNCOVER_0 + TOTALS.index(total)


def make(num_players: int = 2, **kwargs):
    return help_your_neighbor_v0.env(num_players=num_players, **kwargs)


def legal_mask(state: neighbor.NeighborState) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[neighbor.legal_actions(state)] = 1
    return mask


def mask_of(*actions: int) -> list[int]:
    return [1 if a in actions else 0 for a in range(NUM_ACTIONS)]


def finish(env) -> dict[str, float]:
    """Step every done agent out (``step(None)``), collecting the reward each reads from ``last()``."""
    read = {}
    while env.agents:
        obs, reward, terminated, truncated, _ = env.last()
        assert terminated or truncated
        assert not obs["action_mask"].any()
        read[env.agent_selection] = reward
        env.step(None)
    return read


def steps(env, actions: list[int]) -> None:
    """Take the given actions, each of which must be legal for the agent to act."""
    for action in actions:
        obs = env.observe(env.agent_selection)
        assert obs["action_mask"][action] == 1, (action, env.unwrapped.game_state)
        env.step(action)


def pieces(env, agent: str) -> dict[str, np.ndarray]:
    return env.unwrapped.observer.view(env.observe(agent)["observation"])


def one_hot(size: int, index: int | None) -> list[float]:
    return [1.0 if i == index else 0.0 for i in range(size)]


# --------------------------------------------------------------------------
# 1. PettingZoo's own tests


@pytest.mark.parametrize("skip_forced", [True, False], ids=["skip_forced", "every_move"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api_test(num_players, skip_forced):
    """PettingZoo's ``api_test`` passes for 2-8 players (R12), skipping forced moves or asking
    every move (R14), with its warnings made errors (except the two given for any Dict observation)."""
    env = make(num_players, skip_forced=skip_forced)
    assert isinstance(env, StandardChecks)
    assert isinstance(env.unwrapped, help_your_neighbor.raw_env)
    strict_api_test(env)


@pytest.mark.parametrize("skip_forced", [True, False], ids=["skip_forced", "every_move"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players, skip_forced):
    """PettingZoo's ``seed_test``: two environments reset with the same seed roll the same dice."""
    seed_test(lambda: make(num_players, skip_forced=skip_forced), num_cycles=1000)


@pytest.mark.parametrize("skip_forced", [True, False], ids=["skip_forced", "every_move"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_render_test(num_players, skip_forced, capsys):
    """PettingZoo's ``render_test`` for "ansi" and "human"; each ansi frame names every agent."""
    agents = [f"player_{i}" for i in range(num_players)]
    named_render_test(lambda render_mode: make(num_players, skip_forced=skip_forced, render_mode=render_mode), agents)
    assert "player_0" in capsys.readouterr().out  # "human" printed the table


def test_render_modes():
    """ "ansi" returns the table naming every agent and the covered markers; "human" prints it and
    returns None; without a render mode render() returns None."""
    env = make(3, render_mode="ansi")
    env.reset(seed=0, options={"dice": [5]})
    text = env.render()
    assert all(f"player_{i}" in text for i in range(3))
    assert "##" in text  # player_0 covered its 5
    env = make(3)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert env.render() is None


# --------------------------------------------------------------------------
# 2. The documented observation layout

DOC = help_your_neighbor.__doc__


def documented_pieces(num_players: int) -> list[tuple[str, int, int]]:
    """The docstring's index table as (piece, start, length) for ``num_players``."""
    table = DOC.split("| index | piece | meaning |", 1)[1].split("\n\n", 1)[0]
    rows = []
    offset = 0
    n = num_players
    for line in table.strip().splitlines()[1:]:  # skip the |---| line
        index, name = (cell.strip() for cell in line.strip("|").split("|")[:2])
        if m := re.fullmatch(r"(\d+)-(\d+)", index):
            start, length = int(m[1]), int(m[2]) - int(m[1]) + 1
        elif m := re.fullmatch(r"(\d+) \.\. (\d+)\+n-1", index):
            start, length = int(m[1]), int(m[2]) + n - int(m[1])
        elif m := re.fullmatch(r"next (\d*)n", index):
            start, length = offset, (int(m[1]) if m[1] else 1) * n
        elif m := re.fullmatch(r"next (\d+)", index):
            start, length = offset, int(m[1])
        else:
            raise AssertionError(f"unreadable index {index!r} in the docstring table")
        rows.append((name, start, length))
        offset = start + length
    return rows


@pytest.mark.parametrize("num_players", range(2, 9))
def test_docstring_index_table_matches_observer(num_players):
    """Every row of the docstring's index table (piece name, start, length, in order; the
    "next n" rows follow each other) agrees with ``NeighborObserver`` for 2..8 players."""
    observer = NeighborObserver(make_config(num_players=num_players))
    actual = [(name, observer.offsets[name], int(np.prod(observer.shapes[name]))) for name, _, _ in observer.pieces]
    assert documented_pieces(num_players) == actual
    assert [name for name, _, _ in neighbor_pieces(num_players)] == [name for name, _, _ in actual]
    _, last_start, last_length = actual[-1]
    assert last_start + last_length == observer.size
    assert observer.shapes["covered"] == (num_players, 10)


def test_docstring_offsets_for_two_players_match_observer():
    """The docstring's "for 2 players the pieces start at 0, 3, 14, 16, 18, 38, 40" and its
    41 entries are those of ``NeighborObserver``."""
    m = re.search(r"For 2\s+players the pieces start at ([\d,\s]+?) and\s+the vector has\s+(\d+) entries", DOC)
    assert m, "the docstring no longer states the 2-player offsets"
    starts = [int(x) for x in m[1].split(",")]
    assert starts == [0, 3, 14, 16, 18, 38, 40]
    observer = NeighborObserver(make_config(num_players=2))
    assert starts == list(observer.offsets.values())
    assert int(m[2]) == observer.size == 41


def test_docstring_size_formula_matches_observer():
    """The size formula "15 + 13 n" (header table and Observation Space) and its 2-player value
    (41) are ``NeighborObserver.size`` and the env's observation space for 2..8 players."""
    formulas = re.findall(r"\((\d+) \+ (\d+) n,\)", DOC)
    assert len(formulas) >= 2, "the docstring no longer states the size formula"
    example = re.search(r"\((\d+) for 2 players\)", DOC)
    assert example
    sizes = {n: NeighborObserver(make_config(num_players=n)).size for n in range(2, 9)}
    for a, b in formulas:
        assert (int(a), int(b)) == (15, 13)
        assert {n: int(a) + int(b) * n for n in sizes} == sizes
    assert int(example[1]) == sizes[2] == 41
    for n in (2, 8):
        raw = help_your_neighbor.raw_env(num_players=n)
        space = raw.observation_space("player_0")
        assert space["observation"].shape == (15 + 13 * n,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (NUM_ACTIONS,)
        assert space["action_mask"].dtype == np.int8
        assert raw.action_space("player_1") == gymnasium.spaces.Discrete(12)


def test_describe_names_every_piece():
    """``describe()`` prints one line per named piece; ``view()`` gives the documented shapes."""
    for num_players in (2, 5):
        env = make(num_players)
        env.reset(seed=0, options={"dice": [5]})
        observer = env.unwrapped.observer
        vector = env.last()[0]["observation"]
        lines = observer.describe(vector).splitlines()
        names = [name for name, _, _ in neighbor_pieces(num_players)]
        assert [line.split()[0] for line in lines] == names
        assert lines[names.index("roll")].split()[1] == "5"
        view = observer.view(vector)
        assert all(view[name].shape == shape for name, shape, _ in neighbor_pieces(num_players))


# --------------------------------------------------------------------------
# 3. Observation content, with stacked dice


def check_table(env, *, phase, roll, current, privilege, covered, left, turn) -> None:
    """The observation of every seat shows this table (absolute seats given; ``covered`` maps a
    seat to its covered totals). Seats are relative: row r of seat s is seat (s + r) % n."""
    raw = env.unwrapped
    n = raw.config.num_players
    for seat, agent in enumerate(raw.possible_agents):
        view = pieces(env, agent)
        order = [(seat + r) % n for r in range(n)]
        assert view["phase"].tolist() == one_hot(3, phase), agent
        assert view["roll"].tolist() == one_hot(11, None if roll is None else roll - 2), agent
        assert view["current"].tolist() == one_hot(n, None if current is None else (current - seat) % n), agent
        rel_helper = None if privilege is None else (privilege - seat) % n
        assert view["privilege"].tolist() == one_hot(n, rel_helper), agent
        for r, other in enumerate(order):
            expected_row = [1.0 if t in covered.get(other, ()) else 0.0 for t in TOTALS]
            assert view["covered"][r].tolist() == expected_row, (agent, r)
        np.testing.assert_allclose(view["left"], [left[s] / 10 for s in order], err_msg=agent)
        assert view["turn"][0] == pytest.approx(turn / raw.config.max_turns), agent
        assert env.observation_space(agent).contains(env.observe(agent))


def check_masks(env) -> None:
    """The acting agent's mask is its legal actions (int8); every other agent's is all zeros."""
    state = env.unwrapped.game_state
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        if agent == env.agent_selection and not state.over:
            np.testing.assert_array_equal(mask, legal_mask(state))
            assert mask.any()
        else:
            assert not mask.any(), agent


def test_observation_scenario_three_players():
    """A scripted 3-player game (R12): a usable roll, a helped neighbour, a 7 with one covered marker
    (forced, R14), a 7 with two covered (a choice), seen from every seat with relative seats."""
    env = make(3, max_turns=10)
    env.reset(seed=0, options={"dice": [5, 6, 6, 7, 8, 7, 2]})
    # player_0's forced first roll, a 5: it covers its 5 and chooses (roll or end).
    assert env.agent_selection == "player_0"
    assert env.unwrapped.actions == [ROLL]
    check_masks(env)
    assert env.last()[0]["action_mask"].tolist() == mask_of(ROLL, END)
    check_table(env, phase=1, roll=5, current=0, privilege=None, covered={0: [5]}, left=[9, 10, 10], turn=0)
    # Seat 1 sees seat 0 as its relative seat 2, seat 2 sees it as relative seat 1.
    assert pieces(env, "player_1")["covered"][2].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert pieces(env, "player_2")["covered"][1].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert pieces(env, "player_1")["current"].tolist() == [0, 0, 1]

    env.step(ROLL)  # a 6: player_0 covers it
    check_table(env, phase=1, roll=6, current=0, privilege=None, covered={0: [5, 6]}, left=[8, 10, 10], turn=0)
    # A 6 again: player_1 covers it and takes the turn (turn 1); its forced roll is a 7 with only
    # its 6 covered, so the forced uncovering passes the turn to player_2 (turn 2), whose forced
    # roll of 8 it covers.
    env.step(ROLL)
    assert env.agent_selection == "player_2"
    assert env.unwrapped.actions == [ROLL, ROLL, ROLL, ROLL, uncover(6), ROLL]
    check_masks(env)
    # The privilege piece keeps showing player_1, the last player who took the privilege.
    check_table(env, phase=1, roll=8, current=2, privilege=1, covered={0: [5, 6], 2: [8]}, left=[8, 10, 9], turn=2)

    env.step(END)  # turn 3: player_0 rolls a 7 with two markers covered: it chooses which to uncover
    assert env.agent_selection == "player_0"
    check_masks(env)
    assert env.last()[0]["action_mask"].tolist() == mask_of(uncover(5), uncover(6))
    check_table(env, phase=2, roll=7, current=0, privilege=1, covered={0: [5, 6], 2: [8]}, left=[8, 10, 9], turn=3)

    env.step(uncover(5))  # turn 4: player_1 rolls a 2 and covers it
    assert env.agent_selection == "player_1"
    check_masks(env)
    check_table(env, phase=1, roll=2, current=1, privilege=1, covered={0: [6], 1: [2], 2: [8]}, left=[9, 9, 9], turn=4)


def test_privilege_shows_the_helped_neighbour():
    """R12: when the roller cannot use a total, the first player after them who can covers it
    (the privilege) and takes the turn; asking every move (R14), that player's forced roll shows
    the privilege from every seat. Seat 1 has the 5 already, so seat 2 is the neighbour who helps."""
    env = make(3, skip_forced=False)
    env.reset(seed=1, options={"dice": [6, 5, 6, 5, 5]})
    assert env.last()[0]["action_mask"].tolist() == mask_of(ROLL)  # R14: every move is asked
    check_table(env, phase=0, roll=None, current=0, privilege=None, covered={}, left=[10, 10, 10], turn=0)
    steps(env, [ROLL, END, ROLL, END, ROLL, END])  # seats 0, 1, 2 cover 6, 5, 6 and end their turns
    steps(env, [ROLL])  # player_0 covers its 5
    env.step(ROLL)  # another 5: player_0 and player_1 have it, player_2 covers it and takes the turn
    assert env.agent_selection == "player_2"
    check_masks(env)
    assert env.last()[0]["action_mask"].tolist() == mask_of(ROLL)
    covered = {0: [6, 5], 1: [5], 2: [6, 5]}
    check_table(env, phase=0, roll=5, current=2, privilege=2, covered=covered, left=[8, 9, 8], turn=4)
    assert pieces(env, "player_0")["privilege"].tolist() == [0, 0, 1]
    assert pieces(env, "player_1")["privilege"].tolist() == [0, 1, 0]
    assert pieces(env, "player_2")["privilege"].tolist() == [1, 0, 0]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_every_observation_lies_in_the_box_and_masks_are_legal_actions(num_players):
    """Random games: every agent's observation lies in its space (float32 in [0, 1]) at every step
    and at the end; the acting agent's mask is exactly the legal actions of the state, every other
    agent's (and everyone's once over) all zeros."""

    def on_ask(env, agent, obs):
        assert agent == env.possible_agents[env.unwrapped.game_state.current]
        check_masks(env)
        for other in env.possible_agents:
            seen = env.observe(other)
            assert env.observation_space(other).contains(seen)
            assert seen["observation"].dtype == np.float32

    for seed in range(3):
        env = make(num_players, skip_forced=seed == 2)
        env.reset(seed=seed)
        play(env, np.random.default_rng(seed), on_ask)
        for agent in env.possible_agents:
            seen = env.observe(agent)
            assert env.observation_space(agent).contains(seen)
            assert not seen["action_mask"].any()


# --------------------------------------------------------------------------
# 4. Forced moves (R14, as R13)


def test_forced_uncover_after_a_seven_is_skipped():
    """R14: a 7 with a single covered marker leaves one legal action (uncover it): with
    ``skip_forced=True`` it is played for the roller, who is not asked; with False it is asked."""
    env = make(2)
    env.reset(seed=0, options={"dice": [5, 7, 6]})
    steps(env, [ROLL])  # player_0: a 7, its 5 is uncovered for it, the turn passes; player_1 covers 6
    assert env.agent_selection == "player_1"
    assert env.unwrapped.actions == [ROLL, ROLL, uncover(5), ROLL]
    assert env.unwrapped.game_state.covered[0] == [False] * 10

    env = make(2, skip_forced=False)
    env.reset(seed=0, options={"dice": [5, 7, 6]})
    steps(env, [ROLL, ROLL])
    assert env.agent_selection == "player_0"
    assert env.last()[0]["action_mask"].tolist() == mask_of(uncover(5))
    steps(env, [uncover(5)])
    assert env.agent_selection == "player_1"
    assert env.last()[0]["action_mask"].tolist() == mask_of(ROLL)  # the forced roll is asked too


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_skip_forced_asks_only_real_choices(num_players):
    """R14: with ``skip_forced=True`` every ask has at least two legal actions (none of these seeded
    episodes is without any choice); with False every move is asked, forced rolls included, and the
    actions applied are exactly the actions asked."""
    sizes = []
    for seed in range(10):
        env = make(num_players)
        env.reset(seed=seed)
        play(env, np.random.default_rng(seed), lambda env, agent, obs: sizes.append(int(obs["action_mask"].sum())))
    assert min(sizes) >= 2
    asked = []
    for seed in range(5):
        env = make(num_players, skip_forced=False)
        env.reset(seed=seed)
        assert env.last()[0]["action_mask"].tolist() == mask_of(ROLL)  # seat 0's forced first roll
        count = play(env, np.random.default_rng(seed), lambda env, agent, obs: asked.append(obs["action_mask"].copy()))
        assert count == len(env.unwrapped.actions)
    assert sum(mask.tolist() == mask_of(ROLL) for mask in asked) > 10


@pytest.mark.parametrize("num_players", [2, 3])
def test_episode_without_any_choice_asks_its_first_move(num_players):
    """R14/R13 first-move rule: with the dice all 7 and ``max_turns=3`` the game is truncated before
    anyone has a choice, so reset asks player_0 for its forced first roll (mask: roll only) with
    nothing applied yet; that one step ends the episode as a draw (R12)."""
    env = make(num_players, max_turns=3)
    env.reset(seed=0, options={"dice": [7] * 10})
    obs, reward, terminated, truncated, _ = env.last()
    assert env.agent_selection == "player_0"
    assert obs["action_mask"].tolist() == mask_of(ROLL)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert env.unwrapped.actions == []
    assert not env.unwrapped.game_state.over
    assert env.unwrapped.game_state.rolls == []
    env.step(ROLL)
    state = env.unwrapped.game_state
    assert state.over and state.truncated and state.turn == 3
    assert state.rolls == [7, 7, 7]
    assert env.unwrapped.actions == [ROLL, ROLL, ROLL]
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert finish(env) == dict.fromkeys(env.possible_agents, 0.0)


# --------------------------------------------------------------------------
# 5. Illegal and out-of-range actions


@pytest.mark.parametrize("offender_seat", [0, 1, 2])
def test_illegal_action_through_env_ends_the_game(offender_seat):
    """Through ``env()`` an illegal (masked, in-bounds) action ends the game: -1 to the offender,
    0 to every other agent, every agent terminated and truncated; each reads it from ``last()``."""
    env = make(3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    offender = f"player_{offender_seat}"
    while env.agent_selection != offender:
        obs = env.last()[0]
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    EnvLogger.flush()
    env.step(illegal)
    assert any("Illegal move" in str(m) for m in EnvLogger.mqueue)
    EnvLogger.flush()
    expected = {agent: (-1.0 if agent == offender else 0.0) for agent in env.possible_agents}
    assert env.rewards == expected
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert finish(env) == expected


@pytest.mark.parametrize("action", [NUM_ACTIONS, -1, 100, np.int64(12)])
def test_out_of_range_action_is_an_assertion_error(action):
    """An action outside ``Discrete(12)`` (R14) is an AssertionError and changes nothing."""
    env = make(2)
    env.reset(seed=3, options={"dice": [5]})
    state = neighbor.clone(env.unwrapped.game_state)
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(action)
    assert env.unwrapped.game_state == state
    assert env.unwrapped.actions == [ROLL]
    assert not any(env.terminations.values())
    env.step(END)  # the game goes on
    assert env.agent_selection == "player_1"


def test_raw_env_illegal_action_raises_and_changes_nothing():
    """``raw_env`` rejects every illegal action with a ValueError naming it, leaving the state,
    the rewards, the agent to act and the actions applied unchanged."""
    raw = help_your_neighbor.raw_env(num_players=3, skip_forced=False)
    raw.reset(seed=4)
    rng = np.random.default_rng(4)
    tried = 0
    for _ in range(30):
        obs = raw.observe(raw.agent_selection)
        state = neighbor.clone(raw.game_state)
        snapshot = (raw.agent_selection, dict(raw.rewards), dict(raw.terminations), list(raw.actions))
        for action in np.flatnonzero(obs["action_mask"] == 0).tolist():
            with pytest.raises(ValueError, match=rf"^action {action} \(.*\) is illegal"):
                raw.step(action)
            tried += 1
            assert raw.game_state == state
            assert snapshot == (raw.agent_selection, raw.rewards, raw.terminations, raw.actions)
        raw.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert tried > 100


# --------------------------------------------------------------------------
# 6. Ends of the game: a win (R12) and the turn limit


def test_win_by_own_rolls_rewards_the_winner():
    """R12: player_0 rolls all ten totals in one turn and covers them: +1 to it, -1 to the other."""
    env = make(2)
    env.reset(seed=0, options={"dice": list(TOTALS)})
    steps(env, [ROLL] * 9)
    state = env.unwrapped.game_state
    assert state.over and not state.truncated and state.winners == [0]
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert finish(env) == {"player_0": 1.0, "player_1": -1.0}


def test_win_through_the_privilege_rewards_the_neighbour():
    """R12: player_1 wins on player_0's roll, covering its last marker (11) through the privilege;
    the winner is the seat with all ten covered; the final observations show no phase nor seat to
    act, the last roll and the helper."""
    env = make(2)
    env.reset(seed=0, options={"dice": [12, 11, 12, 2, 3, 4, 5, 6, 8, 9, 10, 11]})
    steps(env, [ROLL, ROLL])  # player_0 covers 11; its next 12 goes to player_1, who takes the turn
    assert env.agent_selection == "player_1"
    steps(env, [ROLL] * 7 + [END])  # player_1 covers 3..10; player_0's forced 11 goes to player_1
    state = env.unwrapped.game_state
    assert state.over and state.winners == [1] and not state.truncated
    assert state.covered[1] == [True] * 10 and state.left == [8, 0]
    assert all(env.terminations.values()) and not any(env.truncations.values())
    check_table(
        env, phase=None, roll=11, current=None, privilege=1, covered={0: [11, 12], 1: TOTALS}, left=[8, 0], turn=2
    )
    check_masks(env)
    assert finish(env) == {"player_0": -1.0, "player_1": 1.0}


@pytest.mark.parametrize("num_players", [2, 5])
def test_max_turns_truncates_as_a_draw(num_players):
    """R12 (as R7): ``max_turns`` bounds the game; a game that reaches it is truncated (not
    terminated) with 0 to every agent, after exactly ``max_turns`` turns, its ``turn`` piece at 1."""
    truncated = 0
    for seed in range(10):
        env = make(num_players, max_turns=4)
        env.reset(seed=seed)
        play(env, np.random.default_rng(seed))
        state = env.unwrapped.game_state
        assert state.turn <= 4
        if state.truncated:
            truncated += 1
            assert state.turn == 4 and state.winners == []
            assert neighbor.returns(state) == [0.0] * num_players
            assert pieces(env, "player_0")["turn"][0] == 1.0
    assert truncated == 10
    env = make(num_players, max_turns=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.unwrapped.game_state.over:
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert finish(env) == dict.fromkeys(env.possible_agents, 0.0)


# --------------------------------------------------------------------------
# 7. Game records


@pytest.mark.parametrize("num_players", [2, 4])
def test_game_record_is_json_and_replays(num_players):
    """The record is JSON-serialisable (a round trip gives it back), mid-game and at the end, and
    ``trash_env.replay`` plays it to ``env.unwrapped.game_state``."""
    env = make(num_players)
    with pytest.raises(RuntimeError):
        env.unwrapped.game_record()
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    for _ in range(3):
        record = env.unwrapped.game_record()
        loaded = json.loads(json.dumps(record))
        assert loaded == record
        assert loaded["game"] == "help_your_neighbor_v0"
        assert loaded["config"] == env.unwrapped.config.to_dict()
        assert loaded["dice"] == []
        assert loaded["actions"] == env.unwrapped.actions
        assert trash_env.replay(loaded) == env.unwrapped.game_state
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    play(env, rng)
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert record["over"] and record["returns"] == neighbor.returns(env.unwrapped.game_state)
    assert trash_env.replay(record) == env.unwrapped.game_state


def test_game_record_keeps_stacked_dice():
    """Stacked dice are part of the record ("dice"); its replay rolls them first, then the seed's."""
    dice = [5, 6, 6, 7, 8, 7, 2]
    env = make(3, max_turns=10)
    env.reset(seed=8, options={"dice": tuple(dice)})
    record = env.unwrapped.game_record()
    assert record["dice"] == dice
    assert trash_env.replay(json.loads(json.dumps(record))) == env.unwrapped.game_state
    play(env, np.random.default_rng(8))
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert record["dice"] == dice
    assert record["rolls"][: len(dice)] == dice
    assert trash_env.replay(record) == env.unwrapped.game_state
    env.reset(seed=8)  # a reset without dice forgets them
    assert env.unwrapped.game_record()["dice"] == []


def test_game_record_of_the_first_move_rule_replays():
    """The first-move rule replays too: nothing applied at reset, three forced rolls after it."""
    env = make(2, max_turns=3)
    env.reset(seed=2, options={"dice": [7, 7, 7]})
    assert env.unwrapped.game_record()["actions"] == []
    assert trash_env.replay(env.unwrapped.game_record()) == env.unwrapped.game_state
    env.step(ROLL)
    record = json.loads(json.dumps(env.unwrapped.game_record()))
    assert record["actions"] == [ROLL] * 3 and record["truncated"]
    assert trash_env.replay(record) == env.unwrapped.game_state


# --------------------------------------------------------------------------
# 8. Random play over many seeded games


@pytest.mark.parametrize(
    ("num_players", "max_turns", "games"),
    [(2, None, 300), (3, None, 300), (5, None, 300), (8, None, 300), (3, 50, 150), (8, 90, 150)],
)
def test_random_play_properties(num_players, max_turns, games):
    """Random legal play: every game ends (terminated xor truncated) within ``max_turns`` turns;
    the acting agent always has a legal action, two or more (R14); markers are consistent (``left``
    is the number uncovered); rewards follow R12 (one +1 and the rest -1 on a win, the winner with
    all ten covered; 0 to all on truncation); the records replay to the final state."""
    env = make(num_players, max_turns=max_turns)
    limit = env.unwrapped.config.max_turns
    rng = np.random.default_rng([num_players, limit])
    endings = {"terminated": 0, "truncated": 0}
    for seed in range(games):
        env.reset(seed=seed)
        state = env.unwrapped.game_state
        for _ in range(MAX_STEPS):
            if state.over:
                break
            agent = env.agent_selection
            assert agent == env.possible_agents[state.current]
            mask = env.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            assert len(legal) >= 2, (seed, state)
            assert legal.tolist() == neighbor.legal_actions(state)
            assert state.left == [sum(not c for c in row) for row in state.covered]
            env.step(int(rng.choice(legal)))
        assert state.over
        assert state.left == [sum(not c for c in row) for row in state.covered]
        assert state.turn <= limit
        terminated, truncated = all(env.terminations.values()), all(env.truncations.values())
        assert terminated != truncated
        assert not any(env.terminations.values()) if truncated else not any(env.truncations.values())
        read = finish(env)
        if truncated:
            endings["truncated"] += 1
            assert state.truncated and state.turn == limit
            assert read == dict.fromkeys(env.possible_agents, 0.0)
        else:
            endings["terminated"] += 1
            winners = [agent for agent, reward in read.items() if reward == 1.0]
            assert len(winners) == 1
            assert sorted(read.values()) == [-1.0] * (num_players - 1) + [1.0]
            winner = env.possible_agents.index(winners[0])
            assert state.winners == [winner] and state.left[winner] == 0 and all(state.covered[winner])
            assert all(state.left[s] > 0 for s in range(num_players) if s != winner)
        assert trash_env.replay(json.loads(json.dumps(env.unwrapped.game_record()))) == state
    if max_turns is None:
        assert endings["terminated"] == games  # random play never comes near the default limit
    else:
        assert endings["terminated"] > 0 and endings["truncated"] > 0


# --------------------------------------------------------------------------
# 9. Reset and constructor validation


@pytest.mark.parametrize("dice", [[1], "x", [13], [5, 0], [5.0], [True], 5, {5}, b"5", [[5]]], ids=repr)
def test_bad_dice_raise_and_leave_the_running_episode_intact(dice):
    """A bad ``dice`` option is a ValueError naming the dice; the running episode, its record and
    the seed sequence are untouched, and play goes on."""
    env, twin = make(3), make(3)
    for e in (env, twin):
        e.reset(seed=1)
        steps(e, [ROLL, ROLL])
    state = neighbor.clone(env.unwrapped.game_state)
    record = env.unwrapped.game_record()
    selection = env.agent_selection
    with pytest.raises(ValueError, match="dice"):
        env.reset(seed=99, options={"dice": dice})
    assert env.unwrapped.game_state == state
    assert env.unwrapped.game_record() == record
    assert env.agent_selection == selection
    play(env, np.random.default_rng(0))
    assert trash_env.replay(env.unwrapped.game_record()) == env.unwrapped.game_state
    env.reset()  # continues the seed sequence of reset(seed=1), as the twin's does
    twin.reset()
    assert env.unwrapped.game_record() == twin.unwrapped.game_record()


def test_zero_dimensional_dice_array_is_a_value_error():
    """``options={"dice": np.array(5)}`` is not a list of totals: a ValueError like any bad dice."""
    env = make(2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="dice"):
        env.reset(options={"dice": np.array(5)})


def test_unknown_reset_options_are_ignored():
    """Options other than "dice" (and ``dice=None``) leave the episode to the seed."""
    records = []
    for options in (None, {}, {"deck": [1, 2]}, {"dice": None}):
        env = make(2)
        env.reset(seed=4, options=options)
        records.append(env.unwrapped.game_record())
    assert all(record == records[0] for record in records)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": -5}, "max_turns"),
        ({"max_turns": 1.5}, "max_turns"),
        ({"colour": "red"}, "colour"),
        ({"layout_size": 5}, "layout_size"),  # a Trash field, unknown to this game
        ({"preset": "pagat"}, "preset"),
        ({"skip_forced": "yes"}, "skip_forced"),
    ],
    ids=str,
)
def test_invalid_configuration_raises_value_error_naming_the_field(overrides, field):
    """R12: 2-8 players, a positive integer turn limit, no unknown field: else a ValueError naming it."""
    with pytest.raises(ValueError, match=re.escape(field)):
        help_your_neighbor_v0.env(**overrides)
    with pytest.raises(ValueError, match=re.escape(field)):
        help_your_neighbor_v0.raw_env(**overrides)


@pytest.mark.parametrize("mode", ["svg", "HUMAN", ""])
def test_invalid_render_mode_raises_value_error(mode):
    with pytest.raises(ValueError, match="render_mode"):
        help_your_neighbor_v0.env(render_mode=mode)


def test_documented_arguments_and_defaults():
    """The documented keyword arguments reach the env; ``max_turns`` defaults to the value the
    docstring states (in Episode End and in Arguments), which is ``neighbor.MAX_TURNS``."""
    env = help_your_neighbor_v0.env(render_mode="ansi", skip_forced=False, num_players=4, max_turns=50)
    raw = env.unwrapped
    assert (raw.render_mode, raw.skip_forced, raw.config.num_players, raw.config.max_turns) == ("ansi", False, 4, 50)
    assert raw.possible_agents == [f"player_{i}" for i in range(4)]
    assert raw.metadata["name"] == "help_your_neighbor_v0"
    defaults = {int(x) for x in re.findall(r"\(default (\d+)[;,)]", DOC)}
    assert len(defaults) == 1, defaults
    assert help_your_neighbor_v0.env().unwrapped.config.max_turns == neighbor.MAX_TURNS == defaults.pop()


# --------------------------------------------------------------------------
# 10. NeighborSingleAgentEnv (HelpYourNeighborSingleAgent-v0)


@pytest.mark.parametrize("num_players", [2, 3, 8])
@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_single_agent_gymnasium_env_checker(num_players, render_mode):
    """Gymnasium's ``check_env`` passes with every warning an error, on the env from ``gym.make``."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gymnasium.make(
            "HelpYourNeighborSingleAgent-v0", render_mode=render_mode, num_players=num_players
        ).unwrapped
        assert isinstance(env, NeighborSingleAgentEnv)
        gymnasium_check_env(env)


@pytest.mark.parametrize("num_players", [2, 3, 8])
def test_single_agent_stable_baselines3_env_checker(num_players):
    """Stable-Baselines3's ``check_env`` passes, with every warning made an error."""
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_checker.check_env(NeighborSingleAgentEnv(num_players=num_players), warn=True)


def test_single_agent_registered_id_and_spaces():
    """``gym.make("HelpYourNeighborSingleAgent-v0", num_players=3)``: ``Discrete(12)`` actions (R14)
    and the 54-entry observation of ``help_your_neighbor_v0`` (15 + 13 n)."""
    assert "HelpYourNeighborSingleAgent-v0" in gymnasium.registry
    env = gymnasium.make("HelpYourNeighborSingleAgent-v0", num_players=3, learner_seat=2)
    assert isinstance(env.unwrapped, NeighborSingleAgentEnv)
    assert env.unwrapped.config == make_config(num_players=3)
    assert env.action_space == gymnasium.spaces.Discrete(12)
    assert env.observation_space.shape == (54,) and env.observation_space.dtype == np.float32
    obs, info = env.reset(seed=0)
    assert info["seat"] == 2 and env.observation_space.contains(obs)
    obs, *_ = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.observation_space.contains(obs)
    with pytest.raises(ValueError, match="layout_size"):
        NeighborSingleAgentEnv(layout_size=3)


class Recorder:
    """An opponent that checks it is asked only at a real choice of its own seat (R14)."""

    def __init__(self, env: NeighborSingleAgentEnv) -> None:
        self.env = env
        self.calls = 0

    def __call__(self, view: SeatView, rng: np.random.Generator) -> int:
        state = self.env.state
        assert view.seat == state.current != self.env.seat
        assert view.legal_actions == neighbor.legal_actions(state)
        assert len(view.legal_actions) >= 2, "an opponent was asked a forced move (R14)"
        np.testing.assert_array_equal(view.observation, self.env.observer.encode(state, view.seat))
        self.calls += 1
        return view.legal_actions[int(rng.integers(len(view.legal_actions)))]


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_single_agent_random_masked_play(num_players):
    """The learner is asked only on its own turn at real choices (R14), ``action_masks()`` (and
    ``info["action_mask"]``) are its legal actions, observations are its seat's; opponents too are
    asked only at real choices; rewards are 0 until the end, then R12 from the learner's seat."""
    env = NeighborSingleAgentEnv(num_players=num_players)
    recorder = Recorder(env)
    env.set_opponents([recorder])
    rng = np.random.default_rng(num_players)
    rewards, seats = [], set()
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        seats.add(env.seat)
        for _ in range(MAX_STEPS):
            mask = env.action_masks()
            assert mask.dtype == bool and info["action_mask"].dtype == np.int8
            np.testing.assert_array_equal(info["action_mask"], mask)
            assert env.state.current == env.seat and not env.state.over
            assert np.flatnonzero(mask).tolist() == neighbor.legal_actions(env.state)
            assert mask.sum() >= 2
            np.testing.assert_array_equal(obs, env.observer.encode(env.state, env.seat))
            assert env.observation_space.contains(obs)
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                break
            assert reward == 0.0
        assert env.state.over and truncated == env.state.truncated and terminated != truncated
        assert not env.action_masks().any()
        assert reward == neighbor.returns(env.state)[env.seat]
        if terminated:
            assert reward == (1.0 if env.state.winners == [env.seat] else -1.0)
        rewards.append(reward)
    assert recorder.calls > 0
    assert seats == set(range(num_players))
    assert {1.0, -1.0} <= set(rewards)


def test_single_agent_illegal_action_ends_the_episode():
    """An action outside the mask ends the episode with ``illegal_reward`` and
    ``info["illegal_action"]``; nothing is applied; a further step is a RuntimeError."""
    env = NeighborSingleAgentEnv(num_players=2, learner_seat=0, illegal_reward=-3.0)
    obs, info = env.reset(seed=0, options={"dice": [5]})
    assert env.action_masks().tolist() == [bool(b) for b in mask_of(ROLL, END)]
    before = neighbor.clone(env.state)
    obs2, reward, terminated, truncated, info = env.step(uncover(5))
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert info["illegal_action"] is True
    assert not info["action_mask"].any() and not env.action_masks().any()
    assert env.state == before
    np.testing.assert_array_equal(obs2, obs)
    with pytest.raises(RuntimeError):
        env.step(ROLL)


def test_single_agent_stacked_dice():
    """``reset(options={"dice": [...]})`` stacks the first rolls: the learner in seat 1 wins on
    seat 0's rolls through the privilege (R12), asked only at its real choices; bad dice raise."""
    env = NeighborSingleAgentEnv(num_players=2, learner_seat=1, opponents=[lambda view, rng: ROLL])
    # Seat 0 covers 12 and 11, its next 12 goes to the learner, who covers 2..10 on its own rolls.
    obs, info = env.reset(seed=0, options={"dice": [12, 11, 12, 2, 3, 4, 5, 6, 8, 9, 10, 11]})
    assert env.state.rolls == [12, 11, 12, 2]
    assert env.observer.view(obs)["roll"].tolist() == one_hot(11, 0)
    assert info["action_mask"].tolist() == [bool(b) for b in mask_of(ROLL, END)]
    for _ in range(7):
        obs, reward, terminated, truncated, info = env.step(ROLL)
        assert (reward, terminated, truncated) == (0.0, False, False)
    obs, reward, terminated, truncated, info = env.step(END)  # seat 0's forced 11 completes the learner
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert env.state.winners == [1]
    assert env.observer.view(obs)["privilege"].tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="dice"):
        env.reset(seed=0, options={"dice": [1]})


@pytest.mark.parametrize("learner_seat", [0, 1])
def test_single_agent_first_move_rule(learner_seat):
    """R14/R13: with the dice all 7 and ``max_turns=3`` the learner never has a choice; its forced
    first roll is asked (mask: roll only) and the episode then ends as a draw (R12)."""
    env = NeighborSingleAgentEnv(num_players=2, learner_seat=learner_seat, max_turns=3)
    _, info = env.reset(seed=0, options={"dice": [7] * 10})
    assert env.state.current == learner_seat and not env.state.over
    assert env.state.rolls == [7] * learner_seat
    assert info["action_mask"].tolist() == [bool(b) for b in mask_of(ROLL)]
    _, reward, terminated, truncated, _ = env.step(ROLL)
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert env.state.truncated and env.state.rolls == [7, 7, 7]
