"""The NumPy policy agent (:mod:`agents.linear`) and its weights-only ``.npz`` file.

- it plays the legal action of highest logit, row by row as in a batch (``act_batch`` over masks),
  so the batched engine evaluates it: the same games as the scalar path;
- save and load give the same policy (linear, and with hidden layers), and the rules it was trained
  for are checked when it is seated;
- bad arrays are refused when it is made, and a damaged or hostile file when it is loaded, each in
  one line naming the problem, without unpickling anything (a pickle payload leaves a marker file if
  it runs);
- ``examples/reinforce.py`` returns one, counted by the context, that saves and loads.
"""

from __future__ import annotations

import io
import itertools
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from helpers.hostile import Payload, rewrite

from agents.base import SeatView
from agents.linear import LinearAgent
from trash_env.games import get_game

ROOT = Path(__file__).resolve().parents[2]
TRASH_2P = get_game("trash").make_config("standard", num_players=2)


def random_agent(seed: int = 0, hidden: list[int] | None = None, activation: str = "tanh") -> LinearAgent:
    rng = np.random.default_rng(seed)
    widths = [150, *(hidden or []), 13]
    weights = [rng.normal(size=(a, b)) for a, b in itertools.pairwise(widths)]
    biases = [rng.normal(size=b) for b in widths[1:]]
    return LinearAgent(weights, biases, "trash", activation, config=TRASH_2P)


