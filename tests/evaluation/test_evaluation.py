"""Tests of evaluation: tournaments (:mod:`agents.evaluation.duplicate`), their statistics
(:mod:`agents.evaluation.stats`) and the command line (:mod:`agents.commands.evaluate`).

Rules are cited by their section of the rule book (``RULES.md``) (R1..R15): rewards are
those of R10, so a 2-player hand gives +1/-1 or 0/0 on a draw. Every run is
seeded; deal counts are small where the effect measured is large.
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents.evaluation.duplicate as evaluation
from agents.commands.evaluate import main
from agents.evaluation.duplicate import play_deals, round_robin, run_tournament
from agents.evaluation.seatings import GameResult, games_per_deal
from agents.evaluation.stats import Interval, agent_summaries, fit_ratings, pair_summaries, seat_breakdown, summarize
from trash_env.neighbor.rules import NeighborConfig
from trash_env.trash.config import TrashConfig, make_config

ROOT = Path(__file__).resolve().parents[2]
T_975_4 = 2.7764451051977987  # Student t, 97.5% quantile, 4 degrees of freedom


def width(interval: Interval) -> float:
    return interval.high - interval.low


def difference(results: list[GameResult]) -> Interval:
    """The score difference (first minus second) of the only pair in ``results``."""
    (pair,) = pair_summaries(results)
    return pair.score_difference


# --------------------------------------------------------------------------
# Tournaments


def test_greedy_beats_random() -> None:
    """R10 in 2-player standard hands, 200 duplicate deals: greedy's mean reward
    minus random's, per deal, has a 95% interval entirely above 0."""
    results = run_tournament(make_config("standard"), ["greedy", "random"], deals=200, seed=1)
    assert len(results) == 400  # two rotations per deal
    interval = difference(results)
    assert interval.n == 200
    assert interval.low > 0
    assert interval.mean > 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_duplicate_deals_give_narrower_intervals_than_independent_deals(seed: int) -> None:
    """Duplicate deals cancel the luck of the deal: greedy and counter, nearly equal
    players, get a score-difference interval at most three quarters as wide on 400
    duplicate deals as on 400 independent deals (the same number of games), for
    every seed tried. (Measured: about 0.55 of the width.)"""
    cfg = make_config("standard")
    duplicate = difference(run_tournament(cfg, ["greedy", "counter"], deals=400, seed=seed))
    independent = difference(run_tournament(cfg, ["greedy", "counter"], deals=400, seed=seed, duplicate=False))
    assert duplicate.n == independent.n == 400
    assert width(duplicate) < 0.75 * width(independent)


@pytest.mark.parametrize(
    ("cfg", "specs", "deals"),
    [
        (make_config("standard"), ["greedy", "random", "search:samples=2"], 24),
        (make_config("jokers", num_players=3), ["counter", "random"], 30),
        (make_config("pagat", num_players=3, match=True, layout_size=3), ["greedy", "random"], 16),
    ],
    ids=["2p-three-agents", "3p-hands", "3p-matches"],
)
def test_one_worker_and_two_give_the_same_games(cfg: TrashConfig, specs: list[str], deals: int) -> None:
    """Every random number comes from the seed, the deal and the seats, so a tournament on one
    process and on two gives the same list of games, field by field; another seed gives other
    games (so the comparison can fail). A 3-player deal is played 6 times (both alternations of
    the pair, every rotation)."""
    one = run_tournament(cfg, specs, deals, seed=3, workers=1)
    two = run_tournament(cfg, specs, deals, seed=3, workers=2)
    assert len(one) == deals * sum(games_per_deal(pair, cfg.num_players) for pair in round_robin(specs))
    assert len(one) == deals * (1 if cfg.num_players == 2 else 2) * cfg.num_players * len(round_robin(specs))
    assert one == two
    assert run_tournament(cfg, specs, deals, seed=4, workers=1) != one


