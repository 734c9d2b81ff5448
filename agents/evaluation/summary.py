"""Evaluation results for people and files: the terminal tables of a tournament's summary, its JSON,
CSV and rating plot, and :func:`final_evaluation` (a trained policy against every baseline, as the
training commands end).
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.evaluation.seatings import GameResult
from agents.evaluation.stats import Interval, summarize
from trash_env import files
from trash_env.files import write_json  # the training library and trash-evaluate import it from here


def _interval(data: dict[str, float] | Interval | None, digits: int = 3) -> str:
    if data is None:
        return "-"
    d = data if isinstance(data, dict) else asdict(data)
    return f"{d['mean']:+.{digits}f} [{d['low']:+.{digits}f}, {d['high']:+.{digits}f}]"


def print_summary(summary: dict[str, Any], title: str) -> None:
    """The agents, pairs and per-seat tables of a summary, in the terminal."""
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 120)
    agents = Table(title=title)
    for column in ("agent", "seat-games", "win rate", "mean reward [95% CI]", "rating (Elo) [95% CI]"):
        agents.add_column(column, justify="left" if column == "agent" else "right")
    for row in summary["agents"]:
        agents.add_row(
            row["agent"],
            str(row["games"]),
            f"{row['win_rate']:.3f}",
            _interval(row["mean_reward"]),
            _interval(row["rating"], 0),
        )
    console.print(agents)
    pairs = Table(title="score difference per deal, first minus second (95% CI over deals)")
    for column in ("first", "second", "deals", "difference [95% CI]", "first wins", "second wins"):
        pairs.add_column(column, justify="left" if column in ("first", "second") else "right")
    for row in summary["pairs"]:
        pairs.add_row(
            row["first"],
            row["second"],
            str(row["deals"]),
            _interval(row["score_difference"], 4),
            f"{row['first_win_rate']:.3f}",
            f"{row['second_win_rate']:.3f}",
        )
    console.print(pairs)
    seats = Table(title="per seat")
    for column in ("agent", "seat", "games", "mean reward", "win rate"):
        seats.add_column(column, justify="left" if column == "agent" else "right")
    for row in summary["per_seat"]:
        seats.add_row(
            row["agent"], str(row["seat"]), str(row["games"]), f"{row['mean_reward']:+.3f}", f"{row['win_rate']:.3f}"
        )
    console.print(seats)


FINAL_COLUMNS = ("policy vs", "score difference per deal [95% CI]", "policy's win rate", "baseline's win rate")


def final_rows(summary: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """A final evaluation's one table (the training commands' last output, and the docs' tables of
    it): per baseline, the policy's score difference per deal with its 95% interval and both win
    rates, from the summary's pairs (policy first)."""
    return [
        (
            row["second"],
            _interval(row["score_difference"], 4),
            f"{row['first_win_rate']:.3f}",
            f"{row['second_win_rate']:.3f}",
        )
        for row in summary["pairs"]
    ]


def print_final_table(summary: dict[str, Any], title: str) -> None:
    """:func:`final_rows` as one table in the terminal (its width never cut when piped)."""
    from rich.console import Console
    from rich.table import Table

    table = Table()
    for column in FINAL_COLUMNS:
        table.add_column(column, justify="left" if column == "policy vs" else "right")
    for row in final_rows(summary):
        table.add_row(*row)
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(title, soft_wrap=True, highlight=False)  # a title line of its own: the name is never cut
    console.print(table)


def final_evaluation_title(policy: str, deals: int) -> str:
    """The title of a final evaluation's tables."""
    return f"{policy} vs baselines, {deals} duplicate deals per baseline"


def final_evaluation(
    config: Any,
    policy: str,
    baselines: Sequence[str],
    deals: int,
    seed: int,
    workers: int,
    out: Path,
    show: bool = True,
) -> dict[str, Any]:
    """A trained policy (by its file or folder, as a user would load it) against every baseline on
    duplicate deals: writes ``out`` (JSON) and returns the summary; with ``show``, prints its tables
    too (the training libraries pass ``show=False`` and leave the tables to their commands)."""
    from agents.evaluation.duplicate import run_pairings

    results = run_pairings(config, [(policy, b) for b in baselines], deals, seed=seed + 1, workers=workers)
    summary = summarize(results, seed=seed)
    if show:
        print_summary(summary, final_evaluation_title(policy, deals))
    write_json(out, {"policy": policy, "deals": deals, **summary})
    return summary


def write_csv(path: Path, results: Sequence[GameResult]) -> None:
    with files.atomic_path(path) as partial, partial.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["first", "second", "deal", "rotation", "seats", "rewards", "turns", "truncated"])
        for game in results:
            writer.writerow(
                [
                    *game.pairing,
                    game.deal,
                    game.rotation,
                    " ".join(game.seats),
                    " ".join(f"{r:g}" for r in game.rewards),
                    game.turns,
                    game.truncated,
                ]
            )


def plot_ratings(path: Path, summary: dict[str, Any], settings: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(summary["agents"], key=lambda row: row["rating"]["mean"])
    names = [row["agent"] for row in rows]
    means = [row["rating"]["mean"] for row in rows]
    errors = [
        [row["rating"]["mean"] - row["rating"]["low"] for row in rows],
        [row["rating"]["high"] - row["rating"]["mean"] for row in rows],
    ]
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)))
    axes.errorbar(means, range(len(rows)), xerr=errors, fmt="o", capsize=4)
    axes.set_yticks(range(len(rows)), names)
    axes.set_xlabel("Bradley-Terry rating, Elo scale (random = 0), 95% bootstrap interval")
    mode = "duplicate" if settings["duplicate"] else "independent"
    axes.set_title(f"{settings['deals']} {mode} deals per pair, {settings['config']['num_players']} players")
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    with files.atomic_path(path) as partial:
        figure.savefig(partial, dpi=120)
    plt.close(figure)
