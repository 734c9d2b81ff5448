"""Generated Markdown (:mod:`agents.bench.markdown`): the tables and the marker splicing that
``trash-bench report --readme`` and ``scripts/readme_tables.py`` share."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.bench import markdown

PAGE = """# A page

<!-- table:first -->
| old |
|---|
<!-- /table:first -->

Text between.

<!-- table:second -->
old second
<!-- /table:second -->
"""


def test_a_table_has_a_header_a_separator_and_a_line_per_row() -> None:
    """Every cell padded by one space, an empty cell by one space alone (the corner of a matrix)."""
    text = markdown.table(["", "`a`", "`b`"], [["`a`", "-", "0.50"], ["`b`", "0.50", "-"]])
    assert text == "| | `a` | `b` |\n|---|---|---|\n| `a` | - | 0.50 |\n| `b` | 0.50 | - |\n"
    assert markdown.table(["task"], []) == "| task |\n|---|\n"


def test_splice_replaces_the_named_parts_and_says_which_changed() -> None:
    """A part whose renderer gives text is replaced (named as changed only if its text differs); a part
    it gives None for is left as it is; the markers and everything around them stay."""
    bodies = {"first": "| new |\n|---|\n"}
    new, changed = markdown.splice(PAGE, bodies.get)
    assert changed == ["first"]
    assert new == PAGE.replace("| old |\n|---|\n", "| new |\n|---|\n")
    again, changed = markdown.splice(new, bodies.get)
    assert again == new and changed == []
    assert markdown.marked_names(PAGE) == ["first", "second"]
    assert markdown.markers("first") == ("<!-- table:first -->", "<!-- /table:first -->")


def test_the_report_splices_the_leaderboard_with_the_same_markers(tmp_path: Path) -> None:
    """``trash-bench report --readme``: the leaderboard between its markers, its across-tasks table between
    the summary's, other generated tables untouched; a page with neither marker is refused by name."""
    from agents.bench import report

    leaderboard = "Across tasks:\n\n| algorithm | tasks | IQM |\n|---|---|---|\n| `a` | 1 | 0.50 |\n\nMore.\n"
    page = tmp_path / "page.md"
    page.write_text(PAGE.replace("table:first", "table:leaderboard-summary"))
    report.splice(page, leaderboard)
    text = page.read_text()
    summary = "Across tasks:\n\n| algorithm | tasks | IQM |\n|---|---|---|\n| `a` | 1 | 0.50 |\n"
    assert text == PAGE.replace("table:first", "table:leaderboard-summary").replace("| old |\n|---|\n", summary)
    page.write_text(PAGE)
    with pytest.raises(ValueError, match="has no <!-- table:leaderboard --> or <!-- table:leaderboard-summary -->"):
        report.splice(page, leaderboard)
    assert page.read_text() == PAGE


def test_a_generated_part_holding_a_marker_is_refused() -> None:
    with pytest.raises(ValueError, match="the generated part first holds a marker of its own"):
        markdown.splice(PAGE, {"first": "<!-- /table:first -->\nforged\n"}.get)


@pytest.mark.parametrize(
    "page",
    [
        PAGE.replace("<!-- /table:first -->\n", ""),  # opened, never closed
        PAGE + "<!-- /table:second -->\n",  # a stray closing marker
        PAGE.replace("Text between.", "<!-- table:second -->"),  # a part opened inside another's place
    ],
)
def test_a_page_whose_markers_are_not_paired_is_refused_before_anything_is_spliced(page: str) -> None:
    with pytest.raises(ValueError, match=r"marker|never closed"):
        markdown.splice(page, {"first": "new\n"}.get)


def test_a_run_name_is_text() -> None:
    assert markdown.run_text("maskable_ppo/fraction_0.1/seed_0") == "maskable_ppo/fraction_0.1/seed_0"
    assert markdown.run_text("a/<b>") == markdown.literal("a/<b>") != "a/<b>"
