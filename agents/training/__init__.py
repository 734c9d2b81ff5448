"""Training as a library: Stable-Baselines3 (:mod:`agents.training.sb3`, behind ``trash-train`` and
``train.py``), Ray RLlib (:mod:`agents.training.rllib`, behind ``trash-train-rllib``), and the run
folders both write (:mod:`agents.training.runs`)."""
