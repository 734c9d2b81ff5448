"""Write the tables of the README and the docs pages from the result files they report, so no
figure is typed by hand.

A generated table stands between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->``; NAME picks
the function below that renders it from its JSON file in ``docs/`` (or, for the benchmark tasks,
from the task registry). The benchmark leaderboard is ``trash-bench report docs/results-v3 --tiers``'s Markdown
(``agents.bench.report``), the same bytes; tables and markers are :mod:`agents.bench.markdown`'s.

    python scripts/readme_tables.py            # rewrite the generated tables of README.md and docs/**/*.md
    python scripts/readme_tables.py --check    # exit 1, naming the files and tables, if any is stale

``tests/docs/test_readme_tables.py`` runs ``--check``: a result file changed without its table fails CI.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.bench.markdown import splice, table  # noqa: E402
from agents.bench.tasks import SATURATED  # noqa: E402  (a best learner at this or more has reached its reference)
from agents.shipped import canonical_names  # noqa: E402
from trash_env.files import write_text  # noqa: E402

POLICY = "shipped:hyn-2p-maskable-ppo"


def _read(path: Path) -> Any:
    """A result file, a shipped policy named by the path it had before the policies were package data
    (``policies/X.zip``) named by its spec (``shipped:NAME``), as later files name it."""
    return canonical_names(json.loads(path.read_text()))


def _load(name: str) -> dict[str, Any]:
    return _read(ROOT / "docs" / name)


def _name(agent: str) -> str:
    return "the shipped policy" if agent == POLICY else f"`{agent}`"


def neighbor_exact_pairs() -> str:
    """Every pair of ``docs/neighbor_exact.json``: exact win probabilities and score difference."""
    data = _load("neighbor_exact.json")
    rows = [
        [
            _name(pair["first"]),
            _name(pair["second"]),
            f"{pair['first_wins_as_first_roller']:.4f}",
            f"{pair['first_wins_as_second_roller']:.4f}",
            f"{pair['score_difference']:+.4f}",
        ]
        for pair in data["pairs"]
    ]
    header = ["first", "second", "first wins, rolling first", "first wins, rolling second", "score difference"]
    return table(header, rows)


def neighbor_exact_gaps() -> str:
    """Each agent's loss to optimal play in ``docs/neighbor_exact.json``, by kind of decision."""
    data = _load("neighbor_exact.json")
    rows = []
    for gap in data["gaps"]:
        cells = [_name(gap["agent"])]
        for kind in ("all", "roll_or_end", "uncover"):
            cells.append(f"{gap[kind]['score_loss_per_deal']:.4f}")
        rows.append(cells)
    header = ["agent", "loss per deal, all decisions", "roll again or end only", "which marker to uncover only"]
    return table(header, rows)


def neighbor_optimal_ladder() -> str:
    """The sampled duplicate-deal pairs of ``docs/neighbor_optimal_ladder.json`` with their intervals."""
    data = _load("neighbor_optimal_ladder.json")
    rows = []
    for pair in data["pairs"]:
        score = pair["score_difference"]
        rows.append(
            [
                _name(pair["first"]),
                _name(pair["second"]),
                str(pair["deals"]),
                f"{score['mean']:+.4f} [{score['low']:+.4f}, {score['high']:+.4f}]",
            ]
        )
    return table(["first", "second", "deals", "score difference [95% CI]"], rows)


def neighbor_exploitability() -> str:
    """Each agent's exact best response and exploitability in ``docs/neighbor_exploitability.json``."""
    rows = []
    for row in _load("neighbor_exploitability.json")["exploitability"]:
        share = "-" if row["optimal_finds"] is None else f"{row['optimal_finds']:.1%}"
        rows.append(
            [
                _name(row["agent"]),
                f"{row['responder_wins_as_first_roller']:.4f}",
                f"{row['responder_wins_as_second_roller']:.4f}",
                f"{row['exploitability']:.4f}",
                f"{row['loss_to_optimal']:.4f}",
                share,
                f"{row['given_away']:.4f}",
                f"{row['taken_back']:.4f}",
                f"{row['seconds']['total']:.0f}",
            ]
        )
    header = [
        "agent",
        "best response wins, rolling first",
        "rolling second",
        "exploitability per deal",
        "loss to optimal per deal",
        "share `optimal` finds",
        "given away",
        "taken back",
        "seconds",
    ]
    return table(header, rows)


def neighbor_exploitable_states() -> str:
    """The three positions where ``heuristic`` gives its best response most, from
    ``docs/neighbor_exploitability.json`` (its ``examples``)."""
    found = {row["agent"]: row for row in _load("neighbor_exploitability.json")["exploitability"]}
    rows = []
    for example in found["heuristic"]["examples"][:3]:
        options = example["win_probability"]
        against = example["win_probability_against_responder"]
        rows.append(
            [
                example["covered"],
                example["opponent_covered"],
                example["agent"],
                example["optimal"],
                " / ".join(f"{options[name]:.4f}" for name in options),
                " / ".join(f"{against[name]:.4f}" for name in against),
                f"{example['loss']:.4f}",
                f"{example['visits_per_deal']:.3f}",
                f"{example['given_away_per_deal']:.4f}",
            ]
        )
    header = [
        "`heuristic` covered",
        "opponent covered",
        "`heuristic`",
        "optimal",
        "solved win probability (roll again / end)",
        "against the best response",
        "solved loss",
        "visits per deal",
        "given away per deal",
    ]
    return table(header, rows)


def suite_tasks() -> str:
    """The benchmark suite's tasks (``agents.bench.tasks``) with their stored anchor scores, then what
    each tests as a list (one table of both was too wide to read at a laptop's width)."""
    from agents.bench.tasks import TASKS

    rows = []
    for task in TASKS.values():
        anchors = task.reference_scores
        rows.append(
            [
                f"`{task.name}` v{task.version}",
                task.rules_text,
                " ".join(f"`{o}`" if o != "self-play" else "self-play only" for o in task.opponents),
                f"{task.budget:,}",
                f"`{task.reference}`",
                f"{anchors['random']:+.3f}",
            ]
        )
    header = ["task", "rules", "trained against", "budget", "reference", "`random` scores"]
    tests = "\n".join(f"- `{task.name}`: {task.tests}" for task in TASKS.values())
    return table(header, rows).rstrip("\n") + "\n\nWhat each task tests:\n\n" + tests + "\n"


def tier_figures() -> dict[str, dict[str, Any]]:
    """Per task, the figure that puts it in its tier: the v2 leaderboard's best learner at the full budget
    (``docs/results-v2/leaderboard.json``: its mean normalised score, interval and runs), and on a task
    scored by exact exploitability the multi-agent learners' best and worst final IQM
    (``docs/multiagent/exploitability.json``)."""
    from agents.bench.tasks import TASKS

    full = _load("results-v2/leaderboard.json")["sections"][0]["algorithms"]
    exploit = _load("multiagent/exploitability.json")["tasks"]
    later = _v3_sections()[0]["algorithms"]
    figures: dict[str, dict[str, Any]] = {}
    for task in TASKS.values():
        runs = [(scores["tasks"][task.name], name) for name, scores in full.items() if task.name in scores["tasks"]]
        entry: dict[str, Any] = {"tier": task.tier}
        if runs:
            best, name = max(runs, key=lambda run: run[0]["mean"])
            entry["best"] = {"algorithm": name, **best}
        if task.name in exploit:
            finals = [learner["final"]["iqm"] for learner in exploit[task.name].values()]
            entry["exploitability"] = {"best": min(finals), "worst": max(finals), "learners": len(finals)}
        v3 = [(name, scores["tasks"][task.name]) for name, scores in later.items() if task.name in scores["tasks"]]
        if v3:
            ranked = sorted(v3, key=lambda item: item[1]["mean"])
            entry["v3"] = {"best": {"algorithm": ranked[-1][0], **ranked[-1][1]},
                           "lowest": {"algorithm": ranked[0][0], **ranked[0][1]}, "learners": len(ranked)}
        figures[task.name] = entry
    return figures


def suite_tiers() -> str:
    """Each task's tier with the figure that puts it there (:func:`tier_figures`)."""
    rows = []
    for name, entry in tier_figures().items():
        best, exploit = entry.get("best"), entry.get("exploitability")
        learner = "-"
        if best is not None:
            learner = f"`{best['algorithm']}` {best['mean']:.2f} [{best['low']:.2f}, {best['high']:.2f}]"
        found = "-" if exploit is None else f"{exploit['best']:.3f} .. {exploit['worst']:.3f} ({exploit['learners']})"
        v3 = entry.get("v3")
        later = "-" if v3 is None else (
            f"`{v3['best']['algorithm']}` {_figure(v3['best'])} .. `{v3['lowest']['algorithm']}` "
            f"{v3['lowest']['mean']:.2f} ({v3['learners']})"
        )
        rows.append([f"`{name}`", entry["tier"], learner, found, later])
    header = ["task", "tier", "v2: best learner, mean normalised [95% CI]",
              "exact exploitability, final IQM: best .. worst (learners)",
              "v3: best learner [95% CI] .. lowest (learners)"]
    return table(header, rows).rstrip("\n") + (
        f"\n\nA task is in the sanity tier when its best learner in the v2 leaderboard (5 seeds, full budget) reached "
        f"{SATURATED:.2f} of the way from `random` to the reference or more, or, scored by exact exploitability, every "
        "multi-agent learner reached 0; the rest are the headline tier. A test holds the tiers to these figures. The "
        "tiers were fixed from them before the v3 sweep, which runs 10 seeds on the headline tier and 5 on the sanity "
        "tier, so a sweep never chooses the tasks of its own headline aggregate; v3's figures (its leaderboard) "
        "stand beside them, and a headline task whose best v3 learner reaches the threshold while other learners "
        "stay below it still tells learners apart.\n"
    )


def leaderboard() -> str:
    """``trash-bench report docs/results-v3 --tiers``'s Markdown, the reference leaderboard (benchmark v3): the
    full-budget section by tier, the learners without masks as their own track."""
    from agents.bench.report import load_sections, markdown

    return markdown(load_sections(ROOT / "docs" / V3_RESULTS, tiered=True))


def leaderboard_summary() -> str:
    """The leaderboard's first across-tasks paragraph (the headline tier's tasks every learner in it ran):
    its label and tasks, and per learner the interquartile mean, mean and optimality gap over them."""
    from agents.bench.report import summary

    return summary(leaderboard())


def _listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _span(values: list[float]) -> str:
    low, high = f"{min(values):+.2f}", f"{max(values):+.2f}"
    return low if low == high else f"{low} to {high}"


def leaderboard_findings() -> str:
    """The README's reading of the v3 leaderboard, every figure from ``docs/results-v3/leaderboard.json`` and
    the runs of :func:`masks_and_tuning_rows`: who leads the headline tier's first across-task group, where
    the headline tier has headroom (each such task's best learner), what masks and tuning changed per
    learner and task, and the sanity tier."""
    main, _ = _v3_sections()
    best = {task: found for task in main["headline_tasks"] if (found := _best(main, task)) is not None}
    headroom = [f"`{task}` (best: `{name}`, {score['mean']:.2f})" for task, (name, score) in best.items()
                if score["mean"] < SATURATED]
    saturated = [f"`{task}`" for task, (_, score) in best.items() if score["mean"] >= SATURATED]
    text = f"In short, with masks and tuning equal: {_leader(main['aggregates'][0])}."
    if headroom:
        text += f" What is left to learn is in {_listing(headroom)}"
        text += f"; the best learner reaches the reference ({SATURATED:.2f} or more) on {_listing(saturated)}." \
            if saturated else "."
    changes: dict[str, list[float]] = {"masks": [], "tuning": []}
    for row in masks_and_tuning_rows():
        if row["no masks"] is not None and row["masks"] is not None:
            changes["masks"].append(row["masks"].mean - row["no masks"].mean)
        if row["masks"] is not None and row["tuned"] is not None:
            changes["tuning"].append(row["tuned"].mean - row["masks"].mean)
    if changes["masks"] and changes["tuning"]:
        text += (
            f" Per learner and headline task, masks changed the mean final score by {_span(changes['masks'])} and "
            f"tuning by {_span(changes['tuning'])}."
        )
    sanity = main["sanity"]["algorithms"]
    failed = _sanity_failures(sanity)
    failing = [f"`{name}` on {_listing(tasks)}" for name, tasks in failed.items() if tasks]
    ran = sum(len(tasks) for tasks in sanity.values())
    if ran:
        pairs = sum(map(len, failed.values()))
        text += f" On the sanity tier {ran - pairs} of {ran} learner-task pairs pass"
        text += f"; those that fail: {'; '.join(failing)}." if failing else "."
    return text + "\n"


