"""What a game is, for everything built on it: one :class:`Game` descriptor per game.

Each game's folder exports its descriptor (``trash_env.trash.game.GAME``,
``trash_env.neighbor.game.GAME``) and :mod:`trash_env.games` collects them; everything outside a
game's folder (the environments' shared code, evaluation, training, the benchmark, the commands)
reaches the game only through its descriptor, so a new game is a new folder and a line in the
collector (or :func:`trash_env.games.register_game` from anywhere: ``docs/add-a-game.md``).

A descriptor holds the game's rules core (the functions every core defines under the same names,
:data:`CORE_FUNCTIONS`), its configuration and observation, its text and drawing, how its records
fix a deal, and what the tools around it need: its environments (as Gymnasium-style entry points,
``"module:attribute"``, loaded at first use), its batched engine (:class:`Engine`), how the play
commands tell it (:class:`Narrator`), its presets and whether it has matches, its default opponent,
scored and held-out baselines (by name: the agents themselves live in ``agents``), and its OpenSpiel
game. What a game lacks (a toy game has no engine, no narrator) is None, and the tools that need it
say so.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

CORE_FUNCTIONS = (
    "legal_actions",
    "apply_action",
    "forced_action",
    "play_forced",
    "returns",
    "action_mask",
    "action_name",
)
"""What every rules core defines under the same names: its actions and one turn's steps (R13, R14)."""


@dataclass(frozen=True)
class Narrator:
    """How the play commands tell one game (``trash-play``, the browser): the menu text of a legal
    action and the words a person types for it, the narration of an applied action, the one-line
    description of the rules and the result, the help, and the table once a hand is over."""

    describe_config: Callable[[Any], str]
    choice_text: Callable[[Any, int], str]
    apply_and_describe: Callable[[Any, int, np.random.Generator, Any], list[str]]
    result_text: Callable[[Any, Any, int], str]
    words: Callable[[Any, int], tuple[str, ...]]  # what may be typed for a legal action, the menu's first
    prefixes: Callable[[Any], tuple[str, ...]]  # words that may come before a slot or a total (``place 3``)
    legend: str  # how the text table shows what is hidden or covered
    turn_of: Callable[[Any], tuple[int, ...]]  # changes exactly when a turn ends
    reveal: Callable[..., str]  # (state, names) -> the table with everything hidden shown, once a hand ends
    help: str  # ``?`` at a move: what to type, the rule sections
    action_rules: str  # the rule book's section numbering the actions ("R13")
    misnamed: Callable[[Any, str], str | None] | None = None
    """(state, the first of two words typed) -> why they name no move (``K 3`` holding a Queen: "you
    hold Q, not K"), or None: the words a game's moves are named by beyond :attr:`words`."""
    ended_hand: Callable[[Any, int, np.random.Generator], Any] | None = None
    """(the state before an action, the action, a copy of the game's generator) -> the hand as it ends
    if the action ends one (its layouts, for :attr:`reveal`), else None: for games with hands inside
    a game (Trash's matches, R9), whose next hand is dealt at once."""


@dataclass(frozen=True)
class Engine:
    """A game's batched engine (Numba): many games of one configuration stepped in lockstep.

    ``batch`` is the entry point of its class (``"module:Class"``, imported at first use: Numba is an
    extra), made as ``Class(config, size, seed=None, exact=False, policies=None, opponents=None,
    learner_seat=None, parallel=None)``; ``policies`` names the baselines it plays inside itself, each
    choosing exactly as the Python agent of that name (``agents.registry``); ``exact_batch`` the
    exact-mode batch of duplicate evaluation, given the agents playing inside by name (an in-engine
    policy may need its agent's data: ``optimal``'s tables)."""

    batch: str
    policies: tuple[str, ...]
    fits: Callable[[Any], bool]  # the configuration is within the engine's limits
    exact_batch: Callable[[Any, int, list[list[str | None]], dict[str, Any]], Any]
    vec_env: str  # entry point of its Stable-Baselines3 vector env (the train extra)
    vector_env: str | None = None  # of its Gymnasium VectorEnv: the single-agent env's vector_entry_point

    def batch_type(self) -> type:
        return load_entry_point(self.batch)


