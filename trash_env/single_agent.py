"""
# Trash, single agent (`TrashSingleAgent-v0`)

## Description

One learner seat plays Trash (RULES.md) against opponents that move inside
`step()`, so every transition and reward is from the learner's point of view.
This is the environment for Gymnasium-style learners such as Stable-Baselines3
(MaskablePPO reads `action_masks()`). `NeighborSingleAgentEnv`
(`HelpYourNeighborSingleAgent-v0`) is the same environment for the dice game
Help Your Neighbor (R12, R14). The learner is asked only at its real
choices (R13: forced moves are played for it), opponents are asked at theirs.

Opponents are agent objects with an `act(view, rng) -> action` method (every
agent of the `agents` package) or plain callables `f(view, rng) -> action`,
where `view` is a `trash_env.view.SeatView` of their seat. At every reset each
opponent seat draws one of the given opponents uniformly (a pool for
self-play). `set_opponents()` replaces the pool between episodes. Every
opponent that has a `check_config` method (all agents of the package) is
checked against the env's rules when it is seated: a policy trained for other
rules (another preset, player count or layout size) or an agent of the other
game is a `ValueError` naming the fields that differ, never a silent game on
observations that mean something else.

## Action Space

`Discrete(13)`, numbered as R13: 0 draw from the stock, 1 take the top
discard, 2 + i place the held card in slot i, 12 discard. `action_masks()`
returns the legal actions as a bool array (sb3-contrib's API), and
`info["action_mask"]` the same as `int8` (what Gymnasium's
`Discrete.sample(mask=...)` takes, and PettingZoo's `action_mask`): so
`env.action_space.sample(mask=info["action_mask"])` plays a random legal move.
The step that ends an episode has an all-zero mask (no action is legal). In
a Gymnasium vector env with its default `NEXT_STEP` autoreset the call after
that step resets the game and ignores its action, so any action will do there;
`action_space.sample(mask=...)` returns 0 for an all-zero mask.
An illegal action (possible only for learners that ignore masks, like plain
PPO or DQN) ends the episode at once with reward `illegal_reward` (default
-1) and `info["illegal_action"] = True`; it is never replaced by a legal one.

## Observation Space

`Box(0, 1, (62 + 44 n,), float32)`: the learner seat's observation of
`trash_v0` (R15), the same named pieces and index table (see
`trash_env.trash.env` and `trash_env.trash.observation.TrashObserver`), learner first.

## Rewards

R10 from the learner's seat, at the end: +1 if it won the hand (in a match:
the match), -1 if another seat did, 0 on a draw. 0 on every other step.

## Starting State

A shuffled deck (or `reset(options={"deck": [...]})`), dealt as R3. The
learner's seat is `learner_seat`, or drawn uniformly at each reset when it is
`None` (default). Opponents before the learner play their turns inside
`reset()`. R13: if the learner would have no real choice in the whole episode,
its first move is asked even though it is forced; a deal on which the learner
would not move at all (another seat wins before the learner's first turn) is
replaced by the next deal.

## Episode End

Terminated when the hand (match) ends, or on an illegal action; truncated as
a draw at `max_turns` (R7).

## Arguments

`TrashSingleAgentEnv(preset="standard", opponents=None, learner_seat=None,
render_mode=None, illegal_reward=-1.0, **overrides)`: `opponents` is a
sequence of agents or callables (default: one uniformly random legal player);
`**overrides` are rules fields as in `trash_env.env()`. `render_mode` is `None`,
`"ansi"`, `"human"` or `"rgb_array"` (the drawn table as an `(H, W, 3)` uint8
array, the learner's row marked; `render_fps` is set for Gymnasium's
`RecordVideo`); `env.unwrapped.svg()` is the same drawing as SVG.

## Version History

* v0: Initial release.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from trash_env.game import Game
from trash_env.view import SeatView

Opponent = Any  # an object with act(view, rng) -> int, or a callable (view, rng) -> int
_MAX_REDEALS = 100


def uniform_random_opponent(view: SeatView, rng: np.random.Generator) -> int:
    """The default opponent: uniform over the legal actions."""
    return view.legal_actions[int(rng.integers(len(view.legal_actions)))]


def _as_policy(opponent: Opponent) -> Callable[[SeatView, np.random.Generator], int]:
    act = getattr(opponent, "act", None)
    if callable(act):
        return act
    if callable(opponent):
        return opponent
    raise ValueError(f"an opponent must have an act(view, rng) method or be a callable, got {opponent!r}")


class SingleAgentEnv(gymnasium.Env):
    """One learner seat of a game (a :class:`~trash_env.game.Game` descriptor, the class's ``game``)
    against opponents played inside ``step``. See the module docstring; each game's folder names its
    own (:class:`trash_env.trash.single_agent.TrashSingleAgentEnv`,
    :class:`trash_env.neighbor.single_agent.NeighborSingleAgentEnv`)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}
    game: Game

    def __init__(
        self,
        preset: str = "standard",
        opponents: Sequence[Opponent] | None = None,
        learner_seat: int | None = None,
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        **overrides: Any,
    ) -> None:
        game = self.game
        self.config = game.make_config(preset, **overrides)
        self.preset = preset
        n = self.config.num_players
        if learner_seat is not None:
            if (
                isinstance(learner_seat, bool)
                or not isinstance(learner_seat, numbers.Integral)
                or not 0 <= learner_seat < n
            ):
                raise ValueError(f"learner_seat={learner_seat!r} must be None or a seat 0..{n - 1}")
            learner_seat = int(learner_seat)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not one of {[None, *self.metadata['render_modes']]}")
        self.learner_seat_option = learner_seat
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.set_opponents(opponents if opponents is not None else [uniform_random_opponent])
        self.observer = game.make_observer(self.config)
        self.observation_space = spaces.Box(0.0, 1.0, (self.observer.size,), np.float32)
        self.action_space = spaces.Discrete(game.num_actions)
        self.state: Any = None
        self.seat = 0
        self._legal: list[int] = []

    def set_opponents(self, opponents: Sequence[Opponent]) -> None:
        """Replace the opponent pool; takes effect at the next reset. An opponent with a
        ``check_config`` method (every agent of the ``agents`` package) is checked against this
        env's rules: a policy trained for other rules, or an agent of the other game, is a
        ``ValueError`` naming what differs. Plain callables are taken as they are."""
        if isinstance(opponents, (str, bytes)) or not isinstance(opponents, Sequence):
            raise ValueError(f"opponents must be a sequence (a pool) of opponents, got {opponents!r}")
        for opponent in opponents:
            check = getattr(opponent, "check_config", None)
            if callable(check):
                check(self.config)
        policies = [_as_policy(o) for o in opponents]
        if not policies:
            raise ValueError("opponents must hold at least one opponent")
        self._pool = policies

    # ------------------------------------------------------------------ episode

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        deal = options.get(self.game.deal_option) if isinstance(options, dict) else None
        if deal is not None:
            deal = self.game.check_deal(self.config, deal)
        for _ in range(_MAX_REDEALS):
            if self._deal(deal):
                if self.render_mode == "human":
                    self.render()
                return self._observation(), self._info()
            deal = None  # the learner would not move at all on this deal: take the next one
        raise RuntimeError(
            f"no deal in {_MAX_REDEALS} gave the learner a move (max_turns={self.config.max_turns} "
            f"may end every game before seat {self.seat} plays)"
        )

    def _deal(self, deal: Any) -> bool:
        """Deal an episode and advance to the learner's first real choice (R13)."""
        n = self.config.num_players
        rng = self.np_random
        self.episode_seed = int(rng.integers(2**63))
        if self.learner_seat_option is None:
            self.seat = int(rng.integers(n))
        else:
            self.seat = self.learner_seat_option
        seat_opponents = [self._pool[int(rng.integers(len(self._pool)))] for _ in range(n)]
        self._opponents = seat_opponents
        self._start(deal)
        if self._advance():
            return True
        # No real choice for the learner in the whole episode: deal it again and stop
        # at the learner's first move, forced or not.
        self._start(deal)
        return self._advance(first_move=True)

    def _start(self, deal: Any) -> None:
        self._game_rng = np.random.default_rng(self.episode_seed)
        self._opponent_rng = np.random.default_rng([self.episode_seed, 1])
        self.state = self.game.new_game(self.config, self._game_rng, deal)

    def _advance(self, first_move: bool = False) -> bool:
        """Play forced moves and opponents until the learner must choose; False if the
        game ends first. With ``first_move`` stop at any move of the learner."""
        state, rng, game = self.state, self._game_rng, self.game
        while not state.over:
            if state.current == self.seat:
                legal = game.legal_actions(state)
                if len(legal) > 1 or first_move:
                    self._legal = legal
                    return True
                game.apply_action(state, legal[0], rng)
                continue
            forced = game.forced_action(state)
            if forced >= 0:
                game.apply_action(state, forced, rng)
                continue
            view = SeatView(state, state.current, self.observer, game)
            game.apply_action(state, self._opponents[state.current](view, self._opponent_rng), rng)
        return False

    def step(self, action: Any):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.over or not self._legal:
            raise RuntimeError("the episode is over: call reset()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an integer 0..{self.game.num_actions - 1}, got {action!r}")
        if action not in self._legal:
            self._legal = []
            info = {**self._info(), "illegal_action": True, "action_mask": self.game.action_mask(()).astype(np.int8)}
            return self._observation(), self.illegal_reward, True, False, info
        self.game.apply_action(self.state, int(action), self._game_rng)
        learner_to_act = self._advance()
        if self.render_mode == "human":
            self.render()
        if learner_to_act:
            return self._observation(), 0.0, False, False, self._info()
        self._legal = []
        reward = self.game.returns(self.state)[self.seat]
        truncated = self.state.truncated
        return self._observation(), reward, not truncated, truncated, self._info()

    # ------------------------------------------------------------------ views

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now, as bools (sb3-contrib's MaskablePPO API)."""
        return self.game.action_mask(self._legal).astype(bool)

    def _observation(self) -> np.ndarray:
        return self.observer.encode(self.state, self.seat)

    def _info(self) -> dict[str, Any]:
        # int8 as Gymnasium's Discrete.sample(mask=...) requires and PettingZoo's classic envs give
        return {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat}

    def svg(self) -> str:
        """The table as an SVG document (a string), whatever the render mode; the learner's row is
        marked. Needs the ``render`` extra, and a reset."""
        if self.state is None:
            raise RuntimeError("reset() the env before drawing it")
        names = [f"player_{s}" + " (learner)" * (s == self.seat) for s in range(self.config.num_players)]
        return self.game.draw(self.state, names)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None or self.state is None:
            return None
        if self.render_mode == "rgb_array":
            from trash_env.rendering.image import svg_to_rgb

            return svg_to_rgb(self.svg())
        names = [("learner" if s == self.seat else f"seat_{s}") for s in range(self.config.num_players)]
        text = self.game.render(self.state, names)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None
