"""The games of the package, each as one descriptor of its rules core.

The environments, the agent views and the evaluation tools are written once
against a :class:`Game`: Trash (:mod:`trash_env.trash.rules`, R1-R11, R13, R15) and
Help Your Neighbor (:mod:`trash_env.neighbor.rules`, R12, R14). A configuration knows
its game (:func:`game_of`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.drawing import neighbor_svg
from trash_env.neighbor.observation import NEIGHBOR_OBSERVATION_VERSION, NeighborGlobalState, NeighborObserver
from trash_env.neighbor.rules import NeighborConfig
from trash_env.neighbor.text import render_neighbor
from trash_env.trash import rules as core
from trash_env.trash.belief import public_view
from trash_env.trash.config import RulesConfig, make_config
from trash_env.trash.drawing import trash_svg
from trash_env.trash.observation import OBSERVATION_VERSION, GlobalState, Observer
from trash_env.trash.text import render_table


@dataclass(frozen=True)
class Game:
    """One game's rules core, behind the same functions for every game."""

    name: str  # the short name of ``--game``
    env_name: str  # the PettingZoo name, also the ``game`` of policy files and records
    num_actions: int
    make_config: Callable[..., Any]  # (preset="standard", **overrides) -> config
    config_type: type
    deal_option: str  # the reset option that fixes a deal: "deck" or "dice"
    check_deal: Callable[[Any, Any], Any]  # (config, value) -> the validated deal
    new_deal: Callable[[Any, np.random.Generator], Any]  # what a duplicate deal fixes before play
    new_game: Callable[[Any, np.random.Generator, Any], Any]  # (config, rng, deal or None) -> state
    legal_actions: Callable[[Any], list[int]]
    apply_action: Callable[[Any, int, np.random.Generator], None]
    forced_action: Callable[[Any], int]
    play_forced: Callable[..., int]
    returns: Callable[[Any], list[float]]
    action_mask: Callable[[Any], np.ndarray]
    action_name: Callable[[int], str]
    make_observer: Callable[[Any], Any]
    make_global_state: Callable[[Any], Any]  # config -> encoder of PettingZoo's state() (hidden cards included)
    observation_version: int
    public_view: Callable[[Any], Any]  # the state with everything hidden scrubbed
    render: Callable[..., str]  # (state, names) -> text
    draw: Callable[..., str]  # (state, names) -> SVG


# What every rules core defines under the same names: its actions and one turn's steps (R13, R14).
CORE_FUNCTIONS = (
    "legal_actions",
    "apply_action",
    "forced_action",
    "play_forced",
    "returns",
    "action_mask",
    "action_name",
)


def from_core(rules: ModuleType, **specific: Any) -> Game:
    """The descriptor of the game whose rules core is the module ``rules``: ``NUM_ACTIONS`` and the
    :data:`CORE_FUNCTIONS` taken from it by name, the rest ``specific`` to the game."""
    return Game(num_actions=rules.NUM_ACTIONS, **{name: getattr(rules, name) for name in CORE_FUNCTIONS}, **specific)


TRASH = from_core(
    core,
    name="trash",
    env_name="trash_v0",
    make_config=make_config,
    config_type=RulesConfig,
    deal_option="deck",
    check_deal=core.check_deck,
    new_deal=core.shuffled_deck,
    new_game=core.new_game,
    make_observer=Observer,
    make_global_state=GlobalState,
    observation_version=OBSERVATION_VERSION,
    public_view=public_view,
    render=render_table,
    draw=trash_svg,
)

NEIGHBOR = from_core(
    neighbor,
    name="help_your_neighbor",
    env_name="help_your_neighbor_v0",
    make_config=neighbor.make_config,
    config_type=NeighborConfig,
    deal_option="dice",
    check_deal=lambda config, dice: neighbor.check_dice(dice),
    new_deal=lambda config, rng: None,  # the dice come from the deal's generator as the game goes
    new_game=lambda config, rng, dice: neighbor.new_game(config, dice),
    make_observer=NeighborObserver,
    make_global_state=NeighborGlobalState,
    observation_version=NEIGHBOR_OBSERVATION_VERSION,
    public_view=neighbor.clone,  # nothing is hidden (R12)
    render=render_neighbor,
    draw=neighbor_svg,
)

GAMES: dict[str, Game] = {game.name: game for game in (TRASH, NEIGHBOR)}


def get_game(name: str) -> Game:
    """A game by its short name (``trash``, ``help_your_neighbor``) or env name (``trash_v0``)."""
    for game in GAMES.values():
        if name in (game.name, game.env_name):
            return game
    raise ValueError(f"unknown game {name!r}: games are {sorted(GAMES)}")


def game_of(config: Any) -> Game:
    """The game a configuration belongs to."""
    for game in GAMES.values():
        if isinstance(config, game.config_type):
            return game
    raise ValueError(f"{config!r} is not the configuration of a known game")
