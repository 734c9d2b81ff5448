"""``benchmarks/v3_sweep.py``: the v3 sweep's parts (issue 54) and the runs it takes as they are."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ROOT, load_script

from agents.bench.tasks import TASKS

SWEEP = load_script("benchmarks/v3_sweep")


def test_the_headline_tier_runs_first_with_ten_seeds_and_the_sanity_tier_with_five() -> None:
    """Every masked learner with the tuned settings on every task of each tier, the example learner on
    the tier's tasks that train against baselines; headline parts (10 seeds) before sanity ones (5)."""
    parts = SWEEP.parts()
    seeds = [part["seeds"] for part in parts]
    assert seeds == sorted(seeds, reverse=True) and set(seeds) == {10, 5}
    for part in parts:
        tier = {TASKS[name].tier for name in part["tasks"]}
        assert tier == {"headline" if part["seeds"] == 10 else "sanity"}, part
        if part["algorithm"] == SWEEP.EXAMPLE:
            assert part["settings"] is None and not any(TASKS[name].self_play for name in part["tasks"])
        else:
            assert part["settings"] == "tuned-v1" and SWEEP.spec(part) == f"{part['algorithm']}@tuned-v1"
    covered = {name for part in parts for name in part["tasks"] if part["algorithm"] == "maskable_ppo"}
    assert covered == set(TASKS)


def test_reuse_copies_each_run_with_its_policy_and_never_overwrites(tmp_path: Path, monkeypatch) -> None:
    """The multi-agent runs and v2's maskless runs are copied with their kept policies; other v2 runs
    are not, and a file already in the v3 folder is left as it is."""
    multi, v2, results = tmp_path / "multi", tmp_path / "v2", tmp_path / "v3"
    for folder, algorithm in ((multi, "nfsp"), (v2, "ppo"), (v2, "maskable_ppo")):
        run = folder / "hyn-2p-selfplay" / algorithm
        run.mkdir(parents=True)
        (run / "seed_0.json").write_text(json.dumps({"algorithm": algorithm}))
        (run / "seed_0.policy.npz").write_bytes(b"policy")
    kept = results / "hyn-2p-selfplay" / "ppo" / "seed_0.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("mine")
    monkeypatch.setattr(SWEEP, "MULTIAGENT", multi)
    monkeypatch.setattr(SWEEP, "V2", v2)
    assert SWEEP.reuse(results) == 1
    copied = results / "hyn-2p-selfplay" / "nfsp"
    assert sorted(path.name for path in copied.iterdir()) == ["seed_0.json", "seed_0.policy.npz"]
    assert kept.read_text() == "mine" and not (results / "hyn-2p-selfplay" / "maskable_ppo").exists()
    assert SWEEP.reuse(results) == 0


def copy_runs(results: Path, task: str, name: str) -> dict[Path, float]:
    """The committed v3 runs of ``name`` on ``task`` copied into ``results``, each with a stand-in
    policy file; their final scores by path."""
    from agents.bench import store

    finals = {}
    for source in sorted((ROOT / "docs" / "results-v3" / task / name).glob("seed_*.json")):
        target = results / task / name / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        result = store.read(target)
        target.with_name(result.artifact).write_bytes(b"policy")
        finals[target] = result.final.headline
    return finals


def test_prune_keeps_each_tasks_best_run_once_all_its_seeds_are_in(tmp_path: Path, monkeypatch) -> None:
    """``--prune`` deletes every policy but the best run's of a finished task (the result files stay),
    leaves a task with seeds still to run alone, and never touches MaskablePPO's."""
    from agents.bench import store

    fast = copy_runs(tmp_path, "hyn-2p", "fast_ppo-tuned-v1")
    every = copy_runs(tmp_path, "hyn-2p", "maskable_ppo-tuned-v1")
    assert len(fast) == 10 and len(set(fast.values())) == 10 and every
    parts = [
        {"algorithm": "fast_ppo", "settings": "tuned-v1", "tasks": ["hyn-2p"], "seeds": 11},
        {"algorithm": "maskable_ppo", "settings": "tuned-v1", "tasks": ["hyn-2p"], "seeds": len(every)},
    ]
    monkeypatch.setattr(SWEEP, "parts", lambda: parts)
    assert SWEEP.prune(tmp_path) == []  # seed 10 is still to run
    parts[0]["seeds"] = 10
    assert len(SWEEP.prune(tmp_path, dry_run=True)) == 9 and len(list(tmp_path.rglob("*.policy.*"))) == 10 + len(every)
    deleted = SWEEP.prune(tmp_path)
    best = max(fast, key=fast.__getitem__)
    assert sorted(deleted) == sorted(path.with_name(store.read(path).artifact) for path in fast if path != best)
    assert [path for path in fast if path.with_name(store.read(path).artifact).is_file()] == [best]
    assert all(path.is_file() for path in fast) and all(p.with_name(store.read(p).artifact).is_file() for p in every)
    assert SWEEP.prune(tmp_path) == []
