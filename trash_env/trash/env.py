"""
# Trash (`trash_v0`)

| Import             | `from trash_env import trash_v0` (or `trash_env.env()`)  |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | Yes (`trash-play`)                                        |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`              |
| Number of agents   | 2 to 8                                                    |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(13)                                              |
| Observation Shape  | (62 + 44 n,)  (150 for 2 players)                         |
| Observation Values | [0, 1]                                                    |
| State Shape        | 90 + 184 n floats (`env.state()`, hidden cards included)  |

## Description

Trash (also called Garbage) is a card game of luck and a few real decisions.
Each player has a layout of face-down cards, one slot per rank from Ace up
(10 slots in the standard game). On a turn a player draws from the stock (or
takes the top discard, where the rules allow), and places the held card in
its own slot, turning up the face-down card there, which is placed in turn,
and so on, until the held card cannot be placed and is discarded. Kings (or
Jacks, or Jokers) are wild. The first player whose layout is all face up wins
the hand. The rules are those of the rule book (`RULES.md`); every rule is cited by its
section (R1..R15) in the code and the tests.

The environment is a PettingZoo AEC environment. By default (`skip_forced=True`)
it plays forced moves itself and asks an agent only when it has at least two
legal actions (R13).

## Action Space

`Discrete(13)`, numbered as R13 (public API):

| action | meaning | legal when |
|---|---|---|
| 0 | draw the top card of the stock | at the start of a turn |
| 1 | take the top card of the discard pile | at the start of a turn, as `discard_draw` allows (R4) |
| 2 + i (i = 0..9) | place the held card in slot i | R5 allows the held card in slot i |
| 12 | discard the held card, ending the turn | holding a card whose placement is not mandatory (R5) |

The legal actions are in `observation["action_mask"]` (int8, all zeros for an
agent who is not to act). Through `env()`, an illegal action ends the game with
-1 for the offender and 0 for everyone else (as PettingZoo's
`TerminateIllegalWrapper` does); `raw_env` raises a `ValueError` instead.

## Observation Space

A dict `{"observation": Box(0, 1, (62 + 44 n,), float32), "action_mask":
Box(0, 1, (13,), int8)}`. The observation is everything public (R15) and
nothing else, as named pieces (see `trash_env.trash.observation.TrashObserver`, whose
`view()` and `describe()` split and print a vector). Seats are relative: seat
0 is the observer, seat 1 the next player in turn order, and so on. For n
players:

| index | piece | meaning |
|---|---|---|
| 0-1 | phase | one-hot: draw phase, place phase (all 0 once the game is over) |
| 2-15 | held | one-hot rank of the held card (0 = Joker .. 13 = King); all 0 if none |
| 16-29 | discard_top | one-hot rank of the top discard; all 0 if the pile is empty |
| 30 .. 30+40n-1 | slots | n x 10 x 4: per seat, per slot, one-hot face_down / filled / wild_filled / not_in_layout |
| next n | current | one-hot: the seat to act |
| next n | completed | 1 for each seat that completed its layout in this hand (R8) |
| next 1 | final_round | 1 while the final round of R8 is under way |
| next 1 | discard_playable | 1 if the top discard could be placed in the observer's layout now (R4, R5) |
| next n | layout_size | layout size per seat / 10 (R9 shrinks it in a match) |
| next n | hands_won | hands won in this match / 10 |
| next 1 | stock_size | cards in the stock / cards in the deck |
| next 1 | discard_size | cards in the discard pile / cards in the deck |
| next 14 | known_in_stock | per rank: copies known to be in the stock after a reshuffle (R7) / copies in the deck |
| next 14 | unaccounted | per rank: copies face down or in the stock, place unknown / copies in the deck |

For 2 players the pieces start at 0, 2, 16, 30, 110, 112, 114, 115, 116,
118, 120, 121, 122, 136 and the vector has 150 entries. The observation layout has
a version, `trash_env.trash.observation.OBSERVATION_VERSION`, which saved policies
carry.

### Global state

`env.state()` (PettingZoo's method for centralised critics, such as MAPPO's
value network or QMIX's mixer) returns a vector of 90 + 184 n floats in [0, 1]
(458 for two players) (`env.unwrapped.state_space`) that also holds what no player sees:
seat 0's observation (seats in absolute order), then per seat and slot the
one-hot rank of the face-down card, the stock's per-rank counts and the rank of
its top card (the next draw); the stock's order below the top is left out.
`env.unwrapped.global_state` names the pieces (`view`, `describe`). Train a
critic on it, never a policy: a policy that reads hidden cards cannot be played.
The game itself (a `trash_env.trash.rules.TrashState`) is `env.unwrapped.game_state`.

## Rewards

R10. A hand (default): +1 to each winner of the hand, -1 to every other player,
0 to all on a draw (an exhausted stock, R7, or truncation at `max_turns`). A
match (`match=True`): +1 to the match winner, -1 to the others, at the end.

## Starting State

The deck is shuffled with the episode's seed (or given by
`reset(options={"deck": [...]})`, a list of ranks 0 = Joker, 1 = Ace ..
13 = King holding exactly the configured cards) and dealt face down as R3
says; `player_0` plays first. The discard pile is empty.

## Episode End

The episode terminates when the hand (or, with `match=True`, the match) is
won, or when a hand ends as a draw. It is truncated as a draw after
`max_turns` turns in all (default 1000, 10000 for a match; R7).

## Arguments

`trash_env.env(preset="standard", render_mode=None, skip_forced=True, **overrides)`

- `preset`: one of `standard`, `pagat`, `jokers`, `eight_card`, `seven_up` (R11).
- `render_mode`: `None`, `"ansi"` (render returns the table as text), `"human"` (prints it) or
  `"rgb_array"` (render returns the drawn table as an `(H, W, 3)` uint8 array; the `render` extra).
  `env.unwrapped.svg()` returns the same drawing as an SVG string in any mode.
- `skip_forced`: apply forced moves automatically (R13). With `False`, every move is asked.
- `**overrides`: any field of `trash_env.TrashConfig`: `num_players`, `layout_size`,
  `wild`, `jokers`, `discard_draw`, `final_turn`, `match`, `starter`, `num_decks`,
  `max_turns`. An invalid value is a `ValueError` naming the field.

`env()` returns `raw_env` wrapped in `trash_env.wrappers.StandardChecks`, one lean
wrapper that gives the guarantees of PettingZoo's standard classic wrappers.

## Version History

* v0: Initial release. Observation layout v2 adds `discard_playable` (it
  helps learners with the game's main choice, take the discard or draw).
"""

from __future__ import annotations

from typing import Any

from trash_env.aec import TurnBasedEnv, checked_env, env_metadata
from trash_env.trash.game import GAME
from trash_env.wrappers import StandardChecks


def env(
    preset: str = "standard", render_mode: str | None = None, skip_forced: bool = True, **overrides: Any
) -> StandardChecks:
    """`trash_v0` with the checks of PettingZoo's standard wrappers (order, bounds, illegal moves)."""
    return checked_env(raw_env, preset, render_mode, skip_forced, **overrides)


class raw_env(TurnBasedEnv):
    """The Trash AEC environment without wrappers. See the module docstring."""

    game = GAME
    metadata = env_metadata(GAME)
