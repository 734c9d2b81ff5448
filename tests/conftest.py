"""Fixtures shared by the test modules that train or play policies."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def one_torch_thread() -> Iterator[None]:
    """One torch thread while a module trains and plays policies: two pytest workers each running
    torch on both cores slow tiny networks down by an order of magnitude."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def train() -> ModuleType:
    """``train.py`` (a top-level script, not a package module) imported from the repository root."""
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("tyro")
    spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train"] = module  # dataclasses look their module up while the class is created
    spec.loader.exec_module(module)
    return module
