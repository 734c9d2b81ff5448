"""Exact scores on the solved tasks (issue 25, deliverable 4): ``hyn-2p`` and ``hyn-2p-selfplay``.

- a run of a policy that decides in batches is scored exactly (``"scoring": "exact"``): every curve
  point, the final and the held-out scores carry an ``exact`` score beside the sampled one, and the
  final's is the package's exact evaluation (:func:`agents.evaluation.exact.exact_pair`) of the saved
  policy, computed here again on its own (slow);
- a policy that does not (a bare callable) is scored by sampling only (``"scoring": "sampled"``);
- the schema refuses a file whose exact scores are missing, partial, misnormalised or on a task not
  scored exactly, and the report takes the exact figures where a file has them;
- the stored exact anchors (``references.json``) are what the exact evaluation gives (slow).
"""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from test_suite import FirstLegal, place_result, plugin_result  # this folder's (on the path as pytest runs it)

from agents.bench import exact_scores as exact
from agents.bench.runner import _scoring, run_one
from agents.bench.store import read_result, result_location
from agents.bench.tasks import TASKS, get_task, load_references

HERE = Path(__file__).parent
TASK = "hyn-2p"
FRACTION = get_task(TASK).min_fraction


class FirstLegalCallable(FirstLegal):
    """``FirstLegal`` checkpointing bare callables (the first legal move), which do not decide in
    batches, so its curve is sampled only, and so is its whole result (exact all through or not at
    all), although its final policy (a LinearAgent of zeros, the same moves) could be exact."""

    name = "first_legal_callable"
    checkpoints_callables = True


