"""Helpers shared by the tests: stacked decks (:mod:`helpers.decks`), random play of AEC envs
(:mod:`helpers.aec_play`) and tiny training runs (:mod:`helpers.tiny_training`)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
