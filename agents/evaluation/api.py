"""Evaluate any policy in memory: a callable, an :class:`~agents.base.Agent` object, or an agent's name,
against another, on duplicate deals (:func:`evaluate`)::

    from agents.evaluation import evaluate

    def my_policy(view, rng):                  # a SeatView of the seat to act (R15: what it sees)
        return view.legal_actions[0]           # any legal action

    summary = evaluate(my_policy, "greedy", deals=500)                       # two-player standard Trash
    summary = evaluate(my_agent, "heuristic", game="help_your_neighbor", num_players=4)
    print(summary.score_difference)            # per deal, with its 95% interval

A callable is called as ``policy(view, rng)`` with the :class:`~trash_env.view.SeatView` of the seat to act
(its ``observation``, ``action_mask`` and ``legal_actions``; the public state for rule-based play) and a
NumPy generator, and returns a legal action; a policy that works on the env's arrays alone can read
``view.observation`` and ``view.action_mask``. It is wrapped in :class:`CallableAgent`. Nothing is
registered, nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from agents.evaluation.stats import PairSummary

Policy = Agent | str | Callable[[SeatView, np.random.Generator], int]


class CallableAgent(Agent):
    """A callable ``policy(view, rng) -> action`` as an agent of ``games`` (default: every game)."""

    def __init__(self, policy: Callable[[SeatView, np.random.Generator], int], name: str | None = None) -> None:
        if not callable(policy):
            raise TypeError(f"a policy is an agent, a name or a callable (view, rng) -> action, got {policy!r}")
        self.policy = policy
        self.name = name or getattr(policy, "__name__", None) or type(policy).__name__
        self.games = None

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        action = self.policy(view, rng)
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"policy {self.name!r} returned {action!r}, not an action (an integer)")
        if int(action) not in view.legal_actions:
            raise ValueError(f"policy {self.name!r} chose {int(action)}, not a legal action ({view.legal_actions})")
        return int(action)


def as_agent(policy: Policy, game: str, fallback: str = "policy") -> Agent:
    """``policy`` as an agent of ``game``: an agent as it is, a name through the registry
    (:func:`agents.registry.make_agent`), a callable wrapped in :class:`CallableAgent` (named by its
    ``__name__``, else ``fallback``)."""
    if isinstance(policy, Agent):
        return policy
    if isinstance(policy, str):
        from agents.registry import make_agent

        return make_agent(policy, game)
    name = getattr(policy, "__name__", None)
    return CallableAgent(policy, fallback if not isinstance(name, str) or name == "<lambda>" else name)


def evaluate(
    policy: Policy,
    opponent: Policy = "random",
    *,
    game: str = "trash",
    config: Any = None,
    deals: int = 1000,
    seed: int = 0,
    preset: str = "standard",
    workers: int = 1,
    engine: str = "auto",
    **rules: Any,
) -> PairSummary:
    """``policy`` against ``opponent`` (each an agent, an agent's name or a callable, module docstring)
    on ``deals`` duplicate deals of ``seed``, both seatings of each deal (every seat with more players,
    the others filled by the opponent): the :class:`~agents.evaluation.stats.PairSummary`, whose
    ``score_difference`` is policy's mean reward less the opponent's per deal with its 95% interval.

    The rules are ``config`` (a rules configuration), or ``game``'s ``preset`` with ``rules`` on top
    (``num_players=4``, ``match=True``, ...). ``workers`` > 1 plays on that many processes (the agents
    must then pickle); ``engine`` as :func:`~agents.evaluation.duplicate.run_pairings`. A bad argument
    is a one-line ValueError (TypeError for something that is no policy) before any game."""
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries
    from trash_env.games import game_of, get_game

    if config is None:
        config = get_game(game).make_config(preset, **rules)
    elif rules:
        raise ValueError(f"give config or rules fields, not both (got config and {sorted(rules)})")
    game = game_of(config).name
    first = as_agent(policy, game, "policy")
    second = as_agent(opponent, game, "opponent")
    names = _names(first.name, second.name)
    prebuilt = {names[0]: first, names[1]: second}
    played = run_pairings(config, [names], deals, seed=seed, workers=workers, prebuilt=prebuilt, engine=engine)
    (summary,) = pair_summaries(played)
    return summary


def _names(first: str, second: str) -> tuple[str, str]:
    """The two sides' names in the results: their own, told apart when they are the same."""
    return (first, second) if first != second else (f"{first} (policy)", f"{second} (opponent)")
