"""Tests of the Help Your Neighbor agents (R12, R14) and of the tools that run them: the ``heuristic``
baseline (:mod:`agents.heuristic`), the per-game registry, duplicate evaluation, the evaluate
command (``--game help_your_neighbor``) and ``train.py --game help_your_neighbor``.

Rules are cited by their section of the rule book (``RULES.md``): R12 (the dice game: a roller who can use a
total covers it and may roll again; otherwise the *privilege* passes to the first player after the
roller who has the total uncovered; a 7 uncovers a marker of the roller's choice) and R14 (actions:
0 roll, 1 end the turn, 2 + j uncover the marker of the j-th total). Positions are built on the rules
core: :func:`trash_env.neighbor.rules.new_game` with stacked dice, the markers set by hand, then the stacked
roll applied, so the agent is asked in a position the rules themselves reached. Training runs are tiny
(a couple of thousand learner decisions) and check the plumbing, not the strength of the policy.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from helpers.tiny_training import tiny_args as quiet_args

import agents.evaluation.duplicate as evaluation
from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.commands.evaluate import main as evaluate_main
from agents.evaluation.duplicate import play_deals, run_pairings, run_tournament
from agents.evaluation.seatings import agent_generator, deal_plan, game_keys, games_per_deal, play_game
from agents.evaluation.stats import pair_summaries
from agents.heuristic import NeighborHeuristic
from agents.registry import make_agent
from trash_env.games import NEIGHBOR
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.rules import (
    CHOOSE,
    END_TURN,
    MARKER_OF_TOTAL,
    NUM_MARKERS,
    ROLL_DICE,
    TOTALS,
    UNCOVER,
    UNCOVER_0,
    WAYS,
    NeighborState,
    apply_action,
    clone,
    legal_actions,
    make_config,
    new_game,
    returns,
)
from trash_env.trash import config as trash_config
from trash_env.view import SeatView

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_POLICY = ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip"
GAME = "help_your_neighbor"
ENV_NAME = "help_your_neighbor_v0"
ALL = set(TOTALS)


# --------------------------------------------------------------------------
# Helpers


def uncover(total: int) -> int:
    """The action uncovering the marker of ``total`` (R14)."""
    return UNCOVER_0 + MARKER_OF_TOTAL[total]


def set_markers(state: NeighborState, uncovered: dict[int, set[int]]) -> None:
    """Give each listed seat exactly the ``uncovered`` totals (the others stay all uncovered), with
    ``left`` kept consistent."""
    for seat, totals in uncovered.items():
        state.covered[seat] = [total not in totals for total in TOTALS]
        state.left[seat] = len(totals)


def choose_position(num_players: int, seat: int, own: set[int], others: dict[int, set[int]]) -> NeighborState:
    """``seat`` to choose between rolling again and ending the turn (R12), having just covered a marker
    with its roll: afterwards it has exactly ``own`` uncovered, each seat of ``others`` exactly its
    totals (the rest all ten)."""
    assert own and own != ALL
    roll = min(ALL - own)  # uncovered before the roll, covered by it
    state = new_game(make_config(num_players=num_players), dice=[roll])
    set_markers(state, {**others, seat: own | {roll}})
    state.current = seat
    apply_action(state, ROLL_DICE, np.random.default_rng(0))
    assert state.phase == CHOOSE and state.current == seat and state.roller == seat
    assert state.left[seat] == len(own) and state.covered[seat][MARKER_OF_TOTAL[roll]]
    return state


def seven_position(num_players: int, seat: int, covered: set[int]) -> NeighborState:
    """``seat`` has just rolled a 7 with ``covered`` covered and must uncover one (R12)."""
    state = new_game(make_config(num_players=num_players), dice=[7])
    set_markers(state, {seat: ALL - covered})
    state.current = seat
    apply_action(state, ROLL_DICE, np.random.default_rng(0))
    assert state.phase == UNCOVER and state.current == seat
    return state


def view_of(state: NeighborState, seat: int | None = None) -> SeatView:
    seat = state.current if seat is None else seat
    return SeatView(state, seat, NeighborObserver(state.config), NEIGHBOR)


def heuristic_choice(state: NeighborState) -> int:
    view = view_of(state)
    action = NeighborHeuristic().act(view, np.random.default_rng(0))
    assert action in view.legal_actions
    return action


def ways_giving_the_game(state: NeighborState) -> tuple[int, int]:
    """A reference for the heuristic's rule computed with the rules core itself: (ways out of 36 to roll
    a total the roller covers, ways to roll a total that makes an opponent win at once)."""
    seat = state.current
    own = gives = 0
    for total in TOTALS:
        if not state.covered[seat][MARKER_OF_TOTAL[total]]:
            own += WAYS[total]
        trial = clone(state)
        trial.dice = [total]
        apply_action(trial, ROLL_DICE, np.random.default_rng(0))
        if trial.over and trial.winners and trial.winners != [seat]:
            gives += WAYS[total]
    return own, gives


class Checked(Agent):
    """Plays ``agent`` and checks every action is legal (R14); records the positions asked."""

    games = ("trash", "help_your_neighbor")

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.asked: list[tuple[int, int]] = []  # (phase, action)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        action = self.agent.act(view, rng)
        assert action in view.legal_actions, (action, view.legal_actions)
        assert len(view.legal_actions) >= 2  # asked only at a real choice (R14)
        self.asked.append((view.public_state.phase, action))
        return action


def play(config: Any, agents: list[Agent], seed: int) -> Any:
    rngs = [np.random.default_rng([seed, seat, 1]) for seat in range(config.num_players)]
    return play_game(config, agents, np.random.default_rng(seed), rngs)


# --------------------------------------------------------------------------
# 1. The heuristic's documented rules


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_heuristic_rolls_again_early(num_players: int) -> None:
    """R12: having covered a marker with the first roll of the game, the heuristic rolls again."""
    state = new_game(make_config(num_players=num_players), dice=[6])
    apply_action(state, ROLL_DICE, np.random.default_rng(0))
    assert state.phase == CHOOSE and state.left[0] == NUM_MARKERS - 1
    assert heuristic_choice(state) == ROLL_DICE


def test_heuristic_rolls_on_with_few_chances_when_nobody_is_about_to_win() -> None:
    """Rolling again is the default: with only the 2 left (1 way in 36) but no opponent one marker from
    winning, it still rolls."""
    state = choose_position(3, 0, {2}, {1: {3, 4}, 2: {5, 9, 10}})
    assert heuristic_choice(state) == ROLL_DICE


@pytest.mark.parametrize(
    ("num_players", "seat", "own", "others", "expected"),
    [
        # 2 players: the opponent's last marker is the 8 (5 ways), covered by the roller.
        (2, 0, {2}, {1: {8}}, END_TURN),  # 1 < 5
        (2, 0, {6}, {1: {8}}, ROLL_DICE),  # 5 >= 5: a tie rolls
        (2, 0, {2, 12}, {1: {3}}, ROLL_DICE),  # 2 >= 2
        (2, 0, {2}, {1: {3}}, END_TURN),  # 1 < 2
        (2, 1, {12}, {0: {10}}, END_TURN),  # the roller in seat 1: 1 < 3
        (2, 0, {2}, {1: {3, 8}}, ROLL_DICE),  # two markers left: nothing gives the game
        # 3 players, roller 0: seat 1 is first to get the privilege, then seat 2.
        (3, 0, {2}, {1: {8}}, END_TURN),
        (3, 0, {2}, {2: {8}}, ROLL_DICE),  # seat 1 has the 8 uncovered: the privilege stops there
        (3, 0, {2}, {1: ALL - {8}, 2: {8}}, END_TURN),  # seat 1 has the 8 covered: it reaches seat 2
        # Both opponents one marker from winning: their ways add up (seat 1: 3 = 2 ways, seat 2: 4 = 3 ways).
        (3, 0, {5}, {1: {3}}, ROLL_DICE),  # 4 >= 2
        (3, 0, {5}, {1: {3}, 2: {4}}, END_TURN),  # 4 < 5
        (3, 0, {6}, {1: {3}, 2: {4}}, ROLL_DICE),  # 5 >= 5
        # Around the table: roller 1, then seat 2, then seat 0.
        (3, 1, {2}, {0: {8}}, ROLL_DICE),  # seat 2 has the 8 uncovered
        (3, 1, {2}, {0: {8}, 2: ALL - {8}}, END_TURN),
        (3, 2, {2}, {0: {8}}, END_TURN),  # roller 2: seat 0 comes first
        (3, 2, {2}, {1: {8}}, ROLL_DICE),  # ... and has the 8 uncovered
    ],
)
def test_heuristic_ends_the_turn_only_when_rolling_more_likely_gives_an_opponent_the_game(
    num_players: int, seat: int, own: set[int], others: dict[int, set[int]], expected: int
) -> None:
    """The documented rule: roll again iff ways(own uncovered totals) >= ways(totals that would give an
    opponent their last marker through the privilege, R12). Only the first player after the roller
    with the total uncovered gets it, so an opponent one marker from winning counts only for totals
    nobody before them in turn order can use."""
    state = choose_position(num_players, seat, own, others)
    own_ways, gives = ways_giving_the_game(state)
    assert (own_ways >= gives) == (expected == ROLL_DICE)  # the position tests what it says
    assert NeighborHeuristic.rolls_again(state, seat) == (expected == ROLL_DICE)
    assert heuristic_choice(state) == expected


@pytest.mark.parametrize(
    ("num_players", "seat", "covered", "expected"),
    [
        (2, 0, {2, 6, 8, 12}, 8),  # 6 and 8: 5 ways each, the higher wins the tie
        (2, 0, {2, 6, 12}, 6),
        (2, 1, {3, 4, 10, 11}, 10),  # 4 and 10: 3 ways each
        (3, 1, {2, 12}, 12),  # 1 way each
        (3, 2, {3, 5, 9, 11}, 9),
        (5, 4, {2, 3, 4, 5}, 5),
        (2, 0, ALL - {8}, 6),  # everything but the 8 covered
        (2, 0, ALL - {2}, 8),
    ],
)
def test_heuristic_uncovers_the_most_likely_total_after_a_seven(
    num_players: int, seat: int, covered: set[int], expected: int
) -> None:
    """R12: after a 7 the heuristic uncovers the covered marker with the most ways to be rolled
    (6 or 8: 5 in 36), ties to the higher total."""
    state = seven_position(num_players, seat, covered)
    assert legal_actions(state) == sorted(uncover(total) for total in covered)
    assert heuristic_choice(state) == uncover(expected)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_heuristic_follows_its_rule_in_played_games(num_players: int) -> None:
    """In whole games against random, at every roll-or-end choice the heuristic rolls again exactly
    when the ways to cover an own marker are at least the ways to hand an opponent the game (computed
    here by trying every total on the rules core); the rule does end some turns."""
    config = make_config(num_players=num_players)
    decisions = {ROLL_DICE: 0, END_TURN: 0}

    class Audited(Agent):
        games = ("help_your_neighbor",)

        def act(self, view: SeatView, rng: np.random.Generator) -> int:
            action = NeighborHeuristic().act(view, rng)
            state = view.public_state
            if state.phase == CHOOSE:
                own, gives = ways_giving_the_game(state)
                assert action == (ROLL_DICE if own >= gives else END_TURN), (state, own, gives)
                decisions[action] += 1
            return action

    for seed in range(40):
        agents = [Audited() if seat % 2 == seed % 2 else RandomAgent() for seat in range(num_players)]
        play(config, agents, seed)
    assert decisions[ROLL_DICE] > 500
    assert decisions[END_TURN] >= 1


# --------------------------------------------------------------------------
# 2. Legal actions at every table size


@pytest.mark.parametrize("num_players", [2, 3, 5, 8])
@pytest.mark.parametrize("lineup_specs", [("random", "random"), ("heuristic", "heuristic"), ("heuristic", "random")])
def test_baselines_play_only_legal_actions(num_players: int, lineup_specs: tuple[str, str]) -> None:
    """R14: both baselines return a legal action at every real choice, in games of 2 to 8 players; the
    games end with one winner (+1) and -1 for everyone else (R12), and both kinds of choice come up."""
    config = make_config(num_players=num_players)
    phases: set[int] = set()
    for seed in range(8):
        agents = [Checked(make_agent(lineup_specs[seat % 2], GAME)) for seat in range(num_players)]
        state = play(config, agents, seed)
        assert state.over and not state.truncated
        rewards = returns(state)
        assert sorted(rewards) == [-1.0] * (num_players - 1) + [1.0]
        assert state.left[state.winners[0]] == 0
        phases |= {phase for agent in agents for phase, _ in agent.asked}
    assert phases == {CHOOSE, UNCOVER}


# --------------------------------------------------------------------------
# 3. Heuristic beats random


@pytest.mark.parametrize(("num_players", "deals", "min_mean"), [(2, 600, 0.5), (3, 200, 0.4), (4, 200, 0.2)])
def test_heuristic_beats_random(num_players: int, deals: int, min_mean: float) -> None:
    """On duplicate deals (every rotation of the lineup on the same dice), the heuristic's score
    difference against random, per deal, has a 95% interval entirely above 0. Measured (seeds 0-2):
    2 players +0.78..+0.94, lower bounds +0.66..+0.82 (600 deals); 3 players (both alternations of
    the pair) +0.52..+0.57, lower bounds +0.42..+0.48; 4 players +0.41..+0.47, lower bounds
    +0.34..+0.40 (200 deals)."""
    results = run_tournament(make_config(num_players=num_players), ["random", "heuristic"], deals=deals, seed=0)
    assert len(results) == deals * games_per_deal(("random", "heuristic"), num_players)
    (pair,) = pair_summaries(results)
    assert (pair.first, pair.second, pair.deals) == ("random", "heuristic", deals)
    heuristic_low = -pair.score_difference.high  # the heuristic's difference is random's, negated
    assert heuristic_low > 0
    assert -pair.score_difference.mean > min_mean
    assert pair.second_win_rate > pair.first_win_rate


# --------------------------------------------------------------------------
# 4. Each game its own agents


@pytest.mark.parametrize(
    ("spec", "game", "baselines"),
    [
        ("greedy", GAME, "['heuristic', 'optimal', 'random', 'roller']"),
        ("counter", ENV_NAME, "['heuristic', 'optimal', 'random', 'roller']"),
        ("search:samples=2", GAME, "['heuristic', 'optimal', 'random', 'roller']"),
        ("heuristic", "trash", "['counter', 'greedy', 'random', 'search']"),
    ],
)
def test_make_agent_refuses_another_games_baseline(spec: str, game: str, baselines: str) -> None:
    """Each game has its own baselines: asking one game for the other's is a ValueError that lists the
    baselines of the game asked."""
    with pytest.raises(ValueError, match="unknown agent") as error:
        make_agent(spec, game=game)
    assert baselines in str(error.value)


def test_make_agent_by_game() -> None:
    """``heuristic`` and ``random`` for Help Your Neighbor (by short or env name); trash is the default."""
    assert isinstance(make_agent("heuristic", game=GAME), NeighborHeuristic)
    assert isinstance(make_agent("heuristic", game=ENV_NAME), NeighborHeuristic)
    assert isinstance(make_agent("random", game=GAME), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("random", game="yahtzee")


@pytest.mark.parametrize("agent", [GreedyAgent(), CountingAgent(), make_agent("search:samples=2")])
def test_trash_agents_refuse_a_neighbor_config(agent: Agent) -> None:
    with pytest.raises(ValueError, match="plays trash, not help_your_neighbor"):
        agent.check_config(make_config())


def test_heuristic_refuses_a_trash_config() -> None:
    heuristic = NeighborHeuristic()
    heuristic.check_config(make_config(num_players=8))
    with pytest.raises(ValueError, match="plays help_your_neighbor, not trash"):
        heuristic.check_config(trash_config.make_config("standard"))


def test_random_plays_both_games() -> None:
    """RandomAgent is the floor of both ladders: it accepts both configurations and plays legal actions
    in each."""
    random = RandomAgent()
    for config in (make_config(num_players=3), trash_config.make_config("standard", num_players=3)):
        random.check_config(config)
        agents = [Checked(random) for _ in range(3)]
        state = play(config, agents, seed=1)
        assert state.over
        assert sum(len(agent.asked) for agent in agents) > 0


def test_evaluation_refuses_a_trash_agent_before_any_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Evaluating greedy on a Help Your Neighbor configuration (or the heuristic on a Trash one) is a
    ValueError raised before the first game, whether the agent is named or given prebuilt."""
    games: list[Any] = []
    monkeypatch.setattr(evaluation, "play_game", lambda *args, **kwargs: games.append(args))
    config = make_config()
    with pytest.raises(ValueError, match="greedy"):
        run_tournament(config, ["greedy", "random"], deals=4)
    with pytest.raises(ValueError, match="plays trash, not help_your_neighbor"):
        run_pairings(config, [("mine", "random")], deals=4, prebuilt={"mine": GreedyAgent()})
    with pytest.raises(ValueError, match="unknown agent 'heuristic' for trash"):
        run_tournament(trash_config.make_config("standard"), ["heuristic", "random"], deals=4)
    with pytest.raises(ValueError, match="plays help_your_neighbor, not trash"):
        run_pairings(
            trash_config.make_config("standard"), [("h", "random")], deals=4, prebuilt={"h": NeighborHeuristic()}
        )
    assert games == []


