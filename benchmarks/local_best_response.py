"""What a local best response can find on two-player Help Your Neighbor, and what it finds.

Two parts, both printed and written as JSON (``--json``; ``scripts/readme_tables.py`` tables it in
docs/exploitability.md):

- **The ceiling, exact.** A local best response whose continuation is the policy itself, with exact
  values in place of its rollouts, is one step of policy improvement
  (:func:`agents.evaluation.exploitability.improvement_step`); for each policy, the fraction of its
  exact exploitability that one, two and three such steps find, and the seconds each step took.
- **Where one step gains** (``--gaps``): along the exact step's games against the policy, how large
  the gains of its departures from the policy are, as shares of the whole.
- **The Monte Carlo responder, judged exactly.** The result files of ``trash-bench exploit POLICY
  --task hyn-2p --method local --json`` in ``--local`` (one per policy and rollouts), summarised: the
  fraction of the exact exploitability found, judged exactly along its games, with its interval, and
  the seconds a deal::

    python benchmarks/local_best_response.py --local docs/exploit/local --json docs/local_best_response.json

(``--reuse docs/local_best_response.json`` keeps the exact parts and reads the local results again.)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
POLICIES = (
    "random",
    "roller",
    "heuristic",
    "shipped:hyn-2p-maskable-ppo",
    "docs/results-v2/hyn-2p/maskable_ppo/seed_0.json",  # a kept v2 run
)


def ceiling(policy: str, steps: int = 3) -> dict[str, Any]:
    """The fraction of ``policy``'s exact exploitability found by 1 .. ``steps`` improvement steps."""
    from agents.bench.exact_scores import EXACT_TOLERANCE, tables_of
    from agents.bench.exploit import load_policy
    from agents.bench.tasks import get_task
    from agents.evaluation.exact import exact_pair
    from agents.evaluation.exploitability import exploitability_per_deal, improvement_step

    target = tables_of(load_policy(str(ROOT / policy) if policy.endswith(".json") else policy, get_task("hyn-2p")))
    exploitable = exploitability_per_deal(target, tolerance=EXACT_TOLERANCE)
    found, seconds, responder = [], [], target
    for _ in range(steps):
        began = time.perf_counter()
        responder = improvement_step(responder, target, tolerance=EXACT_TOLERANCE)
        seconds.append(round(time.perf_counter() - began, 1))
        score = exact_pair(("responder", responder), ("policy", target), EXACT_TOLERANCE).score_difference
        found.append(round(score / exploitable, 4))
    return {"policy": policy, "exploitability": round(exploitable, 4), "found": found, "seconds": seconds}


CUTS = (0.05, 0.02, 0.01)  # in the probability of winning


def gaps(policy: str, deals: int = 400) -> dict[str, Any]:
    """Where one exact improvement step over ``policy`` gains: along its games against the policy
    (``deals`` deals, both seats, on the core), each decision where it departs from the policy, by
    how much the departure gains (win probability, exactly); the share of the whole gain that comes
    from gains of at least each of :data:`CUTS`, and the departures per deal."""
    import numpy as np

    from agents.bench.exact_scores import EXACT_TOLERANCE, tables_of
    from agents.bench.exploit import load_policy
    from agents.bench.tasks import get_task
    from agents.evaluation.exploitability import AdvantageJudge, improvement_step
    from agents.optimal import TableAgent
    from trash_env.games import get_game
    from trash_env.neighbor import rules as neighbor
    from trash_env.view import SeatView

    task = get_task("hyn-2p")
    agent = load_policy(str(ROOT / policy) if policy.endswith(".json") else policy, task)
    tables = tables_of(agent)
    judge = AdvantageJudge(tables)
    step = improvement_step(tables, tables, tolerance=EXACT_TOLERANCE)
    chosen = step.roll[2] > 0.5, np.argmax(step.uncover, axis=0).astype(np.int8)  # (the same table after every roll)

    class Step(TableAgent):
        name = "one improvement step"

        def tables(self) -> tuple[np.ndarray, np.ndarray]:
            return chosen

    responder = Step()
    game, config = get_game("help_your_neighbor"), task.config()
    observer = game.make_observer(config)
    found = []
    for deal in range(deals):
        for seat in (0, 1):
            rng = np.random.default_rng(deal)
            state = game.new_game(config, rng, None)
            while True:
                game.play_forced(state, rng)
                if state.phase == neighbor.OVER:
                    break
                view = SeatView(state, state.current, observer, game)
                player = responder if state.current == seat else agent
                action = player.act(view, rng)
                if state.current == seat:
                    gained = judge.advantage(state, action)
                    if gained > 1e-12:
                        found.append(gained)
                game.apply_action(state, action, rng)
    gains = np.array(found)
    return {
        "policy": policy,
        "deals": deals,
        "departures_per_deal": round(len(gains) / deals, 2),
        "gain_per_deal": round(2 * float(gains.sum()) / deals, 4),
        "share_from_at_least": {str(cut): round(float(gains[gains >= cut].sum() / gains.sum()), 3) for cut in CUTS},
    }


