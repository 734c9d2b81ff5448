"""A batched Help Your Neighbor engine: B games of one configuration stepped in lockstep over arrays.

Long on purpose: the rules of R12 and R14 again as compiled loops, one function for each function of
the core it is checked against, with NumPy's PCG64 generator and its bounded draws reproduced bit for
bit; what both engines share is :mod:`trash_env.engine_host`.

The rules are those of :mod:`trash_env.neighbor.rules` (R12, R14), written again as Numba-compiled
loops over one int16 row per game, as :mod:`trash_env.trash.batched` does for Trash: one call applies
each game's action, plays forced moves (R14), lets in-engine players move, deals finished games again
and writes every game's observation (the layout of ``help_your_neighbor_v0``,
:class:`trash_env.neighbor.observation.NeighborObserver`) and action mask, for 2 to 8 players.
``tests/neighbor/test_neighbor_batched_engine.py`` plays the same dice and choices through this engine and the
core and compares states, acting seats, masks, observations, rewards and ends after every step.

The dice. The core rolls one ``rng.integers(36)`` per roll from a ``numpy.random.Generator``
(``default_rng(seed)``: PCG64). This engine computes that very stream itself: every game carries a
PCG64 state (128-bit state and increment, and the bit generator's spare 32-bit half) and draws its
rolls as NumPy does, a 32-bit output scaled by Lemire's method with its rejection step
(:func:`_two_dice`), bit for bit. So a game seeded as the core's generator is (``exact=True``:
``reset(seeds=[...])``, anything ``default_rng`` takes, the evaluation's deal seeds) rolls the same
dice as the core, without leaving compiled code, and after each roll its PCG64 state is the core
generator's (:meth:`NeighborBatch.dice_state`; tested). In fast mode (the default, for training)
each game's PCG64 state is drawn from ``seed`` and runs on from one episode to the next.

Players. Every seat is asked unless ``policies`` names an in-engine baseline for it: ``random``
(fast mode: the game's own xorshift64* generator; exact mode: ``agents.baselines.RandomAgent``
exactly, ``legal[int(rng.random() * len(legal))]`` from each seat's keyed Philox stream,
:mod:`trash_env.counter_rng`), ``heuristic`` and ``roller`` (``agents.heuristic``) and, for two
players, ``optimal`` (``agents.optimal``: a lookup of the solution's tables,
:mod:`trash_env.neighbor.solver`). With ``opponents`` the batch is single-agent, as
``HelpYourNeighborSingleAgent-v0``: one learner seat per game (fixed or drawn per episode), every
other seat drawn from the pool per episode; the learner is asked at its real choices only, its first
move is asked when it would have none in the whole game, and a game in which it would not move at
all is replaced by the next (R14, as R13).

Without Numba installed (the ``batched`` extra) the same functions run as plain Python: correct, and
about a hundred times slower.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trash_env import engine_host as host
from trash_env.counter_rng import _mulhilo  # the 64x64-bit product both generators use
from trash_env.engine_host import BatchHost, Kernels, RowLayout
from trash_env.jit import HAVE_NUMBA, njit, prange  # noqa: F401 (HAVE_NUMBA: the engine's own)
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.rules import NeighborConfig

# The state of a game is one row of an int16 array (``NeighborBatch.state``, [B, WIDTH]): the scalar
# fields, then per seat its covered markers as a bit set (bit j: the marker of TOTALS[j]) and the
# markers it has left, sized for 8 seats so every offset is a compile-time constant.
MAX_SEATS = neighbor.MAX_PLAYERS
ROW = RowLayout()
PHASE, CUR, TURN, ROLL, ROLLER, HELPER, PRIV, WINNER, TRUNC, LEARNER = ROW.fields(10)
NUM_FIELDS = ROW.width
COV = ROW.block(MAX_SEATS)  # [seat]: covered markers, bit j for TOTALS[j]
LEFT = ROW.block(MAX_SEATS)  # [seat]: markers still uncovered (R12: 0 wins)
WIDTH = ROW.width

# The configuration as an int64 array ``rules``.
RULES = RowLayout()
KP, KMAXT, KEXACT, KHOLD = RULES.fields(4)  # KHOLD: finished games wait (hold_finished)
RULES_WIDTH = RULES.width

ROLL_PHASE, CHOOSE, UNCOVER, OVER = neighbor.ROLL, neighbor.CHOOSE, neighbor.UNCOVER, neighbor.OVER
ROLL_DICE, END_TURN = neighbor.ROLL_DICE, neighbor.END_TURN
UNCOVER_0, NUM_ACTIONS = neighbor.UNCOVER_0, neighbor.NUM_ACTIONS
NUM_MARKERS, NOBODY, SEVEN = neighbor.NUM_MARKERS, neighbor.NOBODY, neighbor.SEVEN
MARKER_OF_TOTAL = np.array([neighbor.MARKER_OF_TOTAL.get(total, -1) for total in range(13)], np.int64)
MARKER_WAYS = np.array([neighbor.WAYS[total] for total in neighbor.TOTALS], np.int64)  # ways in 36 to roll each marker

# In-engine policies (vectorised baselines), beside the host's EXTERNAL (asked), RANDOM (fast mode: the
# game's xorshift) and KEYED_RANDOM (exact mode: RandomAgent's draws from each seat's keyed Philox stream,
# ``streams``); trash_env/engine_host.py.
HEURISTIC, ROLLER_POLICY, OPTIMAL = 1, 2, 3
POLICY_CODES = {"random": host.RANDOM, "heuristic": HEURISTIC, "roller": ROLLER_POLICY, "optimal": OPTIMAL}

# A game's dice generator (``NeighborBatch.dice`` [B, DICE_WIDTH], uint64): NumPy's PCG64, its 128-bit
# state and increment as high and low words, and the spare 32-bit half of its last 64-bit output.
STATE_HI, STATE_LO, INC_HI, INC_LO, HAS_UINT32, UINTEGER = range(6)
DICE_WIDTH = 6
# PCG64's multiplier (numpy/random/src/pcg64/pcg64.h, PCG_DEFAULT_MULTIPLIER_HIGH and _LOW).
MUL_HI, MUL_LO = np.uint64(2549297995355413924), np.uint64(4865540595714422341)
LOW32 = np.uint64(0xFFFFFFFF)
U0, U1, U32, U58, U63, U64 = (np.uint64(k) for k in (0, 1, 32, 58, 63, 64))
PAIRS = np.uint64(36)  # rng.integers(36): the two dice as one number 0..35
# Lemire's rejection threshold for a range of 36 ((2**32 - 36) % 36, numpy's buffered_bounded_lemire_uint32)
THRESHOLD = np.uint64((2**32 - 36) % 36)
WORD = 2**64


TITLE = "the Help Your Neighbor batched engine"


def dice_words(seed: Any) -> np.ndarray:
    """The PCG64 state of ``numpy.random.default_rng(seed)`` as the engine's DICE_WIDTH words."""
    return state_words(np.random.PCG64(seed).state)


