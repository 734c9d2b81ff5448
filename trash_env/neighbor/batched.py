"""A batched Help Your Neighbor engine: B games of one configuration stepped in lockstep over arrays.

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

from trash_env.counter_rng import _mulhilo, philox_random  # _mulhilo: the 64x64-bit product both generators use
from trash_env.jit import HAVE_NUMBA, kernel_call, njit, prange
from trash_env.neighbor import rules as core
from trash_env.neighbor.observation import NeighborObserver
from trash_env.neighbor.rules import NeighborConfig

# The state of a game is one row of an int16 array (``NeighborBatch.state``, [B, WIDTH]): the scalar
# fields, then per seat its covered markers as a bit set (bit j: the marker of TOTALS[j]) and the
# markers it has left, sized for 8 seats so every offset is a compile-time constant.
PHASE, CUR, TURN, ROLL, ROLLER, HELPER, PRIV, WINNER, TRUNC, LEARNER = range(10)
NUM_FIELDS = 10
MAX_SEATS = core.MAX_PLAYERS
COV = NUM_FIELDS  # [seat]: covered markers, bit j for TOTALS[j]
LEFT = COV + MAX_SEATS  # [seat]: markers still uncovered (R12: 0 wins)
WIDTH = LEFT + MAX_SEATS
MAX_TURNS = np.iinfo(np.int16).max  # the turn count is an int16 cell

# The configuration as an int64 array ``rules``.
KP, KMAXT, KEXACT = range(3)
RULES_WIDTH = 3

ROLL_PHASE, CHOOSE, UNCOVER, OVER = core.ROLL, core.CHOOSE, core.UNCOVER, core.OVER
ROLL_DICE, END_TURN, UNCOVER_0, NUM_ACTIONS = core.ROLL_DICE, core.END_TURN, core.UNCOVER_0, core.NUM_ACTIONS
NUM_MARKERS, NOBODY, SEVEN = core.NUM_MARKERS, core.NOBODY, core.SEVEN
MARKER_OF_TOTAL = np.array([core.MARKER_OF_TOTAL.get(total, -1) for total in range(13)], np.int64)
MARKER_WAYS = np.array([core.WAYS[total] for total in core.TOTALS], np.int64)  # ways in 36 to roll each marker

# In-engine policies (vectorised baselines); EXTERNAL seats are asked by the caller. "random" is RANDOM
# in fast mode (the game's xorshift) and KEYED_RANDOM in exact mode (RandomAgent's draws from each
# seat's keyed Philox stream, ``streams``).
EXTERNAL, RANDOM, HEURISTIC, ROLLER_POLICY, OPTIMAL, KEYED_RANDOM = -1, 0, 1, 2, 3, 4
ANY_ASKED = -2  # _advance's stop_seat: the first move of any EXTERNAL seat
# Codes from ASKED_FROM on are opponents asked by the caller too (frozen policy snapshots of a
# single-agent batch, NeighborVecEnv): ASKED_FROM + k is the caller's k-th such opponent.
ASKED_FROM = 16
POLICY_CODES = {"random": RANDOM, "heuristic": HEURISTIC, "roller": ROLLER_POLICY, "optimal": OPTIMAL}
# A seat's keyed stream in exact mode (``NeighborBatch.streams`` [B, MAX_SEATS, 3], uint64): its Philox
# key (two words, ``trash_env.counter_rng``) and how many draws it has made.
KEY0, KEY1, DRAWS = range(3)
PARALLEL_FROM = 256  # batch sizes from which NeighborBatch steps games on all of Numba's threads

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


def _wrapping() -> Any:
    """Around every call of the kernels: the first one's compile notice, overflow warnings off."""
    return kernel_call("the Help Your Neighbor batched engine")


def _threads() -> int:
    """Numba's thread count (1 without Numba, or in a worker process limited to one thread)."""
    if not HAVE_NUMBA:
        return 1
    import numba

    return numba.get_num_threads()


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


