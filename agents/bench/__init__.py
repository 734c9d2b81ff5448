"""The benchmark suite: run any RL algorithm on the tasks of :mod:`agents.bench.tasks`, and compare.

- :mod:`agents.bench.tasks`: the named, versioned tasks and their stored reference scores
  (``references.json``);
- :mod:`agents.bench.algorithms`: the interface any algorithm plugs into (:class:`Algorithm`,
  :class:`TaskContext`) and the built-in ones (Stable-Baselines3 through :mod:`agents.training.sb3`);
- :mod:`agents.bench.runner`: one run (task, algorithm, seed, budget fraction) under protocol v2:
  trained in a child process (:mod:`agents.bench.worker`) with its curve on validation deals and its
  steps counted, then scored in a fresh process on test deals drawn after training, against the
  reference and the held-out opponents; its result file, its policy kept beside it
  (:mod:`agents.bench.artifacts`), ``trash-bench evaluate``, and sweeps over tasks x seeds (processes
  or Ray), resumable by exact run identity;
- :mod:`agents.bench.results`: the result files' schema (formats 1 and 2), checked on every read;
- :mod:`agents.bench.statistics`: statistics across runs (per-task intervals, IQM, mean, optimality gap
  with stratified bootstrap intervals, probability of improvement, performance profiles);
- :mod:`agents.bench.report`: tables, plots and a JSON leaderboard from a results folder;
- :mod:`agents.commands.bench`: the ``trash-bench`` command.
"""
