"""Tests of the OpenSpiel games ``python_trash`` and ``python_help_your_neighbor``
(:mod:`trash_env.openspiel`, the ``openspiel`` extra).

OpenSpiel's own checks (``pyspiel.random_sim_test``: random games with cloning, serialization,
legal-action masks, observation and information-state calls, returns in range), the observation
API against the PettingZoo envs, and the games against the rules cores on the same deals: an
OpenSpiel state is given, at its chance nodes, the deck orders and dice a seeded PettingZoo env drew,
both take the same actions, and the whole core state, the legal actions, the player to act, the
observations, the end and the returns agree move by move. Rules are cited by their section of the
rule book (``RULES.md``): R3 (deal), R7 (reshuffle), R9 (match), R10 and R12 (returns), R13 and R14
(actions), R15 (observations).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.observation import make_observation  # noqa: E402

from trash_env import help_your_neighbor_v0, trash_v0  # noqa: E402
from trash_env import openspiel as osp  # noqa: E402
from trash_env.neighbor import rules as neighbor  # noqa: E402
from trash_env.neighbor.observation import neighbor_pieces  # noqa: E402
from trash_env.trash import rules as trash  # noqa: E402
from trash_env.trash.config import make_config  # noqa: E402
from trash_env.trash.observation import TrashObserver, observation_pieces  # noqa: E402

# --------------------------------------------------------------------------
# Helpers


def trash_game(preset: str = "standard", players: int = 2, match: bool = False):
    return pyspiel.load_game(osp.TRASH_NAME, {"preset": preset, "players": players, "match": match})


def neighbor_game(players: int = 2):
    return pyspiel.load_game(osp.NEIGHBOR_NAME, {"players": players})


def draw_cards(state, cards) -> None:
    """Give a Trash chance node its cards in order: a deal's in dealing order (R3), a reshuffle's
    top of the new stock first (R7)."""
    for card in cards:
        assert state.is_chance_node()
        state.apply_action(int(card))


def env_draws(state, table: trash.TrashState) -> list[int]:
    """The cards the env's core drew for the shuffle ``state`` waits on: the deck of the hand just
    dealt (R3, R9), or the reshuffled stock, its top (now the held card) first (R7)."""
    if state.chance_kind == osp.DEAL:
        return list(table.deck)
    assert state.chance_kind == osp.RESHUFFLE
    return [table.held] + table.stock[::-1]


def random_chance(state, rng: np.random.Generator) -> None:
    outcomes, probabilities = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probabilities)))


def start(state, deck) -> None:
    draw_cards(state, deck)
    assert not state.is_chance_node()


# --------------------------------------------------------------------------
# What the games declare


def test_python_trash_declares_an_imperfect_information_game_with_chance() -> None:
    game = pyspiel.load_game("python_trash")
    kind, config = game.get_type(), make_config()
    assert str(game) == "python_trash(match=False,players=2,preset=standard)"  # the standard 2-player hand
    assert kind.short_name == osp.TRASH_NAME
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM  # R8: both seats can win a hand
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (kind.min_num_players, kind.max_num_players) == (2, 8)
    assert kind.provides_information_state_string and kind.provides_information_state_tensor
    assert kind.provides_observation_string and kind.provides_observation_tensor
    assert game.num_distinct_actions() == trash.NUM_ACTIONS == 13
    assert game.max_chance_outcomes() == trash.NUM_RANKS == 14
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, None)
    assert game.max_game_length() == 23 * config.max_turns
    assert game.max_chance_nodes_in_history() == 52 * (2 * config.max_turns + 1)
    assert game.observation_tensor_shape() == game.information_state_tensor_shape() == [TrashObserver(config).size]
    match = trash_game("eight_card", 3, match=True)
    assert match.num_players() == 3 and match.max_game_length() == 19 * 10_000  # R9: a match's turn limit


def test_python_help_your_neighbor_declares_a_perfect_information_game_with_dice() -> None:
    game = pyspiel.load_game("python_help_your_neighbor")
    kind = game.get_type()
    assert str(game) == "python_help_your_neighbor(players=2)"
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM and game.utility_sum() == 0.0  # R12, two players
    assert game.num_distinct_actions() == neighbor.NUM_ACTIONS == 12
    assert game.max_chance_outcomes() == 13  # the outcomes are the totals 2..12
    assert game.max_game_length() == (osp.ROLLS_PER_TURN + 1) * neighbor.MAX_TURNS
    assert game.observation_tensor_shape() == [15 + 13 * 2]
    four = neighbor_game(4)
    assert four.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM and four.utility_sum() is None
    assert four.observation_tensor_shape() == four.information_state_tensor_shape() == [15 + 13 * 4]


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        (osp.TRASH_NAME, {"preset": "poker"}, "preset='poker' is not one of"),
        (osp.TRASH_NAME, {"players": 1}, "players=1 is out of range (2..8)"),
        (osp.TRASH_NAME, {"players": 9}, "players=9 is out of range (2..8)"),
        (osp.NEIGHBOR_NAME, {"players": 9}, "players=9 is out of range (2..8)"),
    ],
)
def test_a_bad_parameter_is_one_line_naming_it(name: str, params: dict, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        pyspiel.load_game(name, params)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_unknown_parameters_are_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'layout'"):
        pyspiel.load_game("python_trash(layout=8)")
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['preset'\]"):
        osp.OpenSpielNeighbor({"preset": "standard"})


# --------------------------------------------------------------------------
# OpenSpiel's own checks


@pytest.mark.parametrize(
    ("name", "sims"),
    [
        ("python_trash", 4),
        ("python_trash(players=3)", 4),
        ("python_trash(preset=pagat,players=4)", 3),
        ("python_trash(preset=seven_up)", 4),
        ("python_trash(preset=jokers,match=True)", 1),  # a match deals several hands (R9)
        ("python_help_your_neighbor", 4),
        ("python_help_your_neighbor(players=3)", 4),
    ],
)
def test_openspiel_random_simulations_with_serialization(name: str, sims: int) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=sims, serialize=True, verbose=False)


def test_the_random_simulations_catch_a_broken_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: returns out of the declared range are caught."""
    monkeypatch.setattr(osp.OpenSpielNeighborState, "returns", lambda self: [2.0, -2.0])
    with pytest.raises(pyspiel.SpielError):
        pyspiel.random_sim_test(neighbor_game(), num_sims=1, serialize=False, verbose=False)


