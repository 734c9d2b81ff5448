"""The console scripts (``pyproject.toml``'s ``[project.scripts]``): each imports its command module
and runs its ``main``, so that an extra missing anywhere on the way, at import or deep in the run,
is one line naming the extra and how to install it (exit status 2), never a traceback, and a reader
that goes away (``| head``) ends the command quietly::

    $ trash-evaluate greedy random        # installed without the eval extra
    trash-evaluate: error: this command needs the eval extra: pip install 'trash-rl[eval]' (rich is not installed)

A missing module that no extra brings is a bug and propagates as it is.
"""

from __future__ import annotations

import importlib
import os
import sys

from agents.arguments import fail, program_name
from trash_env.extras import MissingExtraError, extra_of, needs_extra, top_module

COMMANDS = {
    "trash-train": "train",
    "trash-train-rllib": "train_rllib",
    "trash-evaluate": "evaluate",
    "trash-play": "play",
    "trash-record": "record",
    "trash-replay": "replay",
    "trash-bench": "bench",
    "trash-solve": "solve",
    "trash-demo": "demo",
}
"""Every console script and its module in :mod:`agents.commands`."""

WHOLE_EXTRA = {"trash-train-rllib": ("rllib", {"train", "eval"})}
"""A command whose own extra brings others (``rllib`` brings ``train`` and ``eval``): a missing module of
those is said as its own, so that one install does."""


def run(console_name: str) -> int:
    """Run the console script ``console_name``: its module's ``main()``, an extra's absence said in one line."""
    try:
        module = importlib.import_module(f"agents.commands.{COMMANDS[console_name]}")
        return int(module.main() or 0)
    except BrokenPipeError:  # the reader went away (`trash-play --rules | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except MissingExtraError as error:  # the library's own message names the extra
        return fail(program_name(console_name), error)
    except ModuleNotFoundError as error:
        extra = extra_of(error)
        if extra is None:
            raise
        own, brought = WHOLE_EXTRA.get(console_name, (extra, set()))
        extra = own if extra in brought else extra
        return fail(program_name(console_name), needs_extra("this command", extra, top_module(error.name)))


def train() -> int:
    return run("trash-train")


def train_rllib() -> int:
    return run("trash-train-rllib")


def evaluate() -> int:
    return run("trash-evaluate")


def play() -> int:
    return run("trash-play")


def record() -> int:
    return run("trash-record")


def replay() -> int:
    return run("trash-replay")


def bench() -> int:
    return run("trash-bench")


def solve() -> int:
    return run("trash-solve")


def demo() -> int:
    return run("trash-demo")
