"""The kernel both games share: the pieces every rules core, configuration and observer is built from.

- :class:`IllegalActionError` and :func:`check_action`: an action that the rules do not allow where
  the game stands is refused with the legal actions named, and the state is left untouched
  (Trash R13, Help Your Neighbor R14);
- :func:`checked_actions` and :func:`checked_policy`: the same for what an agent that decides in batches
  returns (an action per position, or a policy), checked before an engine applies or a table holds it;
- :func:`apply_forced`: forced moves applied until a seat has a real choice (R13, R14);
- :func:`known_fields` and :func:`check_int`: the checks of a frozen configuration dataclass
  (Trash R1, R11; Help Your Neighbor R12), each error naming its field;
- :class:`PieceLayout`: a flat observation vector made of named pieces (R15), so that no code
  writes an offset.

Imports only the standard library and numpy.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class IllegalActionError(ValueError):
    """An action that R13 does not allow where the game stands; the state is unchanged."""


def check_action(
    state: Any,
    action: Any,
    legal_actions: Callable[[Any], list[int]],
    action_name: Callable[[int], str],
    phase_names: Sequence[str],
    rule: str,
    num_actions: int,
) -> None:
    """Raise :class:`IllegalActionError`, naming the legal actions, unless ``action`` is
    legal for ``state.current`` (shared by the rules cores of both games)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"an action is an integer 0..{num_actions - 1} ({rule}), got {action!r}")
    legal = legal_actions(state)
    if action not in legal:
        if state.over:
            raise IllegalActionError("the game is over: no action is legal")
        names = ", ".join(f"{a} ({action_name(a)})" for a in legal)
        raise IllegalActionError(
            f"action {action!r} ({action_name(action)}) is illegal for seat {state.current} "
            f"in the {phase_names[state.phase]} phase; legal actions: {names}"
        )


def checked_actions(actions: Any, masks: np.ndarray, who: str) -> np.ndarray:
    """``actions`` (one per row of ``masks``, as an agent that decides in batches returns them) as int64,
    if each is an integer, in range and legal in its row; else :class:`IllegalActionError` naming
    ``who``, the first bad row and the legal actions there. What the scalar path's :func:`check_action`
    refuses, refused in a batch before any engine applies it."""
    array = np.asarray(actions)
    if array.shape != (len(masks),):
        raise IllegalActionError(f"{who} returned actions of shape {array.shape} for {len(masks)} positions")
    if array.dtype.kind not in "iu":  # floats, booleans, objects: an action is an integer
        raise IllegalActionError(f"{who} returned actions of dtype {array.dtype}: an action is an integer")
    num_actions = masks.shape[1]
    inside = (array >= 0) & (array < num_actions)
    legal = inside.copy()
    legal[inside] = masks[np.flatnonzero(inside), array[inside]] != 0
    bad = np.flatnonzero(~legal)
    if len(bad):
        row = int(bad[0])
        raise IllegalActionError(
            f"{who}: action {array[row]} is illegal in game {row} (legal: {np.flatnonzero(masks[row]).tolist()})"
        )
    return array.astype(np.int64, copy=False)


def checked_policy(probabilities: Any, masks: np.ndarray, who: str, tolerance: float = 1e-6) -> np.ndarray:
    """``probabilities`` (a policy over the actions for each row of ``masks``) as float64, if each row is
    finite, non-negative, zero off the legal actions and sums to 1 (within ``tolerance``); else
    :class:`IllegalActionError` naming ``who`` and the first bad row."""
    array = np.asarray(probabilities, dtype=np.float64) if np.asarray(probabilities).dtype.kind in "fiu" else None
    if array is None or array.shape != masks.shape:
        raise IllegalActionError(f"{who} returned a policy that is not a {masks.shape} array of probabilities")
    finite = np.isfinite(array).all(axis=1) & (array >= -tolerance).all(axis=1)
    off = np.where(masks != 0, 0.0, np.abs(np.nan_to_num(array))).sum(axis=1) > tolerance
    total = np.abs(np.nan_to_num(array).sum(axis=1) - 1.0) > tolerance
    bad = np.flatnonzero(~finite | off | total)
    if len(bad):
        row = int(bad[0])
        raise IllegalActionError(
            f"{who}: its policy in position {row} is not a distribution over the legal actions "
            f"{np.flatnonzero(masks[row]).tolist()}: {np.round(array[row], 4).tolist()}"
        )
    return array