@dataclass(frozen=True)
class Game:
    """One game's rules core behind the same functions for every game, and what the tools around it
    need (the module docstring)."""

    name: str  # the short name of ``--game``
    env_name: str  # the PettingZoo name, also the ``game`` of policy files and records
    title: str  # as people write it ("Help Your Neighbor")
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
    draw: Callable[..., str]  # (state, names, reveal=False) -> SVG
    # Records (trash_env.records): the game's fields beside the common ones, and its start from them.
    record_fields: Callable[[Any, Any, bool], dict[str, Any]]  # (state, deal, deal given) -> fields
    record_keys: tuple[str, ...]  # those fields, checked present; the first is the deal, a list
    record_validate: Callable[[dict[str, Any]], None]  # its own fields' values, before any replay
    record_deal: Callable[[Any, Any], Any]  # (a game's first state, the deal given or None) -> the deal recorded
    record_start: Callable[[dict[str, Any], Any, np.random.Generator], Any]  # (record, config, rng) -> state
    record_check: Callable[[dict[str, Any], Any], None]  # (record, replayed state): its own fields agree
    record_version: int
    # The tools around the game.
    presets: tuple[str, ...] = ("standard",)
    matches: bool = False  # whether ``--match`` plays a match of hands (R9)
    default_opponent: str = "random"  # the baseline to play against by default
    scored_baselines: tuple[str, ...] = ("random",)  # those ``trash-bench references`` scores
    heldout: tuple[str, ...] = ()  # the benchmark's held-out opponents on its tasks
    aec_entry_point: str | None = None  # "module:attribute" of the PettingZoo ``env()``
    single_agent_entry_point: str | None = None  # of the Gymnasium single-agent env class
    single_agent_id: str | None = None  # its Gymnasium id
    engine: Engine | None = None
    narrator: Narrator | None = None
    openspiel_entry_point: str | None = None  # the module that registers its OpenSpiel game
    sample_hidden: Callable[[Any, np.random.Generator], Any] | None = None
    """(a public view, a generator) -> a full state consistent with it, every arrangement of the hidden
    cards equally likely (belief sampling, for search from a seat's view: a local best response); None
    when nothing is hidden (the public view is the state)."""
    solved: bool = False  # two-player games solved exactly (agents.evaluation.exact, optimal)
    warm_up: dict[str, Callable[[], None]] | None = None  # its compiled kernels beyond the engine (trash_env.warmup)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def aec_env(self, **kwargs: Any) -> Any:
        """The game's PettingZoo AEC environment (``env()``, with the standard checks)."""
        return load_entry_point(self._needs("aec_entry_point", "an AEC environment"))(**kwargs)

    def single_agent_env(self, **kwargs: Any) -> Any:
        """The game's Gymnasium single-agent environment."""
        return load_entry_point(self._needs("single_agent_entry_point", "a single-agent environment"))(**kwargs)

    def vec_env(self, num_envs: int, **kwargs: Any) -> Any:
        """``num_envs`` single-agent games on the batched engine, as a Stable-Baselines3 ``VecEnv``."""
        if self.engine is None:
            raise ValueError(f"{self.title} has no batched engine")
        return load_entry_point(self.engine.vec_env)(num_envs, **kwargs)

    def vector_env(self, num_envs: int, **kwargs: Any) -> Any:
        """``num_envs`` single-agent games on the batched engine, as a Gymnasium ``VectorEnv``
        (:mod:`trash_env.vector_env`; what ``gymnasium.make_vec(single_agent_id, num_envs)`` makes)."""
        if self.engine is None or self.engine.vector_env is None:
            raise ValueError(f"{self.title} has no batched engine with a Gymnasium vector env")
        return load_entry_point(self.engine.vector_env)(num_envs, **kwargs)

    def _needs(self, field_name: str, what: str) -> str:
        entry = getattr(self, field_name)
        if entry is None:
            raise ValueError(f"{self.title} has no {what}")
        return entry


GAMES: dict[str, Game] = {}
"""Every game by its short name (``--game``): the package's (:mod:`trash_env.games` registers them when
``trash_env`` is imported) and those registered as plug-ins."""


def register_game(game: Game) -> Game:
    """Add ``game`` to :data:`GAMES` (a plug-in: a game defined outside the package), so that every tool
    finds it by name, by its configurations and by its records; a ValueError if another game has its
    name, environment name or configuration type."""
    for other in GAMES.values():
        if other is not game and (
            other.name == game.name or other.env_name == game.env_name or other.config_type is game.config_type
        ):
            raise ValueError(f"game {game.name!r} clashes with the game {other.name!r} (name, env name or config)")
    GAMES[game.name] = game
    return game


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


def game_of_record(record: Any) -> Game:
    """The game a game record is of (its ``"game"``, an environment name): a ValueError naming the
    games otherwise."""
    name = record.get("game") if isinstance(record, dict) else None
    for game in GAMES.values():
        if name == game.env_name:
            return game
    known = " or ".join(game.env_name for game in GAMES.values())
    raise ValueError(f"not a {known} game record")


def from_core(rules: ModuleType, **specific: Any) -> Game:
    """The descriptor of the game whose rules core is the module ``rules``: ``NUM_ACTIONS`` and the
    :data:`CORE_FUNCTIONS` taken from it by name, the rest ``specific`` to the game."""
    return Game(num_actions=rules.NUM_ACTIONS, **{name: getattr(rules, name) for name in CORE_FUNCTIONS}, **specific)


def load_entry_point(entry: str) -> Any:
    """The attribute an entry point names (``"trash_env.trash.env:env"``), its module imported now."""
    module, _, attribute = entry.partition(":")
    return getattr(importlib.import_module(module), attribute)
