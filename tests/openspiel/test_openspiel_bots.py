"""OpenSpiel's bots as agents (:mod:`agents.openspiel_bots`) and the reduced Trash for tabular CFR
(``python_trash(preset=tiny)`` and ``preset=micro``, :data:`trash_env.openspiel.REDUCED_PRESETS`).

The agents play legal moves through the duplicate-deal evaluation, ``openspiel_mcts`` searches the
tree OpenSpiel's MCTS searches from the same position of Help Your Neighbor (R12),
``openspiel_ismcts`` beats ``random`` at Trash and never peeks: it decides the same
when the hidden cards of Trash (R2) are arranged otherwise, consistently with what its seat sees
(R15), where a bot given the true state does not. The reduced games are the core's game with their
chance nodes moved to the moment a card turns face up: the same values as the core's games, OpenSpiel's
own checks, CFR's exploitability falling, and the baselines' exact exploitability.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, expected_game_score, exploitability, mcts  # noqa: E402

from agents.base import SeatView  # noqa: E402
from agents.evaluation.duplicate import run_pairings  # noqa: E402
from agents.evaluation.seatings import play_game  # noqa: E402
from agents.evaluation.stats import pair_summaries  # noqa: E402
from agents.openspiel_bots import AgentPolicy, OpenSpielISMCTS, OpenSpielMCTS, openspiel_game  # noqa: E402
from agents.registry import make_agent  # noqa: E402
from trash_env import openspiel as osp  # noqa: E402
from trash_env.games import NEIGHBOR  # noqa: E402
from trash_env.neighbor import rules as neighbor  # noqa: E402
from trash_env.neighbor.observation import NeighborObserver  # noqa: E402
from trash_env.trash import rules as trash  # noqa: E402
from trash_env.trash.belief import sample_hidden_state  # noqa: E402
from trash_env.trash.config import make_config  # noqa: E402
from trash_env.trash.observation import TrashObserver  # noqa: E402

NEIGHBOR_2P = neighbor.make_config(num_players=2)


def reduced(preset: str = "micro"):
    return pyspiel.load_game(osp.TRASH_NAME, {"preset": preset})


def trash_positions(count: int, seed: int = 0) -> list[trash.TrashState]:
    """Tables of the standard two-player Trash at real choices (R13), from random play."""
    config, rng = make_config(), np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = trash.new_game(config, rng)
        while not state.over and len(found) < count:
            trash.play_forced(state, rng)
            if state.over:
                break
            if rng.random() < 0.2:
                found.append(trash.clone(state))
            legal = trash.legal_actions(state)
            trash.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
    return found


# --------------------------------------------------------------------------
# The agents in the evaluation


def test_openspiel_mcts_plays_legal_moves_on_duplicate_deals() -> None:
    agent = make_agent("openspiel_mcts:simulations=2", "help_your_neighbor")
    assert isinstance(agent, OpenSpielMCTS) and agent.simulations == 2 and agent.spec == agent.name
    results = run_pairings(NEIGHBOR_2P, [(agent.spec, "random")], 1, prebuilt={agent.spec: agent})
    assert len(results) == 2  # one deal, both seats; an illegal action would have raised
    assert all(sorted(r.rewards) in ([-1.0, 1.0], [0.0, 0.0]) for r in results)


def test_openspiel_ismcts_plays_legal_moves_on_duplicate_deals() -> None:
    agent = make_agent("openspiel_ismcts:simulations=4,rollouts=1,uct_c=2,seed=3", "trash")
    assert isinstance(agent, OpenSpielISMCTS) and (agent.simulations, agent.seed, agent.uct_c) == (4, 3, 2.0)
    results = run_pairings(make_config(), [(agent.spec, "greedy")], 2, prebuilt={agent.spec: agent})
    assert len(results) == 4 and {r.seats for r in results} == {(agent.spec, "greedy"), ("greedy", agent.spec)}


def test_openspiel_mcts_decides_for_any_player_count() -> None:
    """Three players: the bot is OpenSpiel's max^n MCTS; it returns a legal action from any seat."""
    config = neighbor.make_config(num_players=3)
    state, rng = neighbor.new_game(config, [8, 8, 6]), np.random.default_rng(0)
    neighbor.play_forced(state, rng)  # seat 0 rolls an 8 and covers it, then chooses (R12)
    view = SeatView(state, state.current, NeighborObserver(config), NEIGHBOR)
    assert OpenSpielMCTS(simulations=3).act(view, rng) in view.legal_actions