def state_words(state: dict[str, Any]) -> np.ndarray:
    """A PCG64 ``bit_generator.state`` dict as the engine's DICE_WIDTH uint64 words."""
    inner = state["state"]
    words = [inner["state"] >> 64, inner["state"] % WORD, inner["inc"] >> 64, inner["inc"] % WORD]
    return np.array([*words, state["has_uint32"], state["uinteger"]], np.uint64)


def words_state(words: np.ndarray) -> dict[str, Any]:
    """The engine's DICE_WIDTH words as a PCG64 ``bit_generator.state`` dict (:func:`state_words` undone)."""
    w = [int(word) for word in words]
    return {
        "bit_generator": "PCG64",
        "state": {"state": w[STATE_HI] << 64 | w[STATE_LO], "inc": w[INC_HI] << 64 | w[INC_LO]},
        "has_uint32": w[HAS_UINT32],
        "uinteger": w[UINTEGER],
    }


# --------------------------------------------------------------------------
# The dice: NumPy's PCG64 and its bounded integers, computed here


@njit(cache=True)
def _pcg_next64(d: np.ndarray, b: int) -> np.uint64:
    """PCG64's next 64-bit output (XSL-RR of the state after one LCG step, ``pcg64_random_r``)."""
    hi, lo = d[b, STATE_HI], d[b, STATE_LO]
    product_hi, product_lo = _mulhilo(lo, MUL_LO)
    new_hi = product_hi + lo * MUL_HI + hi * MUL_LO  # state * multiplier mod 2**128
    new_lo = product_lo + d[b, INC_LO]
    if new_lo < product_lo:  # the carry of adding the increment
        new_hi += U1
    new_hi += d[b, INC_HI]
    d[b, STATE_HI] = new_hi
    d[b, STATE_LO] = new_lo
    rot = new_hi >> U58
    x = new_hi ^ new_lo
    return (x >> rot) | (x << ((U64 - rot) & U63))


