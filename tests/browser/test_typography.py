"""Typography a reader sees, measured by Chromium on the built site in both languages.

- No word and no code token is broken across lines in the text of any page (tables,
  paragraphs, lists, headings) at 1280 and 375 px: each whitespace-delimited word of each
  text node must lie on one line box (its client rects share one line).
- In code blocks, which wrap for display, no token of up to codewrap.KEEP_UP_TO characters
  is broken right after one of its hyphens (``rebel-|compiler``).
- Korean pages are not much taller than English ones: the Korean configuration guide is
  at most 1.15x as tall as the English one.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from browser_support import laid_out, open_page, set_content
from judge_support import LANGUAGES
from recipebook_sphinx.page import codewrap

pytestmark = pytest.mark.browser

WIDTHS = (1280, 375)

# Every word of every visible text node of the main article that lies on more than one line.
# A word whose range has one client rect (with a height) lies on one line and is passed over;
# in any other, a range over one character has one client rect; the first character whose line (vertical
# centre) differs from the first character's is where the word was broken.  Prose may break
# where English and Korean typesetting do: after the hyphen or slash of a compound
# (mixture-of-|experts, 131,072-|token, but never 2026-|10-07) and before an opening
# parenthesis glued to a word (길이|(프롬프트); code, and a table cell holding one value
# (RBLN-CR13, 0.30.0), may not break inside a word at all, except the catalogue's model and
# provider names, which wrap like prose compounds (Llama-3.3-70B-|Instruct) so a hundred fit.
BROKEN_WORDS = """() => {
  const main = document.querySelector('article[role="main"]') || document.body;
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  const broken = [];
  const letter = /\\p{L}/u, alnum = /[\\p{L}\\p{N}]/u;
  const middle = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    const rect = Array.from(range.getClientRects()).find(r => r.height > 0);
    return rect ? [(rect.top + rect.bottom) / 2, rect.height] : null;
  };
  // how many line boxes hold the characters from start to end (the range's rects with a height)
  const boxes = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    return Array.from(range.getClientRects()).filter(r => r.height > 0).length;
  };
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('pre, script, style, .rb-sr, .visually-hidden, .headerlink')) continue;
    if (!parent.checkVisibility()) continue;
    const cell = parent.closest('td, th');
    // the catalogue's model and provider names wrap after their hyphens by design (issue 27.1)
    const wraps = parent.closest('.rb-catalogue td.rb-col-model, .rb-catalogue td.rb-col-provider');
    const strict = parent.closest('code') || (cell && !wraps && !/\\s/.test(cell.textContent.trim()));
    for (const match of node.data.matchAll(/\\S+/g)) {
      const word = match[0];
      // a word in one line box is whole: only one laid out on more lines is read character by character
      if (boxes(node, match.index, match.index + word.length) <= 1) continue;
      const first = middle(node, match.index, match.index + 1);
      if (!first) continue;
      for (let i = 1; i < word.length; i++) {
        const here = middle(node, match.index + i, match.index + i + 1);
        if (!here || Math.abs(here[0] - first[0]) < first[1] / 2) continue;
        const before = word[i - 1], after = word[i];
        const left = i > 1 ? word[i - 2] : '';
        const compound = '-/'.includes(before) && (letter.test(left) ? alnum.test(after) : alnum.test(left) && letter.test(after));
        if (strict || !(compound || after === '(')) {
          broken.push(`${parent.tagName.toLowerCase()}: ${word.slice(0, i)}|${word.slice(i)}`);
        }
        break;
      }
    }
  }
  return broken;
}"""


# Every token of a visible code block (up to `longest` characters, holding a hyphen) whose
# character after a hyphen lies on another line than the hyphen.
PRE_HYPHEN_BREAKS = """(longest) => {
  const main = document.querySelector('article[role="main"]') || document.body;
  const broken = [];
  const line = (node, at) => {
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    const rect = Array.from(range.getClientRects()).find(r => r.height > 0);
    return rect ? [(rect.top + rect.bottom) / 2, rect.height] : null;
  };
  for (const pre of main.querySelectorAll('pre')) {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement.checkVisibility() || node.parentElement.closest('.rb-sr')) continue;
      for (const match of node.data.matchAll(/\\S+/g)) {
        const token = match[0];
        if (token.length > longest || !token.includes('-')) continue;
        for (let i = 0; i + 1 < token.length; i++) {
          if (token[i] !== '-') continue;
          const a = line(node, match.index + i), b = line(node, match.index + i + 1);
          if (a && b && Math.abs(a[0] - b[0]) >= a[1] / 2) {
            broken.push(token.slice(0, i + 1) + '|' + token.slice(i + 1));
            break;
          }
        }
      }
    }
  }
  return broken;
}"""


def _pages(site) -> list[str]:
    """Every page of one language tree that a reader opens (search and index pages excepted)."""
    return sorted(
        p.relative_to(site / "en").as_posix()
        for p in (site / "en").rglob("*.html")
        if p.name not in ("search.html", "genindex.html")
    )


Found = dict[str, dict[str, list[str]]]  # check -> page -> what it found there


@pytest.fixture(scope="module")
def measured(browser, server, site) -> Callable[[int], tuple[Found, dict[str, int]]]:
    """What each check script finds on each page of both languages at a width (the pages where
    it finds some), and each page's height there. Each page is opened once, at the width the
    window has (the one the page before was last measured at: the widths are taken in turn one
    way, then the other, so no page is laid out again at a width nobody measures), then laid out
    again at the other (the window resized: Chromium lays the whole page out anew and its media
    queries apply afresh, as for a reader who narrows or widens a window), and every check runs at
    each width. Measured the first time a test asks."""
    found: dict[int, Found] = {}
    heights: dict[int, dict[str, int]] = {}

    def at(width: int) -> tuple[Found, dict[str, int]]:
        if not found:
            checks = {"words": (BROKEN_WORDS, None), "hyphens": (PRE_HYPHEN_BREAKS, codewrap.KEEP_UP_TO)}
            for each in WIDTHS:
                found[each], heights[each] = {name: {} for name in checks}, {}
            page = browser.new_page(viewport={"width": WIDTHS[0], "height": 900})
            order = list(WIDTHS)
            for language in LANGUAGES:
                for rel in _pages(site):
                    for n, each in enumerate(order):
                        if not n:
                            open_page(page, f"{server}/{language}/{rel}")
                        laid_out(page, each)  # (at the first width: the size it opened at)
                        for name, (script, arg) in checks.items():
                            broken = page.evaluate(script, arg)
                            if broken:
                                found[each][name][f"{language}/{rel}"] = broken[:8]
                        heights[each][f"{language}/{rel}"] = page.evaluate("document.documentElement.scrollHeight")
                    order.reverse()  # the next page opens at the width this one was last measured at
            page.close()
        return found[width], heights[width]

    return at


@pytest.fixture(scope="module")
def findings(measured) -> Callable[[int], Found]:
    return lambda width: measured(width)[0]


@pytest.mark.parametrize("width", WIDTHS)
def test_no_word_or_code_token_breaks_across_lines(findings, width):
    found = findings(width)["words"]
    assert not found, found


def test_the_detector_sees_a_word_broken_mid_way(browser):
    """The check above is not blind: a narrow cell with overflow-wrap:anywhere is caught."""
    page = browser.new_page(viewport={"width": 375, "height": 400})
    set_content(
        page,
        '<article role="main"><table><tr><td style="width:3em;overflow-wrap:anywhere">'
        "<code><span class=pre>--data-parallel-size</span></code> 데이터병렬크기</td></tr></table></article>",
    )
    broken = page.evaluate(BROKEN_WORDS)
    page.close()
    whole = [b.replace("|", "") for b in broken]
    assert any("--data-parallel-size" in b for b in whole) and any("데이터병렬크기" in b for b in whole), broken


@pytest.mark.parametrize("width", WIDTHS)
def test_korean_configuration_guide_is_not_much_taller_than_english(measured, width):
    heights = {language: measured(width)[1][f"{language}/configuration.html"] for language in LANGUAGES}
    assert heights["ko"] <= 1.15 * heights["en"], heights


@pytest.mark.parametrize("width", WIDTHS)
def test_no_short_code_token_breaks_after_its_hyphen(findings, width):
    found = findings(width)["hyphens"]
    assert not found, found


def test_the_code_check_sees_a_token_broken_after_its_hyphen(browser):
    """Not blind: in a narrow block, a hyphenated token breaks at its hyphen unless kept whole."""
    page = browser.new_page(viewport={"width": 375, "height": 400})
    inner = "pip install --extra-index-url https://pypi.example/simple rebel-compiler==0.12.0"
    block = '<pre style="width:15em;white-space:pre-wrap;font-family:monospace">{}</pre>'
    set_content(
        page, f'<style>.rb-nb{{white-space:nowrap}}</style><article role="main">{block.format(inner)}</article>'
    )
    before = page.evaluate(PRE_HYPHEN_BREAKS, codewrap.KEEP_UP_TO)
    kept = codewrap.keep_hyphenated(inner)
    set_content(page, f'<style>.rb-nb{{white-space:nowrap}}</style><article role="main">{block.format(kept)}</article>')
    after = page.evaluate(PRE_HYPHEN_BREAKS, codewrap.KEEP_UP_TO)
    text = page.evaluate("() => document.querySelector('pre').innerText")
    page.close()
    assert before and all(b.replace("|", "") in inner.split() for b in before), before
    assert after == []
    assert text == inner  # what is copied is unchanged