def sampled(folder: Path) -> list[dict[str, Any]]:
    """The local responder's result files in ``folder``, summarised."""
    rows = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text())
        if data.get("method") not in ("local", "search") or data.get("judged") is None:
            continue
        judged, exploitable = data["judged"], data["exact"]["exploitability"]
        rows.append({
            "policy": data["policy"],
            "method": data["method"],
            "search_budget": data["settings"].get("search_budget"),
            "by_gap": judged.get("by_gap"),
            "share_taken": _share_taken(judged),
            "wall_seconds": round(data["wall_seconds"]),
            "rollouts": data["settings"]["rollouts"],
            "margin": data["settings"]["margin"],
            "rounds": data["settings"].get("rounds", 1),
            # rollouts per action at a decision, on average (more than ``rollouts`` with rounds)
            "rollouts_per_decision": round(data["settings"]["rollouts"] * data.get("rounds_per_decision", 1)),
            "deals": data["deals"],
            "exploitability": round(exploitable, 4),
            "judged": round(judged["score"], 4),
            "found": round(judged["score"] / exploitable, 3),
            "found_low": round(judged["low"] / exploitable, 3),
            "found_high": round(judged["high"] / exploitable, 3),
            "sampled": round(data["score"], 3),
            "sampled_low": round(data["low"], 3),
            "sampled_high": round(data["high"], 3),
            "seconds_per_deal": round(data["seconds_per_deal"], 1),
        })
    return sorted(
        rows, key=lambda row: (row["policy"], row["method"], row["rollouts_per_decision"], row["margin"], row["rounds"])
    )


def _share_taken(judged: dict[str, Any]) -> dict[str, float] | None:
    """The share of the edge at its decisions that its choices took, with its interval where the file
    has one (older files: from ``by_gap``'s sums alone)."""
    if judged.get("share_taken"):
        return {key: round(value, 3) for key, value in judged["share_taken"].items()}
    best = sum(row["best"] for row in judged.get("by_gap") or [])
    return {"share": round(sum(row["got"] for row in judged["by_gap"]) / best, 3)} if best > 0 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policies", nargs="*", default=list(POLICIES))
    parser.add_argument("--steps", type=int, default=3, help="improvement steps (default 3)")
    parser.add_argument(
        "--gaps", nargs="*", default=["heuristic", "shipped:hyn-2p-maskable-ppo"], help="where one step gains"
    )
    parser.add_argument("--local", type=Path, default=None, help="a folder of --method local result files")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--reuse", type=Path, default=None, metavar="JSON", help="take the ceilings and gaps from this earlier output"
    )
    args = parser.parse_args(argv)
    if args.reuse is not None:  # the exact parts as an earlier run wrote them; only the local results read again
        earlier = json.loads(args.reuse.read_text())
        args.policies, args.gaps = [], []
    ceilings = [] if args.reuse is None else earlier["ceilings"]
    for policy in args.policies:
        ceilings.append(ceiling(policy, args.steps))
        row = ceilings[-1]
        print(f"{policy}: exploitability {row['exploitability']:.4f}; found by 1..{args.steps} steps {row['found']} "
              f"({row['seconds']} s)", flush=True)
    where = [] if args.reuse is None else earlier["gaps"]
    for policy in args.gaps:
        where.append(gaps(policy))
        print(f"{policy}: {where[-1]}", flush=True)
    local = sampled(args.local) if args.local else []
    for row in local:
        print(f"{row['policy']}, {row['rollouts']} rollouts x up to {row['rounds']} rounds: {row['found']:.1%} judged "
              f"[{row['found_low']:.1%}, {row['found_high']:.1%}] on {row['deals']} deals, "
              f"{row['seconds_per_deal']} s a deal")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"ceilings": ceilings, "gaps": where, "local": local}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
