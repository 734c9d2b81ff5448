"""Two-player Help Your Neighbor solved (R12, R14): :mod:`trash_env.neighbor.solver`, the ``optimal``
agent and the exact evaluation (:mod:`agents.evaluation.exact`).

- the solution satisfies the Bellman equations at every state, to its tolerance;
- on a reduced game (markers for fewer totals, a test-only parameter) it agrees with an exhaustive
  expectimax written independently, recursion by recursion;
- the solver's equations are the rules: for every kind of state and roll, the core (R12) moves
  to the state the solver assumes;
- ``optimal`` only plays legal actions, decides in batches as one at a time, refuses other player
  counts, and sampled play on the real engine matches the exact values within the interval;
- the exact evaluation of a policy against itself is the solved value, and of ``heuristic``
  against ``optimal`` agrees with duplicate deals.
"""

from __future__ import annotations

import functools
import shutil

import numpy as np
import pytest

from agents.base import Agent
from agents.baselines import RandomAgent
from agents.evaluation.duplicate import run_pairings
from agents.evaluation.exact import decision_tables, exact_pair, gap_to_optimal
from agents.evaluation.stats import pair_summaries
from agents.heuristic import NeighborHeuristic
from agents.optimal import OptimalAgent
from agents.registry import make_agent
from trash_env.games import NEIGHBOR
from trash_env.jit import HAVE_NUMBA
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.rules import CHOOSE, NUM_MARKERS, ROLL, TOTALS, UNCOVER, WAYS, make_config
from trash_env.neighbor.solver import (
    TOLERANCE,
    PolicyTables,
    cache_path,
    evaluate_policies,
    evaluate_policies_by_rolls,
    fixed_point,
    fixed_point_numpy,
    level_sweep,
    level_sweep_numpy,
    load_solution,
    optimal_tables,
    policy_backup,
    roll_outcomes,
    solve,
)
from trash_env.view import SeatView

REDUCED = (4, 6, 8)  # three markers: 2^3 x 2^3 sets


@pytest.fixture(scope="module")
def solution(solved, tmp_path_factory: pytest.TempPathFactory, monkeypatch_module):
    """The full game solved once for the session (``conftest.solved``), loaded from its cache file
    copied to a temporary folder."""
    monkeypatch_module.setenv("TRASH_RL_CACHE", str(tmp_path_factory.mktemp("cache")))
    shutil.copyfile(solved[1], cache_path())
    return load_solution()


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def bits(covered: list[bool]) -> int:
    return sum(1 << j for j, c in enumerate(covered) if c)


def state_of(
    me: int, opp: int, seat: int = 0, phase: int = ROLL, dice: list[int] | None = None
) -> neighbor.NeighborState:
    """A two-player state with the given covered sets, ``seat`` to act."""
    state = neighbor.new_game(make_config(num_players=2), dice)
    for s, b in ((seat, me), (1 - seat, opp)):
        state.covered[s] = [bool(b >> j & 1) for j in range(NUM_MARKERS)]
        state.left[s] = NUM_MARKERS - bin(b).count("1")
    state.current, state.phase = seat, phase
    return state


# --------------------------------------------------------------------------
# The solution


def test_bellman_equations_hold_at_every_state(solution) -> None:
    """Every state's value is the expectation over the next roll of the best choices (R12), to the
    stated tolerance; values are probabilities; the first roller's chance is a little above 1/2."""
    assert solution.residual() <= TOLERANCE
    assert solution.value.min() >= 0 and solution.value.max() <= 1
    assert 0.5 < solution.value[0, 0] < 0.51


