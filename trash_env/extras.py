"""The package's optional extras (``pyproject.toml``'s ``[project.optional-dependencies]``): which
extra brings each optional module, and the one way every message says that one is missing.

The core (numpy, gymnasium, pettingzoo) runs the environments; everything else is an extra, and
code that needs one imports it where it is used. Its absence is a one-line message naming the extra
and how to install it, spelled one way everywhere (:func:`install_command`)::

    >>> needs_extra("pictures", "render", "drawsvg")
    "pictures need the render extra: pip install 'trash-rl[render]' (drawsvg is not installed)"
"""

from __future__ import annotations

DISTRIBUTION = "trash-rl"  # the name pip installs the package by

EXTRA_OF_MODULE: dict[str, str] = {
    **dict.fromkeys(("scipy", "rich", "choix", "matplotlib"), "eval"),
    **dict.fromkeys(("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "tqdm", "psutil"), "train"),
    **dict.fromkeys(("drawsvg", "resvg_py", "PIL"), "render"),
    **dict.fromkeys(("moviepy",), "video"),
    **dict.fromkeys(("starlette", "uvicorn"), "web"),
    **dict.fromkeys(("optuna",), "tune"),
    **dict.fromkeys(("numba",), "batched"),
    **dict.fromkeys(("ray",), "rllib"),
    **dict.fromkeys(("mkdocs", "material", "mkdocstrings"), "docs"),
    **dict.fromkeys(("rlcard", "pygame"), "bench"),
    **dict.fromkeys(("pyspiel", "open_spiel"), "openspiel"),
    **dict.fromkeys(("supersuit", "shimmy", "torchrl", "tensordict", "tianshou"), "interop"),  # the examples' libraries
}
"""The optional modules, by the top-level name they are imported under, and the extra that brings
each (the ``train`` extra brings ``eval``'s too; ``web`` and ``video`` bring ``render``'s)."""


def install_command(extra: str) -> str:
    """How to install ``extra``, the one spelling every message uses: ``pip install 'trash-rl[eval]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def needs_extra(what: str, extra: str, missing: str | None = None) -> str:
    """The one-line message for ``what`` asked for without ``extra`` (``missing``: the module that is not
    installed). ``what`` is a plural or a name that takes "needs" (``this command``)."""
    verb = "need" if what.endswith("s") and not what.startswith("this ") else "needs"
    detail = f" ({missing} {'are' if ',' in missing else 'is'} not installed)" if missing else ""
    return f"{what} {verb} the {extra} extra: {install_command(extra)}{detail}"


class MissingExtraError(ImportError):
    """An optional module is missing: the message names the extra that brings it (:func:`needs_extra`)."""


def missing_extra(what: str, extra: str, error: ImportError | None = None) -> MissingExtraError:
    """The error for ``what`` asked for without ``extra``; ``error`` is the import's failure, whose
    module is named (raise it ``from None``: the message says everything)."""
    missing = top_module(error.name) if error is not None and error.name else None
    found = MissingExtraError(needs_extra(what, extra, missing))
    found.name = getattr(error, "name", None)
    return found


def top_module(name: str | None) -> str:
    """The top-level package of a dotted module name (``stable_baselines3.common`` -> ``stable_baselines3``)."""
    return (name or "").partition(".")[0]


def extra_of(error: ImportError) -> str | None:
    """The extra whose module ``error`` failed to import, or None if it is no extra's."""
    return EXTRA_OF_MODULE.get(top_module(error.name))