@njit(cache=True)
def _pcg_next32(d: np.ndarray, b: int) -> np.uint64:
    """PCG64's next 32-bit output: the spare high half of the last 64-bit one, else the low half of
    a new one (``pcg64_next32``)."""
    if d[b, HAS_UINT32] != U0:
        d[b, HAS_UINT32] = U0
        return d[b, UINTEGER]
    value = _pcg_next64(d, b)
    d[b, HAS_UINT32] = U1
    d[b, UINTEGER] = value >> U32
    return value & LOW32


@njit(cache=True)
def _two_dice(d: np.ndarray, b: int) -> int:
    """core.roll_dice: ``rng.integers(36)`` as NumPy draws it (Lemire's method on 32-bit outputs,
    with its rejection step), as the total of two dice."""
    m = _pcg_next32(d, b) * PAIRS
    if (m & LOW32) < PAIRS:
        while (m & LOW32) < THRESHOLD:
            m = _pcg_next32(d, b) * PAIRS
    pair = np.int64(m >> U32)
    return pair // 6 + pair % 6 + 2


# --------------------------------------------------------------------------
# The rules, one game ``b`` at a time (each function cites the core's)


@njit(cache=True)
def _new_game(g: np.ndarray, r: np.ndarray, b: int) -> None:
    """core.new_game: every marker uncovered, seat 0 to roll (R12)."""
    g[b, PHASE] = ROLL_PHASE
    g[b, CUR] = 0
    g[b, TURN] = 0
    g[b, ROLL] = 0
    g[b, ROLLER] = NOBODY
    g[b, HELPER] = NOBODY
    g[b, PRIV] = NOBODY
    g[b, WINNER] = NOBODY
    g[b, TRUNC] = 0
    for seat in range(r[KP]):
        g[b, COV + seat] = 0
        g[b, LEFT + seat] = NUM_MARKERS


@njit(cache=True)
def _is_covered(g: np.ndarray, b: int, seat: int, j: int) -> bool:
    return (g[b, COV + seat] >> j) & 1 != 0


@njit(cache=True)
def _pass_turn(g: np.ndarray, r: np.ndarray, b: int, to: int) -> None:
    """core._pass_turn: the turn ends; a draw once max_turns turns have ended (R12, as R7)."""
    g[b, TURN] += 1
    g[b, CUR] = to
    g[b, PHASE] = ROLL_PHASE
    if g[b, TURN] >= r[KMAXT]:
        g[b, TRUNC] = 1
        g[b, PHASE] = OVER


@njit(cache=True)
def _cover(g: np.ndarray, b: int, seat: int, j: int) -> None:
    """core._cover: the first to cover all ten markers wins (R12)."""
    g[b, COV + seat] |= 1 << j
    g[b, LEFT + seat] -= 1
    if g[b, LEFT + seat] == 0:
        g[b, WINNER] = seat
        g[b, PHASE] = OVER


@njit(cache=True)
def _roll(g: np.ndarray, r: np.ndarray, b: int, total: int) -> None:
    """core._roll: what one roll of ``total`` does (R12)."""
    seat = g[b, CUR]
    n = r[KP]
    g[b, ROLL] = total
    g[b, ROLLER] = seat
    g[b, HELPER] = NOBODY
    if total == SEVEN:
        if g[b, LEFT + seat] < NUM_MARKERS:
            g[b, PHASE] = UNCOVER
        else:
            _pass_turn(g, r, b, (seat + 1) % n)
        return
    j = MARKER_OF_TOTAL[total]
    if not _is_covered(g, b, seat, j):
        _cover(g, b, seat, j)
        if g[b, PHASE] != OVER:
            g[b, PHASE] = CHOOSE
        return
    for step in range(1, n):
        neighbour = (seat + step) % n
        if not _is_covered(g, b, neighbour, j):
            g[b, HELPER] = neighbour
            g[b, PRIV] = neighbour
            _cover(g, b, neighbour, j)
            if g[b, PHASE] != OVER:
                _pass_turn(g, r, b, neighbour)
            return
    g[b, PHASE] = CHOOSE