def test_the_solution_is_cached_and_loaded_without_solving_again(solution, monkeypatch, tmp_path) -> None:
    """The first use solves and writes the cache; a later process's use reads the cache instead of
    solving again (how fast each is: ``benchmarks/``, never a timed assertion here). The solve is the
    module's solution handed back, so the test needs no second solve of its own; the solution in
    memory (another test module may have loaded it first in this process) is forgotten on purpose."""
    from trash_env.neighbor import solver as neighbor_solver

    monkeypatch.setenv("TRASH_RL_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(neighbor_solver, "_loaded", {})
    solves = []
    monkeypatch.setattr(neighbor_solver, "solve", lambda *args, **kwargs: solves.append(1) or solution)
    assert load_solution() is solution and solves == [1]
    assert cache_path().is_file()  # written by the first use

    monkeypatch.setattr(neighbor_solver, "_loaded", {})  # a later process: nothing in memory

    def no_solving(*args, **kwargs):
        raise AssertionError("solved again although the cache holds the solution")

    monkeypatch.setattr(neighbor_solver, "solve", no_solving)
    again = load_solution()
    np.testing.assert_array_equal(again.value, solution.value)


def expectimax_bounds(totals: tuple[int, ...], depth: int) -> tuple[dict, dict]:
    """The exhaustive expectimax of the reduced game to ``depth`` rolls, by recursion over its tree
    (chance at each roll, the mover's choice after it), with every game unfinished at the horizon
    counted as a loss (lower bound) and as a win (upper bound) for the player to roll."""
    full = (1 << len(totals)) - 1
    marker = {t: 1 << totals.index(t) for t in totals}

    @functools.cache
    def turn_start(me: int, opp: int, left: int, horizon: float) -> float:
        if left == 0:
            return horizon
        total_value = 0.0
        for t in range(2, 13):
            p = WAYS[t] / 36
            if t == 7:
                if me == 0:
                    outcome = 1 - turn_start(opp, me, left - 1, 1 - horizon)
                else:
                    outcome = max(
                        1 - turn_start(opp, me & ~(1 << j), left - 1, 1 - horizon)
                        for j in range(len(totals))
                        if me >> j & 1
                    )
            elif t in marker and not me & marker[t]:
                mine = me | marker[t]
                outcome = 1.0 if mine == full else choose(mine, opp, left - 1, horizon)
            elif t in marker and not opp & marker[t]:
                theirs = opp | marker[t]
                outcome = 0.0 if theirs == full else 1 - turn_start(theirs, me, left - 1, 1 - horizon)
            else:
                outcome = choose(me, opp, left - 1, horizon)
            total_value += p * outcome
        return total_value

    def choose(me: int, opp: int, left: int, horizon: float) -> float:
        return max(turn_start(me, opp, left, horizon), 1 - turn_start(opp, me, left, 1 - horizon))

    size = full + 1
    low = {(me, opp): turn_start(me, opp, depth, 0.0) for me in range(full) for opp in range(full)}
    high = {(me, opp): turn_start(me, opp, depth, 1.0) for me in range(full) for opp in range(full)}
    assert len(low) == (size - 1) ** 2
    return low, high


def test_reduced_game_agrees_with_exhaustive_expectimax() -> None:
    """With markers for 4, 6 and 8 only (a test-only parameter of the solver), the solved values lie
    between the expectimax lower and upper bounds at every state, and those close in on them."""
    solved = solve(REDUCED)
    low, high = expectimax_bounds(REDUCED, 260)
    for (me, opp), value in np.ndenumerate(solved.value[:7, :7]):
        assert low[me, opp] - 1e-9 <= value <= high[me, opp] + 1e-9
        assert high[me, opp] - low[me, opp] < 1e-6
        assert abs(value - low[me, opp]) < 1e-6


def solver_outcome(me: int, opp: int, total: int) -> tuple[str, int, int]:
    """What the solver's equations say a roll of ``total`` does from a turn start (R12)."""
    full = (1 << NUM_MARKERS) - 1
    if total == 7:
        return ("uncover", me, opp) if me else ("other_rolls", opp, me)
    bit = 1 << TOTALS.index(total)
    if not me & bit:
        return ("mover_wins", me | bit, opp) if me | bit == full else ("mover_chooses", me | bit, opp)
    if not opp & bit:
        return ("other_wins", opp | bit, me) if opp | bit == full else ("other_rolls", opp | bit, me)
    return ("mover_chooses", me, opp)


def core_outcome(me: int, opp: int, total: int, seat: int) -> tuple[str, int, int]:
    state = state_of(me, opp, seat, ROLL, dice=[total])
    neighbor.apply_action(state, neighbor.ROLL_DICE, np.random.default_rng(0))
    mine, theirs = bits(state.covered[seat]), bits(state.covered[1 - seat])
    if state.over:
        return ("mover_wins", mine, theirs) if state.winners == [seat] else ("other_wins", theirs, mine)
    if state.phase == UNCOVER:
        return ("uncover", mine, theirs)
    if state.phase == CHOOSE and state.current == seat:
        return ("mover_chooses", mine, theirs)
    assert state.phase == ROLL and state.current == 1 - seat
    return ("other_rolls", theirs, mine)


def test_the_solvers_equations_are_the_rules_of_the_core() -> None:
    """For 3,000 random states (either seat to roll, nearly full sets included) and every total, the
    rules core (R12) moves to exactly the state the solver's equations assume; uncovering after a
    7 passes the turn with the set one marker smaller, and ending a turn passes it unchanged."""
    rng = np.random.default_rng(3)
    full = (1 << NUM_MARKERS) - 1
    for _ in range(3000):
        me, opp = (
            int(rng.choice([rng.integers(full), full ^ (1 << int(rng.integers(NUM_MARKERS)))])) for _ in range(2)
        )
        seat = int(rng.integers(2))
        for total in range(2, 13):
            assert core_outcome(me, opp, total, seat) == solver_outcome(me, opp, total), (me, opp, total)
        if me:
            state = state_of(me, opp, seat, UNCOVER)
            j = int(rng.choice([j for j in range(NUM_MARKERS) if me >> j & 1]))
            neighbor.apply_action(state, neighbor.UNCOVER_0 + j, np.random.default_rng(0))
            assert (state.current, state.phase, bits(state.covered[seat])) == (1 - seat, ROLL, me ^ (1 << j))
        state = state_of(me, opp, seat, CHOOSE)
        neighbor.apply_action(state, neighbor.END_TURN, np.random.default_rng(0))
        assert (state.current, state.phase, bits(state.covered[seat])) == (1 - seat, ROLL, me)


def test_policy_evaluation_of_the_optimal_policy_is_the_solved_value() -> None:
    solved = solve(REDUCED)
    first, second = evaluate_policies(optimal_tables(solved), optimal_tables(solved), REDUCED)
    np.testing.assert_allclose(first[:7, :7], solved.value[:7, :7], atol=1e-10)
    np.testing.assert_allclose(second[:7, :7], solved.value[:7, :7], atol=1e-10)


def random_tables(totals: tuple[int, ...], seed: int) -> PolicyTables:
    """A stochastic policy: a probability of rolling again for every total and state, and a random
    distribution over the covered markers to uncover (one table per total, all different)."""
    rng = np.random.default_rng(seed)
    size = 1 << len(totals)
    roll = {total: rng.random((size, size)) for total, _, _ in roll_outcomes(totals)}
    uncover = rng.random((len(totals), size, size))
    for j in range(len(totals)):
        uncover[j][(np.arange(size) >> j) & 1 == 0, :] = 0.0  # only covered markers
    sums = uncover.sum(axis=0)
    uncover = np.divide(uncover, sums, out=np.zeros_like(uncover), where=sums > 0)
    return PolicyTables(roll, uncover)


@pytest.mark.parametrize("totals", [REDUCED, (2, 5, 8, 10, 12), (3, 6, 9, 11)])
def test_policy_evaluation_by_levels_is_the_fixed_point_of_the_one_roll_equations(totals) -> None:
    """The level-by-level Gauss-Seidel solve (evaluate_policies) and the plain iteration of both
    players' one-roll equations (evaluate_policies_by_rolls) agree, and the one-roll equations
    (policy_backup, the rules of R12 a roll at a time) hold at every state, for two random
    stochastic policies on reduced games (a total without a marker included)."""
    first, second = random_tables(totals, 1), random_tables(totals, 2)
    by_levels = evaluate_policies(first, second, totals)
    by_rolls = evaluate_policies_by_rolls(first, second, totals)
    full = (1 << len(totals)) - 1
    for levels, rolls in zip(by_levels, by_rolls, strict=True):
        np.testing.assert_allclose(levels[:full, :full], rolls[:full, :full], atol=1e-10)
    residual_first = policy_backup(by_levels[0], by_levels[1], first, totals) - by_levels[0]
    residual_second = policy_backup(by_levels[1], by_levels[0], second, totals) - by_levels[1]
    assert np.abs(residual_first[:full, :full]).max() < 1e-10
    assert np.abs(residual_second[:full, :full]).max() < 1e-10


def test_the_compiled_level_sweep_is_the_numpy_one() -> None:
    """One sweep from random values, compiled (Numba) and in NumPy, on the full game: the same
    blocks in the same order, so the same numbers."""
    if not HAVE_NUMBA:
        pytest.skip("Numba is not installed: only the NumPy sweep runs")
    first, second = random_tables(TOTALS, 3), random_tables(TOTALS, 4)
    values = np.random.default_rng(5).random((2, 1 << NUM_MARKERS, 1 << NUM_MARKERS))
    full = (1 << NUM_MARKERS) - 1
    compiled = level_sweep(values, first, second, TOTALS)
    numpy = level_sweep_numpy(values, first, second, TOTALS)
    np.testing.assert_allclose(compiled[:, :full, :full], numpy[:, :full, :full], rtol=0, atol=1e-12)
    assert not np.allclose(compiled[:, :full, :full], values[:, :full, :full])  # the sweep did something


def test_the_compiled_fixed_point_is_the_numpy_one_and_the_same_on_any_thread_count() -> None:
    """The compiled Anderson mixing (:func:`fixed_point`) takes the NumPy iteration's sweeps
    (``fixed_point_numpy``) to the same values within rounding, and the same bits on one thread and
    on two: its inner products are summed by fixed blocks, so an exact score does not depend on the
    cores the process that computes it has."""
    if not HAVE_NUMBA:
        pytest.skip("Numba is not installed: only the NumPy iteration runs")
    import numba

    first, second = random_tables(REDUCED, 3), random_tables(REDUCED, 4)
    size = 1 << len(REDUCED)
    step = functools.partial(level_sweep, first=first, second=second, totals=REDUCED)
    start = np.full((2, size, size), 0.5)
    reference, sweeps = fixed_point_numpy(step, start, 1e-12)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one, sweeps_one = fixed_point(step, start, 1e-12)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two, sweeps_two = fixed_point(step, start, 1e-12)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(one, two) and sweeps_one == sweeps_two
    assert abs(sweeps_one - sweeps) <= 1 and np.abs(one - reference).max() < 1e-11


@pytest.mark.slow
def test_a_table_agents_decisions_are_read_off_its_tables_as_the_generic_path_asks_them() -> None:
    """:func:`decision_tables` of a table agent (``optimal``, a learned value table) reads its lookup
    tables directly: the very tables asking it every question gives (the generic path, for any agent
    that decides in batches)."""
    from agents.evaluation.exact import table_agent_tables
    from agents.value_table import ValueTableAgent

    value = np.random.default_rng(6).random((1 << NUM_MARKERS, 1 << NUM_MARKERS)).astype(np.float32)
    for agent in (OptimalAgent(), ValueTableAgent(value)):
        agent.check_config(make_config(num_players=2))

        class Asked(Agent):  # the same decisions, through the generic path only
            games, batchable, name = ("help_your_neighbor",), True, "asked"
            act_batch = staticmethod(agent.act_batch)
            act = staticmethod(agent.act)

        fast, asked = decision_tables(agent), decision_tables(Asked())
        assert fast.roll.keys() == asked.roll.keys()
        assert all(np.array_equal(fast.roll[total], asked.roll[total]) for total in asked.roll)
        assert np.array_equal(fast.uncover, asked.uncover)
        assert np.array_equal(table_agent_tables(*agent.tables()).uncover, fast.uncover)


# --------------------------------------------------------------------------
# The optimal agent


def random_states(count: int, num_players: int, seed: int) -> list[tuple[neighbor.NeighborState, int]]:
    """Decision states of random games (CHOOSE and UNCOVER with a choice), with the seat to act."""
    config = make_config(num_players=num_players)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = neighbor.new_game(config)
        neighbor.play_forced(state, rng)
        while not state.over and len(out) < count:
            legal = neighbor.legal_actions(state)
            out.append((neighbor.clone(state), state.current))
            neighbor.apply_action(state, int(rng.choice(legal)), rng)
            neighbor.play_forced(state, rng)
    return out


@pytest.mark.parametrize("agent_class", [OptimalAgent, NeighborHeuristic])
def test_batched_decisions_are_the_agents_own(agent_class, solution) -> None:
    """``act_batch`` on observations decides as ``act`` on the state, at 3,000 decision states (the
    heuristic at 2 to 5 players, optimal at 2), and only legal actions."""
    agent = agent_class()
    for num_players in (2,) if agent_class is OptimalAgent else (2, 3, 5):
        config = make_config(num_players=num_players)
        observer = NeighborObserver(config)
        states = random_states(1000 if num_players > 2 else 3000, num_players, seed=num_players)
        views = [SeatView(state, seat, observer, NEIGHBOR) for state, seat in states]
        one_by_one = [agent.act(view, np.random.default_rng(0)) for view in views]
        assert all(action in view.legal_actions for action, view in zip(one_by_one, views))
        observations = np.stack([view.observation for view in views])
        masks = np.stack([view.action_mask for view in views])
        assert agent.act_batch(observations, masks, [None] * len(views)).tolist() == one_by_one


def test_optimal_refuses_other_player_counts() -> None:
    agent = make_agent("optimal", "help_your_neighbor")
    with pytest.raises(ValueError, match="two players"):
        agent.check_config(make_config(num_players=3))
    with pytest.raises(ValueError, match="plays help_your_neighbor, not trash"):
        from trash_env.trash.config import make_config as trash_config

        agent.check_config(trash_config())
    with pytest.raises(ValueError, match="two players"):
        run_pairings(make_config(num_players=4), [("optimal", "heuristic")], 2)


@pytest.mark.slow
def test_sampled_play_matches_the_exact_values(solution) -> None:
    """On the real engine (the rules core, R12 dice), 3,000 duplicate deals: optimal against itself
    wins as first roller as often as the solved value says, and optimal against heuristic scores
    the exact expected difference, each within its 95% interval."""
    config = make_config(num_players=2)
    results = run_pairings(config, [("optimal", "heuristic")], 3000, seed=11, workers=2)
    pair = pair_summaries(results)[0].score_difference
    tables = {name: decision_tables(make_agent(name, "help_your_neighbor")) for name in ("optimal", "heuristic")}
    exact = exact_pair(("optimal", tables["optimal"]), ("heuristic", tables["heuristic"]))
    assert pair.low <= exact.score_difference <= pair.high, (pair, exact.score_difference)
    assert exact.score_difference > 0
    assert not any(game.truncated for game in results)

    mirror = run_pairings(config, [("optimal", "optimal")], 3000, seed=12, duplicate=False)
    first_wins = np.array([game.rewards[0] > 0 for game in mirror], dtype=float)
    half = 1.96 * first_wins.std(ddof=1) / np.sqrt(len(first_wins))
    assert abs(first_wins.mean() - solution.value[0, 0]) <= half


@pytest.mark.slow
def test_gap_of_optimal_is_zero_and_of_random_is_large(solution) -> None:
    """Optimal loses nothing to itself in any kind of decision; random loses in both kinds."""
    none = gap_to_optimal(OptimalAgent(), examples=0, kinds=("all",))
    assert abs(none["all"]["score_loss_per_deal"]) < 1e-9
    lots = gap_to_optimal(RandomAgent(), examples=2, games=200, kinds=("roll_or_end", "uncover"))
    assert lots["roll_or_end"]["score_loss_per_deal"] > 0.05 and lots["uncover"]["score_loss_per_deal"] > 0.05
    assert lots["examples"] and all(example["loss"] > 0 for example in lots["examples"])
