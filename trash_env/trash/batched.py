"""A batched Trash engine: B games of one configuration stepped in lockstep over arrays.

Long on purpose: the Trash rules again as compiled loops, one function for each function of the core it
is checked against (tests/trash/test_batched_vs_core.py); what both engines share is
:mod:`trash_env.engine_host`.

The rules are those of :mod:`trash_env.trash.rules` (R1-R10, R13), written again as
Numba-compiled loops over one int16 row per game, so that a
whole batch advances in one call: apply each game's action, play forced moves
(R13), let in-engine opponents move, reset finished games, and write every
game's observation (the layout of ``trash_v0``, :class:`trash_env.trash.observation.TrashObserver`)
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
makes the same choices (the evaluation's streams, ``agents.evaluation.seatings``).

Without Numba installed (the ``batched`` extra) the same functions run as
plain Python: correct, and about a hundred times slower.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from trash_env import engine_host as host
from trash_env.engine_host import BatchHost, Kernels, RowLayout
from trash_env.jit import HAVE_NUMBA, njit, prange  # noqa: F401 (HAVE_NUMBA: the engine's own)
from trash_env.trash import rules as trash
from trash_env.trash.config import MAX_LAYOUT, TrashConfig
from trash_env.trash.observation import TrashObserver

# The state of a game is one row of an int16 array (``TrashBatch.state``, [B, WIDTH]): the
# scalar fields first, then fixed-size blocks sized for the largest configuration (8 seats,
# three decks with Jokers), so every offset is a compile-time constant.
MAX_DECK = 3 * 54
MAX_SEATS = host.MAX_SEATS
ROW = RowLayout()
HELD, PHASE, CUR, TURN, HAND, HFIRST, NHW, FLEFT, STOCKN, DISCN, TRUNC, DRAWN, NWIN = ROW.fields(13)
CONT, CONTFIRST, NEED, PERMN, TODO, LEARNER = ROW.fields(6)
NUM_FIELDS = ROW.width
UP = ROW.block(MAX_SEATS * MAX_LAYOUT)  # [seat * 10 + slot]: FACE_DOWN, a rank, or ABSENT beyond the layout
DOWN = ROW.block(MAX_SEATS * MAX_LAYOUT)  # [seat * 10 + slot]: the card under a face-down slot
FD = ROW.block(MAX_SEATS)  # [seat]: face-down slots
SIZES = ROW.block(MAX_SEATS)  # [seat]: layout size (R9)
WON = ROW.block(MAX_SEATS)  # [seat]: hands won
HW = ROW.block(MAX_SEATS)  # hand winners in order (NHW of them, R8)
WIN = ROW.block(MAX_SEATS)  # the rewarded seats once over (NWIN of them, R10)
KNOWN = ROW.block(trash.NUM_RANKS)  # [rank]: known to be in the stock (R15)
UNACC = ROW.block(trash.NUM_RANKS)  # [rank]: unaccounted for (R15)
STOCK = ROW.block(MAX_DECK)  # the stock, top at STOCKN - 1
DISC = ROW.block(MAX_DECK)  # the discard pile, top at DISCN - 1
PERM = ROW.block(MAX_DECK)  # a permutation (a deck or a reshuffle), made here or handed in
DECK = ROW.block(MAX_DECK)  # the permutation the game was dealt from (R13's deal-again)
WIDTH = ROW.width

# The configuration as an int64 array ``rules``: scalars, then per-rank tables and the ordered deck.
RULES = RowLayout()
KP, KL, KDD, KFINAL, KMATCH, KSTARTW, KMAXT, KD, KEXACT, KHOLD = RULES.fields(10)  # KHOLD: hold_finished
WILD = RULES.block(trash.NUM_RANKS)  # [rank]: 1 if wild (R6)
COPIES = RULES.block(trash.NUM_RANKS)  # [rank]: copies in the deck (R1)
ORDERED = RULES.block(MAX_DECK)  # [i]: the configured cards in rank order
RULES_WIDTH = RULES.width

FACE_DOWN, NO_CARD, ABSENT = trash.FACE_DOWN, trash.NO_CARD, -2
DRAW, PLACE, OVER = trash.DRAW, trash.PLACE, trash.OVER
NUM_ACTIONS, NUM_RANKS = trash.NUM_ACTIONS, trash.NUM_RANKS
DRAW_STOCK, TAKE_DISCARD = trash.DRAW_STOCK, trash.TAKE_DISCARD
PLACE_SLOT_0, DISCARD = trash.PLACE_SLOT_0, trash.DISCARD
DD_PLAYABLE, DD_ANY, DD_NEVER = 0, 1, 2
CONT_NONE, CONT_DEAL, CONT_DEAL_TRUNC = 0, 1, 2
OK, PAUSED = 0, 1
TITLE = "the Trash batched engine"


# In-engine policies (vectorised baselines, ``agents.baselines``), beside the host's EXTERNAL (asked),
# RANDOM (fast mode: the game's xorshift) and KEYED_RANDOM (exact mode: RandomAgent's draws from each
# seat's keyed Philox stream, ``streams``); trash_env/engine_host.py.
GREEDY, COUNTER = 1, 2
POLICY_CODES = {"random": host.RANDOM, "greedy": GREEDY, "counter": COUNTER}


def make_rules(config: TrashConfig, exact: bool) -> np.ndarray:
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


def field_views(state: np.ndarray, config: TrashConfig) -> GameArrays:
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
def _internal_perm(g: np.ndarray, rs: np.ndarray, b: int, n: int) -> None:
    """A uniform permutation of 0..n-1 into the game's PERM cells (Fisher-Yates, the game's generator)."""
    for i in range(n):
        g[b, PERM + i] = i
    for i in range(n - 1, 0, -1):
        j = host.below(rs, b, i + 1)
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
def _policy(g, r, rs, ks, b, code, mask, count) -> int:
    """The choice of in-engine policy ``code`` for game ``b``'s acting seat among the ``count`` legal
    actions of ``mask``: random draws from the fast mode's generators ``rs`` or, in exact mode, from
    the seat's keyed stream in ``ks``; greedy and counter draw nothing."""
    choice = host.random_choice(rs, ks, b, g[b, CUR], code, mask, count)
    if choice >= 0:
        return choice
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
def _advance(g, r, rs, ks, b, policies, stop_seat, mask) -> int:
    """Play forced moves (R13) and in-engine policies until an EXTERNAL seat has a real
    choice, or (``stop_seat`` a seat, or ANY_ASKED for every EXTERNAL seat) until that seat has any
    move, or the game is over.
    Returns the number of legal actions of the seat asked (0 when over), or -1 if paused."""
    while g[b, PHASE] != OVER:
        seat = g[b, CUR]
        action = _forced(g, r, b)
        stop = seat == stop_seat or (stop_seat == host.ANY_ASKED and policies[b, seat] == host.EXTERNAL)
        if stop or action < 0:
            count = _legal(g, r, b, mask)
            if stop:
                return count
            if policies[b, seat] == host.EXTERNAL or policies[b, seat] >= host.ASKED_FROM:
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
    """TrashObserver.encode (R15) of ``seat`` into ``out`` (the layout of trash_v0)."""
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
def _continue(g, r, rs, ks, b, action, policies, mask) -> int:
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
def _first_choice(g, r, rs, ks, b, policies, mask) -> int:
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
        count = _advance(g, r, rs, ks, b, policies, learner if learner >= 0 else host.ANY_ASKED, mask)
    return count


