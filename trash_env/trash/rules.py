"""The rules of Trash: one pure core over a mutable :class:`TrashState` value.

Everything here follows the rule book (``RULES.md``); each function cites its section.
The core imports only the standard library and numpy, knows nothing of
PettingZoo or Gymnasium, and takes every random choice from a
``numpy.random.Generator`` passed in (R3, R7).

The public functions are

- :func:`new_game` deals the first hand (R3), from a shuffled or a given deck;
- :func:`legal_actions` lists the legal actions of R13 for the seat to act;
- :func:`apply_action` applies one legal action (an illegal one is a ValueError);
- :func:`forced_action` / :func:`play_forced` find and apply forced moves (R13);
- :func:`returns` gives the rewards of R10 once the game is over;
- :func:`clone` copies a state, :func:`check_deck` validates a deck order.

Cards are ranks (R1): 0 = Joker, 1 = Ace, ..., 10 = Ten, 11 = Jack,
12 = Queen, 13 = King. A slot holds ``FACE_DOWN`` or the rank of the face-up
card in it: its own rank when filled, a wild rank when wild-filled (R2).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

# IllegalActionError: what apply_action raises, defined in the kernel both games share.
from trash_env.kernel import IllegalActionError as IllegalActionError
from trash_env.kernel import apply_forced, check_action, renamed
from trash_env.trash.config import TrashConfig

NUM_RANKS = 14  # R1: Joker (0), Ace (1) .. King (13)
RANK_NAMES = ("Jk", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FACE_DOWN = -1  # a slot whose card nobody may look at (R2)
NO_CARD = -1  # no held card / empty pile

# Phases of a turn (R4).
DRAW, PLACE, OVER = 0, 1, 2
PHASE_NAMES = ("draw", "place", "over")

# Actions (R13); the numbering is public API.
DRAW_STOCK = 0
TAKE_DISCARD = 1
PLACE_SLOT_0 = 2  # PLACE_SLOT_0 + i places the held card in slot i
DISCARD = 12
NUM_ACTIONS = 13


def action_name(action: int) -> str:
    """A short human-readable name for an action of R13."""
    if action == DRAW_STOCK:
        return "draw from the stock"
    if action == TAKE_DISCARD:
        return "take the discard"
    if action == DISCARD:
        return "discard"
    if isinstance(action, (int, np.integer)) and PLACE_SLOT_0 <= action < DISCARD:
        return f"place in slot {action - PLACE_SLOT_0} ({RANK_NAMES[action - PLACE_SLOT_0 + 1]})"
    return f"<not an action: {action!r}>"


class TrashState:
    """The whole state of a game (a hand, or a match of hands with ``match``).

    Public (R2, R15): ``up``, ``sizes``, ``discard``, ``held``, ``phase``,
    ``current``, the counts. Hidden: ``down`` (the cards under face-down slots)
    and the order of ``stock``. The top of ``stock`` and ``discard`` is the
    last element. Mutated in place by :func:`apply_action`.
    """

    __slots__ = (
        "config",
        "num_players",
        "is_wild",
        "sizes",
        "up",
        "down",
        "face_down",
        "stock",
        "discard",
        "held",
        "phase",
        "current",
        "turn",
        "hand",
        "hand_first",
        "hand_winners",
        "final_left",
        "hands_won",
        "known_stock",
        "unaccounted",
        "winners",
        "truncated",
        "drawn_hands",
        "deck",
    )

    config: TrashConfig
    num_players: int
    is_wild: tuple[bool, ...]  # per rank, R6
    sizes: list[int]  # layout size per seat (R2, shrinking in a match, R9)
    up: list[list[int]]  # per seat, per slot: FACE_DOWN or the face-up rank
    down: list[list[int]]  # per seat, per slot: the card under a face-down slot
    face_down: list[int]  # face-down slots per seat; 0 means complete (R5)
    stock: list[int]
    discard: list[int]
    held: int  # NO_CARD in the draw phase
    phase: int
    current: int  # the seat to act
    turn: int  # turns finished in the episode (R7 max_turns)
    hand: int  # hands dealt so far, minus one (match mode)
    hand_first: int  # the seat that played first in this hand (R9)
    hand_winners: list[int]  # seats that completed this hand, in order (R8)
    final_left: int  # turns still to end before the hand ends, once someone completed
    hands_won: list[int]
    known_stock: list[int]  # per rank: copies known to be in the stock after a reshuffle (R15)
    unaccounted: list[int]  # per rank: copies face down or in the stock, place unknown (R15)
    winners: list[int]  # once over: the rewarded seats (R10); empty on a draw
    truncated: bool  # over by max_turns (R7)
    drawn_hands: int  # hands that ended as a draw by an exhausted stock (R7)
    deck: list[int]  # the deck order this hand was dealt from (R3), for game records

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def final_round(self) -> bool:
        """R8: someone completed and the other players are having their last turn."""
        return bool(self.hand_winners) and self.phase != OVER

    def hidden_cards(self) -> list[int]:
        """Every card whose place nobody knows: face-down slots, then the stock."""
        cards = [
            c for seat in range(self.num_players) for c, u in zip(self.down[seat], self.up[seat]) if u == FACE_DOWN
        ]
        return cards + self.stock

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrashState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    def __repr__(self) -> str:
        return (
            f"TrashState(phase={PHASE_NAMES[self.phase]}, current={self.current}, held={self.held}, "
            f"up={self.up}, stock={len(self.stock)}, discard={self.discard[-1:]}, turn={self.turn})"
        )


# --------------------------------------------------------------------------
# Deck and deal (R1, R3)


def full_deck(config: TrashConfig) -> list[int]:
    """The configured cards in rank order (R1)."""
    return list(config.ordered_deck)


def shuffled_deck(config: TrashConfig, rng: np.random.Generator) -> list[int]:
    """A uniformly shuffled deck order (R3)."""
    deck = config.ordered_deck
    return [deck[i] for i in rng.permutation(len(deck)).tolist()]


def check_deck(config: TrashConfig, deck: Sequence[int]) -> list[int]:
    """Validate an explicit deck order (R3) and return it as a list of ints.

    A deck is a sequence of ranks (0 = Joker, 1 = Ace .. 13 = King) holding
    exactly the configured cards; anything else is a ``ValueError`` saying what
    is wrong.
    """
    if isinstance(deck, (str, bytes)) or not hasattr(deck, "__len__") or np.ndim(deck) != 1:
        raise ValueError(f"a deck must be a list of ranks, got {type(deck).__name__}")
    cards = []
    for position, card in enumerate(deck):
        if isinstance(card, bool) or not isinstance(card, (int, np.integer)):
            raise ValueError(f"deck[{position}] = {card!r} is not a rank (an integer 0..13)")
        if not 0 <= card < NUM_RANKS:
            raise ValueError(f"deck[{position}] = {card} is not a rank: ranks are 0 (Joker), 1 (Ace) .. 13 (King)")
        cards.append(int(card))
    if len(cards) != config.deck_size:
        raise ValueError(
            f"the deck has {len(cards)} cards but the configuration uses {config.deck_size} "
            f"(num_decks={config.num_decks}, jokers={config.jokers})"
        )
    counts = [0] * NUM_RANKS
    for card in cards:
        counts[card] += 1
    for rank, (have, want) in enumerate(zip(counts, config.copies_per_rank)):
        if have != want:
            raise ValueError(
                f"the deck has {have} copies of {RANK_NAMES[rank]} (rank {rank}); the configuration has {want}"
            )
    return cards


def new_game(config: TrashConfig, rng: np.random.Generator, deck: Sequence[int] | None = None) -> TrashState:
    """Deal the first hand (R3): seat 0 plays first; ``deck`` (validated) or a shuffle."""
    state = TrashState()
    state.config = config
    state.num_players = config.num_players
    state.is_wild = config.is_wild
    state.sizes = [config.layout_size] * config.num_players
    state.turn = 0
    state.hand = 0
    state.hands_won = [0] * config.num_players
    state.winners = []
    state.truncated = False
    state.drawn_hands = 0
    cards = check_deck(config, deck) if deck is not None else shuffled_deck(config, rng)
    _deal(state, cards, first=0)
    return state


def _deal(state: TrashState, deck: list[int], first: int) -> None:
    """R3: deal face down one at a time, round-robin from ``first``, skipping full layouts."""
    n = state.num_players
    sizes = state.sizes
    state.deck = deck
    size = sizes[0]
    if sizes.count(size) == n:  # equal layouts: seat s gets every n-th card
        position = n * size
        down = [deck[(seat - first) % n : position : n] for seat in range(n)]
    else:
        down = [[] for _ in range(n)]
        position = 0
        for slot in range(max(sizes)):
            for k in range(n):
                seat = (first + k) % n
                if slot < sizes[seat]:
                    down[seat].append(deck[position])
                    position += 1
    state.down = down
    state.up = [[FACE_DOWN] * size for size in sizes]
    state.face_down = list(sizes)
    state.stock = deck[position:][::-1]  # the first card not dealt is the top (R3)
    state.discard = []
    state.held = NO_CARD
    state.phase = DRAW
    state.current = first
    state.hand_first = first
    state.hand_winners = []
    state.final_left = 0
    state.known_stock = [0] * NUM_RANKS
    state.unaccounted = list(state.config.copies_per_rank)


def clone(state: TrashState) -> TrashState:
    """An independent copy of ``state`` (search agents branch on copies)."""
    new = TrashState()
    for name in TrashState.__slots__:
        setattr(new, name, getattr(state, name))
    new.sizes = state.sizes[:]
    new.up = [row[:] for row in state.up]
    new.down = [row[:] for row in state.down]
    new.face_down = state.face_down[:]
    new.stock = state.stock[:]
    new.discard = state.discard[:]
    new.hand_winners = state.hand_winners[:]
    new.hands_won = state.hands_won[:]
    new.known_stock = state.known_stock[:]
    new.unaccounted = state.unaccounted[:]
    new.winners = state.winners[:]
    return new


# --------------------------------------------------------------------------
# Legal actions (R4, R5, R13)


def can_place(state: TrashState, seat: int, card: int) -> bool:
    """R5: whether ``card`` can be placed in ``seat``'s layout now (mandatory or optional)."""
    if state.is_wild[card]:
        return state.face_down[seat] > 0
    return 1 <= card <= state.sizes[seat] and state.up[seat][card - 1] != card