@njit(cache=True)
def _apply(g: np.ndarray, r: np.ndarray, d: np.ndarray, b: int, action: int) -> None:
    """core._apply for a legal action (R14)."""
    if action == ROLL_DICE:
        _roll(g, r, b, _two_dice(d, b))
    elif action == END_TURN:
        _pass_turn(g, r, b, (g[b, CUR] + 1) % r[KP])
    else:
        seat = g[b, CUR]
        g[b, COV + seat] &= ~(1 << (action - UNCOVER_0))
        g[b, LEFT + seat] += 1
        _pass_turn(g, r, b, (seat + 1) % r[KP])


@njit(cache=True)
def _legal(g: np.ndarray, b: int, out: np.ndarray) -> int:
    """core.legal_actions as a 0/1 row ``out`` (R14); returns how many are legal."""
    for a in range(NUM_ACTIONS):
        out[a] = 0
    phase = g[b, PHASE]
    if phase == ROLL_PHASE:
        out[ROLL_DICE] = 1
        return 1
    if phase == CHOOSE:
        out[ROLL_DICE] = 1
        out[END_TURN] = 1
        return 2
    if phase == UNCOVER:
        seat = g[b, CUR]
        count = 0
        for j in range(NUM_MARKERS):
            if _is_covered(g, b, seat, j):
                out[UNCOVER_0 + j] = 1
                count += 1
        return count
    return 0


@njit(cache=True)
def _forced(g: np.ndarray, b: int) -> int:
    """core.forced_action (R14): the only legal action, or -1."""
    phase = g[b, PHASE]
    if phase == ROLL_PHASE:
        return ROLL_DICE
    if phase == UNCOVER and g[b, LEFT + g[b, CUR]] == NUM_MARKERS - 1:
        seat = g[b, CUR]
        for j in range(NUM_MARKERS):
            if _is_covered(g, b, seat, j):
                return UNCOVER_0 + j
    return -1


@njit(cache=True)
def _returns(g: np.ndarray, r: np.ndarray, b: int, out: np.ndarray) -> None:
    """core.returns (R12) into ``out`` [num_players]."""
    winner = g[b, WINNER]
    for seat in range(r[KP]):
        if g[b, PHASE] != OVER or winner == NOBODY:
            out[seat] = 0.0
        else:
            out[seat] = 1.0 if seat == winner else -1.0


@njit(cache=True)
def _encode(g: np.ndarray, r: np.ndarray, b: int, seat: int, out: np.ndarray) -> None:
    """NeighborObserver.encode of ``seat`` into ``out`` (the layout of help_your_neighbor_v0)."""
    n = r[KP]
    for i in range(out.shape[0]):
        out[i] = 0.0
    # phase 0-2, roll 3-13, current 14.., privilege, covered, left, turn
    current = 14
    privilege = current + n
    covered = privilege + n
    left = covered + n * NUM_MARKERS
    phase = g[b, PHASE]
    if phase != OVER:
        out[phase] = 1.0
        out[current + (g[b, CUR] - seat) % n] = 1.0
    if g[b, ROLL] != 0:
        out[3 + g[b, ROLL] - 2] = 1.0
    if g[b, PRIV] != NOBODY:
        out[privilege + (g[b, PRIV] - seat) % n] = 1.0
    for k in range(n):
        other = (seat + k) % n
        bits = g[b, COV + other]
        for j in range(NUM_MARKERS):
            if (bits >> j) & 1:
                out[covered + k * NUM_MARKERS + j] = 1.0
        out[left + k] = np.float32(g[b, LEFT + other] / NUM_MARKERS)
    out[left + n] = np.float32(g[b, TURN] / r[KMAXT])


# --------------------------------------------------------------------------
# Vectorised baselines (agents.baselines, agents.heuristic, agents.optimal), asked only at real choices


