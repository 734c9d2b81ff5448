"""Numba's first use is never silent (:mod:`trash_env.jit`): a first call that compiles says so in one
line on stderr, once per process; ``trash-bench warmup`` compiles everything ahead (:mod:`trash_env.warmup`)."""

from __future__ import annotations

import time

import pytest

from trash_env import jit, warmup


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    if not jit.HAVE_NUMBA:
        pytest.skip("without Numba nothing compiles, and nothing is said")
    monkeypatch.setattr(jit, "_FIRST_CALLED", set())
    monkeypatch.setattr(jit, "NOTICE_AFTER", 0.05)


def test_a_slow_first_call_is_announced_once(fresh, capsys: pytest.CaptureFixture[str]) -> None:
    with jit.compile_notice("the test kernels"):
        time.sleep(0.3)
    assert capsys.readouterr().err == (
        "trash-rl: compiling the test kernels with Numba, once for this environment (it is cached on disk "
        "afterwards; trash-bench warmup compiles everything ahead)\n"
    )
    with jit.compile_notice("the test kernels"):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""  # once per process


def test_a_quick_first_call_and_a_warm_up_say_nothing(fresh, capsys: pytest.CaptureFixture[str]) -> None:
    with jit.compile_notice("quick kernels"):
        pass
    time.sleep(0.1)
    with jit.silent_compiles(), jit.compile_notice("warmed kernels"):
        time.sleep(0.3)
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_the_warm_up_runs_every_part_and_says_each(capsys: pytest.CaptureFixture[str]) -> None:
    if not jit.HAVE_NUMBA:
        pytest.skip("without Numba there is nothing to warm up")
    said = []
    seconds = warmup.warm_up(lambda what, took: said.append(what))
    assert said == list(warmup.kernels()) == list(seconds) and all(took >= 0 for took in seconds.values())
    assert "trash-rl: compiling" not in capsys.readouterr().err  # it says itself what it compiles
