"""The benchmark suite: run any RL algorithm on the tasks of :mod:`agents.bench.tasks`, and compare.

- :mod:`agents.bench.tasks`: the named, versioned tasks and their stored reference scores
  (``references.json``);
- :mod:`agents.bench.algorithms`: the interface any algorithm plugs into (:class:`Algorithm`,
  :class:`TaskContext`) and the built-in ones (Stable-Baselines3 through :mod:`agents.training.sb3`);
- :mod:`agents.bench.runner`: one run (task, algorithm, seed) with evaluations at the task's points,
  its result file, and sweeps over tasks x seeds (processes or Ray), resumable;
- :mod:`agents.bench.statistics`: statistics across runs (per-task intervals, IQM, mean, optimality gap
  with stratified bootstrap intervals, probability of improvement, performance profiles);
- :mod:`agents.bench.report`: tables, plots and a JSON leaderboard from a results folder;
- :mod:`agents.commands.bench`: the ``trash-bench`` command.
"""
