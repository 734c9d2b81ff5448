"""A local best response: each decision scored by Monte Carlo rollouts against the frozen policy.

Lisý & Bowling (2017) bound a poker policy's exploitability from below with a responder that looks
one decision ahead: at each of its decisions it scores every legal action by what follows, the
frozen policy playing the other seat and a fixed *continuation* policy playing its own later
decisions, and takes the best. It needs no training and no solution, only the rules and the
policy's play, so it works against any frozen batch policy on any game the rollouts can be played
on.

:class:`LocalBestResponse` is that responder as an :class:`~agents.base.Agent`, for any game with a
batched engine that can place a position (``place_state``: Help Your Neighbor's and Trash's). At a
decision it takes the position as its seat sees it (:attr:`~agents.base.SeatView.public_state`),
draws ``rollouts`` *worlds* from it (the hidden cards dealt anew, every arrangement consistent with
the view equally likely: the game's ``sample_hidden``, :func:`trash_env.trash.belief.sample_hidden_state`
for Trash, R2, R15; Help Your Neighbor hides nothing, R12, so every world is the position itself),
puts each world in one slot per legal action of the game's batched engine, makes each slot's first
move its action, and plays every slot to the end: the frozen policy (``target``) decides for the
other seat, ``continuation`` (by default the frozen policy itself) for the responder's later
decisions, both asked in batches over the slots (or inside the engine, for its own baselines),
forced moves played by the engine (R13, R14). The action with the best mean result is played.

- **Common random numbers.** Within a world every action is tried on the same hidden cards and the
  same generators (the engine's :meth:`~trash_env.engine_host.BatchHost.copy_generators`: the same
  dice, the same reshuffles and later deals), so the comparison between actions is not drowned in
  luck.
- **Which continuation.** With the frozen policy as continuation the responder is one step of policy
  improvement over the policy itself; on two-player Help Your Neighbor, with exact values in place
  of the rollouts, that step alone finds 97-98% of the exact exploitability of ``heuristic`` and of
  the shipped MaskablePPO policy (``benchmarks/local_best_response.py``). The rollouts estimate the
  values; a decision between near-equal actions may go either way, at little cost.
- **``margin``.** The responder plays the continuation's own choice unless another action's mean
  gain over it, paired by world, is above ``margin`` standard errors (0: the best mean).
- **``rounds``.** Up to ``rounds`` rounds of ``rollouts`` worlds each at a decision, stopping after a
  round once the choice is clear: another action beats the continuation's by more than ``margin``
  standard errors, or every other action falls short of it by as much. Most decisions are clear
  after one round; the rollouts go where two actions are close, which is where the exploitability
  of a sensible policy lies.
- **A continuation in the engine.** A continuation the engine plays (one of its baselines, such as
  Trash's ``greedy``) plays the responder's later decisions inside it while the policy is asked:
  the responder is then one step of improvement over that baseline against the policy, and a
  rollout does not wait on a second network.
- **``horizon``.** At most so many engine steps a rollout (None: to the end of the game). A rollout
  still going then counts as a draw, 0, as R7's truncation at ``max_turns`` scores a game. Under
  pagat's rules (R4: the top discard may always be drawn) two policies can pass a card back and forth
  until ``max_turns`` (1,000 turns a hand, 10,000 a match): a rollout of such a game costs a hundred
  times a normal one. The horizon bounds what a decision costs; the games the responder *plays* are
  never cut short, so its result is still a sample of what it wins against the policy.
- **Cost.** About ``rollouts x actions x`` the moves left in the game (in a match, R9: in the
  match; at most ``horizon``) engine steps and policy rows per decision; ``trash-bench exploit
  --method local`` reports the seconds.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.base import Agent, SeatView

MAX_ROLLOUTS = 1 << 14  # slots per action: each holds a game row, an observation and a mask
MAX_ROUNDS = 1 << 10  # rounds of rollouts at a decision
MAX_HORIZON = 1 << 20  # engine steps a rollout (a match's max_turns, 10,000 turns, is fewer)


class LocalBestResponse(Agent):
    """A local best response to ``target`` (a frozen policy that decides in batches) for ``config``:
    ``rollouts`` worlds per decision, ``continuation`` (default ``target``) for its own later
    decisions, deviating from the continuation's choice beyond ``margin`` standard errors, each rollout
    at most ``horizon`` engine steps (None: to the game's end; the module docstring); the rollouts'
    dice from ``seed`` (and, per decision, the generator it is asked with)."""

    name = "local_best_response"
    games = None  # any game whose engine places positions (checked when made)

    def __init__(
        self,
        target: Agent,
        config: Any,
        rollouts: int = 64,
        continuation: Agent | None = None,
        margin: float = 0.0,
        seed: int | None = None,
        rounds: int = 1,
        horizon: int | None = None,
    ) -> None:
        if horizon is not None and (
            isinstance(horizon, bool) or not isinstance(horizon, int) or not 1 <= horizon <= MAX_HORIZON
        ):
            raise ValueError(f"horizon must be an integer from 1 to {MAX_HORIZON} engine steps, got {horizon!r}")
        if isinstance(rollouts, bool) or not isinstance(rollouts, int) or not 1 <= rollouts <= MAX_ROLLOUTS:
            raise ValueError(f"rollouts must be an integer from 1 to {MAX_ROLLOUTS}, got {rollouts!r}")
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds must be an integer from 1 to {MAX_ROUNDS}, got {rounds!r}")
        if not np.isfinite(margin) or margin < 0:
            raise ValueError(f"margin must be 0 or more standard errors, got {margin!r}")
        from trash_env.games import game_of

        self.game = game_of(config)
        engine = self.game.engine
        if engine is None or not hasattr(engine.batch_type(), "place_state"):
            raise ValueError(f"{self.game.title} has no batched engine that can place a position for rollouts")
        self.check_config(config)
        continuation = target if continuation is None else continuation
        self.inside = _inside(target, engine)
        self.continuation_inside = None if continuation is target else _inside(continuation, engine)
        for role, agent in (("target", target), ("continuation", continuation)):
            played_inside = (self.inside is not None and agent is target) or (
                self.continuation_inside is not None and agent is continuation
            )
            if not played_inside and not getattr(agent, "batchable", False):
                raise ValueError(f"the {role} {agent.name!r} does not decide in batches: rollouts ask it in batches")
            agent.check_config(config)
        # a network asked millions of times in small batches: its NumPy copy where there is one (the same argmax)
        self.target, self.continuation = (_fast_copy(agent) for agent in (target, continuation))
        if continuation is target:
            self.continuation = self.target
        self.config = config
        self.rollouts = rollouts
        self.margin = float(margin)
        self.seed = seed
        self.rounds = rounds
        self.horizon = horizon
        self.cut_short = 0  # rollouts still going at the horizon, scored as draws
        self.played_out = 0  # rollouts played in all
        self.played_rounds = 0  # rounds of rollouts played so far, over all decisions (the cost)
        self.decisions = 0  # decisions with two or more legal actions so far
        self.deviations = 0  # of them, those where it left the continuation's choice
        self._batches: dict[int, Any] = {}  # one engine per number of legal actions

    def _batch(self, actions: int, seat: int) -> Any:
        """The engine for decisions with ``actions`` legal actions by ``seat``, finished games held: the
        frozen policy plays inside the engine if it is one of the engine's baselines (by its spec:
        Help Your Neighbor's ``random``, ``heuristic``, ``roller``, ``optimal``, Trash's ``random``,
        ``greedy``, ``counter``), and then the responder's seat too when the policy is its own
        continuation (each rollout is one step); other seats are asked."""
        key = (actions, seat)
        if key not in self._batches:
            own = self.inside if self.continuation is self.target else self.continuation_inside
            policies = [own if other == seat else self.inside for other in range(self.config.num_players)]
            batch_type = self.game.engine.batch_type()
            self._batches[key] = batch_type(
                self.config, self.rollouts * actions, seed=self.seed, policies=policies, hold_finished=True
            )  # a rollout ends with its game
        return self._batches[key]

    def _worlds(self, view: SeatView, rng: np.random.Generator) -> list[Any]:
        """``rollouts`` full states consistent with the seat's view (one, shared, if nothing is hidden)."""
        state = copy.deepcopy(view.public_state)
        if self.game.sample_hidden is None:
            return [state] * self.rollouts
        return [self.game.sample_hidden(state, rng) for _ in range(self.rollouts)]

    def action_values(self, view: SeatView, rng: np.random.Generator) -> np.ndarray:
        """[rollouts, legal actions]: the responder's result (R10, R12: its reward) in each world
        after each legal action, ``view.legal_actions`` in order."""
        legal = view.legal_actions
        count = len(legal)
        batch = self._batch(count, view.seat)
        size = self.rollouts * count
        batch.seed(int(rng.integers(2**63)))
        first = np.arange(0, size, count)
        for i in range(1, count):  # common random numbers: one set of generators per world
            batch.copy_generators(first, first + i)
        for world, state in enumerate(self._worlds(view, rng)):
            for b in range(world * count, (world + 1) * count):
                batch.place_state(b, state)
        actions = np.tile(np.asarray(legal, np.int64), self.rollouts)
        values = np.zeros(size)
        finished = np.zeros(size, np.bool_)
        rngs: Sequence[np.random.Generator] = [rng] * size
        seat = view.seat
        steps = 0
        self.played_out += size
        while True:  # (with the policy and its continuation inside the engine, one step plays every game out)
            observations, masks, rewards, dones = batch.step(actions)
            steps += 1
            ended = dones & ~finished
            values[ended] = rewards[ended, seat]
            finished |= ended
            if finished.all():
                break
            if self.horizon is not None and steps >= self.horizon:
                self.cut_short += int((~finished).sum())  # a draw (values stay 0), as R7's truncation
                break
            actions = np.full(size, -1, np.int64)  # a finished game waits (hold_finished): its action is unused
            # the policy as its own continuation, or a continuation the engine plays: one batch, the policy's
            asked = [(self.target, ~finished)]
            if self.continuation is not self.target and self.continuation_inside is None:
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
        if getattr(self.continuation, "batchable", False):
            mask = view.action_mask[None, :].astype(np.int8)
            default = legal.index(int(self.continuation.act_batch(view.observation[None, :], mask, [rng])[0]))
        else:  # an in-engine baseline's own agent
            default = legal.index(self.continuation.act(view, rng))
        others = np.arange(len(legal)) != default
        self.decisions += 1
        values = self.action_values(view, rng)
        self.played_rounds += 1
        for _ in range(1, self.rounds):
            low, high = self._bounds(values - values[:, [default]])
            if (low[others] > 0).any() or (high[others] < 0).all():
                break  # clear: an action beats the continuation's, or none can
            values = np.concatenate([values, self.action_values(view, rng)])
            self.played_rounds += 1
        gains = values - values[:, [default]]
        low, _ = self._bounds(gains)
        score = np.where(others, low, 0.0)
        best = int(np.argmax(score))
        if score[best] <= 0:
            return legal[default]
        self.deviations += 1
        return legal[best]

    def _bounds(self, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each action's mean gain over the continuation's choice, less and plus ``margin`` standard
        errors (paired by world)."""
        mean = gains.mean(axis=0)
        if self.margin == 0 or len(gains) < 2:
            return mean, mean
        error = self.margin * gains.std(axis=0, ddof=1) / np.sqrt(len(gains))
        return mean - error, mean + error


def _inside(agent: Agent, engine: Any) -> str | None:
    """The agent's spec if the engine plays it inside itself (one of its baselines), else None."""
    spec = getattr(agent, "spec", None)
    return spec if spec in engine.policies else None


def _fast_copy(agent: Agent) -> Agent:
    """``agent``, or its NumPy copy if it is a torch network that has one (:func:`agents.linear.numpy_copy`)."""
    from agents.linear import numpy_copy

    copy = numpy_copy(agent)
    return agent if copy is None else copy