def _may_take_discard(state: TrashState) -> bool:
    """R4.1: whether the top discard may be taken instead of drawing."""
    if not state.discard:
        return False
    rule = state.config.discard_draw
    if rule == "any":
        return True
    return rule == "playable" and can_place(state, state.current, state.discard[-1])


def legal_actions(state: TrashState) -> list[int]:
    """The legal actions of R13 for ``state.current``, in increasing order; [] once over."""
    phase = state.phase
    if phase == DRAW:
        return [DRAW_STOCK, TAKE_DISCARD] if _may_take_discard(state) else [DRAW_STOCK]
    if phase == OVER:
        return []
    card = state.held
    seat = state.current
    up = state.up[seat]
    if state.is_wild[card]:
        # R5: a wild card may go on any face-down slot, or be discarded.
        slots = [PLACE_SLOT_0 + i for i, u in enumerate(up) if u == FACE_DOWN]
        return slots + [DISCARD] if slots else [DISCARD]
    if 1 <= card <= len(up):
        slot_value = up[card - 1]
        if slot_value == FACE_DOWN:
            return [PLACE_SLOT_0 + card - 1]  # R5: mandatory
        if slot_value != card:
            return [PLACE_SLOT_0 + card - 1, DISCARD]  # R5: may displace the wild
    return [DISCARD]  # unplayable (R5)