@njit(cache=True)
def _rolls_again(g: np.ndarray, r: np.ndarray, b: int, seat: int) -> bool:
    """NeighborHeuristic.rolls_again: the ways to cover an own marker are at least the ways to hand an
    opponent their last one (the first player after ``seat`` with the total uncovered, R12)."""
    n = r[KP]
    own = 0
    gives_game = 0
    for j in range(NUM_MARKERS):
        if not _is_covered(g, b, seat, j):
            own += MARKER_WAYS[j]
            continue
        for step in range(1, n):
            neighbour = (seat + step) % n
            if not _is_covered(g, b, neighbour, j):
                if g[b, LEFT + neighbour] == 1:
                    gives_game += MARKER_WAYS[j]
                break
    return own >= gives_game


@njit(cache=True)
def _likeliest_covered(g: np.ndarray, b: int, seat: int) -> int:
    """NeighborHeuristic's uncover after a 7: the covered marker most likely to be rolled, ties to the
    higher total."""
    best = -1
    best_ways = -1
    for j in range(NUM_MARKERS):
        if _is_covered(g, b, seat, j) and MARKER_WAYS[j] >= best_ways:
            best = j
            best_ways = MARKER_WAYS[j]
    return UNCOVER_0 + best


@njit(cache=True)
def _policy(g, r, rs, ks, tables, b, code, mask, count) -> int:
    """The choice of in-engine policy ``code`` for game ``b``'s acting seat among the ``count`` legal
    actions of ``mask``: random draws from the fast mode's generators ``rs`` or, in exact mode, from
    the seat's keyed stream in ``ks``; heuristic, roller and optimal draw nothing."""
    seat = g[b, CUR]
    choice = host.random_choice(rs, ks, b, seat, code, mask, count)
    if choice >= 0:
        return choice
    choosing = g[b, PHASE] == CHOOSE
    if code == OPTIMAL:  # agents.optimal.OptimalAgent: the solution's tables, [me, opp] bit sets
        roll_again, uncover = tables
        me = g[b, COV + seat]
        opp = g[b, COV + 1 - seat]
        if choosing:
            return ROLL_DICE if roll_again[me, opp] else END_TURN
        return UNCOVER_0 + uncover[me, opp]
    if choosing:
        if code == ROLLER_POLICY or _rolls_again(g, r, b, seat):
            return ROLL_DICE
        return END_TURN
    return _likeliest_covered(g, b, seat)


@njit(cache=True)
def _advance(g, r, rs, ks, d, tables, b, policies, stop_seat, mask) -> int:
    """Play forced moves (R14) and in-engine policies until an asked seat has a real choice, or
    (``stop_seat`` a seat, or ANY_ASKED for every EXTERNAL seat) until that seat has any move, or the
    game is over. Returns the number of legal actions of the seat asked (0 when over)."""
    while g[b, PHASE] != OVER:
        seat = g[b, CUR]
        action = _forced(g, b)
        stop = seat == stop_seat or (stop_seat == host.ANY_ASKED and policies[b, seat] == host.EXTERNAL)
        if stop or action < 0:
            count = _legal(g, b, mask)
            if stop:
                return count
            code = policies[b, seat]
            if code == host.EXTERNAL or code >= host.ASKED_FROM:
                return count
            action = _policy(g, r, rs, ks, tables, b, code, mask, count)
        _apply(g, r, d, b, action)
    return 0


@njit(cache=True)
def _first_choice(g, r, rs, ks, d, start, tables, b, policies, mask) -> int:
    """Advance a new game (fast mode) to its first real choice. R14 (as R13): if the whole game would
    pass without one, play the same game again (the same dice, the same random choices) and stop at
    the first move of the learner (of the first player when every seat is asked). Returns 0 only if
    the learner would not move at all: the caller deals the next game."""
    generator = rs[b]
    count = _advance(g, r, rs, ks, d, tables, b, policies, -1, mask)
    if count == 0:
        rs[b] = generator
        for i in range(DICE_WIDTH):
            d[b, i] = start[b, i]
        learner = g[b, LEARNER]
        _new_game(g, r, b)
        g[b, LEARNER] = learner
        count = _advance(g, r, rs, ks, d, tables, b, policies, learner if learner >= 0 else host.ANY_ASKED, mask)
    return count