def test_serialization_and_pickling_restore_the_state_hidden_cards_included() -> None:
    import pickle

    game, rng = trash_game(players=3), np.random.default_rng(5)
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history()) < 250:  # the deal (104 cards), a few turns
        if state.is_chance_node():
            random_chance(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_chance_node() and len(state.history()) == 20:
            mid_deal = state.clone()
    for original in (mid_deal, state):
        again_game, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, original))
        assert str(again_game) == str(game)
        assert str(again) == str(original) and again.history() == original.history()
        assert again.game_state == original.game_state
        unpickled = pickle.loads(pickle.dumps(original))
        assert str(unpickled) == str(original)
    assert len(mid_deal.chance_outcomes()) > 1


# --------------------------------------------------------------------------
# Chance nodes


def test_the_deal_draws_the_deck_card_by_card_and_deals_it_as_the_core_does() -> None:
    """R3: the deck drawn at the chance nodes is dealt as ``new_game`` deals that deck."""
    config = make_config()
    deck = trash.shuffled_deck(config, np.random.default_rng(3))
    state = trash_game().new_initial_state()
    assert state.is_chance_node() and state.chance_kind == osp.DEAL and state.game_state is None
    assert state.chance_outcomes() == [(rank, 4 / 52) for rank in range(1, 14)]  # no Jokers
    draw_cards(state, deck[:5])
    outcomes = dict(state.chance_outcomes())
    assert outcomes[deck[0]] == pytest.approx((4 - deck[:5].count(deck[0])) / 47)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    start(state, deck[5:])
    assert state.game_state == trash.new_game(config, None, deck)
    assert state.current_player() == 0 and state.legal_actions() == [trash.DRAW_STOCK]
    assert state.history() == deck