def test_a_seeded_bot_decides_the_same_twice() -> None:
    table = trash_positions(1, seed=5)[0]
    view = SeatView(table, table.current, TrashObserver(table.config))
    bot = OpenSpielISMCTS(simulations=8)
    assert bot.act(view, np.random.default_rng(1)) == bot.act(view, np.random.default_rng(1))


def test_openspiel_mcts_searches_the_state_openspiel_would() -> None:
    """The agent's search is OpenSpiel's own from the same position: a game of
    python_help_your_neighbor played to a choice, and the agent asked at the core table it holds,
    decide the same with the same random numbers (R12, R14)."""
    game = openspiel_game(NEIGHBOR_2P)
    state, rng = game.new_initial_state(), np.random.default_rng(4)
    for _ in range(30):  # forced moves and dice, then random choices, until a choice is to be made
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0])
    table = state.game_state
    view = SeatView(table, table.current, NeighborObserver(NEIGHBOR_2P), NEIGHBOR)

    def search(start) -> list[tuple[int, int, float]]:
        random_state = np.random.RandomState(3)
        bot = mcts.MCTSBot(game, 2.0, 24, mcts.RandomRolloutEvaluator(1, random_state), random_state=random_state)
        return [(c.action, c.explore_count, c.total_reward) for c in bot.mcts_search(start).children]

    assert search(state) == search(game.state_at(view.public_state))  # the same tree, visit for visit
    agent = OpenSpielMCTS(simulations=24, seed=5)
    random_state = agent.random_state(np.random.default_rng(11))
    evaluator = mcts.RandomRolloutEvaluator(1, random_state)
    direct = mcts.MCTSBot(game, 2.0, 24, evaluator, random_state=random_state).step(state)
    assert agent.act(view, np.random.default_rng(11)) == direct


@pytest.mark.slow
def test_openspiel_ismcts_beats_random_at_trash() -> None:
    """Measured (benchmarks/openspiel_bots.py, docs/openspiel_bots.json): at 10 simulations
    +0.78 per deal against random over 50 deals, 95% interval [+0.52, +1.05]; here 10 other
    deals, asking only for a positive difference."""
    spec = "openspiel_ismcts:simulations=10"
    results = run_pairings(make_config(), [(spec, "random")], 10, seed=3)
    assert pair_summaries(results)[0].score_difference.mean > 0.0


# --------------------------------------------------------------------------
# ISMCTS does not peek


def permuted(table: trash.TrashState, seed: int) -> trash.TrashState:
    """The table with its hidden cards arranged otherwise, consistently with everything public."""
    other = sample_hidden_state(table, np.random.default_rng(seed))
    assert TrashObserver(table.config).encode(other, table.current).tolist() == (
        TrashObserver(table.config).encode(table, table.current).tolist()
    )
    return other


def test_openspiel_ismcts_decides_the_same_whatever_the_hidden_cards() -> None:
    observer = TrashObserver(make_config())
    bot = OpenSpielISMCTS(simulations=12)
    tables = trash_positions(12, seed=1)
    moved = 0
    for number, table in enumerate(tables):
        other = permuted(table, number)
        moved += other.hidden_cards() != table.hidden_cards()
        actions = [
            bot.act(SeatView(t, t.current, observer), np.random.default_rng([number, 9])) for t in (table, other)
        ]
        assert actions[0] == actions[1] and actions[0] in trash.legal_actions(table), number
    assert moved == len(tables)  # the hidden cards did change, every time


def test_the_no_peeking_check_catches_a_bot_that_peeks() -> None:
    """The same check on OpenSpiel's MCTS given the true table (hidden cards and all): a bot that
    peeks decides otherwise when the hidden cards move, so the check above can fail."""
    game = openspiel_game(make_config())
    differs = 0
    for number, table in enumerate(trash_positions(10, seed=2)):
        actions = []
        for t in (table, permuted(table, number)):
            random_state = np.random.RandomState(number)
            bot = mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(1, random_state), random_state=random_state)
            actions.append(bot.step(game.state_at(t)))
        differs += actions[0] != actions[1]
    assert differs > 0


# --------------------------------------------------------------------------
# The registry


