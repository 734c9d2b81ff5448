"""Trash (Garbage), the card game: everything of the game in one folder.

- :mod:`~trash_env.trash.config`: the rules configuration, its presets and checks (R1, R11);
- :mod:`~trash_env.trash.rules`: the rules core (R1-R10, R13), the one source of truth;
- :mod:`~trash_env.trash.observation`: what a seat observes, as named pieces (R15);
- :mod:`~trash_env.trash.belief`: the public view of a state and a belief sampler over its hidden cards (R15);
- :mod:`~trash_env.trash.env`: the PettingZoo AEC env ``trash_v0``;
- :mod:`~trash_env.trash.text` and :mod:`~trash_env.trash.drawing`: the table as text and as SVG;
- :mod:`~trash_env.trash.batched`: the batched engine (Numba), tested game by game against the rules core;
- :mod:`~trash_env.trash.vec_env`: ``TrashVecEnv``, the Stable-Baselines3 vector env over it.

Its agents (``random``, ``greedy``, ``counter``, ``search``) are in :mod:`agents.baselines` and
:mod:`agents.search`.
"""
