"""The documentation site as a reader sees it, in a headless Chromium at a laptop's width: every
table stays inside the page's text column (a wide one scrolls sideways in its own box) and no cell
is squeezed to a word per line, on every page (marker ``browser``: needs the docs extra, Playwright
and Chromium)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from helpers.browser import headless_chromium

pytestmark = pytest.mark.browser

TABLES = """() => [...document.querySelectorAll('article table')].map(table => {
    const box = table.parentElement.closest('.md-typeset__scrollwrap');
    const column = document.querySelector('.md-content').getBoundingClientRect();  // the text column
    return {
        scrolls: box !== null && ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
        right: (box || table).getBoundingClientRect().right,
        columnRight: column.right,
        header: table.rows[0].innerText.slice(0, 60),
        tallest: Math.max(...[...table.querySelectorAll('td')].map(cell => cell.getBoundingClientRect().height)),
    };
})"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs")
    folder = tmp_path_factory.mktemp("site")
    completed = subprocess.run(
        # no --quiet: it hides the warnings from --strict
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    return folder


def test_every_table_stays_in_the_text_column(site: Path) -> None:
    pages = sorted(site.rglob("index.html"))
    assert len(pages) > 10
    wide = 0
    with headless_chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for path in pages:
            page.goto(path.as_uri())
            for table in page.evaluate(TABLES):
                where = f"{path.relative_to(site)}: table '{table['header']}'"
                assert table["scrolls"], f"{where} is not in a box that scrolls sideways"
                assert table["right"] <= table["columnRight"] + 1, f"{where} runs out of the text column"
                # a column squeezed to a word per line makes a cell as tall as a paragraph (the suite's
                # task table had 250 px rows before its "what it tests" column became a list)
                assert table["tallest"] <= 150, f"{where} squeezes a cell to {table['tallest']:.0f} px tall"
            wide += page.evaluate(
                "() => [...document.querySelectorAll('.md-typeset__scrollwrap')]"
                ".filter(box => box.scrollWidth > box.clientWidth + 1).length"
            )
    assert wide > 0  # the suite's leaderboard is wider than the column: the check above saw one scroll
