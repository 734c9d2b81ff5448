"""A batched Trash engine: B games of one configuration stepped in lockstep over arrays.

The rules are those of :mod:`trash_env.trash.rules` (R1-R10, R13), written again as
Numba-compiled loops over one int16 row per game, so that a
whole batch advances in one call: apply each game's action, play forced moves
(R13), let in-engine opponents move, reset finished games, and write every
game's observation (the layout of ``trash_v0``, :class:`trash_env.trash.observation.Observer`)
and action mask. ``tests/trash/test_batched_vs_core.py`` and ``tests/trash/test_batched_engine.py``
play the same decks and choices through this engine and the core and compare
acting seats, masks, observations, rewards and ends, for every preset, 2-8
players, hands and matches.

Randomness. With ``exact=False`` (the fast default) shuffles (new decks,
reshuffles R7, the deals of later hands R9) and the ``random`` policy draw
from each game's own small generator (xorshift64*, seeded from ``seed``), so
a game's course does not depend on the other games or on threads. With
``exact=True`` every game owns a ``numpy.random.Generator`` used exactly as
the core uses its generator (``rng.permutation`` for a deck, ``rng.shuffle``
for a reshuffle): the engine pauses a game where the core would draw, the
permutation is made in Python, and the game resumes. The same deck and
generator seed then give the same game as the core, reshuffles included;
pauses are rare (a reshuffle or a new hand), so exact mode costs little. In
exact mode the ``random`` policy is ``agents.baselines.RandomAgent`` exactly:
each seat draws from a counter-based stream, Philox4x64-10 keyed per game and
seat (``reset(seeds, draw_keys)``, :mod:`trash_env.counter_rng`), its k-th draw
computed here from (key, k) alone as NumPy's ``Generator(Philox(key)).random()``
gives it, so a seat that plays ``RandomAgent`` with that generator on the core
makes the same choices (the evaluation's streams, ``agents.evaluation.games``).

Without Numba installed (the ``batched`` extra) the same functions run as
plain Python: correct, and about a hundred times slower.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from trash_env.counter_rng import philox_random
from trash_env.jit import HAVE_NUMBA, kernel_call, njit, prange
from trash_env.trash import rules as core
from trash_env.trash.config import MAX_LAYOUT, RulesConfig
from trash_env.trash.observation import Observer

# The state of a game is one row of an int16 array (``TrashBatch.state``, [B, WIDTH]): the
# scalar fields first, then fixed-size blocks sized for the largest configuration (8 seats,
# three decks with Jokers), so every offset is a compile-time constant.
HELD, PHASE, CUR, TURN, HAND, HFIRST, NHW, FLEFT, STOCKN, DISCN, TRUNC, DRAWN, NWIN = range(13)
CONT, CONTFIRST, NEED, PERMN, TODO, LEARNER = range(13, 19)
NUM_FIELDS = 20
MAX_SEATS, MAX_DECK = 8, 3 * 54
UP = NUM_FIELDS  # [seat * 10 + slot]: FACE_DOWN, a rank, or ABSENT beyond the layout
DOWN = UP + MAX_SEATS * MAX_LAYOUT  # [seat * 10 + slot]: the card under a face-down slot
FD = DOWN + MAX_SEATS * MAX_LAYOUT  # [seat]: face-down slots
SIZES = FD + MAX_SEATS  # [seat]: layout size (R9)
WON = SIZES + MAX_SEATS  # [seat]: hands won
HW = WON + MAX_SEATS  # hand winners in order (NHW of them, R8)
WIN = HW + MAX_SEATS  # the rewarded seats once over (NWIN of them, R10)
KNOWN = WIN + MAX_SEATS  # [rank]: known to be in the stock (R15)
UNACC = KNOWN + 14  # [rank]: unaccounted for (R15)
STOCK = UNACC + 14  # the stock, top at STOCKN - 1
DISC = STOCK + MAX_DECK  # the discard pile, top at DISCN - 1
PERM = DISC + MAX_DECK  # a permutation (a deck or a reshuffle), made here or handed in
DECK = PERM + MAX_DECK  # the permutation the game was dealt from (R13's deal-again)
WIDTH = DECK + MAX_DECK

# The configuration as an int64 array ``rules``: scalars, then per-rank tables and the ordered deck.
KP, KL, KDD, KFINAL, KMATCH, KSTARTW, KMAXT, KD, KEXACT = range(9)
WILD = 16  # [rank]: 1 if wild (R6)
COPIES = WILD + 14  # [rank]: copies in the deck (R1)
ORDERED = COPIES + 14  # [i]: the configured cards in rank order
RULES_WIDTH = ORDERED + MAX_DECK

FACE_DOWN, NO_CARD, ABSENT = core.FACE_DOWN, core.NO_CARD, -2
DRAW, PLACE, OVER = core.DRAW, core.PLACE, core.OVER
NUM_ACTIONS, NUM_RANKS = core.NUM_ACTIONS, core.NUM_RANKS
DRAW_STOCK, TAKE_DISCARD, PLACE_SLOT_0, DISCARD = core.DRAW_STOCK, core.TAKE_DISCARD, core.PLACE_SLOT_0, core.DISCARD
DD_PLAYABLE, DD_ANY, DD_NEVER = 0, 1, 2
CONT_NONE, CONT_DEAL, CONT_DEAL_TRUNC = 0, 1, 2
OK, PAUSED = 0, 1
PARALLEL_FROM = 256  # batch sizes from which TrashBatch steps games on all of Numba's threads


def _wrapping() -> Any:
    """Around every call of the kernels: the first one's compile notice, overflow warnings off."""
    return kernel_call("the Trash batched engine")