def headline_speed() -> str:
    """The README's headline speed figures, from what ``make bench`` measured (``docs/speed/*.json``,
    written by the scripts of ``benchmarks/``), each row saying its settings."""
    env, batched, evaluation = _load("speed/env.json"), _load("speed/batched.json"), _load("speed/eval.json")
    tuned, plain = _load("speed/selfplay.json"), _load("speed/selfplay_sb3_defaults.json")
    rows = [
        [
            "`trash_v0` via `env()`, random legal play",
            f"{env['figures']['trash_v0_decisions_per_second']:,.0f} decisions "
            f"({env['figures']['trash_v0_over_leduc']:.2f}x PettingZoo's `leduc_holdem_v4`)",
        ],
        [
            "the batched engine, 1,024 games in lockstep, random legal play",
            f"{batched['figures']['decisions_per_second']:,.0f} decisions",
        ],
    ]
    for pair in evaluation["figures"]["pairs"]:
        rows.append(
            [
                f"duplicate-deal evaluation on the batched engine, {pair['pair']}",
                f"{pair['batched']:,.0f} hands ({pair['batched'] / pair['scalar']:.1f}x the scalar path)",
            ]
        )
    for figures, what in ((tuned, "tuned for throughput"), (plain, "SB3's PPO minibatch and epochs")):
        settings = figures["figures"]["settings"]
        rows.append(
            [
                f"MaskablePPO self-play training on the batched vector env ({what}: {settings['n_envs']} games, "
                f"minibatches of {settings['batch_size']:,}, {settings['n_epochs']} epochs)",
                f"{figures['figures']['batched']:,.0f} timesteps ({figures['figures']['ratio']:.1f}x "
                "SB3's `DummyVecEnv` over the single-agent env)",
            ]
        )
    fast = _load("speed/fast_ppo.json")
    trash, sb3 = fast["figures"]["trash"], fast["figures"]["trash"]["sb3_maskable_ppo"]
    rows.append(
        [
            "the fast masked PPO (`trash-train --trainer fast`), two-player Trash against `random`, its defaults "
            "/ `THROUGHPUT` (1,024 games, 2 epochs)",
            f"{trash['fast_ppo_defaults']:,.0f} / {trash['fast_ppo_own_settings']:,.0f} timesteps "
            f"({trash['fast_ppo_defaults'] / sb3:.1f}x / {trash['fast_ppo_own_settings'] / sb3:.0f}x SB3's "
            f"MaskablePPO; measured on {fast['machine']['cpu']}, {fast['date']})",
        ]
    )
    machine = env["machine"]
    note = f"\nMeasured by `make bench` on {machine['cpu']}, {machine['cores']} cores, {env['date']}.\n"
    return table(["", "per second"], rows).rstrip("\n") + "\n" + note


def compile_cost() -> str:
    """What the first use costs in a new environment (``benchmarks/compile_cost.py``, written to
    ``docs/speed/compile.json``): each part's compile, and a first command cold, warm and after warm-up."""
    data = _load("speed/compile.json")
    figures, machine = data["figures"], data["machine"]
    rows = [
        [f"compiling {part}", f"{seconds:.1f} s", f"{figures['warmup_parts_cached'][part]:.1f} s"]
        for part, seconds in figures["warmup_parts_cold"].items()
    ]
    rows.append(["`trash-bench warmup`, all of it", f"{figures['warmup_cold_seconds']:.1f} s",
                 f"{figures['warmup_cached_seconds']:.1f} s"])  # fmt: skip
    first = [
        ["from an empty cache (the notice is printed)", f"{figures['first_command_cold_seconds']:.1f} s"],
        ["again", f"{figures['first_command_again_seconds']:.1f} s"],
        ["from an empty cache after `trash-bench warmup`", f"{figures['first_command_after_warmup_seconds']:.1f} s"],
    ]
    where = f"{machine['cpu']}, {machine['cores']} cores, {data['date']}"
    note = f"\nMeasured by `python benchmarks/compile_cost.py` on {where}.\n"
    return (
        table(["", "from an empty cache", "from the cache"], rows)
        + f"\n`{figures['first_command']}`, a first command:\n\n"
        + table(["", "wall time"], first).rstrip("\n")
        + "\n"
        + note
    )


def smallest_runs() -> str:
    """How long the smallest run of each built-in takes (``benchmarks/smallest_runs.py``, written to
    ``docs/speed/smallest_runs.json``): per algorithm, its slowest run on the sampled tasks and on the two
    exactly scored ones, and whether every printed score was the result file's."""
    data = _load("speed/smallest_runs.json")
    runs = [run for run in data["figures"]["runs"] if "refused" not in run]
    rows = []
    for algorithm in dict.fromkeys(run["algorithm"] for run in runs):
        mine = [run for run in runs if run["algorithm"] == algorithm]
        by = {kind: [run["seconds"] for run in mine if run["scoring"] == kind] for kind in ("sampled", "exact")}
        rows.append(
            [
                f"`{algorithm}`",
                str(len(mine)),
                f"{max(by['sampled']):.0f} s" if by["sampled"] else "-",
                f"{max(by['exact']):.0f} s" if by["exact"] else "-",
                "yes" if all(run["same"] for run in mine) else "no",
            ]
        )
    header = ["algorithm", "tasks", "slowest, sampled tasks", "slowest, exactly scored tasks", "printed = file"]
    machine = data["machine"]
    where = f"{machine['cpu']}, {machine['cores']} cores, {data['date']}"
    note = f"\nMeasured by `python benchmarks/smallest_runs.py` on {where}.\n"
    return table(header, rows).rstrip("\n") + "\n" + note


def default_training() -> str:
    """``make train``'s final table, from the ``final_eval.json`` of a run of it (``docs/default_final_eval.json``),
    in the columns the command prints."""
    from agents.evaluation.summary import FINAL_COLUMNS, final_rows

    rows = [[f"`{baseline}`", *cells] for baseline, *cells in final_rows(_load("default_final_eval.json"))]
    return table(list(FINAL_COLUMNS), rows)


def training_threads() -> str:
    """Training speed by thread count, idle and beside a busy process (``benchmarks/threads.py``)."""
    data = _load("speed/threads.json")
    rows = [
        [
            row["load"],
            str(row["threads"]),
            f"{row['process_seconds']:.1f}",
            f"{row['timesteps'] / row['train_seconds']:,.0f}",
        ]
        for row in data["figures"]["rows"]
    ]
    machine = data["machine"]
    note = (
        f"\n{data['figures']['timesteps']:,} timesteps of `trash-train` (MaskablePPO, its default settings) per run; "
        f"measured on {machine['cpu']}, {machine['cores']} cores, {data['date']}.\n"
    )
    return table(["load", "threads", "whole process (s)", "training timesteps/s"], rows).rstrip("\n") + "\n" + note


def _measured(data: dict[str, Any], what: str) -> str:
    """The line under a speed table: what was run, on which machine and with which versions, when."""
    machine = data["machine"]
    versions = ", ".join(f"{name} {version}" for name, version in machine["versions"].items())
    what = what[:1].upper() + what[1:]
    return (
        f"\n{what}; measured by `make bench` on {machine['cpu']}, {machine['cores']} cores, "
        f"{data['date']} (Python {machine['python']}, {versions}).\n"
    )


def random_play() -> str:
    """Random legal play on the rules cores and the PettingZoo environments (``benchmarks/bench_env.py``)."""
    data = _load("speed/env.json")
    rows = [
        [
            row["what"]
            .replace("env()", "`env()`")
            .replace("trash_v0", "`trash_v0`")
            .replace("help_your_neighbor_v0", "`help_your_neighbor_v0`")
            .replace("leduc_holdem_v4", "PettingZoo `leduc_holdem_v4`"),
            f"{row['decisions_per_second']:,.0f}",
            f"{row['games_per_second']:,.0f}",
        ]
        for row in data["figures"]["rows"]
    ]
    note = _measured(
        data, f"`trash_v0` makes {data['figures']['trash_v0_over_leduc']:.2f}x the decisions of `leduc_holdem_v4`"
    )
    return table(["engine", "decisions/s", "hands (games)/s"], rows).rstrip("\n") + "\n" + note


def batched_random_play() -> str:
    """Random legal play on the batched engine by batch size, beside the PettingZoo environments
    (``benchmarks/bench_batched.py``)."""
    data = _load("speed/batched.json")
    play = data["figures"]["random_play"]
    trash, leduc = play["trash_v0 via env()"], play["leduc_holdem_v4 via env()"]
    rows = [
        [
            name.replace("env()", "`env()`")
            .replace("trash_v0", "`trash_v0`")
            .replace("leduc_holdem_v4", "`leduc_holdem_v4`"),
            f"{rate:,.0f}",
            f"{rate / trash:.1f}x",
            f"{rate / leduc:.1f}x",
        ]
        for name, rate in play.items()
    ]
    return (
        table(["engine", "decisions/s", "vs `trash_v0`", "vs `leduc_holdem_v4`"], rows).rstrip("\n")
        + "\n"
        + _measured(data, "random legal actions drawn from the masks with NumPy, counted in the time")
    )


def batched_training() -> str:
    """MaskablePPO's training speed on the batched vector env against SB3's vector envs
    (``benchmarks/bench_batched.py``)."""
    data = _load("speed/batched.json")
    rows = [
        [
            str(row["n_envs"]),
            f"{row['batched']:,.0f}",
            f"{row['dummy']:,.0f}",
            f"{row['subproc']:,.0f}",
            f"{row['ratio']:.2f}x",
        ]
        for row in data["figures"]["training"]
    ]
    header = [
        "games",
        "`TrashVecEnv` (batched)",
        "`DummyVecEnv` over `TrashSingleAgentEnv`",
        "`SubprocVecEnv`",
        "batched / best scalar",
    ]
    note = _measured(data, "MaskablePPO against `random`, the same model settings, timesteps per second")
    return table(header, rows).rstrip("\n") + "\n" + note


def neighbor_batched() -> str:
    """The batched Help Your Neighbor engine against the scalar path (``benchmarks/bench_neighbor_batched.py``):
    random play, MaskablePPO training at three settings, evaluation."""
    data = _load("speed/neighbor_batched.json")
    figures = data["figures"]
    scalar = figures["random_play"]["help_your_neighbor_v0 via env()"]
    rows = [
        [
            f"random play, {what}".replace("help_your_neighbor_v0", "`help_your_neighbor_v0`"),
            f"{rate:,.0f} decisions/s",
            "" if rate == scalar else f"{rate / scalar:.1f}x `env()`",
        ]
        for what, rate in figures["random_play"].items()
    ]
    for run in figures["training"]:
        settings = f"{run['n_envs']} games x {run['n_steps']} steps"
        if "batch_size" in run:
            settings += f", minibatches of {run['batch_size']:,}, {run['n_epochs']} epochs"
        rows.append(
            [
                f"MaskablePPO training ({settings})",
                f"{run['batched']:,.0f} vs {run['dummy']:,.0f} timesteps/s",
                f"{run['ratio']:.2f}x (rollouts alone {run['rollout_ratio']:.2f}x)",
            ]
        )
    evaluation = figures["evaluation"]
    rows.append(
        [
            "evaluation, `heuristic` vs `random`, 2 players",
            f"{evaluation['batched']:,.0f} vs {evaluation['scalar']:,.0f} games/s",
            f"{evaluation['ratio']:.1f}x ({'the same games' if evaluation['same_games'] else 'DIFFERENT games'})",
        ]
    )
    note = _measured(
        data,
        "two players unless said; training against random and heuristic opponents as `hyn-2p` trains, batched "
        "(`NeighborVecEnv`) vs SB3's `DummyVecEnv`, the first row the suite's settings",
    )
    return table(["Help Your Neighbor", "batched vs scalar", "ratio"], rows).rstrip("\n") + "\n" + note


FAST_TASKS = ("trash-standard-2p", "trash-pagat-2p-match", "hyn-2p")  # issue 50's comparison


