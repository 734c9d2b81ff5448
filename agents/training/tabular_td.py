"""Tabular self-play with expectimax backups over the dice: near-optimal two-player Help Your
Neighbor from play alone (issue 28's recipe; R12, R14).

**What is learned.** A :class:`~agents.value_table.ValueTableAgent`: ``value[me, opp]``, the
probability that the player about to roll wins, over every pair of covered-marker sets (2^10 x 2^10),
played greedily (roll again when ``value[me, opp] >= 1 - value[opp, me]``; after a 7 uncover the
marker leaving the opponent the least). It starts at 0.5 everywhere.

**Where the experience comes from.** Games of the batched engine (``NeighborVecEnv``, the
benchmark's counted vector env) in which the learner's seat is drawn per game and the other seat is
the learner itself, played inside the engine from the learner's own tables (refreshed every
``refresh_every`` steps: a self-play snapshot a few steps old). At each of the learner's choices
(a timestep of the budget) it picks the greedy action, or with probability ``epsilon`` a uniformly
random legal one (exploration).

**The update (expected backups: the dice model, never the solution).** Each state the learner's
choice can lead to is backed up at once, one-roll expectimax over the dice with the table's values
for what follows (:func:`backup`: the rules of R12 with the dice probabilities, the same equations
the solver iterates over every state, here applied only to the states play reaches): after a roll,
both ``(me, opp)`` (rolling again) and ``(opp, me)`` (ending: the opponent's turn); after a 7 the
opponent's turn-start state the chosen marker leaves. When a game ends, every state it backed up is
backed up once more, last first (``replay``), so what the end of the game taught reaches its start
in the same game. Nothing is read from the solution: ``trash_env.neighbor.solver`` only judges the
result (``agents.evaluation.exploitability``).

**Figures** (``benchmarks/strong_neighbor.py``, ``docs/strong-agents.md``): how close it comes to
optimal play, exactly, with the budget, and an ablation of its parts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agents.optimal import covered_sets
from agents.value_table import SIZE, ValueTableAgent
from trash_env.jit import compile_notice, njit, silent_compiles
from trash_env.neighbor.game import GAME as NEIGHBOR
from trash_env.neighbor.rules import END_TURN, NUM_MARKERS, ROLL_DICE, SEVEN, TOTALS, UNCOVER_0, WAYS

FULL = SIZE - 1
# per total 2..12: its marker's bit (7: none), and its probability
BIT = np.array([1 << TOTALS.index(t) if t in TOTALS else 0 for t in range(13)], np.int64)
PROBABILITY = np.array([WAYS[t] / 36 if t >= 2 else 0.0 for t in range(13)])
TRAJECTORY = 1024  # states kept per game for the replay (a game backs up about 70)


@dataclass(frozen=True)
class Settings:
    """The recipe's settings (the defaults are the recipe; the ablation changes one at a time)."""

    num_envs: int = 4096
    """games stepped together (a step counts this many timesteps)"""
    epsilon: float = 0.1
    """probability of a uniformly random legal action at each of the learner's choices"""
    replay: bool = True
    """back up a finished game's states again, last first"""
    refresh_every: int = 16
    """steps between refreshes of the in-engine self's tables"""
    both_choices: bool = True
    """after a roll back up both states the choice is between (rolling again, ending), not only the chosen"""


@njit(cache=True)
def _choose(value: np.ndarray, me: int, opp: int) -> float:
    """The roller's value of choosing (roll again, or end and hand the turn over), at ``(me, opp)``."""
    again = value[me, opp]
    end = 1.0 - value[opp, me]
    return again if again > end else end


