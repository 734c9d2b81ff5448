"""Agents by name, for the evaluation and play commands: one registry of the baseline agents
(:data:`BASELINES`), each with the games it plays and the in-engine policy that chooses exactly as it.

Trash: ``random``, ``greedy``, ``counter``, ``search`` (with an optional budget,
``search:samples=32,rollouts=2``). Help Your Neighbor: ``random``, ``heuristic``, ``roller`` (the
heuristic without its guard), ``optimal`` (two players), and ``best_response:SPEC`` (two players:
the exact best response to the agent SPEC, ``best_response:heuristic``).
With the ``openspiel`` extra, OpenSpiel's Python search bots (:mod:`agents.openspiel_bots`, not
baselines: no tool picks them by default): ``openspiel_mcts`` (Help Your Neighbor) and
``openspiel_ismcts`` (Trash), with integer options ``simulations``, ``rollouts``, ``uct_c`` and
``seed`` (``openspiel_mcts:simulations=100``).
In either game, a trained policy by file path (``train.py``'s ``.zip``, a NumPy ``.npz``, or the
folder ``train_rllib.py`` exports), or a policy shipped inside the package by name
(``shipped:standard-2p``; :mod:`agents.shipped` lists them).

Which baselines the tools pick by default is each game's (its descriptor's ``default_opponent``,
``scored_baselines``, ``heldout``): :func:`default_baselines` and :func:`scored_baselines` read them.
A baseline defined elsewhere (a plug-in game's) joins with :func:`register_baseline`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agents import shipped
from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.heuristic import NeighborHeuristic, NeighborRoller
from agents.optimal import OptimalAgent
from trash_env.extras import extra_of, needs_extra, top_module
from trash_env.games import NEIGHBOR, TRASH, get_game


@dataclass(frozen=True)
class Baseline:
    """A baseline agent: its name, the games it plays (None: every game), how it is made
    (``make(**options)``), and the name of the in-engine policy (the game's batched engine,
    ``Game.engine.policies``) that chooses exactly as it does, if any."""

    name: str
    games: tuple[str, ...] | None
    make: Callable[..., Agent]
    engine: str | None = None

    def plays(self, game: str) -> bool:
        return self.games is None or game in self.games


def _search(**budget: int) -> Agent:
    from agents.search import SearchAgent

    return SearchAgent(**budget)


BASELINES: dict[str, Baseline] = {
    baseline.name: baseline
    for baseline in (
        Baseline("random", None, RandomAgent, engine="random"),
        Baseline("greedy", (TRASH.name,), GreedyAgent, engine="greedy"),
        Baseline("counter", (TRASH.name,), CountingAgent, engine="counter"),
        Baseline("search", (TRASH.name,), _search),
        Baseline("heuristic", (NEIGHBOR.name,), NeighborHeuristic, engine="heuristic"),
        Baseline("roller", (NEIGHBOR.name,), NeighborRoller, engine="roller"),
        Baseline("optimal", (NEIGHBOR.name,), OptimalAgent, engine="optimal"),
    )
}
"""Every baseline by name: the one place a new one is added (or :func:`register_baseline`)."""


def register_baseline(baseline: Baseline) -> Baseline:
    """Add ``baseline`` to :data:`BASELINES` (a plug-in's); a ValueError if its name is taken."""
    if baseline.name in BASELINES and BASELINES[baseline.name] is not baseline:
        raise ValueError(f"a baseline named {baseline.name!r} is registered already")
    BASELINES[baseline.name] = baseline
    return baseline


def baselines(game: str) -> dict[str, Baseline]:
    """The baselines of ``game`` by name."""
    return {name: baseline for name, baseline in BASELINES.items() if baseline.plays(game)}


def default_baselines(game: str) -> tuple[str, ...]:
    """``random`` and the game's default opponent: the default training opponents and evaluation
    yardsticks of ``train.py``, and the training opponents of the benchmark's tasks that train against
    baselines (``agents.bench.tasks``)."""
    return ("random", get_game(game).default_opponent)


def scored_baselines(game: str, num_players: int) -> list[str]:
    """The baselines ``trash-bench references`` scores on a task beside the learners (the game's
    ``scored_baselines``; those of a solved two-player game, such as ``optimal``, only where it has
    two players)."""
    scored = get_game(game).scored_baselines
    return [name for name in scored if num_players == 2 or name not in TWO_PLAYERS_ONLY]


TWO_PLAYERS_ONLY = ("optimal",)  # baselines of a solved game, which exists for two players only


def engine_policy(agent: Agent, game: str) -> str | None:
    """The batched engine's name for an agent it plays inside itself (in ``game``), choosing exactly as
    the agent does (exact mode's ``random`` draws as ``RandomAgent`` from the seat's keyed stream):
    the baseline of exactly the agent's type (a subclass may choose otherwise), else None."""
    engine = get_game(game).engine
    for baseline in BASELINES.values():
        if baseline.make is type(agent) and baseline.plays(game):
            return baseline.engine if engine is not None and baseline.engine in engine.policies else None
    return None


OPENSPIEL_AGENTS: dict[str, tuple[str, str]] = {
    "openspiel_mcts": (NEIGHBOR.name, "OpenSpielMCTS"),
    "openspiel_ismcts": (TRASH.name, "OpenSpielISMCTS"),
}
"""OpenSpiel's bots (the ``openspiel`` extra): name -> (the game it plays, its class in
:mod:`agents.openspiel_bots`), imported at first use."""


def _openspiel_agent(name: str, game_name: str) -> Callable[..., Agent]:
    plays, class_name = OPENSPIEL_AGENTS[name]
    if game_name != plays:
        raise ValueError(f"agent {name!r} plays {plays}, not {game_name}")
    try:
        from agents import openspiel_bots
    except ImportError as error:  # pyspiel missing (or the whole module blocked)
        missing = top_module(error.name) if extra_of(error) else None
        raise ValueError(needs_extra(f"agent {name!r}", "openspiel", missing)) from None
    return getattr(openspiel_bots, class_name)


BEST_RESPONSE = "best_response"
"""``best_response:SPEC`` (Help Your Neighbor, two players): the exact best response to the agent SPEC
(:class:`agents.evaluation.exploitability.BestResponseAgent`), computed at its first use."""


def _best_response(spec: str, game_name: str) -> Agent:
    """``best_response:SPEC``: the target is checked now (an unknown agent or a missing policy file is
    said before anything is computed); its best response is computed at the first check or decision."""
    target = spec.partition(":")[2]
    if not get_game(game_name).solved:
        raise ValueError(f"agent {spec!r}: best responses are exact only for two-player Help Your Neighbor")
    if not target or target.startswith(f"{BEST_RESPONSE}:"):
        raise ValueError(f"agent {spec!r}: name the agent to respond to, as best_response:heuristic")
    if not make_agent(target, game_name).batchable:
        raise ValueError(
            f"agent {spec!r}: {target} decides one position at a time, and a best response is computed from "
            "its decision at every state (in batches)"
        )
    from agents.evaluation.exploitability import BestResponseAgent

    agent = BestResponseAgent(target, functools.partial(make_agent, target, game_name))
    agent.spec = spec
    return agent


def _policy_file(path: str, name: str | None = None) -> Agent:
    """The policy saved at ``path``: an RLlib folder, a NumPy ``.npz`` or an SB3 ``.zip``, weights only."""
    if Path(path).is_dir():
        from agents.rllib_policy import RLlibAgent, is_rllib_policy

        if not is_rllib_policy(path):
            raise ValueError(f"{path!r} is a folder but not an RLlib policy exported by train_rllib.py")
        return RLlibAgent.load(path, name=name)
    if not Path(path).exists():  # said before the train extra is needed to read one
        raise ValueError(f"policy file {path!r} does not exist")
    if path.endswith(".npz"):  # a NumPy policy: a value table or a LinearAgent, weights only
        from agents.value_table import load_npz

        return load_npz(path, name=name)
    from agents.learned import LearnedAgent

    return LearnedAgent.load(path, name=name)


def _shipped(spec: str, game_name: str) -> Agent:
    """``shipped:NAME``: a policy shipped inside the package (:mod:`agents.shipped`), named by its spec."""
    policy = shipped.shipped_policy(spec)
    if policy.game != game_name:
        raise ValueError(f"{spec} plays {policy.game}, not {game_name} (give --game {policy.game})")
    agent = _policy_file(str(policy.path), name=policy.spec)
    agent.spec = policy.spec
    return agent


def make_agent(spec: str, game: str = "trash") -> Agent:
    """An agent of ``game`` from its spec: a baseline name, optionally with
    ``:key=value,...`` options, the path of a policy file (``train.py``'s ``.zip``, a ``.npz``, an
    RLlib folder), or ``shipped:NAME``, a policy shipped inside the package (:mod:`agents.shipped`).

        >>> make_agent("greedy").name
        'greedy'
        >>> make_agent("heuristic", game="help_your_neighbor").name
        'heuristic'
    """
    game_name = get_game(game).name
    known = baselines(game_name)
    if spec.startswith(f"{BEST_RESPONSE}:"):
        return _best_response(spec, game_name)
    if spec.startswith(shipped.PREFIX):
        return _shipped(spec, game_name)
    name, _, options = spec.partition(":")
    if name not in known and (Path(spec).is_dir() or spec.endswith(".zip") or Path(spec).is_file()):
        return _policy_file(spec)
    if name in OPENSPIEL_AGENTS:
        factory = _openspiel_agent(name, game_name)
    elif name in known:
        factory = known[name].make
    else:
        ours = ", ".join(policy.spec for policy in shipped.SHIPPED.values() if policy.game == game_name)
        also = f" or a shipped policy ({ours})" if ours else ""
        raise ValueError(
            f"unknown agent {spec!r} for {game_name}: baselines are {sorted(known)}, or give a policy file "
            f"(.zip, .npz){also}"
        )
    kwargs: dict[str, int] = {}
    for item in filter(None, options.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not re.fullmatch(r"\s*-?\d+\s*", value):
            raise ValueError(f"agent option {item!r} in {spec!r} must be key=integer")
        kwargs[key.strip()] = int(value)
    try:
        agent = factory(**kwargs)
    except TypeError as error:
        raise ValueError(f"agent {spec!r}: {error}") from None
    if options:
        agent.name = spec
    agent.spec = spec  # what made it: a baseline is saved as its spec (agents.bench.artifacts)
    return agent