def fast_ppo_comparison() -> str:
    """``fast_ppo`` (``docs/results-fast``) beside MaskablePPO's protocol-v2 runs (``docs/results-v2``) on
    the same tasks and versions at the full budget: the final normalised score's mean over seeds (exact
    where the run was scored exactly) with its 95% Student-t interval (the leaderboard's per-task one),
    whether the two intervals overlap, and the wall time of a whole run (training, curve, final)."""
    import statistics

    from agents.bench.store import load_results
    from agents.evaluation.stats import Interval

    runs = {
        name: [r for r in load_results(ROOT / "docs" / folder) if r.algorithm == name and r.budget_fraction == 1.0]
        for name, folder in (("fast_ppo", "results-fast"), ("maskable_ppo", "results-v2"))
    }
    rows = []
    for task in FAST_TASKS:
        cells = [f"`{task}`"]
        times, intervals = {}, {}
        for name in ("maskable_ppo", "fast_ppo"):
            ours = [r for r in runs[name] if r.task == task and r.is_valid]
            if not ours:
                cells += ["-", "-"]
                continue
            intervals[name] = Interval.of([r.final.headline for r in ours])
            times[name] = statistics.mean(r.wall_seconds for r in ours)
            shown = intervals[name]
            cells += [f"{shown.mean:.3f} [{shown.low:.3f}, {shown.high:.3f}] ({shown.n})", f"{times[name]:.0f} s"]
        if len(intervals) == 2:
            first, second = intervals.values()
            overlap = "yes" if first.low <= second.high and second.low <= first.high else "no"
            ratio = f"{times['fast_ppo'] / times['maskable_ppo']:.2f}"
        else:
            overlap = ratio = "-"
        rows.append([*cells, overlap, ratio])
    header = ["task", "MaskablePPO: normalised [95% interval] (seeds)", "a run",
              "fast_ppo: normalised [95% interval] (seeds)", "a run", "intervals overlap", "time ratio"]
    note = (
        "\nFinal scores on each run's own test deals (exact on `hyn-2p`), normalised (0: `random`, 1: the "
        "reference), the mean over seeds with its 95% Student-t interval; a run's wall time is the whole "
        "`trash-bench run` of it: training, the curve's evaluations and the final one, one run per core. "
        "MaskablePPO: the v2 leaderboard's runs (`docs/results-v2`); fast_ppo: `docs/results-fast`, its default "
        "settings.\n"
    )
    return table(header, rows).rstrip("\n") + "\n" + note


def _time_to_score(data: dict[str, Any]) -> str:
    """One run of ``benchmarks/time_to_score.py``: each learner's median time to the target over the
    seeds that reach it, the timesteps there, and the time to train its whole budget."""
    import statistics

    target = data["target"]
    rows = []
    for name, runs in data["runs"].items():
        reached = [
            next(point for point in run["curve"] if point["normalized"] >= target)
            for run in runs
            if run["time_to_target"] is not None
        ]
        rows.append([
            f"`{name}`",
            f"{statistics.median(p['seconds'] for p in reached):.2f} s ({len(reached)} of {len(runs)})"
            if reached
            else "-",
            f"{statistics.median(p['timesteps'] for p in reached):,.0f}" if reached else "-",
            f"{statistics.median(run.get('budget', data['budget']) for run in runs):,.0f}",
            f"{statistics.median(run['train_seconds'] for run in runs):.1f} s",
        ])
    header = [f"`{data['task']}`", f"time to {target} normalised (seeds that reach it)", "at timesteps",
              "whole budget (timesteps)", "training it"]
    return table(header, rows)


def fast_ppo_sooner() -> str:
    """The time each learner takes to reach the target on ``trash-standard-2p``
    (``benchmarks/time_to_score.py``, ``docs/speed/time_to_score.json``), and ``hyn-2p`` at ten times
    its budget for ``fast_ppo`` (``docs/results-fast``, the open-budget track) beside MaskablePPO's
    v2 runs at the budget: normalised score, its exact distance from the optimum and a run's wall time."""
    import statistics

    from agents.bench.store import load_results
    from agents.evaluation.stats import Interval

    text = ""
    for source in ("time_to_score.json", "time_to_score_tuned.json", "hyn_ten_times.json"):
        text += _time_to_score(_load(f"speed/{source}")["figures"]) + "\n"
    text += (
        "Medians over the seeds, training time only (the policy scored afterwards on a curve point's "
        "validation deals, at 30 points spaced on a log scale); each table one run of "
        "`benchmarks/time_to_score.py` on an idle machine.\n\n"
    )
    wanted = (
        ("maskable_ppo", "results-v2", 1.0, ""),
        ("fast_ppo", "results-fast", 1.0, ""),
        ("maskable_ppo", "results-fast", 1.0, " (rerun beside the next)"),
        ("fast_ppo", "results-fast", 10.0, ""),
        ("fast_ppo_throughput", "results-fast", 10.0, ""),
    )
    rows = []
    for name, folder, fraction, label in wanted:
        ours = [
            r for r in load_results(ROOT / "docs" / folder)
            if r.algorithm == name and r.task == "hyn-2p" and r.budget_fraction == fraction and r.is_valid
        ]
        if not ours:
            continue
        shown = Interval.of([r.final.headline for r in ours])
        gaps = [-r.final.exact.score for r in ours if r.final.exact is not None]
        interval = f" [{shown.low:.3f}, {shown.high:.3f}]" if shown.n > 1 else ""
        rows.append([
            f"`{name}`{label}", f"{ours[0].budget:,}", f"{shown.mean:.3f}{interval} ({shown.n})",
            f"{statistics.mean(gaps):.3f} [{min(gaps):.3f}, {max(gaps):.3f}]" if gaps else "-",
            f"{statistics.mean(r.wall_seconds for r in ours):.0f} s",
        ])
    header = ["`hyn-2p`", "budget (timesteps)", "normalised [95% interval] (seeds)",
              "behind the optimum, per deal (exact): mean [range]", "a run"]
    return text + table(header, rows).rstrip("\n") + (
        "\n\nExact final scores against the optimum (normalised: 0 is `random`, 1 the optimum); a run's wall "
        "time is the whole `trash-bench run` (training, seven exact scorings, the final evaluation). "
        "MaskablePPO: the v2 runs (another machine), and one rerun on the machine and under the load of "
        "fast_ppo's runs at ten times the budget (the open-budget track, `--budget-fraction 10`), whose "
        "seven exact scorings are the same as at the budget. `fast_ppo_throughput`: `fast_ppo` with "
        "`THROUGHPUT`'s settings, its runs beside a tuning process (their first includes compiling the "
        "engines for a new checkout).\n"
    )


