"""How fast ``fast_ppo`` trains (issue 50), against SB3's MaskablePPO and the plain-torch limit, in one run.

One torch thread throughout (the suite's setting: a run per core). Measured, in timesteps per second:

- **at MaskablePPO's settings** (the suite's: 8 games, 256 steps per game, minibatches of 512, 10
  epochs, separate 128x128 networks), two-player Trash against ``random``: SB3's MaskablePPO on
  ``TrashVecEnv(8)``; ``fast_ppo`` with the same settings; and the **plain-torch limit** of those
  settings, the learner's arithmetic alone: the forward pass at 8 games per step and 10 epochs of the
  update (masked categorical, clipped loss, value loss, Adam, gradient clipping) on minibatches of 512,
  timed on random data, ``1 / (1 / forward + epochs / update)``;
- **at fast_ppo's defaults** (:class:`agents.training.fast_ppo.FastSettings`: SB3's sample reuse, 64
  games, 64x64) and **at its THROUGHPUT settings** (1,024 games, 2 epochs, minibatches of 4,096), each
  with the share of its time in the engine (and opponents), the rollout's forward passes and the update;
- **Help Your Neighbor** at the suite's settings: SB3's MaskablePPO on ``DummyVecEnv`` over the
  single-agent env (what it trains on without the batched engine), against ``fast_ppo`` at both.

    python benchmarks/fast_ppo.py                          # about three minutes
    python benchmarks/fast_ppo.py --json docs/speed/fast_ppo.json   # make bench

Needs the train and batched extras.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for agents

from figures import one_torch_thread, sb3_ppo_kwargs, write_figures

SUITE = {"n_envs": 8, "n_steps": 256, "minibatch": 512, "epochs": 10, "hidden": (128, 128), "ent_coef": 0.0}
THROUGHPUT_SETTINGS = {"n_envs": 1024, "n_steps": 16, "epochs": 2, "minibatch": 4096}  # fast_ppo.THROUGHPUT


def sb3_speed(game: str, timesteps: int, batched: bool) -> float:
    """SB3's MaskablePPO at the suite's settings: timesteps per second over ``timesteps``."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from agents.training.sb3 import batched_vec_env
    from trash_env.games import get_game

    if batched:
        venv = batched_vec_env(game, SUITE["n_envs"], "standard", ["random"], 0, {})
    else:
        from agents.registry import make_agent

        env_game = get_game(game)
        opponents = [make_agent("random", game)]
        venv = make_vec_env(
            lambda: env_game.single_agent_env(preset="standard", opponents=opponents), n_envs=SUITE["n_envs"], seed=0
        )
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        **sb3_ppo_kwargs(SUITE),
        device="cpu",
    )
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    return model.num_timesteps / (time.perf_counter() - start)


def fast_speed(game: str, timesteps: int, **settings: Any) -> tuple[float, Any]:
    """``fast_ppo`` with ``settings`` over FastSettings' defaults: timesteps per second, and its timing."""
    from agents.training.fast_ppo import FastSettings, train_fast
    from agents.training.sb3 import batched_vec_env
    from trash_env.games import get_game

    chosen = FastSettings(**settings)
    venv = batched_vec_env(game, chosen.n_envs, "standard", ["random"], 0, {})
    config = get_game(game).make_config("standard")
    start = time.perf_counter()
    _, timing = train_fast(venv, timesteps, game, config, 0, chosen)
    return timing.timesteps / (time.perf_counter() - start), timing