# --------------------------------------------------------------------------
# 5. Duplicate evaluation


@pytest.mark.parametrize(("num_players", "deals"), [(2, 40), (3, 30)])
def test_one_worker_and_two_give_the_same_games(num_players: int, deals: int) -> None:
    """Every roll comes from (seed, deal): one process and two give the same games, field by field;
    another seed gives other games."""
    config = make_config(num_players=num_players)
    one = run_tournament(config, ["random", "heuristic"], deals, seed=3, workers=1)
    two = run_tournament(config, ["random", "heuristic"], deals, seed=3, workers=2)
    assert len(one) == deals * games_per_deal(("random", "heuristic"), num_players)
    assert one == two
    assert run_tournament(config, ["random", "heuristic"], deals, seed=4, workers=1) != one


def record_rolls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Replace ``play_game`` in the evaluation module by one that records each game's rolls (R12) and
    final state."""
    calls: list[dict[str, Any]] = []
    real = evaluation.play_game

    def recording(config, agents, rng, agent_rngs, deal=None, observer=None):
        state = real(config, agents, rng, agent_rngs, deal, observer)
        calls.append({"rolls": list(state.rolls), "state": state, "agents": [a.name for a in agents]})
        return state

    monkeypatch.setattr(evaluation, "play_game", recording)
    return calls


def common_prefix(a: list[int], b: list[int]) -> int:
    length = 0
    for x, y in zip(a, b):
        if x != y:
            break
        length += 1
    return length


@pytest.mark.parametrize("num_players", [2, 3])
def test_duplicate_deals_share_the_dice_across_rotations(monkeypatch: pytest.MonkeyPatch, num_players: int) -> None:
    """A duplicate deal fixes the dice: every rotation of the lineup on a deal sees the same sequence of
    totals, whoever rolls them, so of two rotations' games the shorter's rolls begin the longer's;
    different deals roll differently. The results are those of the games played (R12 rewards)."""
    calls = record_rolls(monkeypatch)
    plan = deal_plan(("heuristic", "random"), num_players)
    n = len(plan)  # games a deal: every seating of the pair
    results = play_deals(make_config(num_players=num_players), ("heuristic", "random"), range(5), 11, duplicate=True)
    assert len(calls) == len(results) == 5 * n
    for call, game in zip(calls, results):
        assert call["agents"] == list(game.seats) == list(plan[game.rotation].seats)
        assert game.rewards == tuple(returns(call["state"])) and game.turns == call["state"].turn
    for deal in range(5):
        games = calls[deal * n : (deal + 1) * n]
        rotation_0, rotation_1 = games[0]["rolls"], games[1]["rolls"]
        assert rotation_0[:10] == rotation_1[:10]  # the first rolls of rotations 0 and 1
        for game in games[1:]:
            shared = common_prefix(games[0]["rolls"], game["rolls"])
            assert shared == min(len(games[0]["rolls"]), len(game["rolls"]))
    firsts = {tuple(calls[deal * n]["rolls"][:10]) for deal in range(5)}
    assert len(firsts) == 5


def test_independent_deals_roll_new_dice_for_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = record_rolls(monkeypatch)
    play_deals(make_config(num_players=3), ("heuristic", "random"), range(4), seed=11, duplicate=False)
    assert len({tuple(call["rolls"][:10]) for call in calls}) == 24  # 4 deals x 6 seatings


def test_duplicate_games_replay_from_the_deal_seed() -> None:
    """A deal's dice are the generator seeded with (seed, deal), each seat's draws the keyed stream
    of (seed, deal, seat): replaying rotations 0 and 1 of a deal with play_game from them gives the
    evaluation's games, and with any agents the same totals are rolled first."""
    config = make_config(num_players=2)
    seed, deal = 5, 2
    (game_0, game_1) = play_deals(config, ("heuristic", "random"), [deal], seed=seed, duplicate=True)
    rolls = []
    for game in (game_0, game_1):
        agents = [make_agent(spec, GAME) for spec in game.seats]
        seating = deal_plan(("heuristic", "random"), 2)[game.rotation]
        agent_rngs = [agent_generator(key) for key in game_keys(seed, deal, seating, duplicate=True)]
        state = play_game(config, agents, np.random.default_rng([seed, deal]), agent_rngs)
        assert (tuple(returns(state)), state.turn) == (game.rewards, game.turns)
        rolls.append(state.rolls)
    shared = common_prefix(*rolls)
    assert shared == min(map(len, rolls)) and shared >= 5


