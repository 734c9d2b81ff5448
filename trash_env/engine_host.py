"""The host both batched engines run on: what a game's Numba engine needs beyond its rules, written once.

A batched engine (``trash_env/trash/batched.py``, ``trash_env/neighbor/batched.py``) keeps B games of
one configuration as rows of an int16 array and steps them in lockstep with compiled code. What is
the same for every game lives here:

- :class:`RowLayout`: the cells of a game's state row (and of its configuration row) declared once, in
  order, their offsets handed out rather than numbered by hand;
- the in-engine players' codes (:data:`EXTERNAL` seats are asked by the caller, :data:`ASKED_FROM` + k
  are a single-agent batch's opponents asked by the caller, :data:`RANDOM` and
  :data:`KEYED_RANDOM` the uniform player in fast and exact mode), and the compiled helpers every
  engine calls: each game's own generator (:func:`below`), the k-th legal action, a seat's keyed Philox
  stream (:func:`keyed_draw`), the random player's choice (:func:`random_choice`), a single-agent
  game's seating (:func:`seat_players`);
- :class:`BatchHost`, the Python side: the checks of the arguments, the output arrays, the players'
  codes, the opponent pool, seeding, ``reset``/``step``, exact mode's resumption, threads, and the
  compile notice.

A game's engine subclasses :class:`BatchHost` and gives its rules as compiled functions in its own
module, under the same names and arguments in both engines (``_step_games``, ``_step_games_parallel``,
``_start_games``, ``_observe_games``, :attr:`BatchHost.kernels`): Numba caches compiled code per
source file, so the loops that call a game's rules are that game's (a change to its rules then
recompiles them). The arguments every kernel takes are the state ``g``, the configuration ``r``, the
games' generators ``rs``, the seats' keyed streams ``ks`` and ``extra``, the game's own arrays (Trash:
its observation scale; Help Your Neighbor: its dice generators and the solution's tables).

Numba checks only a kernel's own file for changes: after editing the compiled helpers here, clear the
engines' caches (``find trash_env -name '*.nbi' -delete``) before timing or testing them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import numpy as np

from trash_env.counter_rng import philox_random
from trash_env.jit import HAVE_NUMBA, kernel_call, njit
from trash_env.kernel import checked_actions

# The in-engine players' codes, per game and seat (``BatchHost.policies``): a game's baselines are 0, 1, ...
# (its POLICY_CODES, RANDOM first), EXTERNAL seats are asked by the caller.
EXTERNAL, RANDOM = -1, 0
ANY_ASKED = -2  # an engine's _advance stop_seat: the first move of any EXTERNAL seat
# Codes from ASKED_FROM on are opponents asked by the caller too (frozen policy snapshots of a single-agent
# batch, the vector envs): ASKED_FROM + k is the caller's k-th such opponent.
ASKED_FROM = 16
KEYED_RANDOM = ASKED_FROM - 1  # exact mode's random: RandomAgent's draws from the seat's keyed stream
# A seat's keyed stream in exact mode (``BatchHost.streams`` [B, MAX_SEATS, 3], uint64): its Philox key (two
# words, ``trash_env.counter_rng``) and how many draws it has made.
KEY0, KEY1, DRAWS = range(3)
MAX_SEATS = 8
PARALLEL_FROM = 256  # batch sizes from which a batch steps its games on all of Numba's threads
MAX_TURNS = int(np.iinfo(np.int16).max)  # the turn count is an int16 cell
REPLACEMENTS = 1000  # new games tried in a row for one in which the learner moves (R13, R14)


class RowLayout:
    """The cells of a row, declared once and in order: :meth:`fields` and :meth:`block` hand out the next
    free offsets, :attr:`width` is the row's width so far.

    >>> row = RowLayout()
    >>> PHASE, CUR = row.fields(2)
    >>> COV = row.block(8)  # [seat]
    >>> (PHASE, CUR, COV, row.width)
    (0, 1, 2, 10)
    """

    def __init__(self) -> None:
        self.width = 0

    def block(self, size: int) -> int:
        """The offset of ``size`` cells in a row (a per-seat or per-rank table)."""
        offset = self.width
        self.width += size
        return offset

    def fields(self, count: int) -> range:
        """The offsets of ``count`` single cells, to unpack into their names."""
        return range(self.block(count), self.width)


# --------------------------------------------------------------------------
# Compiled helpers of every engine


@njit(cache=True)
def below(rs: np.ndarray, b: int, n: int) -> int:
    """A uniform integer 0..n-1 from game ``b``'s own generator (xorshift64*), so a game's randomness
    does not depend on the other games or on threads."""
    x = rs[b]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rs[b] = x
    return int((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(33)) % n


@njit(cache=True)
def nth_legal(mask: np.ndarray, k: int) -> int:
    """The ``k``-th legal action (from 0) in increasing order: ``legal_actions(state)[k]``."""
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def keyed_draw(ks: np.ndarray, b: int, seat: int) -> float:
    """The next ``random()`` of game ``b``'s seat ``seat`` from its keyed stream (exact mode): draw number
    DRAWS of Philox(KEY0, KEY1), as NumPy's generator over that key would give it."""
    index = ks[b, seat, DRAWS]
    ks[b, seat, DRAWS] = index + np.uint64(1)
    return philox_random(ks[b, seat, KEY0], ks[b, seat, KEY1], index)