def plain_torch_limit(game: str, seconds: float) -> dict[str, float]:
    """The learner's arithmetic at the suite's settings on random data: forward samples per second at
    8 games a step, update samples per second (one epoch's worth of minibatches of 512), and the
    timesteps per second the two allow at 10 epochs."""
    import torch

    from agents.training.fast_ppo import MASKED, _networks
    from trash_env.games import get_game

    spec = get_game(game)
    size, actions = spec.make_observer(spec.make_config("standard")).size, spec.num_actions
    net = _networks(size, actions, SUITE["hidden"])
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-4, eps=1e-5)
    step = torch.rand(SUITE["n_envs"], size)
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        with torch.no_grad():
            logits, _ = net(step)
            torch.distributions.Categorical(logits=logits).sample()
        count += SUITE["n_envs"]
    forward = count / (time.perf_counter() - start)
    batch = SUITE["minibatch"]
    obs, masks = torch.rand(batch, size), torch.rand(batch, actions) < 0.5
    masks[:, 0] = True
    chosen, old, advantage, returns = (
        torch.zeros(batch, dtype=torch.int64),
        torch.zeros(batch),
        torch.randn(batch),
        torch.randn(batch),
    )
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        logits, value = net(obs)
        log_probs = torch.log_softmax(logits.masked_fill(~masks, MASKED), dim=1)
        ratio = torch.exp(log_probs.gather(1, chosen[:, None]).squeeze(1) - old)
        loss = -torch.min(ratio * advantage, ratio.clamp(0.8, 1.2) * advantage).mean()
        loss = loss + 0.5 * ((value - returns) ** 2).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
        optimizer.step()
        count += batch
    update = count / (time.perf_counter() - start)
    return {"forward": forward, "update": update, "limit": 1.0 / (1.0 / forward + SUITE["epochs"] / update)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=50_000, help="per measurement at the suite's settings")
    parser.add_argument("--fast-timesteps", type=int, default=500_000, help="per measurement at fast_ppo's own")
    parser.add_argument("--seconds", type=float, default=3.0, help="per plain-torch measurement")
    parser.add_argument("--json", type=Path, help="also write the figures here (make bench: docs/speed/fast_ppo.json)")
    args = parser.parse_args()
    versions = one_torch_thread()
    fast_speed("trash", 20_000)  # the engines compiled and warm
    fast_speed("help_your_neighbor", 20_000)
    limit = plain_torch_limit("trash", args.seconds)
    sb3 = sb3_speed("trash", args.timesteps, batched=True)
    same, _ = fast_speed("trash", args.timesteps, **SUITE)
    defaults, default_timing = fast_speed("trash", args.timesteps)
    own, timing = fast_speed("trash", args.fast_timesteps, **THROUGHPUT_SETTINGS)
    neighbor_sb3 = sb3_speed("help_your_neighbor", args.timesteps, batched=False)
    neighbor_defaults, _ = fast_speed("help_your_neighbor", args.timesteps)
    neighbor_own, neighbor_timing = fast_speed("help_your_neighbor", args.fast_timesteps, **THROUGHPUT_SETTINGS)

    def shares(timing: Any) -> dict[str, float]:
        return {part: round(getattr(timing, part) / timing.total, 3) for part in ("env", "forward", "update")}

    figures = {
        "trash": {
            "sb3_maskable_ppo": round(sb3),
            "fast_ppo_at_suite_settings": round(same),
            "plain_torch_limit": round(limit["limit"]),
            "plain_torch_forward": round(limit["forward"]),
            "plain_torch_update": round(limit["update"]),
            "fast_ppo_defaults": round(defaults),
            "defaults_shares": shares(default_timing),
            "fast_ppo_own_settings": round(own),
            "own_settings_shares": shares(timing),
        },
        "help_your_neighbor": {
            "sb3_maskable_ppo_dummy_vec_env": round(neighbor_sb3),
            "fast_ppo_defaults": round(neighbor_defaults),
            "fast_ppo_own_settings": round(neighbor_own),
            "own_settings_shares": shares(neighbor_timing),
        },
        "suite_settings": {key: list(value) if isinstance(value, tuple) else value for key, value in SUITE.items()},
        "versions": versions,
    }
    print(versions)
    print(
        f"Trash, MaskablePPO's settings: SB3 {sb3:,.0f}/s, fast_ppo {same:,.0f}/s, plain-torch limit "
        f"{limit['limit']:,.0f}/s (fast_ppo at {same / limit['limit']:.0%} of it, {same / sb3:.1f}x SB3)"
    )
    print(
        f"Trash, fast_ppo's defaults: {defaults:,.0f}/s ({defaults / sb3:.1f}x SB3); time in {shares(default_timing)}"
    )
    print(f"Trash, fast_ppo's THROUGHPUT settings: {own:,.0f}/s; time in {shares(timing)}")
    print(
        f"Help Your Neighbor: SB3 on DummyVecEnv {neighbor_sb3:,.0f}/s, fast_ppo {neighbor_own:,.0f}/s "
        f"({neighbor_own / neighbor_sb3:.1f}x)"
    )
    write_figures(args.json, figures)


if __name__ == "__main__":
    main()
