"""A masked PPO that steps a batched engine's arrays directly: ``fast_ppo`` (issue 50).

Stable-Baselines3's MaskablePPO stays the package's reference trainer. This one is the same
algorithm (Schulman et al. 2017, with the action mask of Huang & Ontañón 2020) written for throughput,
CleanRL's single-file PPO as its model:

- **rollouts** from a vector env over a batched engine (:class:`trash_env.batched_vec_env.BatchedVecEnv`,
  or the benchmark context's counting wrapper over one) through its ``step_arrays``: the engine's
  arrays, no per-game Python objects, no ``info`` dicts; the observations go into a preallocated
  torch buffer;
- **the policy** samples from the masked categorical (illegal logits set to a large negative number),
  with separate policy and value networks (tanh, as SB3's default);
- **the update**: generalised advantage estimation (a game cut short by the turn limit bootstraps from
  the value of its last observation, as SB3 does), the clipped objective, the value loss, an entropy
  bonus, Adam and gradient clipping, over shuffled minibatches for a few epochs;
- **opponents**: the engine's baselines by name, and on self-play tasks frozen snapshots of the learner
  (a :class:`~agents.linear.LinearAgent` each, asked in batches between the learner's steps);
- **the result**: the policy network as a :class:`~agents.linear.LinearAgent` (a NumPy MLP that plays
  the legal action of highest logit, saved weights-only as ``.npz``: what ``trash-evaluate`` and the
  benchmark's artifacts read).

The defaults (:class:`FastSettings`) are chosen for learning per second of wall time on the task that
tells settings apart, two-player ``pagat`` matches (reward only at a match's end, hundreds of decisions
long): SB3's sample reuse (rollouts of 2,048, 10 epochs over minibatches of 512, gamma 0.995) with
smaller 64x64 networks, on 64 games so that every game finishes many matches within a budget. At the
suite's 200,000 timesteps they reach MaskablePPO's score there (-0.34 per match against ``greedy``,
MaskablePPO's settings -0.36) in a fraction of its time; :data:`THROUGHPUT` (1,024 games, 2 epochs,
minibatches of 4,096) steps ten times as many timesteps a second but learned nothing there, at 200,000
timesteps (no match finished: 1,024 games of 195 decisions each) or at 2,000,000 (-1.39). On hand
tasks both reach ``greedy``. ``benchmarks/fast_ppo.py`` measures both against SB3 and the plain-torch
limit.

Needs torch (the ``train`` extra) and Numba (the ``batched`` extra).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.linear import LinearAgent


@dataclass(frozen=True)
class FastSettings:
    """The trainer's settings; the defaults are for learning per second of wall time (module docstring)."""

    n_envs: int = 64  # games in lockstep
    n_steps: int = 32  # the learner's steps per game per rollout
    epochs: int = 10  # passes over a rollout
    minibatch: int = 512  # samples per gradient step
    learning_rate: float = 3e-4
    gamma: float = 0.995  # the only reward comes at the end of a hand or match
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.0
    kl_coef: float = 0.0  # MMD's proximal term: the new policy's KL from the rollout's (exact, legal actions)
    anneal_lr: bool = False  # the learning rate falls linearly to 0 over the budget (CleanRL's, and MMD's)
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (64, 64)  # the widths of both networks' hidden layers
    snapshot_every: int = 20_000  # self-play: timesteps between frozen snapshots of the learner
    pool_size: int = 4  # self-play: the snapshots kept as opponents
    sample_snapshots: bool = False  # self-play: snapshots play draws from their policy, not its best action

    def check(self) -> FastSettings:
        """These settings, or a ValueError naming the first out of its range."""
        for name in ("n_envs", "n_steps", "epochs", "minibatch", "snapshot_every", "pool_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name, low, high in (("gamma", 0.0, 1.0), ("gae_lambda", 0.0, 1.0), ("clip", 0.0, 1.0)):
            if not low <= getattr(self, name) <= high:
                raise ValueError(f"{name} must be in [{low}, {high}], got {getattr(self, name)!r}")
        for name in ("learning_rate", "max_grad_norm"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be above 0, got {getattr(self, name)!r}")
        for name in ("anneal_lr", "sample_snapshots"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        for name in ("ent_coef", "kl_coef", "vf_coef"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be 0 or more, got {getattr(self, name)!r}")
        if not self.hidden or any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in self.hidden):
            raise ValueError(f"hidden must be one or more positive widths, got {self.hidden!r}")
        return self

    def fitted(self, budget: int) -> FastSettings:
        """These settings for a budget of ``budget`` timesteps: at least four rollouts fit in it (the
        games per rollout first, then the steps per game), the minibatch at most a rollout. The count
        passes the budget by less than one step of every game (the last rollout is cut short)."""
        n_envs = max(1, min(self.n_envs, budget // (4 * self.n_steps) or 1))
        n_steps = max(1, min(self.n_steps, budget // (4 * n_envs) or 1))
        snapshot_every = max(1, min(self.snapshot_every, budget // 4))
        return dataclasses.replace(
            self,
            n_envs=n_envs,
            n_steps=n_steps,
            minibatch=min(self.minibatch, n_envs * n_steps),
            snapshot_every=snapshot_every,
        )


def gae(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, last_values: np.ndarray, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimation over a rollout of ``T`` steps of ``N`` games: ``rewards``,
    ``values`` and ``dones`` are [T, N] (``dones[t]``: the game ended with step ``t``, the next
    observation is a new game's), ``last_values`` [N] the value of the observation after the rollout.
    Returns (advantages, returns), each [T, N]."""
    steps = len(rewards)
    advantages = np.zeros_like(values)
    running = np.zeros_like(last_values)
    for t in reversed(range(steps)):
        following = last_values if t == steps - 1 else values[t + 1]
        alive = 1.0 - dones[t]
        delta = rewards[t] + gamma * following * alive - values[t]
        running = delta + gamma * lam * alive * running
        advantages[t] = running
    return advantages, advantages + values


def _networks(observation_size: int, num_actions: int, hidden: tuple[int, ...]) -> Any:
    import torch
    from torch import nn

    def mlp(out: int, last_gain: float) -> nn.Sequential:
        layers: list[nn.Module] = []
        width = observation_size
        for size in hidden:
            linear = nn.Linear(width, size)
            nn.init.orthogonal_(linear.weight, np.sqrt(2))
            nn.init.zeros_(linear.bias)
            layers += [linear, nn.Tanh()]
            width = size
        head = nn.Linear(width, out)
        nn.init.orthogonal_(head.weight, last_gain)
        nn.init.zeros_(head.bias)
        return nn.Sequential(*layers, head)

    class PolicyValue(nn.Module):
        """Separate policy and value networks (SB3's default, and its initialisation)."""

        def __init__(self) -> None:
            super().__init__()
            self.policy = mlp(num_actions, 0.01)
            self.value = mlp(1, 1.0)

        def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.policy(observations), self.value(observations).squeeze(-1)

    return PolicyValue()


# For budgets far larger than a task needs: the most timesteps a second (1,024 games, 2 epochs over
# minibatches of 4,096), at the cost of learning less from each (benchmarks/fast_ppo.py; module docstring).
THROUGHPUT = FastSettings(n_envs=1024, n_steps=16, epochs=2, minibatch=4096)


def overrides_of(preset: FastSettings) -> dict[str, Any]:
    """``preset``'s settings where they differ from the defaults (what a built-in over this trainer
    passes, e.g. ``fast_ppo_throughput``, ``mmd``)."""
    default = FastSettings()
    return {
        f.name: getattr(preset, f.name)
        for f in dataclasses.fields(preset)
        if getattr(preset, f.name) != getattr(default, f.name)
    }


def throughput_overrides() -> dict[str, Any]:
    """:data:`THROUGHPUT`'s overrides (the ``fast_ppo_throughput`` built-in): many games in lockstep,
    large minibatches, few epochs."""
    return overrides_of(THROUGHPUT)


MASKED = -1e8  # the logit of an illegal action: no probability, and no NaN in the softmax


def as_linear_agent(
    net: Any, game: str, config: Any, name: str = "fast_ppo", sample: bool = False, seed: int = 0
) -> LinearAgent:
    """The policy network as a :class:`~agents.linear.LinearAgent` (the same logits, in NumPy;
    ``sample``: it plays draws from them with a generator seeded by ``seed``)."""
    layers = [module for module in net.policy if hasattr(module, "weight")]
    weights = [layer.weight.detach().cpu().numpy().T.copy() for layer in layers]
    biases = [layer.bias.detach().cpu().numpy().copy() for layer in layers]
    return LinearAgent(weights, biases, game, activation="tanh", config=config, name=name, sample=sample, seed=seed)


class Checkpoints:
    """The protocol's checkpoints for a trainer: each of ``points`` is reported once, as soon as
    ``count()`` reaches it, with the policy ``policy()`` makes then (asked only when a point is due),
    at ``min(count, the last point)`` timesteps."""

    def __init__(
        self, points: tuple[int, ...], checkpoint: Callable[[int, Any], None] | None, count: Callable[[], int]
    ) -> None:
        self.pending, self.last, self.checkpoint, self.count = sorted(points), max(points, default=0), checkpoint, count

    def report(self, policy: Callable[[], Any]) -> None:
        while self.pending and self.count() >= self.pending[0]:
            self.pending.pop(0)
            if self.checkpoint is not None:
                self.checkpoint(min(self.count(), self.last), policy())


@dataclass
class Timing:
    """Where a run's time went, in seconds: stepping the env (engine and opponents), the rollout's
    forward passes, and the updates."""

    env: float = 0.0
    forward: float = 0.0
    update: float = 0.0
    timesteps: int = 0  # the learner's, as this trainer took them

    @property
    def total(self) -> float:
        return self.env + self.forward + self.update


def train_fast(
    venv: Any,
    budget: int,
    game: str,
    config: Any,
    seed: int,
    settings: FastSettings = FastSettings(),
    points: tuple[int, ...] = (),
    checkpoint: Callable[[int, LinearAgent], None] | None = None,
    self_play: bool = False,
    counted: Callable[[], int] | None = None,
    beside: tuple[Any, ...] = (),
    should_stop: Callable[[], bool] | None = None,
    policy_of: Callable[..., Any] | None = None,
) -> tuple[LinearAgent, Timing]:
    """Train on ``venv`` (a vector env over a batched engine with ``step_arrays`` and
    ``action_masks``, ``settings.n_envs`` games) for ``budget`` learner timesteps; returns the policy
    and where the time went. ``points``: the timesteps at which ``checkpoint(timesteps, policy)`` is
    called, as soon as that many have been taken (``counted``: the count, default this trainer's own).
    ``self_play``: the opponents are frozen snapshots of the learner, every ``snapshot_every``
    timesteps, the last ``pool_size`` kept (the first: the untrained policy), ``beside`` the opponents
    kept with them (baseline names). ``should_stop``: asked after each rollout (Ctrl-C: stop there).
    ``policy_of(net, name, sample=False, seed=0)``: a network as a policy (default: a
    :class:`~agents.linear.LinearAgent` of ``game``; another game's harness passes its own)."""
    import torch

    settings = settings.check()
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    n, steps = venv.num_envs, settings.n_steps
    observations = venv.reset()
    masks = venv.action_masks()
    size, num_actions = observations.shape[1], masks.shape[1]
    net = _networks(size, num_actions, settings.hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate, eps=1e-5)
    buffer_obs = torch.zeros((steps, n, size))
    buffer_masks = torch.zeros((steps, n, num_actions), dtype=torch.bool)
    buffer_actions = torch.zeros((steps, n), dtype=torch.int64)
    buffer_logp = torch.zeros((steps, n))
    buffer_all_logp = torch.zeros((steps, n, num_actions) if settings.kl_coef else (0,))  # MMD's proximal term
    values = np.zeros((steps, n), np.float32)
    rewards = np.zeros((steps, n), np.float32)
    dones = np.zeros((steps, n), np.float32)
    timing = Timing()
    taken = 0
    count = counted or (lambda: taken)
    pool: list[LinearAgent] = []
    last_snapshot = 0
    make = policy_of or (lambda net, name, **how: as_linear_agent(net, game, config, name, **how))

    checkpoints = Checkpoints(points, checkpoint, count)

    def report() -> None:
        checkpoints.report(lambda: make(net, "fast_ppo"))

    def snapshot() -> None:
        pool.append(make(net, f"snapshot_{taken}", sample=settings.sample_snapshots, seed=seed + taken))
        del pool[: -settings.pool_size]
        venv.set_opponents([*beside, *pool])

    if self_play:
        snapshot()
        observations = venv.reset()
        masks = venv.action_masks()
    report()
    current = torch.as_tensor(observations)
    current_masks = torch.as_tensor(masks, dtype=torch.bool)
    while taken < budget:
        length = min(steps, -(-(budget - taken) // n))  # the last rollout stops at the budget's step
        for t in range(length):
            mark = time.perf_counter()
            with torch.no_grad():
                logits, value = net(current)
                logits = logits.masked_fill(~current_masks, MASKED)
                noise = -torch.log(-torch.log(torch.rand(logits.shape, generator=generator).clamp_min(1e-20)))
                actions = (logits + noise).argmax(dim=1)  # a draw from the masked categorical (Gumbel-max)
                all_logp = torch.log_softmax(logits, dim=1)
                logp = all_logp.gather(1, actions[:, None]).squeeze(1)
            buffer_obs[t] = current
            buffer_masks[t] = current_masks
            buffer_actions[t], buffer_logp[t] = actions, logp
            if settings.kl_coef:
                buffer_all_logp[t] = all_logp
            values[t] = value.numpy()
            timing.forward += time.perf_counter() - mark
            mark = time.perf_counter()
            next_obs, step_rewards, step_dones, truncs, final_obs = venv.step_arrays(actions.numpy())
            rewards[t] = step_rewards
            dones[t] = step_dones
            current = torch.from_numpy(next_obs)  # the engine's array: copied into the buffer before the next step
            current_masks = torch.as_tensor(venv.action_masks(), dtype=torch.bool)
            timing.env += time.perf_counter() - mark
            cut = np.flatnonzero(step_dones & truncs)
            if len(cut):  # a game cut short by the turn limit: bootstrap from its last observation
                mark = time.perf_counter()
                with torch.no_grad():
                    rewards[t, cut] += settings.gamma * net(torch.as_tensor(final_obs[cut]))[1].numpy()
                timing.forward += time.perf_counter() - mark
            taken += n
        mark = time.perf_counter()
        with torch.no_grad():
            last_values = net(current)[1].numpy()
        advantages, returns = gae(
            rewards[:length], values[:length], dones[:length], last_values, settings.gamma, settings.gae_lambda
        )
        if settings.anneal_lr:  # as CleanRL: this update's rate is the share of the budget still to come
            optimizer.param_groups[0]["lr"] = settings.learning_rate * max(0.0, 1.0 - (taken - n * length) / budget)
        _update(
            net,
            optimizer,
            settings,
            generator,
            buffer_obs[:length],
            buffer_masks[:length],
            buffer_actions[:length],
            buffer_logp[:length],
            torch.as_tensor(advantages),
            torch.as_tensor(returns),
            buffer_all_logp[:length] if settings.kl_coef else None,
        )
        timing.update += time.perf_counter() - mark
        timing.timesteps = taken
        report()
        if should_stop is not None and should_stop():
            break
        if self_play and taken - last_snapshot >= settings.snapshot_every and taken < budget:
            last_snapshot = taken
            snapshot()
    return make(net, "fast_ppo"), timing


def _update(
    net: Any,
    optimizer: Any,
    settings: FastSettings,
    generator: Any,
    obs: Any,
    masks: Any,
    actions: Any,
    old_logp: Any,
    advantages: Any,
    returns: Any,
    old_all_logp: Any = None,
) -> None:
    """``settings.epochs`` passes of clipped PPO over the rollout, in shuffled minibatches; with
    ``settings.kl_coef``, MMD's proximal term over ``old_all_logp`` (the rollout policy's log-probabilities
    of every action, [T, N, A])."""
    import torch

    total = obs.shape[0] * obs.shape[1]
    obs, masks = obs.reshape(total, -1), masks.reshape(total, -1)
    actions, old_logp = actions.reshape(total), old_logp.reshape(total)
    advantages, returns = advantages.reshape(total).float(), returns.reshape(total).float()
    old_all = old_all_logp.reshape(total, -1) if old_all_logp is not None else torch.zeros((total, 0))
    size = min(settings.minibatch, total)
    illegal = ~masks
    for _ in range(settings.epochs):
        order = torch.randperm(total, generator=generator)  # one gather per epoch, then contiguous slices
        shuffled = tuple(array[order] for array in (obs, illegal, actions, old_logp, advantages, returns, old_all))
        for start in range(0, total - size + 1, size):
            part = slice(start, start + size)
            obs_b, illegal_b, actions_b, old_b, advantage, returns_b, old_all_b = (array[part] for array in shuffled)
            logits, value = net(obs_b)
            log_probs = torch.log_softmax(logits.masked_fill(illegal_b, MASKED), dim=1)
            logp = log_probs.gather(1, actions_b[:, None]).squeeze(1)
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            ratio = torch.exp(logp - old_b)
            policy_loss = -torch.min(
                ratio * advantage, ratio.clamp(1 - settings.clip, 1 + settings.clip) * advantage
            ).mean()
            value_loss = ((value - returns_b) ** 2).mean()
            loss = policy_loss + settings.vf_coef * value_loss
            if settings.ent_coef:
                entropy = -(log_probs.exp() * log_probs.masked_fill(illegal_b, 0.0)).sum(dim=1).mean()
                loss = loss - settings.ent_coef * entropy
            if settings.kl_coef:  # KL(new || rollout's), exactly, over the legal actions
                gap = (log_probs - old_all_b).masked_fill(illegal_b, 0.0)
                loss = loss + settings.kl_coef * (log_probs.exp() * gap).sum(dim=1).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), settings.max_grad_norm)
            optimizer.step()


def run_fast(setup: Any, stop: Any, run_dir: Any) -> Any:
    """``trash-train --trainer fast``: train with :class:`FastSettings` (its defaults, the run's budget,
    seed, rules, opponents and self-play pool), save the policy as ``policy.npz`` in the run folder, and
    evaluate it against the baselines as every training run does. Ctrl-C or SIGTERM stops it after the
    rollout under way; the policy so far is saved and evaluated only if asked."""
    from agents.training.runs import TrainResult, evaluate_at_end
    from agents.training.sb3.envs import batched_vec_env
    from trash_env.files import write_json

    args, config = setup.args, setup.config
    settings = dataclasses.replace(FastSettings(), snapshot_every=args.snapshot_every, pool_size=args.pool_size).fitted(
        args.total_timesteps
    )
    rules = config.to_dict()
    venv = batched_vec_env(args.game, settings.n_envs, args.preset, list(args.opponents), args.seed, rules)
    logger = logging.getLogger("agents.training.sb3")
    logger.info(
        f"fast_ppo: {settings.n_envs} games x {settings.n_steps} steps a rollout, {settings.epochs} epochs, "
        f"minibatches of {settings.minibatch}, networks {list(settings.hidden)}"
    )
    start = time.perf_counter()
    agent, timing = train_fast(
        venv,
        args.total_timesteps,
        args.game,
        config,
        args.seed,
        settings,
        self_play=args.self_play,
        beside=() if args.self_play_only else tuple(args.opponents),
        should_stop=lambda: stop.requested,
    )
    seconds = time.perf_counter() - start
    policy = agent.save(run_dir / "policy.npz")
    write_json(
        run_dir / "fast_ppo.json",
        {
            "settings": dataclasses.asdict(settings),
            "seconds": round(seconds, 2),
            "timesteps": timing.timesteps,
            "env_seconds": round(timing.env, 2),
            "forward_seconds": round(timing.forward, 2),
            "update_seconds": round(timing.update, 2),
        },
    )
    logger.info(
        f"trained {timing.timesteps:,} timesteps in {seconds:.1f} s ({timing.timesteps / max(seconds, 1e-9):,.0f}/s:"
        f" env {timing.env:.1f} s, forward {timing.forward:.1f} s, update {timing.update:.1f} s);"
        f" policy saved to {policy}"
    )
    summary = evaluate_at_end(
        config,
        policy,
        args,
        stop,
        run_dir,
        skipped="final evaluation skipped (--final-eval-on-interrupt runs it)",
        exiting=f"The policy is saved to {policy}.",
    )
    return TrainResult(
        run_dir=run_dir,
        policy=policy,
        agent=agent,
        timesteps=timing.timesteps,
        summary=summary,
        interrupted=stop.requested,
        exit_status=stop.exit_code,
    )
