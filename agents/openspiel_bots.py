"""OpenSpiel's Python search bots as agents of the ladder, and the package's agents as OpenSpiel
policies (the ``openspiel`` extra; the games are :mod:`trash_env.openspiel`).

- ``openspiel_mcts`` (Help Your Neighbor, any player count): ``open_spiel.python.algorithms.mcts``'s
  ``MCTSBot`` with a ``RandomRolloutEvaluator``. Nothing is hidden in the game (R12), so it searches
  from the table itself, its dice sampled at the chance nodes of the search.
- ``openspiel_ismcts`` (Trash): ``open_spiel.python.algorithms.ismcts``'s ``ISMCTSBot`` with a
  ``RandomRolloutEvaluator``. It is given only what its seat sees (R15): the public table of its
  view (:func:`trash_env.trash.belief.public_view`, every hidden card scrubbed). Its root is that
  table with the hidden cards drawn at random among the arrangements consistent with it
  (:func:`~trash_env.trash.belief.sample_hidden_state`), and every simulation draws them again
  (``resample_from_infostate``), so no decision can depend on where the hidden cards really are.

Both take ``simulations`` (the bot's ``max_simulations``), ``rollouts`` (random rollouts to the
game's end per evaluated leaf), ``uct_c`` (the UCT exploration constant) and ``seed``. A fresh bot
searches each decision (OpenSpiel's MCTS keeps no tree between moves), its random numbers drawn
from the seed and the agent's generator, so a seeded evaluation is reproducible. Specs take
integers (``openspiel_mcts:simulations=100,uct_c=2``); a fractional ``uct_c`` is for Python callers.

:class:`AgentPolicy` turns a package agent into an OpenSpiel ``Policy`` over its seat's view, for
OpenSpiel's exact tools (exploitability, best responses) on small games.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from agents.base import Agent, SeatView
from trash_env.extras import missing_extra
from trash_env.games import NEIGHBOR, game_of

try:
    import pyspiel
    from open_spiel.python import policy as openspiel_policy
    from open_spiel.python.algorithms import ismcts, mcts

    from trash_env import openspiel as osp
except ImportError as error:  # pragma: no cover - the extra is missing
    raise missing_extra("the OpenSpiel agents", "openspiel", error) from None

from trash_env.neighbor import rules as neighbor
from trash_env.trash.belief import sample_hidden_state
from trash_env.trash.config import PRESETS, make_config


@functools.cache
def _loaded(name: str, params: tuple[tuple[str, Any], ...]) -> Any:
    return pyspiel.load_game(name, dict(params))


def openspiel_game(config: Any) -> Any:
    """The OpenSpiel game (:mod:`trash_env.openspiel`) that plays ``config``; a one-line ValueError
    if none does (a configuration other than a preset's with the rule book's turn limit)."""
    if game_of(config) is NEIGHBOR:
        if config != neighbor.make_config(num_players=config.num_players):
            raise ValueError(f"python_help_your_neighbor plays R12's turn limit only, not max_turns={config.max_turns}")
        return _loaded(osp.NEIGHBOR_NAME, (("players", config.num_players),))
    for preset in PRESETS:
        if make_config(preset, num_players=config.num_players, match=config.match) == config:
            params = (("match", config.match), ("players", config.num_players), ("preset", preset))
            return _loaded(osp.TRASH_NAME, params)
    raise ValueError("python_trash plays the presets of R11 as they are (players and match aside), not this config")


MAX_SIMULATIONS = 1_000_000  # per decision: a million is minutes of search for one move
MAX_ROLLOUTS = 1_000  # per leaf


def _positive(agent: str, key: str, value: Any, cap: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{agent} {key} must be a positive integer, got {value!r}")
    if value > cap:
        raise ValueError(f"{agent} {key} must be at most {cap:,}, got {value:,}")


class _OpenSpielBot(Agent):
    """What both bots share: their budget, their random numbers and the game they search."""

    def __init__(self, simulations: int = 100, rollouts: int = 1, uct_c: float = 2.0, seed: int = 0) -> None:
        _positive(self.name, "simulations", simulations, MAX_SIMULATIONS)
        _positive(self.name, "rollouts", rollouts, MAX_ROLLOUTS)
        if isinstance(uct_c, bool) or not isinstance(uct_c, (int, float)) or not uct_c >= 0:
            raise ValueError(f"{self.name} uct_c must be a number 0 or more, got {uct_c!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"{self.name} seed must be an integer 0 or more, got {seed!r}")
        self.simulations, self.rollouts, self.uct_c, self.seed = simulations, rollouts, float(uct_c), seed

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        openspiel_game(config)

    def random_state(self, rng: np.random.Generator) -> np.random.RandomState:
        """The bot's generator for one decision: from ``seed`` and one draw of the agent's ``rng``."""
        words = np.random.SeedSequence([self.seed, int(rng.integers(2**63))]).generate_state(4)
        return np.random.RandomState(words)


class OpenSpielMCTS(_OpenSpielBot):
    """OpenSpiel's Python MCTS on Help Your Neighbor (R12): ``simulations`` per decision, each leaf
    valued by ``rollouts`` random rollouts, UCT with ``uct_c``; plays the most visited action."""

    name = "openspiel_mcts"
    games = ("help_your_neighbor",)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        game = openspiel_game(view.config)
        random_state = self.random_state(rng)
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        bot = mcts.MCTSBot(game, self.uct_c, self.simulations, evaluator, random_state=random_state)
        return int(bot.step(game.state_at(view.public_state)))


class OpenSpielISMCTS(_OpenSpielBot):
    """OpenSpiel's Python ISMCTS on Trash (R15): searches over the hidden cards drawn again at every
    simulation from the public table, ``simulations`` per decision, each leaf valued by
    ``rollouts`` random rollouts, UCT with ``uct_c``; plays the most visited action."""

    name = "openspiel_ismcts"
    games = ("trash",)

    def act(self, view: SeatView, rng: np.random.Generator) -> int:
        game = openspiel_game(view.config)
        random_state = self.random_state(rng)
        # The root: the public table (R15) with its hidden cards drawn anew; the search draws them
        # again at every simulation, through the same generator.
        root = sample_hidden_state(view.public_state, np.random.default_rng(random_state.randint(2**32)))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations, random_state=random_state)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.uniform))
        return int(bot.step(game.state_at(root)))


class AgentPolicy(openspiel_policy.Policy):
    """A package agent as an OpenSpiel policy of ``game`` (a :mod:`trash_env.openspiel` game), for
    every player: at a state it is asked what its seat's view (R15) shows, as in play. An agent that
    decides in batches gives its probabilities (``policy_batch``: ``random`` is uniform); any other
    is taken to be deterministic (``greedy``, ``counter``) and asked once, without a generator.
    A forced move (one legal action, which OpenSpiel asks and the agents never are) is certain."""

    def __init__(self, game: Any, agent: Agent) -> None:
        super().__init__(game, list(range(game.num_players())))
        self.agent = agent
        self._config = game.shared.config
        self._observer = game_of(self._config).make_observer(self._config)
        agent.check_config(self._config)

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        legal = state.legal_actions()
        if len(legal) == 1:
            return {legal[0]: 1.0}
        table = state.game_state
        view = SeatView(table, table.current, self._observer, game_of(self._config))
        if self.agent.batchable:
            row = self.agent.policy_batch(view.observation[None], view.action_mask[None])[0]
            return {action: float(row[action]) for action in legal}
        action = self.agent.act(view, None)
        return {a: float(a == action) for a in legal}