def test_a_reshuffle_draws_the_new_stock_top_first() -> None:
    """R7: the stock runs out in this Seven Up deal; the discard pile but its top card becomes the
    stock in the order the chance nodes draw (here, by rank), its first card drawn at once."""
    env = trash_v0.raw_env("seven_up", skip_forced=False)
    env.reset(seed=6)
    state = trash_game("seven_up").new_initial_state()
    start(state, env.game_state.deck)
    while not state.is_chance_node():
        assert not state.is_terminal(), "the deal was meant to reshuffle"
        (action,) = state.legal_actions()  # Seven Up: every move is forced
        state.apply_action(action)
    table = state.game_state
    assert state.chance_kind == osp.RESHUFFLE and not table.stock  # waiting: the draw is not applied yet
    pile = table.discard[:-1]
    counts = Counter(pile)
    assert state.chance_outcomes() == [(rank, counts[rank] / len(pile)) for rank in sorted(counts)]
    order = sorted(pile, reverse=True)
    draw_cards(state, order)
    after = state.game_state
    assert after.held == order[0] and after.stock == order[:0:-1] and after.discard == table.discard[-1:]
    assert after.known_stock == [Counter(order[1:])[rank] for rank in range(trash.NUM_RANKS)]  # R15


def test_a_roll_waits_for_its_dice() -> None:
    """R12, R14: rolling is a move; the total follows at a chance node, 2..12 with ways/36."""
    state = neighbor_game().new_initial_state()
    assert state.current_player() == 0 and state.legal_actions() == [neighbor.ROLL_DICE]
    state.apply_action(neighbor.ROLL_DICE)
    assert state.is_chance_node() and state.chance_kind == "dice"
    outcomes = dict(state.chance_outcomes())
    assert outcomes == {total: neighbor.WAYS[total] / 36 for total in range(2, 13)}
    assert sum(outcomes.values()) == pytest.approx(1.0)
    state.apply_action(8)
    table = state.game_state
    assert table.rolls == [8] and table.covered[0][neighbor.MARKER_OF_TOTAL[8]] and not table.dice
    assert state.legal_actions() == [neighbor.ROLL_DICE, neighbor.END_TURN]


def test_an_illegal_move_or_outcome_is_refused_and_changes_nothing() -> None:
    state = trash_game().new_initial_state()
    start(state, trash.shuffled_deck(make_config(), np.random.default_rng(0)))
    before, history = str(state), state.history()
    with pytest.raises(trash.IllegalActionError, match="illegal for seat 0"):
        state.apply_action(trash.DISCARD)
    assert str(state) == before and state.history() == history
    fresh = trash_game().new_initial_state()
    with pytest.raises(ValueError, match="not the rank of a card left to draw"):
        fresh.apply_action(0)  # no Jokers in the standard deck
    dice = neighbor_game().new_initial_state()
    dice.apply_action(neighbor.ROLL_DICE)
    with pytest.raises(ValueError, match="not a total of two dice"):
        dice.apply_action(1)
    assert dice.is_chance_node() and dice.game_state.rolls == []


# --------------------------------------------------------------------------
# Against the rules cores and the PettingZoo envs, on the same deals


TRASH_SETUPS = [
    ("standard", 2, False, range(12)),
    ("pagat", 3, False, range(6)),
    ("jokers", 2, False, range(6)),
    ("eight_card", 5, False, range(4)),
    ("seven_up", 2, False, range(40)),  # some of these deals reshuffle (R7)
    ("standard", 2, True, range(3)),  # matches (R9): every hand's deal
]


