"""Everything that plays or judges: the agents at the top (baselines, search, heuristic, optimal,
learned policies and the registry that makes them by name), then evaluation, training, the
benchmark suite and the commands."""
