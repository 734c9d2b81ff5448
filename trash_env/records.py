"""Game records: every episode as plain JSON data, and its replay to the identical end.

A record holds the configuration, the episode's seed, the first hand's deck,
and every action applied to the core in order (forced moves included), so a
replay needs neither the environment nor the agents. The seed drives every
random event after the deal: reshuffles (R7) and the decks of later hands in
a match (R9).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from trash_env.config import RulesConfig
from trash_env.core import GameState, apply_action, new_game, returns

RECORD_VERSION = 1
GAME_NAME = "trash_v0"


def make_record(
    config: RulesConfig, seed: int, deck: list[int], deck_given: bool, actions: list[int], state: GameState
) -> dict[str, Any]:
    """A JSON-serialisable record of one episode (``state`` is where it stands now)."""
    return {
        "game": GAME_NAME,
        "version": RECORD_VERSION,
        "config": config.to_dict(),
        "seed": int(seed),
        "deck": [int(c) for c in deck],
        "deck_source": "given" if deck_given else "shuffled",
        "actions": [int(a) for a in actions],
        "over": state.over,
        "truncated": state.truncated,
        "winners": list(state.winners),
        "returns": returns(state),
    }


def replay(record: dict[str, Any]) -> GameState:
    """Play a record's actions from its deal and return the final state.

    A record that is not one of this game, or whose actions are not legal
    where they stand, is a ``ValueError`` naming the problem.
    """
    if not isinstance(record, dict) or record.get("game") != GAME_NAME:
        raise ValueError(f"not a {GAME_NAME} game record")
    version = record.get("version")
    if type(version) is not int or version != RECORD_VERSION:
        raise ValueError(f"game record version {version!r} is not supported (expected {RECORD_VERSION})")
    missing = [k for k in ("config", "seed", "deck", "deck_source", "actions") if k not in record]
    if missing:
        raise ValueError(f"game record is missing {missing}")
    if isinstance(record["seed"], bool) or not isinstance(record["seed"], int) or record["seed"] < 0:
        raise ValueError(f"game record seed must be a non-negative integer, got {record['seed']!r}")
    for field in ("deck", "actions"):
        if not isinstance(record[field], list):
            raise ValueError(f"game record {field} must be a list, got {type(record[field]).__name__}")
    if record["deck_source"] not in ("given", "shuffled"):
        raise ValueError(f"game record deck_source must be 'given' or 'shuffled', got {record['deck_source']!r}")
    if not isinstance(record["config"], dict):
        raise ValueError("game record config must be a dict of rules fields")
    config = RulesConfig.from_dict(record["config"])
    rng = np.random.default_rng(record["seed"])
    given = record["deck_source"] == "given"
    state = new_game(config, rng, record["deck"] if given else None)
    if state.deck != list(record["deck"]):
        raise ValueError("the record's deck does not match the deck its seed shuffles")
    for index, action in enumerate(record["actions"]):
        try:
            apply_action(state, action, rng)
        except ValueError as error:
            raise ValueError(f"game record action #{index} cannot be replayed: {error}") from None
    return state


def save_record(record: dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record))


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not a JSON game record: {error}") from None
