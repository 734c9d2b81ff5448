"""Exact evaluation of two-player Help Your Neighbor agents: no sampling, no interval (R12, R14).

Two-player Help Your Neighbor is solved (:mod:`trash_env.neighbor.solver`). Any agent that decides
from the public state can be evaluated exactly against any other: its decision at every state is
read off once (in batches: :meth:`agents.base.Agent.policy_batch` on the observation of each state),
and the values of the two policies playing each other follow by policy evaluation over every state.

The observation of a state fixes the covered markers, whose turn it is, the phase and the last roll;
it also has two pieces the solved state does not (the privilege marker and the turn count). They are
set to "no privilege" and turn 0 here: an agent whose choices depend on them is evaluated as if they
were so (the baselines and the optimal agent ignore them; a learned policy might not, and the
duplicate-deal estimate beside the exact value shows whether that matters). The turn limit (R12, as
R7) is left out: ``benchmarks/neighbor_turns.py`` shows play never comes near it.

- :func:`exact_pair`: the probability that each agent wins from each seat, and the expected score
  difference per deal (both seats), as the duplicate-deal evaluation estimates it;
- :func:`gap_to_optimal`: how much an agent loses to optimal play, from each seat, in all and in each
  kind of decision (roll again or end; which marker to uncover), with example states where it errs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from trash_env.kernel import checked_policy
from trash_env.neighbor.observation import ROLL_TOTALS, NeighborObserver
from trash_env.neighbor.rules import (
    CHOOSE,
    END_TURN,
    NUM_ACTIONS,
    NUM_MARKERS,
    ROLL_DICE,
    TOTALS,
    UNCOVER,
    UNCOVER_0,
    covered_bits,
    make_config,
)
from trash_env.neighbor.solver import (
    TOLERANCE,
    PolicyTables,
    Solution,
    evaluate_policies,
    load_solution,
    optimal_tables,
    roll_outcomes,
)

# States per batch of observations: small enough that a network's activations stay in the cache (a 128x128
# policy's tables 2.4 times as fast as in batches of 1 << 17, the same tables).
CHUNK = 1 << 12
SIZE = 1 << NUM_MARKERS
BITS = np.arange(NUM_MARKERS)


def _observations(observer: NeighborObserver, me: np.ndarray, opp: np.ndarray, phase: int, roll: int) -> np.ndarray:
    """The mover's observation of states (me, opp) in ``phase`` after ``roll``: seat order from the
    mover, no privilege, turn 0."""
    out = np.zeros((len(me), observer.size), dtype=np.float32)
    pieces = observer.view_batch(out)
    pieces["phase"][:, phase] = 1.0
    pieces["roll"][:, ROLL_TOTALS.index(roll)] = 1.0
    pieces["current"][:, 0] = 1.0
    for seat, bits in enumerate((me, opp)):
        covered = (bits[:, None] >> BITS) & 1
        pieces["covered"][:, seat] = covered
        pieces["left"][:, seat] = (NUM_MARKERS - covered.sum(axis=1)) / NUM_MARKERS
    return out


def decision_tables(agent: Agent) -> PolicyTables:
    """The agent's decision at every state of two-player Help Your Neighbor, as probabilities.

    Choosing after a roll of ``t`` (covered by the mover, or usable by nobody: either way the mover
    holds ``t``'s marker) and uncovering after a 7 (the mover holds a marker). A single covered
    marker is a forced uncover (R14) and is not asked. An agent that decides from the covered sets
    alone by lookup tables (:class:`agents.optimal.TableAgent`) gives them directly
    (:func:`table_agent_tables`: the same tables, tested, without asking it two million questions)."""
    from agents.optimal import TableAgent

    agent.check_config(make_config(num_players=2))
    if isinstance(agent, TableAgent):
        return table_agent_tables(*agent.tables())
    if not agent.batchable:
        raise ValueError(
            f"agent {agent.name!r} decides one position at a time: exact evaluation asks for its decision at "
            "every state, in batches (act_batch or policy_batch)"
        )
    observer = NeighborObserver(make_config(num_players=2))
    me_all, opp_all = (a.ravel() for a in np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing="ij"))
    roll: dict[int, np.ndarray] = {}
    choose_mask = np.zeros((CHUNK, NUM_ACTIONS), np.int8)
    choose_mask[:, [ROLL_DICE, END_TURN]] = 1
    for total, bit, _ in roll_outcomes(TOTALS):
        table = np.ones(SIZE * SIZE)  # (states where the mover lacks the marker never choose after it)
        asked = np.flatnonzero(me_all & bit)
        for start in range(0, len(asked), CHUNK):
            rows = asked[start : start + CHUNK]
            observations = _observations(observer, me_all[rows], opp_all[rows], CHOOSE, total)
            policy = agent.policy_batch(observations, choose_mask[: len(rows)])
            table[rows] = checked_policy(policy, choose_mask[: len(rows)], agent.name)[:, ROLL_DICE]
        roll[total] = table.reshape(SIZE, SIZE)
    uncover = np.zeros((NUM_MARKERS, SIZE * SIZE))
    covered = (me_all[:, None] >> BITS) & 1
    single = covered.sum(axis=1) == 1
    uncover[:, single] = covered[single].T  # forced: the only covered marker
    asked = np.flatnonzero(covered.sum(axis=1) >= 2)
    for start in range(0, len(asked), CHUNK):
        rows = asked[start : start + CHUNK]
        masks = np.zeros((len(rows), NUM_ACTIONS), np.int8)
        masks[:, UNCOVER_0:] = covered[rows]
        observations = _observations(observer, me_all[rows], opp_all[rows], UNCOVER, 7)
        policy = checked_policy(agent.policy_batch(observations, masks), masks, agent.name)
        uncover[:, rows] = policy[:, UNCOVER_0:].T
    return PolicyTables(roll, uncover.reshape(NUM_MARKERS, SIZE, SIZE))


def table_agent_tables(roll_again: np.ndarray, uncover: np.ndarray) -> PolicyTables:
    """:func:`decision_tables` of an agent that decides by lookup tables over the covered sets
    (``roll_again[me, opp]``; ``uncover[me, opp]``, the marker to uncover after a 7), as the generic
    path would ask it: rolling again after any total the mover holds (1 where it holds none: never
    asked), and the marker it uncovers where two or more are covered (the only one where one is)."""
    me_all = np.arange(SIZE)[:, None]
    roll: dict[int, np.ndarray] = {}
    again = np.asarray(roll_again, dtype=np.float64)
    for total, bit, _ in roll_outcomes(TOTALS):
        roll[total] = np.where(me_all & bit, again, 1.0)
    covered = (np.arange(SIZE)[:, None] >> BITS) & 1  # [me, marker]
    count = covered.sum(axis=1)
    tables = np.zeros((NUM_MARKERS, SIZE, SIZE))
    me, opp = np.nonzero(np.broadcast_to(count[:, None] >= 2, (SIZE, SIZE)))
    tables[np.asarray(uncover)[me, opp], me, opp] = 1.0
    single = count == 1
    tables[:, single, :] = covered[single].T[:, :, None]  # forced: the only covered marker (R14)
    return PolicyTables(roll, tables)


@dataclass(frozen=True)
class ExactPair:
    """Two agents playing each other exactly: win probabilities from each seat and the expected
    score difference per deal (first minus second, over both seatings: what duplicate deals estimate)."""

    first: str
    second: str
    first_wins_as_first_roller: float
    first_wins_as_second_roller: float

    @property
    def first_win_rate(self) -> float:
        return (self.first_wins_as_first_roller + self.first_wins_as_second_roller) / 2

    @property
    def score_difference(self) -> float:
        """First's mean reward minus second's (R12: +1 / -1 a game, no draws without the turn limit)."""
        return 2 * (2 * self.first_win_rate - 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "second": self.second,
            "first_wins_as_first_roller": self.first_wins_as_first_roller,
            "first_wins_as_second_roller": self.first_wins_as_second_roller,
            "first_win_rate": self.first_win_rate,
            "score_difference": self.score_difference,
        }


def first_roller_wins(first: PolicyTables, second: PolicyTables, tolerance: float = TOLERANCE) -> tuple[float, float]:
    """The probability that the first roller wins when it follows ``first`` and when it follows
    ``second``: one policy evaluation gives both (each player's value at the start of its turn with
    nothing covered is the value of a game it opens), to ``tolerance`` (the solver's by default)."""
    values = evaluate_policies(first, second, tolerance=tolerance)
    return float(values[0][0, 0]), float(values[1][0, 0])


def exact_pair(
    first: tuple[str, PolicyTables], second: tuple[str, PolicyTables], tolerance: float = TOLERANCE
) -> ExactPair:
    (a, tables_a), (b, tables_b) = first, second
    a_opens, b_opens = first_roller_wins(tables_a, tables_b, tolerance)
    return ExactPair(a, b, a_opens, 1.0 - b_opens)


def _hybrid(roll_from: PolicyTables, uncover_from: PolicyTables) -> PolicyTables:
    return PolicyTables(roll_from.roll, uncover_from.uncover)


def _markers(bits: int) -> str:
    return ",".join(str(TOTALS[j]) for j in range(NUM_MARKERS) if bits >> j & 1) or "none"


def _examples(agent: Agent, solution: Solution, tables: PolicyTables, games: int, seed: int) -> list[dict[str, Any]]:
    """States where the agent's choice loses most against optimal play, weighted by how often the
    agent meets them in ``games`` sampled games against ``optimal`` (sampling only picks the
    examples; each loss is exact)."""
    from agents.evaluation.seatings import play_game
    from agents.optimal import OptimalAgent

    seen: Counter[tuple[int, int, int, int]] = Counter()

    class Watching(Agent):
        name, games = agent.name, agent.games

        def act(self, view, rng):
            state = view.public_state
            bits = [covered_bits(state, s) for s in range(2)]
            seen[(state.phase, state.roll, bits[view.seat], bits[1 - view.seat])] += 1
            return agent.act(view, rng)

    config = make_config(num_players=2)
    watching, optimal = Watching(), OptimalAgent()
    for game in range(games):
        seats = [watching, optimal] if game % 2 == 0 else [optimal, watching]
        rngs = [np.random.default_rng([seed, game, s]) for s in range(2)]
        play_game(config, seats, np.random.default_rng([seed, game]), rngs)
    value = solution.value
    examples = []
    for (phase, roll, me, opp), count in seen.items():
        if phase == CHOOSE:
            options = {"roll again": value[me, opp], "end the turn": 1 - value[opp, me]}
            p = tables.roll[roll][me, opp]
            chosen = p * options["roll again"] + (1 - p) * options["end the turn"]
            what = "roll again" if p == 1 else "end the turn" if p == 0 else f"roll again with probability {p:.2f}"
            kind = "roll again or end"
        else:
            options = {f"uncover {TOTALS[j]}": 1 - value[opp, me ^ (1 << j)] for j in range(NUM_MARKERS) if me >> j & 1}
            weights = tables.uncover[:, me, opp]
            chosen = sum(weights[j] * (1 - value[opp, me ^ (1 << j)]) for j in range(NUM_MARKERS) if me >> j & 1)
            top = int(np.argmax(weights))
            what = f"uncover {TOTALS[top]}" if weights[top] == 1 else "uncover one at random"
            kind = "which marker to uncover"
        best = max(options, key=options.get)
        loss = options[best] - chosen
        if loss > 1e-9:
            examples.append(
                {
                    "kind": kind,
                    "covered": _markers(me),
                    "opponent_covered": _markers(opp),
                    "last_roll": int(roll),
                    "agent": what,
                    "optimal": best,
                    "win_probability": {name: float(v) for name, v in options.items()},
                    "loss": float(loss),
                    "times_met": count,
                }
            )
    # The same position after different rolls (the roll is not part of the solved state) is one example.
    merged: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for row in examples:
        key = (row["kind"], row["covered"], row["opponent_covered"], row["agent"])
        if key in merged:
            merged[key]["times_met"] += row["times_met"]
            merged[key]["after_rolls"].append(row["last_roll"])
        else:
            merged[key] = {**row, "after_rolls": [row["last_roll"]]}
    rows = sorted(merged.values(), key=lambda row: -row["loss"] * row["times_met"])
    for row in rows:
        row["after_rolls"] = sorted(set(row.pop("after_rolls")))
        del row["last_roll"]
    return rows


KINDS = ("all", "roll_or_end", "uncover")


def gap_to_optimal(
    agent: Agent, examples: int = 5, games: int = 2000, seed: int = 0, kinds: tuple[str, ...] = KINDS
) -> dict[str, Any]:
    """How much ``agent`` loses to optimal play: its probability of winning against ``optimal`` from
    each seat next to optimal's own; the loss when only its roll-again-or-end decisions are its own
    (the rest optimal) and when only its uncover decisions are; and example states where it errs."""
    solution = load_solution()
    best = optimal_tables(solution)
    tables = decision_tables(agent)
    optimal_first = float(solution.value[0, 0])
    result: dict[str, Any] = {"agent": agent.name, "optimal_first_roller_wins": optimal_first}
    variants = {"all": tables, "roll_or_end": _hybrid(tables, best), "uncover": _hybrid(best, tables)}
    for label in kinds:
        mine = variants[label]
        as_first, optimal_opens = first_roller_wins(mine, best)
        as_second = 1.0 - optimal_opens
        result[label] = {
            "wins_as_first_roller": as_first,
            "wins_as_second_roller": as_second,
            "loss_as_first_roller": optimal_first - as_first,
            "loss_as_second_roller": (1.0 - optimal_first) - as_second,
            "score_loss_per_deal": 2 * ((optimal_first - as_first) + ((1.0 - optimal_first) - as_second)),
        }
    result["examples"] = _examples(agent, solution, tables, games, seed)[:examples] if examples else []
    return result
