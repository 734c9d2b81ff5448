"""Trash as one :class:`~trash_env.game.Game` descriptor (R1-R11, R13, R15): everything the tools
around the game reach it through (``trash_env.games`` collects it)."""

from __future__ import annotations

import reprlib
from typing import Any

import numpy as np

from trash_env.game import Engine, from_core
from trash_env.trash import rules as trash
from trash_env.trash.belief import public_view, sample_hidden_state
from trash_env.trash.config import PRESETS, TrashConfig, make_config
from trash_env.trash.drawing import trash_svg
from trash_env.trash.narration import NARRATOR
from trash_env.trash.observation import OBSERVATION_VERSION, TrashGlobalState, TrashObserver
from trash_env.trash.text import render_table

RECORD_VERSION = 1


def record_fields(state: trash.TrashState, deck: Any, given: bool) -> dict[str, Any]:
    """A record's deal: the first hand's deck (R3), and whether it was given (stacked) or shuffled."""
    return {"deck": [int(card) for card in deck], "deck_source": "given" if given else "shuffled"}


def record_validate(record: dict[str, Any]) -> None:
    if record["deck_source"] not in ("given", "shuffled"):
        raise ValueError(
            f"game record deck_source must be 'given' or 'shuffled', got {reprlib.repr(record['deck_source'])}"
        )


def record_start(record: dict[str, Any], config: TrashConfig, rng: np.random.Generator) -> trash.TrashState:
    """The deal a record states, checked: a stacked deck as given; a shuffled one must be the one its
    seed shuffles."""
    given = record["deck_source"] == "given"
    state = trash.new_game(config, rng, record["deck"] if given else None)
    if state.deck != list(record["deck"]):
        raise ValueError("the record's deck does not match the deck its seed shuffles")
    return state


def engine_fits(config: TrashConfig) -> bool:
    """Whether the batched engine plays ``config``: up to three decks with Jokers, turns counted in int16."""
    from trash_env.engine_host import MAX_TURNS
    from trash_env.trash.batched import MAX_DECK

    return config.deck_size <= MAX_DECK and config.max_turns <= MAX_TURNS


def exact_batch(config: TrashConfig, size: int, inside: list[list[str | None]], agents: dict[str, Any]) -> Any:
    """An exact-mode batch for duplicate evaluation, ``inside[b][seat]`` the in-engine player of each seat."""
    from trash_env.trash.batched import TrashBatch

    return TrashBatch(config, size, exact=True, policies=inside)


GAME = from_core(
    trash,
    name="trash",
    env_name="trash_v0",
    title="Trash",
    make_config=make_config,
    config_type=TrashConfig,
    deal_option="deck",
    check_deal=trash.check_deck,
    new_deal=trash.shuffled_deck,
    new_game=trash.new_game,
    make_observer=TrashObserver,
    make_global_state=TrashGlobalState,
    observation_version=OBSERVATION_VERSION,
    public_view=public_view,
    render=render_table,
    draw=trash_svg,
    record_fields=record_fields,
    record_keys=("deck", "deck_source"),
    record_deal=lambda state, deck: list(state.deck if deck is None else deck),  # the first hand's deck
    record_validate=record_validate,
    record_start=record_start,
    record_check=lambda record, state: None,  # the deck was checked at the start
    record_version=RECORD_VERSION,
    presets=tuple(PRESETS),
    matches=True,
    default_opponent="greedy",
    scored_baselines=("random", "greedy", "counter"),
    heldout=("counter",),
    aec_entry_point="trash_env.trash.env:env",
    single_agent_entry_point="trash_env.trash.single_agent:TrashSingleAgentEnv",
    single_agent_id="TrashSingleAgent-v0",
    engine=Engine(
        batch="trash_env.trash.batched:TrashBatch",
        policies=("random", "greedy", "counter"),
        fits=engine_fits,
        exact_batch=exact_batch,
        vec_env="trash_env.trash.vec_env:TrashVecEnv",
        vector_env="trash_env.trash.vector_env:TrashVectorEnv",
    ),
    narrator=NARRATOR,
    openspiel_entry_point="trash_env.trash.openspiel",
    sample_hidden=sample_hidden_state,
)
"""Trash: everything the tools around the game reach it through."""