@njit(cache=True)
def _deal_new(g, r, rs, ks, d, start, tables, b, policies, pool, learner, mask) -> int:
    """A new game in slot ``b`` (fast mode), its dice generator's state kept (``start``) for R14's
    replay, seated as :func:`seat_players` does, and advanced to its first real choice; a game in which
    the learner never moves is replaced (R14). Returns the number of legal actions there (0 only after
    REPLACEMENTS games in a row)."""
    for _ in range(host.REPLACEMENTS):
        for i in range(DICE_WIDTH):
            start[b, i] = d[b, i]
        _new_game(g, r, b)
        host.seat_players(g, rs, b, r[KP], LEARNER, policies, pool, learner)
        count = _first_choice(g, r, rs, ks, d, start, tables, b, policies, mask)
        if count > 0:
            return count
    return 0


@njit(cache=True)
def _step_one(g, r, rs, ks, extra, b, actions, policies, pool, learner, out) -> None:
    """One step of game ``b``: apply its action (-1: none), play forced moves and in-engine policies
    (R14), and write its acting seat, observation and mask. A game that ends gets its rewards (R12),
    ``dones`` and ``truncs``, its learner's reward and final observation; in fast mode it is dealt
    again at once (the observation is then the new game's). ``status``: the asked seat's number of
    legal actions, 0 once over (exact mode). ``extra``: the dice generators, where each episode's
    began, and the solution's two tables (flat: Numba's threads take tuples of arrays, not nested ones)."""
    d, start, roll_again, uncover = extra
    tables = (roll_again, uncover)
    obs, masks, rewards, dones, seats, status, _, _, final_obs = out
    dones[b] = False
    rewards[b] = 0.0
    if actions[b] >= 0:
        _apply(g, r, d, b, actions[b])
    count = _advance(g, r, rs, ks, d, tables, b, policies, -1, masks[b])
    if count == 0:
        _returns(g, r, b, rewards[b])
        ended = host.game_ended(g, b, TRUNC, LEARNER, out)
        if ended >= 0:
            _encode(g, r, b, ended, final_obs[b])
        if not r[KEXACT] and not r[KHOLD]:
            count = _deal_new(g, r, rs, ks, d, start, tables, b, policies, pool, learner, masks[b])
    status[b] = count
    if count > 0:
        seats[b] = g[b, CUR]
        _encode(g, r, b, g[b, CUR], obs[b])


# The kernels the host calls (trash_env.engine_host.Kernels), with the arguments of every engine's.


