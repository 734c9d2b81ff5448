"""The batched engine against the rules core (R1-R10, R13): the same decks, reshuffles and
choices give the same acting seats, masks, observations, rewards and ends."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers.batched import play_both

from trash_env.trash import rules as trash
from trash_env.trash.config import PRESETS, make_config

PLAYER_COUNTS = (2, 3, 5, 8)


# The longest cases (matches of many hands at 5 and 8 players) run in `make test-all` only.
LONG = {("pagat", 8, True), ("pagat", 5, True), ("jokers", 8, True)}
CASES = [
    pytest.param(preset, players, match, marks=[pytest.mark.slow] if (preset, players, match) in LONG else [])
    for preset, players, match in itertools.product(sorted(PRESETS), PLAYER_COUNTS, (False, True))
]


@pytest.mark.parametrize(("preset", "players", "match"), CASES, ids=lambda v: str(v))
def test_batched_engine_matches_the_core(preset: str, players: int, match: bool) -> None:
    """R1-R10, R13: 24 games per case (every preset, 2/3/5/8 players, hand and match), the
    same decks and reshuffles (exact mode) and the same random choices: identical states,
    acting seats, masks, observations, rewards and ends after every step."""
    config = make_config(preset, num_players=players, match=match)
    counts = play_both(config, 24, seed=players * 10 + match)
    assert counts["decisions"] > 0 or preset == "seven_up"


def test_differential_games_include_reshuffles_new_hands_and_truncation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison reaches the rare events: reshuffles (R7; in Seven Up about one hand in
    six has one), later hands of a match (R9) and truncation at max_turns (R7)."""
    reshuffles = []
    draw_stock = trash._draw_stock

    def counting(state: trash.TrashState, rng: np.random.Generator) -> None:
        reshuffles.append(not state.stock)
        draw_stock(state, rng)

    monkeypatch.setattr(trash, "_draw_stock", counting)
    counts = play_both(make_config("seven_up", num_players=2, match=True), 16, seed=1)
    assert sum(reshuffles) >= 10 and counts["later_hands"] >= 50
    counts = play_both(make_config("pagat", num_players=3, max_turns=25), 32, seed=2)
    assert counts["truncated"] > 0
