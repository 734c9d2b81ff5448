"""Tests of the agents (:mod:`agents`): the baselines, the search agent and the registry.

Rules are cited by their section of the rule book (``RULES.md``) (R1..R15). Agents are
asked only at real choices (R13); games are driven by
:func:`agents.evaluation.duplicate.play_game`, or step by step on the core from stacked
decks (tests/helpers/decks.py, R3: ``layouts[seat][slot]`` lies face down in that slot,
``stock[0]`` is drawn first) when a test needs a named position.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from helpers.decks import stacked_deck

from agents.base import Agent, SeatView
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.evaluation.seatings import play_game
from agents.registry import make_agent
from agents.search import SearchAgent
from trash_env.trash.belief import HIDDEN, public_view
from trash_env.trash.config import PRESETS, TrashConfig, make_config
from trash_env.trash.observation import TrashObserver
from trash_env.trash.rules import (
    DISCARD,
    DRAW,
    DRAW_STOCK,
    FACE_DOWN,
    OVER,
    PLACE,
    PLACE_SLOT_0,
    TAKE_DISCARD,
    TrashState,
    apply_action,
    clone,
    legal_actions,
    new_game,
    play_forced,
)

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
BASELINE_SPECS = ("random", "greedy", "counter", "search:samples=2")
PLAYER_COUNTS = (2, 3, 5, 8)
MATCH_LAYOUT = 3  # R9 matches with three slots: three hands won at least, so short


# --------------------------------------------------------------------------
# Helpers


def slot(i: int) -> int:
    """The action placing the held card in slot ``i`` (R13)."""
    return PLACE_SLOT_0 + i


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def deal(cfg: TrashConfig, layouts: list[list[int]], stock: list[int]) -> TrashState:
    """A new game dealt from a stacked deck (R3), forced moves played (R13)."""
    state = new_game(cfg, rng(), stacked_deck(cfg, layouts, stock))
    play_forced(state, rng())
    return state


def advance(state: TrashState, *actions: int) -> None:
    """Apply ``actions`` (each must be legal), playing the forced moves after each (R13)."""
    for action in actions:
        apply_action(state, action, rng())
        play_forced(state, rng())


def view_of(state: TrashState) -> SeatView:
    return SeatView(state, state.current, TrashObserver(state.config))


def choice(agent: Agent, state: TrashState, seed: int = 0) -> int:
    return agent.act(view_of(state), rng(seed))


class Checked(Agent):
    """Wraps an agent: every answer must be one of the legal actions it was shown,
    and it must be shown only real choices (R13); counts how often it was asked."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.name = agent.name
        self.asked = 0

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        assert view.legal_actions == legal_actions(view._state)
        assert len(view.legal_actions) >= 2, f"asked at a forced move {view.legal_actions} (R13)"
        assert list(np.flatnonzero(view.action_mask)) == view.legal_actions
        action = self.agent.act(view, rng)
        assert action in view.legal_actions, f"{self.name} chose {action}, legal: {view.legal_actions}"
        self.asked += 1
        return action


def decision_points(cfg: TrashConfig, policy: Agent, games: int, seed: int) -> Iterator[TrashState]:
    """Every state where a seat has a real choice (R13) in ``games`` games of ``policy``
    against itself, each yielded before ``policy``'s action is applied."""
    observer = TrashObserver(cfg)
    for game in range(games):
        game_rng, agent_rng = rng([seed, game]), rng([seed, game, 1])
        state = new_game(cfg, game_rng)
        play_forced(state, game_rng)
        while state.phase != OVER:
            yield state
            action = policy.act(SeatView(state, state.current, observer), agent_rng)
            apply_action(state, action, game_rng)
            play_forced(state, game_rng)