@njit(cache=True)
def _below(rs: np.ndarray, b: int, n: int) -> int:
    """A uniform integer 0..n-1 from game ``b``'s own generator (xorshift64*, fast mode), so a game's
    randomness does not depend on the other games or on threads."""
    x = rs[b]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rs[b] = x
    return int((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(33)) % n


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
def _nth_legal(mask: np.ndarray, k: int) -> int:
    """The ``k``-th legal action (from 0) in increasing order: ``legal_actions(state)[k]``."""
    for a in range(NUM_ACTIONS):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def _keyed_draw(ks: np.ndarray, b: int, seat: int) -> float:
    """The next ``random()`` of game ``b``'s seat ``seat`` from its keyed stream (exact mode): draw
    number DRAWS of Philox(KEY0, KEY1), as NumPy's generator over that key would give it."""
    index = ks[b, seat, DRAWS]
    ks[b, seat, DRAWS] = index + np.uint64(1)
    return philox_random(ks[b, seat, KEY0], ks[b, seat, KEY1], index)


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
def _policy(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    tables: tuple,
    b: int,
    code: int,
    mask: np.ndarray,
    count: int,
) -> int:
    """The choice of in-engine policy ``code`` for game ``b``'s acting seat among the ``count`` legal
    actions of ``mask``: random draws from the fast mode's generators ``rs`` or, in exact mode, from
    the seat's keyed stream in ``ks``; heuristic, roller and optimal draw nothing."""
    if code == RANDOM:
        return _nth_legal(mask, _below(rs, b, count))
    seat = g[b, CUR]
    if code == KEYED_RANDOM:  # agents.baselines.RandomAgent: legal[int(rng.random() * len(legal))]
        return _nth_legal(mask, int(_keyed_draw(ks, b, seat) * count))
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
def _advance(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    d: np.ndarray,
    tables: tuple,
    b: int,
    policies: np.ndarray,
    stop_seat: int,
    mask: np.ndarray,
) -> int:
    """Play forced moves (R14) and in-engine policies until an asked seat has a real choice, or
    (``stop_seat`` a seat, or ANY_ASKED for every EXTERNAL seat) until that seat has any move, or the
    game is over. Returns the number of legal actions of the seat asked (0 when over)."""
    while g[b, PHASE] != OVER:
        seat = g[b, CUR]
        action = _forced(g, b)
        stop = seat == stop_seat or (stop_seat == ANY_ASKED and policies[b, seat] == EXTERNAL)
        if stop or action < 0:
            count = _legal(g, b, mask)
            if stop:
                return count
            code = policies[b, seat]
            if code == EXTERNAL or code >= ASKED_FROM:
                return count
            action = _policy(g, r, rs, ks, tables, b, code, mask, count)
        _apply(g, r, d, b, action)
    return 0


@njit(cache=True)
def _new_episode(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    d: np.ndarray,
    start: np.ndarray,
    b: int,
    policies: np.ndarray,
    pool: np.ndarray,
    learner: int,
) -> None:
    """A new game in slot ``b`` (fast mode), its dice generator's state kept (``start``) for R14's
    replay. With a pool of opponent policies (a single-agent batch): the learner's seat is ``learner``
    or drawn, every other seat draws a policy."""
    for i in range(DICE_WIDTH):
        start[b, i] = d[b, i]
    _new_game(g, r, b)
    if len(pool) == 0:
        g[b, LEARNER] = -1
        return
    if learner < 0:
        learner = _below(rs, b, r[KP])
    g[b, LEARNER] = learner
    for seat in range(r[KP]):
        policies[b, seat] = EXTERNAL if seat == learner else pool[_below(rs, b, len(pool))]


@njit(cache=True)
def _first_choice(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    d: np.ndarray,
    start: np.ndarray,
    tables: tuple,
    b: int,
    policies: np.ndarray,
    mask: np.ndarray,
) -> int:
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
        count = _advance(g, r, rs, ks, d, tables, b, policies, learner if learner >= 0 else ANY_ASKED, mask)
    return count


@njit(cache=True)
def _step_one(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    d: np.ndarray,
    start: np.ndarray,
    tables: tuple,
    b: int,
    actions: np.ndarray,
    policies: np.ndarray,
    pool: np.ndarray,
    learner: int,
    out: tuple,
) -> None:
    """One step of game ``b``: apply its action (-1: none), play forced moves and in-engine policies
    (R14), and write its acting seat, observation and mask. A game that ends gets its rewards (R12),
    ``dones`` and ``truncs``, its learner's reward and final observation; in fast mode it is dealt
    again at once (the observation is then the new game's). ``status``: the asked seat's number of
    legal actions, 0 once over (exact mode)."""
    obs, masks, rewards, dones, seats, status, truncs, learner_rewards, final_obs = out
    dones[b] = False
    for seat in range(r[KP]):
        rewards[b, seat] = 0.0
    if actions[b] >= 0:
        _apply(g, r, d, b, actions[b])
    count = _advance(g, r, rs, ks, d, tables, b, policies, -1, masks[b])
    if count == 0:
        _returns(g, r, b, rewards[b])
        dones[b] = True
        truncs[b] = g[b, TRUNC] != 0
        ended = g[b, LEARNER]
        if ended >= 0:
            learner_rewards[b] = rewards[b, ended]
            _encode(g, r, b, ended, final_obs[b])
        if not r[KEXACT]:
            for _ in range(1000):  # a game in which the learner never moves is replaced (R14)
                _new_episode(g, r, rs, d, start, b, policies, pool, learner)
                count = _first_choice(g, r, rs, ks, d, start, tables, b, policies, masks[b])
                if count > 0:
                    break
    status[b] = count
    if count > 0:
        seats[b] = g[b, CUR]
        _encode(g, r, b, g[b, CUR], obs[b])


@njit(cache=True)
def _step_games(g, r, rs, ks, d, start, tables, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, one after another."""
    for b in games:
        _step_one(g, r, rs, ks, d, start, tables, b, actions, policies, pool, learner, out)


@njit(cache=True, parallel=True)
def _step_games_parallel(g, r, rs, ks, d, start, tables, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, spread over Numba's threads (each game has its own
    generators, so the result does not depend on the threads)."""
    for i in prange(len(games)):
        _step_one(g, r, rs, ks, d, start, tables, games[i], actions, policies, pool, learner, out)


@njit(cache=True)
def _start_games(g, r, rs, ks, d, start, tables, games, policies, pool, learner, masks) -> None:
    """New games in the given slots: fast mode advances each to its first choice (R14); exact mode
    sets the game up, and the first step (with no action) advances it."""
    for b in games:
        if r[KEXACT]:
            _new_game(g, r, b)
            g[b, LEARNER] = -1
            continue
        for _ in range(1000):
            _new_episode(g, r, rs, d, start, b, policies, pool, learner)
            if _first_choice(g, r, rs, ks, d, start, tables, b, policies, masks[b]) > 0:
                break


@njit(cache=True)
def _observe_games(g, r, games, obs, masks, seats, status) -> None:
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


class NeighborBatch:
    """B games of one Help Your Neighbor configuration in lockstep (see the module docstring).

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

    def __init__(
        self,
        config: NeighborConfig,
        batch_size: int,
        seed: int | None = None,
        exact: bool = False,
        policies: list[Any] | None = None,
        opponents: list[str] | None = None,
        learner_seat: int | None = None,
        parallel: bool | None = None,
        optimal_tables: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if not isinstance(config, NeighborConfig):
            raise ValueError(f"the Help Your Neighbor engine plays a NeighborConfig, got {config!r}")
        p = config.num_players
        if config.max_turns > MAX_TURNS:
            raise ValueError(f"max_turns={config.max_turns}: the batched engine counts turns up to {MAX_TURNS}")
        if opponents is not None and (exact or policies is not None):
            raise ValueError("opponents (a single-agent batch) go with neither exact=True nor policies")
        if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in range(p)):
            raise ValueError(f"learner_seat={learner_seat!r} must be None or a seat 0..{p - 1}")
        self.config = config
        self.batch_size = batch_size
        self.exact = exact
        self.rules = np.array([p, config.max_turns, int(exact)], np.int64)
        self.state = np.zeros((batch_size, WIDTH), np.int16)
        self.observer = NeighborObserver(config)
        self.obs = np.zeros((batch_size, self.observer.size), np.float32)
        self.masks = np.zeros((batch_size, NUM_ACTIONS), np.int8)
        self.rewards = np.zeros((batch_size, p), np.float32)
        self.dones = np.zeros(batch_size, np.bool_)
        self.seats = np.zeros(batch_size, np.int64)
        self.status = np.zeros(batch_size, np.int64)
        self.truncs = np.zeros(batch_size, np.bool_)
        self.learner_rewards = np.zeros(batch_size, np.float32)
        self.final_obs = np.zeros((batch_size, self.observer.size), np.float32)
        self._out = (
            self.obs,
            self.masks,
            self.rewards,
            self.dones,
            self.seats,
            self.status,
            self.truncs,
            self.learner_rewards,
            self.final_obs,
        )
        self.policies = policy_codes(policies, batch_size, p)
        if exact:  # exact mode's random is RandomAgent's, from each seat's keyed stream (reset's draw_keys)
            self.policies[self.policies == RANDOM] = KEYED_RANDOM
        self.streams = np.zeros((batch_size, MAX_SEATS, 3), np.uint64)
        if not exact and opponents is None and ((self.policies != EXTERNAL).all(axis=1)).any():
            raise ValueError("policies: in fast mode every game needs a seat that is asked (None); use exact=True")
        self.tables = _NO_TABLES if optimal_tables is None else _as_tables(optimal_tables)
        self.pool = np.zeros(0, np.int64)
        if opponents is not None:
            if not len(opponents):
                raise ValueError("opponents must name at least one baseline")
            self.set_pool([_code(name, "opponents") for name in opponents])
        self._check_optimal(self.policies)
        self.learner = -1 if learner_seat is None else int(learner_seat)
        self._all = np.arange(batch_size)
        self._no_actions = np.full(batch_size, -1, np.int64)
        self.dice = np.zeros((batch_size, DICE_WIDTH), np.uint64)
        self.dice_start = np.zeros((batch_size, DICE_WIDTH), np.uint64)
        self.seed(seed)
        # Threads pay off from a few hundred games on; the results are the same.
        self.parallel = (batch_size >= PARALLEL_FROM and _threads() > 1) if parallel is None else bool(parallel)

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
        """A single-agent batch's opponent pool as engine codes: in-engine baselines (``POLICY_CODES``)
        or ``ASKED_FROM + k`` for opponents the caller asks (``NeighborVecEnv``'s policy snapshots).
        Games dealt from now on draw from it."""
        pool = np.asarray(codes, np.int64)
        if not len(pool) or ((pool < 0) | ((pool >= len(POLICY_CODES)) & (pool < ASKED_FROM))).any():
            raise ValueError(f"opponent codes {list(codes)} are neither in-engine baselines nor ASKED_FROM + k")
        self._check_optimal(pool)
        self.pool = pool

    def seed(self, seed: int | None) -> None:
        """Each game's own generators for fast mode: the xorshift of its seatings and ``random``
        choices, and the PCG64 state its dice start from (exact mode's come from ``reset``'s seeds)."""
        rng = np.random.default_rng(seed)
        self.rng_state = rng.integers(1, 2**63, size=self.batch_size, dtype=np.uint64)
        self.dice[:, : INC_LO + 1] = rng.integers(0, 2**64, size=(self.batch_size, 4), dtype=np.uint64)
        self.dice[:, INC_LO] |= np.uint64(1)  # PCG64's increment is odd
        self.dice[:, HAS_UINT32:] = 0

    def reset(self, seeds: list[Any] | None = None, draw_keys: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game; returns (observations, masks) of the acting seats. In exact mode ``seeds``
        (one per game, anything ``numpy.random.default_rng`` takes) give each game the dice of that
        generator, and ``draw_keys`` ([B, num_players, 2] integers below 2**64) are the Philox keys the
        in-engine ``random`` of each game's seats draws from: seat s of game b decides as
        ``RandomAgent`` with the generator ``trash_env.counter_rng.keyed_generator(draw_keys[b, s])``
        (needed only where a seat plays ``random``; the streams start again at their first draw)."""
        g, r = self.state, self.rules
        self.dones[:] = False
        self.rewards[:] = 0.0
        if self.exact:
            if seeds is None or len(seeds) != self.batch_size:
                raise ValueError(f"exact mode needs one seed per game ({self.batch_size})")
            self._set_streams(draw_keys)
            words: dict[Any, np.ndarray] = {}  # the games of a duplicate deal share its seed
            for b, seed in enumerate(seeds):
                key = tuple(seed) if isinstance(seed, (list, tuple)) else seed
                if key not in words:
                    words[key] = dice_words(seed)
                self.dice[b] = words[key]
            with _wrapping():
                self._start()
            self._kernel(self._all, self._no_actions)
            return self.obs, self.masks
        with _wrapping():
            self._start()
        _observe_games(g, r, self._all, self.obs, self.masks, self.seats, self.status)
        self._check_learner_moves()
        return self.obs, self.masks

    def _start(self) -> None:
        _start_games(
            self.state,
            self.rules,
            self.rng_state,
            self.streams,
            self.dice,
            self.dice_start,
            self.tables,
            self._all,
            self.policies,
            self.pool,
            self.learner,
            self.masks,
        )

    def _set_streams(self, draw_keys: Any) -> None:
        """Exact mode: every seat's keyed stream at its first draw, from ``draw_keys``."""
        p = self.config.num_players
        self.streams[:] = 0
        if draw_keys is None:
            if (self.policies == KEYED_RANDOM).any():
                raise ValueError("exact mode's in-engine random draws from keyed streams: reset(seeds, draw_keys=...)")
            return
        keys = np.asarray(draw_keys, dtype=np.uint64)
        if keys.shape != (self.batch_size, p, 2):
            raise ValueError(f"draw_keys: one Philox key (two words) per game and seat, {(self.batch_size, p, 2)}")
        self.streams[:, :p, KEY0 : KEY1 + 1] = keys

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game, legal for its acting seat (``masks``; not checked here); -1 for a game
        that is over (exact mode). Returns (observations, masks, rewards [B, P], dones)."""
        actions = np.asarray(actions, dtype=np.int64)
        if self.exact:
            live = self._all[self.state[:, PHASE] != OVER]  # a finished game keeps its dones and rewards
            self._kernel(live, actions)
        else:
            self._kernel(self._all, actions)
            self._check_learner_moves()
        return self.obs, self.masks, self.rewards, self.dones

    def _kernel(self, games: np.ndarray, actions: np.ndarray) -> None:
        kernel = _step_games_parallel if self.parallel else _step_games
        with _wrapping():
            kernel(
                self.state,
                self.rules,
                self.rng_state,
                self.streams,
                self.dice,
                self.dice_start,
                self.tables,
                games,
                actions,
                self.policies,
                self.pool,
                self.learner,
                self._out,
            )

    def _check_learner_moves(self) -> None:
        """Fast mode: every game waits on an asked seat; a configuration where a thousand games in a
        row end before the learner moves (``max_turns`` too small for its seat) is an error."""
        if not self.status.all():
            b = int(np.flatnonzero(self.status == 0)[0])
            raise RuntimeError(
                f"no game in 1000 gave the learner a move (max_turns={self.config.max_turns} may end every "
                f"game before seat {int(self.state[b, LEARNER])} plays)"
            )

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

    def game_state(self, b: int) -> core.NeighborState:
        """Game ``b`` as a :class:`~trash_env.neighbor.rules.NeighborState` of the core (to render it
        with ``trash_env.neighbor.text.render_neighbor``, or to check it against the core). The rolls
        are not kept: ``rolls`` and ``dice`` are empty."""
        s = self.state[b]
        p = self.config.num_players
        state = core.NeighborState()
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


def _code(name: str, what: str) -> int:
    if name not in POLICY_CODES:
        raise ValueError(f"{what}: {name!r} is not an in-engine baseline ({sorted(POLICY_CODES)})")
    return POLICY_CODES[name]


def policy_codes(policies: list[Any] | None, batch_size: int, num_players: int) -> np.ndarray:
    """Per game and seat: EXTERNAL (None, asked) or the code of an in-engine baseline; ``policies`` is
    None, one name per seat, or one list of names per game."""
    codes = np.full((batch_size, num_players), EXTERNAL, np.int64)
    if policies is None:
        return codes
    rows = policies if policies and isinstance(policies[0], (list, tuple)) else [policies] * batch_size
    if len(rows) != batch_size or any(len(row) != num_players for row in rows):
        raise ValueError(f"policies: one name (or None) per seat ({num_players}), for one game or each of {batch_size}")
    seen: dict[tuple, list[int]] = {}  # an evaluation's games repeat a few lineups thousands of times
    for b, row in enumerate(rows):
        lineup = tuple(row)
        if lineup not in seen:
            seen[lineup] = [EXTERNAL if n is None else _code(n, f"policies[{seat}]") for seat, n in enumerate(row)]
        codes[b] = seen[lineup]
    return codes