def play_both(env, state, seed: int, draw: Callable) -> Counter:
    """Play a seeded PettingZoo episode (reset with every move asked) and the OpenSpiel game on its
    random draws, the same random legal actions in both, checking they agree at every move. At each
    chance node ``draw(state, table)`` gives the OpenSpiel state what the env's core drew; returns
    the chance kinds seen (one a draw)."""
    kinds: Counter = Counter()
    rng = np.random.default_rng(seed)
    while True:
        while state.is_chance_node():
            kinds[state.chance_kind] += 1
            draw(state, env.game_state)
        table = env.game_state
        assert state.game_state == table  # the whole core state, hidden cards included
        assert state.is_terminal() == table.over
        if table.over:
            break
        assert state.current_player() == table.current == env.agent_name_mapping[env.agent_selection]
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
        assert state.legal_actions() == legal
        for seat, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(state.observation_tensor(seat), env.observe(agent)["observation"])
            assert state.information_state_tensor(seat) == state.observation_tensor(seat)
        action = int(rng.choice(legal))
        env.step(action)
        state.apply_action(action)
    assert state.returns() == [env.rewards[agent] for agent in env.possible_agents]  # R10, R12
    assert state.returns() == env.game.returns(table)
    return kinds


def play_trash_both(preset: str, players: int, match: bool, seed: int) -> Counter:
    env = trash_v0.raw_env(preset, skip_forced=False, num_players=players, match=match)
    env.reset(seed=seed)
    state = trash_game(preset, players, match).new_initial_state()
    return play_both(env, state, seed, lambda state, table: draw_cards(state, env_draws(state, table)))


@pytest.mark.parametrize(("preset", "players", "match", "seeds"), TRASH_SETUPS)
def test_python_trash_plays_as_trash_v0_on_the_same_deals(preset: str, players: int, match: bool, seeds) -> None:
    kinds = Counter()
    for seed in seeds:
        kinds += play_trash_both(preset, players, match, seed)
    assert kinds[osp.DEAL] > len(seeds) if match else kinds[osp.DEAL] == len(seeds)  # R9: hands after the first
    if preset == "seven_up":
        assert kinds[osp.RESHUFFLE] > 0  # the reshuffle of R7 was compared too


def roll_as(state, table: neighbor.NeighborState) -> None:
    state.apply_action(table.rolls[-1])  # the total the env's core just rolled (R12)


@pytest.mark.parametrize(("players", "seeds"), [(2, range(15)), (3, range(6)), (5, range(3))])
def test_python_help_your_neighbor_plays_as_the_env_on_the_same_dice(players: int, seeds) -> None:
    for seed in seeds:
        env = help_your_neighbor_v0.raw_env(skip_forced=False, num_players=players)
        env.reset(seed=seed)
        kinds = play_both(env, neighbor_game(players).new_initial_state(), seed, roll_as)
        assert kinds["dice"] == len(env.game_state.rolls) > 0


# --------------------------------------------------------------------------
# The observation API


def test_the_observations_are_the_envs_pieces_from_the_seat_asked_for() -> None:
    for game, pieces in [
        (trash_game(players=3), observation_pieces(3)),
        (neighbor_game(3), neighbor_pieces(3)),
    ]:
        for obs_type in (None, pyspiel.IIGObservationType(perfect_recall=True)):
            observation = make_observation(game, obs_type)
            assert [(name, value.shape) for name, value in observation.dict.items()] == [
                (name, shape) for name, shape, _ in pieces
            ]
    hidden = make_observation(trash_game(), pyspiel.IIGObservationType(public_info=False, perfect_recall=False))
    assert hidden.tensor is None and hidden.string_from(trash_game().new_initial_state(), 0) == ""


def test_trash_strings_show_the_public_table_and_the_public_history() -> None:
    """R2, R15: every player sees the same; an information state is the public history, which the
    hidden cards do not change, and the observation string is the text view with R15's counts."""
    game = trash_game()
    config = make_config()
    state = game.new_initial_state()
    assert state.observation_tensor(0) == [0.0] * TrashObserver(config).size  # nothing dealt yet
    start(state, trash.shuffled_deck(config, np.random.default_rng(1)))
    assert state.information_state_string(0) == ""
    state.apply_action(trash.DRAW_STOCK)
    table = state.game_state
    held = trash.RANK_NAMES[table.held]
    assert state.information_state_string(0) == state.information_state_string(1) == f"0:0:{held}:-"
    text = state.observation_string(1)
    assert text.startswith("Trash  hand 1  turn 1/1000  player_0 to act (place)") and "unaccounted A:" in text
    assert f"held {held}" in text and "face down" not in text  # the hidden cards stay out
    assert "face down" in str(state)  # the state's own string shows everything