def permute_hidden(state: TrashState, seed: int) -> TrashState:
    """A copy of ``state`` that differs only in what nobody sees (R2, R15): the cards
    under face-down slots are dealt again at random, together with the stock while
    no reshuffle has shown its content; after a reshuffle (R7) the stock's known
    cards are only put in a new order. The deal order is reversed."""
    generator = rng(seed)
    new = clone(state)
    places = [(s, i) for s in range(state.num_players) for i, u in enumerate(state.up[s]) if u == FACE_DOWN]
    cards = [state.down[s][i] for s, i in places]
    stock_unknown = sum(state.known_stock) == 0  # the core's stock is all unknown or all known
    if stock_unknown:
        cards += state.stock
    cards = [cards[i] for i in generator.permutation(len(cards))]
    new.down = [row[:] for row in state.down]
    for (s, i), card in zip(places, cards):
        new.down[s][i] = card
    if stock_unknown:
        new.stock = cards[len(places) :]
    else:
        new.stock = [state.stock[i] for i in generator.permutation(len(state.stock))]
    new.deck = state.deck[::-1]
    return new


# --------------------------------------------------------------------------
# Every baseline plays only legal actions, everywhere (R13)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("spec", BASELINE_SPECS)
def test_baselines_play_only_legal_actions(spec: str, preset: str) -> None:
    """R13: on every preset of R11, for 2, 3, 5 and 8 players, single hands and
    matches (R9), the agent is asked only at real choices and answers with a legal
    action (the core would raise on an illegal one). Seven Up offers no choice
    at all (R4: no discard draw, R6: no wild card), so its agents are never asked;
    on every other preset each agent is asked in every game."""
    for num_players in PLAYER_COUNTS:
        for match in (False, True):
            extra = {"match": True, "layout_size": MATCH_LAYOUT} if match else {}
            cfg = make_config(preset, num_players=num_players, **extra)
            for game in range(2):
                agent = Checked(make_agent(spec))
                agent_rngs = [rng([num_players, game, seat]) for seat in range(num_players)]
                state = play_game(cfg, [agent] * num_players, rng([num_players, game]), agent_rngs)
                where = f"{preset}, {num_players} players, match={match}, game {game}"
                assert state.phase == OVER and not state.truncated, where
                if match:
                    assert state.hand >= MATCH_LAYOUT - 1, where  # R9: several hands were played
                if preset == "seven_up":
                    assert agent.asked == 0, where
                else:
                    assert agent.asked > 0, where


def test_mixed_table_plays_only_legal_actions() -> None:
    """R13 with all four baselines at one 8-player table of the jokers preset (R6:
    Kings and Jokers wild), two seats each, in a hand and in a match (R9)."""
    for match in (False, True):
        extra = {"match": True, "layout_size": MATCH_LAYOUT} if match else {}
        cfg = make_config("jokers", num_players=8, **extra)
        agents = [Checked(make_agent(BASELINE_SPECS[seat % 4])) for seat in range(8)]
        state = play_game(cfg, agents, rng(3), [rng([3, seat]) for seat in range(8)])
        assert state.phase == OVER
        assert all(agent.asked > 0 for agent in agents)


# --------------------------------------------------------------------------
# Greedy and counter on stacked positions (R4, R5, R6)


def test_greedy_takes_a_playable_discard() -> None:
    """R4 (`playable`), R5: seat 0 draws a 5, which turns up the 5 in its own slot
    4; that 5 is dead for seat 0 and discarded. For seat 1, whose slot 4 is face
    down, it is playable, so both actions are legal: greedy and counter take it."""
    cfg = make_config("standard")
    state = deal(
        cfg,
        [[2, 3, 4, 6, 5, 7, 8, 9, 10, QUEEN], [ACE, 2, 3, 4, 6, 7, 8, 9, 10, JACK]],
        stock=[5],
    )
    assert (state.current, state.phase, state.discard) == (1, DRAW, [5])
    assert legal_actions(state) == [DRAW_STOCK, TAKE_DISCARD]
    assert choice(GreedyAgent(), state) == TAKE_DISCARD
    assert choice(CountingAgent(), state) == TAKE_DISCARD


