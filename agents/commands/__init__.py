"""The command-line entry points, each a console script: thin layers that parse their arguments, call
the library and print. Nothing outside this package imports it.

``trash-train`` (:mod:`~agents.commands.train`), ``trash-train-rllib``
(:mod:`~agents.commands.train_rllib`), ``trash-evaluate`` (:mod:`~agents.commands.evaluate`),
``trash-play`` (:mod:`~agents.commands.play`, in the browser :mod:`~agents.commands.web`),
``trash-record`` (:mod:`~agents.commands.record`), ``trash-replay`` (:mod:`~agents.commands.replay`),
``trash-bench`` (:mod:`~agents.commands.bench`), ``trash-solve`` (:mod:`~agents.commands.solve`) and
``trash-demo`` (:mod:`~agents.commands.demo`).
"""
