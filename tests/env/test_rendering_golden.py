"""Golden pictures of stacked positions covering every slot state and phase (issue 15).

Each position is reached from a stacked deck (R3) or stacked dice (R12) by named moves on the rules
core, and drawn two ways: its SVG must hash to the recorded checksum (the drawing has not changed),
and its picture (``render_mode="rgb_array"``'s rasteriser) must be an ``(H, W, 3)`` uint8 array
matching the golden PNG in ``tests/env/golden/`` within a small tolerance (a rasteriser release may move
anti-aliasing by a shade; a changed drawing moves far more). After an intended change of the
drawing, regenerate them and look at every picture:

    TRASH_RL_UPDATE_GOLDEN=1 python -m pytest tests/env/test_rendering_golden.py
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.decks import stacked_deck

from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.drawing import neighbor_svg
from trash_env.neighbor.rules import END_TURN, ROLL_DICE, NeighborConfig
from trash_env.trash import rules as trash_rules
from trash_env.trash.config import make_config
from trash_env.trash.drawing import trash_svg
from trash_env.trash.rules import DISCARD, DRAW, DRAW_STOCK, OVER, PLACE_SLOT_0

GOLDEN = Path(__file__).with_name("golden") / "rendering"
CHECKSUMS = GOLDEN / "svg_sha256.json"
UPDATE = bool(os.environ.get("TRASH_RL_UPDATE_GOLDEN"))
A, J, Q, K = 1, 11, 12, 13
# Seat 0 draws the Ace and fills its whole layout in one chain of forced moves (R4, R5), ending on a
# dead Queen; seat 1 then holds a King (wild in the standard rules, R6) with face-down slots left.
LAYOUTS = [[2, 3, 4, 5, 6, 7, 8, 9, 10, Q], [Q, Q, Q, A, A, A, 5, 5, 5, 6]]
STOCK = [A, K]


def trash_positions(preset: str, match: bool = False) -> dict[str, trash_rules.TrashState]:
    """Named positions of a stacked two-player game, in the order they arise."""
    config = make_config(preset, num_players=2, match=match)
    rng = np.random.default_rng(0)
    state = trash_rules.new_game(config, rng, stacked_deck(config, LAYOUTS, STOCK))
    out: dict[str, Any] = {}

    def keep(name: str) -> None:
        out[name] = copy.deepcopy(state)

    keep("deal")  # every slot face down, seat 0 to draw, empty discard pile
    trash_rules.apply_action(state, DRAW_STOCK, rng)
    keep("held")  # seat 0 holds the Ace
    trash_rules.play_forced(state, rng)  # the chain through the whole layout, the Queen discarded
    keep("completed")  # standard: final round (R6), seat 1 holds the King; pagat: hand 2 with 9 slots (R9)
    if not match:
        trash_rules.apply_action(state, PLACE_SLOT_0 + 6, rng)  # the King into slot 7
        keep("wild_filled")
        trash_rules.play_forced(state, rng)
        keep("over")
    return out


def neighbor_positions() -> dict[str, neighbor.NeighborState]:
    config = NeighborConfig(num_players=3)
    rng = np.random.default_rng(0)
    state = neighbor.new_game(config, [2, 2, 7, 12])
    out: dict[str, Any] = {}

    def keep(name: str) -> None:
        out[name] = copy.deepcopy(state)

    keep("start")  # every marker uncovered, seat 0 to roll
    neighbor.apply_action(state, ROLL_DICE, rng)
    keep("choose")  # seat 0 rolled 2, covered its own marker: roll again or end (R12)
    neighbor.apply_action(state, ROLL_DICE, rng)
    keep("privilege")  # 2 again: seat 1 covers its 2 and takes the turn
    neighbor.apply_action(state, ROLL_DICE, rng)
    keep("seven")  # seat 1 rolled 7: uncover one of its covered markers
    neighbor.play_forced(state, rng)
    while not state.over:  # then: roll while you can, end otherwise, uncover the first covered marker
        legal = neighbor.legal_actions(state)
        neighbor.apply_action(state, ROLL_DICE if ROLL_DICE in legal else legal[0], rng)
    keep("over")
    return out


def cases() -> dict[str, tuple[Callable[..., str], Any]]:
    named: dict[str, tuple[Callable[..., str], Any]] = {}
    for name, state in trash_positions("standard").items():
        named[f"trash_standard_{name}"] = (trash_svg, state)
    for name, state in trash_positions("pagat", match=True).items():
        named[f"trash_pagat_match_{name}"] = (trash_svg, state)
    for name, state in neighbor_positions().items():
        named[f"neighbor_3p_{name}"] = (neighbor_svg, state)
    return named


CASES = cases()


def test_the_positions_cover_every_slot_state_and_phase() -> None:
    """The golden set is what it claims: every phase of both games, and every kind of slot (R4-R6, R9)."""
    trash = [state for name, (_, state) in CASES.items() if name.startswith("trash")]
    assert {state.phase for state in trash} >= {DRAW, OVER} | {s.phase for s in trash if s.phase not in (DRAW, OVER)}
    assert any(state.phase not in (DRAW, OVER) for state in trash)  # a held card
    assert any(state.final_round for state in trash)
    values = [v for state in trash for seat in range(2) for v in state.up[seat]]
    assert trash_rules.FACE_DOWN in values and any(v not in (trash_rules.FACE_DOWN,) for v in values)
    assert any(
        v != trash_rules.FACE_DOWN and v != slot + 1
        for state in trash
        for seat in range(2)
        for slot, v in enumerate(state.up[seat])
    ), "a wild-filled slot"
    assert any(min(state.sizes) < 10 for state in trash), "a layout shrunk in a match"
    phases = {state.phase for name, (_, state) in CASES.items() if name.startswith("neighbor")}
    assert phases == set(range(len(neighbor.PHASE_NAMES)))
    assert any(
        state.helper not in (neighbor.NOBODY, state.roller) for n, (_, state) in CASES.items() if "privilege" in n
    )
    assert DISCARD and END_TURN  # the action numbers the comments name


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_position_draws_as_its_golden_picture(name: str) -> None:
    pytest.importorskip("resvg_py")
    from PIL import Image

    from trash_env.rendering.image import svg_to_rgb

    draw, state = CASES[name]
    svg = draw(state)
    picture = svg_to_rgb(svg)
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.dtype == np.uint8
    digest = hashlib.sha256(svg.encode()).hexdigest()
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        Image.fromarray(picture).save(path, optimize=True)
        sums = json.loads(CHECKSUMS.read_text()) if CHECKSUMS.exists() else {}
        CHECKSUMS.write_text(json.dumps({**sums, name: digest}, indent=1, sort_keys=True) + "\n")
        return
    assert json.loads(CHECKSUMS.read_text())[name] == digest, f"the SVG of {name} changed"
    golden = np.asarray(Image.open(path).convert("RGB"))
    assert picture.shape == golden.shape
    difference = np.abs(picture.astype(int) - golden.astype(int))
    assert difference.mean() < 0.5 and (difference.max(axis=2) > 64).mean() < 0.002, f"{name} looks different"
