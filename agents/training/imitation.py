"""Kickstarting a Stable-Baselines3 learner by imitating a reference baseline, inside its budget.

Reinforcement learning from scratch on four-player ``pagat`` matches stays measurably below
``greedy`` (docs/strong-agents.md): a match pays once, after hundreds of decisions, and R9 turns
each small leak into a larger one. Kickstarting starts the learner where ``greedy`` is and lets
reinforcement learning look for an edge from there:

1. **Demonstrations.** At the start of training, the reference plays the learner's seat in the
   training vector env itself (the suite's counting wrapper counts every step: they are part of
   the budget), and each of its decisions is recorded with the observation and the mask the
   learner sees, together with the (shaped) rewards that follow.
2. **Fitting.** The policy's action head is fitted to the recorded decisions (cross-entropy over
   the legal actions) and its value head to the discounted returns that followed them, for a few
   epochs of minibatches.
3. **Handing over.** The learner continues from the env's current games with its own algorithm for
   the rest of the budget (its step count starts after the demonstrations).

The reference is asked through what the learner observes only (R15): ``greedy`` (R4, R5) takes the
top discard exactly when the observation's ``discard_playable`` says it can be placed, and otherwise
makes the lowest legal move: the first face-down slot for a wild, placing rather than discarding.
:func:`greedy_batch` is that rule, tested against :class:`agents.baselines.GreedyAgent` on the rules
core. Nothing else is read: the learner imitates a baseline of the package, not a solution.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from trash_env.kernel import PieceLayout
from trash_env.trash.game import GAME as TRASH
from trash_env.trash.observation import observation_pieces
from trash_env.trash.rules import DRAW_STOCK, TAKE_DISCARD

logger = logging.getLogger(__name__)

ReferenceBatch = Callable[[np.ndarray, np.ndarray], np.ndarray]


def greedy_batch(num_players: int) -> ReferenceBatch:
    """``greedy``'s decisions for a batch of ``num_players``-seat Trash observations and masks."""
    layout = PieceLayout(observation_pieces(num_players))
    playable = layout.offsets["discard_playable"]

    def decide(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        observations = np.asarray(observations)
        masks = np.asarray(masks, dtype=bool)
        if observations.shape[-1] != layout.size:
            raise ValueError(
                f"a {num_players}-player Trash observation has {layout.size} entries, got {observations.shape[-1]}"
            )
        if not masks.any(axis=1).all():
            raise ValueError("every row needs a legal action")
        lowest = np.argmax(masks, axis=1)  # legal[0]: the lowest legal action
        draw_choice = masks[:, DRAW_STOCK] & masks[:, TAKE_DISCARD]
        take = observations[:, playable] > 0.5
        return np.where(draw_choice, np.where(take, TAKE_DISCARD, DRAW_STOCK), lowest).astype(np.int64)

    return decide


REFERENCES: dict[str, Callable[[int], ReferenceBatch]] = {"greedy": greedy_batch}


def reference_batch(name: str, game: str, num_players: int) -> ReferenceBatch:
    """The batch form of a baseline the learner can imitate (only ``greedy`` of Trash, for now)."""
    if game != TRASH.name or name not in REFERENCES:
        raise ValueError(f"kickstarting imitates {sorted(REFERENCES)} of Trash, not {name!r} of {game}")
    return REFERENCES[name](num_players)


@dataclass
class Demonstrations:
    """What :func:`demonstrate` recorded: one row per decision of the reference."""

    observations: np.ndarray  # float32 [N, size]
    masks: np.ndarray  # bool [N, actions]
    actions: np.ndarray  # int64 [N]
    returns: np.ndarray  # float32 [N], the discounted return that followed (NaN where no episode ended)
    last_observations: np.ndarray  # the env's observations after the last step (where the learner goes on)
    last_dones: np.ndarray  # and whether each of its games had just ended


def discounted_returns(rewards: np.ndarray, dones: np.ndarray, gamma: float) -> np.ndarray:
    """Per env (columns), the discounted return from each step to the end of its episode; NaN for the
    steps whose episode had not ended when recording stopped."""
    steps, envs = rewards.shape
    returns = np.full((steps, envs), np.nan, dtype=np.float64)
    running = np.full(envs, np.nan)
    for t in range(steps - 1, -1, -1):
        running = np.where(dones[t], rewards[t], rewards[t] + gamma * running)
        returns[t] = running
    return returns


def demonstrate(
    venv: Any, first_observations: np.ndarray, steps: int, reference: ReferenceBatch, gamma: float
) -> Demonstrations:
    """Let ``reference`` play the learner's seat of ``venv`` for ``steps`` vector steps from
    ``first_observations``, recording each decision."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    observations = np.asarray(first_observations)
    envs = observations.shape[0]
    seen, masks_seen, actions_seen, rewards_seen, dones_seen = [], [], [], [], []
    dones = np.zeros(envs, dtype=bool)
    for _ in range(steps):
        masks = np.asarray(get_action_masks(venv), dtype=bool)
        actions = reference(observations, masks)
        seen.append(observations)
        masks_seen.append(masks)
        actions_seen.append(actions)
        observations, rewards, dones, _ = venv.step(actions)
        rewards_seen.append(np.asarray(rewards, dtype=np.float64))
        dones_seen.append(np.asarray(dones, dtype=bool))
    returns = discounted_returns(np.array(rewards_seen), np.array(dones_seen), gamma)
    flat = lambda rows: np.concatenate(rows, axis=0)  # noqa: E731 (steps x envs, step-major)
    return Demonstrations(
        observations=flat(seen).astype(np.float32),
        masks=flat(masks_seen),
        actions=flat(actions_seen),
        returns=returns.reshape(-1).astype(np.float32),
        last_observations=observations,
        last_dones=np.asarray(dones, dtype=bool),
    )


def fit(
    policy: Any,
    data: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    min_updates: int = 1000,
) -> dict[str, float]:
    """Fit a MaskablePPO policy's action head to the demonstrations (cross-entropy over the legal
    actions) and its value head to their returns, for ``epochs`` passes or more, enough for
    ``min_updates`` minibatch updates; the agreement with the reference and the value error after
    fitting, on every recorded decision."""
    import torch as th

    rng = np.random.default_rng(seed)
    device = policy.device
    observations = th.as_tensor(data.observations, device=device)
    actions = th.as_tensor(data.actions, device=device)
    masks = data.masks
    returns = th.as_tensor(np.nan_to_num(data.returns), device=device)
    has_return = th.as_tensor(~np.isnan(data.returns), device=device)
    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    count = len(actions)
    batches = max(1, count // batch_size)
    for _ in range(max(epochs, -(-min_updates // batches))):
        for batch in np.array_split(rng.permutation(count), batches):
            index = th.as_tensor(batch, device=device)
            values, log_prob, _ = policy.evaluate_actions(
                observations[index], actions[index], action_masks=masks[batch]
            )
            values = values.flatten()
            known = has_return[index]
            value_loss = ((values - returns[index]) ** 2)[known].mean() if bool(known.any()) else values.sum() * 0
            loss = -log_prob.mean() + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
    policy.set_training_mode(False)
    with th.no_grad():
        agree, squared, known_count = 0, 0.0, 0
        for batch in np.array_split(np.arange(count), max(1, count // 4096)):
            index = th.as_tensor(batch, device=device)
            distribution = policy.get_distribution(observations[index], action_masks=masks[batch])
            chosen = distribution.distribution.probs.argmax(dim=1)
            agree += int((chosen == actions[index]).sum())
            values = policy.predict_values(observations[index]).flatten()
            known = has_return[index]
            squared += float((((values - returns[index]) ** 2)[known]).sum())
            known_count += int(known.sum())
    return {"agreement": agree / count, "value_rmse": float(np.sqrt(squared / max(known_count, 1)))}


class Kickstart:
    """An SB3 callback (made lazily, so this module imports without Stable-Baselines3) that
    kickstarts the model at the start of training: ``steps`` timesteps of the reference's
    demonstrations (rounded down to whole vector steps), fitted for ``epochs``, then handed over.
    ``report`` (a dict) receives the demonstration count and the fit's figures."""

    def __new__(
        cls,
        reference: ReferenceBatch,
        steps: int,
        epochs: int = 4,
        batch_size: int = 256,
        learning_rate: float = 1e-3,
        seed: int = 0,
        report: dict[str, Any] | None = None,
    ) -> Any:
        from stable_baselines3.common.callbacks import BaseCallback

        class _Kickstart(BaseCallback):
            def _on_training_start(self) -> None:
                model = self.model
                venv = model.get_env()
                vector_steps = steps // venv.num_envs
                if vector_steps <= 0:
                    return
                data = demonstrate(venv, model._last_obs, vector_steps, reference, model.gamma)
                figures = fit(model.policy, data, epochs, batch_size, learning_rate, seed)
                model.num_timesteps += vector_steps * venv.num_envs
                model._last_obs = data.last_observations
                model._last_episode_starts = data.last_dones
                figures["demonstrations"] = vector_steps * venv.num_envs
                logger.info(
                    f"kickstart: {figures['demonstrations']:,} decisions of the reference, agreement "
                    f"{figures['agreement']:.4f}, value RMSE {figures['value_rmse']:.3f}"
                )
                if report is not None:
                    report.update(figures)

            def _on_step(self) -> bool:
                return True

        return _Kickstart()
