"""Rules configuration: the fields of RULES.md, the presets of R11 and their checks.

A :class:`TrashConfig` is an immutable value. Build one from a preset with
overrides on top (``make_config("pagat", num_players=4)``); every invalid
configuration raises a ``ValueError`` that names the offending field (R1).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from trash_env.kernel import check_int, known_fields, renamed

WILD_CHOICES = ("K", "J", None)
DISCARD_DRAW_CHOICES = ("playable", "any", "never")
STARTER_CHOICES = ("rotate", "winner")
MAX_LAYOUT = 10  # R2: slots 0..9, the Ace slot to the Ten slot
MIN_PLAYERS, MAX_PLAYERS = 2, 8  # R1
HAND_MAX_TURNS, MATCH_MAX_TURNS = 1_000, 10_000  # R7 defaults


def default_num_decks(num_players: int) -> int:
    """R1: one deck for 2 players, two for 3-4, three for 5-8."""
    if num_players <= 2:
        return 1
    return 2 if num_players <= 4 else 3


@dataclass(frozen=True)
class TrashConfig:
    """Every rule choice of RULES.md as one immutable value.

    ``num_decks`` and ``max_turns`` left as ``None`` are filled in from R1 and
    R7; the stored config always holds concrete values.
    """

    num_players: int = 2
    layout_size: int = 10
    wild: str | None = "K"
    jokers: bool = False
    discard_draw: str = "playable"
    final_turn: bool = True
    match: bool = False
    starter: str = "rotate"
    num_decks: int | None = None
    max_turns: int | None = None

    def __post_init__(self) -> None:
        check_int(self, "num_players", MIN_PLAYERS, MAX_PLAYERS)
        check_int(self, "layout_size", 1, MAX_LAYOUT)
        _check_choice("wild", self.wild, WILD_CHOICES)
        _check_bool("jokers", self.jokers)
        _check_choice("discard_draw", self.discard_draw, DISCARD_DRAW_CHOICES)
        _check_bool("final_turn", self.final_turn)
        _check_bool("match", self.match)
        _check_choice("starter", self.starter, STARTER_CHOICES)
        if self.num_decks is None:
            object.__setattr__(self, "num_decks", default_num_decks(self.num_players))
        check_int(self, "num_decks", 1, None)
        if self.max_turns is None:
            default = MATCH_MAX_TURNS if self.match else HAND_MAX_TURNS
            object.__setattr__(self, "max_turns", default)
        check_int(self, "max_turns", 1, None)
        dealt = self.num_players * self.layout_size
        if self.deck_size - dealt < 2:
            raise ValueError(
                f"num_decks={self.num_decks}: a deck of {self.deck_size} cards cannot deal "
                f"{self.num_players} layouts of {self.layout_size} and leave two cards for "
                "the stock (R1); use more decks, fewer players or a smaller layout_size"
            )

    @functools.cached_property
    def copies_per_rank(self) -> tuple[int, ...]:
        """Copies of each rank 0..13 in the full deck (index 0 = Joker), R1."""
        jokers = 2 * self.num_decks if self.jokers else 0
        return (jokers,) + (4 * self.num_decks,) * 13

    @property
    def deck_size(self) -> int:
        return sum(self.copies_per_rank)

    @functools.cached_property
    def ordered_deck(self) -> tuple[int, ...]:
        """The configured cards in rank order (R1)."""
        return tuple(rank for rank, copies in enumerate(self.copies_per_rank) for _ in range(copies))

    @functools.cached_property
    def wild_ranks(self) -> tuple[int, ...]:
        """Ranks that are wild (R6): Kings or Jacks per ``wild``, Jokers if present."""
        ranks = {"K": (13,), "J": (11,), None: ()}[self.wild]
        return ranks + ((0,) if self.jokers else ())

    @functools.cached_property
    def is_wild(self) -> tuple[bool, ...]:
        """Per rank 0..13, whether it is wild (R6)."""
        return tuple(rank in self.wild_ranks for rank in range(14))

    def to_dict(self) -> dict[str, Any]:
        """The configuration as plain JSON-serialisable values."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrashConfig:
        """Inverse of :meth:`to_dict`; unknown keys are an error naming them."""
        return cls(**known_fields(cls, data))


PRESETS: dict[str, dict[str, Any]] = {
    # R11. Every preset plays single hands unless ``match=True`` is given.
    "standard": {},
    "pagat": {"wild": "J", "discard_draw": "any", "final_turn": False, "starter": "winner"},
    "jokers": {"jokers": True},
    "eight_card": {"layout_size": 8},
    "seven_up": {"layout_size": 7, "wild": None, "discard_draw": "never", "final_turn": False},
}


def make_config(preset: str = "standard", **overrides: Any) -> TrashConfig:
    """A preset of R11 with any field overridden on top.

        >>> make_config("pagat", num_players=3).wild
        'J'
    """
    if preset not in PRESETS:
        raise ValueError(f"preset={preset!r} is not one of {sorted(PRESETS)}")
    return TrashConfig(**known_fields(TrashConfig, {**PRESETS[preset], **overrides}))


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")


def _check_choice(name: str, value: Any, choices: tuple[Any, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name}={value!r} is not one of {list(choices)}")


# The name before the game prefix (changelog).
__getattr__ = renamed(__name__, {"RulesConfig": TrashConfig})
