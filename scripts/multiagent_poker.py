"""The batched multi-agent learners on Kuhn (or Leduc) poker beside OpenSpiel's NFSP (issue 52).

``nfsp`` and ``mmd`` run unchanged on an OpenSpiel game (:mod:`agents.training.spiel_games`); OpenSpiel's
own NFSP (``open_spiel.python.pytorch.nfsp``, its Kuhn example's settings) runs beside them; each policy
is scored by OpenSpiel's exact exploitability at checkpoints spaced on a log scale. The x-axis is the
decisions a learner trained on: ours learn from their own seat's, OpenSpiel's two agents from both
seats', so its count is both agents' decisions. Our policies are read two ways: their probabilities
(the mixed strategy they learned) and greedily (the legal action of highest logit, as the package keeps
its policies). Writes a JSON file, whose table ``scripts/readme_tables.py`` puts in docs/multiagent.md::

    python scripts/multiagent_poker.py --game kuhn_poker --decisions 200000 --seeds 3 \\
        --json docs/multiagent/kuhn.json
    python scripts/multiagent_poker.py --plot docs/multiagent/kuhn.json docs/multiagent/kuhn.png
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np


def _points(total: int, count: int) -> list[int]:
    return sorted({0, *np.unique(np.geomspace(total / 100, total, count - 1).astype(int)).tolist()})


def ours(method: str, game: str, decisions: int, seed: int, points: list[int]) -> list[dict[str, Any]]:
    from agents.training.fast_ppo import train_fast
    from agents.training.mmd import MMD
    from agents.training.nfsp import NFSPSettings, fitted, train_nfsp
    from agents.training.spiel_games import SpielVecEnv, exploitability, greedy, policy_of

    curve: list[dict[str, Any]] = []
    start, paused = time.perf_counter(), 0.0

    def checkpoint(timesteps: int, policy: Any) -> None:
        nonlocal paused
        mark = time.perf_counter()
        curve.append({
            "decisions": int(timesteps),
            "seconds": round(mark - start - paused, 2),
            "exploitability": round(exploitability(game, policy), 5),
            "greedy": round(exploitability(game, greedy(policy)), 5),
        })
        paused += time.perf_counter() - mark

    venv = SpielVecEnv(game, 64, seed)
    run = {"budget": decisions, "game": None, "config": None, "seed": seed, "points": tuple(points),
           "checkpoint": checkpoint, "policy_of": policy_of}
    if method == "nfsp":
        train_nfsp(venv, settings=fitted(NFSPSettings(), decisions), **run)
    else:
        train_fast(venv, settings=MMD.fitted(decisions), self_play=True, **run)
    return curve


def openspiel_nfsp(game: str, decisions: int, seed: int, points: list[int]) -> list[dict[str, Any]]:
    """OpenSpiel's NFSP as its Kuhn example runs it (two agents, one per seat), to ``decisions``."""
    import torch
    from open_spiel.python import policy, rl_environment
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import nfsp

    torch.manual_seed(seed)
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    episodes_guess = max(1, decisions // 2)
    agents = [
        nfsp.NFSP(player, size, actions, [128], int(2e6), 0.1, replay_buffer_capacity=int(2e5),
                  epsilon_decay_duration=episodes_guess, epsilon_start=0.06, epsilon_end=0.001, seed=seed + player)
        for player in range(2)
    ]

    class Average(policy.Policy):
        def __init__(self) -> None:
            super().__init__(env.game, [0, 1])

        def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
            player = state.current_player()
            legal = state.legal_actions(player)
            observations = {"info_state": [None, None], "legal_actions": [None, None], "current_player": player}
            observations["info_state"][player] = state.information_state_tensor(player)
            observations["legal_actions"][player] = legal
            step = rl_environment.TimeStep(observations=observations, rewards=None, discounts=None, step_type=None)
            with agents[player].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                probs = agents[player].step(step, is_evaluation=True).probs
            return {action: probs[action] for action in legal}

    curve: list[dict[str, Any]] = []
    pending, taken, start, paused = list(points), 0, time.perf_counter(), 0.0
    average = Average()
    while pending:
        if taken >= pending[0]:
            pending.pop(0)
            mark = time.perf_counter()
            curve.append({"decisions": taken, "seconds": round(mark - start - paused, 2),
                          "exploitability": round(float(exploitability.exploitability(env.game, average)), 5)})
            paused += time.perf_counter() - mark
            continue
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([agents[player].step(step).action])
            taken += 1
        for agent in agents:
            agent.step(step)
    return curve


def plot(source: Path, target: Path) -> None:
    """Each learner's exploitability against the decisions it trained on, log-log: the mean over seeds
    and each seed faintly; ours read both ways."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = json.loads(source.read_text())["figures"]
    figure, axes = plt.subplots(figsize=(7, 4.2))
    for (method, runs), colour in zip(data["runs"].items(), ("tab:gray", "tab:blue", "tab:orange", "tab:green")):
        readings = [("exploitability", "-", "")]
        if "greedy" in runs[0][0]:
            readings.append(("greedy", ":", ", read greedily"))
        for key, style, label in readings:
            x = [p["decisions"] for p in runs[0][1:]]  # (the untrained start has no place on a log scale)
            values = np.array([[p[key] for p in run[1:]] for run in runs])
            axes.plot(x, values.mean(axis=0), style, color=colour, label=f"{method}{label}")
            for run in values:
                axes.plot(x, run, style, color=colour, alpha=0.2, linewidth=0.8)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("decisions trained on")
    axes.set_ylabel("exact exploitability")
    axes.set_title(f"{data['game']}: {len(next(iter(data['runs'].values())))} seeds each")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(target, dpi=110)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plot", nargs=2, type=Path, metavar=("JSON", "PNG"), help="only draw a figure of a run")
    parser.add_argument("--game", default="kuhn_poker")
    parser.add_argument("--decisions", type=int, default=200_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--methods", nargs="+", default=["openspiel_nfsp", "nfsp", "mmd"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.plot:
        plot(*args.plot)
        return 0
    import torch

    torch.set_num_threads(1)
    points = _points(args.decisions, args.points)
    runs: dict[str, list[list[dict[str, Any]]]] = {}
    for method in args.methods:
        for seed in range(args.seeds):
            if method == "openspiel_nfsp":
                curve = openspiel_nfsp(args.game, args.decisions, seed, points)
            else:
                curve = ours(method, args.game, args.decisions, seed, points)
            runs.setdefault(method, []).append(curve)
            last = curve[-1]
            print(f"{method} seed {seed}: exploitability {last['exploitability']:.4f} after {last['decisions']:,} "
                  f"decisions, {last['seconds']:.0f} s" + (f" (greedy read-off {last['greedy']:.4f})"
                                                           if "greedy" in last else ""), flush=True)
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                figures = {"game": args.game, "decisions": args.decisions, "points": points, "runs": runs}
                args.json.write_text(json.dumps({"figures": figures}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