def record_play_game(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """Replace ``play_game`` in the evaluation module by one that records each
    game's deck, the state of its game generator and the agents seated, and
    checks the game was dealt from that deck (R3)."""
    calls: list[dict[str, object]] = []
    real = evaluation.play_game

    def recording(config, agents, rng, agent_rngs, deck=None, observer=None):
        calls.append({"deck": list(deck), "rng": rng.bit_generator.state, "agents": [a.name for a in agents]})
        state = real(config, agents, rng, agent_rngs, deck, observer)
        assert config.match or state.deck == deck
        return state

    monkeypatch.setattr(evaluation, "play_game", recording)
    return calls


@pytest.mark.parametrize("num_players", [2, 3])
def test_duplicate_deals_share_the_deck_across_rotations(monkeypatch: pytest.MonkeyPatch, num_players: int) -> None:
    """R3: in duplicate mode every game of a deal is dealt from the same deck, with the same later
    random events (R7 reshuffles), while the lineup A, B, A, ... turns one seat per rotation (and
    with 3 seats B, A, B does too, after it); different deals have different decks."""
    calls = record_play_game(monkeypatch)
    cfg = make_config("standard", num_players=num_players)
    results = play_deals(cfg, ("greedy", "random"), range(4), seed=5, duplicate=True)
    n = per_deal = num_players * (1 if num_players == 2 else 2)
    assert len(calls) == len(results) == 4 * per_deal
    bases = [["greedy", "random"] * 2, ["random", "greedy"] * 2]
    for call, game in zip(calls, results):
        base = bases[game.rotation // num_players][:num_players]
        rotation = game.rotation % num_players
        assert call["agents"] == list(game.seats) == base[rotation:] + base[:rotation]
    for deal in range(4):
        games = calls[deal * n : (deal + 1) * n]
        assert all(game["deck"] == games[0]["deck"] for game in games)
        assert all(game["rng"] == games[0]["rng"] for game in games)
    decks = [tuple(calls[deal * n]["deck"]) for deal in range(4)]
    assert len(set(decks)) == 4


def test_independent_deals_use_a_new_deck_for_every_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """Independent mode plays the same games as duplicate mode (every seating of every deal) but
    deals each from its own deck: 4 deals x 6 seatings (3 players), 24 decks."""
    calls = record_play_game(monkeypatch)
    results = play_deals(make_config("standard", num_players=3), ("greedy", "random"), range(4), 5, duplicate=False)
    assert [(g.deal, g.rotation) for g in results] == [(d, r) for d in range(4) for r in range(6)]
    assert len({tuple(call["deck"]) for call in calls}) == 24


# --------------------------------------------------------------------------
# Statistics


def test_interval_is_the_student_t_interval() -> None:
    """A 95% interval is mean +- t(0.975, n-1) * s / sqrt(n): for 1..5, mean 3,
    s = sqrt(2.5), half-width 2.7764 * sqrt(2.5) / sqrt(5)."""
    interval = Interval.of([1, 2, 3, 4, 5])
    half = T_975_4 * math.sqrt(2.5) / math.sqrt(5)
    assert interval.n == 5
    assert interval.mean == pytest.approx(3.0)
    assert interval.low == pytest.approx(3.0 - half, rel=1e-9)
    assert interval.high == pytest.approx(3.0 + half, rel=1e-9)


def test_interval_edge_cases_are_the_same_over_deals_and_over_seeds() -> None:
    """A constant list has a zero-width interval at its value; one value has no interval (infinite
    bounds), and no values a NaN mean too. The benchmark's per-task interval over seeds
    (``agents.bench.statistics.per_task``) is this same interval, edge cases included."""
    from agents.bench.statistics import per_task

    constant = Interval.of([0.5] * 12)
    assert (constant.mean, constant.low, constant.high, constant.n) == (0.5, 0.5, 0.5, 12)
    single = Interval.of([1.0])
    assert (single.mean, single.low, single.high, single.n) == (1.0, -math.inf, math.inf, 1)
    empty = Interval.of([])
    assert math.isnan(empty.mean) and (empty.low, empty.high, empty.n) == (-math.inf, math.inf, 0)
    samples = {"five": [1.0, 2.0, 3.0, 4.0, 5.0], "constant": [0.5] * 12, "single": [1.0]}
    for task, values in per_task({task: np.array(values) for task, values in samples.items()}).items():
        interval = Interval.of(samples[task])
        assert values == (interval.mean, interval.low, interval.high, interval.n), task
    mean, low, high, n = per_task({"none": np.array([])})["none"]
    assert math.isnan(mean) and (low, high, n) == (-math.inf, math.inf, 0)


@pytest.fixture(scope="module")
def three_player_results() -> list[GameResult]:
    """Greedy against random at 3-player jokers tables (R11), 40 duplicate deals."""
    return run_tournament(make_config("jokers", num_players=3), ["greedy", "random"], deals=40, seed=8)


def test_pair_difference_is_the_mean_of_per_deal_differences(three_player_results: list[GameResult]) -> None:
    """R10: the score difference of a pair is, per deal, the first agent's mean
    reward over all its seats in that deal's games minus the second's, averaged
    over deals; computed here by hand from the games (at a 3-player table the lineups A, B, A and
    B, A, B each give one agent two seats, and both are played in every rotation)."""
    results = three_player_results
    diffs = []
    for deal in range(40):
        games = [g for g in results if g.deal == deal]
        assert len(games) == 6
        rewards = {
            spec: [r for g in games for s, r in zip(g.seats, g.rewards) if s == spec] for spec in ("greedy", "random")
        }
        assert (len(rewards["greedy"]), len(rewards["random"])) == (9, 9)
        diffs.append(np.mean(rewards["greedy"]) - np.mean(rewards["random"]))
    (pair,) = pair_summaries(results)
    assert (pair.first, pair.second, pair.deals, pair.games) == ("greedy", "random", 40, 240)
    assert pair.score_difference.mean == pytest.approx(float(np.mean(diffs)))
    assert pair.score_difference == Interval.of(diffs)
    greedy_wins = [r > 0 for g in results for s, r in zip(g.seats, g.rewards) if s == "greedy"]
    assert pair.first_win_rate == pytest.approx(np.mean(greedy_wins))


def test_agent_summaries_count_seat_games(three_player_results: list[GameResult]) -> None:
    """Per agent: one seat-game per seat held (each agent 9 of a deal's 18 seats), and the
    mean reward over (pairing, deal) units."""
    greedy, rand = agent_summaries(three_player_results)
    assert (greedy.agent, greedy.games, rand.agent, rand.games) == ("greedy", 360, "random", 360)
    assert greedy.mean_reward.n == rand.mean_reward.n == 40
    assert greedy.mean_reward.mean > rand.mean_reward.mean


def test_seat_breakdown_sums_to_the_games(three_player_results: list[GameResult]) -> None:
    """Every game puts one agent in each seat: per seat the games of both agents
    add up to the number of games, and each row's mean reward is its seat-games'."""
    results = three_player_results
    rows = seat_breakdown(results)
    for seat in range(3):
        assert sum(row["games"] for row in rows if row["seat"] == seat) == len(results)
    assert sum(row["games"] for row in rows) == 3 * len(results)
    for row in rows:
        rewards = [g.rewards[row["seat"]] for g in results if g.seats[row["seat"]] == row["agent"]]
        assert row["games"] == len(rewards)
        assert row["mean_reward"] == pytest.approx(np.mean(rewards))


def test_ratings_anchor_random_at_zero() -> None:
    """Bradley-Terry ratings on the Elo scale with random as the anchor: random is 0
    exactly (its interval too), and greedy, clearly stronger, gets a positive
    rating whose bootstrap interval excludes 0; counter likewise."""
    results = run_tournament(make_config("standard"), ["random", "greedy", "counter"], deals=60, seed=2)
    ratings = fit_ratings(results, bootstrap=100, seed=0)
    assert set(ratings) == {"random", "greedy", "counter"}
    assert (ratings["random"].mean, ratings["random"].low, ratings["random"].high) == (0.0, 0.0, 0.0)
    for spec in ("greedy", "counter"):
        assert ratings[spec].low > 0
        assert ratings[spec].low <= ratings[spec].mean <= ratings[spec].high
        assert ratings[spec].n == 60  # deals, each with its games of every pairing


def test_ratings_without_random_are_centred() -> None:
    """Without random the ratings are anchored at their mean: they sum to 0."""
    results = run_tournament(make_config("standard"), ["greedy", "counter"], deals=30, seed=2)
    ratings = fit_ratings(results, bootstrap=20, seed=0)
    assert ratings["greedy"].mean + ratings["counter"].mean == pytest.approx(0.0, abs=1e-9)


def test_summarize_is_json_ready(three_player_results: list[GameResult]) -> None:
    """The summary holds agents, pairs and per-seat rows and survives JSON."""
    summary = summarize(three_player_results, bootstrap=20)
    assert set(summary) == {"agents", "pairs", "per_seat"}
    assert json.loads(json.dumps(summary)) == summary


# --------------------------------------------------------------------------
# The command line


def test_cli_writes_tables_json_csv_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``trash-evaluate`` end to end: the tables on stdout, a JSON summary
    with the settings, a CSV with one row per game and a PNG plot."""
    out = tmp_path / "out"
    argv = ["greedy", "random", "counter", "--deals", "4", "--quiet", "--bootstrap", "20", "--seed", "3"]
    argv += ["--json", str(out / "run.json"), "--csv", str(out / "run.csv"), "--plot", str(out / "run.png")]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    for text in ("standard, 2 players, hands, 4 duplicate deals per pair", "score difference per deal", "per seat"):
        assert text in printed
    for spec in ("greedy", "random", "counter"):
        assert spec in printed

    data = json.loads((out / "run.json").read_text())
    assert set(data) == {"settings", "agents", "pairs", "per_seat"}
    settings = data["settings"]
    assert settings["agents"] == ["greedy", "random", "counter"]
    assert (settings["deals"], settings["duplicate"], settings["seed"], settings["games"]) == (4, True, 3, 24)
    assert settings["config"] == make_config("standard").to_dict()
    assert sorted(row["agent"] for row in data["agents"]) == ["counter", "greedy", "random"]
    assert all(set(row["rating"]) == {"mean", "low", "high", "n"} for row in data["agents"])
    # Every pair once, its agents in the order named on the command line.
    assert {(p["first"], p["second"]) for p in data["pairs"]} == {
        ("greedy", "random"),
        ("greedy", "counter"),
        ("random", "counter"),
    }
    assert all(p["deals"] == 4 and p["games"] == 8 for p in data["pairs"])
    assert sum(row["games"] for row in data["per_seat"]) == 2 * 24

    with (out / "run.csv").open(newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["first", "second", "deal", "rotation", "seats", "rewards", "turns", "truncated"]
    assert len(rows) == 1 + 24
    pairs = [tuple(row[:2]) for row in rows[1:]]
    assert {pair: pairs.count(pair) for pair in pairs} == {
        ("greedy", "random"): 8,
        ("greedy", "counter"): 8,
        ("random", "counter"): 8,
    }
    assert all(row[4].split() in (row[:2], row[1::-1]) for row in rows[1:])  # the seats of a 2-player game

    assert (out / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_rules_options(tmp_path: Path) -> None:
    """--preset, --num-players, --match, --override and --independent reach the
    configuration (R11: any field over a preset) and the settings; search with a
    tiny budget plays a 3-player pagat match (R9)."""
    path = tmp_path / "run.json"
    argv = ["search:samples=2", "random", "--deals", "2", "--quiet", "--bootstrap", "10", "--independent"]
    argv += ["--preset", "pagat", "--num-players", "3", "--match", "--override", "layout_size=3", "--json", str(path)]
    assert main(argv) == 0
    settings = json.loads(path.read_text())["settings"]
    assert settings["config"] == make_config("pagat", num_players=3, match=True, layout_size=3).to_dict()
    assert (settings["duplicate"], settings["games"]) == (False, 12)  # 2 deals x 6 seatings (3 players)


def test_cli_as_a_module() -> None:
    """The module entry point: ``trash-evaluate greedy random`` exits 0
    and prints the tables."""
    pytest.importorskip("rich")  # the tables (the eval extra)
    completed = subprocess.run(
        [sys.executable, "-m", "agents.commands.evaluate", "greedy", "random", "--deals", "5", "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "score difference per deal" in completed.stdout
    assert "greedy" in completed.stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["greedy", "minimax"], "unknown agent 'minimax'"),
        (["greedy", "search:samples=0"], "search samples must be a positive integer"),
        (["greedy", "random", "--override", "layout_size"], "--override 'layout_size' must be FIELD=VALUE"),
        (["greedy", "random", "--override", "colour=red"], "unknown rules field(s) ['colour']"),
        (["greedy", "random", "--override", "layout_size=11"], "layout_size=11 is out of range"),
        (["greedy", "random", "--num-players", "9"], "num_players=9 is out of range"),
        (["greedy", "greedy"], "at least two distinct agents"),
        (["greedy", "random", "--deals", "0"], "deals must be at least 1"),
        (["greedy", "random", "--record-deals", "0"], "--record-deals must be at least 1"),
        (["greedy", "random", "--save-records", "README.md"], "--save-records 'README.md' is a file; give a folder"),
        (
            ["random", "heuristic", "--game", "help_your_neighbor", "--exact", "--save-records", "records"],
            "--save-records saves played games; --exact plays none",
        ),
    ],
)
def test_cli_bad_input_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad agent, override or configuration (R1) is exit status 2 with an
    ``trash-evaluate: error:`` line on stderr that says what is wrong, and no table."""
    assert main(["--deals", "2", "--quiet", *argv]) == 2  # a later --deals in argv wins
    captured = capsys.readouterr()
    assert captured.err.startswith("trash-evaluate: error: ")
    assert message in captured.err
    assert captured.out == ""


@pytest.mark.parametrize("override", ["num_players=3", "match=true"])
def test_cli_override_of_num_players_or_match(override: str) -> None:
    """--override takes "any rules field" (R11): overriding num_players or match is
    either honoured (exit 0) or refused with a clear error (exit 2), never a crash."""
    assert main(["greedy", "random", "--deals", "2", "--quiet", "--override", override]) in (0, 2)


def test_cli_negative_bootstrap_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """A negative number of bootstrap resamples is bad input like --deals 0: exit
    status 2 with an error line, not a traceback."""
    assert main(["greedy", "random", "--deals", "2", "--quiet", "--bootstrap", "-1"]) == 2
    assert capsys.readouterr().err.startswith("trash-evaluate: error: ")


def test_cli_needs_two_agents(capsys: pytest.CaptureFixture[str]) -> None:
    """One agent is a usage error from argparse (SystemExit 2) naming the problem."""
    with pytest.raises(SystemExit) as excinfo:
        main(["greedy", "--deals", "2"])
    assert excinfo.value.code == 2
    assert "name at least two agents" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("cfg", "pair"),
    [
        (make_config("pagat", num_players=2, match=True), ("greedy", "random")),
        (make_config("jokers", num_players=3), ("counter", "random")),
        (NeighborConfig(num_players=3), ("heuristic", "random")),
    ],
)
def test_records_hold_the_games_the_evaluation_played(cfg, pair) -> None:
    """``record_deals``: one record per game of :func:`play_deals` (every rotation of every deal),
    each replaying to that game's rewards (R10, R12), whichever engine the evaluation used, and
    naming the agent in each seat."""
    from trash_env.games import game_of
    from trash_env.records import replay

    results = evaluation.run_pairings(cfg, [pair], 3, seed=9)
    records = evaluation.record_deals(cfg, pair, range(3), 9)
    assert len(records) == len(results) == 3 * games_per_deal(pair, cfg.num_players)
    game = game_of(cfg)
    for record, result in zip(records, results, strict=True):
        assert (record["evaluation"]["deal"], record["evaluation"]["rotation"]) == (result.deal, result.rotation)
        assert tuple(game.returns(replay(record))) == result.rewards == tuple(record["returns"])
        assert record["players"] == list(result.seats)
        assert len(record["probabilities"]) == len(record["actions"])


def test_a_learned_policys_records_hold_its_probabilities(tmp_path: Path) -> None:
    """A learned policy's decisions carry its probability of every legal action (summing to 1); a
    baseline's carry none; forced moves carry none."""
    pytest.importorskip("torch")
    from trash_env.records import replay
    from trash_env.trash.rules import legal_actions

    policy = str(ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip")
    argv = ["greedy", policy, "--deals", "3", "--record-deals", "2", "--save-records", str(tmp_path), "--quiet"]
    assert main(argv) == 0
    paths = sorted(tmp_path.glob("*/*.json"))
    assert [p.name for p in paths] == [f"deal_{d}_rotation_{r}.json" for d in range(2) for r in range(2)]
    for path in paths:
        record = json.loads(path.read_text())
        learner = record["players"].index(policy)
        seats: list[tuple[int, list[int]]] = []
        replay(record, lambda state, index, action, seats=seats: seats.append((state.current, legal_actions(state))))
        given = 0
        for (seat, legal), chances in zip(seats, record["probabilities"]):  # the position before each action
            if chances is None:
                assert seat != learner or len(legal) == 1
                continue
            given += 1
            assert seat == learner and sorted(int(a) for a in chances) == sorted(legal)
            assert math.isclose(sum(chances.values()), 1.0, abs_tol=1e-4)
        assert given > 0