@njit(cache=True)
def backup(value: np.ndarray, me: int, opp: int, bit: np.ndarray, probability: np.ndarray) -> float:
    """One-roll expectimax at the start of a turn of the player holding ``me`` against ``opp``
    (R12): the dice's totals by probability, the player's best choice after each from ``value``."""
    seven = 1.0 - value[opp, me]  # nothing covered: the turn just passes
    if me != 0:
        seven = 0.0
        for j in range(NUM_MARKERS):
            if me & (1 << j):
                left = 1.0 - value[opp, me ^ (1 << j)]
                if left > seven:
                    seven = left
    total = probability[SEVEN] * seven
    for t in range(2, 13):
        if t == SEVEN:
            continue
        b = bit[t]
        if me & b == 0:  # the roller covers it
            covered = me | b
            after = 1.0 if covered == FULL else _choose(value, covered, opp)
        elif opp & b == 0:  # the other covers it, and the turn is theirs
            helped = opp | b
            after = 0.0 if helped == FULL else 1.0 - value[helped, me]
        else:  # nobody can use it
            after = _choose(value, me, opp)
        total += probability[t] * after
    return total


@njit(cache=True)
def learn_step(
    value: np.ndarray,
    me: np.ndarray,
    opp: np.ndarray,
    actions: np.ndarray,
    trajectory: np.ndarray,
    lengths: np.ndarray,
    bit: np.ndarray,
    probability: np.ndarray,
    both: bool,
) -> None:
    """Back up the states each game's chosen action can lead to (``both``: after a roll, both states
    the choice is between; else the chosen one's), and note them for the replay."""
    for i in range(len(me)):
        m, o, a = me[i], opp[i], actions[i]
        if a in (ROLL_DICE, END_TURN):
            states = ((m, o), (o, m)) if a == ROLL_DICE else ((o, m), (m, o))
            count = 2 if both else 1
        else:
            states = ((o, m ^ (1 << (a - UNCOVER_0))), (0, 0))
            count = 1
        for k in range(count):
            x, y = states[k]
            value[x, y] = backup(value, x, y, bit, probability)
            if lengths[i] < trajectory.shape[1]:
                trajectory[i, lengths[i], 0] = x
                trajectory[i, lengths[i], 1] = y
                lengths[i] += 1


@njit(cache=True)
def replay(
    value: np.ndarray,
    done: np.ndarray,
    trajectory: np.ndarray,
    lengths: np.ndarray,
    bit: np.ndarray,
    probability: np.ndarray,
) -> None:
    """Back up every state a finished game noted once more, last first; forget them."""
    for i in range(len(done)):
        if done[i]:
            for k in range(lengths[i] - 1, -1, -1):
                x, y = trajectory[i, k, 0], trajectory[i, k, 1]
                value[x, y] = backup(value, x, y, bit, probability)
            lengths[i] = 0


@njit(cache=True)
def greedy(value: np.ndarray, me: np.ndarray, opp: np.ndarray, choosing: np.ndarray) -> np.ndarray:
    """The table's greedy action at each state (as :class:`ValueTableAgent` decides, ties alike)."""
    out = np.empty(len(me), np.int64)
    for i in range(len(me)):
        m, o = me[i], opp[i]
        if choosing[i]:
            out[i] = ROLL_DICE if value[m, o] >= 1.0 - value[o, m] else END_TURN
        else:
            best, choice = np.inf, -1
            for j in range(NUM_MARKERS):
                if m & (1 << j) and value[o, m ^ (1 << j)] < best:
                    best, choice = value[o, m ^ (1 << j)], j
            out[i] = UNCOVER_0 + choice
    return out


