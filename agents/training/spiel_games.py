"""The batched multi-agent learners on OpenSpiel's games, to check them against OpenSpiel (issue 52).

``nfsp`` and ``mmd`` are written for this package's batched engines. To check them against the
implementations the field uses (OpenSpiel's NFSP) and against OpenSpiel's exact exploitability on
the games its curves are published for (Kuhn and Leduc poker), they run here, unchanged, on a
two-player OpenSpiel game behind the same interface as a batched engine's vector env:

- :class:`SpielVecEnv`: ``num_envs`` games, the learner in a seat drawn for each game, its
  observation the information-state tensor, its mask the legal actions; the other seat plays an
  opponent from the pool (``set_opponents``) and chance draws its outcomes, both inside ``step``;
  the learner's reward is its return at the game's end (``step_arrays`` as the engines').
- :class:`SpielPolicy`: a trained network as a policy that decides in batches (greedily, or by
  drawing from its softmax), with :meth:`SpielPolicy.probabilities`;
- :func:`exploitability`: OpenSpiel's exact exploitability (``open_spiel.python.algorithms.
  exploitability``: the mean over the two seats of the best response's gain, in the game's units) of
  the policy's probabilities at every information state, one policy for both seats.

Needs ``open_spiel`` (the ``openspiel`` extra) and torch.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np


class SpielPolicy:
    """A policy network of an OpenSpiel game (a torch module from observations to logits), deciding
    in batches over the legal actions: the highest logit, or with ``sample`` a draw from the softmax."""

    batchable = True

    def __init__(self, net: Any, name: str, sample: bool = False, seed: int = 0) -> None:
        self.net, self.name, self.sample = copy.deepcopy(net), name, sample
        self._generator = np.random.default_rng(seed)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The softmax over each row's legal actions."""
        import torch

        with torch.no_grad():
            logits = self.net(torch.as_tensor(np.asarray(observations, np.float32))).numpy().astype(np.float64)
        logits = np.where(np.asarray(masks) > 0, logits, -np.inf)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[Any]) -> np.ndarray:
        probabilities = self.probabilities(observations, masks)
        if not self.sample:
            return probabilities.argmax(axis=1)
        draws = np.array([(rng or self._generator).random() for rng in rngs])[:, None]
        chosen = (np.cumsum(probabilities, axis=1) <= draws).sum(axis=1)
        legal_last = masks.shape[1] - 1 - np.argmax(np.asarray(masks)[:, ::-1] > 0, axis=1)
        return np.minimum(chosen, legal_last)  # (rounding: a draw past the last cumulative sum)


def policy_of(holder: Any, name: str, sample: bool = False, seed: int = 0) -> SpielPolicy:
    """What the trainers' ``policy_of`` takes: ``holder.policy`` (the network) as a :class:`SpielPolicy`."""
    return SpielPolicy(holder.policy, name, sample, seed)