@njit(cache=True)
def _deal_new(g, r, rs, ks, b, policies, pool, learner, mask) -> int:
    """Deal game ``b`` anew (fast mode) from its generator, seated as :func:`seat_players` does, and
    advance it to the first real choice; a deal on which the learner never moves is replaced (R13).
    Returns the number of legal actions there (0 only after REPLACEMENTS deals in a row)."""
    for _ in range(host.REPLACEMENTS):
        _internal_perm(g, rs, b, r[KD])
        _new_game(g, r, b)
        host.seat_players(g, rs, b, r[KP], LEARNER, policies, pool, learner)
        count = _first_choice(g, r, rs, ks, b, policies, mask)
        if count > 0:
            return count
    return 0


@njit(cache=True)
def _step_one(g, r, rs, ks, scale, b, actions, policies, pool, learner, out) -> None:
    """One step of game ``b``: apply its action (-1: none), play forced moves and in-engine
    policies (R13), and write its acting seat, observation and mask. A game that ends
    gets its rewards (R10), ``dones`` and ``truncs``, its learner's reward and final
    observation; in fast mode it is dealt again at once (the observation is then the new
    game's). ``status`` is the result of :func:`_continue` (exact mode: -1 paused, 0 over)."""
    obs, masks, rewards, dones, seats, status, _, _, final_obs = out
    dones[b] = False
    rewards[b] = 0.0
    count = _continue(g, r, rs, ks, b, actions[b], policies, masks[b])
    if count == 0:
        _returns(g, r, b, rewards[b])
        ended = host.game_ended(g, b, TRUNC, LEARNER, out)
        if ended >= 0:
            _encode(g, r, scale, b, ended, final_obs[b])
        if not r[KEXACT] and not r[KHOLD]:
            count = _deal_new(g, r, rs, ks, b, policies, pool, learner, masks[b])
    status[b] = count
    if count > 0:
        seats[b] = g[b, CUR]
        _encode(g, r, scale, b, g[b, CUR], obs[b])