def apply_forced(
    state: Any,
    rng: np.random.Generator,
    actions: list[int] | None,
    forced_action: Callable[[Any], int],
    apply: Callable[[Any, int, np.random.Generator], None],
) -> int:
    """Apply ``forced_action(state)`` while there is one (shared by both games' cores)."""
    count = 0
    while True:
        action = forced_action(state)
        if action < 0:
            return count
        apply(state, action, rng)
        if actions is not None:
            actions.append(action)
        count += 1


class UnknownFieldError(TypeError, ValueError):
    """An unknown keyword argument of a rules configuration or an env (``trash_env.env(colour=...)``,
    ``gymnasium.make("TrashSingleAgent-v0", frameskip=4)``): a ``TypeError``, as Python raises for an
    unexpected keyword argument and as libraries that probe an env's keywords expect (TorchRL's
    ``GymEnv`` retries without ``frameskip`` on a ``TypeError`` only), and a ``ValueError``, as every bad
    rules field was before, so that code catching either keeps working."""


def known_fields(config_type: type, data: dict[str, Any], what: str = "rules") -> dict[str, Any]:
    """``data`` as keyword arguments of the dataclass ``config_type``; unknown keys are an
    :class:`UnknownFieldError` naming them (shared by the configurations of both games)."""
    names = {f.name for f in dataclasses.fields(config_type)}
    unknown = sorted(set(data) - names)
    if unknown:
        # Python's own words for it too, which libraries that probe keywords match (TorchRL's GymEnv)
        said = f"unexpected keyword argument {unknown[0]!r}"
        raise UnknownFieldError(f"unknown {what} field(s) {unknown} ({said}); known fields are {sorted(names)}")
    return dict(data)


def check_int(config: Any, name: str, low: int, high: int | None) -> None:
    """The field ``name`` of a frozen config must be an integer in low..high (None: no top);
    numpy integers become plain ints."""
    value = getattr(config, name)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name}={value} is out of range ({bounds})")
    object.__setattr__(config, name, int(value))


class PieceLayout:
    """A flat vector made of named pieces: their offsets, shapes and size, and
    :meth:`view` to split a vector back into them (shared by every game's observer)."""

    def __init__(self, pieces: list[tuple[str, tuple[int, ...], str]]) -> None:
        self.pieces = pieces
        self.offsets: dict[str, int] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        offset = 0
        for name, shape, _ in pieces:
            self.offsets[name] = offset
            self.shapes[name] = shape
            offset += int(np.prod(shape))
        self.size = offset

    def view(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split an observation vector into its named pieces (views, not copies)."""
        return {
            name: vector[self.offsets[name] : self.offsets[name] + int(np.prod(shape))].reshape(shape)
            for name, shape, _ in self.pieces
        }

    def view_batch(self, vectors: np.ndarray) -> dict[str, np.ndarray]:
        """:meth:`view` of each row of ``vectors`` [N, size]: pieces shaped [N, *shape]."""
        return {
            name: vectors[:, self.offsets[name] : self.offsets[name] + int(np.prod(shape))].reshape(-1, *shape)
            for name, shape, _ in self.pieces
        }

    def describe(self, vector: np.ndarray) -> str:
        """The observation as readable text, piece by piece."""
        parts = self.view(vector)
        width = max(len(name) for name, _, _ in self.pieces) + 1
        lines = []
        for name, _, meaning in self.pieces:
            value = parts[name]
            text = self.piece_text(name, value)
            if text is None:
                text = np.array2string(value, precision=3, separator=" ")
            lines.append(f"{name:{width}s} {text}    ({meaning})")
        return "\n".join(lines)

    def piece_text(self, name: str, value: np.ndarray) -> str | None:
        """Readable text for one piece, or None for the plain numbers."""
        return None


def renamed(module: str, old_names: dict[str, Any], other: Any = None) -> Any:
    """A module ``__getattr__`` that still gives each old name (``old_names``: old name -> the object,
    renamed) with a ``DeprecationWarning`` naming the new one: for names a release renamed. Any other
    name goes to ``other`` (the module's own ``__getattr__``, as for names loaded lazily), if given."""
    import warnings

    def module_getattr(name: str) -> Any:
        if name in old_names:
            new = old_names[name]
            warnings.warn(
                f"{module}.{name} is renamed {new.__name__}; the old name goes in a later release",
                DeprecationWarning,
                stacklevel=2,
            )
            return new
        if other is not None:
            return other(name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return module_getattr
