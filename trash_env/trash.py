"""
# Trash (`trash_v0`)

| Import             | `from trash_env import trash_v0` (or `trash_env.env()`)  |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | Yes (`python -m agents.play`, later issue)                |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`              |
| Agents             | 2 to 8                                                    |
| Action Shape       | (1,)                                                      |
| Action Values      | Discrete(13)                                              |
| Observation Shape  | (62 + 44 n,)  (150 for 2 players)                         |
| Observation Values | [0, 1]                                                    |

## Description

Trash (also called Garbage) is a card game of luck and a few real decisions.
Each player has a layout of face-down cards, one slot per rank from Ace up
(10 slots in the standard game). On a turn a player draws from the stock (or
takes the top discard, where the rules allow), and places the held card in
its own slot, turning up the face-down card there, which is placed in turn,
and so on, until the held card cannot be placed and is discarded. Kings (or
Jacks, or Jokers) are wild. The first player whose layout is all face up wins
the hand. The rules are those of `shared/RULES.md`; every rule is cited by its
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
nothing else, as named pieces (see `trash_env.observation.Observer`, whose
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
a version, `trash_env.observation.OBSERVATION_VERSION`, which saved policies
carry.

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
- `render_mode`: `None`, `"ansi"` (render returns the table as text) or `"human"` (prints it).
- `skip_forced`: apply forced moves automatically (R13). With `False`, every move is asked.
- `**overrides`: any field of `trash_env.RulesConfig`: `num_players`, `layout_size`,
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

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from trash_env import core
from trash_env.config import RulesConfig, make_config
from trash_env.observation import Observer
from trash_env.records import make_record
from trash_env.render import render_table
from trash_env.wrappers import StandardChecks

_EPISODE_SEED_BOUND = 2**63


def env(
    preset: str = "standard", render_mode: str | None = None, skip_forced: bool = True, **overrides: Any
) -> StandardChecks:
    """`trash_v0` with the checks of PettingZoo's standard wrappers (order, bounds, illegal moves)."""
    return StandardChecks(
        raw_env(preset, render_mode=render_mode, skip_forced=skip_forced, **overrides), illegal_reward=-1
    )


class raw_env(AECEnv, EzPickle):
    """The Trash AEC environment without wrappers. See the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "name": "trash_v0", "is_parallelizable": False, "render_fps": 2}

    def __init__(
        self, preset: str = "standard", render_mode: str | None = None, skip_forced: bool = True, **overrides: Any
    ):
        EzPickle.__init__(self, preset, render_mode, skip_forced, **overrides)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not one of {[None, *self.metadata['render_modes']]}")
        if not isinstance(skip_forced, bool):
            raise ValueError(f"skip_forced must be True or False, got {skip_forced!r}")
        self.config: RulesConfig = make_config(preset, **overrides)
        self.preset = preset
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.observer = Observer(self.config)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (self.observer.size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (core.NUM_ACTIONS,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(core.NUM_ACTIONS) for agent in self.possible_agents}
        self._seeder: np.random.Generator | None = None
        self.state: core.GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new episode. ``options={"deck": [...]}`` stacks the deck (R3).

        Each episode gets its own seed, drawn from the generator that ``seed``
        (re)starts, so an episode can be replayed from its record alone.
        """
        deck = options.get("deck") if options else None
        if deck is not None:
            deck = core.check_deck(self.config, deck)  # a bad deck changes nothing
        if seed is not None or self._seeder is None:
            self._seeder = np.random.default_rng(seed)
        self.episode_seed = int(self._seeder.integers(_EPISODE_SEED_BOUND))
        self._rng = np.random.default_rng(self.episode_seed)
        self.state = core.new_game(self.config, self._rng, deck)
        self._deck_given = deck is not None
        self._first_deck = self.state.deck
        self.actions: list[int] = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        if self.skip_forced:
            self._play_first_forced_moves(deck)
        self.agent_selection = self.possible_agents[self.state.current]
        if self.render_mode == "human":
            self.render()

    def _play_first_forced_moves(self, deck: list[int] | None) -> None:
        """R13: skip forced moves, unless the whole episode would pass with no
        choice at all: then the first move is asked even though it is forced."""
        core.play_forced(self.state, self._rng, self.actions)
        if self.state.phase == core.OVER:
            # Deal the same episode again (same seed, same deck) and stop before its first move.
            self._rng = np.random.default_rng(self.episode_seed)
            self.state = core.new_game(self.config, self._rng, deck)
            self.actions.clear()

    # ------------------------------------------------------------------ step

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state, rng = self.state, self._rng
        core.apply_action(state, action, rng)  # raises ValueError on an illegal action
        self.actions.append(int(action))
        if self.skip_forced:
            core.play_forced(state, rng, self.actions)
        self._cumulative_rewards[agent] = 0.0
        if state.phase == core.OVER:
            self.rewards = dict(zip(self.agents, core.returns(state)))
            done = dict.fromkeys(self.agents, True)
            if state.truncated:
                self.truncations = done
            else:
                self.terminations = done
            self._accumulate_rewards()
        else:
            rewards = self.rewards
            for agent_name in rewards:
                rewards[agent_name] = 0.0
        self.agent_selection = self.possible_agents[state.current]
        if self.render_mode == "human":
            self.render()

    def end_by_illegal_move(self, agent: str, reward: float) -> None:
        """End the game because ``agent`` made an illegal move, as PettingZoo's
        ``TerminateIllegalWrapper`` does: ``reward`` to the offender, 0 to the others,
        every agent terminated and truncated."""
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = float(reward)
        self._accumulate_rewards()
        self._deads_step_first()

    # ------------------------------------------------------------------ observe

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        state = self.state
        if seat == state.current and state.phase != core.OVER and not self.terminations.get(agent, True):
            mask = core.action_mask(core.legal_actions(state))
        else:
            mask = core.action_mask(())
        return {"observation": self.observer.encode(state, seat), "action_mask": mask}

    def game_record(self) -> dict[str, Any]:
        """The episode so far as a JSON-serialisable record (see ``trash_env.records``)."""
        state = self.state
        if state is None:
            raise RuntimeError("reset() must be called before game_record()")
        return make_record(self.config, self.episode_seed, self._first_deck, self._deck_given, self.actions, state)

    # ------------------------------------------------------------------ render

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        text = render_table(self.state, self.possible_agents)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        pass
