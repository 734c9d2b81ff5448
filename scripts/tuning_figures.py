"""The tuning's figure: each tuned algorithm's settings by importance, from a settings file.

    python scripts/tuning_figures.py agents/bench/tuned/tuned-v1.json docs/tuning/importance.png

Reads the file as ``trash-bench run --settings`` does (:func:`agents.bench.tuned_settings.read_settings`)
and draws, for each algorithm, the importance of each setting in its study (PED-ANOVA, as the file
keeps it) with matplotlib (the eval extra).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for agents

from agents.bench.tuned_settings import read_settings


def draw(settings: Path, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = read_settings(settings)
    tuned = {name: entry for name, entry in data.algorithms.items() if entry.study.importance}
    if not tuned:
        raise ValueError(f"{settings}: no algorithm has importances yet")
    figure, axes = plt.subplots(1, len(tuned), figsize=(max(3.2 * len(tuned), 6.0), 3.2), squeeze=False)
    for axis, (name, entry) in zip(axes[0], tuned.items(), strict=True):
        importance = sorted(entry.study.importance.items(), key=lambda item: item[1])
        axis.barh([key for key, _ in importance], [value for _, value in importance], color="#4c72b0")
        axis.set_title(f"{name}\n{entry.study.trials} trials, best {entry.study.best_value:.3f}", fontsize=9)
        axis.set_xlim(0, 1)
        axis.tick_params(labelsize=8)
    figure.suptitle(f"settings {data.name}: importance of each setting (PED-ANOVA)", fontsize=10)
    figure.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("settings", type=Path, help="a settings file (agents/bench/tuned/NAME.json)")
    parser.add_argument("out", type=Path, help="the PNG to write")
    args = parser.parse_args()
    draw(args.settings, args.out)


if __name__ == "__main__":
    main()
