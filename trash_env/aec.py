"""The PettingZoo AEC environment written once for every game (a :class:`~trash_env.game.Game` descriptor).

``trash_v0`` (:mod:`trash_env.trash.env`) and ``help_your_neighbor_v0``
(:mod:`trash_env.neighbor.env`) are subclasses that name their game and
document it; everything an AEC env does (reset with a per-episode seed,
skipping forced moves, rewards, illegal moves, observations with action
masks, rendering, game records) is here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from trash_env.game import Game
from trash_env.records import make_record
from trash_env.wrappers import StandardChecks

_EPISODE_SEED_BOUND = 2**63


def env_metadata(game: Game) -> dict[str, Any]:
    """The PettingZoo ``metadata`` of ``game``'s AEC environment: the same for every game but its name."""
    return {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": game.env_name,
        "is_parallelizable": False,
        "render_fps": 2,
    }


def checked_env(raw_class: type, preset: str, render_mode: str | None, skip_forced: bool, **overrides: Any) -> Any:
    """``raw_class(...)`` with the checks of PettingZoo's standard wrappers (order, bounds,
    illegal moves: -1 to the offender), in one lean wrapper (:mod:`trash_env.wrappers`)."""
    return StandardChecks(
        raw_class(preset, render_mode=render_mode, skip_forced=skip_forced, **overrides), illegal_reward=-1
    )


class TurnBasedEnv(AECEnv, EzPickle):
    """A turn-based game of :mod:`trash_env.games` as a PettingZoo AEC environment.

    Subclasses set ``game`` and ``metadata`` (:func:`env_metadata` of the game).
    """

    game: Game
    metadata: dict[str, Any]

    def __init__(
        self,
        preset: str = "standard",
        render_mode: str | None = None,
        skip_forced: bool = True,
        flat_observation: bool = False,
        **overrides: Any,
    ):
        EzPickle.__init__(self, preset, render_mode, skip_forced, flat_observation, **overrides)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not one of {[None, *self.metadata['render_modes']]}")
        for name, value in (("skip_forced", skip_forced), ("flat_observation", flat_observation)):
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, got {value!r}")
        self.flat_observation = flat_observation
        game = self.game
        self.config = game.make_config(preset, **overrides)
        self.preset = preset
        self.render_mode = render_mode
        self.skip_forced = skip_forced
        self.observer = game.make_observer(self.config)
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation = spaces.Box(0.0, 1.0, (self.observer.size,), np.float32)
        mask = spaces.Box(0, 1, (game.num_actions,), np.int8)
        seen = observation if flat_observation else spaces.Dict({"observation": observation, "action_mask": mask})
        self.observation_spaces = dict.fromkeys(self.possible_agents, seen)
        self.action_spaces = {agent: spaces.Discrete(game.num_actions) for agent in self.possible_agents}
        self.global_state = game.make_global_state(self.config)
        self.state_space = spaces.Box(0.0, 1.0, (self.global_state.size,), np.float32)
        self._seeder: np.random.Generator | None = None
        self.game_state: Any = None

    def state(self) -> np.ndarray:
        """PettingZoo's global state, for centralised critics (MAPPO, QMIX): everything, hidden cards
        included, in ``state_space`` (the pieces are in ``env.unwrapped.global_state``). The game
        itself is ``env.unwrapped.game_state``."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before state()")
        return self.global_state.encode(self.game_state)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode; ``options={deal_option: ...}`` fixes the deal (a stacked
        deck for Trash, stacked dice for Help Your Neighbor).

        Each episode gets its own seed, drawn from the generator that ``seed``
        (re)starts, so an episode can be replayed from its record alone.
        """
        game = self.game
        deal = options.get(game.deal_option) if isinstance(options, dict) else None
        if deal is not None:
            deal = game.check_deal(self.config, deal)  # a bad deal changes nothing
        if seed is not None or self._seeder is None:
            self._seeder = np.random.default_rng(seed)
        self.episode_seed = int(self._seeder.integers(_EPISODE_SEED_BOUND))
        self._deal = deal
        self._start_episode()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        if self.skip_forced:
            game.play_forced(self.game_state, self._rng, self.actions)
            if self.game_state.over:
                # R13/R14: the whole episode would pass with no choice at all: deal the
                # same episode again (same seed, same deal) and ask for its first move.
                self._start_episode()
        self.agent_selection = self.possible_agents[self.game_state.current]
        self._masks_in_infos()
        if self.render_mode == "human":
            self.render()

    def _masks_in_infos(self) -> None:
        """With ``flat_observation``: each agent's action mask in its info (int8, all zeros but for the
        agent to act), as PettingZoo's guidance for masked envs with plain observations has it."""
        if self.flat_observation:
            for agent in self.agents:
                self.infos[agent] = {**self.infos.get(agent, {}), "action_mask": self._mask(agent)}

    def _start_episode(self) -> None:
        self._rng = np.random.default_rng(self.episode_seed)
        self.game_state = self.game.new_game(self.config, self._rng, self._deal)
        self._recorded_deal = self.game.record_deal(self.game_state, self._deal)  # before any move
        self.actions: list[int] = []

    # ------------------------------------------------------------------ step

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state, rng, game = self.game_state, self._rng, self.game
        game.apply_action(state, action, rng)  # raises ValueError on an illegal action
        self.actions.append(int(action))
        if self.skip_forced:
            game.play_forced(state, rng, self.actions)
        self._cumulative_rewards[agent] = 0.0
        if state.over:
            self.rewards = dict(zip(self.agents, game.returns(state)))
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
        self._masks_in_infos()
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
        self._masks_in_infos()
        self._deads_step_first()

    # ------------------------------------------------------------------ observe

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """``agent``'s observation (R15: what its seat sees) and its action mask (int8: all zeros unless
        it is to act); with ``flat_observation`` the observation array alone, the mask in its info."""
        observation = self.observer.encode(self.game_state, self.agent_name_mapping[agent])
        if self.flat_observation:
            return observation
        return {"observation": observation, "action_mask": self._mask(agent)}

    def _mask(self, agent: str) -> np.ndarray:
        state, game = self.game_state, self.game
        to_act = self.agent_name_mapping[agent] == state.current and not state.over
        if to_act and not self.terminations.get(agent, True):
            return game.action_mask(game.legal_actions(state))
        return game.action_mask(())

    def game_record(self) -> dict[str, Any]:
        """The episode so far as a JSON-serialisable record (see ``trash_env.records``);
        ``trash_env.replay(record)`` plays it again to the same state."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before game_record()")
        return self._record()

    def _record(self) -> dict[str, Any]:
        return make_record(
            self.game, self.config, self.episode_seed, self._recorded_deal, self._deal is not None, self.actions,
            self.game_state,
        )  # fmt: skip

    # ------------------------------------------------------------------ render

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            from trash_env.rendering.image import svg_to_rgb

            return svg_to_rgb(self.svg())
        text = self.game.render(self.game_state, self.possible_agents)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def svg(self) -> str:
        """The table as an SVG document (a string), whatever the render mode: the drawing
        ``rgb_array`` rasterises (needs the ``render`` extra)."""
        return self.game.draw(self.game_state, self.possible_agents)

    def close(self) -> None:
        pass
