"""The drawn tables (``trash_env.rendering``): the SVG shows exactly the public state (R2, R15), and
``render_mode="rgb_array"`` returns PettingZoo's ``(H, W, 3)`` uint8 picture for every env."""

from __future__ import annotations

import copy
import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from trash_env import help_your_neighbor_v0, trash_v0
from trash_env.neighbor.drawing import neighbor_svg
from trash_env.neighbor.text import last_roll, render_neighbor
from trash_env.rendering.svg import COLOURS
from trash_env.trash.config import MAX_LAYOUT
from trash_env.trash.drawing import trash_svg
from trash_env.trash.rules import DRAW, FACE_DOWN, OVER

SVG = "{http://www.w3.org/2000/svg}"


def states(module, games: int, seed: int, **kwargs):
    """Every state (after every step) of ``games`` random games."""
    rng = np.random.default_rng(seed)
    for game in range(games):
        env = module.env(**kwargs)
        env.reset(seed=seed + game)
        yield env.unwrapped.game_state
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
            yield env.unwrapped.game_state


def fills(svg: str, colour: str, shape: str = "rect") -> int:
    root = ET.fromstring(svg)
    return sum(1 for element in root.iter(f"{SVG}{shape}") if element.get("fill") == colour)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2},
        pytest.param({"preset": "pagat", "num_players": 3, "match": True}, marks=pytest.mark.slow),  # a long match
        {"preset": "jokers", "num_players": 6},
    ],
)
def test_the_trash_svg_shows_every_slot_as_the_state_has_it(kwargs) -> None:
    """In every state of random games: one card back per face-down slot (plus the stock's, unless it is empty), one
    wild-coloured card per wild-filled slot (R6), one dashed outline per slot no longer in a layout (R9)
    and for an empty stock or discard pile, and the held card drawn only in the place phase."""
    seen = {"wild": 0, "shrunk": 0, "held": 0}
    for state in states(trash_v0, 3, 11, **kwargs):
        svg = trash_svg(state)
        down = sum(v == FACE_DOWN for seat in range(state.num_players) for v in state.up[seat][: state.sizes[seat]])
        wild = sum(
            v != FACE_DOWN and v != slot + 1
            for seat in range(state.num_players)
            for slot, v in enumerate(state.up[seat][: state.sizes[seat]])
        )
        shrunk = state.num_players * MAX_LAYOUT - sum(state.sizes)
        assert fills(svg, COLOURS["back"]) == down + bool(state.stock)
        held_wild = state.phase not in (DRAW, OVER) and state.is_wild[state.held]
        assert fills(svg, COLOURS["wild"]) == wild
        root = ET.fromstring(svg)
        dashed = sum(1 for e in root.iter(f"{SVG}rect") if e.get("stroke-dasharray"))
        assert dashed == shrunk + (not state.discard) + (not state.stock)
        seen["wild"] += wild > 0
        seen["shrunk"] += shrunk > 0
        seen["held"] += held_wild or state.phase not in (DRAW, OVER)
    assert seen["wild"] and seen["held"]
    if kwargs.get("match"):
        assert seen["shrunk"], "a match should shrink a layout in three games"


def texts(svg: str) -> list[str]:
    return ["".join(element.itertext()) for element in ET.fromstring(svg).iter(f"{SVG}text")]


def test_the_trash_svg_labels_each_slot_and_counts_the_piles_in_cards() -> None:
    """Each slot is labelled by the rank whose place it is (A .. 10, R2); the piles say what they are and
    how many cards they hold ("discard pile", "1 card"), not a bare number that reads like a card."""
    state = next(iter(states(trash_v0, 1, 2, num_players=2)))
    svg = trash_svg(state)
    labels = ["".join(e.itertext()) for e in ET.fromstring(svg).iter(f"{SVG}text") if e.get("fill") == COLOURS["label"]]
    assert labels == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
    written = texts(svg)
    assert "stock" in written and "discard pile" in written
    assert f"{len(state.stock)} cards" in written
    assert f"{len(state.discard)} card{'' if len(state.discard) == 1 else 's'}" in written


