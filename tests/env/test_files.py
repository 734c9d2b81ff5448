"""JSON files of the package (:func:`trash_env.files.write_json`): strict JSON, whatever the data holds.

Strict JSON has no NaN or infinity, yet an interval over one deal or one seed is unbounded
(``agents.evaluation.stats.Interval``) and a mean of nothing is NaN: ``write_json`` is the one place
that turns them into null, at any depth, for every JSON file the package writes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from trash_env.files import write_json


def test_non_finite_floats_become_null_at_any_depth(tmp_path: Path) -> None:
    """NaN and both infinities, in a dict, a list, a tuple and nested in each other, are written as
    null (an unbounded interval of one run: null bounds); finite numbers (NumPy's float64 too),
    integers, booleans, strings and None are kept."""
    data = {
        "nan": math.nan,
        "bounds": [-math.inf, 0.25, math.inf],
        "tuple": (1, np.float64("nan"), np.float64(0.5)),
        "deep": {"runs": [{"low": -math.inf, "high": math.inf, "mean": 0.5, "n": 1}]},
        "kept": [True, False, None, "inf", 3],
    }
    write_json(tmp_path / "data.json", data)
    assert math.isnan(data["nan"]) and data["bounds"][0] == -math.inf  # the data itself is left alone
    text = (tmp_path / "data.json").read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {
        "nan": None,
        "bounds": [None, 0.25, None],
        "tuple": [1, None, 0.5],
        "deep": {"runs": [{"low": None, "high": None, "mean": 0.5, "n": 1}]},
        "kept": [True, False, None, "inf", 3],
    }
