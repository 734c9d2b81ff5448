"""Help Your Neighbor as one :class:`~trash_env.game.Game` descriptor (R12, R14): everything the tools
around the game reach it through (``trash_env.games`` collects it)."""

from __future__ import annotations

from typing import Any

import numpy as np

from trash_env.game import Engine, from_core
from trash_env.neighbor import rules as neighbor
from trash_env.neighbor.drawing import neighbor_svg
from trash_env.neighbor.narration import NARRATOR
from trash_env.neighbor.observation import NEIGHBOR_OBSERVATION_VERSION, NeighborGlobalState, NeighborObserver
from trash_env.neighbor.rules import PRESETS, NeighborConfig, NeighborState
from trash_env.neighbor.text import render_neighbor

RECORD_VERSION = 1


def record_fields(state: NeighborState, dice: Any, given: bool) -> dict[str, Any]:
    """A record's deal: the stacked dice it started with (none: the seed rolls them all), and as a check
    every total rolled."""
    return {"dice": [int(total) for total in dice or ()], "rolls": list(state.rolls)}


def record_start(record: dict[str, Any], config: NeighborConfig, rng: np.random.Generator) -> NeighborState:
    return neighbor.new_game(config, record["dice"])


def record_check(record: dict[str, Any], state: NeighborState) -> None:
    if record["rolls"] != state.rolls:
        raise ValueError("the record's rolls do not match the rolls its seed and dice give")


def engine_fits(config: NeighborConfig) -> bool:
    """Whether the batched engine plays ``config``: turns counted in int16."""
    from trash_env.engine_host import MAX_TURNS

    return config.max_turns <= MAX_TURNS


def exact_batch(config: NeighborConfig, size: int, inside: list[list[str | None]], agents: dict[str, Any]) -> Any:
    """An exact-mode batch for duplicate evaluation, ``inside[b][seat]`` the in-engine player of each seat;
    an ``optimal`` inside plays its agent's tables (loaded from the solver's cache otherwise)."""
    from trash_env.neighbor.batched import NeighborBatch

    optimal = agents.get("optimal")
    tables = optimal.tables() if optimal is not None else None
    return NeighborBatch(config, size, exact=True, policies=inside, optimal_tables=tables)


def warm_up_solver() -> None:
    """The solver's compiled sweeps, on the game of three markers (the kernels' types are the full game's)."""
    from trash_env.neighbor import solver

    totals = (2, 3, 4)
    tables = solver.optimal_tables(solver.solve(totals))
    solver.evaluate_policies(tables, tables, totals)
    solver.best_response(tables, totals)
    solver.turn_visits_step(np.zeros((8, 8)), tables, totals)


GAME = from_core(
    neighbor,
    name="help_your_neighbor",
    env_name="help_your_neighbor_v0",
    title="Help Your Neighbor",
    make_config=neighbor.make_config,
    config_type=NeighborConfig,
    deal_option="dice",
    check_deal=lambda config, dice: neighbor.check_dice(dice),
    new_deal=lambda config, rng: None,  # the dice come from the deal's generator as the game goes
    new_game=lambda config, rng, dice: neighbor.new_game(config, dice),
    make_observer=NeighborObserver,
    make_global_state=NeighborGlobalState,
    observation_version=NEIGHBOR_OBSERVATION_VERSION,
    public_view=neighbor.clone,  # nothing is hidden (R12)
    render=render_neighbor,
    draw=neighbor_svg,
    record_fields=record_fields,
    record_keys=("dice", "rolls"),
    record_deal=lambda state, dice: list(dice or ()),  # the stacked dice (the seed rolls the rest)
    record_validate=lambda record: None,  # the dice are checked as the replay rolls them
    record_start=record_start,
    record_check=record_check,
    record_version=RECORD_VERSION,
    presets=tuple(PRESETS),
    matches=False,
    default_opponent="heuristic",
    scored_baselines=("random", "heuristic", "optimal"),
    heldout=("roller",),
    aec_entry_point="trash_env.neighbor.env:env",
    single_agent_entry_point="trash_env.neighbor.single_agent:NeighborSingleAgentEnv",
    single_agent_id="HelpYourNeighborSingleAgent-v0",
    engine=Engine(
        batch="trash_env.neighbor.batched:NeighborBatch",
        policies=("random", "heuristic", "roller", "optimal"),
        fits=engine_fits,
        exact_batch=exact_batch,
        vec_env="trash_env.neighbor.vec_env:NeighborVecEnv",
        vector_env="trash_env.neighbor.vector_env:NeighborVectorEnv",
    ),
    narrator=NARRATOR,
    openspiel_entry_point="trash_env.neighbor.openspiel",
    solved=True,
    warm_up={"the exact solver of Help Your Neighbor": warm_up_solver},
)
"""Help Your Neighbor: everything the tools around the game reach it through."""
