"""The candidates for a fast masked PPO (issue 50), timed on the same engine, task and settings.

What a user would try, each fed by the same batched engine's arrays (``BatchedVecEnv.step_arrays``:
no per-game Python), two-player Trash against ``random``, one torch thread:

- **CleanRL-style single file**: ``agents.training.fast_ppo`` (a plain-torch loop over preallocated
  tensors, masked logits, Gumbel-max sampling);
- **TorchRL's PPO**: its ``ProbabilisticActor`` with ``MaskedCategorical``, ``ValueOperator``,
  ``GAE`` and ``ClipPPOLoss`` over TensorDicts, the same networks and update (a user brings TorchRL's
  pieces to an env of their own; TorchRL's collectors over the PettingZoo or Gymnasium envs step one
  game per Python call, slower still);
- **SBX** (Stable-Baselines3 in JAX): its PPO on the same batched engine as an SB3 ``VecEnv``, XLA on
  one thread. It has no action masks and the batched engine refuses illegal actions, so a wrapper
  plays the first legal action in place of an illegal one: its figure is speed only, not learning;
- **PufferLib's trainer**: tried, see the note it prints (its trainer needs its own C env bindings).

Each at two settings: MaskablePPO's (8 games x 256 steps, minibatches of 512, 10 epochs, 128x128) and
fast_ppo's ``THROUGHPUT`` (1,024 games x 16 steps, minibatches of 4,096, 2 epochs, 64x64).

    PYTHONPATH=/path/to/torchrl python benchmarks/trainer_candidates.py

TorchRL (``torchrl``, ``tensordict``) and SBX (``sbx-rl`` with ``jax``) are not dependencies of the
package: install them beside to run this (with jax 0.10, SBX's import of TensorFlow Probability needs
the one-line shim in :func:`sbx_ppo`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for agents

from figures import one_torch_thread, sb3_ppo_kwargs, write_figures

SUITE = {"n_envs": 8, "n_steps": 256, "minibatch": 512, "epochs": 10, "hidden": (128, 128)}
OWN = {"n_envs": 1024, "n_steps": 16, "minibatch": 4096, "epochs": 2, "hidden": (64, 64)}


def cleanrl_style(settings: dict[str, Any], timesteps: int) -> float:
    from agents.training.fast_ppo import FastSettings, train_fast
    from agents.training.sb3 import batched_vec_env
    from trash_env.trash.config import make_config

    chosen = FastSettings(**settings)
    venv = batched_vec_env("trash", chosen.n_envs, "standard", ["random"], 0, {})
    start = time.perf_counter()
    _, timing = train_fast(venv, timesteps, "trash", make_config("standard"), 0, chosen)
    return timing.timesteps / (time.perf_counter() - start)


def torchrl_ppo(settings: dict[str, Any], timesteps: int) -> float:
    """TorchRL's actor, value operator, GAE and clipped loss, fed by the engine's arrays."""
    import torch
    from tensordict import TensorDict
    from tensordict.nn import TensorDictModule
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    from agents.training.fast_ppo import _networks
    from agents.training.sb3 import batched_vec_env

    n, steps = settings["n_envs"], settings["n_steps"]
    venv = batched_vec_env("trash", n, "standard", ["random"], 0, {})
    observation = torch.as_tensor(venv.reset())
    mask = torch.as_tensor(venv.action_masks(), dtype=torch.bool)
    net = _networks(observation.shape[1], mask.shape[1], settings["hidden"])
    policy = TensorDictModule(net.policy, in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(
        policy,
        in_keys={"logits": "logits", "mask": "mask"},
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )
    value = ValueOperator(lambda x: net.value(x), in_keys=["observation"])
    advantage = GAE(gamma=0.99, lmbda=0.95, value_network=value)
    loss = ClipPPOLoss(actor, value, clip_epsilon=0.2, entropy_coeff=0.0, critic_coeff=0.5, normalize_advantage=True)
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-4, eps=1e-5)
    taken, start = 0, time.perf_counter()
    while taken < timesteps:
        frames = []
        for _ in range(steps):
            step = TensorDict({"observation": observation, "mask": mask}, batch_size=[n])
            with torch.no_grad():
                actor(step)
            next_obs, rewards, dones, _, _ = venv.step_arrays(step["action"].numpy())
            observation = torch.as_tensor(next_obs.copy())
            mask = torch.as_tensor(venv.action_masks(), dtype=torch.bool)
            done = torch.as_tensor(dones)[:, None]
            step["next"] = TensorDict(
                {
                    "observation": observation,
                    "reward": torch.as_tensor(rewards)[:, None],
                    "done": done,
                    "terminated": done,
                },
                batch_size=[n],
            )
            frames.append(step)
            taken += n
        rollout = torch.stack(frames, dim=1)  # [games, time]
        with torch.no_grad():
            advantage(rollout)
        flat = rollout.reshape(-1)
        size = min(settings["minibatch"], len(flat))
        for _ in range(settings["epochs"]):
            order = torch.randperm(len(flat))
            for begin in range(0, len(flat) - size + 1, size):
                parts = loss(flat[order[begin : begin + size]])
                total = parts["loss_objective"] + parts["loss_critic"] + parts.get("loss_entropy", 0.0)
                optimizer.zero_grad(set_to_none=True)
                total.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
                optimizer.step()
    return taken / (time.perf_counter() - start)


def sbx_ppo(settings: dict[str, Any], timesteps: int) -> float:
    """SBX's PPO (JAX) on the batched engine as an SB3 VecEnv, after one short warm-up learn (XLA
    compiles its update then); the timed learn continues the same model."""
    import os

    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    import jax.interpreters.xla
    from jax._src import core

    if not hasattr(jax.interpreters.xla, "pytype_aval_mappings"):  # TensorFlow Probability reads the old name
        jax.interpreters.xla.pytype_aval_mappings = core.pytype_aval_mappings
    import numpy as np
    from sbx import PPO
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from agents.training.sb3 import batched_vec_env

    class FirstLegal(VecEnvWrapper):
        """An illegal action replaced by the game's first legal one (SBX's PPO samples unmasked)."""

        def reset(self) -> Any:
            return self.venv.reset()

        def step_async(self, actions: Any) -> None:
            masks = self.venv.action_masks()
            rows = np.arange(len(actions))
            legal = masks[rows, actions].astype(bool)
            self.venv.step_async(np.where(legal, actions, masks.argmax(axis=1)))

        def step_wait(self) -> Any:
            return self.venv.step_wait()

    venv = FirstLegal(batched_vec_env("trash", settings["n_envs"], "standard", ["random"], 0, {}))
    model = PPO("MlpPolicy", venv, **sb3_ppo_kwargs(settings))
    model.learn(total_timesteps=2 * settings["n_envs"] * settings["n_steps"])
    before, start = model.num_timesteps, time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False)
    return (model.num_timesteps - before) / (time.perf_counter() - start)


def tried(package: str, why: str) -> str:
    try:
        __import__(package)
    except ImportError:
        return f"{package}: not installed here; {why}"
    return f"{package}: installed; {why}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=50_000, help="per measurement at MaskablePPO's settings")
    parser.add_argument(
        "--own-timesteps", type=int, default=300_000, help="per measurement at fast_ppo's THROUGHPUT settings"
    )
    parser.add_argument("--json", type=Path, default=None, help="write the figures here (docs/speed/candidates.json)")
    args = parser.parse_args()
    print(one_torch_thread())
    cleanrl_style(OWN, 20_000)  # the engine compiled and warm
    figures: dict[str, Any] = {}
    for key, label, settings, timesteps in (
        ("suite", "MaskablePPO's settings", SUITE, args.timesteps),
        ("throughput", "fast_ppo's THROUGHPUT settings", OWN, args.own_timesteps),
    ):
        rates = {"CleanRL-style (fast_ppo)": cleanrl_style(settings, timesteps)}
        try:
            rates["TorchRL PPO"] = torchrl_ppo(settings, timesteps)
        except ImportError as error:
            print(f"TorchRL: {error}")
        try:
            rates["SBX PPO (no masks)"] = sbx_ppo(settings, timesteps)
        except ImportError as error:
            print(f"SBX: {error}")
        print(f"{label}: " + ", ".join(f"{name} {rate:,.0f} timesteps/s" for name, rate in rates.items()))
        figures[key] = {name: round(rate) for name, rate in rates.items()}
    why = "its trainer steps PufferLib's own vectorised envs (C bindings, shared memory)"
    figures["pufferlib"] = tried("pufferlib", why)
    print(figures["pufferlib"])
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
