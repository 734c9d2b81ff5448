"""The fixed settings of the suite's built-in algorithms (:mod:`agents.bench.algorithms`), as plain
data: the tasks (:mod:`agents.bench.tasks`) derive their smallest budget from them without importing
the algorithms."""

from __future__ import annotations

from typing import Any

# Fixed settings of the built-in algorithms, the same on every task (agents.training.sb3.Args fields).
SETTINGS: dict[str, dict[str, Any]] = {
    "maskable_ppo": {
        "algo": "maskable_ppo",
        "n_envs": 8,
        "n_steps": 256,
        "batch_size": 512,
        "learning_rate": 3e-4,
        "ent_coef": 0.0,
    },
    "ppo": {"algo": "ppo", "n_envs": 8, "n_steps": 256, "batch_size": 512, "learning_rate": 3e-4, "ent_coef": 0.0},
    "a2c": {"algo": "a2c", "n_envs": 8, "n_steps": 16, "learning_rate": 7e-4, "ent_coef": 0.0},
    "dqn": {
        "algo": "dqn",
        "n_envs": 4,
        "batch_size": 256,
        "learning_rate": 1e-4,
        "learning_starts": 2_000,
        "target_update_interval": 2_000,
    },
    # 25 quantiles, as the RL Zoo uses on small tasks: sb3-contrib's default of 200 trains ~40x slower on CPU
    "qrdqn": {
        "algo": "qrdqn",
        "n_envs": 4,
        "batch_size": 256,
        "learning_rate": 1e-4,
        "n_quantiles": 25,
        "learning_starts": 2_000,
        "target_update_interval": 2_000,
    },
}
# The masked learners (agents.training.sb3.masked): their maskless counterparts' settings, masked.
for _masked, _plain in (("masked_a2c", "a2c"), ("masked_dqn", "dqn"), ("masked_qrdqn", "qrdqn")):
    SETTINGS[_masked] = {**SETTINGS[_plain], "algo": _masked}
MASKLESS = ("ppo", "a2c", "dqn", "qrdqn")  # the "no masks" track: an illegal action ends the episode as a loss
SELF_PLAY_SETTINGS = {"snapshot_every": 20_000, "pool_size": 4}
ON_POLICY = ("maskable_ppo", "masked_a2c", "ppo", "a2c")
UPDATES_AT_LEAST = 4  # what a budget scaled down for a smoke test still trains: this many updates or more