# In-engine policies (vectorised baselines, ``agents.baselines``); EXTERNAL seats are asked by the caller.
# "random" is RANDOM in fast mode (the game's xorshift) and KEYED_RANDOM in exact mode (RandomAgent's
# draws from each seat's keyed Philox stream, ``streams``).
EXTERNAL, RANDOM, GREEDY, COUNTER, KEYED_RANDOM = -1, 0, 1, 2, 3
ANY_ASKED = -2  # _advance's stop_seat: the first move of any EXTERNAL seat
# Codes from ASKED_FROM on are opponents asked by the caller too (frozen policy snapshots of a
# single-agent batch, TrashVecEnv): ASKED_FROM + k is the caller's k-th such opponent.
ASKED_FROM = 16
POLICY_CODES = {"random": RANDOM, "greedy": GREEDY, "counter": COUNTER}
# A seat's keyed stream in exact mode (``TrashBatch.streams`` [B, MAX_SEATS, 3], uint64): its Philox
# key (two words, ``trash_env.counter_rng``) and how many draws it has made.
KEY0, KEY1, DRAWS = range(3)


def _threads() -> int:
    """Numba's thread count (1 without Numba, or in a worker process limited to one thread)."""
    if not HAVE_NUMBA:
        return 1
    import numba

    return numba.get_num_threads()


def make_rules(config: RulesConfig, exact: bool) -> np.ndarray:
    """The configuration as the int64 array the compiled code reads."""
    rules = np.zeros(RULES_WIDTH, np.int64)
    rules[KP] = config.num_players
    rules[KL] = config.layout_size
    rules[KDD] = {"playable": DD_PLAYABLE, "any": DD_ANY, "never": DD_NEVER}[config.discard_draw]
    rules[KFINAL] = config.final_turn
    rules[KMATCH] = config.match
    rules[KSTARTW] = config.starter == "winner"
    rules[KMAXT] = config.max_turns
    rules[KD] = config.deck_size
    rules[KEXACT] = exact
    rules[WILD : WILD + NUM_RANKS] = config.is_wild
    rules[COPIES : COPIES + NUM_RANKS] = config.copies_per_rank
    rules[ORDERED : ORDERED + config.deck_size] = config.ordered_deck
    return rules


class GameArrays(NamedTuple):
    """Views of a batch's state by field (for tests and inspection), shaped per game."""

    s: np.ndarray  # [B, NUM_FIELDS]
    up: np.ndarray  # [B, P, 10]
    down: np.ndarray  # [B, P, 10]
    fd: np.ndarray  # [B, P]
    sizes: np.ndarray
    won: np.ndarray
    hw: np.ndarray
    winners: np.ndarray
    known: np.ndarray  # [B, 14]
    unacc: np.ndarray
    stock: np.ndarray  # [B, D]
    disc: np.ndarray
    perm: np.ndarray


def field_views(state: np.ndarray, config: RulesConfig) -> GameArrays:
    p, d, b = config.num_players, config.deck_size, state.shape[0]
    blocks = state[:, UP:DOWN].reshape(b, MAX_SEATS, MAX_LAYOUT), state[:, DOWN:FD].reshape(b, MAX_SEATS, MAX_LAYOUT)
    return GameArrays(
        s=state[:, :NUM_FIELDS],
        up=blocks[0][:, :p],
        down=blocks[1][:, :p],
        fd=state[:, FD : FD + p],
        sizes=state[:, SIZES : SIZES + p],
        won=state[:, WON : WON + p],
        hw=state[:, HW : HW + p],
        winners=state[:, WIN : WIN + p],
        known=state[:, KNOWN : KNOWN + NUM_RANKS],
        unacc=state[:, UNACC : UNACC + NUM_RANKS],
        stock=state[:, STOCK : STOCK + d],
        disc=state[:, DISC : DISC + d],
        perm=state[:, PERM : PERM + d],
    )


# --------------------------------------------------------------------------
# The rules, one game ``b`` at a time (each function cites the core's)


