"""A third game, defined here only to show that a game is a plug-in (issue 48; docs/add-a-game.md walks
through it): its descriptor, and nothing edited in the library, plugs it into the AEC env, the
single-agent env, duplicate evaluation, the ladder and a benchmark task.

**High card**: a deck of ``ranks`` cards (one of each rank 1..ranks) is shuffled and each player is
dealt one card face down (hidden: each sees only their own). In seat order each player once either
keeps their card (action 0) or swaps it for the deck's top card (action 1, chance: the next card of
the shuffled deck), then the highest card wins: +1 to the winner, -1 to the others.

Importing this module registers the game (``trash_env.games.register_game``), its baseline
``high_keeper`` (``agents.registry.register_baseline``) and its task ``toy-high-card``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from agents.bench.tasks import Task, register_task
from agents.registry import Baseline, register_baseline
from trash_env.aec import TurnBasedEnv, checked_env, env_metadata
from trash_env.game import Game, register_game
from trash_env.kernel import apply_forced, check_action, check_int, known_fields
from trash_env.single_agent import SingleAgentEnv

NUM_ACTIONS = 2
KEEP, SWAP = 0, 1
PHASE_NAMES = ("play", "over")


@dataclass(frozen=True)
class ToyConfig:
    num_players: int = 2
    ranks: int = 10
    max_turns: int = 8  # never reached: every player moves once

    def __post_init__(self) -> None:
        check_int(self, "num_players", 2, 4)
        check_int(self, "ranks", 2 * self.num_players, 20)  # a card each and one to swap for each

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToyConfig:
        return cls(**known_fields(cls, data))


def make_config(preset: str = "standard", **overrides: Any) -> ToyConfig:
    if preset != "standard":
        raise ValueError(f"preset={preset!r}: High card has one preset, standard")
    return ToyConfig(**known_fields(ToyConfig, overrides))


@dataclass
class ToyState:
    config: ToyConfig
    deck: list[int]  # the dealt deck, top last
    cards: list[int]  # each seat's card
    current: int = 0
    phase: int = 0
    turn: int = 0  # actions taken
    winners: list[int] = field(default_factory=list)
    truncated: bool = False
    deal: list[int] = field(default_factory=list)

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def over(self) -> bool:
        return self.phase == 1


def new_deal(config: ToyConfig, rng: np.random.Generator) -> list[int]:
    return [int(rank) + 1 for rank in rng.permutation(config.ranks)]


def check_deal(config: ToyConfig, deal: Any) -> list[int]:
    if sorted(deal) != list(range(1, config.ranks + 1)):
        raise ValueError(f"a deck of High card holds the ranks 1..{config.ranks} once each")
    return [int(card) for card in deal]


def new_game(config: ToyConfig, rng: np.random.Generator, deal: Any = None) -> ToyState:
    deck = list(deal) if deal is not None else new_deal(config, rng)
    stock = deck[:]
    cards = [stock.pop() for _ in range(config.num_players)]
    return ToyState(config, stock, cards, deal=deck)


def legal_actions(state: ToyState) -> list[int]:
    return [] if state.over else [KEEP, SWAP]


def action_name(action: int) -> str:
    return {KEEP: "keep", SWAP: "swap"}.get(action, f"<not an action: {action!r}>")


def apply_action(state: ToyState, action: int, rng: Any) -> None:
    check_action(state, action, legal_actions, action_name, PHASE_NAMES, "High card", NUM_ACTIONS)
    if action == SWAP:
        state.cards[state.current] = state.deck.pop()
    state.current += 1
    state.turn += 1
    if state.current == state.num_players:
        state.current, state.phase = 0, 1
        state.winners = [int(np.argmax(state.cards))]


def forced_action(state: ToyState) -> int:
    return -1


def play_forced(state: ToyState, rng: Any, actions: list[int] | None = None) -> int:
    return apply_forced(state, rng, actions, forced_action, apply_action)


def returns(state: ToyState) -> list[float]:
    if not state.over:
        return [0.0] * state.num_players
    return [1.0 if seat in state.winners else -1.0 for seat in range(state.num_players)]


def action_mask(legal: Any) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(legal)] = 1
    return mask


class ToyObserver:
    """The seat's own card (one-hot) and how many players have moved (a fraction)."""

    def __init__(self, config: ToyConfig) -> None:
        self.config = config
        self.size = config.ranks + 1

    def encode(self, state: ToyState, seat: int) -> np.ndarray:
        vector = np.zeros(self.size, np.float32)
        vector[state.cards[seat] - 1] = 1.0
        vector[-1] = (state.num_players if state.over else state.current) / state.num_players
        return vector


