"""``benchmarks/v3_sweep.py``: the v3 sweep's parts (issue 54) and the runs it takes as they are."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import load_script

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
