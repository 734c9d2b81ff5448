"""Solve two-player Help Your Neighbor exactly (R12, R14), or load the cached solution: ``trash-solve``.

    trash-solve            # the cached solution (solved on first use, about 15 s), and its headline
    trash-solve --fresh    # solve again

The solver is :mod:`trash_env.neighbor.solver`; the agent that plays it ``optimal``
(:mod:`agents.optimal`); exact evaluation against it ``trash-evaluate --exact``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from agents.arguments import ArgumentParser, program_name
from trash_env.neighbor.solver import cache_path, load_solution, solve

COMMAND = "trash-solve"


def main(argv: Sequence[str] | None = None) -> int:
    """The command: solve (or load) the game and print its headline."""
    parser = ArgumentParser(prog=program_name(COMMAND), description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="solve again even if a cached solution exists")
    args = parser.parse_args(argv)
    if args.fresh:
        solution = solve()
        print(f"solved in {solution.seconds:.1f} s ({solution.iterations} sweeps)")
    else:
        start = time.perf_counter()
        solution = load_solution()
        print(
            f"solution ready in {time.perf_counter() - start:.2f} s (solved in {solution.seconds:.1f} s, "
            f"{solution.iterations} sweeps; cache: {cache_path()})"
        )
    print(f"largest Bellman residual over all {solution.value.size:,} states: {solution.residual():.1e}")
    print(f"the first roller wins with probability {solution.value[0, 0]:.9f} when both play optimally")
    print(f"optimal choices: roll again at {solution.roll_again().mean():.1%} of states (me, opp)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
