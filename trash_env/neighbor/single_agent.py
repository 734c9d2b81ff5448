"""Help Your Neighbor for one learner seat, a Gymnasium environment (``HelpYourNeighborSingleAgent-v0``):
:class:`trash_env.single_agent.SingleAgentEnv` on the dice game."""

from __future__ import annotations

from trash_env.neighbor.game import GAME
from trash_env.single_agent import SingleAgentEnv


class NeighborSingleAgentEnv(SingleAgentEnv):
    """Help Your Neighbor (R12, R14) for one learner seat (gymnasium id
    ``HelpYourNeighborSingleAgent-v0``): the same environment as
    :class:`~trash_env.trash.single_agent.TrashSingleAgentEnv` on the dice game, `Discrete(12)` actions and the
    observation of ``help_your_neighbor_v0``. ``reset(options={"dice": [...]})``
    stacks the first rolls. Arguments: ``opponents``, ``learner_seat``,
    ``render_mode``, ``illegal_reward``, ``num_players`` and ``max_turns``."""

    game = GAME
