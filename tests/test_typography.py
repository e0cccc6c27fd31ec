"""Typography a reader sees, measured by Chromium on the built site in both languages.

- No word and no code token is broken across lines in the text of any page (tables,
  paragraphs, lists, headings) at 1280 and 375 px: each whitespace-delimited word of each
  text node must lie on one line box (its client rects share one line).
- Korean pages are not much taller than English ones: the Korean configuration guide is
  at most 1.15x as tall as the English one.
"""

from __future__ import annotations

import pytest

from judge_support import LANGUAGES

pytestmark = pytest.mark.browser

WIDTHS = (1280, 375)

# Every word of every visible text node of the main article that lies on more than one line.
# A range over one character has one client rect; the first character whose line (vertical
# centre) differs from the first character's is where the word was broken.  Prose may break
# where English and Korean typesetting do: after the hyphen or slash of a compound
# (mixture-of-|experts, 131,072-|token, but never 2026-|10-07) and before an opening
# parenthesis glued to a word (길이|(프롬프트); code, and a table cell holding one value
# (RBLN-CR13, 0.30.0), may not break inside a word at all.
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
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('pre, script, style, .rb-sr, .visually-hidden, .headerlink')) continue;
    if (!parent.checkVisibility()) continue;
    const cell = parent.closest('td, th');
    const strict = parent.closest('code') || (cell && !/\\s/.test(cell.textContent.trim()));
    for (const match of node.data.matchAll(/\\S+/g)) {
      const word = match[0];
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


def _pages(site) -> list[str]:
    """Every page of one language tree that a reader opens (search and index pages excepted)."""
    return sorted(
        p.relative_to(site / "en").as_posix()
        for p in (site / "en").rglob("*.html")
        if p.name not in ("search.html", "genindex.html")
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_no_word_or_code_token_breaks_across_lines(browser, server, site, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    found = {}
    for language in LANGUAGES:
        for rel in _pages(site):
            page.goto(f"{server}/{language}/{rel}")
            broken = page.evaluate(BROKEN_WORDS)
            if broken:
                found[f"{language}/{rel}"] = broken[:8]
    page.close()
    assert not found, found


def test_the_detector_sees_a_word_broken_mid_way(browser):
    """The check above is not blind: a narrow cell with overflow-wrap:anywhere is caught."""
    page = browser.new_page(viewport={"width": 375, "height": 400})
    page.set_content(
        '<article role="main"><table><tr><td style="width:3em;overflow-wrap:anywhere">'
        "<code><span class=pre>--data-parallel-size</span></code> 데이터병렬크기</td></tr></table></article>"
    )
    broken = page.evaluate(BROKEN_WORDS)
    page.close()
    whole = [b.replace("|", "") for b in broken]
    assert any("--data-parallel-size" in b for b in whole) and any("데이터병렬크기" in b for b in whole), broken


@pytest.mark.parametrize("width", WIDTHS)
def test_korean_configuration_guide_is_not_much_taller_than_english(browser, server, width):
    page = browser.new_page(viewport={"width": width, "height": 900})
    heights = {}
    for language in LANGUAGES:
        page.goto(f"{server}/{language}/configuration.html")
        heights[language] = page.evaluate("document.documentElement.scrollHeight")
    page.close()
    assert heights["ko"] <= 1.15 * heights["en"], heights
