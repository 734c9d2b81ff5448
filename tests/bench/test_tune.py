"""Tuning on equal terms (:mod:`agents.bench.tune`): trials scored on validation deals only, a study
that resumes, settings files read with one-line refusals, and runs that train with named settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("optuna")
pytest.importorskip("torch")

import agents.bench.runner as runner
from agents.bench import tune, tuned_settings
from agents.bench.algorithms import FastPPO, SB3Algorithm, load_algorithm, with_settings
from agents.bench.tasks import get_task
from agents.commands.bench import main as bench_main

TASK = get_task("trash-standard-2p")


def _tuning(tmp_path: Path, **kwargs: Any) -> tune.Tuning:
    settings = {"tasks": [TASK], "fraction": TASK.min_fraction, "log": lambda line: None}
    return tune.Tuning("fast_ppo", storage=tmp_path / "study.db", **{**settings, **kwargs})


def test_trials_are_scored_on_validation_deals_and_never_draw_test_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every game a trial plays to score itself is on the task's validation seed; the test deals'
    seed is never drawn and the final evaluation never runs."""
    seeds: list[int] = []
    scored = runner.evaluate

    def evaluate(task: Any, agent: Any, deals: int, seed: int, **kwargs: Any) -> Any:
        seeds.append(seed)
        return scored(task, agent, deals, seed, **kwargs)

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("tuning touched the test deals")

    monkeypatch.setattr(runner, "evaluate", evaluate)
    monkeypatch.setattr(runner, "draw_test_seed", never)
    monkeypatch.setattr(runner, "final_evaluation", never)
    study = _tuning(tmp_path).run(2)
    assert len(study.trials) == 2 and all(trial.value is not None for trial in study.trials)
    assert seeds and set(seeds) == {TASK.validation_seed}


def test_a_study_resumes_and_counts_its_ended_trials(tmp_path: Path) -> None:
    """Two trials, then the same command for three: one more trial, not three; a study of other
    tasks in the same file is refused in one line."""
    _tuning(tmp_path).run(2)
    study = _tuning(tmp_path).run(3)
    assert [trial.number for trial in study.trials] == [0, 1, 2]
    assert len(_tuning(tmp_path).run(3).trials) == 3  # nothing left to do
    with pytest.raises(ValueError, match="tunes on \\['trash-standard-2p'\\]"):
        _tuning(tmp_path, tasks=[TASK, get_task("hyn-2p")]).study()


def test_exported_settings_train_a_run_and_are_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The best trial's settings, exported under a name, make ``ALGORITHM@NAME`` the built-in with
    those settings, filed as ``ALGORITHM-NAME``."""
    tuning = _tuning(tmp_path)
    tuned = tuning.summary(tuning.run(2))
    assert tuned.study.trials == 2 and set(tuned.values) == set(tuned_settings.space_names("fast_ppo"))
    monkeypatch.setattr(tuned_settings, "TUNED", tmp_path)
    tuned_settings.export(tmp_path / "try-v1.json", "try-v1", "fast_ppo", tuned)
    algorithm = load_algorithm("fast_ppo@try-v1")
    assert isinstance(algorithm, FastPPO) and algorithm.name == "fast_ppo-try-v1"
    expected = {key: tuple(value) if isinstance(value, list) else value for key, value in tuned.values.items()}
    assert algorithm.overrides == expected
    assert runner.result_name("fast_ppo@try-v1") == "fast_ppo-try-v1"
    record = tuned_settings.settings_record("fast_ppo@try-v1")
    assert record is not None and record.name == "try-v1"
    with pytest.raises(ValueError, match="have nothing for masked_dqn"):
        load_algorithm("masked_dqn@try-v1")
    with pytest.raises(ValueError, match="unknown settings 'nope'"):
        runner.result_name("fast_ppo@nope")


def test_settings_of_sb3_learners_overlay_their_fixed_settings() -> None:
    algorithm = with_settings("masked_dqn", {"learning_rate": 5e-4, "net_arch": (64, 64)})
    assert isinstance(algorithm, SB3Algorithm)
    assert algorithm.settings["learning_rate"] == 5e-4 and algorithm.settings["net_arch"] == [64, 64]
    assert algorithm.settings["algo"] == "masked_dqn" and algorithm.settings["batch_size"] == 256


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "the file"),
        (json.dumps({"format": 1, "name": "x", "algorithms": {"ppo": {}}}), "values"),
        (json.dumps({"format": 2, "name": "x", "algorithms": {}}), "format 2"),
        (
            json.dumps({"format": 1, "name": "x", "algorithms": {"dqn": {"values": {}, "study": None}}}),
            "study",
        ),
    ],
)
def test_a_damaged_settings_file_is_refused_in_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message) as caught:
        tuned_settings.read_settings(path)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)


def test_settings_outside_the_search_space_are_refused(tmp_path: Path) -> None:
    tuning = _tuning(tmp_path)
    tuned = tuning.summary(tuning.run(1))
    tuned_settings.export(tmp_path / "x.json", "x", "fast_ppo", tuned)
    data = json.loads((tmp_path / "x.json").read_text())
    data["algorithms"]["fast_ppo"]["values"]["exec"] = "import os"
    (tmp_path / "x.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="outside its search space"):
        tuned_settings.read_settings(tmp_path / "x.json")
    data["algorithms"]["ppo"] = data["algorithms"].pop("fast_ppo")
    (tmp_path / "x.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="'ppo' is not a tunable algorithm"):
        tuned_settings.read_settings(tmp_path / "x.json")


def test_every_search_space_is_written_down() -> None:
    for algorithm in tuned_settings.SEARCH_SPACES:
        ranges = tuned_settings.describe_space(algorithm)
        assert ranges and set(ranges) == set(tuned_settings.space_names(algorithm))
        assert all(text.startswith("one of ") or " to " in text for text in ranges.values())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tune", "ppo", "--tasks", "hyn-2p", "--trials", "2", "--storage", "S"], "ppo cannot be tuned"),
        (["tune", "fast_ppo", "--tasks", "hyn-2p", "--trials", "0", "--storage", "S"], "--trials must be at least 1"),
        (
            ["tune", "fast_ppo", "--tasks", "hyn-2p", "--trials", "2", "--storage", "S", "--export", "f.json"],
            "--export and --name go together",
        ),
        (
            ["run", "--algorithm", "x:Y", "--settings", "v1", "--tasks", "hyn-2p", "--seeds", "1", "--results", "R"],
            "--settings takes a built-in",
        ),
        (
            [
                "run",
                "--algorithm",
                "fast_ppo",
                "--settings",
                "nope",
                "--tasks",
                "hyn-2p",
                "--seeds",
                "1",
                "--results",
                "R",
            ],
            "unknown settings 'nope'",
        ),
    ],
)
def test_bad_tuning_arguments_get_one_line(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert bench_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_a_result_records_the_settings_it_trained_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a run with ``--settings`` adds to its result file (``settings``: the name and the values,
    as the training process reports them) is read back; a malformed record is refused in one line."""
    from agents.bench import worker
    from agents.bench.results import check

    tuning = _tuning(tmp_path)
    monkeypatch.setattr(tuned_settings, "TUNED", tmp_path)
    tuned_settings.export(tmp_path / "try-v1.json", "try-v1", "fast_ppo", tuning.summary(tuning.run(1)))
    record = json.loads(json.dumps(worker._settings("fast_ppo@try-v1")))  # through JSON, as from the child
    assert worker._settings("fast_ppo") is None
    source = Path(__file__).parents[2] / "docs" / "results-fast" / "trash-standard-2p" / "fast_ppo" / "seed_0.json"
    data = json.loads(source.read_text())
    named = {**data, "algorithm": "fast_ppo-try-v1", "algorithm_spec": "fast_ppo@try-v1", "settings": record}
    result = check(named, source)
    assert result.settings is not None and result.settings.name == "try-v1"
    assert json.loads(json.dumps(result.to_json()))["settings"] == record
    assert "settings" not in check(data, source).to_json()
    for damaged in (
        {**named, "settings": {"name": "try-v1", "values": ["lr"]}},
        {**named, "algorithm_spec": "fast_ppo"},  # settings, but the spec names none
        {**named, "algorithm_spec": "fast_ppo@other-v1"},  # settings other than the spec's
        {**data, "algorithm_spec": "fast_ppo@try-v1"},  # the spec names settings the file lacks
    ):
        with pytest.raises(ValueError, match="settings") as caught:
            check(damaged, source)
        assert "\n" not in str(caught.value)


