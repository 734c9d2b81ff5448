"""A Monte Carlo search agent: determinize, roll out, deviate only on clear evidence.

At each choice it draws ``samples`` full hidden states consistent with
everything public (R15, :func:`trash_env.trash.belief.sample_hidden_state`). In
each sampled world it applies every legal action and plays the hand out
``rollouts`` times with a fast heuristic policy (``greedy`` by default) for
every seat, scoring the result for its own seat (R10). All actions are
compared on the same worlds and the same rollout random numbers (common
random numbers), so their differences are not drowned in deal luck.

Most choices in Trash are near-ties (which face-down slot a wild covers
matters little), and picking among near-ties by Monte Carlo noise plays
measurably worse than the rollout policy itself. So the agent plays the
rollout policy's own choice unless another action's paired advantage is
above ``margin`` standard errors.

The cost per decision is about ``samples x rollouts x legal actions`` hand
rollouts; the README gives the measured figure.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, PolicyAgent, SeatView
from agents.baselines import GreedyAgent
from trash_env.trash.belief import sample_hidden_state
from trash_env.trash.rules import OVER, TrashState, apply_action, clone, legal_actions, play_forced, returns


class SearchAgent(Agent):
    """Monte Carlo rollouts over sampled hidden states (budget: ``samples`` x ``rollouts``)."""

    name = "search"

    def __init__(
        self, samples: int = 16, rollouts: int = 1, margin: float = 2.0, policy: PolicyAgent | None = None
    ) -> None:
        for key, value in (("samples", samples), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"search {key} must be a positive integer, got {value!r}")
        self.samples = samples
        self.rollouts = rollouts
        self.margin = margin
        self.policy = policy if policy is not None else GreedyAgent()

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        legal = view.legal_actions
        public = view.public_state
        values = np.zeros((self.samples, len(legal)))
        rollout_rng = np.random.default_rng(int(rng.integers(2**63)))
        for sample in range(self.samples):
            world = sample_hidden_state(public, rng)
            start = rollout_rng.bit_generator.state
            for i, action in enumerate(legal):
                rollout_rng.bit_generator.state = start  # the same random numbers for every action
                for _ in range(self.rollouts):
                    branch = clone(world)
                    apply_action(branch, action, rollout_rng)
                    values[sample, i] += self.rollout(branch, view.seat, rollout_rng)
        # Deviate from the rollout policy's own choice only where the paired
        # difference is clear (mean above `margin` standard errors): many actions
        # are near-equal, and picking among them by noise plays worse than the policy.
        default = legal.index(self.policy.choose(public, legal, rng))
        if self.samples < 2:
            return legal[default]
        gains = (values - values[:, [default]]) / self.rollouts  # per sample, in [-2, 2]
        mean = gains.mean(axis=0)
        # The standard error, floored at one sample's worth (2 / samples): a few
        # samples that happen to agree are not clear evidence.
        error = np.maximum(gains.std(axis=0, ddof=1) / np.sqrt(self.samples), 2.0 / self.samples)
        best = int(np.argmax(mean - self.margin * error))
        if mean[best] - self.margin * error[best] > 0:
            return legal[best]
        return legal[default]

    def rollout(self, state: TrashState, seat: int, rng: np.random.Generator) -> float:
        """Play the current hand out with the rollout policy; ``seat``'s result (R10):
        +1 if it won the hand, -1 if another seat did, 0 on a draw."""
        hand, won = state.hand, state.hands_won[:]
        choose = self.policy.choose
        while True:
            play_forced(state, rng)
            if state.phase == OVER or state.hand != hand:
                break
            apply_action(state, choose(state, legal_actions(state), rng), rng)
        if not state.config.match:
            return returns(state)[seat]
        if state.hands_won[seat] > won[seat]:
            return 1.0
        return -1.0 if state.hands_won != won else 0.0