def _explore(actions: np.ndarray, masks: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """``actions`` with each replaced, with probability ``epsilon``, by a uniformly random legal one."""
    chosen = np.flatnonzero(rng.random(len(actions)) < epsilon)
    if len(chosen):
        legal = masks[chosen] > 0
        pick = (rng.random(len(chosen))[:, None] * legal.sum(axis=1, keepdims=True)).astype(np.int64)
        actions = actions.copy()
        actions[chosen] = (np.cumsum(legal, axis=1) > pick).argmax(axis=1)
    return actions


def train(
    make_env: Callable[[int, list[Any]], Any],
    budget: int,
    seed: int,
    settings: Settings = Settings(),
    points: list[int] | None = None,
    checkpoint: Callable[[int, ValueTableAgent], None] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ValueTableAgent:
    """Learn a value table by self-play for ``budget`` timesteps (the module docstring).
    ``make_env(num_envs, opponents)``: the vector env (the benchmark's counting one, or a
    ``NeighborVecEnv``); ``checkpoint(timesteps, agent)`` at each of ``points`` once reached."""
    if budget < 1:
        raise ValueError(f"a budget of {budget:,} timesteps is none")
    agent = ValueTableAgent(name="tabular_td")
    value = np.full((SIZE, SIZE), 0.5)  # float64 while learning; the agent keeps float32
    rng = np.random.default_rng(seed)
    env = make_env(settings.num_envs, [agent])
    env.seed(seed)
    observations = env.reset()
    n = settings.num_envs
    trajectory = np.zeros((n, TRAJECTORY, 2), np.int64)
    lengths = np.zeros(n, np.int64)
    pending = sorted(points or [])
    steps, began, last_report = 0, time.perf_counter(), 0.0

    def publish() -> None:
        agent.value[:] = value
        agent.refresh()

    publish()
    for step in range(-(-budget // n)):  # whole steps up to the budget: the last may pass it by < num_envs
        masks = env.action_masks()
        me, opp = covered_sets(observations)
        with compile_notice("tabular_td's learning step"):  # the first step compiles the kernels
            actions = _explore(greedy(value, me, opp, masks[:, ROLL_DICE]), masks, settings.epsilon, rng)
            forced = masks.sum(axis=1) == 1  # a game's first move, asked when it would have no other (R14)
            actions[forced] = masks[forced].argmax(axis=1)
            learn_step(value, me, opp, actions, trajectory, lengths, BIT, PROBABILITY, settings.both_choices)
        observations, _, dones, _ = env.step(actions)
        with compile_notice("tabular_td's replay"):
            if settings.replay:
                replay(value, dones, trajectory, lengths, BIT, PROBABILITY)
            else:
                lengths[dones] = 0
        steps += n
        if (step + 1) % settings.refresh_every == 0:
            publish()
        while pending and steps >= pending[0]:
            publish()
            if checkpoint is not None:
                checkpoint(pending[0], agent)
            pending.pop(0)
        if progress is not None and time.perf_counter() - last_report > 30:
            last_report = time.perf_counter()
            progress(f"{steps:,} of {budget:,} timesteps, {last_report - began:.0f} s")
    publish()
    env.close()
    return agent


def warm_up() -> float:
    """Compile (or load from Numba's cache) this module's kernels by a few steps of training on a small
    batch, as ``trash-bench warmup`` does; the seconds it took."""
    from trash_env.neighbor.vec_env import NeighborVecEnv

    start = time.perf_counter()
    with silent_compiles():
        train(lambda n, opponents: NeighborVecEnv(n, opponents=opponents, num_players=2), budget=64, seed=0,
              settings=replace(Settings(), num_envs=8))  # fmt: skip
    return time.perf_counter() - start


class TabularTD:
    """The recipe as a benchmark algorithm (``trash-bench run --algorithm tabular_td``): two-player
    Help Your Neighbor only (``hyn-2p``, ``hyn-2p-selfplay``), by self-play whatever the task's
    training opponents, on the counted batched engine. Made for the open-budget track
    (``--budget-fraction 1000``: 150 million timesteps, 12 minutes on one core with every exact
    evaluation point); at the fixed
    budget of 150,000 timesteps it is about 37 steps of 4,096 games."""

    name = "tabular_td"

    def __init__(self, settings: Settings = Settings()) -> None:
        self.settings = settings

    def train(self, context: Any, checkpoint: Callable[[int, Any], None]) -> ValueTableAgent:
        config = context.config
        if context.task.game != NEIGHBOR.name or config.num_players != 2:
            raise ValueError(
                f"tabular_td learns two-player Help Your Neighbor (hyn-2p, hyn-2p-selfplay), not {context.task.name}"
            )
        settings = self.settings
        if context.budget < 8 * settings.num_envs:  # a small budget: fewer games at a time, more steps
            settings = replace(settings, num_envs=max(1, context.budget // 8))
        return train(
            lambda n, opponents: context.vec_env(n, opponents=opponents, batched=True),
            context.budget,
            context.seed,
            settings,
            list(context.eval_points),
            checkpoint,
        )
