"""The README's pictures and video, made from the package itself: ``python scripts/readme_media.py``.

- ``docs/media/trash_table.png`` and ``docs/media/neighbor_table.png``: a table of each game, as
  ``render_mode="rgb_array"`` draws it, from seeded games part-way through.
- ``docs/media/policy_vs_greedy.mp4``: the shipped policy (``shipped:standard-2p``)
  playing hands against ``greedy`` in ``TrashSingleAgent-v0``, recorded by Gymnasium's own
  ``RecordVideo`` wrapper (needs moviepy), and ``policy_vs_greedy.gif``, the same video as a GIF for
  the README (its frames read with moviepy, written by Pillow).

Needs the render and train extras and moviepy (``pip install moviepy``).
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
from PIL import Image

import trash_env  # noqa: F401  (registers the Gymnasium ids)
from agents.learned import LearnedAgent
from agents.registry import make_agent
from trash_env import help_your_neighbor_v0, trash_v0

ROOT = Path(__file__).resolve().parents[1]
MEDIA = ROOT / "docs" / "media"


def table(module, path: Path, steps: int, seed: int, hand: int = 0, **kwargs) -> None:
    """The table ``steps`` moves of random legal play into hand ``hand`` of a seeded game."""
    env = module.env(render_mode="rgb_array", **kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        step += getattr(env.unwrapped.game_state, "hand", 0) >= hand
        if step > steps or terminated or truncated:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    Image.fromarray(env.render()).save(path, optimize=True)
    print(f"wrote {path.relative_to(ROOT)}")


def video(seed: int = 3, frames: int = 40) -> None:
    import tempfile

    from moviepy import VideoFileClip

    policy = LearnedAgent.load(ROOT / "agents" / "policies" / "standard_2p_maskable_ppo.zip")
    greedy = [make_agent("greedy")]
    env = gymnasium.make("TrashSingleAgent-v0", opponents=greedy, learner_seat=0, render_mode="rgb_array")
    folder = str(Path(tempfile.mkdtemp()) / "video")  # a new folder: RecordVideo warns about a used one
    # One video of the first `frames` steps, over as many hands as they take (the learner has about
    # five real decisions a hand; the env plays forced moves and greedy's turns inside step).
    env = gymnasium.wrappers.RecordVideo(
        env, folder, name_prefix="policy_vs_greedy", step_trigger=lambda step: step == 0, video_length=frames,
        disable_logger=True,
    )  # fmt: skip
    observation, info = env.reset(seed=seed)
    for _ in range(frames + 1):
        action = int(policy.act_batch(observation[None], info["action_mask"][None], [None])[0])
        observation, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            observation, info = env.reset()
    env.close()
    mp4 = MEDIA / "policy_vs_greedy.mp4"
    Path(folder, "policy_vs_greedy-step-0.mp4").replace(mp4)
    with VideoFileClip(str(mp4)) as clip:  # the video's frames, as a GIF of 64 colours (Pillow)
        frames_rgb = [Image.fromarray(frame) for frame in clip.iter_frames()]
        palette = frames_rgb[0].quantize(64)  # one palette for all: the table's few colours
        pictures = [frame.quantize(palette=palette, dither=Image.Dither.NONE) for frame in frames_rgb]
        duration = int(1000 / clip.fps)
    gif = MEDIA / "policy_vs_greedy.gif"
    pictures[0].save(gif, save_all=True, append_images=pictures[1:], duration=duration, loop=0)
    print(f"wrote {mp4.relative_to(ROOT)} and policy_vs_greedy.gif")


def main() -> None:
    MEDIA.mkdir(parents=True, exist_ok=True)
    table(trash_v0, MEDIA / "trash_table.png", 40, 7, hand=1, preset="pagat", num_players=3, match=True)
    table(help_your_neighbor_v0, MEDIA / "neighbor_table.png", 30, 7, num_players=3)
    video()


if __name__ == "__main__":
    main()
