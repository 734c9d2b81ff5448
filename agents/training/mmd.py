"""Magnetic mirror descent as a deep RL algorithm: the ``mmd`` built-in (issue 52).

Sokota et al. (ICLR 2023) show that one update rule, magnetic mirror descent, solves single-agent RL,
quantal response equilibria and two-player zero-sum games: at each step the policy maximises its
expected return less ``alpha * KL(pi || magnet)`` and ``(1 / eta) * KL(pi || pi_t)``, the previous
policy's. With the uniform policy as the magnet the first term is an entropy bonus, and its last
iterate (not an average, as in fictitious play or CFR) goes to an equilibrium of the game regularised
by that entropy. As deep RL it is PPO with two terms added to the loss, which is how Sokota et al.
ran it and how the IIG-RL-Benchmark (Rudolph et al., ICLR 2026) implements it
(``algorithms/mmd/mmd.py``, read for this module): PPO's clipped objective, an entropy bonus
(``alpha``: the uniform magnet), the new policy's KL from the rollout's policy (``1 / eta``:
``kl_coef``), and the learning rate annealed to 0 over the budget. Here the KL is computed exactly
over the legal actions (the benchmark samples it: ``ratio * log ratio - (ratio - 1)``).

The settings (:data:`MMD`) are the IIG-RL-Benchmark's defaults for MMD (its ``ppo.yaml`` and
``mmd.yaml``: entropy 0.05, KL 0.05, clip 0.1, 4 epochs over 4 minibatches, learning rate 2.5e-4
annealed) on this trainer's rollouts (64 games x 32 steps). Self-play: the opponent seat plays the
learner as of the last rollout (a snapshot after each rollout, one kept, drawing its actions from its
policy), so the learner plays itself as the benchmark's does, one rollout behind. Trained by
:func:`agents.training.fast_ppo.train_fast`; the policy returned is its last iterate, read greedily
(the legal action of highest logit) as every :class:`~agents.linear.LinearAgent`.
"""

from __future__ import annotations

from typing import Any

from agents.training.fast_ppo import FastSettings, overrides_of

ROLLOUT = FastSettings().n_envs * FastSettings().n_steps
MMD = FastSettings(
    epochs=4,
    minibatch=ROLLOUT // 4,
    learning_rate=2.5e-4,
    gamma=0.99,
    clip=0.1,
    ent_coef=0.05,
    kl_coef=0.05,
    anneal_lr=True,
    snapshot_every=ROLLOUT,
    pool_size=1,
    sample_snapshots=True,
)


def mmd_overrides() -> dict[str, Any]:
    """:data:`MMD`'s settings where they differ from ``fast_ppo``'s defaults (the ``mmd`` built-in)."""
    return overrides_of(MMD)