def test_reveal_lays_every_face_down_card_open_and_nothing_else_changes() -> None:
    """``reveal`` (a finished hand) draws the card under each face-down slot, framed in the back's colour;
    without it the same state draws a back there (R2)."""
    seen = 0
    for state in states(trash_v0, 2, 5, num_players=2):
        hidden = [
            state.down[seat][slot]
            for seat in range(2)
            for slot, value in enumerate(state.up[seat])
            if value == FACE_DOWN
        ]
        shown = trash_svg(state, reveal=True)
        assert fills(shown, COLOURS["back"]) == bool(state.stock)  # the stock's back alone
        frames = [e for e in ET.fromstring(shown).iter(f"{SVG}rect") if e.get("stroke") == COLOURS["back"]]
        assert len(frames) == len(hidden)
        seen += bool(hidden)
    assert seen


SOAK = [  # (env module, drawing, games, env options): 2,610 random games, every state drawn
    (trash_v0, trash_svg, 1000, {"num_players": 2}),
    (trash_v0, trash_svg, 1000, {"preset": "eight_card", "num_players": 2}),
    (trash_v0, trash_svg, 200, {"preset": "jokers", "num_players": 6}),
    (trash_v0, trash_svg, 10, {"preset": "pagat", "num_players": 3, "match": True}),
    (help_your_neighbor_v0, neighbor_svg, 300, {"num_players": 2}),
    (help_your_neighbor_v0, neighbor_svg, 100, {"num_players": 4}),
]


@pytest.mark.slow
@pytest.mark.parametrize(("module", "draw", "games", "kwargs"), SOAK)
def test_every_state_of_thousands_of_random_games_draws(module, draw, games, kwargs) -> None:
    """Every state after every step of thousands of random games draws as well-formed SVG with one
    row per seat; every 250th is also rasterised to an (H, W, 3) uint8 picture of the SVG's size."""
    pytest.importorskip("drawsvg")
    rasterise = None
    if importlib.util.find_spec("resvg_py") is not None:
        from trash_env.rendering.image import svg_to_rgb as rasterise
    drawn = 0
    for k, state in enumerate(states(module, games, 1000, **kwargs)):
        root = ET.fromstring(draw(state))
        texts = [element.text for element in root.iter(f"{SVG}text")]
        assert all(f"player_{seat}" in texts for seat in range(state.num_players))
        if rasterise is not None and k % 250 == 0:
            picture = rasterise(draw(state))
            assert picture.dtype == np.uint8 and picture.shape == (int(root.get("height")), int(root.get("width")), 3)
        drawn += 1
    assert drawn > games


def test_the_neighbor_svg_shows_every_marker() -> None:
    """One dark marker per covered total and one numbered per uncovered one (R12), in every state."""
    for state in states(help_your_neighbor_v0, 3, 5, num_players=3):
        svg = neighbor_svg(state)
        covered = sum(sum(row) for row in state.covered)
        assert fills(svg, COLOURS["back"], "circle") == covered
        assert fills(svg, COLOURS["face"], "circle") == 10 * state.num_players - covered


def test_the_neighbor_svg_and_text_view_say_the_same_of_the_last_roll() -> None:
    """The picture and the text view (``render_mode="ansi"``) give the last roll one line, in the same
    words (R12): who rolled which total, and a 7 that uncovers a marker or a total a neighbour covered;
    no line before the first roll. Random games show every kind."""
    names = ["player_0", "player_1", "player_2"]
    seen = set()
    for state in states(help_your_neighbor_v0, 3, 5, num_players=3):
        line = last_roll(state, names)
        drawn = [element.text for element in ET.fromstring(neighbor_svg(state)).iter(f"{SVG}text")]
        shown = render_neighbor(state).splitlines()
        if line is None:
            assert state.roll == 0 and not any(t.startswith("last roll") for t in [*drawn, *shown])
            continue
        assert line.startswith(f"last roll {state.roll} by {names[state.roller]}")
        assert line in drawn and line in shown
        seen.add("seven" if "a 7 uncovers" in line else "helped" if "covered by" in line else "own")
    assert seen == {"seven", "helped", "own"}


