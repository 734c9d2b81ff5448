"""Summaries of evaluation games: scores with 95% intervals over deals, and ratings.

The unit of every interval is the **deal** (all rotations of one deck), not the
game: the games of one deal share its luck, so treating them as independent
would make intervals too narrow. In a tournament every pairing replays the
same deals, and an agent draws from the same generator on a deal whichever
pairing it plays, so the unit is the deal across all pairings too:

- for a pair (A, B) the score difference of a deal is A's mean reward minus B's
  over that deal's games; its mean over deals gets a Student-t 95% interval;
- an agent's mean reward gets a Student-t interval over deals, each deal's value
  being the agent's mean reward over all its games of that deal, in every
  pairing (treating each (pairing, deal) as independent made the interval of
  ``random`` about 30% too narrow);
- ratings are a Bradley-Terry fit (``choix``) of who beat whom at each table, on
  the Elo scale (400 points = 10:1 odds), anchored at ``random`` = 0 when
  present (else at the mean), with 95% intervals from a bootstrap that
  resamples whole deals, every pairing's games of a deal together.

``tests/evaluation/test_stats_coverage.py`` checks by simulation that these intervals
cover the true value about 95% of the time.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from agents.evaluation.seatings import GameResult

ELO = 400 / math.log(10)


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% confidence interval over ``n`` independent units."""

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Interval:
        """The mean of ``values`` with its 95% Student-t interval: the one interval of the package,
        over deals (evaluation) and over seeds (the benchmark's tasks, :mod:`agents.bench.statistics`).

        Fewer than two values say nothing about the spread, so the interval is unbounded, ``-inf`` to
        ``inf`` (``null`` in JSON, :func:`trash_env.files.write_json`); no values have a NaN mean.
        Equal values have an interval of width 0."""
        from scipy.stats import t

        data = np.asarray(values, dtype=float)
        n = len(data)
        mean = float(data.mean()) if n else math.nan
        if n < 2:
            return cls(mean, -math.inf, math.inf, n)
        half = float(t.ppf(0.975, n - 1) * data.std(ddof=1) / math.sqrt(n))
        return cls(mean, mean - half, mean + half, n)

    def __str__(self) -> str:
        return f"{self.mean:+.4f} [{self.low:+.4f}, {self.high:+.4f}]"


