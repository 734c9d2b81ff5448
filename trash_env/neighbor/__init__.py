"""Help Your Neighbor, the dice relative of Trash (R12, R14): everything of the game in one folder.

- :mod:`~trash_env.neighbor.rules`: the configuration and the rules core, the one source of truth;
- :mod:`~trash_env.neighbor.observation`: what a seat observes, as named pieces;
- :mod:`~trash_env.neighbor.env`: the PettingZoo AEC env ``help_your_neighbor_v0``;
- :mod:`~trash_env.neighbor.text` and :mod:`~trash_env.neighbor.drawing`: the table as text and as SVG;
- :mod:`~trash_env.neighbor.solver`: the two-player game solved exactly, tested against the rules core;
- :mod:`~trash_env.neighbor.batched` and :mod:`~trash_env.neighbor.vec_env`: the compiled batched engine
  (2 to 8 players, tested game by game against the rules core) and ``NeighborVecEnv``, the SB3 vector
  env over it.

Its agents: ``heuristic`` (:mod:`agents.heuristic`) and ``optimal``, the solution played
(:mod:`agents.optimal`); exact evaluation against the solution is :mod:`agents.evaluation.exact`,
and the command that solves it ``trash-solve`` (:mod:`agents.commands.solve`).
"""