@njit(cache=True)
def random_choice(rs: np.ndarray, ks: np.ndarray, b: int, seat: int, code: int, mask: np.ndarray, count: int) -> int:
    """The uniform player's choice among the ``count`` legal actions of ``mask``: in fast mode (RANDOM)
    from the game's generator, in exact mode (KEYED_RANDOM) as ``agents.baselines.RandomAgent``,
    ``legal[int(rng.random() * len(legal))]`` from the seat's keyed stream. -1 for another code."""
    if code == RANDOM:
        return nth_legal(mask, below(rs, b, count))
    if code == KEYED_RANDOM:
        return nth_legal(mask, int(keyed_draw(ks, b, seat) * count))
    return -1


@njit(cache=True)
def seat_players(
    g: np.ndarray,
    rs: np.ndarray,
    b: int,
    players: int,
    learner_cell: int,
    policies: np.ndarray,
    pool: np.ndarray,
    learner: int,
) -> None:
    """A new game's seating (fast mode). With a pool of opponent policies (a single-agent batch) the
    learner's seat is ``learner`` or drawn, every other seat draws its policy from the pool; the
    learner's seat is kept in the cell ``learner_cell`` (-1 without a pool)."""
    if len(pool) == 0:
        g[b, learner_cell] = -1
        return
    if learner < 0:
        learner = below(rs, b, players)
    g[b, learner_cell] = learner
    for seat in range(players):
        policies[b, seat] = EXTERNAL if seat == learner else pool[below(rs, b, len(pool))]


@njit(cache=True)
def game_ended(g: np.ndarray, b: int, trunc_cell: int, learner_cell: int, out: tuple) -> int:
    """Game ``b`` has just ended, its rewards written in ``out``'s rewards: set its done flag, whether it
    was cut short (the cell ``trunc_cell``) and its learner's reward. Returns the learner's seat (kept in
    ``learner_cell``), whose final observation the engine then writes; -1 without a learner."""
    _, _, rewards, dones, _, _, truncs, learner_rewards, _ = out
    dones[b] = True
    truncs[b] = g[b, trunc_cell] != 0
    ended = g[b, learner_cell]
    if ended >= 0:
        learner_rewards[b] = rewards[b, ended]
    return ended


@njit(cache=True)
def first_illegal(actions: np.ndarray, masks: np.ndarray, rows: np.ndarray) -> int:
    """The first ``i`` whose action is out of range or not legal in the mask of row ``rows[i]`` (-1: none)."""
    num_actions = masks.shape[1]
    for i in range(actions.shape[0]):
        action = actions[i]
        if action < 0 or action >= num_actions or masks[rows[i], action] == 0:
            return i
    return -1


def checked_engine_actions(actions: Any, masks: np.ndarray, rows: np.ndarray, who: str) -> np.ndarray:
    """:func:`trash_env.kernel.checked_actions` at the engines' speed: what an agent that decides in
    batches returned for the rows ``rows`` of the engine's ``masks`` (read there, not from the copy the
    agent was given), as int64 if every action is an integer, in range and legal (one compiled pass);
    else the kernel's ``IllegalActionError`` naming ``who``."""
    array = np.asarray(actions)
    if array.dtype.kind in "iu" and array.shape == (len(rows),):
        array = array.astype(np.int64, copy=False)
        if first_illegal(array, masks, rows) < 0:
            return array
    return checked_actions(array, masks[rows], who)  # raises, saying what is wrong


# --------------------------------------------------------------------------
# The Python side