def deal_scores(results: Sequence[GameResult]) -> dict[tuple[tuple[str, str], int], dict[str, float]]:
    """Per (pairing, deal): each agent's mean reward over its seats in that deal's games."""
    sums: dict[tuple[tuple[str, str], int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for game in results:
        for spec, reward in zip(game.seats, game.rewards):
            sums[(game.pairing, game.deal)][spec].append(reward)
    return {unit: {spec: float(np.mean(r)) for spec, r in per.items()} for unit, per in sums.items()}


def agent_deal_scores(results: Sequence[GameResult]) -> dict[int, dict[str, float]]:
    """Per deal, across every pairing: each agent's mean reward over all its seats in that deal's games."""
    sums: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for game in results:
        for spec, reward in zip(game.seats, game.rewards):
            sums[game.deal][spec].append(reward)
    return {deal: {spec: float(np.mean(r)) for spec, r in per.items()} for deal, per in sums.items()}


@dataclass(frozen=True)
class PairSummary:
    first: str
    second: str
    deals: int
    games: int
    score_difference: Interval  # first's mean reward minus second's, per deal
    first_win_rate: float
    second_win_rate: float


def pair_summaries(results: Sequence[GameResult]) -> list[PairSummary]:
    scores = deal_scores(results)
    out = []
    for pair in sorted({game.pairing for game in results}, key=lambda p: _first_seen(results, p)):
        a, b = pair
        diffs = [s[a] - s[b] for (p, _), s in scores.items() if p == pair]
        games = [g for g in results if g.pairing == pair]
        out.append(
            PairSummary(a, b, len(diffs), len(games), Interval.of(diffs), _win_rate(games, a), _win_rate(games, b))
        )
    return out


@dataclass(frozen=True)
class AgentSummary:
    agent: str
    games: int  # seat-games: one per seat the agent held in a game
    win_rate: float
    mean_reward: Interval  # over deals, each deal's games in every pairing together
    rating: Interval | None = None


def agent_summaries(results: Sequence[GameResult], ratings: dict[str, Interval] | None = None) -> list[AgentSummary]:
    scores = agent_deal_scores(results)
    out = []
    for spec in _agents_in_order(results):
        rewards = [r for g in results for s, r in zip(g.seats, g.rewards) if s == spec]
        units = [per[spec] for per in scores.values() if spec in per]
        out.append(
            AgentSummary(
                spec,
                len(rewards),
                _win_rate(results, spec),
                Interval.of(units),
                ratings.get(spec) if ratings else None,
            )
        )
    return out


def seat_breakdown(results: Sequence[GameResult]) -> list[dict[str, object]]:
    """Per agent and seat: games, mean reward and win rate."""
    table: dict[tuple[str, int], list[float]] = defaultdict(list)
    for game in results:
        for seat, (spec, reward) in enumerate(zip(game.seats, game.rewards)):
            table[(spec, seat)].append(reward)
    order = {spec: i for i, spec in enumerate(_agents_in_order(results))}
    return [
        {
            "agent": spec,
            "seat": seat,
            "games": len(rewards),
            "mean_reward": float(np.mean(rewards)),
            "win_rate": float(np.mean([r > 0 for r in rewards])),
        }
        for (spec, seat), rewards in sorted(table.items(), key=lambda item: (order[item[0][0]], item[0][1]))
    ]


def fit_ratings(results: Sequence[GameResult], bootstrap: int = 200, seed: int = 0) -> dict[str, Interval]:
    """Bradley-Terry ratings (Elo scale) with 95% intervals from a bootstrap over deals (each deal's
    games of every pairing resampled together)."""
    import choix

    if bootstrap < 0:
        raise ValueError(f"bootstrap must be 0 or more, got {bootstrap}")
    specs = _agents_in_order(results)
    index = {spec: i for i, spec in enumerate(specs)}
    units: dict[int, np.ndarray] = {}
    for game in results:
        wins = units.setdefault(game.deal, np.zeros((len(specs), len(specs))))
        for (a, ra), (b, rb) in _seat_pairs(game):
            if a != b and ra != rb:
                winner, loser = (a, b) if ra > rb else (b, a)
                wins[index[winner], index[loser]] += 1
    matrices = list(units.values())

    def fit(total: np.ndarray) -> np.ndarray:
        theta = choix.ilsr_pairwise_dense(total, alpha=0.01) * ELO
        anchor = theta[index["random"]] if "random" in index else theta.mean()
        return theta - anchor

    point = fit(np.sum(matrices, axis=0))
    rng = np.random.default_rng(seed)
    stacked = np.stack(matrices)
    samples = np.array(
        [fit(stacked[rng.integers(len(matrices), size=len(matrices))].sum(axis=0)) for _ in range(bootstrap)]
    )
    low, high = np.percentile(samples, [2.5, 97.5], axis=0) if bootstrap else (point, point)
    return {spec: Interval(float(point[i]), float(low[i]), float(high[i]), len(matrices)) for spec, i in index.items()}


def summarize(results: Sequence[GameResult], bootstrap: int = 200, seed: int = 0) -> dict[str, object]:
    """Everything the evaluation reports, as JSON-ready data."""
    ratings = fit_ratings(results, bootstrap, seed)
    return {
        "agents": [asdict(s) for s in agent_summaries(results, ratings)],
        "pairs": [asdict(s) for s in pair_summaries(results)],
        "per_seat": seat_breakdown(results),
    }


def _seat_pairs(game: GameResult):
    seats = list(zip(game.seats, game.rewards))
    return [(seats[i], seats[j]) for i in range(len(seats)) for j in range(i + 1, len(seats))]


def _win_rate(games: Sequence[GameResult], spec: str) -> float:
    outcomes = [r > 0 for g in games for s, r in zip(g.seats, g.rewards) if s == spec]
    return float(np.mean(outcomes)) if outcomes else math.nan


def _agents_in_order(results: Sequence[GameResult]) -> list[str]:
    seen: dict[str, None] = {}
    for game in results:
        for spec in game.pairing:
            seen.setdefault(spec)
    return list(seen)


def _first_seen(results: Sequence[GameResult], pair: tuple[str, str]) -> int:
    return next(i for i, g in enumerate(results) if g.pairing == pair)