def test_greedy_draws_when_the_discard_is_not_playable() -> None:
    """R4 (`any`, pagat preset), R6 (Jacks wild, Queens dead): seat 0 draws a Queen
    and discards it. Seat 1 may take it (any discard may be taken) but cannot place
    it, so greedy and counter draw from the stock instead. A Jack that seat 0
    declines to place (R5) is wild and playable on any face-down slot of seat 1:
    they take it."""
    cfg = make_config("pagat")
    layouts = [[2, 3, 4, 5, 6, 7, 8, 9, 10, KING], [ACE, 2, 3, 4, 5, 6, 7, 8, 9, 10]]
    state = deal(cfg, layouts, stock=[QUEEN])
    assert (state.current, state.phase, state.discard) == (1, DRAW, [QUEEN])
    assert legal_actions(state) == [DRAW_STOCK, TAKE_DISCARD]
    assert choice(GreedyAgent(), state) == DRAW_STOCK
    assert choice(CountingAgent(), state) == DRAW_STOCK

    state = deal(cfg, layouts, stock=[JACK])
    advance(state, DISCARD)  # seat 0 declines to place the Jack (R5)
    assert (state.current, state.discard) == (1, [JACK])
    assert choice(GreedyAgent(), state) == TAKE_DISCARD
    assert choice(CountingAgent(), state) == TAKE_DISCARD


def test_greedy_puts_a_wild_on_the_lowest_face_down_slot_and_counter_breaks_ties_high() -> None:
    """R5, R6: seat 0 draws an Ace; it turns up the 2, which turns up a King (wild)
    with slots 2..9 face down. Greedy covers the lowest, slot 2. Every rank 3..10
    still has all four copies out (R15: unaccounted), a tie, which counter breaks
    towards the higher rank: slot 9, the Ten."""
    cfg = make_config("standard")
    state = deal(
        cfg,
        [[2, KING, 3, 4, 5, 6, 7, 8, 9, 10], [3, 4, 5, 6, 7, 8, 9, 10, QUEEN, QUEEN]],
        stock=[ACE],
    )
    assert (state.current, state.phase, state.held) == (0, PLACE, KING)
    assert legal_actions(state) == [slot(i) for i in range(2, 10)] + [DISCARD]
    assert [state.unaccounted[rank] for rank in range(3, 11)] == [4] * 8
    assert choice(GreedyAgent(), state) == slot(2)
    assert choice(CountingAgent(), state) == slot(9)


def counter_position() -> TrashState:
    """Seat 0 draws a dead Queen. Seat 1 draws a 7, which turns up the 7 in its slot
    6, and discards that 7. Seat 0 passes on the playable 7 and draws an Ace, which
    turns up a 2, which turns up a King (wild) with slots 2..9 face down. Two 7s
    are face up, so the Seven has 2 outs and every other rank 3..10 has 4 (R15)."""
    cfg = make_config("standard")
    state = deal(
        cfg,
        [[2, KING, 3, 4, 5, 6, 8, 8, 9, 10], [3, 4, 5, 6, 8, 9, 7, 10, QUEEN, JACK]],
        stock=[QUEEN, 7, ACE],
    )
    assert (state.current, state.discard, legal_actions(state)) == (0, [QUEEN, 7], [DRAW_STOCK, TAKE_DISCARD])
    advance(state, DRAW_STOCK)
    assert (state.current, state.phase, state.held) == (0, PLACE, KING)
    return state


def test_counter_puts_a_wild_where_its_rank_has_the_fewest_outs() -> None:
    """R5, R6, R15: counter covers the face-down slot whose rank has the fewest
    copies still out (unaccounted + known in the stock): the Seven's slot 6, with
    2 outs against 4 for every other face-down rank. Greedy covers slot 2."""
    state = counter_position()
    outs = {rank: state.unaccounted[rank] + state.known_stock[rank] for rank in range(3, 11)}
    assert outs == {3: 4, 4: 4, 5: 4, 6: 4, 7: 2, 8: 4, 9: 4, 10: 4}
    assert choice(CountingAgent(), state) == slot(6)
    assert choice(GreedyAgent(), state) == slot(2)


