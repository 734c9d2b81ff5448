"""Training as a library: Stable-Baselines3 (:mod:`agents.training.sb3`, behind ``trash-train`` and
``train.py``) and Ray RLlib (:mod:`agents.training.rllib`, behind ``trash-train-rllib``), each a
``train(args, ...)`` that returns a :class:`~agents.training.runs.TrainResult`; the run folders
both write and the steps they share are :mod:`agents.training.runs`."""
