"""Game records: every episode as plain JSON data, and its replay to the identical end.

:func:`replay` reads the records of both games, ``trash_v0`` and
``help_your_neighbor_v0`` (see :func:`make_neighbor_record`).

A record holds the configuration, the episode's seed, the first hand's deck,
and every action applied to the core in order (forced moves included), so a
replay needs neither the environment nor the agents. The seed drives every
random event after the deal: reshuffles (R7) and the decks of later hands in
a match (R9).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from trash_env import files
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.rules import NeighborConfig, NeighborState
from trash_env.trash.config import RulesConfig
from trash_env.trash.rules import GameState, apply_action, new_game, returns

RECORD_VERSION = 1
GAME_NAME = "trash_v0"


def make_record(
    config: RulesConfig,
    seed: int | list[int],
    deck: list[int],
    deck_given: bool,
    actions: list[int],
    state: GameState,
) -> dict[str, Any]:
    """A JSON-serialisable record of one episode (``state`` is where it stands now).

    Records may carry optional fields that replay ignores and pictures show
    (:mod:`trash_env.rendering.media`): ``players`` (a name per seat) and ``probabilities`` (per
    action, None or the acting policy's probability of each legal action, ``{"action": p}``).
    """
    return {
        "game": GAME_NAME,
        "version": RECORD_VERSION,
        "config": config.to_dict(),
        "seed": _seed(seed),
        "deck": [int(c) for c in deck],
        "deck_source": "given" if deck_given else "shuffled",
        "actions": [int(a) for a in actions],
        "over": state.over,
        "truncated": state.truncated,
        "winners": list(state.winners),
        "returns": returns(state),
    }


def replay(record: dict[str, Any], on_step: Callable[[Any, int, int], None] | None = None) -> GameState | NeighborState:
    """Play a record's actions from its deal (or dice) and return the final state. ``on_step(state,
    index, action)``, if given, is called at the start (index and action -1) and after each action
    (the pictures of a replay).

    A record that is not one of these games, or whose actions are not legal
    where they stand, is a ``ValueError`` naming the problem.
    """
    if isinstance(record, dict) and record.get("game") == NEIGHBOR_GAME_NAME:
        return _replay_neighbor(record, on_step)
    if not isinstance(record, dict) or record.get("game") != GAME_NAME:
        raise ValueError(f"not a {GAME_NAME} or {NEIGHBOR_GAME_NAME} game record")
    keys = ("config", "seed", "deck", "deck_source", "actions")
    _check_record(record, RECORD_VERSION, keys, ("deck", "actions"), "rules")
    if record["deck_source"] not in ("given", "shuffled"):
        raise ValueError(f"game record deck_source must be 'given' or 'shuffled', got {record['deck_source']!r}")
    config = RulesConfig.from_dict(record["config"])
    rng = np.random.default_rng(record["seed"])
    given = record["deck_source"] == "given"
    state = new_game(config, rng, record["deck"] if given else None)
    if state.deck != list(record["deck"]):
        raise ValueError("the record's deck does not match the deck its seed shuffles")
    if on_step is not None:
        on_step(state, -1, -1)  # the deal
    for index, action in enumerate(record["actions"]):
        try:
            apply_action(state, action, rng)
        except ValueError as error:
            raise ValueError(f"game record action #{index} cannot be replayed: {error}") from None
        if on_step is not None:
            on_step(state, index, action)
    return state


def _check_record(
    record: dict[str, Any], version: int, keys: tuple[str, ...], lists: tuple[str, ...], fields: str
) -> None:
    """What every game's record must have: its ``version``, the ``keys``, a non-negative integer
    seed, the ``lists`` as lists, the config as a dict of ``fields`` fields. A ValueError names
    what is wrong."""
    found = record.get("version")
    if type(found) is not int or found != version:
        raise ValueError(f"game record version {found!r} is not supported (expected {version})")
    missing = [k for k in keys if k not in record]
    if missing:
        raise ValueError(f"game record is missing {missing}")
    seed = record["seed"]
    if not _is_seed(seed):
        raise ValueError(f"game record seed must be a non-negative integer or a list of them, got {seed!r}")
    for field in lists:
        if not isinstance(record[field], list):
            raise ValueError(f"game record {field} must be a list, got {type(record[field]).__name__}")
    if not isinstance(record["config"], dict):
        raise ValueError(f"game record config must be a dict of {fields} fields")


def _is_seed(seed: Any) -> bool:
    """A non-negative int, or a non-empty list of them (NumPy seeds a generator from either; the
    evaluation's games are seeded by lists)."""
    items = seed if isinstance(seed, list) and seed else [seed]
    return all(isinstance(item, int) and not isinstance(item, bool) and item >= 0 for item in items)


def _seed(seed: Any) -> int | list[int]:
    return [int(item) for item in seed] if isinstance(seed, (list, tuple)) else int(seed)


def save_record(record: dict[str, Any], path: str | Path) -> None:
    files.write_text(path, json.dumps(record))


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not a JSON game record: {error}") from None


# --------------------------------------------------------------------------
# Help Your Neighbor (R12)

NEIGHBOR_GAME_NAME = "help_your_neighbor_v0"
NEIGHBOR_RECORD_VERSION = 1


def make_neighbor_record(
    config: NeighborConfig, seed: int | list[int], dice: list[int], state: NeighborState, actions: list[int]
) -> dict[str, Any]:
    """A JSON-serialisable record of one Help Your Neighbor game: its seed, the
    stacked dice it started with, every action (forced rolls included) and, as a
    check, every total rolled (optional fields as in :func:`make_record`)."""
    return {
        "game": NEIGHBOR_GAME_NAME,
        "version": NEIGHBOR_RECORD_VERSION,
        "config": config.to_dict(),
        "seed": _seed(seed),
        "dice": [int(t) for t in dice],
        "actions": [int(a) for a in actions],
        "rolls": list(state.rolls),
        "over": state.over,
        "truncated": state.truncated,
        "winners": list(state.winners),
        "returns": neighbor.returns(state),
    }


def _replay_neighbor(record: dict[str, Any], on_step: Callable[[Any, int, int], None] | None = None) -> NeighborState:
    keys = ("config", "seed", "dice", "actions", "rolls")
    _check_record(record, NEIGHBOR_RECORD_VERSION, keys, ("dice", "actions"), "Help Your Neighbor")
    config = NeighborConfig.from_dict(record["config"])
    rng = np.random.default_rng(record["seed"])
    state = neighbor.new_game(config, record["dice"])
    if on_step is not None:
        on_step(state, -1, -1)  # the start
    for index, action in enumerate(record["actions"]):
        try:
            neighbor.apply_action(state, action, rng)
        except ValueError as error:
            raise ValueError(f"game record action #{index} cannot be replayed: {error}") from None
        if on_step is not None:
            on_step(state, index, action)
    if record["rolls"] != state.rolls:
        raise ValueError("the record's rolls do not match the rolls its seed and dice give")
    return state