def test_counter_counts_known_stock_cards_as_outs() -> None:
    """R7, R15: copies a reshuffle put into the stock (``known_stock``) may still
    turn up, so they are outs too. The counter position, edited as if three
    Sevens were known to lie in the stock: the Seven now has 5 outs, every other
    face-down rank has 4, and counter breaks the tie towards slot 9."""
    state = counter_position()
    state.known_stock[7] = 3
    assert choice(CountingAgent(), state) == slot(9)


def test_random_is_uniform_over_the_legal_actions() -> None:
    """Random picks each legal action equally often, from the generator it is given:
    at the counter position (a King held, R6: eight face-down slots or the
    discard, nine actions) 1800 seeded choices give each action 200 +- 50 times."""
    state = counter_position()
    view = view_of(state)
    generator = rng(4)
    counts = dict.fromkeys(view.legal_actions, 0)
    for _ in range(1800):
        counts[RandomAgent().act(view, generator)] += 1
    assert len(counts) == 9
    assert all(150 <= count <= 250 for count in counts.values()), counts


def test_random_draws_once_per_decision_as_the_batched_engine_does() -> None:
    """Random's choice is ``legal[int(rng.random() * len(legal))]``, one draw per decision, the
    legal actions in increasing order (R13): what the batched engine computes from the same keyed
    stream. A twin generator predicts every choice of :meth:`act` and of :meth:`act_batch`, and the
    generator has moved on by exactly one ``random()`` per decision."""
    state = counter_position()
    view = view_of(state)
    legal = view.legal_actions
    mask = np.zeros(13, np.int8)
    mask[legal] = 1
    for seed in range(3):
        generator, twin = rng(seed), rng(seed)
        for _ in range(50):
            assert RandomAgent().act(view, generator) == legal[int(twin.random() * len(legal))]
        rows = RandomAgent().act_batch(np.zeros((20, 1)), np.tile(mask, (20, 1)), [generator] * 20)
        assert rows.tolist() == [legal[int(twin.random() * len(legal))] for _ in range(20)]
        assert generator.random() == twin.random()  # no draw more, none fewer