def positions(count: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    masks = (rng.random((count, 13)) < 0.3).astype(np.int8)
    masks[np.arange(count), rng.integers(13, size=count)] = 1  # at least one legal action
    return rng.random((count, 150)).astype(np.float32), masks


def npz_bytes(arrays: dict[str, np.ndarray], allow_pickle: bool = False) -> dict[str, bytes]:
    """Members of an .npz, each as ``np.save`` writes it."""
    out = {}
    for name, array in arrays.items():
        stream = io.BytesIO()
        np.save(stream, array, allow_pickle=allow_pickle)
        out[f"{name}.npy"] = stream.getvalue()
    return out


@pytest.mark.parametrize(("hidden", "activation"), [(None, "tanh"), ([16, 8], "relu"), ([4], "tanh")])
def test_it_plays_the_legal_action_of_highest_logit_in_a_batch_as_row_by_row(
    hidden: list[int] | None, activation: str
) -> None:
    agent = random_agent(0, hidden, activation)
    observations, masks = positions(200)
    actions = agent.act_batch(observations, masks, [None] * 200)
    logits = agent.logits_batch(observations)
    assert (masks[np.arange(200), actions] == 1).all()
    best = np.where(masks > 0, logits, -np.inf).max(axis=1)
    assert np.array_equal(logits[np.arange(200), actions], best)
    x = observations.astype(np.float64)  # the forward pass written out
    for w, b in zip(agent.weights[:-1], agent.biases[:-1]):
        x = np.tanh(x @ w + b) if activation == "tanh" else np.maximum(x @ w + b, 0)
    assert np.allclose(x @ agent.weights[-1] + agent.biases[-1], logits)
    assert agent.layers == (hidden or []) and agent.batchable


def test_the_batched_engine_and_the_scalar_path_play_the_same_games_with_it() -> None:
    pytest.importorskip("numba")
    from agents.evaluation.duplicate import run_pairings
    from agents.evaluation.stats import pair_summaries

    agent = random_agent(3)
    runs = {
        engine: run_pairings(TRASH_2P, [("policy", "greedy")], 20, seed=5, prebuilt={"policy": agent}, engine=engine)
        for engine in ("batched", "scalar")
    }
    assert runs["batched"] == runs["scalar"]
    assert pair_summaries(runs["batched"])[0].deals == 20


@pytest.mark.parametrize(("hidden", "activation"), [(None, "tanh"), ([16, 8], "relu")])
def test_save_and_load_give_the_same_policy_for_the_same_rules(
    tmp_path: Path, hidden: list[int] | None, activation: str
) -> None:
    agent = random_agent(2, hidden, activation)
    path = agent.save(tmp_path / "policy")
    assert path == tmp_path / "policy.npz" and not list(tmp_path.glob("*partial*"))
    loaded = LinearAgent.load(path)
    observations, masks = positions(100)
    assert np.array_equal(loaded.act_batch(observations, masks, []), agent.act_batch(observations, masks, []))
    assert loaded.config == TRASH_2P and loaded.activation == activation and loaded.layers == agent.layers
    loaded.check_config(TRASH_2P)
    with pytest.raises(ValueError, match=r"another configuration \(wild: trained 'K', asked 'J'"):
        loaded.check_config(get_game("trash").make_config("pagat", num_players=2))
    with pytest.raises(ValueError, match="takes observations of 150, these rules give 194"):
        loaded.check_config(get_game("trash").make_config("standard", num_players=3))
    with pytest.raises(ValueError, match="plays trash, not help_your_neighbor"):
        loaded.check_config(get_game("help_your_neighbor").make_config(num_players=2))


def test_without_its_rules_only_the_game_and_the_observation_size_are_checked(tmp_path: Path) -> None:
    agent = LinearAgent(np.zeros((150, 13)), np.zeros(13), "trash")
    loaded = LinearAgent.load(agent.save(tmp_path / "bare.npz"))
    assert loaded.config is None
    loaded.check_config(get_game("trash").make_config("pagat", num_players=2))  # same size: accepted
    with pytest.raises(ValueError, match="takes observations of 150"):
        loaded.check_config(get_game("trash").make_config("standard", num_players=4))


def test_a_seat_view_is_answered_as_its_row() -> None:
    from trash_env.trash.observation import TrashObserver
    from trash_env.trash.rules import new_game

    rng = np.random.default_rng(0)
    agent = random_agent(4)
    state = new_game(TRASH_2P, rng)
    view = SeatView(state, state.current, TrashObserver(TRASH_2P))
    expected = agent.act_batch(view.observation[None], view.action_mask[None], [rng])[0]
    assert agent.act(view, rng) == expected and expected in view.legal_actions


@pytest.mark.parametrize(
    ("weights", "biases", "message"),
    [
        ([np.zeros((150, 12))], [np.zeros(12)], "gives 12 logits, trash has 13 actions"),
        ([np.zeros((150, 13))], [np.zeros(12)], r"layer 0 has weights \(150, 13\) and bias \(12,\)"),
        ([np.zeros((150, 8)), np.zeros((7, 13))], [np.zeros(8), np.zeros(13)], "layer 1 takes 7 inputs"),
        ([np.zeros((151, 13))], [np.zeros(13)], "takes 151 inputs, the configuration's observation has 150"),
        ([np.full((150, 13), np.nan)], [np.zeros(13)], "weight_0 holds 1,950 NaN or infinite"),
        ([np.zeros((150, 13))], [np.array([np.inf, *[0.0] * 12])], "bias_0 holds 1 NaN or infinite"),
        ([], [], "0 weight matrices"),
    ],
)
def test_bad_arrays_are_refused_when_it_is_made(weights: list, biases: list, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        LinearAgent(weights, biases, "trash", config=TRASH_2P)
    assert "\n" not in str(error.value)


def test_an_unknown_activation_or_game_is_refused() -> None:
    with pytest.raises(ValueError, match="activation 'sigmoid' is not one of"):
        LinearAgent(np.zeros((150, 13)), np.zeros(13), "trash", "sigmoid")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        LinearAgent(np.zeros((150, 13)), np.zeros(13), "chess")


def with_extra(source: Path, target: Path, members: dict[str, bytes]) -> Path:
    """A copy of the zip ``source`` with ``members`` added."""
    rewrite(source, target, {})
    with zipfile.ZipFile(target, "a") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return target


def _metadata(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return json.loads(str(np.load(io.BytesIO(archive.read("metadata.npy")))))


def _with_metadata(path: Path, target: Path, **changes: object) -> Path:
    metadata = {**_metadata(path), **changes}
    return rewrite(path, target, npz_bytes({"metadata": np.array(json.dumps(metadata))}))


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    return random_agent(5, [8]).save(tmp_path / "good.npz")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p, t: rewrite(p, t, {"weight_1.npy": None}), "has no weight_1"),
        (lambda p, t: rewrite(p, t, {"metadata.npy": None}), "has no metadata"),
        (lambda p, t: with_extra(p, t, npz_bytes({"extra": np.zeros(3)})), r"holds \['extra.npy'\]"),
        (lambda p, t: rewrite(p, t, npz_bytes({"weight_0": np.zeros((150, 9))})), r"shape \(150, 9\), its network"),
        (lambda p, t: rewrite(p, t, npz_bytes({"bias_1": np.zeros(13, np.int64)})), "bias_1 is int64, not float"),
        (lambda p, t: rewrite(p, t, npz_bytes({"bias_1": np.full(13, np.nan)})), "bias_1 holds 13 NaN"),
        (lambda p, t: _with_metadata(p, t, activation="gelu"), "unknown activation 'gelu'"),
        (lambda p, t: _with_metadata(p, t, game="chess_v0"), "unknown game 'chess_v0'"),
        (lambda p, t: _with_metadata(p, t, kind="something"), "is not a trash-rl linear policy"),
        (lambda p, t: _with_metadata(p, t, observation_version=0), "observation layout v0"),
        (lambda p, t: _with_metadata(p, t, layers=[8, -1]), r"invalid layers \[8, -1\]"),
        (lambda p, t: _with_metadata(p, t, layers=[1 << 20]), "over the limit of"),
        (lambda p, t: _with_metadata(p, t, config={"num_players": 99}), "its config is not valid rules"),
        (lambda p, t: rewrite(p, t, {"metadata.npy": b"not an array"}), "its metadata is not a NumPy array"),
        (lambda p, t: t.write_bytes(p.read_bytes()[:-40]) and t, "cut short or damaged"),
        (lambda p, t: t.write_text("hello") and t, "it is not a zip file"),
    ],
)
def test_a_damaged_file_is_refused_in_one_line(saved: Path, tmp_path: Path, damage, message: str) -> None:
    target = damage(saved, tmp_path / "bad.npz")
    with pytest.raises(ValueError, match=message) as error:
        LinearAgent.load(target)
    assert "\n" not in str(error.value) and str(target) in str(error.value)