class SpielVecEnv:
    """``num_envs`` games of a two-player OpenSpiel game with the interface of a batched engine's
    vector env (``reset``, ``step_arrays``, ``action_masks``, ``set_opponents``), the learner in a
    seat drawn for each game (module docstring)."""

    def __init__(self, game: str, num_envs: int, seed: int = 0) -> None:
        import pyspiel

        self.game = pyspiel.load_game(game)
        if self.game.num_players() != 2:
            raise ValueError(f"{game} has {self.game.num_players()} players: the learners here are two-player")
        self.num_envs = num_envs
        self.rng = np.random.default_rng(seed)
        self.size = self.game.information_state_tensor_shape()[0]
        self.num_actions = self.game.num_distinct_actions()
        self.pool: list[Any] = [SpielUniform()]
        self.states: list[Any] = [None] * num_envs
        self.seats = np.zeros(num_envs, np.int64)
        self.opponents: list[Any] = [None] * num_envs
        self.obs = np.zeros((num_envs, self.size), np.float32)
        self.masks = np.zeros((num_envs, self.num_actions), bool)

    def set_opponents(self, opponents: Sequence[Any]) -> None:
        """The opponents games dealt from now on draw from (each a policy with ``act_batch``)."""
        self.pool = list(opponents)

    def reset(self) -> np.ndarray:
        for i in range(self.num_envs):
            self._deal(i)
        return self.obs.copy()

    def action_masks(self) -> np.ndarray:
        return self.masks.copy()

    def step_arrays(self, actions: np.ndarray) -> tuple[np.ndarray, ...]:
        """The learner's action in every game; returns (observations, rewards, dones, truncations, the
        finished games' last observations) as the batched vector envs do (no game is cut short)."""
        n = self.num_envs
        rewards, dones = np.zeros(n, np.float32), np.zeros(n, bool)
        final_obs = np.zeros_like(self.obs)
        for i, action in enumerate(np.asarray(actions)):
            state, seat = self.states[i], int(self.seats[i])
            if not (0 <= action < self.num_actions and self.masks[i, action]):
                raise ValueError(f"game {i}: action {action} is not legal")
            state.apply_action(int(action))
            self._advance(i)
            if state.is_terminal():
                rewards[i], dones[i] = state.returns()[seat], True
                final_obs[i] = state.information_state_tensor(seat)
                self._deal(i)
        return self.obs.copy(), rewards, dones, np.zeros(n, bool), final_obs

    def _deal(self, i: int) -> None:
        self.states[i] = self.game.new_initial_state()
        self.seats[i] = self.rng.integers(2)
        self.opponents[i] = self.pool[self.rng.integers(len(self.pool))]
        self._advance(i)
        if self.states[i].is_terminal():  # (a game the learner never moves in is not an episode)
            self._deal(i)

    def _advance(self, i: int) -> None:
        """Chance and the opponent move until the learner's turn or the game's end; then the learner's
        observation and mask."""
        state, seat = self.states[i], int(self.seats[i])
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes())
                state.apply_action(int(self.rng.choice(outcomes, p=probabilities)))
            elif state.current_player() != seat:
                player = state.current_player()
                observation = np.asarray(state.information_state_tensor(player), np.float32)[None]
                mask = np.asarray(state.legal_actions_mask(player), bool)[None]
                state.apply_action(int(self.opponents[i].act_batch(observation, mask, [self.rng])[0]))
            else:
                self.obs[i] = state.information_state_tensor(seat)
                self.masks[i] = np.asarray(state.legal_actions_mask(seat), bool)
                return


class SpielUniform:
    """The first opponent before a trainer seats its own: uniform over the legal actions."""

    batchable, name = True, "uniform"

    def act_batch(self, observations: np.ndarray, masks: np.ndarray, rngs: Sequence[Any]) -> np.ndarray:
        return np.array([rng.choice(np.flatnonzero(row)) for rng, row in zip(rngs, np.asarray(masks))])


def exploitability(game: str, policy: SpielPolicy) -> float:
    """OpenSpiel's exact exploitability of ``policy`` (its probabilities at every information state,
    for both seats): the mean over the seats of what a best response gains, 0 at a Nash equilibrium."""
    import pyspiel
    from open_spiel.python import policy as spiel_policy
    from open_spiel.python.algorithms import exploitability as spiel_exploitability

    loaded = pyspiel.load_game(game)
    table = spiel_policy.TabularPolicy(loaded)
    observations = np.array([s.information_state_tensor(s.current_player()) for s in table.states], np.float32)
    masks = np.array([s.legal_actions_mask(s.current_player()) for s in table.states], bool)
    table.action_probability_array[:] = policy.probabilities(observations, masks)
    return float(spiel_exploitability.exploitability(loaded, table))


def greedy(policy: SpielPolicy) -> SpielPolicy:
    """``policy`` read greedily: all its probability on its legal action of highest logit."""

    class Greedy(SpielPolicy):
        def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
            chosen = super().probabilities(observations, masks).argmax(axis=1)
            return np.eye(masks.shape[1])[chosen]

    return Greedy(policy.net, f"{policy.name}_greedy")
