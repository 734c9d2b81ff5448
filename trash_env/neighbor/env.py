"""
# Help Your Neighbor (`help_your_neighbor_v0`)

| Import             | `from trash_env import help_your_neighbor_v0`             |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | Yes (`trash-play --game help_your_neighbor`)              |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`              |
| Number of agents   | 2 to 8                                                    |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(12)                                              |
| Observation Shape  | (15 + 13 n,)  (41 for 2 players)                          |
| Observation Values | [0, 1]                                                    |

## Description

Help Your Neighbor is the dice game played on a Trash-like layout (RULES.md
R12). Every player has ten markers, one for each total of two dice except 7
(2, 3, 4, 5, 6, 8, 9, 10, 11 = Jack, 12 = Queen), all uncovered at the start.
On a turn a player rolls two dice:

- a 7: the roller uncovers one covered marker of their choice and the turn
  passes to the next player (with nothing covered, the turn just passes);
- a total the roller has uncovered: they cover it and may roll again or end
  the turn;
- otherwise the first player after the roller in seat order who has the total
  uncovered covers it (the roller "helps the neighbour") and the turn moves to
  that player, who then rolls;
- nobody can use it: the roller may roll again or end the turn.

The first player to cover all ten markers wins. Seat 0 plays first. There is
no hidden information: every observation shows the whole table.

The environment is a PettingZoo AEC environment. By default (`skip_forced=True`)
it plays forced moves itself (every turn's first roll, and the uncovering after
a 7 when only one marker is covered) and asks an agent only when it has at
least two legal actions (R14).

## Action Space

`Discrete(12)`, numbered as R14 (public API):

| action | meaning | legal when |
|---|---|---|
| 0 | roll the dice | at a turn's start (forced), or after a roll the roller used or nobody could |
| 1 | end the turn | when rolling again is legal after the turn's first roll |
| 2 + j (j = 0..9) | uncover the marker of the j-th total of (2, 3, 4, 5, 6, 8, 9, 10, 11, 12) | after a 7, if covered |

The legal actions are in `observation["action_mask"]` (int8, all zeros for an
agent who is not to act). Through `env()`, an illegal action ends the game with
-1 for the offender and 0 for everyone else (as PettingZoo's
`TerminateIllegalWrapper` does); `raw_env` raises a `ValueError` instead.

## Observation Space

A dict `{"observation": Box(0, 1, (15 + 13 n,), float32), "action_mask":
Box(0, 1, (12,), int8)}`, as named pieces (see
`trash_env.neighbor.observation.NeighborObserver`, whose `view()` and
`describe()` split and print a vector). Seats are relative: seat 0 is the
observer, seat 1 the next player in turn order, and so on. For n players:

| index | piece | meaning |
|---|---|---|
| 0-2 | phase | one-hot: roll (a turn's forced first roll), choose (roll or end), uncover (after a 7) |
| 3-13 | roll | one-hot total 2..12 of the last roll in the game; all 0 before the first roll |
| 14 .. 14+n-1 | current | one-hot: the seat to act (whose turn it is); all 0 once over |
| next n | privilege | one-hot: the last player who covered another's roll through the privilege (R12) |
| next 10n | covered | n x 10: per seat, per total 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 1 if covered |
| next n | left | per seat: markers still uncovered / 10 |
| next 1 | turn | turns played / `max_turns` (the turn count) |

`phase` and `current` are all 0 once the game is over; `privilege` stays
on the last player who took the privilege (who, as R12 says, then has the
turn; all 0 before anyone has). For 2
players the pieces start at 0, 3, 14, 16, 18, 38, 40 and the vector has
41 entries. The layout has a version,
`trash_env.neighbor.observation.NEIGHBOR_OBSERVATION_VERSION`, which saved
policies carry.

`env.state()` (PettingZoo's global state, for centralised critics) is seat 0's
observation, in `env.unwrapped.state_space`: nothing is hidden (R12). The game
itself (a `trash_env.neighbor.rules.NeighborState`) is `env.unwrapped.game_state`.

## Rewards

R12: +1 to the first player to cover all ten markers, -1 to every other
player; 0 to all on a draw (truncation at `max_turns`).

## Starting State

Every marker uncovered; `player_0` rolls first. The dice come from the
episode's seed, or from `reset(options={"dice": [...]})`: a list of totals
2..12 used in order for the first rolls (for tests and worked examples), after
which the episode's generator rolls.

## Episode End

The episode terminates when a player covers all ten markers. It is truncated
as a draw once `max_turns` turns have ended (default 1000, as R7; a turn ends
when it passes to another player, R12).

## Arguments

`trash_env.help_your_neighbor_v0.env(preset="standard", render_mode=None, skip_forced=True, num_players=2,
max_turns=None)`

- `preset`: `"standard"`, the only one (kept for the same signature as `trash_v0`).
- `render_mode`: `None`, `"ansi"` (render returns the table as text), `"human"` (prints it) or
  `"rgb_array"` (render returns the drawn table as an `(H, W, 3)` uint8 array; the `render` extra).
  `env.unwrapped.svg()` returns the same drawing as an SVG string in any mode.
- `skip_forced`: apply forced moves automatically (R14). With `False`, every move is asked.
- `num_players`: 2 to 8 (the published text says 3 to 8, best 4 or 5; two are allowed for training).
- `max_turns`: the turn limit (default 1000). An invalid value is a `ValueError` naming the field.

`env()` returns `raw_env` wrapped in `trash_env.wrappers.StandardChecks`, as `trash_v0`.

## Version History

* v0: Initial release.
"""

from __future__ import annotations

from typing import Any

from trash_env.aec import TurnBasedEnv, checked_env, env_metadata
from trash_env.neighbor.game import GAME
from trash_env.wrappers import StandardChecks


def env(
    preset: str = "standard", render_mode: str | None = None, skip_forced: bool = True, **overrides: Any
) -> StandardChecks:
    """`help_your_neighbor_v0` with the checks of PettingZoo's standard wrappers."""
    return checked_env(raw_env, preset, render_mode, skip_forced, **overrides)


class raw_env(TurnBasedEnv):
    """The Help Your Neighbor AEC environment without wrappers. See the module docstring."""

    game = GAME
    metadata = env_metadata(GAME)
