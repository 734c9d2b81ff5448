"""Write the documentation pages that are generated from the code, so each has one source.

- ``docs/environments/*.md``: each environment's page is its module's docstring (the
  PettingZoo-style page ``help(trash_env.trash.env)`` prints), with reST roles turned into Markdown.
- ``docs/rules.md``: the rule book, ``trash_env/RULES.md``.
- ``docs/index.md``: the site's home page, the README (links into ``docs/`` made relative).
- ``docs/project-layout.md``: the tree of the two packages, each folder and module with the first
  sentence of its docstring, and what the other top-level folders hold.

    python scripts/docs_pages.py            # rewrite the pages
    python scripts/docs_pages.py --check    # exit 1, naming the pages, if any is stale

``tests/docs/test_docs.py`` runs ``--check``: a docstring changed without its page fails CI. Edit the
source, never the page.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# page -> (module whose docstring it is, the page's title if the docstring has none)
ENVIRONMENTS = {
    "environments/trash_v0.md": ("trash_env.trash.env", None),
    "environments/help_your_neighbor_v0.md": ("trash_env.neighbor.env", None),
    "environments/single-agent.md": ("trash_env.single_agent", None),
    "environments/vector.md": ("trash_env.trash.vec_env", "Vector environment (`TrashVecEnv`)"),
    "environments/gymnasium-vector.md": ("trash_env.vector_env", "Gymnasium vector environment (`make_vec`)"),
}


def markdown(doc: str) -> str:
    """A docstring as Markdown: reST roles and double backquotes become code spans."""
    doc = re.sub(r":(?:mod|class|func|meth|attr|data|exc):`~?([^`]+)`", r"`\1`", doc)
    return doc.replace("``", "`")


def source(path: str) -> str:
    return path.replace(".", "/") + ".py"


def environment_page(module_name: str, title: str | None) -> str:
    doc = importlib.import_module(module_name).__doc__ or ""
    body = markdown(doc.strip("\n"))
    if not body.lstrip().startswith("# "):
        first, _, rest = body.partition("\n")
        body = f"# {title}\n\n{first}\n{rest}"
    note = f"<!-- generated from the docstring of {source(module_name)} by scripts/docs_pages.py: edit that -->"
    return f"{note}\n\n{body.rstrip()}\n"


def rules_page() -> str:
    note = "<!-- generated from trash_env/RULES.md by scripts/docs_pages.py: edit trash_env/RULES.md -->"
    return f"{note}\n\n{(ROOT / 'trash_env' / 'RULES.md').read_text().rstrip()}\n"


REPOSITORY = "https://github.com/trash-rl/trash-rl"  # pyproject.toml's [project.urls] Source
BLOB, RAW = f"{REPOSITORY}/blob/main/", "https://raw.githubusercontent.com/trash-rl/trash-rl/main/"


def index_page() -> str:
    """The README as the site's home page: its absolute links into ``docs/`` (which a package index
    needs) and to the rule book made relative to ``docs/``; links to other files of the repository
    stay absolute."""
    text = (ROOT / "README.md").read_text()
    text = text.replace(f"]({BLOB}trash_env/RULES.md)", "](rules.md)")
    text = text.replace(f"]({BLOB}docs/", "](").replace(f"]({RAW}docs/", "](").replace(f'src="{RAW}docs/', 'src="')
    return f"<!-- generated from README.md by scripts/docs_pages.py: edit README.md -->\n\n{text}"


# The top-level folders that are not packages, in the order a newcomer needs them.
FOLDERS = {
    "tests": "the test suite, laid out as the packages are (`tests/trash/`, `tests/neighbor/`, `tests/agents/` ...); "
    "`make test` runs the fast selection, `make test-all` everything, slow and browser tests included",
    "benchmarks": "speed and strength figures, each a script that prints its numbers (`make bench`)",
    "scripts": "the generated pages and tables of the docs and the README, and the mutation pass over the rules cores",
    "examples": "a NumPy learner plugged into the benchmark suite through its interface",
    "docs": (
        "this site (MkDocs); the benchmark's results, one folder per version: `docs/results-v3/` (benchmark v3,"
        " the reference results), `docs/results-v2/` and `docs/results-v1/` (superseded)"
    ),
}


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, on one line, as Markdown."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split()).lstrip("# ")
    end = re.search(r"\.(\s|$)", text)
    return markdown(text[: end.start()] if end else text)


def module_doc(path: Path) -> str | None:
    import ast

    return ast.get_docstring(ast.parse(path.read_text()))


def layout_lines(folder: Path, depth: int = 0) -> list[str]:
    """``folder`` (a package) and everything in it, one bullet each, subpackages after modules."""
    indent = "    " * depth
    name = folder.relative_to(ROOT).as_posix() + "/"
    lines = [f"{indent}- `{name}`: {first_sentence(module_doc(folder / '__init__.py'))}"]
    for path in sorted(folder.glob("*.py")):
        if path.name != "__init__.py":
            lines.append(f"{indent}    - `{path.name}`: {first_sentence(module_doc(path))}")
    for path in sorted(folder.glob("*.json")):
        lines.append(f"{indent}    - `{path.name}`: data read by the modules beside it")
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()):
        lines += layout_lines(sub, depth + 1)
    return lines


def naming_lines() -> list[str]:
    """The names of each game, by what they name: generated from the game descriptors and the tasks."""
    from agents.bench.markdown import table
    from agents.bench.tasks import TASKS
    from trash_env.games import GAMES

    rows = []
    for game in GAMES.values():
        prefixes = sorted({task.name.split("-")[0] + "-" for task in TASKS.values() if task.game == game.name})
        rows.append(
            [
                game.title,
                f"`{game.name}`",
                f"`{game.env_name}`",
                f"`{game.single_agent_id}`" if game.single_agent_id else "",
                f"`{game.config_type.__module__.rsplit('.', 1)[0].replace('.', '/')}/`",
                f"`{game.config_type.__name__.removesuffix('Config')}...`",
                ", ".join(f"`{prefix}...`" for prefix in prefixes),
            ]
        )
    header = ["game", "name (`--game`)", "PettingZoo env (records, policy files)", "Gymnasium id", "folder"]
    return [
        "## Names",
        "",
        "Each game is spelled one way for each kind of name (generated from the game descriptors and the "
        "tasks): its name (the descriptor's, `--game`), its versioned environment ids (the PettingZoo one also "
        "names the game in records and policy files), its folder, and the prefix of its classes "
        "(`TrashConfig`, `NeighborConfig` ...) and of its benchmark tasks.",
        "",
        *table([*header, "classes", "benchmark tasks"], rows).splitlines(),
        "",
        "Inside the packages every module, class, function and variable spells a game as its folder does "
        "(`neighbor`, `Neighbor...`; a game's rules core is imported under its folder's name, `trash` or "
        "`neighbor`), which tests/test_layering.py checks. The names people type and files carry (the game's "
        "name, its environment ids, its task names) are published and versioned: they keep the spelling "
        "they were published with, as the table says, and a module of the PettingZoo layout is named for its "
        "env id (`trash_env/help_your_neighbor_v0.py`).",
        "",
        "The benchmark suite is `agents/bench/` (the command `trash-bench`); `benchmarks/` holds the speed and "
        "strength scripts, each a script that prints its figures (`make bench`).",
        "",
    ]


def layout_page() -> str:
    note = "<!-- generated from the tree and its docstrings by scripts/docs_pages.py: edit those -->"
    lines = [
        note,
        "",
        "# Project layout",
        "",
        "By layer, then by game: `trash_env/` is the environments and imports nothing of `agents/`; `agents/` is "
        "everything that plays or judges (the agents at its top, then evaluation, training, the benchmark and the "
        "commands). A library module never imports a command module, and there are no import cycles "
        "(`tests/test_layering.py` checks both).",
        "",
    ]
    for package in ("trash_env", "agents"):
        lines += layout_lines(ROOT / package)
    lines += [
        "",
        "Data installed with the packages: `trash_env/RULES.md` (the rule book: `trash-play --rules`), "
        "`agents/policies/` (the trained policies shipped with the package, `shipped:NAME`, with their cards), "
        "`trash_env/rendering/fonts/` and `agents/commands/web/static/`.",
        "",
        "At the top of the repository: `train.py` and `train_rllib.py` (the commands `trash-train` and "
        "`trash-train-rllib` as scripts), `pyproject.toml`, `Makefile`, `LICENSE`, and",
        "",
    ]
    lines += [f"- `{name}/`: {text}" for name, text in FOLDERS.items()]
    lines += ["", *naming_lines()]
    return "\n".join(lines).rstrip("\n") + "\n"


def pages() -> dict[Path, str]:
    out = {DOCS / page: environment_page(module, title) for page, (module, title) in ENVIRONMENTS.items()}
    out[DOCS / "rules.md"] = rules_page()
    out[DOCS / "index.md"] = index_page()
    out[DOCS / "project-layout.md"] = layout_page()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is stale, writing nothing")
    args = parser.parse_args(argv)
    stale = []
    for path, text in pages().items():
        if not path.exists() or path.read_text() != text:
            stale.append(str(path.relative_to(ROOT)))
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if args.check and stale:
        print(f"stale generated pages: {', '.join(stale)} (run python scripts/docs_pages.py)", file=sys.stderr)
        return 1
    if not args.check:
        print(f"rewrote {len(stale)} page(s)" + (f": {', '.join(stale)}" if stale else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