def test_a_pickled_array_is_refused_without_running_it(saved: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    payload = np.array([Payload(marker)], dtype=object)
    for member in ("weight_0", "metadata"):
        target = rewrite(saved, tmp_path / f"{member}.npz", npz_bytes({member: payload}, allow_pickle=True))
        with pytest.raises(ValueError, match=f"its {member} is object"):
            LinearAgent.load(target)
    assert not marker.exists()


def test_a_member_larger_than_its_shape_needs_is_not_read(saved: Path, tmp_path: Path) -> None:
    """A header that lies (a small shape over a large body) is caught by the member's size bound."""
    stream = io.BytesIO()
    np.save(stream, np.zeros(13))
    target = rewrite(saved, tmp_path / "big.npz", {"bias_1.npy": stream.getvalue() + bytes(1 << 13)})
    with pytest.raises(ValueError, match=r"bias_1\.npy is .* bytes, over the limit"):
        LinearAgent.load(target)


def test_the_reinforce_example_returns_a_linear_agent_counted_by_the_context(tmp_path: Path) -> None:
    """``examples/reinforce.py`` trains through ``context.vec_env``, reports each point once the counted
    steps reach it (never more timesteps than counted), and returns a LinearAgent for the task's rules
    that saves and loads."""
    from agents.bench.algorithms import TaskContext, make_opponents
    from agents.bench.tasks import get_task

    sys.path.insert(0, str(ROOT))
    try:
        from examples.reinforce import Reinforce
    finally:
        sys.path.remove(str(ROOT))
    task = get_task("hyn-4p")
    points = [0, 64, 128]
    context = TaskContext(task, 0, 128, points, tmp_path, make_opponents(task))
    reported: list[tuple[int, int]] = []

    def checkpoint(timesteps: int, policy: LinearAgent) -> None:
        assert isinstance(policy, LinearAgent)
        reported.append((timesteps, context.counted_steps))

    policy = Reinforce(num_envs=4, batch_episodes=4).train(context, checkpoint)
    assert [t for t, _ in reported] == points and all(t <= counted for t, counted in reported)
    assert 128 <= context.counted_steps < 128 + 4
    assert isinstance(policy, LinearAgent) and policy.config == task.config()
    loaded = LinearAgent.load(policy.save(tmp_path / "reinforce"))
    observations = np.random.default_rng(0).random((10, 67))
    masks = np.ones((10, 12), np.int8)
    assert np.array_equal(loaded.act_batch(observations, masks, []), policy.act_batch(observations, masks, []))


def test_a_sampling_policy_draws_from_the_softmax_of_the_legal_actions() -> None:
    """``sample=True`` (a self-play trainer's mixed-strategy opponent): draws follow the softmax over the
    legal actions, never an illegal one, and repeat with the seed; the greedy policy is unchanged."""
    game = get_game("help_your_neighbor")
    config = game.make_config(num_players=2)
    size, actions = game.make_observer(config).size, game.num_actions
    bias = np.zeros(actions)
    bias[:3] = [1.0, 0.0, 5.0]  # action 2 has the highest logit, but it is illegal below
    masks = np.zeros((4000, actions), np.int8)
    masks[:, :2] = 1
    observations = np.zeros((4000, size))

    def draws(seed: int) -> np.ndarray:
        agent = LinearAgent(np.zeros((size, actions)), bias, game.name, sample=True, seed=seed)
        return agent.act_batch(observations, masks, [None] * len(masks))

    chosen = draws(1)
    assert set(np.unique(chosen)) == {0, 1}
    share = float(np.mean(chosen == 0))
    expected = np.e / (np.e + 1.0)
    assert abs(share - expected) < 4 * np.sqrt(expected * (1 - expected) / len(chosen))
    assert np.array_equal(chosen, draws(1)) and not np.array_equal(chosen, draws(2))
    greedy = LinearAgent(np.zeros((size, actions)), bias, game.name)
    assert set(greedy.act_batch(observations, masks, [None] * len(masks))) == {0}


@pytest.mark.parametrize(
    ("spec", "game"), [("shipped:hyn-2p-maskable-ppo", "help_your_neighbor"), ("shipped:standard-2p", "trash")]
)
def test_a_torch_policy_s_numpy_copy_plays_the_same_moves(spec: str, game: str) -> None:
    """``numpy_copy``: the shipped MaskablePPO networks as NumPy MLPs, the same logits to
    float32's precision and the same legal argmax on thousands of observations and masks."""
    from agents.linear import numpy_copy
    from agents.registry import make_agent
    from trash_env.games import get_game

    agent = make_agent(spec, game)
    copy = numpy_copy(agent)
    assert numpy_copy(make_agent("random", game)) is None  # not a network
    rng = np.random.default_rng(0)
    observations = rng.random((4000, copy.observation_size)).astype(np.float32)
    masks = (rng.random((4000, get_game(game).num_actions)) < 0.5).astype(np.int8)
    masks[:, 0] = 1
    np.testing.assert_allclose(copy.logits_batch(observations), agent.preferences_batch(observations), atol=1e-4)
    rngs = [rng] * len(masks)
    assert np.array_equal(copy.act_batch(observations, masks, rngs), agent.act_batch(observations, masks, rngs))
