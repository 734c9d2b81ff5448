"""Policy-Space Response Oracles on the batched engines (Lanctot et al., 2017), for the two-player
self-play tasks (issue 52).

PSRO keeps a **population** of policies and an **empirical payoff matrix** between them. Each
iteration it

1. solves the matrix game for a **meta-strategy** (the meta-solver: a Nash equilibrium of the
   zero-sum matrix, by regret matching+ with its average strategy, as OpenSpiel's ``prd``/Nash
   solvers approximate it);
2. trains a **best response** to the population mixed by the meta-strategy with the **oracle**, the
   masked PPO of :mod:`agents.training.fast_ppo` (its defaults, a fresh network each iteration, the
   opponents drawn per game in proportion to the meta-strategy);
3. adds it to the population and **estimates its row of the payoff matrix** by play:
   ``payoff_games`` games against every member (the learner's seat drawn per game), the matrix kept
   antisymmetric (the games are symmetric: a member's payoff against itself is 0).

**The policy PSRO returns** is the population mixed by the last meta-strategy. A mixture of
policies is not one policy, and the benchmark keeps one network, so the mixture is **distilled**:
games in which each game's seat plays one member drawn by the meta-strategy for the whole game,
against the same mixture, and a network learned by cross-entropy from those decisions. Sampling whole
games member by member weighs each member's decisions by how often it reaches a state, so what is
learned is the mixture's behavioural strategy (Kuhn's theorem), not a per-state average that
ignores reach.

Everything is learned from play through the task's counted vector env: the oracle's training, the
payoff games and the distillation's games all count in the budget. A checkpoint reports the last
distilled policy (the untrained start: the uniform policy, the first member); the last point, the
policy returned, after the last distillation (whose games count towards it).

Budget: ``iterations`` oracles share what the payoff games and the distillations leave.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.linear import LinearAgent
from agents.training.fast_ppo import MASKED, Checkpoints, FastSettings, _networks, as_linear_agent, train_fast


@dataclass(frozen=True)
class PSROSettings:
    """PSRO's settings; the oracle's are :class:`~agents.training.fast_ppo.FastSettings`."""

    iterations: int = 5  # best responses added to the population
    payoff_games: int = 64  # games per pair of members for the payoff matrix
    distil_decisions: int = 4_096  # the mixture's decisions its distillation learns from
    distil_epochs: int = 20
    distil_learning_rate: float = 1e-3
    meta_iterations: int = 20_000  # regret matching+ steps of the meta-solver
    oracle: FastSettings = field(default_factory=FastSettings)

    def check(self) -> PSROSettings:
        for name in ("iterations", "payoff_games", "distil_decisions", "distil_epochs", "meta_iterations"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"PSROSettings.{name} must be a positive integer, got {value!r}")
        if not self.distil_learning_rate > 0:
            raise ValueError(f"PSROSettings.distil_learning_rate must be above 0, got {self.distil_learning_rate!r}")
        self.oracle.check()
        return self


def meta_nash(payoffs: np.ndarray, iterations: int) -> np.ndarray:
    """A Nash equilibrium of the symmetric zero-sum matrix game ``payoffs`` (row player's payoff; the
    matrix antisymmetric): the average strategy of regret matching+ in self-play, which converges to one."""
    size = len(payoffs)
    regrets, total = np.zeros(size), np.zeros(size)
    strategy = np.full(size, 1.0 / size)
    for step in range(1, iterations + 1):
        values = payoffs @ strategy  # each pure strategy's payoff against the current mixture
        regrets = np.maximum(regrets + values - strategy @ values, 0.0)
        positive = regrets.sum()
        strategy = regrets / positive if positive > 0 else np.full(size, 1.0 / size)
        total += step * strategy  # (linear averaging, as CFR+ and RM+ use)
    return total / total.sum()


def weighted_pool(population: list[Any], weights: np.ndarray, slots: int = 20) -> list[Any]:
    """The members as an opponent pool in which each is drawn about in proportion to its weight (the
    engines draw uniformly from a pool: a member appears once per ``1 / slots`` of weight, at least
    once if it has any)."""
    pool = []
    for member, weight in zip(population, weights):
        if weight > 1e-3:
            pool += [member] * max(1, round(weight * slots))
    return pool


def play(venv: Any, agent: Any, games: int) -> np.ndarray:
    """Play ``games`` whole games in ``venv`` (its opponents as set; every game dealt afresh, the games
    under way when the last one ends left unfinished) with ``agent`` in the learner's seat; returns
    their rewards (the learner's)."""
    observations, masks = venv.reset(), venv.action_masks().astype(bool)
    rewards: list[float] = []
    while len(rewards) < games:
        actions = agent.act_batch(observations, masks, [None] * len(observations))
        observations, step_rewards, dones, _, _ = venv.step_arrays(actions)
        observations, masks = observations.copy(), venv.action_masks().astype(bool)
        rewards.extend(step_rewards[np.flatnonzero(dones)].tolist())
    return np.array(rewards[:games])


def train_psro(
    venv: Any,
    budget: int,
    game: str,
    config: Any,
    seed: int,
    settings: PSROSettings = PSROSettings(),
    points: tuple[int, ...] = (),
    checkpoint: Callable[[int, LinearAgent], None] | None = None,
    counted: Callable[[], int] | None = None,
    first: Any = None,
) -> LinearAgent:
    """Train on ``venv`` (a two-player self-play vector env over a batched engine with ``step_arrays``,
    ``action_masks`` and ``set_opponents``) for about ``budget`` learner timesteps (``counted``: the
    count, default the env's steps as this function takes them); returns the distilled meta-strategy
    mixture. ``first``: the population's first member (default: uniform over the legal actions)."""
    import torch

    settings = settings.check()
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    n = venv.num_envs
    observations = venv.reset()
    size, num_actions = observations.shape[1], venv.action_masks().shape[1]
    own = {"steps": 0}
    count = counted or (lambda: own["steps"])
    uniform = first or LinearAgent(
        np.zeros((size, num_actions)),
        np.zeros(num_actions),
        game,
        config=config,
        name="uniform",
        sample=True,
        seed=seed,
    )
    population: list[Any] = [uniform]
    payoffs = np.zeros((1, 1))
    weights = np.ones(1)
    current: Any = uniform

    checkpoints = Checkpoints(points, checkpoint, count)

    def report(policy: Any, returned: bool = False) -> None:
        # The last point reports the policy returned: not while the last distillation plays its games.
        if returned or count() < checkpoints.last:
            checkpoints.report(lambda: policy)

    def counting(step: Callable[..., Any]) -> Callable[..., Any]:
        def stepped(actions: np.ndarray) -> Any:
            own["steps"] += len(actions)
            result = step(actions)
            report(current)
            return result

        return stepped

    original_step = venv.step_arrays
    venv.step_arrays = counting(original_step)  # (checkpoints fall due while PSRO plays, too)
    try:
        report(current)
        per_game = 16.0  # the decisions of a game, as the payoff games measure them (a first guess)
        for iteration in range(settings.iterations):
            left, to_come = budget - count(), settings.iterations - iteration
            pairs = sum(range(len(population), settings.iterations + 1))  # the payoff pairs still to play
            overhead = to_come * settings.distil_decisions + pairs * settings.payoff_games * per_game
            share = int((left - overhead) // to_come)
            if share < n:
                break
            venv.set_opponents(weighted_pool(population, weights))
            response, _ = train_fast(
                venv, share, game, config, seed + 7919 * (iteration + 1), settings.oracle.fitted(share)
            )
            response.name = f"psro_br_{iteration + 1}"
            population.append(response)
            row, before = np.zeros(len(population)), own["steps"]
            for j, member in enumerate(population[:-1]):
                venv.set_opponents([member])
                row[j] = play(venv, response, settings.payoff_games).mean()
            per_game = (own["steps"] - before) / (settings.payoff_games * (len(population) - 1))
            grown = np.zeros((len(population), len(population)))
            grown[:-1, :-1] = payoffs
            grown[-1, :], grown[:, -1] = row, -row
            payoffs = grown
            weights = meta_nash(payoffs, settings.meta_iterations)
            last = iteration == settings.iterations - 1  # (the last distillation takes what is left)
            decisions = max(n, budget - count()) if last else settings.distil_decisions
            current = distil(venv, population, weights, game, config, settings, rng, decisions)
        if count() < budget:  # (an oracle's share fell below a rollout: the rest goes to the distillation)
            current = distil(venv, population, weights, game, config, settings, rng, budget - count())
        report(current, returned=True)
        return current
    finally:
        venv.step_arrays = original_step


def distil(
    venv: Any,
    population: list[Any],
    weights: np.ndarray,
    game: str,
    config: Any,
    settings: PSROSettings,
    rng: np.random.Generator,
    decisions: int,
) -> LinearAgent:
    """One network for the mixture of ``population`` by ``weights`` (module docstring): games with each
    seat's member drawn per game, against the same mixture; cross-entropy on about ``decisions`` of
    its decisions."""
    import torch

    venv.set_opponents(weighted_pool(population, weights))
    probabilities = weights / weights.sum()

    def seat(observations: np.ndarray, masks: np.ndarray, members: np.ndarray) -> np.ndarray:
        actions = np.zeros(len(observations), np.int64)
        for member in np.unique(members):
            rows = np.flatnonzero(members == member)
            actions[rows] = population[member].act_batch(observations[rows], masks[rows], [None] * len(rows))
        return actions

    record: list[Any] = []
    steps = -(-decisions // venv.num_envs)
    draw = lambda count: rng.choice(len(population), size=count, p=probabilities)  # noqa: E731
    observations, masks = venv.reset(), venv.action_masks().astype(bool)
    members = draw(venv.num_envs)
    for _ in range(steps):
        actions = seat(observations, masks, members)
        record.append((observations.copy(), actions, masks.copy()))
        observations, _, dones, _, _ = venv.step_arrays(actions)
        observations, masks = observations.copy(), venv.action_masks().astype(bool)
        ended = np.flatnonzero(dones)
        if len(ended):
            members[ended] = draw(len(ended))
    obs = torch.as_tensor(np.concatenate([r[0] for r in record]), dtype=torch.float32)
    actions = torch.as_tensor(np.concatenate([r[1] for r in record]))
    legal = torch.as_tensor(np.concatenate([r[2] for r in record]))
    net = _networks(obs.shape[1], legal.shape[1], settings.oracle.hidden)
    optimizer = torch.optim.Adam(net.policy.parameters(), lr=settings.distil_learning_rate)
    generator = torch.Generator().manual_seed(int(rng.integers(2**31)))
    for _ in range(settings.distil_epochs):
        order = torch.randperm(len(obs), generator=generator)
        for start in range(0, len(obs), 256):
            part = order[start : start + 256]
            logits = net.policy(obs[part]).masked_fill(~legal[part], MASKED)
            loss = torch.nn.functional.cross_entropy(logits, actions[part])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
    return as_linear_agent(net, game, config, name="psro")


def fitted(settings: PSROSettings, budget: int) -> PSROSettings:
    """``settings`` for a budget of ``budget`` timesteps: the payoff games and distillations take at
    most half of it, each oracle's settings fitted to its share."""
    iterations = settings.iterations
    distil_decisions = max(64, min(settings.distil_decisions, budget // (4 * iterations)))
    payoff_games = max(8, min(settings.payoff_games, budget // (40 * iterations * (iterations + 1))))
    return dataclasses.replace(settings, distil_decisions=distil_decisions, payoff_games=payoff_games)
