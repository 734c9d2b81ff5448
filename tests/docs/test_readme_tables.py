"""The generated tables of the README and the docs pages are what their result files say
(``scripts/readme_tables.py``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import load_script

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tables():
    return load_script("scripts/readme_tables")


@pytest.mark.slow
def test_the_generated_tables_are_up_to_date(tables) -> None:
    """Regenerating the tables of README.md and the docs pages from ``docs/*.json`` and the
    committed benchmark results (``trash-bench report``'s Markdown) changes nothing, byte for byte."""
    documents = tables.documents()
    assert ROOT / "docs" / "suite.md" in documents and ROOT / "docs" / "help-your-neighbor.md" in documents
    texts = {path: path.read_text() for path in documents}
    for path, text in texts.items():
        new, changed = tables.regenerate(text)
        assert changed == [] and new == text, f"{path}: stale tables {changed}: run python scripts/readme_tables.py"
    every = "".join(texts.values())
    assert all(f"<!-- table:{name} -->" in every for name in tables.TABLES), "every generator has its table"


@pytest.mark.slow
def test_each_committed_leaderboard_page_is_what_the_report_writes(tables) -> None:
    """``docs/results-v3/leaderboard.md`` (the reference leaderboard's own page) and v2's superseded one are
    what ``trash-bench report`` writes from their result files today: ``--tiers`` for v3, ``--separate``
    for v2."""
    from agents.bench.report import load_sections, markdown

    assert (ROOT / "docs" / "results-v3" / "leaderboard.md").read_text() == tables.leaderboard()
    v2 = markdown(load_sections(ROOT / "docs" / "results-v2", separate=True))
    assert (ROOT / "docs" / "results-v2" / "leaderboard.md").read_text() == v2, "run trash-bench report --separate"


def test_a_changed_result_file_makes_its_table_stale(tables, tmp_path: Path, monkeypatch) -> None:
    """Change one figure in a copy of a result file: its table, and only it, is stale; ``--check``
    exits 1 and leaves the file alone, a plain run rewrites it and ``--check`` then passes."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("neighbor_exact.json", "neighbor_optimal_ladder.json"):
        (docs / name).write_text((ROOT / "docs" / name).read_text())
    shutil.copytree(ROOT / "docs" / "results-v2", docs / "results-v2")
    data = json.loads((docs / "neighbor_exact.json").read_text())
    data["pairs"][0]["score_difference"] = 0.5
    (docs / "neighbor_exact.json").write_text(json.dumps(data))
    readme = tmp_path / "help-your-neighbor.md"
    readme.write_text((ROOT / "docs" / "help-your-neighbor.md").read_text())
    monkeypatch.setattr(tables, "ROOT", tmp_path)
    before = readme.read_text()
    assert tables.main([str(readme), "--check"]) == 1
    assert readme.read_text() == before
    assert tables.main([str(readme)]) == 0
    assert "| +0.5000 |" in readme.read_text()
    assert tables.main([str(readme), "--check"]) == 0
    _, changed = tables.regenerate(before)
    assert changed == ["neighbor-exact-pairs"]


def test_an_unknown_table_is_refused_by_name(tables) -> None:
    with pytest.raises(ValueError, match="'nosuch' has no generator"):
        tables.regenerate("<!-- table:nosuch -->\nx\n<!-- /table:nosuch -->\n")


def test_exploitability_baselines_come_from_a_task_on_the_same_rules(tables) -> None:
    """``hyn-2p`` (scored by its sampled score) takes the baselines' exact exploitability from
    ``hyn-2p-selfplay``, the same two-player game; four-player ``hyn-4p`` and a Trash match take none."""
    from agents.bench.tasks import load_references

    same_game = load_references()["hyn-2p-selfplay"]["exploitability"]["baselines"]
    assert tables._exploitability_baselines("hyn-2p") == same_game
    assert tables._exploitability_baselines("hyn-2p")["heuristic"] > 0
    assert tables._exploitability_baselines("hyn-4p") == {}
    assert tables._exploitability_baselines("trash-pagat-2p-match") == {}