# --------------------------------------------------------------------------
# 6. The evaluate command


def test_evaluate_cli_plays_help_your_neighbor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "out" / "hyn.json"
    code = evaluate_main(["random", "heuristic", "--game", GAME, "--deals", "50", "--quiet", "--json", str(path)])
    assert code == 0
    data = json.loads(path.read_text())
    settings = data["settings"]
    assert settings["game"] == ENV_NAME
    assert settings["agents"] == ["random", "heuristic"]
    assert settings["config"]["num_players"] == 2 and set(settings["config"]) == {"num_players", "max_turns"}
    assert settings["games"] == 100
    (pair,) = data["pairs"]
    assert (pair["first"], pair["second"], pair["deals"]) == ("random", "heuristic", 50)
    assert pair["score_difference"]["mean"] < 0  # random is behind
    assert "Help Your Neighbor, 2 players" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--match"], "--match"),
        (["--preset", "pagat"], "pagat"),
        (["--num-players", "9"], "num_players"),
        (["--override", "layout_size=5"], "layout_size"),
    ],
)
def test_evaluate_cli_refuses_trash_options_for_help_your_neighbor(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evaluate_main(["random", "heuristic", "--game", GAME, "--deals", "2", "--quiet", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("trash-evaluate: error:") and message in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["greedy", "random", "--game", GAME], "baselines are ['heuristic', 'optimal', 'random', 'roller']"),
        (["heuristic", "random"], "baselines are ['counter', 'greedy', 'random', 'search']"),
        ([str(SHIPPED_POLICY), "random", "--game", GAME], "trained for trash_v0, not help_your_neighbor_v0"),
    ],
)
def test_evaluate_cli_refuses_another_games_agents(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if str(SHIPPED_POLICY) in argv:
        pytest.importorskip("sb3_contrib")
    assert evaluate_main([*argv, "--deals", "2", "--quiet"]) == 2
    assert message in capsys.readouterr().err


# --------------------------------------------------------------------------
# 7. Training


def tiny_args(train: ModuleType, out_dir: Path, **fields: Any) -> Any:
    """``train.Args`` for a tiny in-process run of Help Your Neighbor: 2 environments, no TensorBoard,
    minimal evaluation, default opponents and evaluation baselines."""
    settings: dict[str, Any] = {
        "game": GAME,
        "n_steps": 256,
        "batch_size": 128,
        "total_timesteps": 2048,
        "eval_every": 1024,
        "eval_deals": 4,
        "eval_baselines": [],  # the game's defaults
        "final_eval_deals": 6,
    }
    return quiet_args(train, out_dir, **{**settings, **fields})


@pytest.fixture(scope="module")
def trained(
    train: ModuleType, one_torch_thread: None, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Any, Any, Path]:
    """A tiny MaskablePPO run of ``train.py --game help_your_neighbor`` (2,048 decisions): its
    arguments, what ``train.train`` returns, and the run folder it was asked to write."""
    out_dir = tmp_path_factory.mktemp("hyn_run")
    args = tiny_args(train, out_dir)
    return args, train.train(args), out_dir / "run"


def test_train_runs_help_your_neighbor_with_its_own_baselines(trained: tuple[Any, Any, Path]) -> None:
    """The run trains, resolves the game's default opponents and evaluation baselines (random and
    heuristic), evaluates against both, and saves a policy whose metadata names the game."""
    args, result, run_dir = trained
    assert args.opponents == ["random", "heuristic"]
    assert args.eval_baselines == ["random", "heuristic"]
    assert result.timesteps >= 2048
    assert result.history[0]["timesteps"] == 0
    assert all(set(row) == {"timesteps", "random", "heuristic"} for row in result.history)
    assert result.run_dir == run_dir and result.policy == run_dir / "policy.zip"
    assert [pair["second"] for pair in result.summary["pairs"]] == ["random", "heuristic"]
    metadata = make_agent(str(result.policy), game=GAME).metadata
    assert metadata["game"] == ENV_NAME
    assert metadata["algorithm"] == "MaskablePPO"
    assert metadata["config"] == make_config().to_dict()
    assert metadata["observation_size"] == NeighborObserver(make_config()).size
    final = json.loads((run_dir / "final_eval.json").read_text())
    assert [(pair["second"], pair["deals"]) for pair in final["pairs"]] == [("random", 6), ("heuristic", 6)]
    assert {"args.json", "policy.zip", "final_eval.json", "eval_history.json", "learning_curve.png"} <= {
        path.name for path in run_dir.iterdir()
    }
    assert json.loads((run_dir / "args.json").read_text())["game"] == GAME


def test_trained_policy_plays_help_your_neighbor_legally(trained: tuple[Any, Any, Path]) -> None:
    """Loaded by path for Help Your Neighbor, the policy accepts its configuration and, in both seats
    against the heuristic, only returns legal actions (R14)."""
    agent = make_agent(str(trained[1].policy), game=GAME)
    config = make_config()
    agent.check_config(config)
    checked = Checked(agent)
    heuristic = NeighborHeuristic()
    for seed in range(12):
        seats = [checked, heuristic] if seed % 2 == 0 else [heuristic, checked]
        assert play(config, seats, seed).over
    assert len(checked.asked) > 24
    with pytest.raises(ValueError, match="num_players"):
        agent.check_config(make_config(num_players=3))


def test_trained_policy_refuses_trash(trained: tuple[Any, Any, Path]) -> None:
    """A Help Your Neighbor policy loads (by path, for either game) but refuses a Trash configuration,
    and a Trash evaluation with it fails before any game."""
    spec = str(trained[1].policy)
    agent = make_agent(spec)  # the trash registry also loads policy files
    with pytest.raises(ValueError, match="trained for help_your_neighbor_v0, not trash_v0"):
        agent.check_config(trash_config.make_config("standard"))
    with pytest.raises(ValueError, match="trained for help_your_neighbor_v0"):
        run_tournament(trash_config.make_config("standard"), [spec, "greedy"], deals=2)


def test_shipped_trash_policy_refuses_help_your_neighbor(one_torch_thread: None) -> None:
    pytest.importorskip("sb3_contrib")
    agent = make_agent(str(SHIPPED_POLICY), game=GAME)
    agent.check_config(trash_config.make_config("standard"))
    with pytest.raises(ValueError, match="trained for trash_v0, not help_your_neighbor_v0"):
        agent.check_config(make_config())
    with pytest.raises(ValueError, match="trained for trash_v0"):
        run_tournament(make_config(), [str(SHIPPED_POLICY), "random"], deals=2)


def test_train_refuses_match_for_help_your_neighbor(train: ModuleType, tmp_path: Path) -> None:
    """``--match`` has no meaning in the dice game: a ValueError before the run writes anything."""
    with pytest.raises(ValueError, match="--match"):
        train.train(tiny_args(train, tmp_path, match=True))
    assert list(tmp_path.iterdir()) == []


def test_train_refuses_a_trash_preset_or_opponent_for_help_your_neighbor(train: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="pagat"):
        train.train(tiny_args(train, tmp_path, preset="pagat"))
    with pytest.raises(ValueError, match="baselines are"):
        train.train(tiny_args(train, tmp_path, opponents=["greedy"]))