class ToyGlobalState:
    """Every seat's card (one-hot each)."""

    def __init__(self, config: ToyConfig) -> None:
        self.size = config.ranks * config.num_players

    def encode(self, state: ToyState) -> np.ndarray:
        vector = np.zeros((state.num_players, state.config.ranks), np.float32)
        vector[np.arange(state.num_players), np.array(state.cards) - 1] = 1.0
        return vector.ravel()


def public_view(state: ToyState) -> ToyState:
    """Nothing but the seat's own card is public: the others' and the deck hidden (0)."""
    seen = dataclasses.replace(state, cards=[0] * state.num_players, deck=[0] * len(state.deck))
    seen.cards[state.current] = state.cards[state.current]
    return seen


def render(state: ToyState, names: Any = None) -> str:
    names = list(names) if names is not None else [f"player_{seat}" for seat in range(state.num_players)]
    shown = state.cards if state.over else ["##"] * state.num_players
    return "\n".join(f"{name}: {card}" for name, card in zip(names, shown))


def draw(state: ToyState, names: Any = None, reveal: bool = False) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg"><text>{render(state, names)}</text></svg>'


GAME = register_game(
    Game(
        name="high_card",
        env_name="high_card_v0",
        title="High card",
        num_actions=NUM_ACTIONS,
        make_config=make_config,
        config_type=ToyConfig,
        deal_option="deck",
        check_deal=check_deal,
        new_deal=new_deal,
        new_game=new_game,
        legal_actions=legal_actions,
        apply_action=apply_action,
        forced_action=forced_action,
        play_forced=play_forced,
        returns=returns,
        action_mask=action_mask,
        action_name=action_name,
        make_observer=ToyObserver,
        make_global_state=ToyGlobalState,
        observation_version=1,
        public_view=public_view,
        render=render,
        draw=draw,
        record_fields=lambda state, deal, given: {"deck": list(deal)},
        record_keys=("deck",),
        record_validate=lambda record: None,
        record_deal=lambda state, deal: list(state.deal),
        record_start=lambda record, config, rng: new_game(config, rng, record["deck"]),
        record_check=lambda record, state: None,
        record_version=1,
        default_opponent="high_keeper",
        scored_baselines=("random", "high_keeper"),
        aec_entry_point="helpers.toy_game:env",
        single_agent_entry_point="helpers.toy_game:ToySingleAgentEnv",
    )
)


class raw_env(TurnBasedEnv):  # PettingZoo's name
    game = GAME
    metadata = env_metadata(GAME)


def env(preset: str = "standard", render_mode: str | None = None, skip_forced: bool = True, **overrides: Any) -> Any:
    return checked_env(raw_env, preset, render_mode, skip_forced, **overrides)


class ToySingleAgentEnv(SingleAgentEnv):
    game = GAME


class HighKeeper(Agent):
    """Keeps a card in the top half of the ranks, swaps a lower one."""

    name = "high_keeper"
    games = (GAME.name,)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        card = view.public_state.cards[view.seat]
        return KEEP if card > view.config.ranks / 2 else SWAP


register_baseline(Baseline("high_keeper", (GAME.name,), HighKeeper))

TASK = register_task(
    Task(
        "toy-high-card",
        1,
        "a plug-in game: the smallest game with chance and hidden cards",
        GAME.name,
        "standard",
        {"num_players": 2},
        ("random", "high_keeper"),
        1024,
        "high_keeper",
        (),
        eval_deals=40,
        final_deals=100,
    )
)