@pytest.mark.parametrize(
    ("spec", "game", "message"),
    [
        ("openspiel_mcts", "trash", "agent 'openspiel_mcts' plays help_your_neighbor, not trash"),
        ("openspiel_ismcts", "help_your_neighbor", "agent 'openspiel_ismcts' plays trash, not help_your_neighbor"),
        ("openspiel_mcts:simulations=0", "help_your_neighbor", "openspiel_mcts simulations must be a positive"),
        ("openspiel_ismcts:rollouts=-1", "trash", "openspiel_ismcts rollouts must be a positive integer, got -1"),
        ("openspiel_mcts:uct_c=1.5", "help_your_neighbor", "must be key=integer"),
        ("openspiel_ismcts:seed=-2", "trash", "openspiel_ismcts seed must be an integer 0 or more, got -2"),
        ("openspiel_ismcts:depth=3", "trash", "agent 'openspiel_ismcts:depth=3': "),
    ],
)
def test_bad_specs_are_one_line(spec: str, game: str, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        make_agent(spec, game)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_without_openspiel_the_refusal_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import agents

    monkeypatch.setitem(sys.modules, "agents.openspiel_bots", None)  # import fails as without pyspiel
    monkeypatch.delattr(agents, "openspiel_bots", raising=False)
    with pytest.raises(
        ValueError, match=r"^agent 'openspiel_mcts' needs the openspiel extra: pip install 'trash-rl\[openspiel\]'$"
    ):
        make_agent("openspiel_mcts", "help_your_neighbor")


def test_a_configuration_no_openspiel_game_plays_is_refused() -> None:
    with pytest.raises(ValueError, match="python_trash plays the presets of R11"):
        OpenSpielISMCTS().check_config(make_config(max_turns=50))
    with pytest.raises(ValueError, match="python_help_your_neighbor plays R12's turn limit only"):
        OpenSpielMCTS().check_config(neighbor.make_config(num_players=2, max_turns=30))
    OpenSpielISMCTS().check_config(make_config("pagat", num_players=3))  # any preset, players, match


# --------------------------------------------------------------------------
# The reduced Trash


def test_the_reduced_games_are_small_zero_sum_games_of_the_core() -> None:
    for preset, layout in (("tiny", 2), ("micro", 1)):
        game = reduced(preset)
        assert str(game) == f"python_trash(match=False,players=2,preset={preset})"
        assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM and game.utility_sum() == 0.0
        assert game.config == make_config(layout_size=layout, final_turn=False, max_turns=2)
    assert reduced().max_chance_nodes_in_history() == reduced().max_game_length()
    assert pyspiel.load_game("python_trash(preset=tiny,players=3)").get_type().utility == (
        pyspiel.GameType.Utility.GENERAL_SUM
    )


@pytest.mark.parametrize("name", ["python_trash(preset=tiny)", "python_trash(preset=micro,players=3,match=True)"])
def test_openspiel_checks_the_reduced_games(name: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=20, serialize=True, verbose=False)


def test_a_card_is_drawn_when_it_turns_face_up() -> None:
    """R4: the first draw waits for its card, any of the 52 (4 of each rank); R5: the Ace placed in
    its face-down slot turns up a card, any of the 51 left (R15's unaccounted cards)."""
    state = reduced("tiny").new_initial_state()
    assert not state.is_chance_node() and state.legal_actions() == [trash.DRAW_STOCK]
    state.apply_action(trash.DRAW_STOCK)
    assert state.is_chance_node() and state.chance_kind == osp.REVEAL
    assert state.chance_outcomes() == [(rank, 4 / 52) for rank in range(1, 14)]
    state.apply_action(1)  # an Ace
    assert state.game_state.held == 1 and state.legal_actions() == [trash.PLACE_SLOT_0]
    state.apply_action(trash.PLACE_SLOT_0)
    assert dict(state.chance_outcomes()) == {rank: (3 if rank == 1 else 4) / 51 for rank in range(1, 14)}
    state.apply_action(2)  # a Two turns up, and must go on its slot, completing the layout
    assert state.game_state.held == 2 and state.legal_actions() == [trash.PLACE_SLOT_0 + 1]
    state.apply_action(trash.PLACE_SLOT_0 + 1)
    state.apply_action(13)  # the last face-down card is a King: the layout is complete (R5)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]  # no final round (R8)
    assert state.information_state_string(1) == "0:0:A:- 0:2:2:- 0:3:-:K"
    with pytest.raises(ValueError, match="not the rank of a card the move may turn up"):
        blocked = reduced("tiny").new_initial_state()
        blocked.apply_action(trash.DRAW_STOCK)
        blocked.apply_action(0)  # no Jokers in this deck


def test_the_hidden_placeholders_stay_consistent_with_the_counts() -> None:
    """Every card a reduced game turns up is swapped in from the hidden cards: the hidden cards stay
    the unaccounted ones (R15) at every move of random games."""
    game, rng = reduced("tiny"), np.random.default_rng(0)
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
            table = state.game_state
            hidden = np.bincount(table.hidden_cards(), minlength=trash.NUM_RANKS)
            assert hidden.tolist() == [u + k for u, k in zip(table.unaccounted, table.known_stock)]


def test_a_reshuffle_turns_up_one_of_the_discarded_cards() -> None:
    """R7 in a reduced game: a draw from an empty stock reshuffles the discard pile but its top, and
    the card drawn is one of those; the stock is then known (R15) and the next draw one of it."""
    game = reduced("micro")
    table = trash.new_game(game.config, np.random.default_rng(0))
    cards = table.stock
    table.stock, table.discard = [], cards  # every stock card on the discard pile, face up
    for card in cards:
        table.unaccounted[card] -= 1
    state = game.state_at(table)
    state.apply_action(trash.DRAW_STOCK)
    expected = np.bincount(cards[:-1], minlength=trash.NUM_RANKS) / (len(cards) - 1)
    assert dict(state.chance_outcomes()) == {rank: p for rank, p in enumerate(expected) if p}
    state.apply_action(12)  # a Queen: no use in a one-slot layout
    after = state.game_state
    assert after.held == 12 and after.discard == cards[-1:] and len(after.stock) == len(cards) - 2
    assert after.known_stock == np.bincount(after.stock, minlength=trash.NUM_RANKS).tolist()
    state.apply_action(trash.DISCARD)
    state.apply_action(trash.DRAW_STOCK)  # the other seat draws from the known stock
    now = state.game_state
    known = np.array(now.known_stock) / len(now.stock)
    assert dict(state.chance_outcomes()) == {rank: p for rank, p in enumerate(known) if p}


def test_the_reduced_game_has_the_value_of_the_core_game() -> None:
    """The reduced game is the core's game with its chance moved, not another game: greedy against
    random has the same expected score in both, exactly in OpenSpiel and sampled on the core."""
    game = reduced("micro")
    greedy, uniform = AgentPolicy(game, make_agent("greedy")), AgentPolicy(game, make_agent("random"))
    exact = expected_game_score.policy_value(game.new_initial_state(), [greedy, uniform])[0]
    agents, rng = [make_agent("greedy"), make_agent("random")], np.random.default_rng(0)
    scores = [
        trash.returns(play_game(game.config, agents, rng, [rng, rng]))[0] for _ in range(2000)
    ]  # fmt: skip
    error = np.std(scores) / np.sqrt(len(scores))
    assert abs(np.mean(scores) - exact) < 4 * error and 0.0 < exact < 1.0


def test_cfr_exploitability_falls_below_random() -> None:
    game = reduced("micro")
    solver = cfr.CFRPlusSolver(game)
    values = []
    for iterations in (1, 1, 2):
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        values.append(exploitability.nash_conv(game, solver.average_policy()) / 2)
    assert values[0] > values[1] > values[2] >= 0.0  # after 1, 2 and 4 iterations
    random_value = exploitability.nash_conv(game, AgentPolicy(game, make_agent("random"))) / 2
    assert random_value > values[2]


@pytest.mark.slow
def test_after_a_few_hundred_iterations_cfr_is_nearly_unexploitable_and_random_is_not() -> None:
    """200 iterations of CFR+ on micro; every baseline's exploitability is 0 or more (a best
    response never does worse than the policy's own play), random's above CFR's."""
    game = reduced("micro")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(200):
        solver.evaluate_and_update_policy()
    value = exploitability.nash_conv(game, solver.average_policy()) / 2
    baselines = {
        name: exploitability.nash_conv(game, AgentPolicy(game, make_agent(name))) / 2
        for name in ("random", "greedy", "counter")
    }
    assert 0.0 <= value < 1e-4 < baselines["random"]
    assert min(baselines.values()) >= -1e-12


def test_an_agent_policy_reads_the_agent_at_its_seat() -> None:
    """AgentPolicy: forced moves are certain, random is uniform, greedy one-hot (R13)."""
    game = reduced("tiny")
    state = game.new_initial_state()
    policy = AgentPolicy(game, make_agent("random"))
    assert policy.action_probabilities(state) == {trash.DRAW_STOCK: 1.0}
    state.apply_action(trash.DRAW_STOCK)
    state.apply_action(13)  # a King: place it on either slot, or discard it (R5, R6)
    legal = state.legal_actions()
    assert policy.action_probabilities(state) == {a: 1 / 3 for a in legal}
    assert AgentPolicy(game, make_agent("greedy")).action_probabilities(state) == {
        a: float(a == legal[0]) for a in legal
    }
    with pytest.raises(ValueError, match="plays help_your_neighbor"):
        AgentPolicy(game, make_agent("heuristic", "help_your_neighbor"))