def test_a_resampled_trash_state_differs_only_in_hidden_cards() -> None:
    """What ISMCTS relies on: a state drawn from the information state keeps the public history,
    every observation and the legal actions, and redraws the face-down cards and the stock (R15)."""
    state, rng = trash_game().new_initial_state(), np.random.default_rng(2)
    while state.is_chance_node() or len(state.history()) < 80:
        if state.is_chance_node():
            random_chance(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = [state.resample_from_infostate(state.current_player(), sampler) for _ in range(5)]
    for sample in samples:
        assert sample.information_state_string(0) == state.information_state_string(0)
        for seat in range(2):
            assert sample.observation_tensor(seat) == state.observation_tensor(seat)
        assert sample.legal_actions() == state.legal_actions()
        assert sample.current_player() == state.current_player()
    assert any(sample.game_state.down != state.game_state.down for sample in samples)
    while not samples[0].is_terminal():  # a resampled state plays on
        if samples[0].is_chance_node():
            random_chance(samples[0], rng)
        else:
            samples[0].apply_action(int(rng.choice(samples[0].legal_actions())))


def test_help_your_neighbor_strings() -> None:
    state = neighbor_game().new_initial_state()
    state.apply_action(neighbor.ROLL_DICE)
    state.apply_action(5)
    assert state.information_state_string(1) == state.history_str() == "0, 5"  # perfect information
    assert state.observation_string(0).startswith("Help Your Neighbor  turn 1/1000  player_0 to act (choose)")
    assert "last roll 5 by player_0" in state.observation_string(1)


# --------------------------------------------------------------------------
# OpenSpiel's Python bots


def play_with_bots(game, bots, seed: int) -> tuple[list[float], int]:
    """One full game, chance outcomes sampled; the returns and the number of moves."""
    rng, state, moves = np.random.default_rng(seed), game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            random_chance(state, rng)
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            moves += 1
    return state.returns(), moves


def test_mcts_plays_help_your_neighbor() -> None:
    """OpenSpiel's Python MCTS (chance nodes sampled in its search) plays a full game."""
    from open_spiel.python.algorithms import mcts

    game = neighbor_game()
    random_state = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bots = [mcts.MCTSBot(game, 2.0, 2, evaluator, random_state=random_state) for _ in range(2)]
    returns, moves = play_with_bots(game, bots, seed=0)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0]) and moves > 0


@pytest.mark.parametrize(("name", "games"), [("python_trash", 3), ("python_trash(preset=pagat,players=3)", 1)])
def test_ismcts_plays_trash(name: str, games: int) -> None:
    """OpenSpiel's Python ISMCTS searches over resampled hidden cards (``resample_from_infostate``)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(name)
    random_state = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bots = [ismcts.ISMCTSBot(game, evaluator, 2.0, 10, random_state=random_state)] * game.num_players()
    for seed in range(games):
        returns, moves = play_with_bots(game, bots, seed)
        assert set(returns) <= {-1.0, 0.0, 1.0} and moves > 0


@pytest.mark.slow
def test_mcts_plays_several_games_of_help_your_neighbor() -> None:
    from open_spiel.python.algorithms import mcts

    game = neighbor_game(3)
    random_state = np.random.RandomState(2)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
    bots = [mcts.MCTSBot(game, 2.0, 10, evaluator, random_state=random_state) for _ in range(3)]
    for seed in range(2):
        returns, _ = play_with_bots(game, bots, seed)
        assert sorted(returns) in ([-1.0, -1.0, 1.0], [0.0, 0.0, 0.0])
