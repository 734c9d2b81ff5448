"""Game records: every episode as plain JSON data, and its replay to the identical end.

A record holds the configuration, the episode's seed, its deal (Trash: the first hand's deck,
stacked or shuffled; Help Your Neighbor: the stacked dice, and as a check every total rolled), and
every action applied to the core in order (forced moves included), so a replay needs neither the
environment nor the agents. The seed drives every random event after the deal: reshuffles (R7), the
decks of later hands in a match (R9), the dice. What a record holds beside the common fields is its
game's (the descriptor's ``record_fields``, ``record_start``, ``record_check``), so one replay reads
the records of every game: :func:`replay` finds the game by the record's ``"game"``.

A record is data, never code: :func:`load_record` reads a file as JSON only, and
:func:`check_record` refuses (one ``ValueError`` line) anything that is not the object of a record
of a known game with its fields of the right types. A replay checks the result the record states
(``over``, ``truncated``, ``winners``, ``returns``) against the one its actions give, so a record
cannot claim another.
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from trash_env import files
from trash_env.game import Game, game_of_record

RESULT_FIELDS = ("over", "truncated", "winners", "returns")  # what a record states of its end, checked on replay


def make_record(
    game: Game, config: Any, seed: int | list[int], deal: Any, deal_given: bool, actions: list[int], state: Any
) -> dict[str, Any]:
    """A JSON-serialisable record of one episode of ``game`` (``state`` is where it stands now; ``deal``
    what it was dealt from, given or drawn from the seed).

    Records may carry optional fields that replay ignores and pictures show
    (:mod:`trash_env.rendering.media`): ``players`` (a name per seat) and ``probabilities`` (per
    action, None or the acting policy's probability of each legal action, ``{"action": p}``).
    """
    return {
        "game": game.env_name,
        "version": game.record_version,
        "config": config.to_dict(),
        "seed": _seed(seed),
        **game.record_fields(state, deal, deal_given),
        "actions": [int(a) for a in actions],
        "over": state.over,
        "truncated": state.truncated,
        "winners": list(state.winners),
        "returns": game.returns(state),
    }


def replay(record: dict[str, Any], on_step: Callable[[Any, int, int], None] | None = None) -> Any:
    """Play a record's actions from its deal and return the final state. ``on_step(state, index,
    action)``, if given, is called at the start (index and action -1) and after each action (the
    pictures of a replay).

    A record that is not one of a known game (:func:`check_record`), whose actions are not legal
    where they stand, or whose stated result is not the one they give is a ``ValueError`` naming
    the problem.
    """
    check_record(record)
    game = game_of_record(record)
    config = game.config_type.from_dict(record["config"])
    rng = np.random.default_rng(record["seed"])
    state = game.record_start(record, config, rng)
    if on_step is not None:
        on_step(state, -1, -1)  # the deal
    for index, action in enumerate(record["actions"]):
        try:
            game.apply_action(state, action, rng)
        except ValueError as error:
            raise ValueError(f"game record action #{index} cannot be replayed: {error}") from None
        if on_step is not None:
            on_step(state, index, action)
    game.record_check(record, state)
    _check_result(record, state, game.returns(state))
    return state


def check_record(record: Any) -> None:
    """A ``ValueError`` naming what is wrong unless ``record`` is a record of a known game (nothing is
    replayed): a JSON object of its game's version with every field, each of its type, and the
    optional ``players`` and ``probabilities`` well formed."""
    game = game_of_record(record)
    keys = ("config", "seed", *game.record_keys, "actions", *RESULT_FIELDS)
    _check_record(record, game.record_version, keys, (game.record_keys[0], "actions"), game.title)
    game.record_validate(record)
    _check_result_types(record)
    _check_extras(record)


def _check_record(
    record: dict[str, Any], version: int, keys: tuple[str, ...], lists: tuple[str, ...], title: str
) -> None:
    """What every game's record must have: its ``version``, the ``keys``, a non-negative integer
    seed, the ``lists`` as lists, the config as a dict of its game's fields. A ValueError names
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
        raise ValueError(f"game record config must be a dict of {title} fields")