def test_greedy_and_counter_displace_a_wild() -> None:
    """R5, R6: seat 0 draws a King and puts it on slot 3, turning up a dead Queen.
    Later it draws a 4: placing it on the wild-filled Four slot is optional, and
    greedy and counter place it. The displaced King is held again with slots
    0, 1, 2, 4.. face down; greedy puts it on slot 0."""
    cfg = make_config("standard")
    state = deal(
        cfg,
        [[ACE, 2, 3, QUEEN, 5, 6, 7, 8, 9, 10], [ACE, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
        stock=[KING, QUEEN, 4],
    )
    assert (state.current, state.held) == (0, KING)
    advance(state, slot(3))
    assert (state.current, state.phase, state.held) == (0, PLACE, 4)
    assert state.up[0][3] == KING
    assert legal_actions(state) == [slot(3), DISCARD]
    assert choice(GreedyAgent(), state) == slot(3)
    assert choice(CountingAgent(), state) == slot(3)
    advance(state, slot(3))
    assert (state.up[0][3], state.held) == (4, KING)
    assert choice(GreedyAgent(), state) == slot(0)


# --------------------------------------------------------------------------
# No hidden information reaches an agent (R2, R15)

INVARIANCE_CONFIGS = (
    make_config("standard"),
    make_config("pagat"),
    make_config("jokers", num_players=3),
    make_config("eight_card", num_players=5, match=True, layout_size=4),
    make_config("standard", num_players=4, num_decks=1),  # a stock of 12: reshuffles (R7) come early
)


def test_public_state_hides_every_hidden_card() -> None:
    """R2, R15: at every choice of a few games the view's public state has every
    ``down`` entry and every stock card replaced by HIDDEN and no deal order, and
    keeps every public field of the real state, which it leaves untouched."""
    public_fields = [name for name in TrashState.__slots__ if name not in ("down", "stock", "deck")]
    seen = 0
    for cfg in INVARIANCE_CONFIGS:
        for state in decision_points(cfg, RandomAgent(), games=3, seed=5):
            before = clone(state)
            public = view_of(state).public_state
            assert all(card == HIDDEN for row in public.down for card in row)
            assert [len(row) for row in public.down] == [len(row) for row in state.down]
            assert public.stock == [HIDDEN] * len(state.stock)
            assert public.deck == []
            for name in public_fields:
                assert getattr(public, name) == getattr(state, name), name
            assert state == before
            seen += 1
    assert seen > 100


def test_agents_choices_do_not_depend_on_hidden_cards() -> None:
    """R2, R15: at every choice of several games (on four configurations, through at
    least one reshuffle, R7), each baseline, search included, makes the same choice
    with the same random numbers when the hidden cards are dealt again: face-down
    cards and unknown stock cards mixed, known stock cards reordered. The public
    view and the observation are unchanged too. A deliberately peeking agent is
    caught by the same check, so the check can fail."""

    class Peeker(Agent):
        name = "peeker"

        def act(self, view: SeatView, rng: np.random.Generator) -> int:
            return view.legal_actions[view._state.stock[-1] % len(view.legal_actions)]

    agents = [make_agent(spec) for spec in BASELINE_SPECS]
    peeker_fooled = 0
    reshuffled = 0
    for cfg in INVARIANCE_CONFIGS:
        observer = TrashObserver(cfg)
        for number, state in enumerate(decision_points(cfg, RandomAgent(), games=2, seed=9)):
            other = permute_hidden(state, seed=number)
            assert other.hidden_cards() != state.hidden_cards()
            assert public_view(other) == public_view(state)
            seat = state.current
            assert np.array_equal(observer.encode(other, seat), observer.encode(state, seat))
            reshuffled += sum(state.known_stock) > 0
            for agent in agents:
                first = agent.act(SeatView(state, seat, observer), rng(number))
                second = agent.act(SeatView(other, seat, observer), rng(number))
                assert first == second, f"{agent.name} at {state!r}"
            peeker = Peeker()
            if state.stock and other.stock:
                peeker_fooled += peeker.act(SeatView(state, seat, observer), rng()) != peeker.act(
                    SeatView(other, seat, observer), rng()
                )
    assert reshuffled > 0
    assert peeker_fooled > 0


# --------------------------------------------------------------------------
# The registry


@pytest.mark.parametrize(
    ("spec", "kind"),
    [("random", RandomAgent), ("greedy", GreedyAgent), ("counter", CountingAgent), ("search", SearchAgent)],
)
def test_make_agent_by_name(spec: str, kind: type) -> None:
    """Each baseline by its plain name: the right class, named as asked, a fresh
    instance each time."""
    agent = make_agent(spec)
    assert type(agent) is kind
    assert agent.name == spec
    assert make_agent(spec) is not agent


def test_make_agent_options_set_the_budget_and_the_name() -> None:
    """``search:samples=4,rollouts=2`` sets the search budget and names the agent by
    its full spec (so two budgets can meet in one tournament); plain ``search``
    keeps the defaults (16 x 1)."""
    agent = make_agent("search:samples=4,rollouts=2")
    assert isinstance(agent, SearchAgent)
    assert (agent.samples, agent.rollouts, agent.name) == (4, 2, "search:samples=4,rollouts=2")
    default = make_agent("search")
    assert (default.samples, default.rollouts, default.name) == (16, 1, "search")
    assert make_agent("search: samples = 3").samples == 3


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("minimax", r"unknown agent 'minimax'.*'counter', 'greedy', 'random', 'search'"),
        ("Greedy", r"unknown agent 'Greedy'"),
        ("search:samples", r"agent option 'samples' in 'search:samples' must be key=integer"),
        ("search:samples=two", r"agent option 'samples=two' .* must be key=integer"),
        ("search:samples=2.5", r"agent option 'samples=2.5' .* must be key=integer"),
        ("search:depth=3", r"agent 'search:depth=3': .*depth"),
        ("greedy:samples=2", r"agent 'greedy:samples=2': .*takes no arguments"),
        ("search:samples=0", r"search samples must be a positive integer, got 0"),
        ("search:rollouts=-1", r"search rollouts must be a positive integer, got -1"),
    ],
)
def test_make_agent_errors(spec: str, message: str) -> None:
    """An unknown name, option syntax other than ``key=integer``, an option the agent
    does not take and a non-positive search budget are each a ValueError that
    says what is wrong."""
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_make_agent_rejects_a_doubled_minus_sign_clearly() -> None:
    """``search:samples=--3`` is not ``key=integer`` and should get the same clear
    message as every other malformed option."""
    with pytest.raises(ValueError, match="must be key=integer"):
        make_agent("search:samples=--3")