class Kernels(NamedTuple):
    """A game's compiled entry points, each over the games (slots) it is given:

    - ``step(g, r, rs, ks, extra, games, actions, policies, pool, learner, out)``: apply each game's
      action (-1: none), play forced moves and in-engine players, and write the outputs ``out``
      (observations, masks, rewards, dones, seats, status, truncs, learner rewards, final observations);
      ``status`` is the asked seat's number of legal actions, 0 once over, -1 where exact mode paused;
    - ``step_parallel``: the same on Numba's threads;
    - ``start(g, r, rs, ks, extra, games, policies, pool, learner, masks)``: new games (fast mode: each
      advanced to its first real choice; exact mode: set up from what reset placed);
    - ``observe(g, r, extra, games, obs, masks, seats, status)``: the acting seats' observations and
      masks, no move made.
    """

    step: Callable[..., None]
    step_parallel: Callable[..., None]
    start: Callable[..., None]
    observe: Callable[..., None]


def threads() -> int:
    """Numba's thread count (1 without Numba, or in a worker process limited to one thread)."""
    if not HAVE_NUMBA:
        return 1
    import numba

    return numba.get_num_threads()


class BatchHost:
    """B games of one configuration in lockstep: the part of every engine that is not its rules.

    ``reset()`` starts every game; ``step(actions)`` applies one action per game (the acting seat's,
    ``seats``), plays forced moves, starts finished games again (fast mode), and returns the new
    observations, masks, the finished games' rewards and the done flags. Every seat is asked unless
    ``policies`` names an in-engine baseline for it: per seat (a list) or per game and seat (a [B, P]
    list of lists), a name of :attr:`POLICY_CODES` or None (asked).

    With ``opponents`` (a list of baseline names) the batch is single-agent: one learner seat per game
    (``learner_seat``, or drawn per episode) is asked, every other seat draws an opponent from the list
    per episode and moves inside ``step``; a finished game's ``learner_rewards`` and ``final_obs`` (the
    learner's last observation) are set before it starts again.

    With ``exact=True`` each game draws its chance from its own ``numpy.random.Generator``
    (``reset(seeds=[...])``) exactly as the rules core does, its ``random`` seats draw from their keyed
    Philox streams (``reset(draw_keys=...)``) exactly as ``RandomAgent`` does, and a finished game is
    not started again (``dones`` stays set; call ``reset``). ``parallel`` spreads the games over
    Numba's threads (default: from :data:`PARALLEL_FROM` games); results do not depend on it.

    With ``hold_finished=True`` (fast mode, for rollouts from a position the engine places:
    ``place_state``) a finished game is not started again either: it waits, over, its ``dones`` and
    ``rewards`` kept, and later steps leave it alone; every seat may then play inside the engine, and
    one step plays a placed position to its end.

    A game's engine sets the class attributes and :meth:`_extra`, :meth:`_deal_of`, :meth:`_place_deal`
    (and, where exact mode pauses for Python's generator, :meth:`_resume_paused`).
    """

    title: ClassVar[str]  # the game's, for messages ("the Trash batched engine")
    config_type: ClassVar[type]
    POLICY_CODES: ClassVar[dict[str, int]]  # the in-engine baselines by name, RANDOM first
    num_actions: ClassVar[int]
    kernels: ClassVar[Kernels]
    row_width: ClassVar[int]  # of a game's state row
    phase_cell: ClassVar[int]  # the state row's cells the host reads: the phase, the learner's seat, the turn
    learner_cell: ClassVar[int]  # count and whether the game was cut short
    turn_cell: ClassVar[int]
    trunc_cell: ClassVar[int]
    over: ClassVar[int]  # the phase of a finished game
    hold_cell: ClassVar[int]  # the rules cell that makes finished games wait (``hold_finished``)

    def __init__(
        self,
        config: Any,
        batch_size: int,
        seed: int | None = None,
        exact: bool = False,
        policies: list[Any] | None = None,
        opponents: list[str] | None = None,
        learner_seat: int | None = None,
        parallel: bool | None = None,
        hold_finished: bool = False,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if not isinstance(config, self.config_type):
            raise ValueError(f"{self.title} plays a {self.config_type.__name__}, got {config!r}")
        self._check_config(config)
        observer = self._make_observer(config)
        p = config.num_players
        if config.max_turns > MAX_TURNS:
            raise ValueError(f"max_turns={config.max_turns}: the batched engine counts turns up to {MAX_TURNS}")
        if opponents is not None and (exact or policies is not None):
            raise ValueError("opponents (a single-agent batch) go with neither exact=True nor policies")
        if learner_seat is not None and (isinstance(learner_seat, bool) or learner_seat not in range(p)):
            raise ValueError(f"learner_seat={learner_seat!r} must be None or a seat 0..{p - 1}")
        self.config = config
        self.batch_size = batch_size
        self.exact = exact
        self.state = np.zeros((batch_size, self.row_width), np.int16)
        self._allocate()
        self.observer = observer
        self.obs = np.zeros((batch_size, observer.size), np.float32)
        self.masks = np.zeros((batch_size, self.num_actions), np.int8)
        self.rewards = np.zeros((batch_size, p), np.float32)
        self.dones = np.zeros(batch_size, np.bool_)
        self.seats = np.zeros(batch_size, np.int64)
        self.status = np.zeros(batch_size, np.int64)
        self.truncs = np.zeros(batch_size, np.bool_)
        self.learner_rewards = np.zeros(batch_size, np.float32)
        self.final_obs = np.zeros((batch_size, observer.size), np.float32)
        self._out = (
            self.obs,
            self.masks,
            self.rewards,
            self.dones,
            self.seats,
            self.status,
            self.truncs,
            self.learner_rewards,
            self.final_obs,
        )
        self.policies = self.policy_codes(policies, batch_size, p)
        if exact:  # exact mode's random is RandomAgent's, from each seat's keyed stream (reset's draw_keys)
            self.policies[self.policies == RANDOM] = KEYED_RANDOM
        self.streams = np.zeros((batch_size, MAX_SEATS, 3), np.uint64)
        if hold_finished and (exact or opponents is not None):
            raise ValueError("hold_finished is for fast mode with policies: exact mode holds its games anyway")
        if not exact and not hold_finished and opponents is None and ((self.policies != EXTERNAL).all(axis=1)).any():
            raise ValueError(
                "policies: in fast mode every game needs a seat that is asked (None); use exact=True or hold_finished"
            )
        self.pool = np.zeros(0, np.int64)
        if opponents is not None:
            if not len(opponents):
                raise ValueError("opponents must name at least one baseline")
            self.set_pool([self._code(name, "opponents") for name in opponents])
        self.learner = -1 if learner_seat is None else int(learner_seat)
        self._all = np.arange(batch_size)
        self._no_actions = np.full(batch_size, -1, np.int64)
        self.seeds: list[Any] = []  # exact mode: reset's
        # exact mode: each game's generator past its first draw, made once the game needs one more
        self.generators: list[np.random.Generator | None] = []
        self.seed(seed)
        # Threads pay off from a few hundred games on (docs/speed.md); the results are the same.
        self.parallel = (batch_size >= PARALLEL_FROM and threads() > 1) if parallel is None else bool(parallel)
        self._configure()
        self.rules[self.hold_cell] = bool(hold_finished)

    # What a game's engine gives.

    def _check_config(self, config: Any) -> None:
        """A ValueError if the engine cannot hold ``config`` (of the game's type)."""

    def _make_observer(self, config: Any) -> Any:
        """The game's observer of ``config`` (``size``: an observation's length)."""
        raise NotImplementedError

    def _configure(self) -> None:
        """The game's configuration row (``rules``) and whatever else it needs, once the host is set up."""
        raise NotImplementedError

    def _allocate(self) -> None:
        """The game's own arrays beside the state rows (once the arguments are checked)."""

    def _extra(self) -> Any:
        """The game's own arrays, the kernels' ``extra`` argument."""
        raise NotImplementedError

    def _seed_more(self, rng: np.random.Generator) -> None:
        """Fast mode: the game's own generators beyond ``rng_state``, drawn from the seeding generator."""

    def _deal_of(self, seed: Any) -> Any:
        """Exact mode: what a game seeded ``seed`` draws first (Trash: its deck; Help Your Neighbor: the
        state of its dice), computed once for every game of the seed."""
        raise NotImplementedError

    def _place_deal(self, b: int, deal: Any) -> None:
        """Exact mode: hand game ``b`` what :meth:`_deal_of` computed."""
        raise NotImplementedError

    def _resume_paused(self, b: int) -> None:
        """Exact mode: hand the paused game ``b`` the draw its generator makes next (only engines whose
        kernels pause: status -1)."""
        raise NotImplementedError

    # The host.

    @classmethod
    def _code(cls, name: str, what: str) -> int:
        if name not in cls.POLICY_CODES:
            raise ValueError(f"{what}: {name!r} is not an in-engine baseline ({sorted(cls.POLICY_CODES)})")
        return cls.POLICY_CODES[name]

    @classmethod
    def policy_codes(cls, policies: list[Any] | None, batch_size: int, num_players: int) -> np.ndarray:
        """Per game and seat: EXTERNAL (None, asked) or the code of an in-engine baseline; ``policies`` is
        None, one name per seat, or one list of names per game."""
        codes = np.full((batch_size, num_players), EXTERNAL, np.int64)
        if policies is None:
            return codes
        rows = policies if policies and isinstance(policies[0], (list, tuple)) else [policies] * batch_size
        if len(rows) != batch_size or any(len(row) != num_players for row in rows):
            raise ValueError(
                f"policies: one name (or None) per seat ({num_players}), for one game or each of {batch_size}"
            )
        seen: dict[tuple, list[int]] = {}  # an evaluation's games repeat a few lineups thousands of times
        for b, row in enumerate(rows):
            lineup = tuple(row)
            if lineup not in seen:
                seen[lineup] = [
                    EXTERNAL if n is None else cls._code(n, f"policies[{seat}]") for seat, n in enumerate(row)
                ]
            codes[b] = seen[lineup]
        return codes

    def _wrapping(self) -> Any:
        """Around every call of the kernels: the first one's compile notice, overflow warnings off."""
        return kernel_call(self.title)

    def set_pool(self, codes: list[int]) -> None:
        """A single-agent batch's opponent pool as engine codes: in-engine baselines (:attr:`POLICY_CODES`)
        or ``ASKED_FROM + k`` for opponents the caller asks (the vector envs' policy snapshots). Games
        started from now on draw from it."""
        pool = np.asarray(codes, np.int64)
        if not len(pool) or ((pool < 0) | ((pool >= len(self.POLICY_CODES)) & (pool < ASKED_FROM))).any():
            raise ValueError(f"opponent codes {list(codes)} are neither in-engine baselines nor ASKED_FROM + k")
        self.pool = pool

    def seed(self, seed: int | None) -> None:
        """Each game's own generators for fast mode (exact mode's come from ``reset``'s seeds)."""
        rng = np.random.default_rng(seed)
        self.rng_state = rng.integers(1, 2**63, size=self.batch_size, dtype=np.uint64)
        self._seed_more(rng)

    def _check_placeable(self, state: Any) -> None:
        """A one-line ValueError unless a game's ``place_state`` can put the core's ``state`` in a slot:
        fast mode, this batch's configuration, a game not over."""
        if self.exact:
            raise ValueError("place_state is for fast mode: exact mode's games follow their seeds")
        if state.config != self.config:
            raise ValueError("place_state: the state is of another configuration than the batch's")
        if state.phase == self.over:
            raise ValueError("place_state: the game is over")

    def copy_generators(self, sources: np.ndarray, targets: np.ndarray) -> None:
        """Fast mode: games ``targets`` draw from now on exactly what games ``sources`` draw (their
        generators' states copied, one source per target): common random numbers, for rollouts that
        compare moves from the same position (a local best response)."""
        self.rng_state[targets] = self.rng_state[sources]
        self._copy_more(sources, targets)

    def _copy_more(self, sources: np.ndarray, targets: np.ndarray) -> None:
        """A game's generators beyond ``rng_state`` (Help Your Neighbor's dice), copied as
        :meth:`copy_generators` says."""

    def reset(self, seeds: list[Any] | None = None, draw_keys: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game; returns (observations, masks) of the acting seats. In exact mode ``seeds`` (one
        per game, anything ``numpy.random.default_rng`` takes) seed each game's generator, as the rules
        core's generator of that seed, and ``draw_keys`` ([B, num_players, 2] integers below 2**64) are
        the Philox keys the in-engine ``random`` of each game's seats draws from: seat s of game b
        decides as ``RandomAgent`` with the generator ``trash_env.counter_rng.keyed_generator(draw_keys[b,
        s])`` (needed only where a seat plays ``random``; the streams start again at their first draw)."""
        self.dones[:] = False
        self.rewards[:] = 0.0
        if self.exact:
            if seeds is None or len(seeds) != self.batch_size:
                raise ValueError(f"exact mode needs one seed per game ({self.batch_size})")
            self._set_streams(draw_keys)
            dealt: dict[Any, Any] = {}  # the games of a duplicate deal (its rotations) share its seed
            for b, seed in enumerate(seeds):
                key = tuple(seed) if isinstance(seed, (list, tuple)) else seed
                if key not in dealt:
                    dealt[key] = self._deal_of(seed)
                self._place_deal(b, dealt[key])
            self.seeds = list(seeds)
            self.generators = [None] * self.batch_size
            self._start()
            self._run(self._all, self._no_actions)
            return self.obs, self.masks
        self._start()
        with self._wrapping():
            self.kernels.observe(
                self.state, self.rules, self._extra(), self._all, self.obs, self.masks, self.seats, self.status
            )
        self._check_learner_moves()
        return self.obs, self.masks

    def _start(self) -> None:
        with self._wrapping():
            self.kernels.start(
                self.state,
                self.rules,
                self.rng_state,
                self.streams,
                self._extra(),
                self._all,
                self.policies,
                self.pool,
                self.learner,
                self.masks,
            )

    def _set_streams(self, draw_keys: Any) -> None:
        """Exact mode: every seat's keyed stream at its first draw, from ``draw_keys``."""
        p = self.config.num_players
        self.streams[:] = 0
        if draw_keys is None:
            if (self.policies == KEYED_RANDOM).any():
                raise ValueError("exact mode's in-engine random draws from keyed streams: reset(seeds, draw_keys=...)")
            return
        keys = np.asarray(draw_keys, dtype=np.uint64)
        if keys.shape != (self.batch_size, p, 2):
            raise ValueError(f"draw_keys: one Philox key (two words) per game and seat, {(self.batch_size, p, 2)}")
        self.streams[:, :p, KEY0 : KEY1 + 1] = keys

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game, legal for its acting seat (``masks``; not checked here); -1 for a game that
        is over (exact mode). Returns (observations, masks, rewards [B, P], dones)."""
        actions = np.asarray(actions, dtype=np.int64)
        if self.exact:
            self._run(self._all, actions)
        elif self.rules[self.hold_cell]:
            self._kernel(self._live(self._all), actions)
        else:
            self._kernel(self._all, actions)
            self._check_learner_moves()
        return self.obs, self.masks, self.rewards, self.dones

    def _kernel(self, games: np.ndarray, actions: np.ndarray) -> None:
        kernel = self.kernels.step_parallel if self.parallel else self.kernels.step
        with self._wrapping():
            kernel(
                self.state,
                self.rules,
                self.rng_state,
                self.streams,
                self._extra(),
                games,
                actions,
                self.policies,
                self.pool,
                self.learner,
                self._out,
            )

    def _live(self, games: np.ndarray) -> np.ndarray:
        """Those of ``games`` not over (exact mode and held batches step only them)."""
        return games[self.state[games, self.phase_cell] != self.over]

    def _run(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Exact mode: step the unfinished ``games`` (a finished game keeps its dones and rewards until
        reset), then hand every paused game the draw the core would make, until none is paused."""
        live = self._live(games)
        self.dones[live] = False
        self.rewards[live] = 0.0
        while len(live):
            self._kernel(live, actions)
            paused = live[self.status[live] < 0]
            for b in paused:
                self._resume_paused(int(b))
            live = paused

    def turns_and_truncation(self, b: int) -> tuple[int, bool]:
        """Game ``b``'s turns played and whether it was cut short (``max_turns``)."""
        return int(self.state[b, self.turn_cell]), bool(self.state[b, self.trunc_cell])

    def _check_learner_moves(self) -> None:
        """Fast mode: every game waits on an asked seat; a configuration where a thousand games in a row end
        before the learner moves (``max_turns`` too small for its seat) is an error."""
        if not self.status.all():
            b = int(np.flatnonzero(self.status == 0)[0])
            raise RuntimeError(
                f"no game in {REPLACEMENTS} gave the learner a move (max_turns={self.config.max_turns} may end "
                f"every game before seat {int(self.state[b, self.learner_cell])} plays)"
            )


__all__ = [
    "ANY_ASKED",
    "ASKED_FROM",
    "EXTERNAL",
    "KEYED_RANDOM",
    "MAX_SEATS",
    "MAX_TURNS",
    "PARALLEL_FROM",
    "RANDOM",
    "REPLACEMENTS",
    "BatchHost",
    "Kernels",
    "RowLayout",
    "below",
    "keyed_draw",
    "nth_legal",
    "random_choice",
    "seat_players",
    "threads",
]
