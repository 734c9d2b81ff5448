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
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trash_env import files
from trash_env.game import Game, game_of_record
from trash_env.schema import Flag, Integer, Number, Text, first_problem, short

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


Seed = Annotated[Integer, Field(ge=0)]
Probability = Annotated[Number, Field(ge=0.0, le=1.0)]
ActionKey = Annotated[str, Field(strict=True, pattern=r"^[0-9]+$")]


class RecordFields(BaseModel):
    """The fields every game's record has (its game's own beside them are checked by its descriptor),
    in the order they are checked."""

    model_config = ConfigDict(extra="allow", strict=True)  # a list is a list, not a tuple

    config: dict[str, Any]
    seed: Seed | Annotated[list[Seed], Field(min_length=1)]  # NumPy seeds from either (evaluation: lists)
    actions: list[Any]
    over: Flag
    truncated: Flag
    winners: list[Integer]
    returns: list[Number]
    players: list[Text] | None = None  # optional: what pictures show
    probabilities: list[dict[ActionKey, Probability] | None] | None = None


# What each field must be, as a refusal says it.
_MUST_BE = {
    "config": "a dict of {title} fields",
    "seed": "a non-negative integer or a list of them",
    "actions": "a list",
    "over": "true or false",
    "truncated": "true or false",
    "winners": "a list of seats",
    "returns": "a list of numbers",
    "players": "a list of names",
    "probabilities": "a list with at most one entry per action",
}


def check_record(record: Any) -> None:
    """A ``ValueError`` naming what is wrong unless ``record`` is a record of a known game (nothing is
    replayed): a JSON object of its game's version with every field, each of its type (pydantic:
    :class:`RecordFields`), and the optional ``players`` and ``probabilities`` well formed."""
    game = game_of_record(record)
    found = record.get("version")
    if type(found) is not int or found != game.record_version:
        raise ValueError(f"game record version {found!r} is not supported (expected {game.record_version})")
    required = (name for name, field in RecordFields.model_fields.items() if field.is_required())
    missing = [k for k in dict.fromkeys(("config", "seed", *game.record_keys, *required)) if k not in record]
    if missing:
        raise ValueError(f"game record is missing {missing}")
    deal = game.record_keys[0]
    if not isinstance(record[deal], list):
        raise ValueError(f"game record {deal} must be a list, got {type(record[deal]).__name__}")
    try:
        fields = RecordFields.model_validate(record)
    except ValidationError as error:
        problem = first_problem(error)
        field = problem.field.partition("[")[0].partition(".")[0]
        if field == "probabilities" and problem.field != field:
            index = problem.field[len(field) + 1 :].partition("]")[0]
            raise ValueError(
                f'game record probabilities #{index} must be null or {{"action": p}} with p in [0, 1], '
                f"got {short(record[field][int(index)])}"
            ) from None
        shown = type(record[field]).__name__ if field == "actions" else short(record[field])
        must = _MUST_BE[field].format(title=game.title)
        raise ValueError(f"game record {field} must be {must}, got {shown}") from None
    if fields.probabilities is not None and len(fields.probabilities) > len(fields.actions):
        raise ValueError(f"game record probabilities must be {_MUST_BE['probabilities']}")
    game.record_validate(record)


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
                f"the record states {field} {short(record[field])}, but its actions give {short(replayed[field])}"
            )


def _same(stated: Any, found: Any) -> bool:
    """Equal values, a boolean never equal to a number."""
    if isinstance(stated, list) and isinstance(found, list):
        return len(stated) == len(found) and all(map(_same, stated, found))
    return isinstance(stated, bool) == isinstance(found, bool) and stated == found


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
