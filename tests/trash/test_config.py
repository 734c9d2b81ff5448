"""Configuration (R1, R7, R11) and explicit deck orders (R1, R3).

The presets are checked field by field against the table of R11; every invalid
configuration must be a ``ValueError`` whose message names the offending field,
and every bad deck a ``ValueError`` saying what is wrong with it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pytest

from trash_env.trash.config import PRESETS, TrashConfig, make_config
from trash_env.trash.rules import check_deck, full_deck, new_game

STANDARD = {
    "num_players": 2,
    "layout_size": 10,
    "wild": "K",
    "jokers": False,
    "discard_draw": "playable",
    "final_turn": True,
    "match": False,
    "starter": "rotate",
    "num_decks": 1,
    "max_turns": 1000,
}

# R11, row by row: each preset's differences from the standard game.
PRESET_FIELDS = {
    "standard": {},
    "pagat": {"wild": "J", "discard_draw": "any", "final_turn": False, "starter": "winner"},
    "jokers": {"jokers": True},
    "eight_card": {"layout_size": 8},
    "seven_up": {"layout_size": 7, "wild": None, "discard_draw": "never", "final_turn": False},
}


def test_the_presets_are_those_of_r11() -> None:
    assert set(PRESETS) == set(PRESET_FIELDS)


@pytest.mark.parametrize("preset", PRESET_FIELDS)
def test_preset_fields(preset: str) -> None:
    """R11: every field of every preset, with R1 and R7 defaults filled in."""
    assert make_config(preset).to_dict() == {**STANDARD, **PRESET_FIELDS[preset]}


@pytest.mark.parametrize("preset", PRESET_FIELDS)
def test_match_can_be_switched_on_for_every_preset(preset: str) -> None:
    """R11, R7: ``match`` is off by default and can be switched on for any preset;
    a match defaults to 10000 turns."""
    cfg = make_config(preset, match=True)
    assert cfg.to_dict() == {**STANDARD, **PRESET_FIELDS[preset], "match": True, "max_turns": 10_000}


@pytest.mark.parametrize(
    ("preset", "overrides", "expected"),
    [
        (
            "pagat",
            {"num_players": 4},
            {"wild": "J", "discard_draw": "any", "final_turn": False, "starter": "winner", "num_decks": 2},
        ),
        ("seven_up", {"wild": "K", "final_turn": True}, {"layout_size": 7, "wild": "K", "discard_draw": "never"}),
        ("jokers", {"num_decks": 3, "max_turns": 50}, {"jokers": True, "num_decks": 3, "max_turns": 50}),
        ("eight_card", {"match": True, "starter": "winner"}, {"layout_size": 8, "max_turns": 10_000}),
        ("standard", {"wild": None, "discard_draw": "any"}, {"wild": None, "discard_draw": "any"}),
    ],
)
def test_overrides_on_a_preset(preset: str, overrides: dict[str, Any], expected: dict[str, Any]) -> None:
    """R11: any field can be overridden on top of a preset; the rest stays."""
    cfg = make_config(preset, **overrides)
    assert cfg.to_dict() == {**STANDARD, **PRESET_FIELDS[preset], **overrides, **expected}


@pytest.mark.parametrize(("num_players", "num_decks"), [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 3), (8, 3)])
def test_default_number_of_decks(num_players: int, num_decks: int) -> None:
    """R1: one deck for 2 players, two for 3-4, three for 5-8."""
    cfg = make_config(num_players=num_players)
    assert cfg.num_decks == num_decks
    assert cfg.deck_size == 52 * num_decks
    assert cfg.copies_per_rank == (0,) + (4 * num_decks,) * 13


def test_jokers_add_two_per_deck() -> None:
    """R1: with jokers a deck holds two Jokers (rank 0)."""
    assert make_config("jokers").deck_size == 54
    cfg = make_config("jokers", num_players=3)
    assert (cfg.deck_size, cfg.copies_per_rank[0]) == (108, 4)


def test_default_max_turns() -> None:
    """R7: 1000 turns for a hand, 10000 for a match, unless configured."""
    assert make_config().max_turns == 1000
    assert make_config(match=True).max_turns == 10_000
    assert make_config(match=True, max_turns=7).max_turns == 7


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": 2.0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"layout_size": 0}, "layout_size"),
        ({"layout_size": 11}, "layout_size"),
        ({"wild": "Q"}, "wild"),
        ({"wild": "k"}, "wild"),
        ({"jokers": 1}, "jokers"),
        ({"discard_draw": "x"}, "discard_draw"),
        ({"final_turn": "yes"}, "final_turn"),
        ({"match": None}, "match"),
        ({"starter": "x"}, "starter"),
        ({"num_decks": 0}, "num_decks"),
        ({"max_turns": 0}, "max_turns"),
        ({"num_players": 6, "num_decks": 1}, "num_decks"),  # 60 slots, 52 cards
        ({"num_players": 6, "layout_size": 9, "jokers": True, "num_decks": 1}, "num_decks"),  # no stock left
        ({"colour": "red"}, "colour"),
    ],
)
def test_invalid_configuration_names_the_field(overrides: dict[str, Any], field: str) -> None:
    """R1 and every field: an invalid configuration is a ValueError naming the field."""
    with pytest.raises(ValueError, match=rf"\b{field}\b"):
        make_config(**overrides)


def test_too_few_cards_says_why() -> None:
    """R1: the error for a deck too small says what cannot be dealt."""
    with pytest.raises(ValueError, match=r"52 cards cannot deal 6 layouts of 10"):
        make_config(num_players=6, num_decks=1)


@pytest.mark.parametrize(
    "overrides",
    [
        {"num_players": 5, "num_decks": 1},  # 50 dealt, exactly two left for the stock
        {"num_players": 8},
        {"num_players": 2, "layout_size": 1},
        {"num_players": 8, "layout_size": 10, "num_decks": 2},
    ],
)
def test_configurations_at_the_limits_are_valid(overrides: dict[str, Any]) -> None:
    """R1: a configuration that deals every layout and leaves two stock cards is valid."""
    cfg = make_config(**overrides)
    assert cfg.deck_size - cfg.num_players * cfg.layout_size >= 2


def test_unknown_preset_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"\bpreset\b"):
        make_config("tournament")


def test_numpy_integers_become_plain_ints() -> None:
    cfg = make_config(num_players=np.int64(3), layout_size=np.int32(8))
    assert (cfg.num_players, cfg.layout_size) == (3, 8)
    assert type(cfg.num_players) is int and type(cfg.layout_size) is int


def test_config_is_frozen_and_round_trips_through_a_dict() -> None:
    cfg = make_config("pagat", num_players=3, match=True)
    assert TrashConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.num_players = 4  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"\bcolour\b"):
        TrashConfig.from_dict({**cfg.to_dict(), "colour": "red"})


# --------------------------------------------------------------------------
# Explicit deck orders (R1, R3)


def replaced(deck: list[Any], position: int, card: Any) -> list[Any]:
    return [*deck[:position], card, *deck[position + 1 :]]


def test_a_full_deck_in_any_order_is_accepted() -> None:
    """R3: any order of exactly the configured cards, as ints or numpy integers."""
    cfg = make_config("jokers")
    deck = np.random.default_rng(0).permutation(full_deck(cfg))
    assert check_deck(cfg, deck) == deck.tolist()
    assert all(type(card) is int for card in check_deck(cfg, deck))


KING_AT = 51  # the last card of the standard deck in rank order


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        pytest.param(full_deck(make_config())[:-1], "51 cards but the configuration uses 52", id="short"),
        pytest.param([*full_deck(make_config()), 1], "53 cards but the configuration uses 52", id="long"),
        pytest.param(replaced(full_deck(make_config()), 7, 14), "deck[7] = 14 is not a rank", id="rank-14"),
        pytest.param(replaced(full_deck(make_config()), 7, -1), "deck[7] = -1 is not a rank", id="rank-minus-1"),
        pytest.param(replaced(full_deck(make_config()), 3, 1.5), "deck[3] = 1.5 is not a rank", id="float"),
        pytest.param(replaced(full_deck(make_config()), 3, "A"), "deck[3] = 'A' is not a rank", id="string"),
        pytest.param(replaced(full_deck(make_config()), 3, True), "deck[3] = True is not a rank", id="bool"),
        pytest.param(
            replaced(full_deck(make_config()), KING_AT, 0),
            "1 copies of Jk (rank 0); the configuration has 0",
            id="joker-without-jokers",
        ),
        pytest.param(
            replaced(full_deck(make_config()), KING_AT, 1),
            "5 copies of A (rank 1); the configuration has 4",
            id="five-aces",
        ),
        pytest.param("A23456789TJQK" * 4, "a deck must be a list of ranks", id="not-a-list"),
    ],
)
def test_check_deck_says_what_is_wrong(deck: Any, message: str) -> None:
    """R1, R3: a deck that is not exactly the configured cards is a ValueError that
    says what is wrong; new_game refuses it too."""
    cfg = make_config()
    with pytest.raises(ValueError, match=re.escape(message)):
        check_deck(cfg, deck)
    with pytest.raises(ValueError, match=re.escape(message)):
        new_game(cfg, np.random.default_rng(0), deck)


def test_a_jokers_deck_needs_its_jokers() -> None:
    """R1: with jokers the deck must hold two Jokers per deck."""
    cfg = make_config("jokers")
    deck = [1 if card == 0 else card for card in full_deck(cfg)]
    with pytest.raises(ValueError, match=re.escape("0 copies of Jk (rank 0); the configuration has 2")):
        check_deck(cfg, deck)


def test_the_names_before_the_game_prefix_still_work_with_a_warning() -> None:
    """Trash's classes carry the game's prefix as Help Your Neighbor's do (TrashConfig, TrashState,
    TrashObserver, TrashGlobalState); the old names still give them, with a DeprecationWarning naming
    the new one."""
    import trash_env
    from trash_env.trash import config, observation, rules

    for module, old, new in (
        (config, "RulesConfig", config.TrashConfig),
        (trash_env, "RulesConfig", config.TrashConfig),
        (rules, "GameState", rules.TrashState),
        (observation, "Observer", observation.TrashObserver),
        (observation, "GlobalState", observation.TrashGlobalState),
    ):
        with pytest.warns(DeprecationWarning, match=f"renamed {new.__name__}"):
            assert getattr(module, old) is new
    with pytest.raises(AttributeError):
        config.NoSuchName  # noqa: B018
