"""Pairs evaluate as exact mirrors whichever order they are named in, and the batched engine plays
``random`` inside itself in exactly the scalar path's games (:mod:`agents.evaluation.seatings`).

A game of an evaluation is fixed by the seed, the deal and who sits where; an agent's draws by the
seed, the deal and its seat (a Philox stream, :mod:`trash_env.counter_rng`), never by the agent's
place in the command. So ``B A`` plays the games of ``A B`` seen from the other side: at every
deal and rotation the seats swapped, the same games per deal, and the score difference negated
exactly (R10 rewards).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import agents.evaluation.duplicate as evaluation
from agents.baselines import RandomAgent
from agents.evaluation.duplicate import round_robin, run_pairings
from agents.evaluation.seatings import GameResult, deal_plan, draw_keys, games_per_deal
from agents.evaluation.stats import deal_scores, pair_summaries
from trash_env.neighbor.rules import NeighborConfig
from trash_env.trash import batched
from trash_env.trash.config import make_config

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_POLICY = str(ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip")
TRASH_LADDER = ["random", "greedy", "counter", "search:samples=2"]


def assert_mirrors(forward: list[GameResult], backward: list[GameResult]) -> None:
    """``backward`` (the pair named the other way round) holds the mirrors of ``forward``'s games:
    at each deal and rotation the two agents' seats swapped, the same games on every deal (seats,
    rewards, turns, truncation), the same mean reward per agent and deal, and the score difference
    with its interval negated, the win rates exchanged."""
    a, b = forward[0].pairing
    assert backward[0].pairing == (b, a) and len(forward) == len(backward) > 0
    swap = {a: b, b: a}
    for there, back in zip(forward, backward, strict=True):
        assert (back.deal, back.rotation) == (there.deal, there.rotation)
        assert back.seats == tuple(swap[spec] for spec in there.seats)

    def games(results: list[GameResult]) -> list[tuple[Any, ...]]:
        return sorted((g.deal, g.seats, g.rewards, g.turns, g.truncated) for g in results)

    assert games(forward) == games(backward)
    assert list(deal_scores(forward).values()) == list(deal_scores(backward).values())
    (there,), (back,) = pair_summaries(forward), pair_summaries(backward)
    assert back.score_difference.mean == -there.score_difference.mean
    assert (back.score_difference.low, back.score_difference.high) == (
        -there.score_difference.high,
        -there.score_difference.low,
    )
    assert (back.first_win_rate, back.second_win_rate) == (there.second_win_rate, there.first_win_rate)


LADDERS = [
    pytest.param(make_config("standard"), [*TRASH_LADDER, SHIPPED_POLICY], 3, id="trash-2p"),
    pytest.param(make_config("jokers", num_players=3), TRASH_LADDER, 2, id="trash-3p"),
    pytest.param(make_config("pagat", num_players=4, match=True, layout_size=3), TRASH_LADDER, 2, id="trash-4p-match"),
    pytest.param(NeighborConfig(num_players=2), ["random", "heuristic", "optimal"], 4, id="neighbor-2p"),
    pytest.param(NeighborConfig(num_players=3), ["random", "heuristic"], 3, id="neighbor-3p"),
]


@pytest.mark.parametrize("duplicate", [True, False], ids=["duplicate", "independent"])
@pytest.mark.parametrize(("config", "ladder", "deals"), LADDERS)
def test_every_pair_of_the_ladder_named_either_way_plays_mirrored_games(
    config: Any, ladder: list[str], deals: int, duplicate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every pair of the baseline ladder (Trash: random, greedy, counter, a tiny search and, for
    its two-player rules, the shipped policy; Help Your Neighbor: random, heuristic and, with two
    players, optimal), named one way and the other, on duplicate and independent deals: the games
    are mirrors (:func:`assert_mirrors`) on the scalar engine and with ``auto`` (the batched engines
    for every pair they can play: every Trash pair but search's, every Help Your Neighbor pair), and
    both engines play the same games."""
    if SHIPPED_POLICY in ladder:
        pytest.importorskip("sb3_contrib")
    pairs = round_robin(ladder)
    both_ways = [*pairs, *[(b, a) for a, b in pairs]]
    on_batch: list[tuple[str, str]] = []
    real = evaluation.play_deals_batched

    def spy(config: Any, pair: tuple[str, str], *args: Any) -> list[GameResult]:
        on_batch.append(pair)
        return real(config, pair, *args)

    monkeypatch.setattr(evaluation, "play_deals_batched", spy)
    by_engine = {}
    for engine in ("scalar", "auto"):
        results = run_pairings(config, both_ways, deals, seed=13, duplicate=duplicate, engine=engine)
        by_engine[engine] = results
        of = {pair: [g for g in results if g.pairing == pair] for pair in both_ways}
        for a, b in pairs:
            assert len(of[a, b]) == deals * games_per_deal((a, b), config.num_players)
            assert_mirrors(of[a, b], of[b, a])
    assert by_engine["auto"] == by_engine["scalar"]
    if batched.HAVE_NUMBA:  # every pair but search's (Trash)
        assert set(on_batch) == {pair for pair in both_ways if not any(s.startswith("search") for s in pair)}
    else:
        assert on_batch == []