def action_mask(legal: Sequence[int]) -> np.ndarray:
    """The int8 mask of the R13 actions, 1 where legal (a new array each call)."""
    return _mask_of(tuple(legal)).copy()


@functools.cache  # at most a few thousand distinct sets of legal actions
def _mask_of(legal: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[list(legal)] = 1
    return mask


def forced_action(state: TrashState) -> int:
    """The only legal action if there is exactly one (a forced move, R13), else -1."""
    phase = state.phase
    if phase == DRAW:
        return -1 if _may_take_discard(state) else DRAW_STOCK
    if phase == OVER:
        return -1
    card = state.held
    seat = state.current
    if state.is_wild[card]:
        return -1 if state.face_down[seat] else DISCARD
    up = state.up[seat]
    if 1 <= card <= len(up):
        slot_value = up[card - 1]
        if slot_value == FACE_DOWN:
            return PLACE_SLOT_0 + card - 1
        if slot_value != card:
            return -1
    return DISCARD


# --------------------------------------------------------------------------
# Applying actions


def apply_action(state: TrashState, action: int, rng: np.random.Generator) -> None:
    """Apply one legal action of R13 for ``state.current``; ``rng`` serves reshuffles (R7)
    and the deals of later hands (R9). An illegal action raises
    :class:`IllegalActionError` (a ``ValueError``) and leaves the state untouched."""
    check_action(state, action, legal_actions, action_name, PHASE_NAMES, "R13", NUM_ACTIONS)
    _apply(state, int(action), rng)


def play_forced(state: TrashState, rng: np.random.Generator, actions: list[int] | None = None) -> int:
    """Apply forced moves (R13) until a seat has a real choice or the game is over.

    Appends each action applied to ``actions`` if given; returns how many.
    """
    return apply_forced(state, rng, actions, forced_action, _apply)


def _apply(state: TrashState, action: int, rng: np.random.Generator) -> None:
    if action == DRAW_STOCK:
        _draw_stock(state, rng)
    elif action == DISCARD:
        state.discard.append(state.held)
        _end_turn(state, rng)
    elif action == TAKE_DISCARD:
        state.held = state.discard.pop()  # R4.1
        state.phase = PLACE
    else:
        _place(state, action - PLACE_SLOT_0, rng)


def _draw_stock(state: TrashState, rng: np.random.Generator) -> None:
    """R4.1 draw, with the reshuffle of R7 when the stock is empty."""
    stock = state.stock
    if not stock:
        discard = state.discard
        stock.extend(discard[:-1])
        del discard[:-1]
        if not stock:
            _hand_exhausted(state, rng)
            return
        rng.shuffle(stock)
        known = state.known_stock
        for card in stock:
            known[card] += 1
    card = stock.pop()
    # The stock is either all unknown (before any reshuffle of this hand) or all
    # known (after one): the drawn card leaves whichever count it was in.
    if state.known_stock[card]:
        state.known_stock[card] -= 1
    else:
        state.unaccounted[card] -= 1
    state.held = card
    state.phase = PLACE


def _place(state: TrashState, slot: int, rng: np.random.Generator) -> None:
    """R5: put the held card in ``slot``; the card that was there becomes the held card."""
    seat = state.current
    up = state.up[seat]
    previous = up[slot]
    up[slot] = state.held
    if previous != FACE_DOWN:
        state.held = previous  # a displaced wild card
        return
    card = state.down[seat][slot]
    state.unaccounted[card] -= 1
    state.held = card
    state.face_down[seat] -= 1
    if state.face_down[seat] == 0:
        _complete(state, seat, rng)


def _complete(state: TrashState, seat: int, rng: np.random.Generator) -> None:
    """R5: a complete layout discards the held card at once; R8/R9 decide what follows."""
    state.discard.append(state.held)
    if state.config.match and state.sizes[seat] == 1:
        state.hands_won[seat] += 1
        _game_over(state, [seat])  # R9: completing a one-slot layout wins the match at once
        return
    if not state.hand_winners:
        # R8: with a final round every other seat has one more turn; the count
        # includes the turn being ended now.
        state.final_left = state.num_players if state.config.final_turn else 1
    state.hand_winners.append(seat)
    _end_turn(state, rng)


def _end_turn(state: TrashState, rng: np.random.Generator) -> None:
    """R4.3: the turn passes to the next seat; the hand ends after the final round (R8)."""
    state.held = NO_CARD
    state.turn += 1
    if state.hand_winners:
        state.final_left -= 1
        if state.final_left == 0:
            _end_hand(state, rng)
            if state.phase == OVER:
                return
        else:
            state.current = (state.current + 1) % state.num_players
            state.phase = DRAW
    else:
        state.current = (state.current + 1) % state.num_players
        state.phase = DRAW
    if state.turn >= state.config.max_turns:
        state.truncated = True  # R7: truncated as a draw
        _game_over(state, [])


def _end_hand(state: TrashState, rng: np.random.Generator) -> None:
    """R8 end of hand; in a match (R9) the winners shrink and the next hand is dealt."""
    winners = state.hand_winners
    for seat in winners:
        state.hands_won[seat] += 1
    if not state.config.match:
        _game_over(state, winners[:])
        return
    for seat in winners:
        state.sizes[seat] -= 1
    if state.config.starter == "winner":
        first = winners[0]
    else:
        first = (state.hand_first + 1) % state.num_players
    state.hand += 1
    _deal(state, shuffled_deck(state.config, rng), first)


def _hand_exhausted(state: TrashState, rng: np.random.Generator) -> None:
    """R7: the reshuffle left the stock empty, so the hand is a draw.

    Unreachable with a configuration that R1 accepts (stock and discard pile
    always hold at least two cards between them at the start of a turn), but
    kept as the rule says. A hand that already has a winner ends with its
    winners (RULES.md, rules notes); a match redeals with the same layout sizes
    and the same first player.
    """
    state.held = NO_CARD
    if state.hand_winners:
        _end_hand(state, rng)
        return
    state.drawn_hands += 1
    if not state.config.match:
        _game_over(state, [])
        return
    state.hand += 1
    _deal(state, shuffled_deck(state.config, rng), state.hand_first)


def _game_over(state: TrashState, winners: list[int]) -> None:
    state.winners = winners
    state.phase = OVER
    state.held = NO_CARD


def returns(state: TrashState) -> list[float]:
    """R10: +1 to each winner and -1 to every other seat; 0 to all on a draw
    (an exhausted hand, R7, or truncation at ``max_turns``). Zeros until over."""
    if state.phase != OVER or not state.winners:
        return [0.0] * state.num_players
    winners = state.winners
    return [1.0 if seat in winners else -1.0 for seat in range(state.num_players)]


# The name before the game prefix (changelog).
__getattr__ = renamed(__name__, {"GameState": TrashState})