@pytest.mark.parametrize("value", [0, -2, 1.5, True, "4"])
def test_search_agent_budget_must_be_a_positive_integer(value: object) -> None:
    """SearchAgent's ``samples`` and ``rollouts`` are positive integers; anything else
    is a ValueError naming the field."""
    with pytest.raises(ValueError, match="search samples must be a positive integer"):
        SearchAgent(samples=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="search rollouts must be a positive integer"):
        SearchAgent(rollouts=value)  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# The search agent


def deviations(search: Agent, policy: Agent, configs: tuple[TrashConfig, ...], games: int) -> tuple[int, int]:
    """(choices where ``search`` differs from ``policy``, choices seen) over the choices
    of ``games`` games per config of ``policy`` against itself."""
    differ = seen = 0
    for cfg in configs:
        for state in decision_points(cfg, policy, games, seed=21):
            differ += choice(search, state, seed=seen) != choice(policy, state, seed=seen)
            seen += 1
    return differ, seen


SEARCH_CONFIGS = (
    make_config("standard"),
    make_config("pagat"),
    make_config("jokers", num_players=3),
    make_config("standard", num_players=5),
)


def test_search_with_a_large_margin_plays_greedy() -> None:
    """The search agent deviates from its rollout policy only when an action's paired
    gain exceeds ``margin`` standard errors: with a huge margin it plays exactly
    greedy's choice at every one of several hundred choices. (Four samples: see
    the two-sample test below.)"""
    differ, seen = deviations(SearchAgent(samples=4, margin=1e9), GreedyAgent(), SEARCH_CONFIGS, games=15)
    assert seen > 800
    assert differ == 0


def test_search_with_a_large_margin_plays_its_rollout_policy() -> None:
    """The same with counter as the rollout policy: the default choice is the
    policy's, not greedy's."""
    search = SearchAgent(samples=4, margin=1e9, policy=CountingAgent())
    differ, seen = deviations(search, CountingAgent(), SEARCH_CONFIGS[:1], games=10)
    assert seen > 100
    assert differ == 0


def test_search_with_two_samples_and_a_large_margin_plays_greedy() -> None:
    """With a huge margin even a two-sample search never overrules greedy: two agreeing
    samples are not clear evidence. The standard error is floored at one sample's worth
    (2 / samples); without that floor a two-sample search overruled greedy at a few of
    the ~1,400 choices here (pagat and 5-player standard hands), where both samples
    happened to agree exactly and the standard error came out 0."""
    search = SearchAgent(samples=2, margin=1e9)
    differ, seen = deviations(search, GreedyAgent(), (SEARCH_CONFIGS[1], SEARCH_CONFIGS[3]), games=40)
    assert seen > 1000
    assert differ == 0


def test_search_with_no_margin_deviates_from_greedy() -> None:
    """With ``margin=0`` the search agent plays the action with the best mean rollout
    value, which is not always greedy's: over a few hundred choices it deviates
    some of the time (it really searches), and always legally."""
    search = Checked(SearchAgent(samples=8, margin=0.0))
    differ, seen = deviations(search, GreedyAgent(), SEARCH_CONFIGS[:1], games=25)
    assert seen > 200
    assert search.asked == seen
    assert differ > 0.02 * seen
