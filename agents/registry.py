"""Agents by name: ``random``, ``greedy``, ``counter``, ``search`` (with an optional
budget, ``search:samples=32,rollouts=2``), or a trained policy by file path, for the
evaluation and play commands."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent

BASELINES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "counter": CountingAgent,
}


def _search(**budget: int) -> Agent:
    from agents.search import SearchAgent

    return SearchAgent(**budget)


BASELINES["search"] = _search


def make_agent(spec: str) -> Agent:
    """An agent from its spec: a baseline name, optionally with ``:key=value,...`` options,
    or the path of a policy file saved by ``train.py`` (a ``.zip``).

    >>> make_agent("greedy").name
    'greedy'
    """
    name, _, options = spec.partition(":")
    if name not in BASELINES and (spec.endswith(".zip") or Path(spec).is_file()):
        from agents.learned import LearnedAgent

        return LearnedAgent.load(spec)
    if name not in BASELINES:
        raise ValueError(f"unknown agent {spec!r}: baselines are {sorted(BASELINES)}, or give a policy file (.zip)")
    kwargs: dict[str, int] = {}
    for item in filter(None, options.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"\s*-?\d+\s*", value):
            raise ValueError(f"agent option {item!r} in {spec!r} must be key=integer")
        kwargs[key.strip()] = int(value)
    try:
        agent = BASELINES[name](**kwargs)
    except TypeError as error:
        raise ValueError(f"agent {spec!r}: {error}") from None
    if options:
        agent.name = spec
    return agent
