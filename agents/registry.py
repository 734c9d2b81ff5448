"""Agents by name, per game, for the evaluation and play commands.

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

The names every tool picks by default are here too, per game: :data:`DEFAULT_OPPONENT`,
:data:`DEFAULT_BASELINES` and :data:`SCORED_BASELINES`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

from agents import shipped
from agents.base import Agent
from agents.baselines import CountingAgent, GreedyAgent, RandomAgent
from agents.heuristic import NeighborHeuristic, NeighborRoller
from agents.optimal import OptimalAgent
from trash_env.extras import extra_of, needs_extra, top_module
from trash_env.games import get_game


def _search(**budget: int) -> Agent:
    from agents.search import SearchAgent

    return SearchAgent(**budget)


BASELINES_BY_GAME: dict[str, dict[str, Callable[..., Agent]]] = {
    "trash": {"random": RandomAgent, "greedy": GreedyAgent, "counter": CountingAgent, "search": _search},
    "help_your_neighbor": {
        "random": RandomAgent,
        "heuristic": NeighborHeuristic,
        "roller": NeighborRoller,
        "optimal": OptimalAgent,
    },
}
BASELINES = BASELINES_BY_GAME["trash"]

# The baselines the tools pick by default, per game, named here once: the commands, the training
# library and the benchmark's tasks import these rather than spell the names out.
DEFAULT_OPPONENT: dict[str, str] = {"trash": "greedy", "help_your_neighbor": "heuristic"}
"""Per game, the hand-written baseline to play against by default (``trash-play``'s opponent): one
that decides at once and plays sensibly (``greedy`` for Trash; ``search`` is slower by far)."""
DEFAULT_BASELINES: dict[str, tuple[str, ...]] = {game: ("random", name) for game, name in DEFAULT_OPPONENT.items()}
"""Per game, ``random`` and :data:`DEFAULT_OPPONENT`: the default training opponents and evaluation
yardsticks of ``train.py``, and the training opponents of the benchmark's tasks that train against
baselines (``agents.bench.tasks``)."""
SCORED_BASELINES: dict[str, tuple[str, ...]] = {
    "trash": ("random", "greedy", "counter"),
    "help_your_neighbor": ("random", "heuristic", "optimal"),
}
"""Per game, the baselines ``trash-bench references`` scores on every task beside the learners: every
baseline but ``search``, too slow for thousands of deals (``optimal`` only where there are two players)."""


OPENSPIEL_AGENTS: dict[str, tuple[str, str]] = {
    "openspiel_mcts": ("help_your_neighbor", "OpenSpielMCTS"),
    "openspiel_ismcts": ("trash", "OpenSpielISMCTS"),
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
    if game_name != "help_your_neighbor":
        raise ValueError(f"agent {spec!r}: best responses are exact only for two-player Help Your Neighbor")
    if not target or target.startswith(f"{BEST_RESPONSE}:"):
        raise ValueError(f"agent {spec!r}: name the agent to respond to, as best_response:heuristic")
    make_agent(target, game_name)
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
    baselines = BASELINES_BY_GAME[game_name]
    if spec.startswith(f"{BEST_RESPONSE}:"):
        return _best_response(spec, game_name)
    if spec.startswith(shipped.PREFIX):
        return _shipped(spec, game_name)
    name, _, options = spec.partition(":")
    if name not in baselines and (Path(spec).is_dir() or spec.endswith(".zip") or Path(spec).is_file()):
        return _policy_file(spec)
    if name in OPENSPIEL_AGENTS:
        factory = _openspiel_agent(name, game_name)
    elif name in baselines:
        factory = baselines[name]
    else:
        ours = ", ".join(policy.spec for policy in shipped.SHIPPED.values() if policy.game == game_name)
        raise ValueError(
            f"unknown agent {spec!r} for {game_name}: baselines are {sorted(baselines)}, or give a policy file "
            f"(.zip, .npz) or a shipped policy ({ours})"
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