@njit(cache=True)
def _step_games(g, r, rs, ks, extra, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, one after another."""
    for b in games:
        _step_one(g, r, rs, ks, extra, b, actions, policies, pool, learner, out)


@njit(cache=True, parallel=True)
def _step_games_parallel(g, r, rs, ks, extra, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, spread over Numba's threads (each game has its own
    generators, so the result does not depend on the threads)."""
    for i in prange(len(games)):
        _step_one(g, r, rs, ks, extra, games[i], actions, policies, pool, learner, out)


@njit(cache=True)
def _start_games(g, r, rs, ks, extra, games, policies, pool, learner, masks) -> None:
    """New games in the given slots: fast mode advances each to its first choice (R14); exact mode
    sets the game up (its dice placed by reset), and the first step (with no action) advances it."""
    d, start, roll_again, uncover = extra
    tables = (roll_again, uncover)
    for b in games:
        if r[KEXACT]:
            _new_game(g, r, b)
            g[b, LEARNER] = -1
        else:
            _deal_new(g, r, rs, ks, d, start, tables, b, policies, pool, learner, masks[b])


@njit(cache=True)
def _observe_games(g, r, extra, games, obs, masks, seats, status) -> None:
    """Each game's acting seat, its mask, its number of legal actions and its observation."""
    for b in games:
        status[b] = _legal(g, b, masks[b])
        seats[b] = g[b, CUR]
        _encode(g, r, b, g[b, CUR], obs[b])


# --------------------------------------------------------------------------
# The batch


def optimal_tables() -> tuple[np.ndarray, np.ndarray]:
    """The two-player solution's policy as the engine's tables: [me, opp] bit sets of covered markers
    -> roll again (uint8), and -> the marker to uncover after a 7 (int8), as ``agents.optimal`` reads
    them (:meth:`trash_env.neighbor.solver.Solution.roll_again` and ``uncover``)."""
    from trash_env.neighbor.solver import load_solution

    solution = load_solution()
    return solution.roll_again(), solution.uncover()


_NO_TABLES = (np.zeros((1, 1), np.uint8), np.zeros((1, 1), np.int8))


def _as_tables(tables: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The solution's tables (:func:`optimal_tables`) as the compiled code reads them."""
    roll_again, uncover = tables
    size = 1 << NUM_MARKERS
    if np.shape(roll_again) != (size, size) or np.shape(uncover) != (size, size):
        raise ValueError(f"optimal_tables: two [{size}, {size}] tables (roll again; the marker to uncover)")
    return np.ascontiguousarray(roll_again, np.uint8), np.ascontiguousarray(uncover, np.int8)


class NeighborBatch(BatchHost):
    """B games of one Help Your Neighbor configuration in lockstep (see the module docstring), on the
    engines' host (:class:`~trash_env.engine_host.BatchHost`: reset, step, single-agent batches, exact
    mode).

    ``reset()`` starts every game; ``step(actions)`` applies one action per game (the acting seat's,
    ``seats``), plays forced moves (R14), starts finished games again, and returns the new
    observations, masks, the finished games' rewards (R12) and the done flags. Every seat is asked
    (as in ``help_your_neighbor_v0``) unless ``policies`` names an in-engine baseline for it: per
    seat (a list) or per game and seat (a [B, P] list of lists); names are ``"random"``,
    ``"heuristic"``, ``"roller"``, ``"optimal"`` (two players) or None (asked).

    With ``opponents`` (a list of baseline names) the batch is single-agent: one learner seat per
    game (``learner_seat``, or drawn per episode) is asked, every other seat draws an opponent from
    the list per episode and moves inside ``step``; a finished game's ``learner_rewards`` and
    ``final_obs`` (the learner's last observation) are set before it is dealt again.

    With ``exact=True`` each game rolls the dice of ``numpy.random.default_rng(seeds[b])``
    (``reset(seeds=[...])``) exactly as the core does, its ``random`` seats draw from their keyed
    Philox streams (``reset(draw_keys=...)``) exactly as ``RandomAgent`` does, and a finished game is
    not started again (``dones`` stays set; call ``reset``). ``optimal_tables`` are the solution's
    tables (:func:`optimal_tables`, loaded from the solver's cache when a seat plays ``optimal`` and
    none are given).
    ``parallel`` spreads the games over Numba's threads (default: from ``PARALLEL_FROM`` games);
    results do not depend on it.
    """

    title = TITLE
    config_type = NeighborConfig
    POLICY_CODES = POLICY_CODES
    num_actions = NUM_ACTIONS
    row_width = WIDTH
    phase_cell, learner_cell, turn_cell, trunc_cell, over = PHASE, LEARNER, TURN, TRUNC, OVER
    hold_cell = KHOLD
    kernels = Kernels(_step_games, _step_games_parallel, _start_games, _observe_games)

    def __init__(self, *args: Any, optimal_tables: tuple[np.ndarray, np.ndarray] | None = None, **kwargs: Any) -> None:
        """The arguments of :class:`~trash_env.engine_host.BatchHost`, and the solution's ``optimal_tables``."""
        self.tables = _NO_TABLES if optimal_tables is None else _as_tables(optimal_tables)
        super().__init__(*args, **kwargs)

    def _make_observer(self, config: NeighborConfig) -> NeighborObserver:
        return NeighborObserver(config)

    def _configure(self) -> None:
        self.rules = np.zeros(RULES_WIDTH, np.int64)
        self.rules[[KP, KMAXT, KEXACT]] = self.config.num_players, self.config.max_turns, int(self.exact)
        self._check_optimal(self.policies)

    def _allocate(self) -> None:
        self.dice = np.zeros((self.batch_size, DICE_WIDTH), np.uint64)
        self.dice_start = np.zeros((self.batch_size, DICE_WIDTH), np.uint64)

    def _extra(self) -> tuple:
        return self.dice, self.dice_start, *self.tables

    def _seed_more(self, rng: np.random.Generator) -> None:
        """The PCG64 state each game's dice start from in fast mode."""
        self.dice[:, : INC_LO + 1] = rng.integers(0, 2**64, size=(self.batch_size, 4), dtype=np.uint64)
        self.dice[:, INC_LO] |= np.uint64(1)  # PCG64's increment is odd
        self.dice[:, HAS_UINT32:] = 0

    def _deal_of(self, seed: Any) -> np.ndarray:
        return dice_words(seed)

    def _place_deal(self, b: int, words: np.ndarray) -> None:
        self.dice[b] = words

    def _check_optimal(self, codes: np.ndarray) -> None:
        """``optimal`` plays two players only; its tables are loaded (or taken as given) once needed."""
        if not (np.asarray(codes) == OPTIMAL).any():
            return
        if self.config.num_players != 2:
            raise ValueError(
                f"optimal is the solved game of two players; it cannot play {self.config.num_players} "
                "(use heuristic for more players)"
            )
        if self.tables is _NO_TABLES:
            self.tables = _as_tables(optimal_tables())

    def set_pool(self, codes: list[int]) -> None:
        self._check_optimal(np.asarray(codes))  # before the pool changes: a refused pool leaves it as it was
        super().set_pool(codes)

    def _copy_more(self, sources: np.ndarray, targets: np.ndarray) -> None:
        self.dice[targets] = self.dice[sources]

    def dice_state(self, b: int) -> dict[str, Any]:
        """Game ``b``'s dice generator as a NumPy ``PCG64`` state dict (``bit_generator.state``): in exact
        mode the core's generator's state after the same rolls."""
        return words_state(self.dice[b])

    def dice_generator(self, b: int, start: bool = False) -> np.random.Generator:
        """A NumPy generator at game ``b``'s dice state (``start``: where its episode began, fast mode):
        the rules core rolls with it the dice this engine rolls next."""
        generator = np.random.Generator(np.random.PCG64())
        generator.bit_generator.state = words_state(self.dice_start[b] if start else self.dice[b])
        return generator

    def place_state(self, b: int, state: neighbor.NeighborState) -> None:
        """Put the core's ``state`` (of this batch's configuration, not over) in slot ``b`` (fast mode),
        its seats all asked: :meth:`game_state` undone, for rollouts from a position (a local best
        response, :mod:`agents.evaluation.local_best_response`). The slot's dice generator runs on as it
        was; a finished game is dealt again as any other. Returns nothing; the next :meth:`step` applies
        the slot's action to it."""
        self._check_placeable(state)
        row = self.state[b]
        row[:] = 0
        row[[PHASE, CUR, TURN, ROLL, ROLLER, HELPER, PRIV]] = (
            state.phase, state.current, state.turn, state.roll, state.roller, state.helper, state.privileged
        )
        row[WINNER], row[TRUNC], row[LEARNER] = NOBODY, 0, -1
        for seat in range(state.num_players):
            row[COV + seat] = neighbor.covered_bits(state, seat)
            row[LEFT + seat] = state.left[seat]
        self.dones[b] = False

    def game_state(self, b: int) -> neighbor.NeighborState:
        """Game ``b`` as a :class:`~trash_env.neighbor.rules.NeighborState` of the core (to render it
        with ``trash_env.neighbor.text.render_neighbor``, or to check it against the core). The rolls
        are not kept: ``rolls`` and ``dice`` are empty."""
        s = self.state[b]
        p = self.config.num_players
        state = neighbor.NeighborState()
        state.config = self.config
        state.num_players = p
        state.covered = [[bool((int(s[COV + seat]) >> j) & 1) for j in range(NUM_MARKERS)] for seat in range(p)]
        state.left = [int(v) for v in s[LEFT : LEFT + p]]
        state.phase = int(s[PHASE])
        state.current = int(s[CUR])
        state.turn = int(s[TURN])
        state.roll = int(s[ROLL])
        state.roller = int(s[ROLLER])
        state.helper = int(s[HELPER])
        state.privileged = int(s[PRIV])
        state.dice = []
        state.rolls = []
        state.winners = [int(s[WINNER])] if state.phase == OVER and s[WINNER] != NOBODY else []
        state.truncated = bool(s[TRUNC])
        return state


policy_codes = NeighborBatch.policy_codes
