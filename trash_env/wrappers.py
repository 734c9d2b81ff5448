"""One lean wrapper with the guarantees of PettingZoo's three standard classic wrappers.

PettingZoo's classic environments wrap ``raw_env`` in ``TerminateIllegalWrapper``,
``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``. Stacked, those three
cost more per step than the whole Trash game, so :class:`StandardChecks` does
the same checks in one layer:

- order enforcement: ``step``, ``observe``, ``last``, ``render``, ``state`` and
  ``agent_iter`` before ``reset`` raise, as does reading ``agents``,
  ``rewards``, ``terminations``, ``truncations``, ``infos``,
  ``agent_selection`` or ``num_agents``; ``step`` once every agent is done warns;
- bounds: an action outside the action space is an ``AssertionError``;
- illegal moves: a legal-but-masked action ends the game with ``illegal_reward``
  for the offender and 0 for every other agent, all terminated and truncated.

It subclasses ``OrderEnforcingWrapper``, so code that checks for that class (or
uses its ``agent_iter`` checks) keeps working. ``tests/trash/test_trash_env.py``
(``test_env_matches_pettingzoo_stack``) plays the same games, random illegal moves
included, through this wrapper and through PettingZoo's stack and compares every step.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from trash_env.kernel import IllegalActionError


class StandardChecks(OrderEnforcingWrapper):
    """Order enforcement, action bounds and illegal-move termination in one layer."""

    def __init__(self, env: Any, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._illegal_reward = float(illegal_reward)
        self._raw = env.unwrapped
        self._num_actions = self._raw.action_space(self._raw.possible_agents[0]).n

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if type(action) is not int or not 0 <= action < self._num_actions:
            assert (action is None and dead) or raw.action_space(agent).contains(action), (
                "action is not in action space"
            )
        if dead:
            raw.step(action)  # a dead agent's step: only None is accepted
            return
        try:
            raw.step(action)  # checks legality before it changes anything
        except IllegalActionError:
            EnvLogger.warn_on_illegal_move()
            raw.end_by_illegal_move(agent, self._illegal_reward)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.last(observe)

    # The attributes read on every step, forwarded without ``__getattr__``.
    def _forward(name: str) -> property:  # noqa: N805 - a class-body helper
        def read(self: StandardChecks) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

        return property(read)

    agents = _forward("agents")
    agent_selection = _forward("agent_selection")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    del _forward
