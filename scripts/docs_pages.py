"""Write the documentation pages that are generated from the code, so each has one source.

- ``docs/environments/*.md``: each environment's page is its module's docstring (the
  PettingZoo-style page ``help(trash_env.trash)`` prints), with reST roles turned into Markdown.
- ``docs/rules.md``: the rule book, ``RULES.md``.
- ``docs/index.md``: the site's home page, the README (links into ``docs/`` made relative).

    python scripts/docs_pages.py            # rewrite the pages
    python scripts/docs_pages.py --check    # exit 1, naming the pages, if any is stale

``tests/test_docs.py`` runs ``--check``: a docstring changed without its page fails CI. Edit the
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
    "environments/trash_v0.md": ("trash_env.trash", None),
    "environments/help_your_neighbor_v0.md": ("trash_env.help_your_neighbor", None),
    "environments/single-agent.md": ("trash_env.single_agent", None),
    "environments/vector.md": ("trash_env.vec_env", "Vector environment (`TrashVecEnv`)"),
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
    note = "<!-- generated from RULES.md by scripts/docs_pages.py: edit RULES.md -->"
    return f"{note}\n\n{(ROOT / 'RULES.md').read_text().rstrip()}\n"


def index_page() -> str:
    """The README as the site's home page: its links into ``docs/`` and to the rule book made
    relative to ``docs/``."""
    text = (ROOT / "README.md").read_text()
    text = re.sub(r"\]\(docs/", "](", text).replace('src="docs/', 'src="').replace("](RULES.md)", "](rules.md)")
    return f"<!-- generated from README.md by scripts/docs_pages.py: edit README.md -->\n\n{text}"


def pages() -> dict[Path, str]:
    out = {DOCS / page: environment_page(module, title) for page, (module, title) in ENVIRONMENTS.items()}
    out[DOCS / "rules.md"] = rules_page()
    out[DOCS / "index.md"] = index_page()
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
