"""The games of the package (:mod:`trash_env.games`): each one descriptor of its own rules core, and
one PettingZoo AEC environment written once for both (:mod:`trash_env.aec`)."""

from __future__ import annotations

import pytest

from trash_env import help_your_neighbor_v0, trash_v0
from trash_env.games import CORE_FUNCTIONS, NEIGHBOR, TRASH, game_of, get_game
from trash_env.neighbor import rules as neighbor_rules
from trash_env.trash import rules as trash_rules
from trash_env.trash.config import make_config


@pytest.mark.parametrize(
    ("game", "rules", "config", "module"),
    [
        (TRASH, trash_rules, make_config(), trash_v0),
        (NEIGHBOR, neighbor_rules, neighbor_rules.make_config(), help_your_neighbor_v0),
    ],
    ids=["trash", "help_your_neighbor"],
)
def test_each_game_is_its_own_rules_core_behind_the_same_names(game, rules, config, module) -> None:
    """A descriptor's actions and turn steps (Trash R13, Help Your Neighbor R14) are its own core's,
    never the other game's; it is found by its short or env name and from its configuration; its
    environment is named as the game and renders in the same modes as the other game's."""
    assert game.num_actions == rules.NUM_ACTIONS
    for name in CORE_FUNCTIONS:
        assert getattr(game, name) is getattr(rules, name), name
    assert get_game(game.name) is get_game(game.env_name) is game
    assert game_of(config) is game
    assert module.raw_env.game is game
    assert module.raw_env.metadata["name"] == game.env_name
    assert module.raw_env.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
