"""A local best response: each decision scored by Monte Carlo rollouts against the frozen policy.

Lisý & Bowling (2017) bound a poker policy's exploitability from below with a responder that looks
one decision ahead: at each of its decisions it scores every legal action by what follows, the
frozen policy playing the other seat and a fixed *continuation* policy playing its own later
decisions, and takes the best. It needs no training and no solution, only the rules and the
policy's play, so it works against any frozen batch policy on any game the rollouts can be played
on.

:class:`LocalBestResponse` is that responder as an :class:`~agents.base.Agent`. At a decision it
takes the position as its seat sees it (:attr:`~agents.base.SeatView.public_state`; Help Your
Neighbor hides nothing, R12, so the position is the game's), puts it in ``rollouts x actions`` slots
of the game's batched engine (:meth:`trash_env.neighbor.batched.NeighborBatch.place_state`), makes
each slot's first move one legal action, and plays every slot to the end: the frozen policy
(``target``) decides for the other seat, ``continuation`` (by default the frozen policy itself) for
the responder's later decisions, both asked in batches over the slots, forced moves played by the
engine (R14). The action with the best mean result is played.

- **Common random numbers.** The ``rollouts`` worlds differ in their dice; within a world every
  action is tried with the same dice generator, so the comparison between actions is not drowned in
  luck.
- **Which continuation.** With the frozen policy as continuation the responder is one step of policy
  improvement over the policy itself; on two-player Help Your Neighbor, with exact values in place
  of the rollouts, that step alone finds 97-98% of the exact exploitability of ``heuristic`` and of
  the shipped MaskablePPO policy (``benchmarks/local_best_response.py``). The rollouts estimate the
  values; a decision between near-equal actions may go either way, at little cost.
- **``margin``.** The responder plays the continuation's own choice unless another action's mean
  gain over it, paired by world, is above ``margin`` standard errors (0: the best mean).
- **Cost.** About ``rollouts x actions x`` the moves left in the game engine steps and policy rows
  per decision; ``trash-bench exploit --method local`` reports the seconds.

Trash hides cards: a responder there would sample the hidden cards from its seat's view
(:func:`trash_env.trash.belief.sample_hidden_state`) and place the sampled deal in its engine; its
engine cannot place a position yet, so this responder plays Help Your Neighbor only.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent, SeatView

MAX_ROLLOUTS = 1 << 14  # slots per action: each holds a game row, an observation and a mask


class LocalBestResponse(Agent):
    """A local best response to ``target`` (a frozen policy that decides in batches) for ``config``:
    ``rollouts`` worlds per decision, ``continuation`` (default ``target``) for its own later
    decisions, deviating from the continuation's choice beyond ``margin`` standard errors; the
    rollouts' dice from ``seed`` (and, per decision, the generator it is asked with)."""

    name = "local_best_response"
    games = ("help_your_neighbor",)

    def __init__(
        self,
        target: Agent,
        config: Any,
        rollouts: int = 64,
        continuation: Agent | None = None,
        margin: float = 0.0,
        seed: int | None = None,
    ) -> None:
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or not 1 <= rollouts <= MAX_ROLLOUTS:
            raise ValueError(f"rollouts must be an integer from 1 to {MAX_ROLLOUTS}, got {rollouts!r}")
        if not np.isfinite(margin) or margin < 0:
            raise ValueError(f"margin must be 0 or more standard errors, got {margin!r}")
        self.check_config(config)
        continuation = target if continuation is None else continuation
        for role, agent in (("target", target), ("continuation", continuation)):
            if not getattr(agent, "batchable", False):
                raise ValueError(f"the {role} {agent.name!r} does not decide in batches: rollouts ask it in batches")
            agent.check_config(config)
        self.target = target
        self.continuation = continuation
        self.config = config
        self.rollouts = rollouts
        self.margin = float(margin)
        self.seed = seed
        self._batches: dict[int, Any] = {}  # one engine per number of legal actions

    def _batch(self, actions: int, seat: int) -> Any:
        """The engine for decisions with ``actions`` legal actions by ``seat``: the responder's seat is
        asked; the frozen policy's plays inside the engine if it is one of the engine's baselines (by
        its spec: ``random``, ``heuristic``, ``roller``, ``optimal``), else it is asked too."""
        from trash_env.neighbor.batched import NeighborBatch

        key = (actions, seat)
        if key not in self._batches:
            spec = getattr(self.target, "spec", None)
            inside = spec if spec in NeighborBatch.POLICY_CODES else None
            policies = [None if other == seat else inside for other in range(self.config.num_players)]
            self._batches[key] = NeighborBatch(self.config, self.rollouts * actions, seed=self.seed, policies=policies)
        return self._batches[key]

    def action_values(self, view: SeatView, rng: np.random.Generator) -> np.ndarray:
        """[rollouts, legal actions]: the responder's result (R12: +1, -1 or 0) in each world after
        each legal action, ``view.legal_actions`` in order."""
        legal = view.legal_actions
        count = len(legal)
        batch = self._batch(count, view.seat)
        size = self.rollouts * count
        batch.seed(int(rng.integers(2**63)))
        first = np.arange(0, size, count)
        for i in range(1, count):  # common random numbers: one dice generator per world
            batch.dice[first + i] = batch.dice[first]
        state = copy.deepcopy(view.public_state)
        for b in range(size):
            batch.place_state(b, state)
        actions = np.tile(np.asarray(legal, np.int64), self.rollouts)
        values = np.zeros(size)
        finished = np.zeros(size, np.bool_)
        rngs: Sequence[np.random.Generator] = [rng] * size
        seat = view.seat
        while True:
            observations, masks, rewards, dones = batch.step(actions)
            ended = dones & ~finished
            values[ended] = rewards[ended, seat]
            finished |= ended
            if finished.all():
                break
            actions = np.argmax(masks, axis=1).astype(np.int64)  # a finished slot's new game: any legal move
            asked = [(self.target, ~finished)]  # the policy as its own continuation: one batch for both seats
            if self.continuation is not self.target:
                asked = [
                    (self.continuation, asked[0][1] & (batch.seats == seat)),
                    (self.target, asked[0][1] & (batch.seats != seat)),
                ]
            for agent, rows in asked:
                if rows.any():
                    actions[rows] = agent.act_batch(observations[rows], masks[rows], rngs[: int(rows.sum())])
        return values.reshape(self.rollouts, count)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(view, rng)
        mask = view.action_mask[None, :].astype(np.int8)
        default = legal.index(int(self.continuation.act_batch(view.observation[None, :], mask, [rng])[0]))
        gains = values - values[:, [default]]
        mean = gains.mean(axis=0)
        if self.margin > 0 and self.rollouts > 1:
            error = gains.std(axis=0, ddof=1) / np.sqrt(self.rollouts)
            mean = np.where(np.arange(len(legal)) == default, 0.0, mean - self.margin * error)
        best = int(np.argmax(mean))
        return legal[best] if mean[best] > 0 else legal[default]
