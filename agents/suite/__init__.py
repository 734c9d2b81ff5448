"""The benchmark suite: run any RL algorithm on the tasks of :mod:`trash_env.tasks`, and compare.

- :mod:`agents.suite.algorithms`: the interface any algorithm plugs into (:class:`Algorithm`,
  :class:`TaskContext`) and the built-in ones (Stable-Baselines3 through :mod:`agents.training`);
- :mod:`agents.suite.runner`: one run (task, algorithm, seed) with evaluations at the task's points,
  its result file, and sweeps over tasks x seeds (processes or Ray), resumable;
- :mod:`agents.suite.aggregate`: statistics across runs (per-task intervals, IQM, mean, optimality gap
  with stratified bootstrap intervals, probability of improvement, performance profiles);
- :mod:`agents.suite.report`: tables, plots and a JSON leaderboard from a results folder;
- :mod:`agents.suite.cli`: the ``trash-bench`` command.
"""
