"""The rule book ``RULES.md`` is in the product, and every rule section cited anywhere exists in it.

Code, docstrings, tests and documentation cite rules as "R5", "(R13)", "RULES.md R7"; a citation
of a section the rule book does not have would send a user nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trash_env import rulebook

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "trash_env" / "RULES.md"
CITATION = re.compile(r"(?<![\w.-])R(\d{1,2})(?:\.\d)?(?![\w-])")
CITING = ["trash_env", "agents", "tests", "benchmarks", "scripts", "docs"]


def sections() -> dict[str, str]:
    """The rule book's sections by number: "R5" -> its title."""
    return dict(re.findall(r"^## (R\d+)\. (.+)$", RULES.read_text(), flags=re.M))


def cited() -> dict[str, set[str]]:
    """Every cited section, with the files citing it."""
    files = [ROOT / "README.md", ROOT / "train.py", ROOT / "train_rllib.py"]
    for folder in CITING:
        files += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md") and p.is_file()]
    found: dict[str, set[str]] = {}
    for path in files:
        for number in CITATION.findall(path.read_text(errors="replace")):
            found.setdefault(f"R{number}", set()).add(str(path.relative_to(ROOT)))
    return found


def test_the_rule_book_has_sections_r1_to_r15_and_the_rules_notes() -> None:
    assert list(sections()) == [f"R{n}" for n in range(1, 16)]
    text = RULES.read_text()
    assert "## Rules notes" in text and "### Trash" in text and "### Help Your Neighbor" in text


def test_every_cited_section_exists() -> None:
    known = sections()
    missing = {section: sorted(paths) for section, paths in cited().items() if section not in known}
    assert missing == {}
    assert len(cited()) >= 12  # the scan does find the citations


def test_the_readme_links_the_rule_book() -> None:
    assert "/blob/main/trash_env/RULES.md)" in (ROOT / "README.md").read_text()


def test_the_installed_rule_book_is_the_repositorys_and_gives_each_section() -> None:
    """The package reads its rule book as package data (``trash_env.rulebook``), and a section runs
    from its heading to the next: R9's text is R9's and no more."""
    assert rulebook.rule_book() == RULES.read_text()
    assert list(rulebook.sections()) == list(sections())
    r9 = rulebook.section("r9")
    assert r9.startswith("## R9. Match (several hands)") and "## R10." not in r9
    assert rulebook.section("15").startswith("## R15.") and "Rules notes" not in rulebook.section("R15")
    with pytest.raises(ValueError, match="no section '99': its sections are R1 to R15"):
        rulebook.section("99")


def test_trash_play_prints_the_rule_book_or_a_section(capsys: pytest.CaptureFixture[str]) -> None:
    from agents.commands.play import main

    assert main(["--rules"]) == 0
    assert capsys.readouterr().out == RULES.read_text()
    assert main(["--rules", "R12"]) == 0
    assert capsys.readouterr().out == rulebook.section("R12")
    assert main(["--rules", "nine"]) == 2
    assert "no section 'nine'" in capsys.readouterr().err