# The kernels the host calls (trash_env.engine_host.Kernels), with the arguments of every engine's.


@njit(cache=True)
def _step_games(g, r, rs, ks, extra, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, one after another (``extra``: the observation's scale)."""
    for b in games:
        _step_one(g, r, rs, ks, extra, b, actions, policies, pool, learner, out)


@njit(cache=True, parallel=True)
def _step_games_parallel(g, r, rs, ks, extra, games, actions, policies, pool, learner, out) -> None:
    """:func:`_step_one` for each of ``games``, spread over Numba's threads (each game has its
    own generator, so the result does not depend on the threads)."""
    for i in prange(len(games)):
        _step_one(g, r, rs, ks, extra, games[i], actions, policies, pool, learner, out)


@njit(cache=True)
def _start_games(g, r, rs, ks, extra, games, policies, pool, learner, masks) -> None:
    """Deal new games in the given slots (fast mode: their decks from each game's generator,
    advanced to the first choice, R13; exact mode: from the PERM cells reset placed)."""
    for b in games:
        if r[KEXACT]:
            _new_game(g, r, b)
            g[b, LEARNER] = -1
        else:
            _deal_new(g, r, rs, ks, b, policies, pool, learner, masks[b])


@njit(cache=True)
def _observe_games(g, r, extra, games, obs, masks, seats, status) -> None:
    """Each game's acting seat, its mask, its number of legal actions (``status``, as after a step)
    and its observation (no move is made)."""
    for b in games:
        status[b] = _legal(g, r, b, masks[b])
        seats[b] = g[b, CUR]
        _encode(g, r, extra, b, g[b, CUR], obs[b])


class TrashBatch(BatchHost):
    """B games of one Trash configuration in lockstep (see the module docstring), on the engines'
    host (:class:`~trash_env.engine_host.BatchHost`: reset, step, single-agent batches, exact mode).

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

    title = TITLE
    config_type = TrashConfig
    POLICY_CODES = POLICY_CODES
    num_actions = NUM_ACTIONS
    row_width = WIDTH
    phase_cell, learner_cell, turn_cell, trunc_cell, over = PHASE, LEARNER, TURN, TRUNC, OVER
    hold_cell = KHOLD

    def _check_config(self, config: TrashConfig) -> None:
        if config.deck_size > MAX_DECK:
            raise ValueError(
                f"num_decks={config.num_decks}: the batched engine holds up to {MAX_DECK} cards "
                "(three decks with Jokers)"
            )

    def _make_observer(self, config: TrashConfig) -> TrashObserver:
        return TrashObserver(config)

    def _configure(self) -> None:
        self.rules = make_rules(self.config, exact=self.exact)
        self.arrays = field_views(self.state, self.config)
        self.scale = self.observer._scale.copy()
        self._deck_size = self.config.deck_size  # read once per game at every exact reset

    kernels = Kernels(_step_games, _step_games_parallel, _start_games, _observe_games)

    def _extra(self) -> np.ndarray:
        return self.scale

    def _deal_of(self, seed: Any) -> np.ndarray:
        return np.random.default_rng(seed).permutation(self._deck_size)  # core.shuffled_deck

    def _place_deal(self, b: int, deck: np.ndarray) -> None:
        self.state[b, PERM : PERM + self._deck_size] = deck

    def _resume_paused(self, b: int) -> None:
        """The permutation the core would draw from game ``b``'s generator: a new hand's deck or a
        reshuffle."""
        g = self.state
        n = int(g[b, NEED])
        rng = self.generators[b]
        if rng is None:  # the game's generator, past the deck it shuffled first
            rng = self.generators[b] = np.random.default_rng(self.seeds[b])
            rng.permutation(self.config.deck_size)
        if g[b, CONT] != CONT_NONE:
            g[b, PERM : PERM + n] = rng.permutation(n)  # a new hand's deck (core.shuffled_deck)
        else:
            order = list(range(n))
            rng.shuffle(order)  # the reshuffle (core._draw_stock shuffles the pile the same way)
            g[b, PERM : PERM + n] = order
        g[b, PERMN] = n

    def place_state(self, b: int, state: trash.TrashState) -> None:
        """Put the core's ``state`` (of this batch's configuration, not over, every card known) in slot
        ``b`` (fast mode), its seats all asked: :meth:`game_state` undone, for rollouts from a position
        (a local best response, :mod:`agents.evaluation.local_best_response`). A seat's view hides cards
        (R2): fill them in first with :func:`trash_env.trash.belief.sample_hidden_state`. The slot's
        generator runs on as it was (the next hands of a match, R9, are dealt from it); a finished game
        is dealt again as any other. The next :meth:`step` applies the slot's action to it."""
        from trash_env.trash.belief import HIDDEN

        self._check_placeable(state)
        under = [card for up, down in zip(state.up, state.down) for u, card in zip(up, down) if u == FACE_DOWN]
        if HIDDEN in state.stock or HIDDEN in under:
            raise ValueError("place_state: the state hides cards; fill them in (trash_env.trash.belief)")
        v = self.arrays
        self.state[b] = 0
        s = v.s[b]
        fields = (HELD, PHASE, CUR, TURN, HAND, HFIRST, FLEFT, TRUNC, DRAWN)
        s[list(fields)] = (
            state.held,
            state.phase,
            state.current,
            state.turn,
            state.hand,
            state.hand_first,
            state.final_left,
            int(state.truncated),
            state.drawn_hands,
        )
        s[[NHW, STOCKN, DISCN, NWIN]] = len(state.hand_winners), len(state.stock), len(state.discard), 0
        s[[CONT, NEED, PERMN, TODO, LEARNER]] = CONT_NONE, 0, 0, -1, -1
        v.up[b], v.down[b] = ABSENT, 0
        for seat, size in enumerate(state.sizes):
            v.up[b, seat, :size] = state.up[seat]
            v.down[b, seat, :size] = state.down[seat]
        v.fd[b], v.sizes[b], v.won[b] = state.face_down, state.sizes, state.hands_won
        v.hw[b, : len(state.hand_winners)] = state.hand_winners
        v.known[b], v.unacc[b] = state.known_stock, state.unaccounted
        v.stock[b, : len(state.stock)] = state.stock
        v.disc[b, : len(state.discard)] = state.discard
        self.dones[b] = False

    def game_state(self, b: int) -> trash.TrashState:
        """Game ``b`` as a :class:`~trash_env.trash.rules.TrashState` of the core (to render it with
        ``trash_env.trash.text.render_table``, or to check it against the core)."""
        v, config = self.arrays, self.config
        s = v.s[b]
        state = trash.TrashState()
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


policy_codes = TrashBatch.policy_codes
