"""Agents by name, per game, for the evaluation and play commands.

Trash: ``random``, ``greedy``, ``counter``, ``search`` (with an optional budget,
``search:samples=32,rollouts=2``). Help Your Neighbor: ``random``, ``heuristic``, ``optimal``
(two players).
In either game, a trained policy by file path (``train.py``'s ``.zip``, or the
folder ``train_rllib.py`` exports).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.heuristic import NeighborHeuristic
from agents.optimal import OptimalAgent
from trash_env.games import get_game


def _search(**budget: int) -> Agent:
    from agents.search import SearchAgent

    return SearchAgent(**budget)


BASELINES_BY_GAME: dict[str, dict[str, Callable[..., Agent]]] = {
    "trash": {"random": RandomAgent, "greedy": GreedyAgent, "counter": CountingAgent, "search": _search},
    "help_your_neighbor": {"random": RandomAgent, "heuristic": NeighborHeuristic, "optimal": OptimalAgent},
}
BASELINES = BASELINES_BY_GAME["trash"]


def make_agent(spec: str, game: str = "trash") -> Agent:
    """An agent of ``game`` from its spec: a baseline name, optionally with
    ``:key=value,...`` options, or the path of a policy file saved by ``train.py`` (a ``.zip``).

        >>> make_agent("greedy").name
        'greedy'
        >>> make_agent("heuristic", game="help_your_neighbor").name
        'heuristic'
    """
    game_name = get_game(game).name
    baselines = BASELINES_BY_GAME[game_name]
    name, _, options = spec.partition(":")
    if name not in baselines and Path(spec).is_dir():
        from agents.rllib_policy import RLlibAgent, is_rllib_policy

        if not is_rllib_policy(spec):
            raise ValueError(f"{spec!r} is a folder but not an RLlib policy exported by train_rllib.py")
        return RLlibAgent.load(spec)
    if name not in baselines and (spec.endswith(".zip") or Path(spec).is_file()):
        from agents.learned import LearnedAgent

        return LearnedAgent.load(spec)
    if name not in baselines:
        raise ValueError(
            f"unknown agent {spec!r} for {game_name}: baselines are {sorted(baselines)}, or give a policy file (.zip)"
        )
    kwargs: dict[str, int] = {}
    for item in filter(None, options.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"\s*-?\d+\s*", value):
            raise ValueError(f"agent option {item!r} in {spec!r} must be key=integer")
        kwargs[key.strip()] = int(value)
    try:
        agent = baselines[name](**kwargs)
    except TypeError as error:
        raise ValueError(f"agent {spec!r}: {error}") from None
    if options:
        agent.name = spec
    return agent