@pytest.mark.slow
def test_a_run_with_the_shipped_settings_writes_a_result_that_reads_back(tmp_path: Path) -> None:
    """``trash-bench run --settings tuned-v1`` end to end: the child trains with the shipped settings,
    the result file is written under ``ALGORITHM-NAME`` and reads back with its spec and settings."""
    from agents.bench import store

    task = get_task("trash-standard-2p")
    result = runner.run_one(task.name, "fast_ppo@tuned-v1", 0, str(tmp_path), fraction=task.min_fraction)
    assert result["algorithm"] == "fast_ppo-tuned-v1" and result["settings"]["name"] == "tuned-v1"
    (read,) = store.load_results(tmp_path)
    assert read.algorithm_spec == "fast_ppo@tuned-v1" and read.settings is not None
    assert read.settings.values == tuned_settings.settings_record("fast_ppo@tuned-v1").values


def test_an_interrupted_trial_is_not_counted_and_the_study_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C in the middle of the second trial stops the tuning with the first kept; the same
    command then runs to the count, the interrupted trial failed and uncounted."""
    from optuna.trial import TrialState

    scored = tune.validation_score
    calls = {"n": 0}

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return scored(*args, **kwargs)

    monkeypatch.setattr(tune, "validation_score", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _tuning(tmp_path).run(2)
    monkeypatch.setattr(tune, "validation_score", scored)
    study = _tuning(tmp_path).run(2)
    states = [trial.state for trial in study.trials]
    assert states == [TrialState.COMPLETE, TrialState.FAIL, TrialState.COMPLETE]
    assert len(_tuning(tmp_path).ended(study)) == 2


def test_the_shipped_settings_files_read_and_configure_their_algorithms() -> None:
    """Every settings file the package ships reads cleanly, and each algorithm in it loads with them
    as ``ALGORITHM@NAME`` (what ``trash-bench run --settings NAME`` trains)."""
    shipped = sorted(tuned_settings.TUNED.glob("*.json"))
    assert shipped, "the package ships its tuned settings"
    for path in shipped:
        data = tuned_settings.read_settings(path)
        assert data.name == path.stem and data.algorithms
        for algorithm, tuned in data.algorithms.items():
            loaded = load_algorithm(f"{algorithm}@{data.name}")
            assert loaded.name == f"{algorithm}-{data.name}"
            assert tuned.study.trials >= tuned.study.completed >= 1
            given = loaded.overrides if isinstance(loaded, FastPPO) else loaded.settings
            for key, value in tuned.values.items():
                assert given[key] == (
                    list(value) if isinstance(value, tuple) and not isinstance(loaded, FastPPO) else value
                )