def multiagent_poker() -> str:
    """The multi-agent learners on Kuhn poker beside OpenSpiel's NFSP (``scripts/multiagent_poker.py``,
    ``docs/multiagent/kuhn.json``): exact exploitability at a middle checkpoint and at the end, mean and
    range over seeds, the greedy read-off's, and the training time."""
    import statistics

    path = ROOT / "docs" / "multiagent" / "kuhn.json"
    if not path.is_file():
        return "(no runs yet: `python scripts/multiagent_poker.py --json docs/multiagent/kuhn.json`)\n"
    data = _load("multiagent/kuhn.json")["figures"]
    labels = {"openspiel_nfsp": "OpenSpiel's NFSP (its Kuhn example)", "nfsp": "`nfsp`", "mmd": "`mmd`"}

    def spread(values: list[float]) -> str:
        return f"{statistics.mean(values):.3f} [{min(values):.3f}, {max(values):.3f}]"

    middle = data["points"][len(data["points"]) // 2]
    rows = []
    for method, runs in data["runs"].items():
        at_middle = [next(p for p in run if p["decisions"] >= middle)["exploitability"] for run in runs]
        finals = [run[-1] for run in runs]
        rows.append([
            labels.get(method, f"`{method}`"), str(len(runs)), spread(at_middle),
            spread([p["exploitability"] for p in finals]),
            spread([p["greedy"] for p in finals]) if all("greedy" in p for p in finals) else "-",
            f"{statistics.mean(p['seconds'] for p in finals):.0f} s",
        ])
    header = ["learner", "seeds", f"exploitability at {middle:,} decisions", f"at {data['decisions']:,}",
              "read greedily", "training time"]
    return table(header, rows).rstrip("\n") + (
        f"\n\n`{data['game']}`, OpenSpiel's exact exploitability (the mean over the two seats of a best "
        "response's gain; the uniform policy's is 0.458), mean [range] over seeds. Decisions: those a learner "
        "trained on (ours: its own seat's; OpenSpiel's two agents: both seats'). Read greedily: all weight on "
        "the legal action of highest logit, as the package keeps its policies. Training time excludes the "
        "scoring, one torch thread, beside other runs.\n"
    )


def multiagent_exploitability() -> str:
    """The self-play learners' exact exploitability on the tasks that have it
    (``scripts/exploitability_curves.py``, ``docs/multiagent/exploitability.json``): per task and learner
    the IQM over seeds at the curve's middle point and at the final, with 95% intervals, normalised,
    the score against the task's reference beside it, and the training time."""
    path = ROOT / "docs" / "multiagent" / "exploitability.json"
    if not path.is_file():
        return "(no runs yet: `python scripts/exploitability_curves.py RESULTS --json PATH`)\n"
    rows = []
    data = _load("multiagent/exploitability.json")
    for task, learners in data["tasks"].items():
        for algorithm, entry in sorted(learners.items(), key=lambda item: item[1]["final"]["iqm"]):
            middle = len(entry["timesteps"]) // 2
            final = entry["final"]
            seconds = entry["seconds"][-1]
            rows.append([
                f"`{task}`", f"`{algorithm}`", str(len(entry["seeds"])),
                f"{entry['iqm'][middle]:.3f} [{entry['low'][middle]:.3f}, {entry['high'][middle]:.3f}]",
                f"{final['iqm']:.3f} [{final['low']:.3f}, {final['high']:.3f}]",
                f"{final['best']:.3f} .. {final['worst']:.3f}",
                f"{final['normalized_iqm']:.3f}", f"{final['score_normalized_mean']:.3f}",
                "-" if seconds is None else f"{seconds:.0f} s",
            ])
    header = ["task", "learner", "seeds", "at half the budget", "final", "best .. worst", "normalised",
              "score (normalised)", "training time"]
    return table(header, rows).rstrip("\n") + (
        "\n\nExact exploitability per deal (what a best response wins per deal, both seats; 0 is a Nash "
        "equilibrium), IQM over seeds [95% bootstrap interval]; best .. worst: the seeds' finals. Normalised: "
        "1 - IQM / `random`'s exploitability. Score: the mean normalised score against the task's reference "
        "(exact on `hyn-2p-selfplay`, sampled on the reduced Trash), what a fixed-opponent benchmark reports. "
        "Training time: the median over seeds of the training's wall time, evaluations left out, with two to five "
        "processes sharing two cores as the runs went (the machine's load varied): read the times as rough.\n"
    ) + "".join(
        f"\nDo the score and the exact exploitability order the {found['runs']} runs of `{task}` alike? "
        + (f"Spearman's rank correlation between them: {found['spearman']:.2f} (1: the same order)."
           if found["spearman"] is not None
           else f"No order to compare: the {found['constant'][0]} is the same for every run.")
        + "\n"
        for task, found in data.get("agreement", {}).items()
    )


def multiagent_equal_time() -> str:
    """The self-play learners at equal training wall time (``scripts/exploitability_curves.py``,
    ``docs/multiagent/exploitability.json``): per task, a column per learner's whole training time,
    each learner's exact exploitability (IQM over seeds) at its last point reached by then."""
    path = ROOT / "docs" / "multiagent" / "exploitability.json"
    if not path.is_file():
        return "(no runs yet: `python scripts/exploitability_curves.py RESULTS --json PATH`)\n"
    parts = []
    for task, compared in _load("multiagent/exploitability.json").get("equal_time", {}).items():
        marks = compared["marks"]
        rows = []
        for algorithm, row in compared["learners"].items():
            cells = []
            for cell in row:
                if cell is None:
                    cells.append("-")
                else:
                    mark = "" if not cell["done"] else " (done)"
                    cells.append(f"{cell['iqm']:.3f} at {cell['timesteps'] / 1000:.0f}k{mark}")
            rows.append([f"`{algorithm}`", *cells])
        header = [f"`{task}`", *(f"by {mark:.0f} s" for mark in marks)]
        parts.append(table(header, rows).rstrip("\n"))
    return "\n\n".join(parts) + (
        "\n\nExact exploitability per deal, IQM over seeds, at each learner's last curve point reached by the "
        "column's training wall time (median over seeds, evaluations left out), with the timesteps it had "
        "trained by then; the columns are the learners' whole training times; done: its budget spent. The times "
        "were taken under varying load (two to five processes on two cores), so read them as rough.\n"
    )


def multiagent_bound() -> str:
    """The self-play learners on ``trash-standard-2p-selfplay``, too large for an exact figure: the
    trained best response's lower bound on each learner's best run (``trash-bench exploit``,
    ``docs/results-multiagent/exploit-trash-standard-2p-selfplay.json``) beside that run's score
    against the task's reference."""
    path = ROOT / "docs" / "results-multiagent" / "exploit-trash-standard-2p-selfplay.json"
    if not path.is_file():
        return "(no bound yet: `trash-bench exploit RESULTS --task trash-standard-2p-selfplay`)\n"
    data = _read(path)
    rows = []
    for run in sorted(data["runs"], key=lambda run: run["exploitability"]):
        result = _read(path.parent / run["result"])
        finals = [_read(other)["final"] for other in (path.parent / run["result"]).parent.glob("seed_*.json")]
        final = result["final"]
        rows.append([
            f"`{run['algorithm']}`", f"seed {run['seed']} (of {len(finals)})",
            f"{run['exploitability']:+.3f} [{run['low']:+.3f}, {run['high']:+.3f}]",
            f"{final['score']:+.3f} ({final['normalized']:.3f})",
            f"{sum(other['normalized'] for other in finals) / len(finals):.3f}", f"{run['budget']:,}",
        ])
    header = ["learner", "best run", "trained bound per deal [95% CI]", "its score (normalised)",
              "all seeds' score (mean, normalised)", "responder's timesteps"]
    deals = data["runs"][0]["deals"]
    return table(header, rows).rstrip("\n") + (
        "\n\nA lower bound on exploitability per deal: a MaskablePPO best response trained against the frozen "
        f"policy (one responder, the task's budget), its mean score on {deals:,} test deals from both seats, 95% "
        "interval. The run measured is each learner's best (`trash-bench exploit RESULTS`: the highest final "
        "score). Its score: the run's final against `greedy`, per deal, and normalised. On the solved game the "
        "same responder found no edge against `heuristic` or the shipped MaskablePPO policy, both exactly "
        "exploitable ([calibration](exploitability.md#calibration-on-hyn-2p)): a bound near 0 says little.\n"
    )


def local_best_response() -> str:
    """The local best response on two-player Help Your Neighbor (``benchmarks/local_best_response.py``,
    ``docs/local_best_response.json``): the exact ceiling of one, two and three improvement steps, then the
    Monte Carlo responder's fraction found, judged exactly, by rollouts."""
    path = ROOT / "docs" / "local_best_response.json"
    if not path.is_file():
        return "(not measured yet: `python benchmarks/local_best_response.py --json docs/local_best_response.json`)\n"
    data = _load("local_best_response.json")
    steps = len(data["ceilings"][0]["found"])
    rows = [
        [_name(row["policy"]) if not row["policy"].endswith(".json") else f"`{row['policy']}`",
         f"{row['exploitability']:.4f}", *(f"{found:.1%}" for found in row["found"]), f"{row['seconds'][0]:.0f} s"]
        for row in data["ceilings"]
    ]
    header = ["policy", "exact exploitability", *(f"found by {k + 1} step{'s' * (k > 0)}" for k in range(steps)),
              "a step"]
    text = table(header, rows).rstrip("\n") + (
        "\n\nThe ceiling, exact: a local best response whose continuation is the policy itself, with exact values "
        "in place of its rollouts, is one step of policy improvement; repeated, policy iteration. Found: its exact "
        "score difference per deal against the policy over the policy's exact exploitability.\n"
    )
    if data.get("gaps"):
        cuts = list(data["gaps"][0]["share_from_at_least"])
        rows = [
            [_name(row["policy"]), f"{row['departures_per_deal']:.1f}", f"{row['gain_per_deal']:.4f}",
             *(f"{row['share_from_at_least'][cut]:.0%}" for cut in cuts)]
            for row in data["gaps"]
        ]
        header = ["policy", "departures a deal", "gained a deal",
                  *(f"share from gains of {float(cut):g} or more" for cut in cuts)]
        text += "\n" + table(header, rows).rstrip("\n") + (
            f"\n\nWhere the exact step gains, along its games against the policy ({data['gaps'][0]['deals']} deals): "
            "the decisions where it departs from the policy, and the share of its whole gain that comes from "
            "departures worth at least so much in the probability of winning.\n"
        )
    if data["local"]:
        rows = [
            [_responder(row), _rollouts(row), f"{row['margin']:g}", str(row["deals"]),
             f"{row['found']:.1%} [{row['found_low']:.1%}, {row['found_high']:.1%}]",
             f"{row['sampled']:+.3f} [{row['sampled_low']:+.3f}, {row['sampled_high']:+.3f}]",
             f"{row['seconds_per_deal']:.1f} s"]
            for row in data["local"]
        ]
        header = ["policy", "rollouts", "margin", "deals", "found, judged exactly [95% CI]",
                  "sampled score per deal [95% CI]", "a deal"]
        text += "\n" + table(header, rows).rstrip("\n") + (
            "\n\nThe Monte Carlo responder (`trash-bench exploit POLICY --task hyn-2p --method local`): found is its "
            "score per deal judged exactly along its games (the exact value of each of its choices over the "
            "policy's own) over the exact exploitability; the sampled score is the same games' outcomes. Rollouts: "
            "per legal action at a decision; with `--rounds`, R x up to K rounds and, in parentheses, the mean "
            "spent a decision. A deal: its two games, one core, beside one or two other runs. Search: `--method "
            "search`, the local best response over a fast responder trained for the budget named (its training "
            "is not in the seconds a deal).\n"
        )
        missed = [row for row in data["local"] if row.get("by_gap")]
        if missed:
            cuts = [(bin_["gap_at_least"], bin_["below"]) for bin_ in missed[0]["by_gap"]]
            rows = [
                [_responder(row), _rollouts(row),
                 *(f"{b['decisions'] / row['deals']:.1f}: {_share(b['got'], b['best'])}" for b in row["by_gap"]),
                 _taken(row.get("share_taken"))]
                for row in missed
            ]
            header = ["policy", "rollouts", *(f"gap {low:g} or more" if high is None else f"gap {low:g} to {high:g}"
                                              for low, high in cuts), "all [95% CI]"]
            text += "\n" + table(header, rows).rstrip("\n") + (
                "\n\nWhich decisions it misses: its decisions along its games, by how much the best action there "
                "beats the policy's own in the probability of winning (exactly), as the number a deal and the share "
                "of the best actions' gain that its own choices took; all: that share over every decision, with a "
                "bootstrap interval over deals where the result file has one. Unlike found, it does not depend on "
                "how much edge the deals happened to hold.\n"
            )
    return text


def _responder(row: dict[str, Any]) -> str:
    if row.get("method") == "search":
        return f"{_name(row['policy'])}, search ({row['search_budget']:,})"
    return _name(row["policy"])


def _taken(share: dict[str, float] | None) -> str:
    if not share:
        return "-"
    interval = f" [{share['low']:.0%}, {share['high']:.0%}]" if "low" in share else ""
    return f"{share['share']:.0%}{interval}"


def _share(got: float, best: float) -> str:
    return "-" if best <= 0 else f"{got / best:.0%}"


def _rollouts(row: dict[str, Any]) -> str:
    if row.get("rounds", 1) == 1:
        return str(row["rollouts"])
    return f"{row['rollouts']} x {row['rounds']} ({row['rollouts_per_decision']:,})"


OWN_CONTINUATION = "the policy itself"  # a local bound's continuation unless named (agents.bench.local_exploit)


def _rollout_settings(settings: dict[str, Any], result: dict[str, Any]) -> str:
    """A bound's continuation where it was not the policy itself, its rollout horizon where it had one, and
    the share of its rollouts cut short by it."""
    own = settings.get("continuation", OWN_CONTINUATION)
    text = "" if own == OWN_CONTINUATION else f", continuation `{own}`"
    if settings.get("horizon") is None:
        return text
    cut = result["cut_short"] / result["rollouts_played"]
    return text + f", at most {settings['horizon']:,} steps ({cut:.1%} cut short)"


def trash_local_bounds() -> str:
    """The local best response's lower bounds on the two-player Trash tasks (``benchmarks/trash_bounds.py``,
    ``docs/exploit/trash/``), each beside what the same settings found of ``heuristic``'s exact
    exploitability on ``hyn-2p`` (``docs/local_best_response.json``): the calibration's caveat."""
    folder = ROOT / "docs" / "exploit" / "trash"
    results = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    if not results:
        return "(not measured yet: `python benchmarks/trash_bounds.py --out docs/exploit/trash`)\n"
    calibration = {
        (row["rollouts"], row["margin"], row.get("rounds", 1)): row
        for row in _load("local_best_response.json")["local"]
        if row["policy"] == "heuristic" and row.get("method", "local") == "local"  # the bounds' own method
    }
    order = {name: index for index, name in enumerate(["greedy", "counter"])}
    rows = []
    for result in sorted(results, key=lambda r: (r["task"], order.get(r["policy"], 2), r["policy"])):
        settings = result["settings"]
        key = (settings["rollouts"], settings["margin"], settings.get("rounds", 1))
        own = settings.get("continuation", OWN_CONTINUATION) == OWN_CONTINUATION
        found = calibration.get(key) if own else None  # the calibration's rows all continue with the policy
        caveat = "-" if found is None else f"{found['found']:.0%} [{found['found_low']:.0%}, {found['found_high']:.0%}]"
        policy = result["policy"]
        rows.append([
            f"`{result['task']}`",
            f"`{policy}`" if not policy.endswith(".json") else f"best kept: `{Path(policy).parent.name}/"
            f"{Path(policy).name}`",
            f"{result['score']:+.4f} [{result['low']:+.4f}, {result['high']:+.4f}]",
            f"{result['deals']:,}",
            f"{settings['rollouts']}" + _rollout_settings(settings, result),
            caveat,
            f"{result['seconds_per_deal']:.1f} s",
        ])
    header = ["task", "policy", "bound per deal [95% CI]", "deals", "rollouts", "same settings on `heuristic`, "
              "`hyn-2p`: found", "a deal"]
    return table(header, rows).rstrip("\n") + (
        "\n\nA lower bound on exploitability per deal: a local best response (`trash-bench exploit POLICY --task T "
        "--method local`, margin 2, test seed 77; its hidden cards sampled per world) against the policy on duplicate "
        "deals, both seats; where a rollout had at most so many engine steps, one still going then counted as a draw "
        "(R7), the games the responder played were whole; a continuation named: the rollouts' own later decisions "
        "played by that baseline instead of the policy, no calibration on `hyn-2p` beside it. The caveat beside it: "
        "the share of `heuristic`'s exact exploitability on `hyn-2p` that the same settings found, judged exactly "
        "(the table above). A bound near 0 says the method found no edge, not that there is none.\n"
    )


def trainer_candidates() -> str:
    """The candidates for a fast masked PPO on the same engine arrays (``benchmarks/trainer_candidates.py``,
    ``docs/speed/candidates.json``), in timesteps per second at each settings."""
    data = _load("speed/candidates.json")["figures"]
    names = list(data["suite"])
    rows = [
        [label, *(f"{data[key][name]:,}" if name in data[key] else "-" for name in names)]
        for key, label in (("suite", "MaskablePPO's (8 x 256, 10 epochs, minibatches of 512, 128x128)"),
                           ("throughput", "`THROUGHPUT` (1,024 x 16, 2 epochs, minibatches of 4,096, 64x64)"))
    ]
    puffer = data["pufferlib"].split(": ", 1)[-1]
    return table(["settings", *names], rows).rstrip("\n") + f"\n\nPufferLib's trainer: {puffer}.\n"


def search_spaces() -> str:
    """Each tunable built-in's search space in words (:func:`agents.bench.tune.describe_space`)."""
    from agents.bench.tuned_settings import SEARCH_SPACES, describe_space

    rows = []
    for algorithm in SEARCH_SPACES:
        ranges = describe_space(algorithm)
        rows.append([f"`{algorithm}`", "; ".join(f"`{name}` {text}" for name, text in ranges.items())])
    return table(["algorithm", "settings searched"], rows)


TUNED_AGAINST_DEFAULTS = (  # each algorithm, where its default-settings runs are, its tuned runs in results-tuning
    ("maskable_ppo", "results-v2"),
    ("fast_ppo", "results-fast"),
    ("masked_a2c", "results-tuning"),
    ("masked_dqn", "results-tuning"),
    ("masked_qrdqn", "results-tuning"),
)


_FINALS: dict[str, list[Any]] = {}  # a results folder of docs/ -> its runs, read once


def _finals(folder: str, algorithm: str, task: str) -> list[float]:
    """The final normalised scores (exact where exact) of ``algorithm``'s full-budget runs of ``task`` in
    ``docs/FOLDER``, in seed order."""
    from agents.bench.store import load_results

    if folder not in _FINALS:
        if not (ROOT / "docs" / folder).is_dir():
            raise FileNotFoundError(f"docs/{folder}: no such results folder")
        _FINALS[folder] = load_results(ROOT / "docs" / folder)
    runs = sorted(
        (r for r in _FINALS[folder] if r.algorithm == algorithm and r.task == task and r.budget_fraction == 1.0),
        key=lambda r: r.seed,
    )
    return [r.final.headline for r in runs if r.is_valid]


def _over_seeds(folder: str, algorithm: str, task: str) -> Any:
    """:func:`_finals`' mean with its 95% Student-t interval over seeds, or None under two seeds."""
    from agents.evaluation.stats import Interval

    values = _finals(folder, algorithm, task)
    return Interval.of(values) if len(values) > 1 else None


def _seeds_shown(interval: Any) -> str:
    if interval is None:
        return "-"
    return f"{interval.mean:.3f} [{interval.low:.3f}, {interval.high:.3f}] ({interval.n})"


def tuned_against_defaults() -> str:
    """Each tuned algorithm at its defaults and with ``tuned-v1`` on the tuning tasks at the full
    budget: the final normalised score's mean over seeds (exact where exact) with its 95% Student-t
    interval, the change, and whether the intervals overlap. Defaults: MaskablePPO's v2 runs
    (``docs/results-v2``), ``fast_ppo``'s (``docs/results-fast``), the masked learners' in
    ``docs/results-tuning``; the tuned runs in ``docs/results-tuning`` (``ALGORITHM-tuned-v1``)."""
    from agents.bench.tuned_settings import TUNED, read_settings

    settings = read_settings(TUNED / "tuned-v1.json")
    rows = []
    for algorithm, folder in TUNED_AGAINST_DEFAULTS:
        if algorithm not in settings.algorithms:
            continue
        for task in settings.algorithms[algorithm].study.tasks:
            default = _over_seeds(folder, algorithm, task)
            tuned = _over_seeds("results-tuning", f"{algorithm}-tuned-v1", task)
            if default is None and tuned is None:
                continue
            both = default is not None and tuned is not None
            rows.append([
                f"`{algorithm}`", f"`{task}`", _seeds_shown(default), _seeds_shown(tuned),
                f"{tuned.mean - default.mean:+.3f}" if both else "-",
                ("yes" if default.low <= tuned.high and tuned.low <= default.high else "no") if both else "-",
            ])
    header = ["algorithm", "task", "defaults: normalised [95% interval] (seeds)",
              "tuned-v1: normalised [95% interval] (seeds)", "change", "intervals overlap"]
    return table(header, rows).rstrip("\n") + (
        "\n\nFinal scores on each run's own test deals (exact on `hyn-2p`), normalised (0: `random`, 1: the "
        "reference), at the full budget; the mean over seeds with its 95% Student-t interval. Defaults: "
        "MaskablePPO's v2 runs (`docs/results-v2`), `fast_ppo`'s (`docs/results-fast`), the masked learners' "
        "(`docs/results-tuning`); tuned: `trash-bench run --settings tuned-v1` (`docs/results-tuning`).\n"
    )


V3_RESULTS = "results-v3"  # the v3 sweep (issue 54)
V2_RESULTS = "results-v2"  # the v2 sweep: MaskablePPO's runs at its default settings, with masks
MASKS_AND_TUNING = (  # a learner: without masks at its defaults, with masks at its defaults (and where), tuned
    ("PPO", "ppo", ("maskable_ppo", V2_RESULTS), "maskable_ppo-tuned-v1"),
    ("PPO, fast trainer", "ppo", ("fast_ppo", "results-fast"), "fast_ppo-tuned-v1"),
    ("A2C", "a2c", ("masked_a2c", "results-tuning"), "masked_a2c-tuned-v1"),
    ("DQN", "dqn", ("masked_dqn", "results-tuning"), "masked_dqn-tuned-v1"),
    ("QR-DQN", "qrdqn", ("masked_qrdqn", "results-tuning"), "masked_qrdqn-tuned-v1"),
)


def _headline_tasks() -> list[str]:
    from agents.bench.tasks import HEADLINE, TASKS

    return [task.name for task in TASKS.values() if task.tier == HEADLINE]


def _change(before: Any, after: Any) -> str:
    """The change of the mean from one interval over seeds to the other, bold where the two intervals
    do not overlap; "-" where either was not measured."""
    if before is None or after is None:
        return "-"
    text = f"{after.mean - before.mean:+.2f}"
    return f"**{text}**" if after.low > before.high or after.high < before.low else text


def masks_and_tuning_rows() -> list[dict[str, Any]]:
    """Per learner and headline task, its final scores over seeds (:func:`_over_seeds`) without masks at
    its defaults (v2's runs, v3's "no masks" track), with masks at its defaults and with masks tuned
    (``tuned-v1``, the v3 sweep): :data:`MASKS_AND_TUNING`."""
    rows = []
    for label, maskless, (masked, where), tuned in MASKS_AND_TUNING:
        for task in _headline_tasks():
            row = {
                "learner": label, "task": task,
                "no masks": _over_seeds(V3_RESULTS, maskless, task),
                "masks": _over_seeds(where, masked, task), "where": where,
                "tuned": _over_seeds(V3_RESULTS, tuned, task),
            }
            if any(row[key] is not None for key in ("masks", "tuned")):
                rows.append(row)
    return rows


def masks_and_tuning() -> str:
    """What masks and tuning each changed on the headline tasks (:func:`masks_and_tuning_rows`)."""
    rows = [
        [row["learner"], f"`{row['task']}`", _seeds_shown(row["no masks"]),
         _seeds_shown(row["masks"]) + ("" if row["masks"] is None else f" `{row['where']}`"),
         _seeds_shown(row["tuned"]), _change(row["no masks"], row["masks"]), _change(row["masks"], row["tuned"])]
        for row in masks_and_tuning_rows()
    ]
    header = ["learner", "task", "no masks, defaults", "masks, defaults", "masks, `tuned-v1` (v3)", "masks changed",
              "tuning changed"]
    return table(header, rows).rstrip("\n") + (
        "\n\nFinal normalised scores at the full budget (exact where exact): mean over seeds, 95% Student-t "
        "interval, seeds in parentheses. Without masks: v2's PPO, A2C, DQN and QR-DQN (v3's \"no masks\" track; the "
        "fast trainer is set beside PPO). With masks at the defaults: MaskablePPO's v2 runs, the fast trainer's "
        "(`docs/results-fast`) and the masked learners' tuning baselines (`docs/results-tuning`, the tuning tasks "
        "only). Tuned: the v3 sweep. A change is in bold where the two intervals do not overlap.\n"
    )


def _v3_sections() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The v3 leaderboard's full-budget section and its "no masks" track (``leaderboard.json``)."""
    sections = [s for s in _load(f"{V3_RESULTS}/leaderboard.json")["sections"] if s["budget_fraction"] == 1.0]
    main = next(s for s in sections if not s["track"])
    return main, next((s for s in sections if s["track"]), None)


def _best(section: dict[str, Any], task: str) -> tuple[str, dict[str, Any]] | None:
    scored = [(name, runs["tasks"][task]) for name, runs in section["algorithms"].items() if task in runs["tasks"]]
    return max(scored, key=lambda item: item[1]["mean"]) if scored else None


def _figure(score: dict[str, Any]) -> str:
    interval = "" if score["low"] is None else f" [{score['low']:.2f}, {score['high']:.2f}]"
    return f"{score['mean']:.2f}{interval}"


def _ranked(aggregate: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An across-task group's learners with their figures, highest IQM first."""
    return sorted(aggregate["algorithms"].items(), key=lambda item: -item[1]["IQM"]["point"])


def _leader(aggregate: dict[str, Any]) -> str:
    ranked = _ranked(aggregate)
    tasks = _listing([f"`{task}`" for task in aggregate["tasks"]])
    (first, figures), rest = ranked[0], ranked[1:]
    text = f"over {tasks}, `{first}` leads with an IQM of {_figure(_point(figures['IQM']))}"
    if rest:
        second, other = rest[0]
        chance = aggregate["improvement"][first][second]
        measured = "measurably" if chance["low"] > 0.5 else "not measurably"
        text += (
            f", {measured} ahead of `{second}` ({_figure(_point(other['IQM']))}): P(`{first}` > `{second}`) "
            f"{_figure(_point(chance))}"
        )
    return text


def _point(value: dict[str, Any]) -> dict[str, Any]:
    return {"mean": value["point"], "low": value["low"], "high": value["high"]}


def v3_summary() -> str:
    """The v3 leaderboard in short, from ``docs/results-v3/leaderboard.json``: per across-task group of
    the headline tier, each learner's IQM, mean and optimality gap, best first, with how many sanity
    tasks it passed."""
    main, _ = _v3_sections()
    passed = {
        name: f"{sum(entry['passed'] for entry in tasks.values())} of {len(tasks)}" if tasks else "-"
        for name, tasks in main["sanity"]["algorithms"].items()
    }
    blocks = []
    for aggregate in main["aggregates"]:
        rows = [
            [f"`{name}`", *(_figure(_point(figures[key])) for key in ("IQM", "mean", "optimality gap")),
             passed.get(name, "-")]
            for name, figures in _ranked(aggregate)
        ]
        tasks = _listing([f"`{task}`" for task in aggregate["tasks"]])
        header = ["learner", "IQM", "mean", "optimality gap", "sanity tasks passed"]
        blocks.append(f"Headline tier, over {tasks}:\n\n" + table(header, rows))
    return "\n".join(blocks).rstrip("\n") + (
        f"\n\n(Final normalised scores, 0: `random`, 1: the reference; stratified bootstrap over seeds, 95% "
        f"intervals; each group over the headline tasks every learner in it ran. A sanity task is passed with a mean "
        f"of {main['sanity']['pass_score']:.2f} or more.)\n"
    )


def _baseline_marks(baselines: dict[str, float]) -> str:
    """The baselines' exact exploitability (:func:`_exploitability_baselines`) as text, least first."""
    return ", ".join(f"`{name}` {value:.2f}" for name, value in sorted(baselines.items(), key=lambda b: b[1]))


def _sanity_failures(sanity: dict[str, dict[str, dict[str, Any]]]) -> dict[str, list[str]]:
    """Per learner of ``leaderboard.json``'s sanity tier, the tasks it failed, each with its mean score."""
    return {name: [f"`{task}` ({entry['mean']:.2f})" for task, entry in tasks.items() if not entry["passed"]]
            for name, tasks in sanity.items()}


def _exploitability_baselines(task: str) -> dict[str, float]:
    """The baselines' exact exploitability in ``task``'s game (``agents/bench/references.json``): its own, or
    those of a task on the same rules that is scored by exploitability (``hyn-2p-selfplay`` for ``hyn-2p``:
    exploitability depends on the game and the policy only)."""
    from agents.bench.tasks import TASKS, load_references

    references = load_references()
    rules = (TASKS[task].game, TASKS[task].preset, TASKS[task].rules)
    same = [task, *(other.name for other in TASKS.values() if (other.game, other.preset, other.rules) == rules)]
    return next((references[name]["exploitability"]["baselines"] for name in same
                 if "exploitability" in references.get(name, {})), {})


def _two_player_finding(task: str, measured: dict[str, Any], baselines: dict[str, float]) -> str:
    """A headline task's exploitability and cross-play in short (``leaderboard.json``'s ``two_player``): the
    least and most exploitable learner (exact), or over how many a trained best response found an edge
    (its interval above 0), and the best-rated learned policy against each baseline but ``random``: above,
    level with (overlapping intervals) or below."""
    said = []
    exploit = {name: entry["exploitability"] for name, entry in measured["algorithms"].items()
               if entry["exploitability"] is not None}
    if exploit:
        ranked = sorted(exploit.items(), key=lambda item: item[1]["mean"])
        if ranked[0][1]["kind"] == "exact":
            marks = _baseline_marks(baselines)
            said.append(
                f"exact exploitability per deal of the kept runs from {ranked[0][1]['mean']:.2f} (`{ranked[0][0]}`) to "
                f"{ranked[-1][1]['mean']:.2f} (`{ranked[-1][0]}`)" + (f" (baselines: {marks})" if marks else "")
            )
        else:
            edges = [f"`{name}` {_figure(bound)}" for name, bound in ranked
                     if bound["low"] is not None and bound["low"] > 0]
            said.append(
                f"a trained best response to each learner's best run found an edge over {len(edges)} of {len(ranked)}"
                + (f" ({_listing(edges)})" if edges else "")
            )
    from agents.bench.report import elo_text

    rated = [entry["rating"] for entry in measured["algorithms"].values() if entry["rating"] is not None]
    rivals = sorted(((name, mark) for name, mark in measured["baselines"].items() if name != "random"),
                    key=lambda item: -item[1]["mean"])
    if rated and rivals:
        best = max(rated, key=lambda rating: rating["mean"])
        against = []
        for rival, mark in rivals:
            above, below = best["low"] > mark["high"], best["high"] < mark["low"]
            compared = "above" if above else "below" if below else "level with"
            against.append(f"{compared} `{rival}` ({elo_text(mark)})")
        said.append(
            f"in cross-play the best-rated learned policy (`{best['run']}`, {elo_text(best)} Elo; `random` 0) is "
            f"{_listing(against)}"
        )
    return f"`{task}`: " + ", and ".join(said)


def v3_findings() -> str:
    """The reading of the v3 leaderboard, every figure from ``docs/results-v3/leaderboard.json``, v2's
    ``docs/results-v2/leaderboard.json`` and the runs of :func:`masks_and_tuning_rows`: who leads the
    headline tier, what masks and tuning changed, where the headline tier has headroom, v3 against v2,
    exploitability, the two-player headline tasks' exploitability and cross-play files (``two_player``)
    and the sanity tier."""
    main, maskless = _v3_sections()
    v2 = next(s for s in _load(f"{V2_RESULTS}/leaderboard.json")["sections"] if s["budget_fraction"] == 1.0)
    leads = "; ".join(_leader(a) for a in main["aggregates"])
    lines = [f"- **Who leads.** {leads[0].upper()}{leads[1:]}."]
    if maskless is not None:
        lines[-1] += " Without masks: " + "; ".join(_leader(a) for a in maskless["aggregates"]) + "."
    by_learner: dict[str, dict[str, list[float]]] = {}
    for row in masks_and_tuning_rows():
        changes = by_learner.setdefault(row["learner"], {"masks": [], "tuning": []})
        if row["no masks"] is not None and row["masks"] is not None:
            changes["masks"].append(row["masks"].mean - row["no masks"].mean)
        if row["masks"] is not None and row["tuned"] is not None:
            changes["tuning"].append(row["tuned"].mean - row["masks"].mean)
    said = []
    for learner, changes in by_learner.items():
        parts = [
            f"{what} {sum(values) / len(values):+.2f} on average over {len(values)} task{'s' * (len(values) > 1)}"
            for what, values in (("masks", changes["masks"]), ("tuning", changes["tuning"])) if values
        ]
        if parts:
            said.append(f"{learner}: {', '.join(parts)}")
    lines.append(
        "- **Masks and tuning** (the table below, headline tasks; a change is the difference of the mean final "
        f"scores): {'; '.join(said)}."
    )
    headroom = []
    for task in main["headline_tasks"]:
        best = _best(main, task)
        if best is None:
            continue
        name, score = best
        if score["mean"] >= SATURATED:
            said = f"saturated by this figure ({SATURATED:.2f} or more, as the sanity tier's tasks were in v2)"
        elif score["high"] is not None and score["high"] < 1.0:
            said = f"{1 - score['mean']:.2f} short of the reference, measurably"
        else:
            said = "not measurably short of the reference"
        headroom.append(f"`{task}`: `{name}` {_figure(score)}, {said}")
    lines.append("- **Headroom** (each headline task's best learner): " + "; ".join(headroom) + ".")
    against = []
    for task in main["headline_tasks"]:
        new, old = _best(main, task), _best(v2, task)
        if new is not None and old is not None:
            against.append(f"`{task}` {old[1]['mean']:.2f} (`{old[0]}`) → {new[1]['mean']:.2f} (`{new[0]}`)")
    lines.append("- **v3 against v2** (each headline task's best learner, v2 → v3): " + "; ".join(against) + ".")
    exploitable = []
    for task in main["headline_tasks"]:
        found = sorted(
            ((runs["exploitability"][task], name) for name, runs in main["algorithms"].items()
             if task in runs.get("exploitability", {})),
            key=lambda item: item[0]["mean"],
        )
        if found:
            baselines = _exploitability_baselines(task)
            marks = _baseline_marks(baselines)
            exploitable.append(
                f"`{task}`: least `{found[0][1]}` {_figure(found[0][0])}, most `{found[-1][1]}` "
                f"{found[-1][0]['mean']:.2f}, of {len(found)} learners" + (f" (baselines: {marks})" if marks else "")
            )
    if exploitable:
        lines.append(
            "- **Exploitability** (exact, per deal, mean over the final policies; 0: unexploitable): "
            + "; ".join(exploitable) + "."
        )
    measured = [_two_player_finding(task, main["two_player"][task], _exploitability_baselines(task))
                for task in main["headline_tasks"] if task in main.get("two_player", {})]
    if measured:
        lines.append("- **Two-player measurements** (`trash-bench exploit` and `crossplay`): " + "; ".join(measured)
                     + ".")
    sanity = []
    for name, failed in _sanity_failures(main["sanity"]["algorithms"]).items():
        ran = len(main["sanity"]["algorithms"][name])
        if ran:
            failing = f", failing {_listing(failed)}" if failed else ""
            sanity.append(f"`{name}` passes {ran - len(failed)} of {ran}{failing}")
    lines.append(
        f"- **Sanity tier** (passed: a mean of {main['sanity']['pass_score']:.2f} or more): " + "; ".join(sanity) + "."
    )
    return "\n".join(lines) + "\n"


def tuned_settings(path: Path | None = None) -> str:
    """The package's tuned settings (``agents/bench/tuned/tuned-v1.json``): each algorithm's study
    (trials, pruned, the best trial's validation score, what it cost), then the settings chosen, one row
    each, the most important first (PED-ANOVA)."""
    from agents.bench.tuned_settings import TUNED, read_settings

    data = read_settings(path or TUNED / "tuned-v1.json")
    studies, settings = [], []
    for algorithm, tuned in data.algorithms.items():
        study = tuned.study
        studies.append([
            f"`{algorithm}`",
            f"{study.trials} ({study.pruned} pruned)",
            f"{study.best_value:.3f} (trial {study.best_trial})",
            f"{study.seconds / 3600:.1f} h, {study.timesteps / 1e6:.1f}M timesteps",
        ])
        for name in sorted(tuned.values, key=lambda name: -study.importance.get(name, 0.0)):
            importance = study.importance.get(name)
            settings.append([
                f"`{algorithm}`", f"`{name}`", _setting(tuned.values[name]),
                f"{importance:.2f}" if importance is not None else "-",
            ])
    tasks = {", ".join(f"`{task}`" for task in tuned.study.tasks) for tuned in data.algorithms.values()}
    header = ["algorithm", "trials", "best: mean normalised on validation deals", "cost"]
    return (
        table(header, studies).rstrip("\n")
        + "\n\n"
        + table(["algorithm", "setting", "tuned value", "importance"], settings).rstrip("\n")
        + f"\n\nSettings `{data.name}`, tuned on {' / '.join(sorted(tasks))}.\n"
    )


def _setting(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "x".join(str(width) for width in value)
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _shares(shares: dict[str, float]) -> str:
    return f"{shares['env']:.0%}, {shares['forward']:.0%}, {shares['update']:.0%}"


def fast_ppo_speed() -> str:
    """``fast_ppo`` against SB3's MaskablePPO and the plain-torch limit (``benchmarks/fast_ppo.py``)."""
    data = _load("speed/fast_ppo.json")
    trash, neighbor = data["figures"]["trash"], data["figures"]["help_your_neighbor"]
    limit, sb3 = trash["plain_torch_limit"], trash["sb3_maskable_ppo"]
    neighbor_sb3 = neighbor["sb3_maskable_ppo_dummy_vec_env"]

    def rate(value: float, against: float | None = None, what: str = "") -> list[str]:
        return [f"{value:,.0f}", f"{value / against:.2f}x {what}" if against else ""]

    shares = trash["own_settings_shares"]
    rows = [
        ["Trash, MaskablePPO's settings", "SB3 MaskablePPO on `TrashVecEnv(8)`", *rate(sb3)],
        ["", "the plain-torch limit of those settings", *rate(limit, sb3, "SB3")],
        ["", "`fast_ppo` at those settings", f"{trash['fast_ppo_at_suite_settings']:,.0f}",
         f"{trash['fast_ppo_at_suite_settings'] / limit:.0%} of the limit, "
         f"{trash['fast_ppo_at_suite_settings'] / sb3:.2f}x SB3"],
    ]
    if "fast_ppo_defaults" in trash:  # (figures measured before the defaults changed have none)
        rows += [
            ["Trash, `fast_ppo`'s defaults", "`fast_ppo`", *rate(trash["fast_ppo_defaults"], sb3, "SB3")],
            ["", "its time: engine and opponents, forward passes, update", _shares(trash["defaults_shares"]), ""],
        ]
    rows += [
        ["Trash, `fast_ppo`'s `THROUGHPUT`", "`fast_ppo`", *rate(trash["fast_ppo_own_settings"], sb3, "SB3")],
        ["", "its time: engine and opponents, forward passes, update", _shares(shares), ""],
        ["Help Your Neighbor", "SB3 MaskablePPO on `DummyVecEnv` (suite's settings)",
         *rate(neighbor["sb3_maskable_ppo_dummy_vec_env"])],
    ]
    if "fast_ppo_defaults" in neighbor:
        rows.append(["", "`fast_ppo`, its defaults", *rate(neighbor["fast_ppo_defaults"], neighbor_sb3, "SB3")])
    rows.append(["", "`fast_ppo`, `THROUGHPUT`", *rate(neighbor["fast_ppo_own_settings"], neighbor_sb3, "SB3")])
    settings = data["figures"]["suite_settings"]
    note = _measured(
        data,
        f"one torch thread, against `random`; MaskablePPO's settings: {settings['n_envs']} games x "
        f"{settings['n_steps']} steps, minibatches of {settings['minibatch']}, {settings['epochs']} epochs, "
        f"{'x'.join(map(str, settings['hidden']))} networks; the limit is the forward pass at 8 games and "
        "10 epochs of the update timed on random data",
    )
    return table(["task", "trainer", "timesteps/s", "ratio"], rows).rstrip("\n") + "\n" + note


def exact_speed() -> str:
    """Exact evaluation of two-player Help Your Neighbor, the level sweep against the one-roll iteration
    (``benchmarks/bench_exact.py``)."""
    data = _load("speed/exact.json")
    figures = data["figures"]
    rows = [
        [
            f"decision tables of `{name}`" if name == "heuristic" else f"decision tables of the {name}",
            f"{seconds:.1f} s",
            "",
            "",
            "",
        ]
        for name, seconds in figures["decision_tables"].items()
    ]
    pair = figures["pair"] if figures["pair"] == "heuristic" else f"the {figures['pair']}"
    for run in figures["pairs"]:
        rows.append(
            [
                f"{pair} vs `optimal`, tolerance {run['tolerance']:g}",
                f"{run['level_sweep']:.1f} s",
                f"{run['by_rolls']:.1f} s",
                f"{run['by_rolls'] / run['level_sweep']:.1f}x",
                f"{run['largest_difference']:.1e}",
            ]
        )
    header = ["exact evaluation", "level sweep", "one-roll iteration", "ratio", "largest difference"]
    note = _measured(
        data,
        "one thread; the largest difference between the two answers over the states of a game still on; "
        f"load average {figures['load_average']:.1f} at the end (other work beside it slows every figure)",
    )
    return table(header, rows).rstrip("\n") + "\n" + note


def evaluation_speed() -> str:
    """Duplicate-deal evaluation on each engine and worker count, and ``search``'s cost per decision
    (``benchmarks/bench_eval.py``)."""
    data = _load("speed/eval.json")
    rows = [
        [
            f"{pair['pair']}, {pair['deals']:,} deals",
            f"{pair['scalar']:,.0f}",
            f"{pair['scalar_two_workers']:,.0f}",
            f"{pair['batched']:,.0f}",
            f"{pair['batched'] / pair['scalar']:.1f}x",
            "yes" if pair["same_games"] else "**no**",
        ]
        for pair in data["figures"]["pairs"]
    ]
    header = [
        "pair (standard, 2 players), hands/s",
        "scalar, 1 worker",
        "scalar, 2 workers",
        "batched engine",
        "batched / scalar",
        "the same games",
    ]
    search = "; ".join(
        f"`{row['agent']}` costs {row['milliseconds_per_decision']:.2f} ms per decision "
        f"({row['hands']} hands against `greedy`)"
        for row in data["figures"].get("search", [])
    )
    what = "torch with one thread" + (f"; {search}" if search else "")
    return table(header, rows).rstrip("\n") + "\n" + _measured(data, what)


def batched_learning() -> str:
    """The same training budget on the batched vector env and on SB3's, seed by seed
    (``benchmarks/batched_training.py --json``)."""
    data = _load("speed/batched_training.json")
    runs, settings = data["figures"]["runs"], data["figures"]["settings"]
    cell = {(run["engine"], run["seed"], run["baseline"]): run for run in runs}
    seeds = sorted({run["seed"] for run in runs})
    baselines = list(dict.fromkeys(run["baseline"] for run in runs))
    columns = [(engine, baseline) for baseline in baselines for engine in ("batched", "dummy")]
    label = {"batched": "batched", "dummy": "SB3 `DummyVecEnv`"}

    def interval(run: dict[str, Any]) -> str:
        return f"{run['mean']:+.4f} [{run['low']:+.4f}, {run['high']:+.4f}]"

    rows = [[str(seed), *(interval(cell[engine, seed, baseline]) for engine, baseline in columns)] for seed in seeds]
    rows.append(["mean", *(f"{sum(cell[e, s, b]['mean'] for s in seeds) / len(seeds):+.4f}" for e, b in columns)])
    overlap = sum(
        max(cell["batched", s, b]["low"], cell["dummy", s, b]["low"])
        <= min(cell["batched", s, b]["high"], cell["dummy", s, b]["high"])
        for s in seeds
        for b in baselines
    )
    what = (
        f"{settings['timesteps']:,} timesteps, {settings['n_envs']} games, {settings['deals']:,} duplicate deals per "
        f"baseline; the intervals of the two engines overlap in {overlap} of {len(seeds) * len(baselines)} "
        "pairs of runs"
    )
    header = ["seed", *(f"{label[engine]} vs `{baseline}`" for engine, baseline in columns)]
    return (
        table(header, rows).rstrip("\n")
        + "\n"
        + _measured(data, what).replace("`make bench`", "`benchmarks/batched_training.py`")
    )


def _interval(value: dict[str, Any]) -> str:
    low, high = value["low"], value["high"]
    bounds = "unbounded" if low is None or high is None else f"{low:+.3f}, {high:+.3f}"
    return f"{value['mean']:+.3f} [{bounds}]"


def openspiel_bots() -> str:
    """OpenSpiel's MCTS and ISMCTS against the baselines on duplicate deals
    (``benchmarks/openspiel_bots.py``, ``docs/openspiel_bots.json``)."""
    data = _load("openspiel_bots.json")
    games = {"help_your_neighbor": "Help Your Neighbor, 2 players", "trash": "Trash, standard, 2 players"}
    rows = [
        [
            games[pair["game"]],
            f"`{pair['bot']}`",
            f"`{pair['opponent']}`",
            str(pair["deals"]),
            _interval(pair["score_difference"]),
            f"{pair['bot_win_rate']:.3f}",
            f"{pair['seconds_per_decision']:.3f}",
        ]
        for pair in data["pairs"]
    ]
    header = ["game", "bot", "opponent", "deals", "score difference [95%]", "bot wins", "s per decision"]
    note = (
        f"\nOne random rollout per leaf, `uct_c` {data['uct_c']:g}, seed {data['seed']}; the score difference is "
        "the bot's mean reward minus the opponent's per deal (each deal played from both seats), from -2 to +2; "
        f"the cost is the bot's time per real decision ({data['machine']})."
    )
    if "exact_hours_at_cheapest" in data:
        note += (
            f" Exact evaluation against `optimal` would need the bot's decision at "
            f"{data['exact_decision_states']:,} states: about {data['exact_hours_at_cheapest']:,.0f} hours at the "
            "cheapest setting's cost, so it is not done."
        )
    return table(header, rows) + note + "\n"


def openspiel_cfr() -> str:
    """The reduced Trash games: their size, CFR+'s exploitability and the baselines'
    (``benchmarks/openspiel_cfr.py``, ``docs/openspiel_cfr.json``)."""
    data = _load("openspiel_cfr.json")
    games = data["games"]
    baselines = list(dict.fromkeys(name for record in games.values() for name in record["baselines"]))
    rows = []
    for preset, record in games.items():
        states, last = record["states"], record["cfr"][-1] if record["cfr"] else None
        rows.append(
            [
                f"`python_trash(preset={preset})`",
                f"{record['config']['layout_size']}",
                f"{states['information_states']:,}",
                f"{states['histories']:,} ({states['decision']:,} / {states['chance']:,} / {states['terminal']:,})",
                f"{states['seconds']:.1f}",
                *(f"{record['baselines'][name]:.6f}" if name in record["baselines"] else "" for name in baselines),
                f"{last['exploitability']:.2e} after {last['iterations']}" if last else "",
            ]
        )
    header = [
        "game",
        "slots",
        "information states",
        "histories (decision / chance / terminal)",
        "get_all_states, s",
        *(f"`{name}`" for name in baselines),
        f"{data['solver']}",
    ]
    marks = sorted({c["iterations"] for record in games.values() for c in record["cfr"]})
    curve = {(preset, c["iterations"]): c for preset, record in games.items() for c in record["cfr"]}
    curve_rows = [
        [str(mark), *(f"{curve[p, mark]['exploitability']:.2e}" if (p, mark) in curve else "" for p in games)]
        for mark in marks
    ]
    curve_header = ["iterations", *(f"`{preset}`: exploitability" for preset in games)]
    solving = ", ".join(
        f"`{preset}` {record['cfr'][-1]['seconds']:.0f} s" for preset, record in games.items() if record["cfr"]
    )
    return (
        table(header, rows)
        + "\n"
        + table(curve_header, curve_rows)
        + f"\nExploitability is NashConv / 2 (exact best responses); time solving: {solving} "
        + f"({data['machine']}).\n"
    )


STRONG_POLICY = "shipped:hyn-2p"
STRONG_RESULT = "docs/results-v2/hyn-2p/tabular_td/fraction_1000.0/seed_0.json"  # the run the policy is from
STRONG_EXACT = "agents/policies/help_your_neighbor_2p_tabular_td.json"  # trash-evaluate --exact --exploitability
ABLATION = {
    "recipe": "the recipe (all parts)",
    "no-exploration": "without exploration (epsilon 0)",
    "no-replay": "without the replay of each finished game",
    "one-state": "backing up only the chosen state after a roll",
}


def _strong_name(agent: str) -> str:
    return "the `tabular_td` policy" if agent == STRONG_POLICY else f"`{agent}`"


def _commit(result: dict[str, Any]) -> str:
    """The short commit a benchmark result was run from, marked when the checkout had changes."""
    git = result["provenance"].get("git") or {}
    return git.get("commit", "?")[:7] + (" (with changes)" if git.get("modified") else "")


def strong_neighbor_card() -> str:
    """The shipped ``tabular_td`` policy's card: how it was trained, from its benchmark result file."""
    result = _read(ROOT / STRONG_RESULT)
    provenance, commit = result["provenance"], _commit(result)
    final, roller = result["final"], result["heldout"][0]
    rows = [
        ["command", f"`trash-bench run --algorithm tabular_td --tasks hyn-2p --seeds 1 --budget-fraction "
         f"{result['budget_fraction']:g} --results docs/results-v2`"],
        ["budget (counted timesteps)", f"{result['budget']:,} ({result['counted_steps']:,} counted)"],
        ["wall time (training and every evaluation)", f"{result['wall_seconds']:,.0f} s on {provenance['cpu']}, "
         f"{provenance['cores']} cores, one run"],
        ["seeds", f"1 (seed {result['seed']})"],
        ["commit", commit],
        ["exact score per deal against `optimal` (the task's reference)",
         f"{final['exact']['score']:+.4f} (normalised {final['exact']['normalized']:.3f})"],
        ["exact score per deal against `roller` (held out)",
         f"{roller['exact']['score']:+.4f} (normalised {roller['exact']['normalized']:.3f})"],
    ]  # fmt: skip
    return table(["", "the `tabular_td` policy"], rows)


def strong_neighbor_exact() -> str:
    """The shipped ``tabular_td`` policy against every baseline, exactly, with its exploitability."""
    data = _read(ROOT / STRONG_EXACT)
    rows = []
    for pair in data["pairs"]:
        if STRONG_POLICY not in (pair["first"], pair["second"]):
            continue
        sign = 1 if pair["first"] == STRONG_POLICY else -1
        other = pair["second"] if sign == 1 else pair["first"]
        rows.append([f"`{other}`", f"{sign * pair['score_difference']:+.4f}"])
    score_table = table(["opponent", "the policy's exact score difference per deal"], rows)
    gaps = {gap["agent"]: gap for gap in data["gaps"]}
    exploits = {row["agent"]: row for row in data.get("exploitability", [])}
    rows = []
    for agent in (STRONG_POLICY, "heuristic", POLICY, "random"):
        if agent not in gaps:
            continue
        gap, exploit = gaps[agent], exploits.get(agent)
        rows.append(
            [
                _strong_name(agent),
                f"{gap['all']['score_loss_per_deal']:.4f}",
                f"{gap['roll_or_end']['score_loss_per_deal']:.4f}",
                f"{gap['uncover']['score_loss_per_deal']:.4f}",
                "-" if exploit is None else f"{exploit['exploitability']:.4f}",
            ]
        )
    header = [
        "agent",
        "loss to optimal per deal",
        "roll again or end only",
        "which marker to uncover only",
        "exploitability per deal",
    ]
    return score_table + "\n" + table(header, rows)


def strong_neighbor_headline() -> str:
    """The README's two lines: the shipped ``tabular_td`` policy's and ``heuristic``'s exact loss to
    optimal play and exploitability, with what training cost."""
    data = _read(ROOT / STRONG_EXACT)
    result = _read(ROOT / STRONG_RESULT)
    gaps = {gap["agent"]: gap for gap in data["gaps"]}
    exploits = {row["agent"]: row for row in data.get("exploitability", [])}
    rows = []
    for agent, cost in (
        (STRONG_POLICY, f"{result['counted_steps'] / 1e6:.0f}M timesteps, {result['wall_seconds'] / 60:.0f} min"),
        (POLICY, "300k timesteps (MaskablePPO)"),
        ("heuristic", "hand-written"),
    ):
        if agent in gaps:
            exploit = exploits.get(agent)
            rows.append(
                [
                    _strong_name(agent),
                    f"{gaps[agent]['all']['score_loss_per_deal']:.4f}",
                    "-" if exploit is None else f"{exploit['exploitability']:.4f}",
                    cost,
                ]
            )
    return table(["agent", "loss to optimal per deal", "exploitability per deal", "cost"], rows)


def strong_standard_ceiling() -> str:
    """What a trained best response to ``greedy`` wins on two-player ``standard`` hands
    (``docs/strong_standard_ceiling.json``, ``trash-bench exploit greedy --task trash-standard-2p
    --budget 100000 400000 1600000 --seeds 2 --json ...``): a lower bound on the ceiling above ``greedy``."""
    data = _load("strong_standard_ceiling.json")
    rows = []
    for point in data["points"]:
        mean = point["mean"]
        seconds = sum(run["train_seconds"] for run in point["runs"])
        rows.append(
            [
                f"{point['budget']:,}",
                f"{mean['score']:+.4f} [{mean['low']:+.4f}, {mean['high']:+.4f}]",
                str(mean["deals"]),
                str(len(point["runs"])),
                f"{seconds:.0f} s",
            ]
        )
    header = [
        "responder's timesteps",
        "its score difference per deal vs greedy (95%, mean of the seeds)",
        "deals",
        "seeds",
        "training (all seeds)",
    ]
    return table(header, rows)


def strong_pagat_match() -> str:
    """MaskablePPO on four-player ``pagat`` matches (``trash-pagat-4p-match``): each full-budget run and
    the open-budget runs, from their result files: the curve and the final score against ``greedy`` on
    the task's held-out duplicate deals (0: ``greedy``'s level)."""
    folder = ROOT / "docs" / "results-v2" / "trash-pagat-4p-match" / "maskable_ppo"
    rows = []
    for path in sorted(folder.rglob("seed_*.json"), key=lambda p: (len(p.parts), p.as_posix())):
        if "policy" in path.name:
            continue
        result = _read(path)
        final = result["final"]
        curve = ", ".join(f"{point['score']:+.2f}" for point in result["curve"][1:])
        rows.append(
            [
                f"`{path.relative_to(folder.parent.parent).as_posix()}`",
                f"{result['counted_steps']:,}",
                f"{result['wall_seconds']:,.0f} s",
                curve,
                f"{final['score']:+.4f} [{final['low']:+.4f}, {final['high']:+.4f}] ({final['deals']:,} deals)",
            ]
        )
    header = [
        "run",
        "timesteps counted",
        "wall time",
        "curve: score vs greedy at each quarter of the budget (validation deals)",
        "final vs greedy (95%)",
    ]
    return table(header, rows)


def strong_neighbor_ablation() -> str:
    """``benchmarks/strong_neighbor.py``'s ablation and the recipe's budget curve, judged exactly."""
    data = _load("strong_neighbor.json")
    rows = []
    for name, entry in data["variants"].items():
        for point in entry["curve"]:
            if name != "recipe" and point["timesteps"] != data["budget"]:
                continue
            kinds = point["given_away_by_kind"]
            rows.append(
                [
                    ABLATION.get(name, name),
                    f"{point['timesteps'] / 1e6:g}M",
                    f"{point['train_seconds']:.0f} s",
                    f"{point['loss_to_optimal']:.4f}",
                    f"{point['exploitability']:.4f}",
                    f"{kinds['roll again or end']:.4f}",
                    f"{kinds['which marker to uncover']:.4f}",
                ]
            )
    header = [
        "variant",
        "timesteps",
        "training",
        "loss to optimal per deal",
        "exploitability per deal",
        "given away: roll or end",
        "given away: uncover",
    ]
    machine = data["machine"]
    return table(header, rows) + f"\nSeed {data['seed']}; {machine['cpu']}, one core each (Numba one thread).\n"


PAGAT_POLICY = "shipped:pagat-4p-match"
PAGAT_RUNS = "docs/results-v2/trash-pagat-4p-match/maskable_ppo_kickstart/fraction_5.0"  # the recipe's runs
PAGAT_RESULT = f"{PAGAT_RUNS}/seed_0.json"  # the run the shipped policy is from
PAGAT_EVALUATION = (  # trash-evaluate ... --match --json: the baselines, then `search` on fewer deals (slow)
    "agents/policies/pagat_4p_match_kickstart.json",
    "agents/policies/pagat_4p_match_kickstart_search.json",
)
STANDARD_RUNS = "docs/results-v2/trash-standard-2p/maskable_ppo_kickstart/fraction_10.0"
PAGAT_ABLATION = "docs/results-strong/trash-pagat-4p-match"  # python benchmarks/strong_pagat.py
PAGAT_VARIANTS = {
    "pagat_scratch": "the suite's MaskablePPO (its opponents, no shaping, no imitation)",
    "pagat_shaped": "against `greedy` with the shaped reward, no imitation (`maskable_ppo_shaped`)",
    "pagat_shaped_selected": "the same, returning the point best on validation deals (no imitation)",
    "pagat_imitation_only": "imitation only: the whole budget on `greedy`'s demonstrations",
    "pagat_kickstart_fast": "the recipe at the suite's learning rate (3e-4), without selection",
    "pagat_kickstart_final": "the recipe without selection (its final policy)",
    "pagat_kickstart_unshaped": "the recipe without selection and without the shaped reward",
}


def _interval_text(value: dict[str, Any]) -> str:
    return f"{value['score']:+.4f} [{value['low']:+.4f}, {value['high']:+.4f}]"


def _returned(result: dict[str, Any]) -> str:
    """Which curve point a run returned: for an algorithm that selects (``SB3Algorithm.select``), the
    first best on validation deals (the curve's scores are those validation scores), else its final
    policy."""
    from agents.bench.algorithms import load_algorithm

    if str(ROOT / "benchmarks") not in sys.path:  # the ablation's plugins (benchmarks/strong_pagat.py)
        sys.path.append(str(ROOT / "benchmarks"))
    if not getattr(load_algorithm(result["algorithm_spec"]), "select", False):
        return "final"
    curve = result["curve"]
    best = max(range(len(curve)), key=lambda index: (curve[index]["score"], -index))
    return f"{curve[best]['timesteps']:,}"


def _pagat_row(label: str, result: dict[str, Any]) -> list[str]:
    final = result["final"]
    return [
        label,
        f"{result['counted_steps']:,}",
        f"{result['wall_seconds']:,.0f} s",
        ", ".join(f"{point['score']:+.3f}" for point in result["curve"]),
        _returned(result),
        f"{_interval_text(final)} ({final['deals']:,})",
    ]


PAGAT_HEADER = [
    "run",
    "timesteps counted",
    "wall time",
    "curve: score vs greedy at each point (validation deals)",
    "policy returned (timesteps)",
    "final vs greedy (95%, test deals)",
]


def _seed_results(folder: str) -> list[dict[str, Any]]:
    """The result files of a folder of runs (``seed_N.json``), in seed order."""
    return [_read(path) for path in sorted((ROOT / folder).glob("seed_*.json"))]


def _kickstart_runs(folder: str) -> str:
    rows = [
        [*_pagat_row(f"seed {result['seed']}", result), _interval_text(result["heldout"][0])]
        for result in _seed_results(folder)
    ]
    return table([*PAGAT_HEADER, "final vs `counter` (held out)"], rows)


def strong_pagat_runs() -> str:
    """The ``maskable_ppo_kickstart`` runs on four-player ``pagat`` matches at five times the budget,
    from their result files: the curve, the point returned and the final score against ``greedy``."""
    return _kickstart_runs(PAGAT_RUNS)


def strong_standard_runs() -> str:
    """The ``maskable_ppo_kickstart`` runs on two-player ``standard`` hands at ten times the budget:
    can the recipe find an edge over ``greedy`` there?"""
    return _kickstart_runs(STANDARD_RUNS)


def strong_pagat_card() -> str:
    """The shipped four-player ``pagat`` match policy's card: how it was trained, from its result file."""
    result = _read(ROOT / PAGAT_RESULT)
    provenance, commit = result["provenance"], _commit(result)
    final, held = result["final"], result["heldout"][0]
    runs = len(_seed_results(PAGAT_RUNS))
    rows = [
        ["command", f"`trash-bench run --algorithm maskable_ppo_kickstart --tasks trash-pagat-4p-match --seeds {runs} "
         f"--budget-fraction {result['budget_fraction']:g} --results docs/results-v2`"],
        ["budget (counted timesteps)", f"{result['budget']:,} ({result['counted_steps']:,} counted)"],
        ["wall time (training and every evaluation)", f"{result['wall_seconds']:,.0f} s on {provenance['cpu']}, "
         f"{provenance['cores']} cores, one run"],
        ["seeds", f"{runs} runs (seeds 0 to {runs - 1}); seed {result['seed']}'s policy shipped"],
        ["policy returned (best point on validation deals)", f"at {_returned(result)} timesteps"],
        ["commit", commit],
        ["score per match against `greedy` (the task's reference, 95%)",
         f"{_interval_text(final)} on {final['deals']:,} test matches"],
        ["score per match against `counter` (held out, 95%)", f"{_interval_text(held)} on {held['deals']:,}"],
    ]  # fmt: skip
    return table(["", "the kickstarted policy"], rows)


def strong_pagat_evaluation() -> str:
    """The shipped four-player ``pagat`` match policy against every baseline on duplicate deals
    (``trash-evaluate ... --match --json``; ``search`` in a file of its own, on fewer deals)."""
    pairs = []
    for name in PAGAT_EVALUATION:
        pairs.extend(_read(ROOT / name)["pairs"])
    rows = []
    for pair in pairs:
        if PAGAT_POLICY not in (pair["first"], pair["second"]):
            continue
        sign = 1 if pair["first"] == PAGAT_POLICY else -1
        other = pair["second"] if sign == 1 else pair["first"]
        value = pair["score_difference"]
        low, high = sorted((sign * value["low"], sign * value["high"]))
        rate = pair["first_win_rate"] if sign == 1 else pair["second_win_rate"]
        score = f"{sign * value['mean']:+.4f} [{low:+.4f}, {high:+.4f}]"
        rows.append([f"`{other}`", score, f"{pair['deals']:,}", f"{rate:.3f}"])
    header = ["opponent", "score difference per match (95%)", "matches", "the policy's wins per seat (0.25: even)"]
    return table(header, rows)


def strong_pagat_ablation() -> str:
    """``benchmarks/strong_pagat.py``'s variants beside the recipe's shipped run, each one seed at five
    times the budget, from their result files."""
    rows = [_pagat_row("the recipe (`maskable_ppo_kickstart`)", _read(ROOT / PAGAT_RESULT))]
    for name, label in PAGAT_VARIANTS.items():
        path = ROOT / PAGAT_ABLATION / name / "fraction_5.0" / "seed_0.json"
        if path.exists():
            rows.append(_pagat_row(label, _read(path)))
    return table(["variant", *PAGAT_HEADER[1:]], rows)


TABLES: dict[str, Callable[[], str]] = {
    "random-play": random_play,
    "batched-random-play": batched_random_play,
    "batched-training": batched_training,
    "evaluation-speed": evaluation_speed,
    "neighbor-batched": neighbor_batched,
    "exact-speed": exact_speed,
    "fast-ppo-speed": fast_ppo_speed,
    "fast-ppo-comparison": fast_ppo_comparison,
    "fast-ppo-sooner": fast_ppo_sooner,
    "trainer-candidates": trainer_candidates,
    "search-spaces": search_spaces,
    "tuned-settings": tuned_settings,
    "tuned-against-defaults": tuned_against_defaults,
    "multiagent-poker": multiagent_poker,
    "multiagent-exploitability": multiagent_exploitability,
    "multiagent-equal-time": multiagent_equal_time,
    "multiagent-bound": multiagent_bound,
    "local-best-response": local_best_response,
    "trash-local-bounds": trash_local_bounds,
    "batched-learning": batched_learning,
    "headline-speed": headline_speed,
    "training-threads": training_threads,
    "default-training": default_training,
    "suite-tasks": suite_tasks,
    "suite-tiers": suite_tiers,
    "leaderboard": leaderboard,
    "leaderboard-summary": leaderboard_summary,
    "leaderboard-findings": leaderboard_findings,
    "compile-cost": compile_cost,
    "smallest-runs": smallest_runs,
    "neighbor-exact-pairs": neighbor_exact_pairs,
    "neighbor-exact-gaps": neighbor_exact_gaps,
    "neighbor-optimal-ladder": neighbor_optimal_ladder,
    "neighbor-exploitability": neighbor_exploitability,
    "neighbor-exploitable-states": neighbor_exploitable_states,
    "openspiel-bots": openspiel_bots,
    "openspiel-cfr": openspiel_cfr,
    "strong-neighbor-card": strong_neighbor_card,
    "strong-neighbor-exact": strong_neighbor_exact,
    "strong-neighbor-ablation": strong_neighbor_ablation,
    "strong-neighbor-headline": strong_neighbor_headline,
    "strong-standard-ceiling": strong_standard_ceiling,
    "strong-pagat-match": strong_pagat_match,
    "strong-pagat-runs": strong_pagat_runs,
    "strong-standard-runs": strong_standard_runs,
    "strong-pagat-card": strong_pagat_card,
    "strong-pagat-evaluation": strong_pagat_evaluation,
    "strong-pagat-ablation": strong_pagat_ablation,
    "masks-and-tuning": masks_and_tuning,
    "v3-findings": v3_findings,
    "v3-summary": v3_summary,
}


def regenerate(text: str) -> tuple[str, list[str]]:
    """``text`` with every generated table rendered afresh, and the names of those that changed."""

    def render(name: str) -> str:
        if name not in TABLES:
            raise ValueError(f"README table {name!r} has no generator (known: {', '.join(TABLES)})")
        return TABLES[name]()

    return splice(text, render)


def documents() -> list[Path]:
    """README.md, every docs page and every policy card (``agents/policies/*.md``) that holds a generated table."""
    pages = sorted(path for path in (ROOT / "docs").rglob("*.md") if "<!-- table:" in path.read_text())
    cards = sorted(path for path in (ROOT / "agents" / "policies").glob("*.md") if "<!-- table:" in path.read_text())
    return [ROOT / "README.md", *pages, *cards]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/readme_tables.py", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="the files to update (default: README.md and docs/)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table is stale")
    args = parser.parse_args(argv)
    stale = 0
    for path in args.files or documents():
        new, changed = regenerate(path.read_text())
        if not changed:
            continue
        stale += 1
        if args.check:
            print(f"{path}: stale tables {', '.join(changed)}; run python scripts/readme_tables.py")
            continue
        write_text(path, new)
        print(f"{path}: rewrote {', '.join(changed)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
