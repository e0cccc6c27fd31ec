"""The reader query sets, run through the built site's search pages in Chromium, and what a
reader sees under each result.

Each query of tests/search_sets is typed into ``en/search.html`` or ``ko/search.html`` as a
reader does (the first of a set as the page's URL, the others into the page it opened), and the pages listed are scored against the set's
expectations (tests/query_sets.py): recall@5, wrong first results, unanswerable queries
that correctly find nothing. The floors below were set before the held-back parts were
first measured; `make search-report` gives the figures. The pages the browser lists must also be the ones
the same pipeline ranks in Node.js (where tests/js/ tests it), so those tests hold for the page.

Summaries: the text a result's summary is cut from keeps the parts of a page apart (a
selector's legend from its choices, a definition's term from its description), and leaves
out what a reader does not see as text (the hidden change marks, button labels, screen
reader text); each summary shows the query's words. Measurements wait for fonts and
layout (``document.fonts.ready`` and two animation frames), so a loaded machine passes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import query_sets
from browser_support import laid_out
from recipebook_sphinx.search import summaries
from search_support import pipeline

pytestmark = pytest.mark.browser

# The floors of the figures, for every language and part; decided before the held-back
# parts were run.
MIN_RECALL = 0.85
MAX_WRONG_TOP_SHARE = 0.10
MIN_ACCEPTABLE = 0.90  # the measure (43): acceptable in the top three, no-answer queries included
MIN_NO_ANSWER = 0.75


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, errors


@pytest.mark.parametrize("part", query_sets.PARTS)
@pytest.mark.parametrize("language", ["ko", "en"])
def test_reader_queries_find_their_pages_on_the_search_page(page, server, site, language, part):
    entries = query_sets.load(language, part)
    base = f"{server}/{language}"
    ranked = pipeline(site / language, [entry["query"] for entry in entries])
    results, differ = {}, []
    found = query_sets.browser_searches(page, base, [entry["query"] for entry in entries])
    for entry in entries:
        query = entry["query"]
        items = found[query]
        shown = [(item["doc"], f"#{item['anchor']}" if item["anchor"] else "") for item in items]
        expected = [(doc, anchor) for doc, anchor, _score, _coverage in ranked[query]["hits"]]
        if shown != expected:
            differ.append(f"{query!r}: page {shown}, Node.js {expected}")
        results[query] = [doc for doc, _anchor in shown]
    figures = query_sets.figures(entries, results, query_sets.page_texts(site / language))
    print(f"{language} {part} ({len(entries)} queries): {figures.line()}")
    for miss in figures.misses:
        print("   ", miss)
    assert not differ, "\n".join(differ)
    assert figures.recall >= MIN_RECALL, figures.misses
    assert figures.wrong_top <= MAX_WRONG_TOP_SHARE * figures.answerable, figures.misses
    assert figures.no_answer >= MIN_NO_ANSWER, figures.misses
    assert figures.acceptable >= MIN_ACCEPTABLE, figures.misses


# ---------------------------------------------------------------------- summaries

# The text a summary is cut from, for every page; and what the page holds that it must keep
# apart or leave out. Runs in the search page, with the page's own RecipeSearch.pageText.
PAGE_TEXTS = """
async (pages) => {
  const found = {};
  for (const name of pages) {
    const html = await (await fetch(name + ".html")).text();
    const page = new DOMParser().parseFromString(html, "text/html");
    const main = page.querySelector('[role="main"]');
    const folded = !!main.querySelector(".sd-tab-set, details:not([open])");  // before anything is removed
    const texts = (selector) => [...main.querySelectorAll(selector)].map((e) => e.textContent.replace(/\\s+/g, " ").trim());
    const buttons = texts("button");
    const hidden = texts(".rb-sr");
    // a removed line's struck-through copy, without its screen-reader mark
    main.querySelectorAll(".rb-del .rb-sr").forEach((mark) => mark.remove());
    const removed = texts(".rb-del del").filter(Boolean);
    main.querySelectorAll("button, .rb-del").forEach((b) => b.remove());
    const shown = main.textContent;
    const flat = shown.replace(/\\s+/g, " ");
    found[name] = {
      text: RecipeSearch.pageText(html, ""),
      folded,  // the page has tabs or closed details: it opens with some of its text out of sight
      hidden,
      // each button's label, and how often the page's text holds it outside buttons
      buttons: [...new Set(buttons)].map((label) => [label, shown.split(label).length - 1]),
      // a removed line's struck-through copy (the diff view), and how often the page holds it elsewhere
      removed: [...new Set(removed)].map((line) => [line, flat.split(line).length - 1]),
      legends: [...main.querySelectorAll("fieldset")].map((f) => [
        f.querySelector("legend").textContent.trim(),
        [...f.querySelectorAll(":scope > .rb-choices > label, :scope > .rb-choices > .rb-toggle > label")]
          .map((l) => l.textContent.replace(/\\s+/g, " ").trim()),
      ]),
      terms: [...main.querySelectorAll("dl > dt")].map((dt) => dt.textContent.replace(/\\s+/g, " ").trim()),
    };
  }
  return found;
}
"""


@pytest.fixture(scope="module")
def page_texts(page, server, site):
    """What PAGE_TEXTS finds on every page of a language, read in that language's search page: the
    text the search page's own reader makes of each page (RecipeSearch.pageText) and what the page
    holds beside it. Read once per language, the first time a test asks; both summary tests use it."""
    found: dict[str, dict[str, Any]] = {}

    def of(language: str) -> dict[str, Any]:
        if language not in found:
            page.goto(f"{server}/{language}/search.html")
            found[language] = page.evaluate(PAGE_TEXTS, sorted(query_sets.page_texts(site / language)))
        return found[language]

    return of


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_text_a_summary_is_cut_from_reads_as_the_page(page_texts, language):
    found = page_texts(language)
    checked = {"legends": 0, "terms": 0, "hidden": 0, "buttons": 0, "removed": 0}
    for name, got in found.items():
        text = got["text"]
        assert text, name
        for mark in set(got["hidden"]):  # "추가됨:", "삭제됨:": marks for screen readers in the diff view
            assert mark not in text, f"{name}: {mark!r}"
            checked["hidden"] += 1
        for label, outside in got["buttons"]:  # 복사, Copy: a button's label is not the page's text
            assert text.count(label) <= outside, f"{name}: {label!r}"
            checked["buttons"] += 1
        for line, outside in got["removed"]:  # the diff view's struck-through copies are not read twice
            assert text.count(line) <= outside, f"{name}: {line!r}"
            checked["removed"] += 1
        for legend, labels in got["legends"]:  # KV 오프로드: 사용 안 함, LMCache (CPU), LMCache (RDS) 권장
            assert f"{legend}: {', '.join(labels)}" in text, f"{name}: {legend} {labels}"
            checked["legends"] += 1
        for term in got["terms"]:  # vllm-rbln: vLLM용 RBLN 플러그인입니다 (not vllm-rblnvLLM용)
            assert f"{term} " in text if term.endswith((".", ":", "?", "!")) else f"{term}: " in text, (
                f"{name}: {term!r}"
            )
            checked["terms"] += 1
    assert all(checked.values()), checked


def test_each_summary_file_holds_the_text_the_page_shows(page_texts, site):
    """The small file a result's summary is cut from (search/summaries.py, written at build time)
    holds the text the search page's own reader makes of the page (RecipeSearch.pageText): all of
    it on a page without tabs or closed details; on one with them, the page as it opens (its blocks
    in the page's order), within the bound."""
    compared = whole = 0
    for language in ("ko", "en"):
        read = page_texts(language)
        for name in sorted(query_sets.page_texts(site / language)):
            file = json.loads((site / language / "_search" / f"{name}.json").read_text(encoding="utf-8"))
            shown, folded = read[name]["text"], read[name]["folded"]
            assert len(file["text"].encode()) <= summaries.LIMIT, name
            text = file["text"]
            if "digest" in file:  # the flags of the tabs it does not open with, after the text
                start, end = file["digest"]
                flags = text[start:end].split(" ")
                assert end == len(text) and all(summaries.FLAG.fullmatch(flag) for flag in flags), name
                assert not set(flags) & set(summaries.FLAG.findall(text[:start])), name
                page_html = (site / language / f"{name}.html").read_text(encoding="utf-8")
                assert all(flag in page_html for flag in flags), name
                text = text[: start - len(" \u00b7 ")]
            if not folded:
                assert file["text"] == shown, name
                whole += 1
            at = 0
            for block in re.split(r" \u00b7 |, |: ", text):  # a left-out tab leaves its neighbours joined
                found = shown.find(block, at)
                assert found >= 0, f"{name}: {block[:200]!r}"
                at = found + len(block)
            for start, end in file["code"]:
                assert 0 <= start < end <= len(file["text"]), name
            compared += 1
    assert compared > 10 and whole > 5, (compared, whole)


# Common queries and the words each summary must show (as the page writes them).
COMMON = {
    "ko": {
        "프리픽스 캐싱": ("프리픽스", "캐싱"),
        "vllm-rbln 설치": ("vllm-rbln", "설치"),
        "추측 디코딩": ("추측", "디코딩"),
        "LMCache 오프로드": ("LMCache", "오프로드"),
    },
    "en": {
        "prefix caching": ("prefix", "caching"),
        "install vllm-rbln": ("install", "vllm-rbln"),
        "speculative decoding": ("speculative", "decoding"),
        "lmcache offload": ("LMCache", "offload"),
    },
}


def _spellings(language: str, word: str) -> set[str]:
    """The word and every spelling its glossary group gives it (디코딩 also finds a page's "Decode")."""
    glossary = query_sets.ROOT / "_ext/recipebook_sphinx/search/data" / f"search_{language}_glossary.json"
    groups = json.loads(glossary.read_text(encoding="utf-8"))["groups"]
    found = {word.lower()}
    for group in groups:
        if word.lower() in (spelling.lower() for spelling in group):
            found.update(spelling.lower() for spelling in group)
    return found


@pytest.mark.parametrize("language", ["ko", "en"])
def test_each_summary_shows_where_the_query_words_stand_together(page, server, language):
    """The first result's summary shows every word of the query, marked; every other one some
    (a word or a spelling of it the glossary gives, as the search found it)."""
    for query, shown in COMMON[language].items():
        spellings = set().union(*(_spellings(language, word) for word in shown))
        items = query_sets.browser_search(page, f"{server}/{language}", query, summaries=True)
        assert items, query
        first = items[0]["summary"].lower()
        assert all(word.lower() in first for word in shown), f"{query!r}, {items[0]['doc']}: {first}"
        for item in items:
            assert any(word in item["summary"].lower() for word in spellings), f"{query!r}: {item}"
        marked = page.eval_on_selector_all(
            "#search-results p.context", "(ps) => ps.map((p) => p.querySelectorAll('.highlighted').length)"
        )
        assert marked[0] >= len(shown) and all(marked), (query, marked)


# Questions about what no recipe is likely to hold; the test checks the premise on the built pages.
NOTHING = {"ko": ("얼룩말 뜨개질", ("얼룩말", "뜨개질")), "en": ("how to knit a zebra", ("knit", "zebra"))}


def test_nothing_found_says_so_in_the_readers_language(page, server, site):
    for language, (query, topic) in NOTHING.items():
        texts = query_sets.page_texts(site / language)
        assert not any(query_sets.holds(texts, word) for word in topic), "no page may hold the words"
        assert query_sets.browser_search(page, f"{server}/{language}", query) == []
        status = page.inner_text("#search-results .search-summary")
        assert "categories" not in status and status, status
        if language == "ko":
            assert "검색어에 맞는 페이지가 없습니다" in status, status


@pytest.fixture(scope="module")
def searched(browser, server):
    """A language's search page after a reader's query (results and their summaries), searched once
    in a page of its own at 1280 px and shared by the widths: a test resizes the window to its width
    (Chromium lays the page out anew; media queries apply afresh) and the page must then report
    innerWidth equal to it. Searched the first time a test asks."""
    opened: dict[str, tuple[Any, list[dict[str, str]]]] = {}
    contexts = []

    def at(language: str, width: int) -> tuple[Any, list[dict[str, str]]]:
        if language not in opened:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            contexts.append(context)
            tab = context.new_page()
            query = {"ko": "vllm-rbln 설치 방법", "en": "install vllm-rbln with kv_connectors"}[language]
            opened[language] = (tab, query_sets.browser_search(tab, f"{server}/{language}", query, summaries=True))
        tab, items = opened[language]
        laid_out(tab, width)
        return tab, items

    yield at
    for context in contexts:
        context.close()


@pytest.mark.parametrize("width", [1280, 375])
@pytest.mark.parametrize("language", ["ko", "en"])
def test_results_fit_the_screen(searched, language, width):
    tab, items = searched(language, width)
    overflow = tab.evaluate(
        "() => ({page: document.scrollingElement.scrollWidth - innerWidth,"
        " cut: [...document.querySelectorAll('#search-results li')]"
        ".filter((li) => li.getBoundingClientRect().right > innerWidth + 0.5).length})"
    )
    assert items
    assert overflow == {"page": 0, "cut": 0}, overflow