def _check_result_types(record: dict[str, Any]) -> None:
    """The stated result's types: ``over`` and ``truncated`` booleans, ``winners`` a list of seats,
    ``returns`` a list of numbers (their values are checked against the replay)."""
    for field in ("over", "truncated"):
        if not isinstance(record[field], bool):
            raise ValueError(f"game record {field} must be true or false, got {_short(record[field])}")
    if not (isinstance(record["winners"], list) and all(_is_int(seat) for seat in record["winners"])):
        raise ValueError(f"game record winners must be a list of seats, got {_short(record['winners'])}")
    if not (isinstance(record["returns"], list) and all(_is_number(r) for r in record["returns"])):
        raise ValueError(f"game record returns must be a list of numbers, got {_short(record['returns'])}")


def _check_extras(record: dict[str, Any]) -> None:
    """The optional fields pictures show: ``players`` a list of names, ``probabilities`` a list (one
    per action at most) of null or ``{"action": p}`` with ``p`` in [0, 1]."""
    players = record.get("players")
    if players is not None and not (isinstance(players, list) and all(isinstance(p, str) for p in players)):
        raise ValueError(f"game record players must be a list of names, got {_short(players)}")
    chances = record.get("probabilities")
    if chances is None:
        return
    if not isinstance(chances, list) or len(chances) > len(record["actions"]):
        raise ValueError("game record probabilities must be a list with at most one entry per action")
    for index, entry in enumerate(chances):
        if entry is not None and not (
            isinstance(entry, dict)
            and all(key.isascii() and key.isdigit() and _is_number(p) and 0 <= p <= 1 for key, p in entry.items())
        ):
            raise ValueError(
                f'game record probabilities #{index} must be null or {{"action": p}} with p in [0, 1], '
                f"got {_short(entry)}"
            )


def _check_result(record: dict[str, Any], state: Any, replayed_returns: list[float]) -> None:
    """A ``ValueError`` unless the result the record states is the one its replay reached."""
    replayed = {
        "over": state.over,
        "truncated": state.truncated,
        "winners": list(state.winners),
        "returns": replayed_returns,
    }
    for field in RESULT_FIELDS:
        if not _same(record[field], replayed[field]):
            raise ValueError(
                f"the record states {field} {_short(record[field])}, but its actions give {_short(replayed[field])}"
            )


def _same(stated: Any, found: Any) -> bool:
    """Equal values, a boolean never equal to a number."""
    if isinstance(stated, list) and isinstance(found, list):
        return len(stated) == len(found) and all(map(_same, stated, found))
    return isinstance(stated, bool) == isinstance(found, bool) and stated == found


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _short(value: Any) -> str:
    """A value for a one-line message, cut short if long."""
    return reprlib.repr(value)


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
    """The record in the JSON file ``path``, checked (:func:`check_record`; not replayed): a
    ``ValueError`` naming the file and what is wrong for an unreadable file, one that is not JSON
    (NaN and infinity are not), or JSON that is not a game record. Reading it runs nothing."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as error:
        raise ValueError(f"cannot read the game record {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not a JSON game record: it is not UTF-8 text ({error.reason})") from None
    try:
        record = json.loads(text, parse_constant=_no_constant)
    except ValueError as error:  # a JSONDecodeError, or NaN or infinity
        raise ValueError(f"{path} is not a JSON game record: {error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a game record: its JSON is nested too deeply") from None
    if not isinstance(record, dict):
        raise ValueError(f"{path} is not a game record: it holds a JSON {_json_kind(record)}, not an object")
    try:
        check_record(record)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return record


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _json_kind(value: Any) -> str:
    kinds = {list: "list", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)