@pytest.mark.parametrize("module", [trash_v0, help_your_neighbor_v0])
def test_rgb_array_follows_pettingzoo(module) -> None:
    """``render_mode="rgb_array"``: an (H, W, 3) uint8 picture, not blank; PettingZoo's render_test passes."""
    pytest.importorskip("resvg_py")
    from pettingzoo.test import render_test

    env = module.env(render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.ndim == 3 and picture.shape[2] == 3 and picture.dtype == np.uint8
    assert len(np.unique(picture.reshape(-1, 3), axis=0)) > 10
    assert module.env().metadata["render_fps"] > 0
    render_test(lambda render_mode: module.env(render_mode=render_mode))


def test_the_single_agent_env_renders_pictures() -> None:
    pytest.importorskip("resvg_py")
    import gymnasium

    import trash_env  # noqa: F401  (registers the ids)

    env = gymnasium.make("TrashSingleAgent-v0", render_mode="rgb_array")
    env.reset(seed=1)
    picture = env.render()
    assert picture.shape[2] == 3 and picture.dtype == np.uint8


def random_record(module, seed: int, **kwargs) -> tuple[dict, int]:
    """A random game's record, and how many real choices it had (the env plays forced moves itself)."""
    env = module.env(**kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    choices = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        done = terminated or truncated
        choices += not done
        env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return env.unwrapped.game_record(), choices


def page_frames(page: str) -> list[dict]:
    import json
    import re

    return json.loads(re.search(r"const frames = (\[.*?\]);\n", page, re.S).group(1).replace("<\\/", "</"))


@pytest.mark.slow
@pytest.mark.parametrize("module", [trash_v0, help_your_neighbor_v0])
def test_a_replay_holds_every_move_of_its_record(tmp_path, module) -> None:
    """The HTML replay and the GIF of a recorded game: one frame before each action of the record
    (forced moves included, and marked: R13, R14), each move named with its mover, and one for the
    end; the HTML is one file with no external resource."""
    pytest.importorskip("resvg_py")
    import json

    from PIL import Image

    from agents.commands.replay import main
    from trash_env.games import game_of

    record, choices = random_record(module, 4, num_players=3)
    (tmp_path / "game.json").write_text(json.dumps(record))
    html, gif = tmp_path / "game.html", tmp_path / "game.gif"
    assert main([str(tmp_path / "game.json"), "--html", str(html), "--gif", str(gif)]) == 0
    page = html.read_text()
    frames = page_frames(page)
    assert len(frames) == len(record["actions"]) + 1
    assert sum(not f["forced"] for f in frames[:-1]) == choices  # every other move was forced
    game = game_of(module.env().unwrapped.config)
    for i, (frame, action) in enumerate(zip(frames[:-1], record["actions"], strict=True)):
        assert frame["label"].startswith(f"move {i + 1}: player_")
        assert frame["action"] == game.action_name(action) and frame["action"] in frame["label"]
        assert frame["label"].endswith("(forced)") == frame["forced"]
        assert frame["after"] == ("the start" if i == 0 else "after " + frames[i - 1]["label"])
    assert frames[-1]["label"].startswith("end: ") and frames[-1]["action"] is None
    assert frames[-1]["after"] == "after " + frames[-2]["label"]
    assert "http" not in page.replace("http://www.w3.org", "")
    with Image.open(gif) as picture:  # Pillow merges equal consecutive frames, adding their durations
        durations = []
        for k in range(picture.n_frames):
            picture.seek(k)
            durations.append(picture.info["duration"])
    assert sum(durations) == len(frames) * 500  # 2 positions a second


def positions(record: dict) -> list:
    """A copy of the state before each action of ``record``, then the final state."""
    from trash_env.records import replay

    found = []
    replay(record, lambda state, index, action: found.append(copy.deepcopy(state)))
    assert len(found) == len(record["actions"]) + 1
    return found


@pytest.mark.parametrize("module", [trash_v0, help_your_neighbor_v0])
def test_each_decision_is_shown_with_the_position_it_was_made_in(module) -> None:
    """A replay frame is a decision and the position it was made in: its picture is that position,
    the probabilities are over the legal actions there (a record with probabilities: one per
    real choice, as a learned policy's, each the uniform distribution), the action played is one of
    them, and the next frame shows its result. The last frame is the end, with the winners."""
    pytest.importorskip("drawsvg")
    from trash_env.games import game_of
    from trash_env.rendering.media import frames

    record, _ = random_record(module, 5, num_players=2)
    states = positions(record)
    game = game_of(states[0].config)
    record["players"] = ["random", "/home/someone/policies/a_policy_with_a_long_name_indeed.zip"]
    record["probabilities"] = [
        None
        if game.forced_action(state) != -1
        else {str(a): 1 / len(game.legal_actions(state)) for a in game.legal_actions(state)}
        for state in states[:-1]
    ]
    names = ["player_0 (random)", "player_1 (a_policy_with_a_long_name_indeed)"]
    shown = frames(record)
    assert len(shown) == len(states)
    for frame, state, action in zip(shown, states, [*record["actions"], None], strict=True):
        assert frame.svg == game.draw(state, names)  # the position, names in full
        if action is None:
            break
        legal = game.legal_actions(state)
        assert frame.forced == (len(legal) == 1)
        assert frame.action == game.action_name(action)
        assert frame.label.startswith(f"move {states.index(state) + 1}: {names[state.current]}: ")
        if frame.forced:
            assert frame.probabilities is None
        else:
            assert sorted(name for name, _ in frame.probabilities) == sorted(game.action_name(a) for a in legal)
            assert frame.action in dict(frame.probabilities)
    winners = ", ".join(names[seat] for seat in states[-1].winners)
    assert shown[-1].label == (f"end: won by {winners}" if winners else "end: a draw")
    assert shown[-1].probabilities is None and shown[-1].action is None


def test_the_replay_names_players_in_full_and_policies_by_their_files() -> None:
    """The header names a policy by its file's name, not the path it was loaded from; the table and
    the moves name every player in full (a policy by its file's stem), never cut."""
    pytest.importorskip("drawsvg")
    from trash_env.rendering import media

    record, _ = random_record(trash_v0, 1, num_players=3)
    record["players"] = ["search:samples=8", "/abs/path/policies/standard_2p_maskable_ppo.zip", "runs/x/rllib_policy"]
    page = media.replay_html(record)
    assert (
        "players: player_0 search:samples=8, player_1 standard_2p_maskable_ppo.zip, player_2 rllib_policy;" not in page
    )
    assert "players: player_0 search:samples=8, player_1 standard_2p_maskable_ppo.zip, player_2 rllib_policy" in page
    assert "/abs/path" not in page and "runs/x" not in page
    labels = " ".join(frame.label for frame in media.frames(record))
    assert "player_1 (standard_2p_maskable_ppo)" in labels and "~" not in labels
    assert media.short_name("policies/help_your_neighbor_2p_maskable_ppo.zip") == "help_your_neighbor_2p_maskable_ppo"
    assert media.short_name("C:\\policies\\p.zip") == "p" and media.file_name("C:\\policies\\p.zip") == "p.zip"
    assert media.short_name("counter") == media.file_name("counter") == "counter"


@pytest.mark.slow
def test_a_recorded_policys_probabilities_are_shown_at_its_own_decisions(tmp_path) -> None:
    """``trash-record`` with the shipped policy: every frame with probabilities is the policy's
    decision, its probabilities are over the legal actions of the position drawn (a King held:
    the slots it may go on, not the card it turned up), and they sum to one."""
    pytest.importorskip("resvg_py")
    import json

    from agents.commands.record import main
    from trash_env.games import TRASH

    policy = str(Path(__file__).resolve().parents[2] / "agents" / "policies" / "standard_2p_maskable_ppo.zip")
    assert (
        main(
            [
                "greedy",
                policy,
                "--seed",
                "3",
                "--json",
                str(tmp_path / "game.json"),
                "--html",
                str(tmp_path / "game.html"),
            ]
        )
        == 0
    )
    record = json.loads((tmp_path / "game.json").read_text())
    states = positions(record)
    frames = page_frames((tmp_path / "game.html").read_text())
    decided = [k for k, frame in enumerate(frames) if frame["probabilities"]]
    assert decided
    for k in decided:
        state, frame = states[k], frames[k]
        assert frame["label"].startswith(f"move {k + 1}: player_1 (standard_2p_maskable_ppo): ")
        assert sorted(name for name, _ in frame["probabilities"]) == sorted(
            TRASH.action_name(a) for a in TRASH.legal_actions(state)
        )
        assert abs(sum(p for _, p in frame["probabilities"]) - 1) < 1e-3
    assert "players: player_0 greedy, player_1 standard_2p_maskable_ppo.zip" in (tmp_path / "game.html").read_text()


def test_record_writes_a_game_and_its_pictures(tmp_path) -> None:
    """``trash-record``: the record replays to its result, the same seed gives the same
    game, and the replay and GIF are written (R3: seat 0 plays first, the agents in the order named)."""
    pytest.importorskip("resvg_py")
    import json

    from agents.commands.record import main
    from trash_env.records import replay
    from trash_env.trash.rules import returns

    argv = ["greedy", "counter", "--preset", "pagat", "--seed", "5"]
    assert main([*argv, "--json", str(tmp_path / "a.json"), "--html", str(tmp_path / "a.html")]) == 0
    assert main([*argv, "--json", str(tmp_path / "b.json"), "--gif", str(tmp_path / "b.gif")]) == 0
    first, second = (json.loads((tmp_path / f"{k}.json").read_text()) for k in "ab")
    assert first == second and first["players"] == ["greedy", "counter"]
    assert returns(replay(first)) == first["returns"]
    assert len(page_frames((tmp_path / "a.html").read_text())) == len(first["actions"]) + 1
    assert (tmp_path / "b.gif").read_bytes()[:6] == b"GIF89a"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["greedy", "random"], "name at least one output"),
        (["greedy", "random", "--json", "x.json", "--num-players", "1"], "num_players=1 is out of range"),
        (["greedy", "random", "counter", "--json", "x.json", "--num-players", "2"], "3 agents named for 2 seats"),
        (["greedy", "minimax", "--json", "x.json"], "unknown agent 'minimax'"),
        (["random", "random", "--game", "help_your_neighbor", "--match", "--json", "x.json"], "no matches"),
        (["greedy", "random", "--html", "."], "is a folder"),
        (["greedy", "random", "--gif", "x.gif", "--fps", "0"], "--fps must be above 0"),
        (["greedy", "policies/none.zip", "--json", "x.json"], "does not exist"),
    ],
)
def test_record_bad_arguments_exit_2(tmp_path, monkeypatch, capsys, argv, message) -> None:
    from agents.commands.record import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("trash-record: error: ") and message in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        (None, ["--html", "out.html"], "is not a file"),
        ("{not json", ["--html", "out.html"], "is not a JSON game record"),
        ('{"game": "chess"}', ["--html", "out.html"], "not a trash_v0 or help_your_neighbor_v0 game record"),
        ('{"game": "trash_v0"}', [], "name at least one output"),
    ],
)
def test_replay_command_refuses_a_bad_record(tmp_path, monkeypatch, capsys, content, argv, message) -> None:
    """``trash-replay``: a missing, unreadable or corrupt record is one error line
    and exit 2, and nothing is written."""
    from agents.commands.replay import main

    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / "record.json").write_text(content)
    assert main(["record.json", *argv]) == 2
    assert message in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if content is None else ["record.json"])