@pytest.fixture(scope="module")
def sampled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A hyn-2p result file of a bare-callable policy, as the runner writes it."""
    return plugin_result(
        tmp_path_factory.mktemp("sampled"),
        TASK,
        "test_exact_scoring:FirstLegalCallable",
        "first_legal_callable",
        FRACTION,
    )


def stored_anchors(opponent: str) -> dict[str, float]:
    section = load_references()[TASK]["exact"]
    section = section if opponent == get_task(TASK).reference else section["heldout"][opponent]
    return {"random": section["baselines"]["random"], "reference": section["baselines"]["optimal"]}


def with_exact(data: dict[str, Any], score: float = -0.25) -> dict[str, Any]:
    """The sampled file made exact: every point given an exact score of ``score``, normalised with
    the stored exact anchors (what a batchable policy's run writes)."""
    data = copy.deepcopy(data)
    reference = get_task(TASK).reference
    points = [(point, reference) for point in data["curve"]] + [(data["final"], reference)]
    points += [(entry, entry["opponent"]) for entry in data["heldout"]]
    for point, opponent in points:
        anchors = stored_anchors(opponent)
        normalized = (score - anchors["random"]) / (anchors["reference"] - anchors["random"])
        point["exact"] = {"score": score, "normalized": normalized, "anchors": anchors}
    data["scoring"] = "exact"
    return data


def place(folder: Path, data: dict[str, Any]) -> Path:
    return place_result(folder, TASK, FRACTION, data)


def test_the_solved_tasks_are_scored_exactly_from_version_3() -> None:
    """Exact scoring changed what a score of hyn-2p and hyn-2p-selfplay is: their version is 3, and
    no other task is scored exactly."""
    exact_tasks = {name for name, task in TASKS.items() if task.exact}
    assert exact_tasks == {"hyn-2p", "hyn-2p-selfplay"}
    assert get_task("hyn-2p").version == get_task("hyn-2p-selfplay").version == 3
    for name in exact_tasks:
        stored = load_references()[name]
        assert stored["version"] == 3 and set(stored["exact"]["heldout"]) == set(get_task(name).heldout)
        assert stored["exact"]["baselines"]["optimal"] == 0.0


@pytest.mark.slow
def test_a_curve_of_policies_that_do_not_decide_in_batches_is_scored_by_sampling(
    sampled: dict[str, Any], tmp_path: Path
) -> None:
    assert sampled["scoring"] == "sampled" and sampled["task_version"] == 3
    assert all("exact" not in point for point in [*sampled["curve"], sampled["final"], *sampled["heldout"]])
    assert read_result(place(tmp_path, sampled)).final.headline == sampled["final"]["normalized"]


def test_an_exact_file_passes_and_its_headline_is_the_exact_score(sampled: dict[str, Any], tmp_path: Path) -> None:
    data = with_exact(sampled)
    result = read_result(place(tmp_path, data))
    assert result.scoring == "exact"
    assert result.final.headline == data["final"]["exact"]["normalized"] != result.final.normalized
    assert [p.headline for p in result.curve] == [p["exact"]["normalized"] for p in data["curve"]]
    assert json.loads(json.dumps(result.to_json())) == data


def _drop(where: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        target = data["curve"][1] if where == "curve" else data[where] if where == "final" else data["heldout"][0]
        target.pop("exact")

    return change


BAD = [
    ("a curve point without its exact score", _drop("curve"), 'curve[1].exact is missing but scoring is "exact"'),
    ("the final without its exact score", _drop("final"), 'final.exact is missing but scoring is "exact"'),
    ("a held-out score without", _drop("heldout"), 'heldout[0].exact is missing but scoring is "exact"'),
    ("scoring missing", lambda d: d.pop("scoring"), "scoring is missing (hyn-2p v3 results say how they were scored)"),
    ("exact scores said sampled", lambda d: d.update(scoring="sampled"), "curve[0].exact is present but scoring is"),
    ("scoring unknown", lambda d: d.update(scoring="both"), 'scoring is \'both\', not "exact" or "sampled"'),
    (
        "exact normalized edited",
        lambda d: d["final"]["exact"].update(normalized=0.5),
        "final.exact.normalized is 0.5 but",
    ),
    ("exact score absurd", lambda d: d["final"]["exact"].update(score=7.0), "final.exact.score is 7.0, not a score"),
    (
        "exact anchors equal",
        lambda d: d["heldout"][0]["exact"]["anchors"].update(random=0.1, reference=0.1),
        "heldout[0].exact.anchors",
    ),
]


@pytest.mark.parametrize("change,message", [case[1:] for case in BAD], ids=[case[0] for case in BAD])
def test_a_file_with_bad_exact_scores_is_refused_by_name(
    sampled: dict[str, Any], tmp_path: Path, change, message
) -> None:
    data = with_exact(sampled)
    change(data)
    with pytest.raises(ValueError) as refused:
        read_result(place(tmp_path, data))
    assert message in str(refused.value) and "\n" not in str(refused.value)


@pytest.mark.slow
def test_exact_scores_on_a_task_not_scored_exactly_are_refused(tmp_path: Path) -> None:
    """hyn-4p is not solved: a file of it saying ``"exact"``, exact scores and all, is refused."""
    folder = tmp_path / "run"
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(HERE))
        run_one("hyn-4p", "test_exact_scoring:FirstLegalCallable", 0, str(folder), fraction=0.005)
    path = result_location(folder, get_task("hyn-4p"), "first_legal_callable", 0, 0.005)
    data = json.loads(path.read_text())
    assert data["scoring"] == "sampled" and read_result(path) is not None
    anchors = {"random": -1.0, "reference": 0.0}
    for point in [*data["curve"], data["final"], *data["heldout"]]:
        point["exact"] = {"score": -0.5, "normalized": 0.5, "anchors": anchors}
    path.write_text(json.dumps({**data, "scoring": "exact"}))
    with pytest.raises(ValueError, match='scoring is "exact" but hyn-4p v3 is not scored exactly'):
        read_result(path)


def test_all_or_none_a_curve_with_a_point_not_exact_is_sampled() -> None:
    curve = [{"timesteps": 1, "exact": {"score": 0.0}}, {"timesteps": 2}]
    assert _scoring(curve, "exact") == "sampled" and all("exact" not in point for point in curve)
    curve = [{"timesteps": 1, "exact": {}}, {"timesteps": 2, "exact": {}}]
    assert _scoring(curve, "exact") == "exact" and _scoring(copy.deepcopy(curve), "sampled") == "sampled"


def test_an_exact_entry_is_normalised_with_the_stored_exact_anchors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exact, "exact_score", lambda tables, opponent, tolerance=None: -0.5)
    for opponent in ("optimal", *get_task(TASK).heldout):
        entry = exact.exact_entry(get_task(TASK), None, opponent)
        anchors = stored_anchors(opponent)
        assert entry["anchors"] == anchors
        assert math.isclose(
            entry["normalized"], (-0.5 - anchors["random"]) / (anchors["reference"] - anchors["random"])
        )


