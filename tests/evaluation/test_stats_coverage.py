"""The 95% intervals of :mod:`agents.evaluation.stats` cover the true value about 95% of the time.

A simulated round robin of agents of known strength, built like a real one: every pairing replays
the same deals, and on a deal each agent draws from the same generator whichever pairing it plays,
so its luck on that deal is shared across its pairings. Per deal:

- with probability ``GENEROUS`` every game of the deal gives +1 to both players (in Trash, both
  complete in the final round, R8), with probability ``DRAWN`` every game is a draw (0, R7);
- otherwise each agent gets a luck term for the deal, the same in all its pairings, and A beats B
  with probability sigmoid(s_A + luck_A - s_B - luck_B) (+1 / -1, R10).

The true mean reward of each agent is computed exactly; the true ratings are the fit on a very
large sample. Over many small tournaments the intervals must cover them 95% of the time (give or
take the simulation's own error). Treating each (pairing, deal) as an independent unit, as the
evaluation once did, covers far less often: that case is checked too, so the test can fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.evaluation.duplicate import round_robin
from agents.evaluation.seatings import GameResult
from agents.evaluation.stats import Interval, agent_summaries, deal_scores, fit_ratings

STRENGTH = {"random": -1.0, "mid": 0.0, "strong": 0.3}
GENEROUS, DRAWN, LUCK = 0.35, 0.15, 2.0


def win_probability(a: str, b: str, rng: np.random.Generator | None = None, samples: int = 400_000) -> float:
    """P(a beats b) in a decided deal, the luck terms integrated out (numerically)."""
    rng = rng or np.random.default_rng(0)
    luck = rng.normal(0, LUCK, size=(samples, 2))
    return float(np.mean(1 / (1 + np.exp(-(STRENGTH[a] + luck[:, 0] - STRENGTH[b] - luck[:, 1])))))


def simulate(deals: int, rng: np.random.Generator) -> list[GameResult]:
    agents = list(STRENGTH)
    results = []
    for deal in range(deals):
        kind = rng.random()
        luck = dict(zip(agents, rng.normal(0, LUCK, size=len(agents))))
        for pair in round_robin(agents):
            for rotation in range(2):
                seats = pair if rotation == 0 else pair[::-1]
                if kind < GENEROUS:
                    rewards = (1.0, 1.0)
                elif kind < GENEROUS + DRAWN:
                    rewards = (0.0, 0.0)
                else:
                    edge = STRENGTH[seats[0]] + luck[seats[0]] - STRENGTH[seats[1]] - luck[seats[1]]
                    first = rng.random() < 1 / (1 + math.exp(-edge))
                    rewards = (1.0, -1.0) if first else (-1.0, 1.0)
                results.append(GameResult(pair, deal, rotation, tuple(seats), rewards, 10, False))
    return results


def true_mean_rewards() -> dict[str, float]:
    decided = 1 - GENEROUS - DRAWN
    out = {}
    for agent in STRENGTH:
        others = [other for other in STRENGTH if other != agent]
        edge = np.mean([2 * win_probability(agent, other) - 1 for other in others])
        out[agent] = GENEROUS + decided * float(edge)
    return out


def covered(interval: Interval, value: float) -> bool:
    return interval.low <= value <= interval.high


@pytest.mark.slow
def test_per_agent_mean_reward_intervals_cover_the_truth() -> None:
    """Over 400 tournaments of 150 deals, each agent's 95% interval for its mean reward holds the true
    value 95% of the time (within 2.5 points); intervals over (pairing, deal) units cover far less."""
    truth = true_mean_rewards()
    rng = np.random.default_rng(2026)
    hits, naive_hits, total = 0, 0, 0
    for _ in range(400):
        results = simulate(150, rng)
        summaries = {row.agent: row for row in agent_summaries(results)}
        per_unit = deal_scores(results)
        for agent, value in truth.items():
            hits += covered(summaries[agent].mean_reward, value)
            naive = Interval.of([scores[agent] for scores in per_unit.values() if agent in scores])
            naive_hits += covered(naive, value)
            total += 1
    assert abs(hits / total - 0.95) < 0.025, hits / total
    assert naive_hits / total < 0.90, naive_hits / total  # (pairing, deal) units: too narrow


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["mid", "strong"])
def test_rating_intervals_cover_the_truth(agent: str) -> None:
    """The bootstrap over whole deals gives 95% rating intervals that hold the rating of a very large
    tournament about 95% of the time (150 tournaments of 150 deals, 100 resamples each)."""
    truth = fit_ratings(simulate(20_000, np.random.default_rng(1)), bootstrap=0)[agent].mean
    rng = np.random.default_rng(7)
    hits = sum(covered(fit_ratings(simulate(150, rng), bootstrap=100, seed=k)[agent], truth) for k in range(150))
    assert 0.88 <= hits / 150 <= 0.99, hits / 150