def test_gymnasiums_record_video_records_the_single_agent_env(tmp_path) -> None:
    """Gymnasium's own RecordVideo wrapper writes an MP4 of ``TrashSingleAgent-v0`` (``rgb_array``,
    ``render_fps``), as the README's video was made."""
    pytest.importorskip("resvg_py")
    pytest.importorskip("moviepy")
    import gymnasium

    import trash_env  # noqa: F401  (registers the ids)

    env = gymnasium.make("TrashSingleAgent-v0", render_mode="rgb_array")
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path / "video"), disable_logger=True)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    env.close()
    (video,) = (tmp_path / "video").glob("*.mp4")
    assert video.stat().st_size > 1000


def test_svg_is_the_drawing_rgb_array_rasterises() -> None:
    """``env.unwrapped.svg()`` (any render mode) is the SVG that ``rgb_array`` rasterises, for the AEC
    and the single-agent envs."""
    pytest.importorskip("resvg_py")
    import gymnasium

    from trash_env.rendering.image import svg_to_rgb

    for make in (
        lambda mode: trash_v0.env(render_mode=mode),
        lambda mode: help_your_neighbor_v0.env(render_mode=mode, num_players=3),
        lambda mode: gymnasium.make("TrashSingleAgent-v0", render_mode=mode),
        lambda mode: gymnasium.make("HelpYourNeighborSingleAgent-v0", render_mode=mode),
    ):
        plain, drawn = make(None), make("rgb_array")
        plain.reset(seed=3)
        drawn.reset(seed=3)
        svg = plain.unwrapped.svg()
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        assert np.array_equal(svg_to_rgb(svg), drawn.render())