def test_only_an_agent_that_decides_in_batches_on_an_exact_task_is_scored_exactly() -> None:
    from agents.bench.algorithms import as_agent
    from agents.registry import make_agent

    heuristic = make_agent("heuristic", game="help_your_neighbor")
    assert exact.applies(get_task("hyn-2p"), heuristic) and exact.applies(get_task("hyn-2p-selfplay"), heuristic)
    assert not exact.applies(get_task("hyn-4p"), heuristic)
    assert not exact.applies(get_task("hyn-2p"), as_agent(lambda observation, mask: 0, get_task("hyn-2p")))


@pytest.mark.slow
def test_the_stored_exact_anchors_are_the_exact_evaluations() -> None:
    """``references.json``'s exact section, computed again: every baseline against the reference and
    each held-out opponent."""
    task = get_task(TASK)
    stored = load_references()[TASK]["exact"]
    computed = exact.references(task, list(stored["baselines"]))
    assert computed["baselines"] == pytest.approx(stored["baselines"], abs=1e-6)
    for opponent, section in stored["heldout"].items():
        assert computed["heldout"][opponent]["baselines"] == pytest.approx(section["baselines"], abs=1e-6)


@pytest.mark.slow
def test_a_batchable_policy_is_scored_exactly_and_its_final_is_the_exact_pair(tmp_path: Path) -> None:
    """``FirstLegal`` (a :class:`agents.linear.LinearAgent`) on hyn-2p: scoring "exact", and the final's
    exact score is :func:`exact_pair` of the saved policy against ``optimal``, within the tolerance;
    the sampled estimate beside it agrees with it (within twice its interval)."""
    from agents.bench.artifacts import load_artifact
    from agents.evaluation.exact import decision_tables, exact_pair
    from trash_env.neighbor.solver import load_solution, optimal_tables

    sys.path.insert(0, str(HERE))
    try:
        result = run_one(TASK, "test_suite:FirstLegal", 0, str(tmp_path), fraction=FRACTION)
    finally:
        sys.path.remove(str(HERE))
    assert result["scoring"] == "exact"
    path = result_location(tmp_path, get_task(TASK), "first_legal", 0, FRACTION)
    read = read_result(path)
    policy = load_artifact(path.parent / read.artifact, get_task(TASK))
    pair = exact_pair(("policy", decision_tables(policy)), ("optimal", optimal_tables(load_solution())))
    final = result["final"]
    assert final["exact"]["score"] == pytest.approx(pair.score_difference, abs=1e-6)
    assert abs(final["score"] - final["exact"]["score"]) < 2 * (final["high"] - final["low"])
    # the curve's points at the curve's looser tolerance (exact.CURVE_TOLERANCE: shown to two decimals)
    assert all(point["exact"]["score"] == pytest.approx(pair.score_difference, abs=1e-4) for point in result["curve"])


def test_the_line_a_run_prints_is_the_score_its_file_holds(sampled: dict[str, Any]) -> None:
    """``trash-bench run`` prints each finished run's final score as the report counts it: the exact
    score where the run was scored exactly (the sampled one beside it, named so), else the sampled one
    (a one-percent run on 50 test deals once printed a sampled -0.190 over a file holding 0.017)."""
    from agents.commands.bench import final_text

    exact_file = with_exact(sampled, score=-0.5)
    said = final_text(exact_file)
    exact_final = exact_file["final"]
    assert said.startswith(f"normalised {exact_final['exact']['normalized']:+.3f} (exact: score -0.5000; sampled on ")
    assert f"{exact_final['score']:+.4f}" in said
    plain = final_text(sampled)
    assert plain.startswith(f"normalised {sampled['final']['normalized']:+.3f} (score ") and "exact" not in plain
