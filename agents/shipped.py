"""The trained policies shipped inside the package, by name: ``shipped:NAME`` wherever an agent is named.

    trash-evaluate greedy shipped:standard-2p
    trash-evaluate heuristic shipped:hyn-2p --game help_your_neighbor --exact
    trash-play --opponents shipped:standard-2p

Each is a file in ``agents/policies/`` (package data, installed with the wheel), loaded weights only
as any policy file is (:func:`agents.registry.make_agent`); the two made by the benchmark's strong-agent
recipes have a card beside them (``NAME.md``: how it was trained, its scores against every baseline).
:func:`listing` is the table the commands' ``--help`` show.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
from pathlib import Path
from typing import Any

PREFIX = "shipped:"
"""How an agent spec names a shipped policy: ``shipped:standard-2p``."""


@dataclasses.dataclass(frozen=True)
class ShippedPolicy:
    """One shipped policy: its name, its file in ``agents/policies/``, the game and rules it plays,
    how it was made, and its card (a file beside it) if it has one."""

    name: str
    file: str
    game: str
    plays: str
    made: str
    card: str | None = None

    @property
    def spec(self) -> str:
        return PREFIX + self.name

    @property
    def path(self) -> Path:
        """The installed file (package data, so a real file wherever the package is installed)."""
        return policies_folder() / self.file

    @property
    def card_path(self) -> Path | None:
        return policies_folder() / self.card if self.card else None


SHIPPED: dict[str, ShippedPolicy] = {
    policy.name: policy
    for policy in (
        ShippedPolicy(
            "standard-2p",
            "standard_2p_maskable_ppo.zip",
            "trash",
            "two-player standard hands (Trash, R11)",
            "MaskablePPO, 100k timesteps against greedy",
        ),
        ShippedPolicy(
            "pagat-4p-match",
            "pagat_4p_match_kickstart.zip",
            "trash",
            "four-player pagat matches (Trash, R9, R11)",
            "maskable_ppo_kickstart, 1M timesteps (see its card)",
            card="pagat_4p_match_kickstart.md",
        ),
        ShippedPolicy(
            "hyn-2p",
            "help_your_neighbor_2p_tabular_td.npz",
            "help_your_neighbor",
            "two-player Help Your Neighbor (R12)",
            "tabular_td, 150M timesteps of self-play (see its card)",
            card="help_your_neighbor_2p_tabular_td.md",
        ),
        ShippedPolicy(
            "hyn-2p-maskable-ppo",
            "help_your_neighbor_2p_maskable_ppo.zip",
            "help_your_neighbor",
            "two-player Help Your Neighbor (R12)",
            "MaskablePPO, 300k timesteps",
        ),
    )
}
"""Every shipped policy by name."""


def policies_folder() -> Path:
    """``agents/policies/`` where the package is installed."""
    return Path(str(importlib.resources.files("agents") / "policies"))


def shipped_policy(spec: str) -> ShippedPolicy:
    """The shipped policy ``spec`` names (``shipped:NAME``): a ValueError listing the names otherwise."""
    name = spec.removeprefix(PREFIX)
    if name not in SHIPPED:
        raise ValueError(f"no shipped policy {name!r}: the shipped policies are {', '.join(map(repr, SHIPPED))}")
    return SHIPPED[name]


OLD_FOLDER = "policies/"
"""Where the policies lay in the repository before they were package data: result files made then name
them by that path (``policies/standard_2p_maskable_ppo.zip``)."""


def canonical_names(data: Any) -> Any:
    """``data`` (a result file's JSON) with every string that names a shipped policy by its old path in
    the repository (:data:`OLD_FOLDER`) replaced by its spec (``shipped:standard-2p``), as files made
    later name it; everything else as it is."""
    if isinstance(data, dict):
        return {key: canonical_names(value) for key, value in data.items()}
    if isinstance(data, list):
        return [canonical_names(value) for value in data]
    if isinstance(data, str) and data.startswith(OLD_FOLDER):
        found = next((policy for policy in SHIPPED.values() if OLD_FOLDER + policy.file == data), None)
        return found.spec if found else data
    return data


def listing(game: str | None = None) -> str:
    """The shipped policies (of ``game``, or all) as lines for a command's ``--help``: spec, what it
    plays and how it was made, then where the cards are."""
    chosen = [policy for policy in SHIPPED.values() if game in (None, policy.game)]
    width = max(len(policy.spec) for policy in chosen)
    lines = [f"  {policy.spec:<{width}}  {policy.plays}; {policy.made}" for policy in chosen]
    cards = [policy for policy in chosen if policy.card]
    if cards:
        lines.append(f"  cards (training, scores against every baseline): {policies_folder()}/*.md")
    return "\n".join(lines)
