"""The rules page: each rule written once, as the docstring of the function that checks it.

``recipebook.checking.rules.statements`` reads the docstrings; the ``recipe-rules`` directive lists
them on a page, where the page's own catalog translates them (tests/roots/test-rules).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polib
import pytest
from bs4 import BeautifulSoup

from recipebook.checking import bounds, characters, commandtext, facts, rules, safety, sizing

ROOT = Path(__file__).resolve().parents[1]
CHECKERS = (
    *rules.RULES,
    characters.check,
    *safety.RULES,  # rule 18 (portable_name) also states names_differ_in_more_than_case, its folder half
    facts.check,
    commandtext.check,
    bounds.check,
    sizing.facts_bounds,
    sizing.npus_agree,
    sizing.served_sizes,
)


def plain(text: str) -> str:
    """A statement's Markdown or a rendered item as comparable text: no backquotes, one space, plain quotes."""
    text = text.replace("`", "")
    text = text.translate(str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}))
    return " ".join(text.split())


def test_every_checking_function_states_its_rule():
    found = rules.statements()
    assert len(found) == len(CHECKERS)
    for checker in CHECKERS:
        doc = " ".join((checker.__doc__ or "").split())
        assert doc, f"{checker.__module__}.{checker.__name__} has no statement"
        assert any(" ".join(s.text.split()) in doc for s in found), checker.__name__


def test_rules_are_numbered_once_from_one():
    numbers = [s.number for s in rules.statements() if s.number is not None]
    assert numbers == list(range(1, len(numbers) + 1))
    unnumbered = [s for s in rules.statements() if s.number is None]
    assert unnumbered and rules.statements()[-len(unnumbered) :] == tuple(unnumbered)


def _items(html: str) -> tuple[list, list]:
    body = BeautifulSoup(html, "html.parser").select_one('[role="main"]')
    numbered = body.select("ol > li")
    unnumbered = body.select("ul > li")
    return numbered, unnumbered


@pytest.mark.sphinx("html", testroot="rules")
def test_the_page_lists_every_rule_with_its_number_and_statement(app, warning):
    app.build()
    assert warning.getvalue() == ""
    html = Path(app.outdir, "index.html").read_text(encoding="utf-8")
    numbered, unnumbered = _items(html)
    statements = rules.statements()
    expected = [s for s in statements if s.number is not None]
    assert [li["id"] for li in numbered] == [f"rule-{s.number}" for s in expected]
    for li, statement in zip(numbered, expected, strict=True):
        assert plain(li.get_text()) == plain(statement.text)
        assert li.find("code") or "`" not in statement.text  # inline code stays code
    others = [s for s in statements if s.number is None]
    assert [plain(li.get_text()) for li in unnumbered] == [plain(s.text) for s in others]
    link = BeautifulSoup(html, "html.parser").find("a", string=re.compile("rule 12"))
    assert link["href"] == "#rule-12"
    # an edited docstring rebuilds the page
    dependencies = {Path(p).resolve() for p in app.env.dependencies["index"]}
    assert {Path(m.__file__).resolve() for m in (rules, characters, safety)} <= dependencies


def test_the_page_catalog_translates_the_rules(make_app, rootdir, tmp_path):
    """The statements' paragraphs are the page's messages: extracted by gettext, translated in Korean."""
    srcdir = tmp_path / "rules"
    shutil.copytree(rootdir / "test-rules", srcdir)
    gettext = make_app("gettext", srcdir=srcdir, builddir=tmp_path / "gettext-build")
    gettext.build()
    pot = polib.pofile(str(Path(gettext.outdir, "index.pot")))
    msgids = {e.msgid for e in pot}
    for statement in rules.statements():
        first = " ".join(statement.text.split("\n\n")[0].split())
        assert first in msgids
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=utf-8", "Language": "ko"}
    for entry in pot:
        po.append(polib.POEntry(msgid=entry.msgid, msgstr=f"번역 {entry.msgid}"))
    catalog = srcdir / "locale" / "ko" / "LC_MESSAGES"
    catalog.mkdir(parents=True)
    po.save(str(catalog / "index.po"))
    korean = make_app("html", srcdir=srcdir, builddir=tmp_path / "ko-build", confoverrides={"language": "ko"})
    korean.build()
    numbered, unnumbered = _items(Path(korean.outdir, "index.html").read_text(encoding="utf-8"))
    assert len(numbered) == sum(1 for s in rules.statements() if s.number is not None)
    for li in [*numbered, *unnumbered]:
        paragraphs = li.find_all("p")
        assert paragraphs and all(p.get_text().startswith("번역 ") for p in paragraphs), li
    assert all(li.get("id", "").startswith("rule-") for li in numbered)
