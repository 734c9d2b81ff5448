"""Solve two-player Help Your Neighbor exactly (R12, R14), or load the cached solution: ``trash-solve``.

    trash-solve            # the cached solution (solved on first use, about 13 s), and its headline
    trash-solve --fresh    # solve again and replace the cache
    trash-solve --check    # check the cache without solving: exit 2, saying what is wrong, if it is bad

The cache file is checked before it is used (:func:`trash_env.neighbor.solver.read_solution`: its
arrays, their hash, and that its values are probabilities satisfying the Bellman equations); a
damaged or wrong one is named on one line of stderr and solved again (with ``--check``: refused).
So the headline below is only ever printed for a checked solution.

The solver is :mod:`trash_env.neighbor.solver`; the agent that plays it ``optimal``
(:mod:`agents.optimal`); exact evaluation against it ``trash-evaluate --exact``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from agents.arguments import ArgumentParser, fail, program_name
from trash_env.neighbor.solver import Solution, cache_path, load_solution, save_solution, solve_checked

COMMAND = "trash-solve"


def main(argv: Sequence[str] | None = None) -> int:
    """The command: solve (or load) the game and print its headline; 2 with one line on stderr if
    ``--check`` finds the cache missing or bad, or ``--fresh`` cannot write it."""
    parser = ArgumentParser(prog=program_name(COMMAND), description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--fresh", action="store_true", help="solve again and replace the cached solution")
    mode.add_argument(
        "--check",
        action="store_true",
        help="check the cached solution without solving: exit 2, naming what is wrong, if it is missing or bad",
    )
    args = parser.parse_args(argv)
    prog = program_name(COMMAND)
    if args.fresh:
        solution = solve_checked()
        print(f"solved in {solution.seconds:.1f} s ({solution.iterations} sweeps)")
        try:
            save_solution(solution)
        except OSError as error:
            report(solution)
            return fail(prog, f"cannot write the solver cache {cache_path()}: {error}")
    else:
        start = time.perf_counter()
        try:
            solution = load_solution(may_solve=not args.check)
        except ValueError as error:
            return fail(prog, error)
        print(
            f"solution ready in {time.perf_counter() - start:.2f} s (solved in {solution.seconds:.1f} s, "
            f"{solution.iterations} sweeps; cache: {cache_path()})"
        )
    report(solution)
    return 0


def report(solution: Solution) -> None:
    """The headline of a checked solution: its residual, the first roller's chance, how often it rolls."""
    print(f"largest Bellman residual over all {solution.value.size:,} states: {solution.residual():.1e}")
    print(f"the first roller wins with probability {solution.value[0, 0]:.9f} when both play optimally")
    print(f"optimal choices: roll again at {solution.roll_again().mean():.1%} of states (me, opp)")


if __name__ == "__main__":
    raise SystemExit(main())