def test_draws_keyed_by_the_place_in_the_command_break_the_mirrors(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: with each agent's draws keyed by its place in the lineup the
    command named (the old streams, put back here), random against greedy named either way
    plays other games, and :func:`assert_mirrors` says so; keyed by seat, they are mirrors."""
    config = make_config("standard")
    forward = run_pairings(config, [("random", "greedy")], 20, seed=0, engine="scalar")
    assert_mirrors(forward, run_pairings(config, [("greedy", "random")], 20, seed=0, engine="scalar"))

    def by_place(seed: int, deal: int, seating: Any, duplicate: bool) -> Any:
        n = len(seating.seats)
        keys = draw_keys(seed, [deal], [0], n)[0]
        return keys[[(seat + seating.rotation) % n for seat in range(n)]]

    monkeypatch.setattr(evaluation, "game_keys", by_place)
    old_forward = run_pairings(config, [("random", "greedy")], 20, seed=0, engine="scalar")
    old_backward = run_pairings(config, [("greedy", "random")], 20, seed=0, engine="scalar")
    with pytest.raises(AssertionError):
        assert_mirrors(old_forward, old_backward)


def test_a_deals_plan_seats_both_alternations_with_an_odd_number_of_seats() -> None:
    """With two seats, the two rotations (A B, B A); with three, the rotations of A B A and then of
    B A B, each agent in every seat as often; with four, the seating A B A B comes back at rotation
    2 with stream number 1 (its draws differ). A pair of one agent twice: n games, stream r. The
    plan named the other way has the same games: the same (seats, stream), with ``canonical`` the
    rotation of that game in the sorted pair's plan."""
    two = deal_plan(("x", "y"), 2)
    assert [(g.seats, g.stream, g.canonical) for g in two] == [(("x", "y"), 0, 0), (("y", "x"), 0, 1)]
    three = deal_plan(("y", "x"), 3)
    assert [g.seats for g in three] == [
        ("y", "x", "y"),
        ("x", "y", "y"),
        ("y", "y", "x"),
        ("x", "y", "x"),
        ("y", "x", "x"),
        ("x", "x", "y"),
    ]
    assert [g.stream for g in three] == [0] * 6
    sorted_plan = deal_plan(("x", "y"), 3)
    for game in three:
        assert sorted_plan[game.canonical].seats == game.seats
    four = deal_plan(("x", "y"), 4)
    assert [g.stream for g in four] == [0, 0, 1, 1] and four[0].seats == four[2].seats
    assert [g.stream for g in deal_plan(("x", "x"), 3)] == [0, 1, 2]
    assert (games_per_deal(("x", "y"), 5), games_per_deal(("x", "x"), 5), games_per_deal(("x", "y"), 6)) == (10, 5, 6)


def test_draw_keys_are_distinct_per_deal_stream_and_seat() -> None:
    """A seat's key packs the seed in one word and (deal, stream, seat) in the other: distinct for
    every combination, and the same whatever else is computed beside it."""
    keys = draw_keys(5, [0, 0, 1, 1, 2**40], [0, 1, 0, 1, 13], 8)
    assert keys.shape == (5, 8, 2) and (keys[:, :, 0] == 5).all()
    assert len({tuple(key) for key in keys.reshape(-1, 2).tolist()}) == 40
    assert (draw_keys(5, [1], [1], 8)[0] == keys[3]).all()
    with pytest.raises(ValueError, match="2\\*\\*64"):
        draw_keys(2**64, [0], [0], 2)
    with pytest.raises(ValueError, match="deal numbers"):
        draw_keys(0, [-1], [0], 2)


def test_four_seats_tell_a_seatings_two_games_apart() -> None:
    """With four seats, rotations 0 and 2 of a deal seat the agents alike (R3: the same deck); their
    stream numbers differ, so random draws differently and the two games are not copies."""
    results = run_pairings(make_config("standard", num_players=4), [("random", "greedy")], 10, seed=2)
    by_deal = {(g.deal, g.rotation): g for g in results}
    assert all(by_deal[d, 0].seats == by_deal[d, 2].seats for d in range(10))
    assert any(
        (by_deal[d, 0].rewards, by_deal[d, 0].turns) != (by_deal[d, 2].rewards, by_deal[d, 2].turns) for d in range(10)
    )


ENGINE_CASES = [
    pytest.param(make_config("standard"), 150, True, id="standard-2p"),
    pytest.param(make_config("standard"), 80, False, id="standard-2p-independent"),
    pytest.param(make_config("standard", max_turns=14), 80, True, id="standard-2p-truncated"),
    pytest.param(make_config("seven_up", match=True), 20, True, id="seven_up-match-reshuffles"),
    pytest.param(make_config("pagat", num_players=3, match=True), 15, True, id="pagat-3p-match"),
    pytest.param(make_config("jokers", num_players=5), 20, False, id="jokers-5p-independent"),
]


@pytest.mark.skipif(not batched.HAVE_NUMBA, reason="the batched engine plays evaluations only with Numba")
@pytest.mark.parametrize(("config", "deals", "duplicate"), ENGINE_CASES)
def test_random_plays_inside_the_batched_engine_the_scalar_games(
    config: Any, deals: int, duplicate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """random against greedy and against counter on the batched engine: ``random`` is never asked
    outside it (its draws are computed in the engine from the seats' keyed streams), and the games
    are the scalar path's, game by game (seats, rewards, turns, truncation; reshuffles R7, later
    hands R9, the turn limit R7 included)."""
    pairs = [("random", "greedy"), ("counter", "random")]
    scalar = run_pairings(config, pairs, deals, seed=21, duplicate=duplicate, engine="scalar")

    def not_asked(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("random is played inside the engine")

    monkeypatch.setattr(RandomAgent, "act_batch", not_asked)
    on_batch = run_pairings(config, pairs, deals, seed=21, duplicate=duplicate, engine="batched")
    assert on_batch == scalar
    assert len(scalar) == deals * sum(games_per_deal(pair, config.num_players) for pair in pairs)
    if config.max_turns == 14:
        assert 0 < sum(g.truncated for g in scalar) < len(scalar)
    assert run_pairings(config, pairs, deals, seed=22, duplicate=duplicate, engine="batched") != scalar


@pytest.mark.skipif(not batched.HAVE_NUMBA, reason="the batched engine plays evaluations only with Numba")
def test_a_policy_asked_in_batches_beside_random_in_the_engine_plays_the_scalar_games() -> None:
    """The shipped policy (asked in batches, ``act_batch``) against random (inside the engine):
    the same games on both engines, named either way."""
    pytest.importorskip("sb3_contrib")
    config = make_config("standard")
    pairs = [(SHIPPED_POLICY, "random"), ("random", SHIPPED_POLICY)]
    scalar = run_pairings(config, pairs, 30, seed=4, engine="scalar")
    assert run_pairings(config, pairs, 30, seed=4, engine="batched") == scalar
    assert_mirrors(scalar[:60], scalar[60:])


def test_records_of_a_swapped_pair_replay_the_mirrored_games() -> None:
    """``record_deals`` of a pair named either way: each record replays to its game's rewards (the
    draws do not enter a record, its actions do), and the records of (B, A) are those of (A, B)'s
    mirrors."""
    from trash_env.records import replay
    from trash_env.trash.rules import returns

    config = make_config("jokers", num_players=3)
    forward = evaluation.record_deals(config, ("random", "counter"), range(2), 3)
    backward = evaluation.record_deals(config, ("counter", "random"), range(2), 3)
    for record in forward + backward:
        assert returns(replay(record)) == record["returns"]

    def games(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return sorted((r["evaluation"]["deal"], r["players"], r["actions"]) for r in records)

    assert games(forward) == games(backward)