@pytest.mark.parametrize("module", ["drawsvg", "resvg_py", "PIL"])
@pytest.mark.parametrize("game", ["trash", "help_your_neighbor"])
def test_a_picture_without_the_render_extra_names_it(monkeypatch, module, game) -> None:
    """Without one of the render extra's packages, drawing or rasterising says which extra to install,
    on either game (PettingZoo's ``render_test`` sees this error, not a bare ModuleNotFoundError)."""
    import sys

    from trash_env import help_your_neighbor_v0
    from trash_env.rendering import require

    env = (trash_v0 if game == "trash" else help_your_neighbor_v0).env(render_mode="rgb_array")
    env.reset(seed=0)
    monkeypatch.setitem(sys.modules, module, None)  # makes "import module" fail
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == module else object())
    with pytest.raises(ImportError, match=rf"render extra: pip install 'trash-rl\[render\]' \({module}"):
        env.render()
    with pytest.raises(ImportError, match=f"{module} is not installed"):
        require()


def test_record_names_a_policy_by_its_file_in_its_summary(tmp_path, monkeypatch, capsys) -> None:
    """``trash-record``'s summary line names the winners as the replay does: a policy by its file's
    name, not the path it was loaded from."""
    from agents.commands.record import main

    policy = str(Path(__file__).resolve().parents[2] / "agents" / "policies" / "standard_2p_maskable_ppo.zip")
    monkeypatch.chdir(tmp_path)
    assert main([policy, "greedy", "--seed", "2", "--json", "game.json"]) == 0
    summary = capsys.readouterr().out.splitlines()[0]
    assert summary.endswith("won by player_0 (standard_2p_maskable_ppo)") and "/" not in summary
