"""Run by ``tests/test_package.py`` inside a fresh environment holding the lowest versions of the core
dependencies that pyproject.toml allows (its floors) and the built wheel: the checks that PettingZoo,
Gymnasium and their users apply to the envs. Prints one line per check and exits non-zero on the first
that fails (its traceback)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import trash_env
from trash_env import help_your_neighbor_v0, trash_v0

print(f"gymnasium {gymnasium.__version__}, pettingzoo {pettingzoo.__version__}, numpy {np.__version__}")
SETTINGS = {trash_v0: [{}, {"num_players": 4}, {"match": True}], help_your_neighbor_v0: [{}, {"num_players": 3}]}
for module, settings in SETTINGS.items():
    for rules in settings:
        api_test(module.env(**rules), num_cycles=200)
        api_test(module.env(flat_observation=True, **rules), num_cycles=100)
    seed_test(module.env, num_cycles=100)
    print(f"{module.__name__}: api_test and seed_test passed")
for env_id in ("TrashSingleAgent-v0", "HelpYourNeighborSingleAgent-v0"):
    check_env(gymnasium.make(env_id).unwrapped, skip_render_check=True)
    for mode in ("vector_entry_point", "sync"):
        envs = gymnasium.make_vec(env_id, num_envs=4, vectorization_mode=mode)
        _, infos = envs.reset(seed=0)
        for _ in range(200):
            actions = [envs.single_action_space.sample(mask=mask) for mask in infos["action_mask"]]
            _, _, _, _, infos = envs.step(np.array(actions))
        envs.close()
    print(f"{env_id}: check_env and make_vec ({type(gymnasium.make_vec(env_id, num_envs=2)).__name__}) passed")
print(f"trash_env {trash_env.__version__}: every check passed")