@njit(cache=True)
def _below(rs: np.ndarray, b: int, n: int) -> int:
    """A uniform integer 0..n-1 from game ``b``'s own generator (xorshift64*), so a game's
    randomness does not depend on the other games or on threads."""
    x = rs[b]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rs[b] = x
    return int((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(33)) % n


@njit(cache=True)
def _internal_perm(g: np.ndarray, rs: np.ndarray, b: int, n: int) -> None:
    """A uniform permutation of 0..n-1 into the game's PERM cells (Fisher-Yates, the game's generator)."""
    for i in range(n):
        g[b, PERM + i] = i
    for i in range(n - 1, 0, -1):
        j = _below(rs, b, i + 1)
        g[b, PERM + i], g[b, PERM + j] = g[b, PERM + j], g[b, PERM + i]


@njit(cache=True)
def _take_perm(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int, n: int) -> bool:
    """Make the game's PERM cells a permutation of n: at once (fast mode), or the one handed
    in (exact mode); False if exact mode must pause for it (NEED = n)."""
    if not r[KEXACT]:
        _internal_perm(g, rs, b, n)
        return True
    if g[b, PERMN] == n:
        g[b, PERMN] = 0
        return True
    g[b, NEED] = n
    return False


@njit(cache=True)
def _deal(g: np.ndarray, r: np.ndarray, b: int, first: int) -> None:
    """core._deal with the deck ``ordered[perm]`` (R3)."""
    n_players = r[KP]
    maxsize = 0
    for seat in range(n_players):
        if g[b, SIZES + seat] > maxsize:
            maxsize = g[b, SIZES + seat]
        g[b, FD + seat] = g[b, SIZES + seat]
        for i in range(MAX_LAYOUT):
            g[b, UP + (seat) * MAX_LAYOUT + i] = FACE_DOWN if i < g[b, SIZES + seat] else ABSENT
    position = 0
    for slot in range(maxsize):
        for k in range(n_players):
            seat = (first + k) % n_players
            if slot < g[b, SIZES + seat]:
                g[b, DOWN + (seat) * MAX_LAYOUT + slot] = r[ORDERED + g[b, PERM + position]]
                position += 1
    n = r[KD] - position
    for i in range(n):
        g[b, STOCK + i] = r[ORDERED + g[b, PERM + r[KD] - 1 - i]]
    g[b, STOCKN] = n
    g[b, DISCN] = 0
    g[b, HELD] = NO_CARD
    g[b, PHASE] = DRAW
    g[b, CUR] = first
    g[b, HFIRST] = first
    g[b, NHW] = 0
    g[b, FLEFT] = 0
    for rank in range(NUM_RANKS):
        g[b, KNOWN + rank] = 0
        g[b, UNACC + rank] = r[COPIES + rank]


@njit(cache=True)
def _new_game(g: np.ndarray, r: np.ndarray, b: int) -> None:
    """core.new_game with the deck ``ordered[perm]``: seat 0 first (R3)."""
    for seat in range(r[KP]):
        g[b, SIZES + seat] = r[KL]
        g[b, WON + seat] = 0
    g[b, TURN] = 0
    g[b, HAND] = 0
    g[b, NWIN] = 0
    g[b, TRUNC] = 0
    g[b, DRAWN] = 0
    g[b, CONT] = CONT_NONE
    g[b, NEED] = 0
    g[b, PERMN] = 0
    g[b, TODO] = -1
    _deal(g, r, b, 0)


@njit(cache=True)
def _can_place(g: np.ndarray, r: np.ndarray, b: int, seat: int, card: int) -> bool:
    """core.can_place (R5)."""
    if r[WILD + card]:
        return g[b, FD + seat] > 0
    if card < 1 or card > g[b, SIZES + seat]:  # (separate tests: a chained `and` is slow in Numba)
        return False
    return g[b, UP + (seat) * MAX_LAYOUT + card - 1] != card


@njit(cache=True)
def _may_take_discard(g: np.ndarray, r: np.ndarray, b: int) -> bool:
    """core._may_take_discard (R4.1)."""
    n = g[b, DISCN]
    if n == 0:
        return False
    if r[KDD] == DD_ANY:
        return True
    if r[KDD] == DD_PLAYABLE:
        return _can_place(g, r, b, g[b, CUR], g[b, DISC + n - 1])
    return False


@njit(cache=True)
def _legal(g: np.ndarray, r: np.ndarray, b: int, out: np.ndarray) -> int:
    """core.legal_actions as a 0/1 row ``out`` (R13); returns how many are legal."""
    for a in range(NUM_ACTIONS):
        out[a] = 0
    phase = g[b, PHASE]
    if phase == DRAW:
        out[DRAW_STOCK] = 1
        if _may_take_discard(g, r, b):
            out[TAKE_DISCARD] = 1
            return 2
        return 1
    if phase == OVER:
        return 0
    card = g[b, HELD]
    seat = g[b, CUR]
    if r[WILD + card]:
        count = 1
        for i in range(g[b, SIZES + seat]):
            if g[b, UP + (seat) * MAX_LAYOUT + i] == FACE_DOWN:
                out[PLACE_SLOT_0 + i] = 1
                count += 1
        out[DISCARD] = 1
        return count
    if card >= 1 and card <= g[b, SIZES + seat]:
        value = g[b, UP + (seat) * MAX_LAYOUT + card - 1]
        if value == FACE_DOWN:
            out[PLACE_SLOT_0 + card - 1] = 1
            return 1
        if value != card:
            out[PLACE_SLOT_0 + card - 1] = 1
            out[DISCARD] = 1
            return 2
    out[DISCARD] = 1
    return 1


@njit(cache=True)
def _forced(g: np.ndarray, r: np.ndarray, b: int) -> int:
    """core.forced_action (R13): the only legal action, or -1."""
    phase = g[b, PHASE]
    if phase == DRAW:
        return -1 if _may_take_discard(g, r, b) else DRAW_STOCK
    if phase == OVER:
        return -1
    card = g[b, HELD]
    seat = g[b, CUR]
    if r[WILD + card]:
        return -1 if g[b, FD + seat] > 0 else DISCARD
    if card >= 1 and card <= g[b, SIZES + seat]:
        value = g[b, UP + (seat) * MAX_LAYOUT + card - 1]
        if value == FACE_DOWN:
            return PLACE_SLOT_0 + card - 1
        if value != card:
            return -1
    return DISCARD


@njit(cache=True)
def _game_over(g: np.ndarray, b: int) -> None:
    g[b, PHASE] = OVER
    g[b, HELD] = NO_CARD


@njit(cache=True)
def _truncation_check(g: np.ndarray, r: np.ndarray, b: int) -> None:
    """The end of core._end_turn: truncated as a draw after max_turns turns (R7)."""
    if g[b, TURN] >= r[KMAXT]:
        g[b, TRUNC] = 1
        g[b, NWIN] = 0
        _game_over(g, b)


@njit(cache=True)
def _end_hand(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int) -> int:
    """core._end_hand (R8, R9); PAUSED if exact mode needs the next hand's deck."""
    for i in range(g[b, NHW]):
        g[b, WON + g[b, HW + i]] += 1
    if not r[KMATCH]:
        for i in range(g[b, NHW]):
            g[b, WIN + i] = g[b, HW + i]
        g[b, NWIN] = g[b, NHW]
        _game_over(g, b)
        return OK
    for i in range(g[b, NHW]):
        g[b, SIZES + g[b, HW + i]] -= 1
    first = g[b, HW + 0] if r[KSTARTW] else (g[b, HFIRST] + 1) % r[KP]
    g[b, HAND] += 1
    g[b, CONTFIRST] = first
    if not _take_perm(g, r, rs, b, r[KD]):
        return PAUSED
    _deal(g, r, b, first)
    return OK


@njit(cache=True)
def _hand_exhausted(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int) -> int:
    """core._hand_exhausted (R7, unreachable under R1 but kept as the core keeps it)."""
    g[b, HELD] = NO_CARD
    if g[b, NHW] > 0:
        status = _end_hand(g, r, rs, b)
        if status == PAUSED:
            g[b, CONT] = CONT_DEAL
        return status
    g[b, DRAWN] += 1
    if not r[KMATCH]:
        g[b, NWIN] = 0
        _game_over(g, b)
        return OK
    g[b, HAND] += 1
    g[b, CONTFIRST] = g[b, HFIRST]
    if not _take_perm(g, r, rs, b, r[KD]):
        g[b, CONT] = CONT_DEAL
        return PAUSED
    _deal(g, r, b, g[b, HFIRST])
    return OK


@njit(cache=True)
def _end_turn(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int) -> int:
    """core._end_turn (R4.3, R8)."""
    g[b, HELD] = NO_CARD
    g[b, TURN] += 1
    if g[b, NHW] > 0:
        g[b, FLEFT] -= 1
        if g[b, FLEFT] == 0:
            if _end_hand(g, r, rs, b) == PAUSED:
                g[b, CONT] = CONT_DEAL_TRUNC
                return PAUSED
            if g[b, PHASE] == OVER:
                return OK
        else:
            g[b, CUR] = (g[b, CUR] + 1) % r[KP]
            g[b, PHASE] = DRAW
    else:
        g[b, CUR] = (g[b, CUR] + 1) % r[KP]
        g[b, PHASE] = DRAW
    _truncation_check(g, r, b)
    return OK


@njit(cache=True)
def _draw_stock(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int) -> int:
    """core._draw_stock (R4.1, R7); PAUSED (with nothing changed) if exact mode needs a shuffle."""
    if g[b, STOCKN] == 0:
        n = g[b, DISCN] - 1
        if n <= 0:
            return _hand_exhausted(g, r, rs, b)
        if not _take_perm(g, r, rs, b, n):
            return PAUSED
        for i in range(n):
            g[b, STOCK + i] = g[b, DISC + g[b, PERM + i]]  # the pile below the top, shuffled
        for i in range(n):
            g[b, KNOWN + g[b, STOCK + i]] += 1
        g[b, DISC + 0] = g[b, DISC + n]
        g[b, DISCN] = 1
        g[b, STOCKN] = n
    g[b, STOCKN] -= 1
    card = g[b, STOCK + g[b, STOCKN]]
    if g[b, KNOWN + card] > 0:
        g[b, KNOWN + card] -= 1
    else:
        g[b, UNACC + card] -= 1
    g[b, HELD] = card
    g[b, PHASE] = PLACE
    return OK


@njit(cache=True)
def _complete(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int, seat: int) -> int:
    """core._complete (R5, R8, R9)."""
    g[b, DISC + g[b, DISCN]] = g[b, HELD]
    g[b, DISCN] += 1
    if r[KMATCH] and g[b, SIZES + seat] == 1:
        g[b, WON + seat] += 1
        g[b, WIN + 0] = seat
        g[b, NWIN] = 1
        _game_over(g, b)
        return OK
    if g[b, NHW] == 0:
        g[b, FLEFT] = r[KP] if r[KFINAL] else 1
    g[b, HW + g[b, NHW]] = seat
    g[b, NHW] += 1
    return _end_turn(g, r, rs, b)


@njit(cache=True)
def _place(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int, slot: int) -> int:
    """core._place (R5)."""
    seat = g[b, CUR]
    previous = g[b, UP + (seat) * MAX_LAYOUT + slot]
    g[b, UP + (seat) * MAX_LAYOUT + slot] = g[b, HELD]
    if previous != FACE_DOWN:
        g[b, HELD] = previous
        return OK
    card = g[b, DOWN + (seat) * MAX_LAYOUT + slot]
    g[b, UNACC + card] -= 1
    g[b, HELD] = card
    g[b, FD + seat] -= 1
    if g[b, FD + seat] == 0:
        return _complete(g, r, rs, b, seat)
    return OK


@njit(cache=True)
def _apply(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int, action: int) -> int:
    """core._apply for a legal action; PAUSED if exact mode needs a permutation first."""
    if action == DRAW_STOCK:
        return _draw_stock(g, r, rs, b)
    if action == DISCARD:
        g[b, DISC + g[b, DISCN]] = g[b, HELD]
        g[b, DISCN] += 1
        return _end_turn(g, r, rs, b)
    if action == TAKE_DISCARD:
        g[b, DISCN] -= 1
        g[b, HELD] = g[b, DISC + g[b, DISCN]]
        g[b, PHASE] = PLACE
        return OK
    return _place(g, r, rs, b, action - PLACE_SLOT_0)


@njit(cache=True)
def _resume(g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int) -> int:
    """Finish what a pause interrupted: a deal (then, after a turn's end, its truncation
    check), or the pending action (a draw that needed a reshuffle)."""
    cont = g[b, CONT]
    if cont != CONT_NONE:
        if not _take_perm(g, r, rs, b, r[KD]):
            return PAUSED
        g[b, CONT] = CONT_NONE
        _deal(g, r, b, g[b, CONTFIRST])
        if cont == CONT_DEAL_TRUNC:
            _truncation_check(g, r, b)
        return OK
    action = g[b, TODO]
    if action >= 0:
        status = _apply(g, r, rs, b, action)
        if status == PAUSED:
            if g[b, CONT] != CONT_NONE:
                g[b, TODO] = -1  # the action is done; a deal is what remains
            return PAUSED
        g[b, TODO] = -1
    return OK


# --------------------------------------------------------------------------
# Vectorised baselines (agents.baselines), asked only at real choices (R13)


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
def _policy(
    g: np.ndarray, r: np.ndarray, rs: np.ndarray, ks: np.ndarray, b: int, code: int, mask: np.ndarray, count: int
) -> int:
    """The choice of in-engine policy ``code`` for game ``b``'s acting seat among the ``count`` legal
    actions of ``mask``: random draws from the fast mode's generators ``rs`` or, in exact mode, from
    the seat's keyed stream in ``ks``; greedy and counter draw nothing."""
    if code == RANDOM:
        return _nth_legal(mask, _below(rs, b, count))
    if code == KEYED_RANDOM:  # agents.baselines.RandomAgent: legal[int(rng.random() * len(legal))]
        return _nth_legal(mask, int(_keyed_draw(ks, b, g[b, CUR]) * count))
    if g[b, PHASE] == DRAW:  # greedy and counter: take a playable discard (agents.baselines.takes_playable_discard)
        if mask[TAKE_DISCARD] and _can_place(g, r, b, g[b, CUR], g[b, DISC + g[b, DISCN] - 1]):
            return TAKE_DISCARD
        return DRAW_STOCK
    lowest = -1
    places = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            if lowest < 0:
                lowest = a
            if a != DISCARD:
                places += 1
    if code == GREEDY or places <= 1 or not r[WILD + g[b, HELD]]:
        return lowest  # the lowest slot; DISCARD only when nothing can be placed
    # counter: a wild goes on the face-down slot with the fewest outs, ties to the higher slot.
    seat = g[b, CUR]
    best = -1
    best_outs = 1 << 30
    for a in range(PLACE_SLOT_0, DISCARD):
        if mask[a]:
            slot = a - PLACE_SLOT_0
            if g[b, UP + (seat) * MAX_LAYOUT + slot] == FACE_DOWN:
                outs = g[b, UNACC + slot + 1] + g[b, KNOWN + slot + 1]
                if outs < best_outs or (outs == best_outs and slot > best - PLACE_SLOT_0):
                    best_outs = outs
                    best = a
    return best


@njit(cache=True)
def _advance(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    b: int,
    policies: np.ndarray,
    stop_seat: int,
    mask: np.ndarray,
) -> int:
    """Play forced moves (R13) and in-engine policies until an EXTERNAL seat has a real
    choice, or (``stop_seat`` a seat, or ANY_ASKED for every EXTERNAL seat) until that seat has any
    move, or the game is over.
    Returns the number of legal actions of the seat asked (0 when over), or -1 if paused."""
    while g[b, PHASE] != OVER:
        seat = g[b, CUR]
        action = _forced(g, r, b)
        stop = seat == stop_seat or (stop_seat == ANY_ASKED and policies[b, seat] == EXTERNAL)
        if stop or action < 0:
            count = _legal(g, r, b, mask)
            if stop:
                return count
            if policies[b, seat] == EXTERNAL or policies[b, seat] >= ASKED_FROM:
                return count
            action = _policy(g, r, rs, ks, b, policies[b, seat], mask, count)
        status = _apply(g, r, rs, b, action)
        if status == PAUSED:
            if g[b, CONT] == CONT_NONE:
                g[b, TODO] = action
            return -1
    return 0


@njit(cache=True)
def _returns(g: np.ndarray, r: np.ndarray, b: int, out: np.ndarray) -> None:
    """core.returns (R10) into ``out`` [n_players]."""
    for seat in range(r[KP]):
        out[seat] = 0.0
    if g[b, PHASE] != OVER or g[b, NWIN] == 0:
        return
    for seat in range(r[KP]):
        out[seat] = -1.0
    for i in range(g[b, NWIN]):
        out[g[b, WIN + i]] = 1.0


@njit(cache=True)
def _encode(g: np.ndarray, r: np.ndarray, scale: np.ndarray, b: int, seat: int, out: np.ndarray) -> None:
    """Observer.encode (R15) of ``seat`` into ``out`` (the layout of trash_v0)."""
    n_players = r[KP]
    for i in range(out.shape[0]):
        out[i] = 0.0
    phase = g[b, PHASE]
    # phase 0-1, held 2-15, discard_top 16-29, slots 30.., then per-seat pieces
    if phase == DRAW:
        out[0] = 1.0
    elif phase == PLACE:
        out[1] = 1.0
        out[2 + g[b, HELD]] = 1.0
    n = g[b, DISCN]
    if n > 0:
        out[16 + g[b, DISC + n - 1]] = 1.0
    position = 30
    for k in range(n_players):
        other = (seat + k) % n_players
        for i in range(MAX_LAYOUT):
            value = g[b, UP + (other) * MAX_LAYOUT + i]
            if value == ABSENT:
                kind = 3
            elif value == FACE_DOWN:
                kind = 0
            elif value == i + 1:
                kind = 1
            else:
                kind = 2
            out[position + 4 * i + kind] = 1.0
        position += 4 * MAX_LAYOUT
    current = position
    completed = current + n_players
    final_round = completed + n_players
    playable = final_round + 1
    if phase <= PLACE:
        out[current + (g[b, CUR] - seat) % n_players] = 1.0
        if g[b, NHW] > 0:
            out[final_round] = 1.0
    for i in range(g[b, NHW]):
        out[completed + (g[b, HW + i] - seat) % n_players] = 1.0
    if n > 0 and _can_place(g, r, b, seat, g[b, DISC + n - 1]):
        out[playable] = 1.0
    position = playable + 1
    for k in range(n_players):
        j = position + k
        out[j] = np.float32(g[b, SIZES + (seat + k) % n_players]) * scale[j]
        j = position + n_players + k
        out[j] = np.float32(g[b, WON + (seat + k) % n_players]) * scale[j]
    position += 2 * n_players
    out[position] = np.float32(g[b, STOCKN]) * scale[position]
    out[position + 1] = np.float32(n) * scale[position + 1]
    position += 2
    for rank in range(NUM_RANKS):
        out[position + rank] = np.float32(g[b, KNOWN + rank]) * scale[position + rank]
        j = position + NUM_RANKS + rank
        out[j] = np.float32(g[b, UNACC + rank]) * scale[j]


@njit(cache=True)
def _continue(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    b: int,
    action: int,
    policies: np.ndarray,
    mask: np.ndarray,
) -> int:
    """Apply ``action`` (or, after a pause, finish what was interrupted) and advance to the
    next EXTERNAL choice. Returns the number of legal actions there, 0 if the game is
    over, -1 if exact mode paused for a permutation."""
    if g[b, NEED] > 0:
        g[b, NEED] = 0
        if _resume(g, r, rs, b) == PAUSED:
            return -1
    elif action >= 0 and _apply(g, r, rs, b, action) == PAUSED:
        if g[b, CONT] == CONT_NONE:
            g[b, TODO] = action
        return -1
    return _advance(g, r, rs, ks, b, policies, -1, mask)


@njit(cache=True)
def _first_choice(
    g: np.ndarray, r: np.ndarray, rs: np.ndarray, ks: np.ndarray, b: int, policies: np.ndarray, mask: np.ndarray
) -> int:
    """Advance a new game (fast mode) to its first real choice. R13: if the whole game would
    pass without one, deal the same deck again and stop at the first move of the learner
    (of the first player when every seat is asked). Returns 0 only if the learner would
    not move at all (another seat wins first): the caller deals the next game."""
    for i in range(r[KD]):
        g[b, DECK + i] = g[b, PERM + i]
    generator = rs[b]
    count = _advance(g, r, rs, ks, b, policies, -1, mask)
    if count == 0:
        rs[b] = generator  # the same game again: the same deck and the same random choices
        for i in range(r[KD]):
            g[b, PERM + i] = g[b, DECK + i]
        learner = g[b, LEARNER]
        _new_game(g, r, b)
        g[b, LEARNER] = learner
        count = _advance(g, r, rs, ks, b, policies, learner if learner >= 0 else ANY_ASKED, mask)
    return count


@njit(cache=True)
def _new_episode(
    g: np.ndarray, r: np.ndarray, rs: np.ndarray, b: int, policies: np.ndarray, pool: np.ndarray, learner: int
) -> None:
    """Deal game ``b`` anew (fast mode). With a pool of opponent policies (a single-agent
    batch): the learner's seat is ``learner`` or drawn, every other seat draws a policy."""
    _internal_perm(g, rs, b, r[KD])
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
def _step_one(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    scale: np.ndarray,
    b: int,
    actions: np.ndarray,
    policies: np.ndarray,
    pool: np.ndarray,
    learner: int,
    out: tuple,
) -> None:
    """One step of game ``b``: apply its action (-1: none), play forced moves and in-engine
    policies (R13), and write its acting seat, observation and mask. A game that ends
    gets its rewards (R10), ``dones`` and ``truncs``, its learner's reward and final
    observation; in fast mode it is dealt again at once (the observation is then the new
    game's). ``status`` is the result of :func:`_continue` (exact mode: -1 paused, 0 over)."""
    obs, masks, rewards, dones, seats, status, truncs, learner_rewards, final_obs = out
    dones[b] = False
    for seat in range(r[KP]):
        rewards[b, seat] = 0.0
    count = _continue(g, r, rs, ks, b, actions[b], policies, masks[b])
    if count == 0:
        _returns(g, r, b, rewards[b])
        dones[b] = True
        truncs[b] = g[b, TRUNC] != 0
        ended = g[b, LEARNER]
        if ended >= 0:
            learner_rewards[b] = rewards[b, ended]
            _encode(g, r, scale, b, ended, final_obs[b])
        if not r[KEXACT]:
            for _ in range(1000):  # a deal on which the learner never moves is replaced (R13)
                _new_episode(g, r, rs, b, policies, pool, learner)
                count = _first_choice(g, r, rs, ks, b, policies, masks[b])
                if count > 0:
                    break
    status[b] = count
    if count > 0:
        seats[b] = g[b, CUR]
        _encode(g, r, scale, b, g[b, CUR], obs[b])


@njit(cache=True)
def _step_games(g, r, rs, ks, scale, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, one after another."""
    for b in games:
        _step_one(g, r, rs, ks, scale, b, actions, policies, pool, learner, out)


@njit(cache=True, parallel=True)
def _step_games_parallel(g, r, rs, ks, scale, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, spread over Numba's threads (each game has its
    own generator, so the result does not depend on the threads)."""
    for i in prange(len(games)):
        _step_one(g, r, rs, ks, scale, games[i], actions, policies, pool, learner, out)


@njit(cache=True)
def _start_games(
    g: np.ndarray,
    r: np.ndarray,
    rs: np.ndarray,
    ks: np.ndarray,
    games: np.ndarray,
    policies: np.ndarray,
    pool: np.ndarray,
    learner: int,
    masks: np.ndarray,
) -> None:
    """Deal new games in the given slots (fast mode: their decks from each game's generator,
    advanced to the first choice, R13; exact mode: from the PERM cells)."""
    for b in games:
        if r[KEXACT]:
            _new_game(g, r, b)
            g[b, LEARNER] = -1
            continue
        for _ in range(1000):
            _new_episode(g, r, rs, b, policies, pool, learner)
            if _first_choice(g, r, rs, ks, b, policies, masks[b]) > 0:
                break


@njit(cache=True)
def _observe_games(
    g: np.ndarray,
    r: np.ndarray,
    scale: np.ndarray,
    games: np.ndarray,
    obs: np.ndarray,
    masks: np.ndarray,
    seats: np.ndarray,
    status: np.ndarray,
) -> None:
    """Each game's acting seat, its mask, its number of legal actions (``status``, as after a step)
    and its observation (no move is made)."""
    for b in games:
        status[b] = _legal(g, r, b, masks[b])
        seats[b] = g[b, CUR]
        _encode(g, r, scale, b, g[b, CUR], obs[b])


class TrashBatch:
    """B games of one Trash configuration in lockstep (see the module docstring).

    ``reset()`` deals every game; ``step(actions)`` applies one action per game (the
    acting seat's, ``seats``), plays forced moves (R13), deals finished games again,
    and returns the new observations, masks, the finished games' rewards (R10) and the
    done flags. Every seat is asked (as in ``trash_v0``) unless ``policies`` names an
    in-engine baseline for it: per seat (a list) or per game and seat (a [B, P] list of
    lists); names are ``"random"``, ``"greedy"``, ``"counter"`` or None (asked).

    With ``opponents`` (a list of baseline names) the batch is single-agent: one learner
    seat per game (``learner_seat``, or drawn per episode) is asked, every other seat
    draws an opponent from the list per episode and moves inside ``step``; a finished
    game's ``learner_rewards`` and ``final_obs`` (the learner's last observation) are
    set before it is dealt again.

    With ``exact=True`` each game draws its deck, reshuffles and later deals from its
    own ``numpy.random.Generator`` (``reset(seeds=[...])``) exactly as the core does,
    its ``random`` seats draw from their keyed Philox streams (``reset(draw_keys=...)``)
    exactly as ``RandomAgent`` does, and a finished game is not dealt again (``dones``
    stays set; call ``reset``).
    ``parallel`` spreads the games over Numba's threads (default: from
    ``PARALLEL_FROM`` games); results do not depend on it.
    """

    def __init__(
        self,
        config: RulesConfig,
        batch_size: int,
        seed: int | None = None,
        exact: bool = False,
        policies: list[Any] | None = None,
        opponents: list[str] | None = None,
        learner_seat: int | None = None,
        parallel: bool | None = None,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        p = config.num_players
        if config.deck_size > MAX_DECK:
            raise ValueError(
                f"num_decks={config.num_decks}: the batched engine holds up to {MAX_DECK} cards "
                "(three decks with Jokers)"
            )
        if config.max_turns > np.iinfo(np.int16).max:
            raise ValueError(f"max_turns={config.max_turns}: the batched engine counts turns up to 32767")
        if opponents is not None and (exact or policies is not None):
            raise ValueError("opponents (a single-agent batch) go with neither exact=True nor policies")
        if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in range(p)):
            raise ValueError(f"learner_seat={learner_seat!r} must be None or a seat 0..{p - 1}")
        self.config = config
        self.batch_size = batch_size
        self.exact = exact
        self.rules = make_rules(config, exact=exact)
        self.state = np.zeros((batch_size, WIDTH), np.int16)
        self.arrays = field_views(self.state, config)
        self.observer = Observer(config)
        self.scale = self.observer._scale.copy()
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
        self.pool = np.array([_code(name, "opponents") for name in opponents or []], np.int64)
        if opponents is not None and not len(self.pool):
            raise ValueError("opponents must name at least one baseline")
        self.learner = -1 if learner_seat is None else int(learner_seat)
        self._all = np.arange(batch_size)
        self._no_actions = np.full(batch_size, -1, np.int64)
        self.seed(seed)
        self.generators: list[np.random.Generator | None] = []
        # Threads pay off from a few hundred games on (docs/speed.md); the results are the same.
        self.parallel = (batch_size >= PARALLEL_FROM and _threads() > 1) if parallel is None else bool(parallel)

    def set_pool(self, codes: list[int]) -> None:
        """A single-agent batch's opponent pool as engine codes: in-engine baselines
        (``POLICY_CODES``) or ``ASKED_FROM + k`` for opponents the caller asks (``TrashVecEnv``'s
        policy snapshots). Games dealt from now on draw from it."""
        pool = np.asarray(codes, np.int64)
        if not len(pool) or ((pool < 0) | ((pool >= len(POLICY_CODES)) & (pool < ASKED_FROM))).any():
            raise ValueError(f"opponent codes {list(codes)} are neither in-engine baselines nor ASKED_FROM + k")
        self.pool = pool

    def seed(self, seed: int | None) -> None:
        """Each game's own generator for the fast mode's shuffles and the random policy."""
        self.rng_state = np.random.default_rng(seed).integers(1, 2**63, size=self.batch_size, dtype=np.uint64)

    def reset(self, seeds: list[Any] | None = None, draw_keys: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Deal every game; returns (observations, masks) of the acting seats. In exact
        mode ``seeds`` (one per game, anything ``numpy.random.default_rng`` takes)
        seed each game's generator, whose first draw shuffles its deck (R3), and ``draw_keys``
        ([B, num_players, 2] integers below 2**64) are the Philox keys the in-engine ``random`` of
        each game's seats draws from: seat s of game b decides as ``RandomAgent`` with the generator
        ``trash_env.counter_rng.keyed_generator(draw_keys[b, s])`` (needed only where a seat plays
        ``random``; the streams start again at their first draw)."""
        g, r = self.state, self.rules
        self.dones[:] = False
        if self.exact:
            if seeds is None or len(seeds) != self.batch_size:
                raise ValueError(f"exact mode needs one seed per game ({self.batch_size})")
            self._set_streams(draw_keys)
            d = self.config.deck_size
            decks: dict[Any, np.ndarray] = {}  # games with one seed (the rotations of a deal) share a deck
            for b, seed in enumerate(seeds):
                key = tuple(seed) if isinstance(seed, (list, tuple)) else seed
                if key not in decks:
                    decks[key] = np.random.default_rng(seed).permutation(d)  # core.shuffled_deck
                g[b, PERM : PERM + d] = decks[key]
            self._game_seeds = list(seeds)
            self.generators = [None] * self.batch_size  # made when a game first needs one more draw
            with _wrapping():
                self._start()
            self._run(self._all, self._no_actions)
            return self.obs, self.masks
        with _wrapping():
            self._start()
        _observe_games(g, r, self.scale, self._all, self.obs, self.masks, self.seats, self.status)
        return self.obs, self.masks

    def _start(self) -> None:
        """Deal every game (:func:`_start_games`)."""
        g, r = self.state, self.rules
        _start_games(g, r, self.rng_state, self.streams, self._all, self.policies, self.pool, self.learner, self.masks)

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
        """One action per game, legal for its acting seat (``masks``; not checked here); -1
        for a game that is over (exact mode). Returns (observations, masks, rewards [B, P],
        dones)."""
        actions = np.asarray(actions, dtype=np.int64)
        if self.exact:
            self._run(self._all, actions)
        else:
            self._kernel(self._all, actions)
        return self.obs, self.masks, self.rewards, self.dones

    def _kernel(self, games: np.ndarray, actions: np.ndarray) -> None:
        kernel = _step_games_parallel if self.parallel else _step_games
        with _wrapping():
            kernel(
                self.state,
                self.rules,
                self.rng_state,
                self.streams,
                self.scale,
                games,
                actions,
                self.policies,
                self.pool,
                self.learner,
                self._out,
            )

    def _run(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Exact mode: step ``games``, then hand every paused game the permutation the core
        would draw from its generator, until none is paused."""
        g = self.state
        live = games[g[games, PHASE] != OVER]
        self.dones[live] = False  # a finished game keeps its dones and rewards until reset
        self.rewards[live] = 0.0
        while len(live):
            self._kernel(live, actions)
            paused = live[self.status[live] < 0]
            for b in paused:
                n = int(g[b, NEED])
                rng = self.generators[b]
                if rng is None:  # the game's generator, past the deck it shuffled first
                    rng = self.generators[b] = np.random.default_rng(self._game_seeds[b])
                    rng.permutation(self.config.deck_size)
                if g[b, CONT] != CONT_NONE:
                    g[b, PERM : PERM + n] = rng.permutation(n)  # a new hand's deck (core.shuffled_deck)
                else:
                    order = list(range(n))
                    rng.shuffle(order)  # the reshuffle (core._draw_stock shuffles the pile the same way)
                    g[b, PERM : PERM + n] = order
                g[b, PERMN] = n
            live = paused

    def game_state(self, b: int) -> core.GameState:
        """Game ``b`` as a :class:`~trash_env.trash.rules.GameState` of the core (to render it with
        ``trash_env.trash.text.render_table``, or to check it against the core)."""
        v, config = self.arrays, self.config
        s = v.s[b]
        state = core.GameState()
        state.config = config
        state.num_players = config.num_players
        state.is_wild = config.is_wild
        state.sizes = v.sizes[b].tolist()
        state.up = [v.up[b, seat, :size].tolist() for seat, size in enumerate(state.sizes)]
        state.down = [v.down[b, seat, :size].tolist() for seat, size in enumerate(state.sizes)]
        state.face_down = v.fd[b].tolist()
        state.stock = v.stock[b, : s[STOCKN]].tolist()
        state.discard = v.disc[b, : s[DISCN]].tolist()
        state.held = int(s[HELD])
        state.phase = int(s[PHASE])
        state.current = int(s[CUR])
        state.turn = int(s[TURN])
        state.hand = int(s[HAND])
        state.hand_first = int(s[HFIRST])
        state.hand_winners = v.hw[b, : s[NHW]].tolist()
        state.final_left = int(s[FLEFT])
        state.hands_won = v.won[b].tolist()
        state.known_stock = v.known[b].tolist()
        state.unaccounted = v.unacc[b].tolist()
        state.winners = v.winners[b, : s[NWIN]].tolist() if state.phase == OVER else []
        state.truncated = bool(s[TRUNC])
        state.drawn_hands = int(s[DRAWN])
        state.deck = []
        return state


def _code(name: str, what: str) -> int:
    if name not in POLICY_CODES:
        raise ValueError(f"{what}: {name!r} is not an in-engine baseline ({sorted(POLICY_CODES)})")
    return POLICY_CODES[name]


def policy_codes(policies: list[Any] | None, batch_size: int, num_players: int) -> np.ndarray:
    """Per game and seat: EXTERNAL (None, asked) or the code of an in-engine baseline;
    ``policies`` is None, one name per seat, or one list of names per game."""
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
